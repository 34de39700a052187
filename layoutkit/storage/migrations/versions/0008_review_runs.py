"""Review runs: ``review_runs`` keeps each run's plan and the state of its sight
rule (sheets served, wrong codes).

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
Json = sa.JSON(none_as_null=True).with_variant(postgresql.JSONB(none_as_null=True), "postgresql")


def upgrade() -> None:
    op.create_table(
        "review_runs",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column(
            "workspace_id",
            Id,
            sa.ForeignKey("workspaces.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column(
            "project_id", Id, sa.ForeignKey("projects.id", ondelete="CASCADE"), nullable=True
        ),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("rubric", sa.String(64), nullable=False),
        sa.Column("sight", sa.String(16), nullable=False),
        sa.Column("misses", sa.Integer(), nullable=False),
        sa.Column("served", Json, nullable=False),
        sa.Column("plan", Json, nullable=False),
        sa.Column("author", sa.String(300), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index(
        "ix_review_runs_project", "review_runs", ["workspace_id", "project_id", "rubric"]
    )


def downgrade() -> None:
    op.drop_table("review_runs")
