"""The task engine: ``tasks``, their vocabulary (``task_vocab``), their versioned refs
(``task_refs``) and their event log (``task_events``).

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
Json = sa.JSON(none_as_null=True).with_variant(postgresql.JSONB(none_as_null=True), "postgresql")
When = sa.DateTime(timezone=True)


def _workspace() -> sa.Column:
    return sa.Column(
        "workspace_id", Id, sa.ForeignKey("workspaces.id", ondelete="CASCADE"), nullable=False
    )


def upgrade() -> None:
    # The vocabulary first: tasks point at its sprints and milestones.
    op.create_table(
        "task_vocab",
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        _workspace(),
        sa.Column(
            "project_id", Id, sa.ForeignKey("projects.id", ondelete="CASCADE"), nullable=True
        ),
        sa.Column("scope", sa.String(40), nullable=False),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("key", sa.String(120), nullable=False),
        sa.Column("name", sa.String(300), nullable=False),
        sa.Column("meta", Json, nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("created_at", When, nullable=False),
        sa.UniqueConstraint("workspace_id", "scope", "kind", "key", name="uq_task_vocab_key"),
    )
    op.create_table(
        "tasks",
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        _workspace(),
        sa.Column(
            "project_id", Id, sa.ForeignKey("projects.id", ondelete="SET NULL"), nullable=True
        ),
        sa.Column("key", sa.String(80), nullable=True),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("state", sa.String(80), nullable=True),
        sa.Column("status", sa.String(20), nullable=False),
        sa.Column("type", sa.String(20), nullable=False),
        sa.Column("priority", sa.String(10), nullable=False),
        sa.Column("assignee", sa.String(300), nullable=True),
        sa.Column("assignee_id", sa.BigInteger(), nullable=True),
        sa.Column(
            "sprint_id", Id, sa.ForeignKey("task_vocab.id", ondelete="SET NULL"), nullable=True
        ),
        sa.Column(
            "milestone_id", Id, sa.ForeignKey("task_vocab.id", ondelete="SET NULL"), nullable=True
        ),
        sa.Column("parent_id", Id, sa.ForeignKey("tasks.id", ondelete="SET NULL"), nullable=True),
        sa.Column("due_at", sa.String(40), nullable=True),
        sa.Column("estimate", sa.Float(), nullable=True),
        sa.Column("human", sa.Boolean(), nullable=True),
        sa.Column("asked_by", sa.String(10), nullable=False),
        sa.Column("labels", Json, nullable=False),
        sa.Column("gates", Json, nullable=False),
        sa.Column("next_action", sa.Text(), nullable=False),
        sa.Column("outcome", sa.Text(), nullable=False),
        sa.Column("decisions", sa.Text(), nullable=False),
        sa.Column("branch", sa.String(300), nullable=False),
        sa.Column("fields", Json, nullable=False),
        sa.Column("draft", sa.String(10), nullable=True),
        sa.Column("source", Json, nullable=True),
        sa.Column("created_by", sa.String(300), nullable=False),
        sa.Column("created_at", When, nullable=False),
        sa.Column("updated_at", When, nullable=False),
        sa.UniqueConstraint("workspace_id", "key", name="uq_tasks_key"),
    )
    op.create_index("ix_tasks_workspace_updated", "tasks", ["workspace_id", "updated_at"])
    op.create_index("ix_tasks_parent", "tasks", ["parent_id"])
    op.create_index("ix_tasks_project", "tasks", ["project_id"])
    op.create_table(
        "task_refs",
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        sa.Column("task_id", Id, sa.ForeignKey("tasks.id", ondelete="CASCADE"), nullable=False),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("ref", sa.String(1000), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("meta", Json, nullable=False),
        sa.Column("blob", sa.String(80), nullable=True),
        sa.Column("size", sa.BigInteger(), nullable=True),
        sa.Column("author", sa.String(300), nullable=False),
        sa.Column("created_at", When, nullable=False),
        sa.Column("updated_at", When, nullable=False),
        sa.UniqueConstraint("task_id", "kind", "ref", "version", name="uq_task_refs_version"),
    )
    op.create_table(
        "task_events",
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        sa.Column("task_id", Id, sa.ForeignKey("tasks.id", ondelete="CASCADE"), nullable=False),
        sa.Column("at", When, nullable=False),
        sa.Column("principal", sa.String(300), nullable=False),
        sa.Column("action", sa.String(60), nullable=False),
        sa.Column("detail", Json, nullable=False),
    )
    op.create_index("ix_task_events_task", "task_events", ["task_id", "id"])


def downgrade() -> None:
    op.drop_table("task_events")
    op.drop_table("task_refs")
    op.drop_table("tasks")
    op.drop_table("task_vocab")
