"""Workspaces, their members and tokens, share links and project transfer."""

from layoutkit.service.workspaces import (  # noqa: F401  (importing registers the operations)
    access,
    admin,
    transfer,
)
