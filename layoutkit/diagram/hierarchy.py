"""The layered hierarchy: items per layer and the segments between them.

Its own module so the phases that build it (``layered``) and the ones that
read it (``ordering``, ``placement``, ``engine``) import it without importing
each other.
"""

from __future__ import annotations

from typing import Any

import attrs


@attrs.define
class Item:
    """A node, a dummy on a long edge, a label holder or a group placeholder in one layer."""

    kind: str  # node | dummy | label | hold
    name: str
    layer: int
    w: float
    h: float
    path: tuple[tuple[str, Any], ...]
    comp: int = 0
    extra_right: float = 0.0


@attrs.define
class Hierarchy:
    items: list[Item]
    layers: list[list[int]]
    segments: list[tuple[int, int, int]]  # (upper item, lower item, edge index)
    chains: dict[int, list[int]]  # edge index -> items from its (layout) source to target
    reversed: set[int]
