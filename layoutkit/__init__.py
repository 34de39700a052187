"""layoutkit: a layout and rendering engine for boards and documents.

The public face::

    from layoutkit import Workspace, ServiceError
    ws = Workspace.open()
    ws.call("validate", {"element": {"kind": "prose", "payload": {"md": "Hi"}}})
"""

from layoutkit.errors import ServiceError
from layoutkit.principal import Principal
from layoutkit.service import Workspace

__all__ = ["AsyncClient", "Client", "Principal", "ServiceError", "Workspace"]
__version__ = "0.1.0"


def __getattr__(name: str) -> object:
    # The client is loaded only by those who use it (it needs httpx, not the engines).
    if name in ("Client", "AsyncClient"):
        from layoutkit import client

        return getattr(client, name)
    raise AttributeError(f"module 'layoutkit' has no attribute {name!r}")
