"""Outbound webhooks and their deliveries (the outbox).

``webhooks`` keeps, per workspace, the URL an admin registered, the events it
wants and the secret that signs each delivery. ``webhook_deliveries`` is the
outbox: a row is written in the transaction of the change it reports and sent
afterwards by a dispatcher, which claims it with ``lease_until`` so one process
sends it. Both tables are new: nothing to backfill.

Revision ID: 0016
Revises: 0015
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
When = sa.DateTime(timezone=True)
Json = sa.JSON(none_as_null=True).with_variant(JSONB(none_as_null=True), "postgresql")


def upgrade() -> None:
    op.create_table(
        "webhooks",
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        sa.Column(
            "workspace_id", Id, sa.ForeignKey("workspaces.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("url", sa.String(2048), nullable=False),
        sa.Column("events", Json, nullable=False),
        sa.Column("secret", sa.String(200), nullable=False),
        sa.Column("active", sa.Boolean, nullable=False),
        sa.Column("created_by", sa.String(300), nullable=False),
        sa.Column("created_at", When, nullable=False),
        sa.Column("updated_at", When, nullable=False),
    )
    op.create_index("ix_webhooks_workspace", "webhooks", ["workspace_id"])
    op.create_table(
        "webhook_deliveries",
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        sa.Column(
            "webhook_id", Id, sa.ForeignKey("webhooks.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("event", sa.String(60), nullable=False),
        sa.Column("occurred_at", When, nullable=False),
        sa.Column("data", Json, nullable=False),
        sa.Column("coalesce_key", sa.String(200), nullable=True),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("next_attempt_at", When, nullable=True),
        sa.Column("lease_until", When, nullable=True),
        sa.Column("last_attempt_at", When, nullable=True),
        sa.Column("response_status", sa.Integer, nullable=True),
        sa.Column("response_excerpt", sa.Text, nullable=True),
        sa.Column("error", sa.Text, nullable=True),
        sa.Column("redelivery_of", Id, nullable=True),
        sa.Column("created_at", When, nullable=False),
    )
    op.create_index(
        "ix_webhook_deliveries_due", "webhook_deliveries", ["status", "next_attempt_at"]
    )
    op.create_index("ix_webhook_deliveries_webhook", "webhook_deliveries", ["webhook_id", "id"])
    op.create_index(
        "ix_webhook_deliveries_coalesce",
        "webhook_deliveries",
        ["webhook_id", "coalesce_key", "status"],
    )


def downgrade() -> None:
    op.drop_table("webhook_deliveries")
    op.drop_table("webhooks")
