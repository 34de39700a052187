"""API tokens say what minted them: ``purpose`` is ``serve`` for the owner token
``layoutkit serve`` keeps for its database, NULL for tokens made by hand.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("api_tokens") as batch:
        batch.add_column(sa.Column("purpose", sa.String(length=20), nullable=True))
