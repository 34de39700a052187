"""PostgreSQL: a GIN index over the titles of task documents alone, which the
resolver's title matches scan (the index of 0014 holds bodies too, so a common word
brought every document whose body holds it into the scan). Built from the rows
already stored. SQLite needs nothing: FTS5 reads a title match by its column filter.

Revision ID: 0022
Revises: 0021
"""

from __future__ import annotations

from alembic import op

from layoutkit.storage._schema import TASK_TITLE_INDEX
from layoutkit.storage._sql.search import PG_TITLE_TSVECTOR

revision = "0022"
down_revision = "0021"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(
            f"CREATE INDEX {TASK_TITLE_INDEX} ON search_docs "
            f"USING gin ({PG_TITLE_TSVECTOR}) WHERE kind = 'task'"
        )


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(f"DROP INDEX {TASK_TITLE_INDEX}")
