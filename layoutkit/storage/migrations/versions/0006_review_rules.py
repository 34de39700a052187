"""Review rules: the workspace and project layers' rule files, one row per version.

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "review_rules",
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        sa.Column(
            "workspace_id",
            Id,
            sa.ForeignKey("workspaces.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column(
            "project_id", Id, sa.ForeignKey("projects.id", ondelete="CASCADE"), nullable=True
        ),
        sa.Column("scope", sa.String(length=40), nullable=False),
        sa.Column("rule_id", sa.String(length=41), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("source", sa.Text(), nullable=True),
        sa.Column("author", sa.String(length=300), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint(
            "workspace_id", "scope", "rule_id", "version", name="uq_review_rules_version"
        ),
    )
