"""Workspace search: ``search_docs`` holds one folded document per task, board, card,
finding and tag, ``search_words`` the vocabulary typo correction reads. SQLite gets
the FTS5 table ``search_fts`` over ``search_docs`` (external content, kept in step
by three triggers); PostgreSQL a GIN index over the weighted tsvector of title and
body (a stored generated column ``search_tsv``). The index is filled from the rows
already stored.

Revision ID: 0014
Revises: 0013
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from layoutkit.storage._sql.search import PG_TSVECTOR

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")

#: FTS5 over the folded words: diacritics are already gone, remove_diacritics keeps
#: any the folding leaves alone; prefix indexes serve the short prefixes people type.
_SQLITE = (
    "CREATE VIRTUAL TABLE search_fts USING fts5(title, body, content='search_docs', "
    "content_rowid='id', tokenize='unicode61 remove_diacritics 2', prefix='2 3')",
    "CREATE TRIGGER search_docs_ai AFTER INSERT ON search_docs BEGIN "
    "INSERT INTO search_fts(rowid, title, body) VALUES (new.id, new.title, new.body); END",
    "CREATE TRIGGER search_docs_ad AFTER DELETE ON search_docs BEGIN "
    "INSERT INTO search_fts(search_fts, rowid, title, body) "
    "VALUES ('delete', old.id, old.title, old.body); END",
    "CREATE TRIGGER search_docs_au AFTER UPDATE ON search_docs BEGIN "
    "INSERT INTO search_fts(search_fts, rowid, title, body) "
    "VALUES ('delete', old.id, old.title, old.body); "
    "INSERT INTO search_fts(rowid, title, body) VALUES (new.id, new.title, new.body); END",
)


def upgrade() -> None:
    op.create_table(
        "search_docs",
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        sa.Column(
            "workspace_id", Id, sa.ForeignKey("workspaces.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("kind", sa.String(12), nullable=False),
        sa.Column("subject", sa.String(220), nullable=False),
        sa.Column("grp", sa.String(12), nullable=False),
        sa.Column("board_id", Id, sa.ForeignKey("boards.id", ondelete="CASCADE"), nullable=True),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.UniqueConstraint("workspace_id", "kind", "subject", name="uq_search_docs_subject"),
    )
    op.create_index("ix_search_docs_board", "search_docs", ["board_id"])
    op.create_table(
        "search_words",
        sa.Column(
            "workspace_id",
            Id,
            sa.ForeignKey("workspaces.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("word", sa.String(40), primary_key=True),
        sa.Column("first", sa.String(1), nullable=False),
        sa.Column("length", sa.Integer(), nullable=False),
        sa.Column("docs", sa.Integer(), nullable=False),
    )
    op.create_index("ix_search_words_first", "search_words", ["workspace_id", "first", "length"])
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        # Stored, not computed per query: ranking reads the vector of every match.
        op.execute(
            f"ALTER TABLE search_docs ADD COLUMN search_tsv tsvector "
            f"GENERATED ALWAYS AS ({PG_TSVECTOR}) STORED"
        )
        op.execute("CREATE INDEX ix_search_docs_text ON search_docs USING gin (search_tsv)")
    else:
        for statement in _SQLITE:
            op.execute(statement)


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        op.execute("DROP TABLE search_fts")
    op.drop_table("search_words")
    op.drop_table("search_docs")
