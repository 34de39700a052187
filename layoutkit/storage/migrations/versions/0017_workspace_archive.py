"""Workspaces can be archived: ``workspaces.archived_at`` says when (NULL: in use).

An archived workspace refuses writes and leaves the default listing of
``list_workspaces``; its owners can bring it back (docs/workspaces.md). A plain
nullable column, so no table is rebuilt on SQLite and no row needs a backfill.

Revision ID: 0017
Revises: 0016
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("workspaces", sa.Column("archived_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    # In place (SQLite 3.35+ and PostgreSQL): a batch rebuild of workspaces would
    # drop the table every other one cascades from.
    op.execute("ALTER TABLE workspaces DROP COLUMN archived_at")
