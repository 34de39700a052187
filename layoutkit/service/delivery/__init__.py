"""Work delivered to agents: peek, take, wait, heartbeats and asks."""

from layoutkit.service.delivery import (  # noqa: F401  (importing registers the operations)
    work,
)
