"""The one merge-patch rule of the operations: card payloads and board meta are patched alike."""

from __future__ import annotations

from collections.abc import Container, Mapping
from typing import Any


def merge_patch(
    current: Mapping[str, Any], patch: Mapping[str, Any], *, ignore: Container[str] = ()
) -> dict[str, Any]:
    """``current`` with the top-level keys of ``patch`` applied; neither input is modified.

    A key set to null is removed, any other value replaces the old one whole
    (nested objects are not merged: the spec's patches are shallow, so a
    client that sends ``{"layout": {...}}`` gets exactly that layout). Keys in
    ``ignore`` are server-owned: a patch cannot set or remove them.
    """
    merged = dict(current)
    for key, value in patch.items():
        if key in ignore:
            continue
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = value
    return merged


def patch_between(current: Mapping[str, Any], target: Mapping[str, Any]) -> dict[str, Any]:
    """The patch :func:`merge_patch` turns ``current`` into ``target`` with: each key
    whose value differs, set to ``target``'s, and null for each key ``target`` lacks."""
    patch = {k: v for k, v in target.items() if k not in current or current[k] != v}
    patch.update({k: None for k in current if k not in target})
    return patch
