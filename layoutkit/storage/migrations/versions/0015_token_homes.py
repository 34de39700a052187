"""A token has a home, and membership elsewhere comes by invitation.

``api_tokens.home_workspace_id`` is the workspace that minted the token: only
that workspace revokes it. ``invitations`` keeps the hash of each invitation
secret with the inviting workspace, the role, who invited, the expiry and when
(and by which token) it was used.

Backfill of ``home_workspace_id``: the workspace of the token's oldest
membership, since minting a token makes its home membership in the same
transaction and every later membership is younger. Tokens older than ``0012``
became members of every workspace at one instant; for them the tie goes to the
lowest workspace id where the token is owner, else the lowest workspace id among
its memberships. A token that is a member of nothing keeps no home (NULL): it
authenticates nowhere, and no workspace may revoke it through ``revoke_token``.

On SQLite the column's foreign key means rebuilding ``api_tokens`` (Alembic's
batch mode). Foreign keys stay on inside the migration's transaction, so dropping
the old table would cascade into ``memberships``: its rows are kept aside in a
temporary table across the rebuild and put back.

Revision ID: 0015
Revises: 0014
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None

Id = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
When = sa.DateTime(timezone=True)
FK_HOME = "fk_api_tokens_home"

_BACKFILL = (
    "UPDATE api_tokens SET home_workspace_id = ("
    "SELECT m.workspace_id FROM memberships m WHERE m.token_id = api_tokens.id "
    "ORDER BY m.created_at, CASE WHEN m.role = 'owner' THEN 0 ELSE 1 END, m.workspace_id "
    "LIMIT 1)"
)


def upgrade() -> None:
    home = sa.Column("home_workspace_id", Id, nullable=True)
    if op.get_bind().dialect.name == "postgresql":
        op.add_column("api_tokens", home)
        op.create_foreign_key(
            FK_HOME, "api_tokens", "workspaces", ["home_workspace_id"], ["id"], ondelete="SET NULL"
        )
    else:
        op.execute("CREATE TEMP TABLE memberships_kept AS SELECT * FROM memberships")
        with op.batch_alter_table("api_tokens", recreate="always") as batch:
            batch.add_column(home)
            batch.create_foreign_key(
                FK_HOME, "workspaces", ["home_workspace_id"], ["id"], ondelete="SET NULL"
            )
        op.execute(
            "INSERT INTO memberships (workspace_id, token_id, role, created_at) "
            "SELECT workspace_id, token_id, role, created_at FROM memberships_kept"
        )
        op.execute("DROP TABLE memberships_kept")
    op.create_index("ix_api_tokens_home", "api_tokens", ["home_workspace_id"])
    op.execute(_BACKFILL)
    op.create_table(
        "invitations",
        sa.Column("id", Id, primary_key=True, autoincrement=True),
        sa.Column(
            "workspace_id", Id, sa.ForeignKey("workspaces.id", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("role", sa.String(10), nullable=False),
        sa.Column("invited_by", sa.String(300), nullable=False),
        sa.Column(
            "inviter_token_id",
            Id,
            sa.ForeignKey("api_tokens.id", ondelete="CASCADE"),
            nullable=True,
        ),
        sa.Column("created_at", When, nullable=False),
        sa.Column("expires_at", When, nullable=False),
        sa.Column("used_at", When, nullable=True),
        sa.Column(
            "used_by_token_id",
            Id,
            sa.ForeignKey("api_tokens.id", ondelete="SET NULL"),
            nullable=True,
        ),
    )
    op.create_index("ix_invitations_workspace", "invitations", ["workspace_id"])


def downgrade() -> None:
    op.drop_index("ix_invitations_workspace", "invitations")
    op.drop_table("invitations")
    op.drop_index("ix_api_tokens_home", "api_tokens")
    if op.get_bind().dialect.name == "postgresql":
        op.drop_constraint(FK_HOME, "api_tokens", type_="foreignkey")
        op.drop_column("api_tokens", "home_workspace_id")
        return
    # The same rebuild as on the way up, with the same care for memberships.
    op.execute("CREATE TEMP TABLE memberships_kept AS SELECT * FROM memberships")
    with op.batch_alter_table("api_tokens", recreate="always") as batch:
        batch.drop_constraint(FK_HOME, type_="foreignkey")
        batch.drop_column("home_workspace_id")
    op.execute(
        "INSERT INTO memberships (workspace_id, token_id, role, created_at) "
        "SELECT workspace_id, token_id, role, created_at FROM memberships_kept"
    )
    op.execute("DROP TABLE memberships_kept")
