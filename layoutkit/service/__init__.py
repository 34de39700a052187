"""Workspace, the operation registry and the operation families.

``road`` is the one path every call takes; each other package is a family that
registers its operations when imported. The generic verbs come last so their
``kind`` lists cover what every family added. ``docs/architecture.md`` maps the
families and what each may import.
"""

from layoutkit.service import (  # noqa: F401  (importing a family registers its operations)
    boards,
    delivery,
    pictures,
    review,
    search,
    tasks,
    uploads,
    workspaces,
)
from layoutkit.service.road.generic import register_generic_operations
from layoutkit.service.road.registry import REGISTRY, Operation, Registry
from layoutkit.service.road.workspace import Call, Workspace

register_generic_operations()

__all__ = ["REGISTRY", "Call", "Operation", "Registry", "Workspace"]
