"""layoutkit: a layout and rendering engine for boards and documents.

The public face::

    from layoutkit import Workspace, ServiceError
    ws = Workspace.open()
    ws.call("validate", {"element": {"kind": "prose", "payload": {"md": "Hi"}}})
"""

from layoutkit.errors import ServiceError
from layoutkit.principal import Principal
from layoutkit.service import Workspace

__all__ = ["Principal", "ServiceError", "Workspace"]
__version__ = "0.1.0"
