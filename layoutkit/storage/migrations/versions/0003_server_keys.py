"""Server keys: random secrets a store keeps for itself, created on first use.

The first is ``confirm``, which signs the ``rm_`` tokens of update_cards'
removal handshake, so a token minted by one process is checked by any other.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "server_keys",
        sa.Column("name", sa.String(length=40), nullable=False),
        sa.Column("secret", sa.String(length=128), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("name"),
    )
