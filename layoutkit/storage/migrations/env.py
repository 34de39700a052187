"""Alembic's entry point for layoutkit's migrations.

The store runs them on open (``layoutkit.storage._migrations.upgrade``) on a
connection that already holds the migration lock, handed over in
``config.attributes["connection"]``; there is no alembic.ini.
"""

from __future__ import annotations

from alembic import context

from layoutkit.storage._schema import metadata

connection = context.config.attributes.get("connection")
if connection is None:
    raise RuntimeError("layoutkit migrations run through layoutkit.storage.open_store()")

# Batch mode: SQLite cannot ALTER most of a table, so Alembic rebuilds it
# (copy, drop, rename) where needed; on PostgreSQL it is plain ALTER TABLE.
context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
