"""The SQL schema of a workspace store, declared once for SQLite and PostgreSQL.

Every table is keyed by an integer id (share links by a short text id, blobs
by their content key, request keys by principal and key). Boards belong to a
workspace; everything on a board (cards, edges, questions, share links)
hangs off ``boards.id`` with ``ON DELETE CASCADE`` so dropping a board never
leaves strays behind.

How later features fit, without touching these tables:

- tasks: ``tasks`` below, with ``task_refs``, ``task_vocab`` and ``task_events``;
  ``task_embeddings`` holds the vectors of meaning search.
- annotations: ``annotations`` below.
- review rules: ``review_rules`` below.
- review runs: ``review_runs`` (run id, board scope, state, sight attempts,
  plan JSON) and ``review_receipts`` (run_id, card_id, state).
- search: ``search_docs`` and ``search_words`` below.
- presence: ``board_presence`` below, rows that live 30 seconds without a heartbeat.

Each arrives as a new Alembic revision in ``migrations/versions``; see ``_migrations``.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)
from sqlalchemy.dialects.postgresql import BYTEA, JSONB

metadata = MetaData()

# JSONB on PostgreSQL (indexable, compact); JSON text on SQLite. none_as_null
# keeps Python None as SQL NULL rather than the JSON literal ``null``.
Json = JSON(none_as_null=True).with_variant(JSONB(none_as_null=True), "postgresql")
Bytes = LargeBinary().with_variant(BYTEA(), "postgresql")
# BigInteger ids autoincrement on PostgreSQL; on SQLite only INTEGER PRIMARY
# KEY is the rowid, so the variant keeps SQLite on plain INTEGER.
Id = BigInteger().with_variant(Integer(), "sqlite")
When = DateTime(timezone=True)


def _id() -> Column:
    return Column("id", Id, primary_key=True, autoincrement=True)


def _workspace_id(**kw: Any) -> Column:
    """The workspace a row belongs to: deleting the workspace deletes the row."""
    return Column("workspace_id", Id, ForeignKey("workspaces.id", ondelete="CASCADE"), **kw)


workspaces = Table(
    "workspaces",
    metadata,
    _id(),
    Column("name", String(200), nullable=False, unique=True),
    Column("meta", Json, nullable=False, default=dict),
    Column("created_at", When, nullable=False),
    # When an owner archived the workspace: it then refuses writes and leaves the
    # default listing; NULL for a workspace in use.
    Column("archived_at", When, nullable=True),
)

projects = Table(
    "projects",
    metadata,
    _id(),
    _workspace_id(nullable=False),
    Column("slug", String(200), nullable=False),
    Column("name", String(500), nullable=True),
    Column("meta", Json, nullable=False, default=dict),
    Column("archived", Boolean, nullable=False, default=False),
    Column("created_at", When, nullable=False),
    Column("updated_at", When, nullable=False),
    UniqueConstraint("workspace_id", "slug", name="uq_projects_slug"),
)

boards = Table(
    "boards",
    metadata,
    _id(),
    _workspace_id(nullable=False),
    Column("slug", String(200), nullable=False),
    Column("project_id", Id, ForeignKey("projects.id", ondelete="SET NULL"), nullable=True),
    Column("subgroup", String(40), nullable=True),
    Column("theme", String(40), nullable=True),
    Column("archived", Boolean, nullable=False, default=False),
    Column("meta", Json, nullable=False, default=dict),
    Column("lanes", Json, nullable=False, default=list),
    Column("parent_board_id", Id, ForeignKey("boards.id", ondelete="SET NULL"), nullable=True),
    Column("section", String(500), nullable=True),
    Column("flow", String(20), nullable=True),
    Column("created_by", String(300), nullable=True),
    # Next card ordinal: bumped by every card insert, which also makes the
    # insert take the board row's write lock on PostgreSQL.
    Column("card_seq", BigInteger, nullable=False, default=0),
    Column("created_at", When, nullable=False),
    Column("updated_at", When, nullable=False),
    # Change counters for warm board models (service/boards/board_model.py): every
    # write to the board's cards or edges bumps ``rev`` and stamps the changed
    # card rows with it, so a model at rev r catches up by reading the rows
    # with a larger rev. ``edges_rev`` is the rev of the last edge change and
    # ``purged_rev`` of the last purge (purged rows leave no row to read).
    Column("rev", BigInteger, nullable=False, default=0, server_default="0"),
    Column("edges_rev", BigInteger, nullable=False, default=0, server_default="0"),
    Column("purged_rev", BigInteger, nullable=False, default=0, server_default="0"),
    UniqueConstraint("workspace_id", "slug", name="uq_boards_slug"),
)

board_tags = Table(
    "board_tags",
    metadata,
    Column("board_id", Id, ForeignKey("boards.id", ondelete="CASCADE"), primary_key=True),
    Column("tag", String(200), primary_key=True),
    Column("position", Integer, nullable=False),
    Index("ix_board_tags_tag", "tag"),
)

cards = Table(
    "cards",
    metadata,
    _id(),
    Column("board_id", Id, ForeignKey("boards.id", ondelete="CASCADE"), nullable=False),
    Column("ordinal", BigInteger, nullable=False),
    Column("kind", String(60), nullable=False),
    Column("payload", Json, nullable=False),
    Column("x", Float, nullable=False),
    Column("y", Float, nullable=False),
    Column("w", Float, nullable=False),
    Column("h", Float, nullable=False),
    Column("layer", String(8), nullable=False),
    Column("version", Integer, nullable=False, default=1),
    Column("parent_id", Id, ForeignKey("cards.id", ondelete="SET NULL"), nullable=True),
    Column("children", Json, nullable=True),
    Column("author", String(300), nullable=False),
    Column("sized_by", String(20), nullable=True),
    Column("created_at", When, nullable=False),
    Column("updated_at", When, nullable=False),
    Column("deleted_at", When, nullable=True),
    Column("deleted_by", String(300), nullable=True),
    # The board rev of the card's last change (see boards.rev).
    Column("rev", BigInteger, nullable=False, default=0, server_default="0"),
    Index("ix_cards_board_ordinal", "board_id", "ordinal"),
    Index("ix_cards_board_rev", "board_id", "rev"),
    Index("ix_cards_parent", "parent_id"),
    Index("ix_cards_deleted_at", "deleted_at"),
)

# The SVG text of each card's face as last drawn: a process that never drew
# the board reads faces instead of drawing them. A face is current while the
# card's row keeps the rev it was drawn for and the renderer keeps its code
# digest; past that, its key (layoutkit.render.face_key: kind, payload, size,
# code) still serves a card that only moved. Only a cache: losing a row costs
# a drawing, and a stale face is never served.
card_faces = Table(
    "card_faces",
    metadata,
    Column("card_id", Id, ForeignKey("cards.id", ondelete="CASCADE"), primary_key=True),
    Column("rev", BigInteger, nullable=False),
    Column("code", String(16), nullable=False),
    Column("key", String(32), nullable=False),
    Column("svg", Text, nullable=False),
)

#: What each card looked like as it was drawn at each version: the kind, payload and
#: size of the version that last changed one of them. A version that only moved,
#: removed or restored the card draws as the row before it, so no row is written for
#: it (arrange moves hundreds of cards at once). Image payloads name their picture
#: by blob key, never by copy. Rows go with their card (purge, board delete).
card_versions = Table(
    "card_versions",
    metadata,
    Column("card_id", Id, ForeignKey("cards.id", ondelete="CASCADE"), primary_key=True),
    Column("version", Integer, primary_key=True),
    Column("kind", String(60), nullable=False),
    Column("payload", Json, nullable=False),
    Column("w", Float, nullable=False),
    Column("h", Float, nullable=False),
    Column("created_at", When, nullable=False),
)

edges = Table(
    "edges",
    metadata,
    _id(),
    Column("board_id", Id, ForeignKey("boards.id", ondelete="CASCADE"), nullable=False),
    Column("from_card", Id, ForeignKey("cards.id", ondelete="CASCADE"), nullable=False),
    Column("to_card", Id, ForeignKey("cards.id", ondelete="CASCADE"), nullable=False),
    Column("rel", String(60), nullable=True),
    Column("label", Text, nullable=True),
    Column("from_region", Json, nullable=True),
    Column("to_region", Json, nullable=True),
    Column("author", String(300), nullable=True),
    Column("created_at", When, nullable=False),
    Index("ix_edges_board", "board_id"),
    Index("ix_edges_from", "from_card"),
    Index("ix_edges_to", "to_card"),
)

questions = Table(
    "questions",
    metadata,
    _id(),
    Column("board_id", Id, ForeignKey("boards.id", ondelete="CASCADE"), nullable=False),
    Column("prompt", Text, nullable=False),
    Column("stakes", Text, nullable=True),
    Column("options", Json, nullable=False, default=list),
    Column("multi_select", Boolean, nullable=False, default=False),
    Column("kind", String(10), nullable=False, default="choice"),
    Column("pivot", Boolean, nullable=False, default=False),
    Column("card_id", Id, ForeignKey("cards.id", ondelete="SET NULL"), nullable=True),
    Column("state", String(10), nullable=False, default="staged"),
    Column("answers", Json, nullable=True),
    Column("author", String(300), nullable=True),
    Column("created_at", When, nullable=False),
    Column("released_at", When, nullable=True),
    Column("answered_at", When, nullable=True),
    Index("ix_questions_board_state", "board_id", "state"),
)

share_links = Table(
    "share_links",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("board_id", Id, ForeignKey("boards.id", ondelete="CASCADE"), nullable=False),
    Column("mode", String(10), nullable=False),
    Column("card_id", Id, ForeignKey("cards.id", ondelete="SET NULL"), nullable=True),
    Column("token_hash", String(64), nullable=False, unique=True),
    Column("created_by", String(300), nullable=True),
    Column("created_at", When, nullable=False),
    Column("revoked_at", When, nullable=True),
    Index("ix_share_links_board", "board_id"),
)

api_tokens = Table(
    "api_tokens",
    metadata,
    _id(),
    Column("kind", String(10), nullable=False),
    Column("name", String(200), nullable=False),
    Column("token_hash", String(64), nullable=False, unique=True),
    Column("created_at", When, nullable=False),
    Column("revoked_at", When, nullable=True),
    # "serve" marks the owner token ``layoutkit serve`` keeps for its database.
    Column("purpose", String(20), nullable=True),
    # The workspace that minted the token: the only one that may revoke it. NULL
    # for a token minted outside any workspace (or whose workspace is gone).
    Column(
        "home_workspace_id",
        Id,
        ForeignKey("workspaces.id", ondelete="SET NULL", name="fk_api_tokens_home"),
        nullable=True,
    ),
    Index("ix_api_tokens_home", "home_workspace_id"),
)

#: Which workspaces a token reaches, and as what: ``owner``, ``admin`` or ``member``.
#: A token reaches only the workspaces it is a member of.
memberships = Table(
    "memberships",
    metadata,
    _workspace_id(primary_key=True),
    Column("token_id", Id, ForeignKey("api_tokens.id", ondelete="CASCADE"), primary_key=True),
    Column("role", String(10), nullable=False),
    Column("created_at", When, nullable=False),
    Index("ix_memberships_token", "token_id"),
)

#: Invitations to join a workspace: a token from elsewhere becomes a member only by
#: accepting one. Only the secret's hash is kept; an invitation is used once
#: (``used_at``) and lapses at ``expires_at``.
invitations = Table(
    "invitations",
    metadata,
    _id(),
    _workspace_id(nullable=False),
    Column("token_hash", String(64), nullable=False, unique=True),
    Column("role", String(10), nullable=False),
    Column("invited_by", String(300), nullable=False),
    # The inviter's token, when it had one: its invitations lapse with its
    # ownership (see service/workspaces/access.py).
    Column("inviter_token_id", Id, ForeignKey("api_tokens.id", ondelete="CASCADE"), nullable=True),
    Column("created_at", When, nullable=False),
    Column("expires_at", When, nullable=False),
    Column("used_at", When, nullable=True),
    Column("used_by_token_id", Id, ForeignKey("api_tokens.id", ondelete="SET NULL"), nullable=True),
    Index("ix_invitations_workspace", "workspace_id"),
)

#: Random secrets the store keeps for itself (``confirm`` signs removal tokens).
server_keys = Table(
    "server_keys",
    metadata,
    Column("name", String(40), primary_key=True),
    Column("secret", String(128), nullable=False),
    Column("created_at", When, nullable=False),
)

request_keys = Table(
    "request_keys",
    metadata,
    Column("principal", String(300), primary_key=True),
    Column("key", String(200), primary_key=True),
    Column("operation", String(100), nullable=False),
    Column("input_hash", String(64), nullable=False),
    Column("receipt", Json, nullable=False),
    Column("created_at", When, nullable=False),
    Index("ix_request_keys_created", "created_at"),
)

audit_events = Table(
    "audit_events",
    metadata,
    _id(),
    Column("at", When, nullable=False),
    Column("principal", String(300), nullable=False),
    Column("action", String(100), nullable=False),
    Column("board_id", Id, ForeignKey("boards.id", ondelete="SET NULL"), nullable=True),
    Column("detail", Json, nullable=False, default=dict),
    Index("ix_audit_board_at", "board_id", "at"),
    Index("ix_audit_action", "action"),
)

#: Review rule files of the workspace and project layers, one row per version: a
#: write never changes a row, it adds the next version; ``source`` NULL is a
#: deletion (the lower layer shows again). ``scope`` is ``workspace`` or
#: ``project:<id>``: NULLs never collide in a unique constraint, so the layer is
#: spelled out for the one that keeps two writers from taking one version.
review_rules = Table(
    "review_rules",
    metadata,
    _id(),
    _workspace_id(nullable=False),
    Column("project_id", Id, ForeignKey("projects.id", ondelete="CASCADE"), nullable=True),
    Column("scope", String(40), nullable=False),
    Column("rule_id", String(41), nullable=False),
    Column("version", Integer, nullable=False),
    Column("source", Text, nullable=True),
    Column("author", String(300), nullable=False),
    Column("created_at", When, nullable=False),
    UniqueConstraint("workspace_id", "scope", "rule_id", "version", name="uq_review_rules_version"),
)

# A review run: its plan (sheets of tiles, gaps, receipts, the blob keys it
# judges) as one JSON document written when the plan is made, and the state the
# sight rule moves (served sheets, wrong codes).
review_runs = Table(
    "review_runs",
    metadata,
    Column("id", String(40), primary_key=True),
    _workspace_id(nullable=False),
    Column("project_id", Id, ForeignKey("projects.id", ondelete="CASCADE"), nullable=True),
    Column("state", String(16), nullable=False),
    Column("rubric", String(64), nullable=False),
    Column("sight", String(16), nullable=False),
    Column("misses", Integer, nullable=False),
    Column("served", Json, nullable=False),
    Column("plan", Json, nullable=False),
    Column("author", String(300), nullable=False),
    Column("created_at", When, nullable=False),
    Column("updated_at", When, nullable=False),
    Index("ix_review_runs_project", "workspace_id", "project_id", "rubric"),
)

# A finding an agent filed on one version of a card: the region as resolved in the
# pixels of that version's picture (and as sent), the prompt, triage fields, the
# lifecycle state, who wrote it (``author`` agent:<runtime>) and who was signed in
# (``principal``), its thread of replies and its before/after deck. It references
# ``cards``: a soft-deleted card keeps its id, so a finding never dangles during the
# retention window, and the purge cascades. A key names one finding per board.
# ``kind`` is ``finding`` (an agent's, above) or ``comment`` (a thread a person pinned
# to a point of the board or a region of a card, service/review/comments.py); a
# comment on the board itself has no card, so the three card columns may be NULL.
annotations = Table(
    "annotations",
    metadata,
    _id(),
    Column("board_id", Id, ForeignKey("boards.id", ondelete="CASCADE"), nullable=False),
    Column("kind", String(10), nullable=False, server_default="finding"),
    Column("card_id", Id, ForeignKey("cards.id", ondelete="CASCADE"), nullable=True),
    Column("card_version", Integer, nullable=True),
    # The card's current version when the finding was filed: above card_version for a
    # finding pinned to an older version (pinStale), shown with a version badge.
    Column("filed_version", Integer, nullable=True),
    Column("key", String(200), nullable=False),
    Column("region", Json, nullable=False),
    Column("prompt", Json, nullable=False),
    Column("intent", String(20), nullable=False),
    Column("severity", String(40), nullable=True),
    Column("category", String(100), nullable=True),
    Column("related", Json, nullable=True),
    Column("state", String(16), nullable=False),
    Column("author", String(300), nullable=False),
    Column("principal", String(300), nullable=False),
    Column("run_id", String(40), nullable=True),
    Column("replies", Json, nullable=False),
    Column("deck", Json, nullable=False),
    Column("created_at", When, nullable=False),
    Column("updated_at", When, nullable=False),
    # A comment thread's newest message a person wrote (0: the comment itself; NULL for
    # findings): the work item agents get is ``comment:<id>.<attention>``.
    Column("attention", Integer, nullable=True),
    UniqueConstraint("board_id", "key", name="uq_annotations_key"),
    Index("ix_annotations_board_state", "board_id", "state"),
    Index("ix_annotations_card", "card_id", "card_version"),
    Index("ix_annotations_board_kind", "board_id", "kind", "state"),
)

# A task of the task engine. The columns are the fields a patch sets; ``human``
# NULL means "follow the type rule" (see service/tasks/model.py), and ``asked_by`` is
# the kind of principal that filed it (the rule reads it). The text fields
# search reads are columns of their own (gates is a list of items, each with
# its evidence); ``fields`` holds the workspace's custom fields by key.
tasks = Table(
    "tasks",
    metadata,
    _id(),
    _workspace_id(nullable=False),
    Column("project_id", Id, ForeignKey("projects.id", ondelete="SET NULL"), nullable=True),
    Column("key", String(80), nullable=True),
    Column("title", Text, nullable=False),
    Column("body", Text, nullable=False, default=""),
    Column("state", String(80), nullable=True),
    Column("status", String(20), nullable=False),
    Column("type", String(20), nullable=False),
    Column("priority", String(10), nullable=False, default=""),
    Column("assignee", String(300), nullable=True),
    Column("assignee_id", BigInteger, nullable=True),
    Column("sprint_id", Id, ForeignKey("task_vocab.id", ondelete="SET NULL"), nullable=True),
    Column("milestone_id", Id, ForeignKey("task_vocab.id", ondelete="SET NULL"), nullable=True),
    Column("parent_id", Id, ForeignKey("tasks.id", ondelete="SET NULL"), nullable=True),
    Column("due_at", String(40), nullable=True),
    Column("estimate", Float, nullable=True),
    Column("human", Boolean, nullable=True),
    Column("asked_by", String(10), nullable=False),
    Column("labels", Json, nullable=False, default=list),
    Column("gates", Json, nullable=False, default=list),
    Column("next_action", Text, nullable=False, default=""),
    Column("outcome", Text, nullable=False, default=""),
    Column("decisions", Text, nullable=False, default=""),
    Column("branch", String(300), nullable=False, default=""),
    Column("fields", Json, nullable=False, default=dict),
    # A proposed task waiting for a person: "pending", or "declined"; NULL for a task.
    Column("draft", String(10), nullable=True),
    Column("source", Json, nullable=True),
    Column("created_by", String(300), nullable=False),
    Column("created_at", When, nullable=False),
    Column("updated_at", When, nullable=False),
    # Set when a transfer that moved the project trashed the task (see task_trash);
    # task listings leave trashed tasks out, a lookup by id still finds them.
    Column("deleted_at", When, nullable=True),
    UniqueConstraint("workspace_id", "key", name="uq_tasks_key"),
    Index("ix_tasks_workspace_updated", "workspace_id", "updated_at"),
    Index("ix_tasks_parent", "parent_id"),
    Index("ix_tasks_project", "project_id"),
)

# Workspace vocabulary of the task engine: states, labels, fields, sprints,
# milestones, views and rules, each a row keyed by (kind, key) in one scope.
# ``scope`` is ``workspace`` or ``project:<id>``, spelled out because NULL
# project ids never collide in a unique constraint.
task_vocab = Table(
    "task_vocab",
    metadata,
    _id(),
    _workspace_id(nullable=False),
    Column("project_id", Id, ForeignKey("projects.id", ondelete="CASCADE"), nullable=True),
    Column("scope", String(40), nullable=False),
    Column("kind", String(20), nullable=False),
    Column("key", String(120), nullable=False),
    Column("name", String(300), nullable=False),
    Column("meta", Json, nullable=False, default=dict),
    Column("position", Integer, nullable=False),
    Column("created_at", When, nullable=False),
    UniqueConstraint("workspace_id", "scope", "kind", "key", name="uq_task_vocab_key"),
)

# A task's refs (attachments), one row per version: a ref is (task, kind, ref)
# and its versions only grow; re-attaching changes the newest version's meta.
# Uploaded files keep their bytes as a blob (``blob`` is its key).
task_refs = Table(
    "task_refs",
    metadata,
    _id(),
    Column("task_id", Id, ForeignKey("tasks.id", ondelete="CASCADE"), nullable=False),
    Column("kind", String(20), nullable=False),
    Column("ref", String(1000), nullable=False),
    Column("version", Integer, nullable=False),
    Column("meta", Json, nullable=False, default=dict),
    Column("blob", String(80), nullable=True),
    Column("size", BigInteger, nullable=True),
    Column("author", String(300), nullable=False),
    Column("created_at", When, nullable=False),
    Column("updated_at", When, nullable=False),
    UniqueConstraint("task_id", "kind", "ref", "version", name="uq_task_refs_version"),
)

# What happened to a task, oldest first: creation, field changes (from, to),
# refs attached. Append-only, like the audit trail.
task_events = Table(
    "task_events",
    metadata,
    _id(),
    Column("task_id", Id, ForeignKey("tasks.id", ondelete="CASCADE"), nullable=False),
    Column("at", When, nullable=False),
    Column("principal", String(300), nullable=False),
    Column("action", String(60), nullable=False),
    Column("detail", Json, nullable=False, default=dict),
    Index("ix_task_events_task", "task_id", "id"),
)

# The search index (service/search/search.py): one document per task, board, card,
# finding and tag of a workspace, its text folded and cut into words
# (layoutkit/search_text.py). ``kind`` and ``subject`` name the row it was read
# from (a tag's subject is the folded tag); ``grp`` is the group of the reply
# it answers in. The full-text structures live beside it, made by migration
# 0014: on SQLite the FTS5 table ``search_fts`` (external content: this table,
# kept in step by triggers), on PostgreSQL the stored weighted tsvector of
# title and body (column ``search_tsv``) with a GIN index; 0022 adds on PostgreSQL a
# GIN index over the titles of task documents alone, for the resolver's title
# matches. Rows are rewritten by the write transaction that changed their source
# (``SearchRows.flush_search_index``).
search_docs = Table(
    "search_docs",
    metadata,
    _id(),
    _workspace_id(nullable=False),
    Column("kind", String(12), nullable=False),
    Column("subject", String(220), nullable=False),
    Column("grp", String(12), nullable=False),
    Column("board_id", Id, ForeignKey("boards.id", ondelete="CASCADE"), nullable=True),
    Column("title", Text, nullable=False),
    Column("body", Text, nullable=False),
    UniqueConstraint("workspace_id", "kind", "subject", name="uq_search_docs_subject"),
    Index("ix_search_docs_board", "board_id"),
)

#: Names of the full-text structures migrations 0014 and 0022 make beside ``search_docs``
#: (SQLite's FTS5 table with its shadow tables; PostgreSQL's stored tsvector column,
#: its GIN index and the GIN index of task titles); SQLAlchemy has no form for them,
#: so they are declared there alone.
TASK_TITLE_INDEX = "ix_search_docs_task_title"
FULL_TEXT_OBJECTS = ("search_fts", "search_tsv", "ix_search_docs_text", TASK_TITLE_INDEX)

# The words typo correction corrects towards (search rule 3), per workspace,
# with the number of documents holding each: a word leaves when its last
# document does. ``first`` is its first letter, so candidates are read by
# (workspace, first letter, length) from one index.
search_words = Table(
    "search_words",
    metadata,
    _workspace_id(primary_key=True),
    Column("word", String(40), primary_key=True),
    Column("first", String(1), nullable=False),
    Column("length", Integer, nullable=False),
    Column("docs", Integer, nullable=False),
    Index("ix_search_words_first", "workspace_id", "first", "length"),
)

# Meaning search (service/search/meaning.py): one vector per task, made by the
# embedder named ``model`` from the task text whose digest is ``text_hash``.
# ``task_updated_at`` is the task's stamp when its text was read: the vector is
# current while it equals the task's ``updated_at``. ``vector`` holds ``dim``
# little-endian float32 values.
task_embeddings = Table(
    "task_embeddings",
    metadata,
    Column("task_id", Id, ForeignKey("tasks.id", ondelete="CASCADE"), primary_key=True),
    _workspace_id(nullable=False),
    Column("model", String(200), nullable=False),
    Column("dim", Integer, nullable=False),
    Column("text_hash", String(64), nullable=False),
    Column("task_updated_at", When, nullable=False),
    Column("vector", Bytes, nullable=False),
    Index("ix_task_embeddings_workspace", "workspace_id"),
)

# Work delivered to agents (service/delivery/work.py): one lease per delivered item,
# keyed ``annotation:<id>``, ``choice:<id>`` or ``ask:<id>``. ``state`` is
# ``leased`` (the agent holds it until ``lease_until``) or ``done``.
work_claims = Table(
    "work_claims",
    metadata,
    _workspace_id(primary_key=True),
    Column("item", String(80), primary_key=True),
    Column("agent", String(300), nullable=False),
    Column("state", String(10), nullable=False),
    Column("deliveries", Integer, nullable=False),
    Column("claimed_at", When, nullable=False),
    Column("heartbeat_at", When, nullable=False),
    Column("lease_until", When, nullable=False),
    Index("ix_work_claims_agent", "workspace_id", "agent", "state"),
)

# Requests to an AI answerer, delivered as asks and answered with answer_ask.
work_asks = Table(
    "work_asks",
    metadata,
    _id(),
    _workspace_id(nullable=False),
    Column("project", String(200), nullable=True),
    Column("branch", String(300), nullable=True),
    Column("board_id", Id, ForeignKey("boards.id", ondelete="CASCADE"), nullable=True),
    Column("question", Text, nullable=False),
    Column("context", Json, nullable=True),
    Column("author", String(300), nullable=False),
    Column("answer", Text, nullable=True),
    Column("answered_by", String(300), nullable=True),
    Column("created_at", When, nullable=False),
    Column("answered_at", When, nullable=True),
    Index("ix_work_asks_open", "workspace_id", "answered_at"),
)

# A change counter per workspace, bumped by every write that makes work:
# SQLite waiters in other processes watch it (PostgreSQL ones get NOTIFY).
work_signals = Table(
    "work_signals",
    metadata,
    _workspace_id(primary_key=True),
    Column("n", BigInteger, nullable=False),
)

blobs = Table(
    "blobs",
    metadata,
    Column("key", String(80), primary_key=True),
    Column("size", BigInteger, nullable=False),
    Column("data", Bytes, nullable=False),
    Column("created_at", When, nullable=False),
)

#: What a project transfer made of each source row: (source workspace, destination
#: workspace, table, source id) names the destination id, so a re-run skips the rows
#: it copied before. ``merged`` marks a source row that resolved to a row the
#: destination already had (vocabulary of the same key) instead of a copy.
transfer_map = Table(
    "transfer_map",
    metadata,
    Column(
        "source_workspace_id",
        Id,
        ForeignKey("workspaces.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    Column(
        "dest_workspace_id", Id, ForeignKey("workspaces.id", ondelete="CASCADE"), primary_key=True
    ),
    Column("tbl", String(40), primary_key=True),
    Column("source_id", BigInteger, primary_key=True, autoincrement=False),
    Column("dest_id", BigInteger, nullable=False),
    Column("merged", Boolean, nullable=False),
)

#: The deleted ledger of tasks: one row per trashed task, with why and by whom; the
#: task row itself stays (``tasks.deleted_at``), so it can be restored.
task_trash = Table(
    "task_trash",
    metadata,
    _id(),
    _workspace_id(nullable=False),
    Column("task_id", Id, ForeignKey("tasks.id", ondelete="CASCADE"), nullable=False),
    Column("reason", String(40), nullable=False),
    Column("detail", Json, nullable=False),
    Column("deleted_by", String(300), nullable=False),
    Column("deleted_at", When, nullable=False),
    Column("restored_at", When, nullable=True),
    Index("ix_task_trash_workspace", "workspace_id", "deleted_at"),
)

#: Outbound webhooks of a workspace: where to POST, which events, and the secret
#: that signs each delivery (kept as it is: an HMAC needs the secret itself).
webhooks = Table(
    "webhooks",
    metadata,
    _id(),
    _workspace_id(nullable=False),
    Column("url", String(2048), nullable=False),
    Column("events", Json, nullable=False),
    Column("secret", String(200), nullable=False),
    Column("active", Boolean, nullable=False),
    Column("created_by", String(300), nullable=False),
    Column("created_at", When, nullable=False),
    Column("updated_at", When, nullable=False),
    Index("ix_webhooks_workspace", "workspace_id"),
)

#: The outbox: one row per event owed to one webhook, written in the transaction of
#: the change it reports, then sent (and retried) by a dispatcher. ``lease_until``
#: is the claim of the process sending it now; ``coalesce_key`` lets a burst of
#: board writes share one waiting delivery.
webhook_deliveries = Table(
    "webhook_deliveries",
    metadata,
    _id(),
    Column("webhook_id", Id, ForeignKey("webhooks.id", ondelete="CASCADE"), nullable=False),
    Column("event", String(60), nullable=False),
    Column("occurred_at", When, nullable=False),
    Column("data", Json, nullable=False),
    Column("coalesce_key", String(200), nullable=True),
    Column("status", String(12), nullable=False),
    Column("attempts", Integer, nullable=False),
    Column("next_attempt_at", When, nullable=True),
    Column("lease_until", When, nullable=True),
    Column("last_attempt_at", When, nullable=True),
    Column("response_status", Integer, nullable=True),
    Column("response_excerpt", Text, nullable=True),
    Column("error", Text, nullable=True),
    Column("redelivery_of", Id, nullable=True),
    Column("created_at", When, nullable=False),
    Index("ix_webhook_deliveries_due", "status", "next_attempt_at"),
    Index("ix_webhook_deliveries_webhook", "webhook_id", "id"),
    Index("ix_webhook_deliveries_coalesce", "webhook_id", "coalesce_key", "status"),
)

#: A project's durable notes for agents, every write a new version of its key:
#: ``load`` says when a task pickup shows the note (first, on-demand, never), as
#: a task ref's ``meta.load`` does.
project_memories = Table(
    "project_memories",
    metadata,
    _id(),
    _workspace_id(nullable=False),
    Column("project_id", Id, ForeignKey("projects.id", ondelete="CASCADE"), nullable=False),
    Column("key", String(120), nullable=False),
    Column("version", Integer, nullable=False),
    Column("text", Text, nullable=False),
    Column("load", String(12), nullable=False),
    Column("author", String(300), nullable=False),
    Column("created_at", When, nullable=False),
    UniqueConstraint("project_id", "key", "version", name="uq_project_memories_version"),
)

#: Reusable groups of cards (kind ``component``), every write a new version of its
#: name: ``definition`` holds the cards with their relative layout, the wires
#: between them and the slots that ``compose_board`` fills.
components = Table(
    "components",
    metadata,
    _id(),
    _workspace_id(nullable=False),
    Column("name", String(120), nullable=False),
    Column("version", Integer, nullable=False),
    Column("description", Text, nullable=True),
    Column("definition", Json, nullable=False),
    Column("author", String(300), nullable=False),
    Column("created_at", When, nullable=False),
    UniqueConstraint("workspace_id", "name", "version", name="uq_components_version"),
)

#: Who has a board open now (cursor, selection, a card being dragged): one row per
#: caller and page, rewritten by each heartbeat and read only while ``seen`` is recent.
#: Kept in the database, not a process's memory: the server may run as several
#: processes, and two people on one board may be served by different ones.
board_presence = Table(
    "board_presence",
    metadata,
    Column("board_id", Id, ForeignKey("boards.id", ondelete="CASCADE"), primary_key=True),
    Column("who", String(300), primary_key=True),
    Column("page", String(40), primary_key=True),
    Column("kind", String(12), nullable=False),
    Column("name", String(300), nullable=False),
    Column("state", Json, nullable=False),
    Column("seen", When, nullable=False),
    Index("ix_board_presence_seen", "seen"),
)
