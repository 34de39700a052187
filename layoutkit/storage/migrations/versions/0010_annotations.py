"""Annotations: ``annotations`` keeps each finding an agent filed on a card version
(its region, prompt, triage fields, lifecycle state, author and verified principal)
with its thread of replies and its before/after deck. A key names a finding once
per board.

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
Json = sa.JSON(none_as_null=True).with_variant(postgresql.JSONB(none_as_null=True), "postgresql")


def upgrade() -> None:
    op.create_table(
        "annotations",
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        sa.Column("board_id", Id, sa.ForeignKey("boards.id", ondelete="CASCADE"), nullable=False),
        sa.Column("card_id", Id, sa.ForeignKey("cards.id", ondelete="CASCADE"), nullable=False),
        sa.Column("card_version", sa.Integer(), nullable=False),
        sa.Column("filed_version", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(200), nullable=False),
        sa.Column("region", Json, nullable=False),
        sa.Column("prompt", Json, nullable=False),
        sa.Column("intent", sa.String(20), nullable=False),
        sa.Column("severity", sa.String(40), nullable=True),
        sa.Column("category", sa.String(100), nullable=True),
        sa.Column("related", Json, nullable=True),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("author", sa.String(300), nullable=False),
        sa.Column("principal", sa.String(300), nullable=False),
        sa.Column("run_id", sa.String(40), nullable=True),
        sa.Column("replies", Json, nullable=False),
        sa.Column("deck", Json, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("board_id", "key", name="uq_annotations_key"),
    )
    op.create_index("ix_annotations_board_state", "annotations", ["board_id", "state"])
    op.create_index("ix_annotations_card", "annotations", ["card_id", "card_version"])


def downgrade() -> None:
    op.drop_table("annotations")
