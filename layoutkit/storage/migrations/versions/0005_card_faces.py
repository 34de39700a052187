"""Stored card faces: ``card_faces`` keeps the SVG text of each card's face as
last drawn, with the card's rev and the renderer's code digest it was drawn
for and the key of what it depends on, so a board is drawn from stored faces
by a process that never drew it.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "card_faces",
        sa.Column("card_id", Id, sa.ForeignKey("cards.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("rev", sa.BigInteger(), nullable=False),
        sa.Column("code", sa.String(16), nullable=False),
        sa.Column("key", sa.String(32), nullable=False),
        sa.Column("svg", sa.Text(), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("card_faces")
