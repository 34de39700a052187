"""Workspace, the operation registry and the operation families."""

from layoutkit.service import content as _content  # noqa: F401  (registers operations)
from layoutkit.service.registry import REGISTRY, Operation, Registry
from layoutkit.service.workspace import Call, Workspace

__all__ = ["REGISTRY", "Call", "Operation", "Registry", "Workspace"]
