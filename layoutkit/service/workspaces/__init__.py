"""Workspaces, their members and tokens, share links, project transfer and webhooks."""

from layoutkit.service.workspaces import (  # noqa: F401  (importing registers the operations)
    access,
    admin,
    identity,
    transfer,
    webhooks,
)
