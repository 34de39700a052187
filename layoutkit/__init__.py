"""layoutkit: a layout and rendering engine for boards and documents.

The public face::

    from layoutkit import Workspace, ServiceError
    ws = Workspace.open()
    ws.call("validate", {"element": {"kind": "prose", "payload": {"md": "Hi"}}})

``Client`` and ``AsyncClient`` reach a running server with the same ``call``.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from layoutkit.errors import ServiceError

if TYPE_CHECKING:
    from layoutkit.client import AsyncClient, Client
    from layoutkit.principal import Principal
    from layoutkit.service import Workspace

__all__ = ["AsyncClient", "Client", "Principal", "ServiceError", "Workspace"]
__version__ = "0.1.0"

# Loaded on first use: importing the service loads every engine (a second or more),
# which a command line that only prints its help, or a client of a remote server,
# never needs.
_LAZY = {
    "Workspace": "layoutkit.service",
    "Principal": "layoutkit.principal",
    "Client": "layoutkit.client",
    "AsyncClient": "layoutkit.client",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'layoutkit' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_LAZY])
