"""Comment threads are annotations too: ``annotations.kind`` says which (``finding``
filed by an agent, ``comment`` pinned by a person), and a comment pinned to a point
of the board itself names no card, so ``card_id``, ``card_version`` and
``filed_version`` may be NULL. ``attention`` is the number of a comment thread's newest
message a person wrote (0 the comment itself): agents' work is found by it in SQL. Every stored row is a finding: the column's default
fills it, and no row needs another backfill. SQLite rebuilds the table for the
nullability change (nothing references ``annotations``, so nothing cascades).

Revision ID: 0021
Revises: 0020
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    with op.batch_alter_table("annotations") as batch:
        batch.add_column(sa.Column("kind", sa.String(10), nullable=False, server_default="finding"))
        batch.add_column(sa.Column("attention", sa.Integer(), nullable=True))
        batch.alter_column("card_id", existing_type=Id, nullable=True)
        batch.alter_column("card_version", existing_type=sa.Integer(), nullable=True)
        batch.alter_column("filed_version", existing_type=sa.Integer(), nullable=True)
        batch.create_index("ix_annotations_board_kind", ["board_id", "kind", "state"])


def downgrade() -> None:
    op.execute("DELETE FROM annotations WHERE card_id IS NULL")
    with op.batch_alter_table("annotations") as batch:
        batch.drop_index("ix_annotations_board_kind")
        batch.alter_column("filed_version", existing_type=sa.Integer(), nullable=False)
        batch.alter_column("card_version", existing_type=sa.Integer(), nullable=False)
        batch.alter_column("card_id", existing_type=Id, nullable=False)
        batch.drop_column("attention")
        batch.drop_column("kind")
