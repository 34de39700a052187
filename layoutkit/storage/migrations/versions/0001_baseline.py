"""Baseline: the schema of release 0.1.0, when migrations were versioned by hand.

A database that release made (its ``schema_version`` table at 1) is stamped
at this revision on open and carries on from here. This file is frozen: the
types are spelled out here rather than imported from ``_schema``, so a later
change there never rewrites history.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

Json = sa.JSON(none_as_null=True).with_variant(postgresql.JSONB(none_as_null=True), "postgresql")
Bytes = sa.LargeBinary().with_variant(postgresql.BYTEA(), "postgresql")
Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
When = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "api_tokens",
        sa.Column("id", Id, autoincrement=True, nullable=False),
        sa.Column("kind", sa.String(length=10), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", When, nullable=False),
        sa.Column("revoked_at", When, nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("token_hash"),
    )
    op.create_table(
        "blobs",
        sa.Column("key", sa.String(length=80), nullable=False),
        sa.Column("size", sa.BigInteger(), nullable=False),
        sa.Column("data", Bytes, nullable=False),
        sa.Column("created_at", When, nullable=False),
        sa.PrimaryKeyConstraint("key"),
    )
    op.create_table(
        "request_keys",
        sa.Column("principal", sa.String(length=300), nullable=False),
        sa.Column("key", sa.String(length=200), nullable=False),
        sa.Column("operation", sa.String(length=100), nullable=False),
        sa.Column("input_hash", sa.String(length=64), nullable=False),
        sa.Column("receipt", Json, nullable=False),
        sa.Column("created_at", When, nullable=False),
        sa.PrimaryKeyConstraint("principal", "key"),
    )
    with op.batch_alter_table("request_keys", schema=None) as batch_op:
        batch_op.create_index("ix_request_keys_created", ["created_at"], unique=False)

    op.create_table(
        "workspaces",
        sa.Column("id", Id, autoincrement=True, nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("meta", Json, nullable=False),
        sa.Column("created_at", When, nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("name"),
    )
    op.create_table(
        "projects",
        sa.Column("id", Id, autoincrement=True, nullable=False),
        sa.Column("workspace_id", Id, nullable=False),
        sa.Column("slug", sa.String(length=200), nullable=False),
        sa.Column("name", sa.String(length=500), nullable=True),
        sa.Column("meta", Json, nullable=False),
        sa.Column("archived", sa.Boolean(), nullable=False),
        sa.Column("created_at", When, nullable=False),
        sa.Column("updated_at", When, nullable=False),
        sa.ForeignKeyConstraint(["workspace_id"], ["workspaces.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("workspace_id", "slug", name="uq_projects_slug"),
    )
    op.create_table(
        "boards",
        sa.Column("id", Id, autoincrement=True, nullable=False),
        sa.Column("workspace_id", Id, nullable=False),
        sa.Column("slug", sa.String(length=200), nullable=False),
        sa.Column("project_id", Id, nullable=True),
        sa.Column("subgroup", sa.String(length=40), nullable=True),
        sa.Column("theme", sa.String(length=40), nullable=True),
        sa.Column("archived", sa.Boolean(), nullable=False),
        sa.Column("meta", Json, nullable=False),
        sa.Column("lanes", Json, nullable=False),
        sa.Column("parent_board_id", Id, nullable=True),
        sa.Column("section", sa.String(length=500), nullable=True),
        sa.Column("flow", sa.String(length=20), nullable=True),
        sa.Column("created_by", sa.String(length=300), nullable=True),
        sa.Column("card_seq", sa.BigInteger(), nullable=False),
        sa.Column("created_at", When, nullable=False),
        sa.Column("updated_at", When, nullable=False),
        sa.ForeignKeyConstraint(["parent_board_id"], ["boards.id"], ondelete="SET NULL"),
        sa.ForeignKeyConstraint(["project_id"], ["projects.id"], ondelete="SET NULL"),
        sa.ForeignKeyConstraint(["workspace_id"], ["workspaces.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("workspace_id", "slug", name="uq_boards_slug"),
    )
    op.create_table(
        "audit_events",
        sa.Column("id", Id, autoincrement=True, nullable=False),
        sa.Column("at", When, nullable=False),
        sa.Column("principal", sa.String(length=300), nullable=False),
        sa.Column("action", sa.String(length=100), nullable=False),
        sa.Column("board_id", Id, nullable=True),
        sa.Column("detail", Json, nullable=False),
        sa.ForeignKeyConstraint(["board_id"], ["boards.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("audit_events", schema=None) as batch_op:
        batch_op.create_index("ix_audit_action", ["action"], unique=False)
        batch_op.create_index("ix_audit_board_at", ["board_id", "at"], unique=False)

    op.create_table(
        "board_tags",
        sa.Column("board_id", Id, nullable=False),
        sa.Column("tag", sa.String(length=200), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["board_id"], ["boards.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("board_id", "tag"),
    )
    with op.batch_alter_table("board_tags", schema=None) as batch_op:
        batch_op.create_index("ix_board_tags_tag", ["tag"], unique=False)

    op.create_table(
        "cards",
        sa.Column("id", Id, autoincrement=True, nullable=False),
        sa.Column("board_id", Id, nullable=False),
        sa.Column("ordinal", sa.BigInteger(), nullable=False),
        sa.Column("kind", sa.String(length=60), nullable=False),
        sa.Column("payload", Json, nullable=False),
        sa.Column("x", sa.Float(), nullable=False),
        sa.Column("y", sa.Float(), nullable=False),
        sa.Column("w", sa.Float(), nullable=False),
        sa.Column("h", sa.Float(), nullable=False),
        sa.Column("layer", sa.String(length=8), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("parent_id", Id, nullable=True),
        sa.Column("children", Json, nullable=True),
        sa.Column("author", sa.String(length=300), nullable=False),
        sa.Column("sized_by", sa.String(length=20), nullable=True),
        sa.Column("created_at", When, nullable=False),
        sa.Column("updated_at", When, nullable=False),
        sa.Column("deleted_at", When, nullable=True),
        sa.Column("deleted_by", sa.String(length=300), nullable=True),
        sa.ForeignKeyConstraint(["board_id"], ["boards.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["parent_id"], ["cards.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("cards", schema=None) as batch_op:
        batch_op.create_index("ix_cards_board_ordinal", ["board_id", "ordinal"], unique=False)
        batch_op.create_index("ix_cards_deleted_at", ["deleted_at"], unique=False)
        batch_op.create_index("ix_cards_parent", ["parent_id"], unique=False)

    op.create_table(
        "edges",
        sa.Column("id", Id, autoincrement=True, nullable=False),
        sa.Column("board_id", Id, nullable=False),
        sa.Column("from_card", Id, nullable=False),
        sa.Column("to_card", Id, nullable=False),
        sa.Column("rel", sa.String(length=60), nullable=True),
        sa.Column("label", sa.Text(), nullable=True),
        sa.Column("from_region", Json, nullable=True),
        sa.Column("to_region", Json, nullable=True),
        sa.Column("author", sa.String(length=300), nullable=True),
        sa.Column("created_at", When, nullable=False),
        sa.ForeignKeyConstraint(["board_id"], ["boards.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["from_card"], ["cards.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["to_card"], ["cards.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("edges", schema=None) as batch_op:
        batch_op.create_index("ix_edges_board", ["board_id"], unique=False)
        batch_op.create_index("ix_edges_from", ["from_card"], unique=False)
        batch_op.create_index("ix_edges_to", ["to_card"], unique=False)

    op.create_table(
        "questions",
        sa.Column("id", Id, autoincrement=True, nullable=False),
        sa.Column("board_id", Id, nullable=False),
        sa.Column("prompt", sa.Text(), nullable=False),
        sa.Column("stakes", sa.Text(), nullable=True),
        sa.Column("options", Json, nullable=False),
        sa.Column("multi_select", sa.Boolean(), nullable=False),
        sa.Column("kind", sa.String(length=10), nullable=False),
        sa.Column("pivot", sa.Boolean(), nullable=False),
        sa.Column("card_id", Id, nullable=True),
        sa.Column("state", sa.String(length=10), nullable=False),
        sa.Column("answers", Json, nullable=True),
        sa.Column("author", sa.String(length=300), nullable=True),
        sa.Column("created_at", When, nullable=False),
        sa.Column("released_at", When, nullable=True),
        sa.Column("answered_at", When, nullable=True),
        sa.ForeignKeyConstraint(["board_id"], ["boards.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["card_id"], ["cards.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("questions", schema=None) as batch_op:
        batch_op.create_index("ix_questions_board_state", ["board_id", "state"], unique=False)

    op.create_table(
        "share_links",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("board_id", Id, nullable=False),
        sa.Column("mode", sa.String(length=10), nullable=False),
        sa.Column("card_id", Id, nullable=True),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_by", sa.String(length=300), nullable=True),
        sa.Column("created_at", When, nullable=False),
        sa.Column("revoked_at", When, nullable=True),
        sa.ForeignKeyConstraint(["board_id"], ["boards.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["card_id"], ["cards.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("token_hash"),
    )
    with op.batch_alter_table("share_links", schema=None) as batch_op:
        batch_op.create_index("ix_share_links_board", ["board_id"], unique=False)
