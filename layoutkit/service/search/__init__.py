"""Search across every group of a workspace, by words and by meaning."""

from layoutkit.service.search import (  # noqa: F401  (importing registers the operations)
    search,
)
