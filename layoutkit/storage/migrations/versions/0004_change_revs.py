"""Change counters for warm board models: ``boards.rev``, ``edges_rev``,
``purged_rev`` and ``cards.rev``, with an index to read a board's cards
changed after a rev.

Existing rows start at rev 0, which every model loaded from scratch is at.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("boards") as batch:
        for name in ("rev", "edges_rev", "purged_rev"):
            batch.add_column(sa.Column(name, sa.BigInteger(), nullable=False, server_default="0"))
    with op.batch_alter_table("cards") as batch:
        batch.add_column(sa.Column("rev", sa.BigInteger(), nullable=False, server_default="0"))
    op.create_index("ix_cards_board_rev", "cards", ["board_id", "rev"])
