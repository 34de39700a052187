"""Strict YAML for rule frontmatter: PyYAML's safe loader with the risky parts refused.

A rule file is data written by people and sometimes by agents, so its
frontmatter is read with YAML's safe subset and three more refusals: anchors
and aliases (a few lines can expand into gigabytes, and a rule never needs to
repeat itself), duplicate keys (YAML keeps the last one silently, so
``severity: high`` then ``severity: low`` would hide the first), and anything
over :data:`MAX_FRONTMATTER_BYTES`.

The pure-Python ``SafeLoader`` is used rather than the C one on purpose: its
composer is Python code we can hook, and a frontmatter block is a few hundred
bytes.
"""

from __future__ import annotations

from typing import Any

import yaml

#: Frontmatter is six short keys; anything much larger is not a rule header.
MAX_FRONTMATTER_BYTES = 4096


class FrontmatterError(Exception):
    """Frontmatter refused: a lint ``code``, a message and the 0-based line in the block."""

    def __init__(self, code: str, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.line = line


class StrictLoader(yaml.SafeLoader):
    """SafeLoader that refuses anchors, aliases and duplicate mapping keys."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent):
            raise FrontmatterError(
                "yaml-anchor",
                f"alias *{event.anchor} refused: rule frontmatter takes no anchors or aliases",
                event.start_mark.line,
            )
        anchor = getattr(event, "anchor", None)
        if anchor is not None:
            raise FrontmatterError(
                "yaml-anchor",
                f"anchor &{anchor} refused: rule frontmatter takes no anchors or aliases",
                event.start_mark.line,
            )
        return super().compose_node(parent, index)

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            try:
                hash(key)
            except TypeError:
                raise FrontmatterError(
                    "invalid-frontmatter",
                    "a frontmatter key must be text",
                    key_node.start_mark.line,
                ) from None
            if key in seen:
                raise FrontmatterError(
                    "duplicate-key",
                    f"key {key!r} appears twice (lines {seen[key] + 1} and "
                    f"{key_node.start_mark.line + 1} of the frontmatter)",
                    key_node.start_mark.line,
                )
            seen[key] = key_node.start_mark.line
        return super().construct_mapping(node, deep=deep)


def load(text: str) -> dict[str, Any]:
    """The frontmatter block ``text`` as a mapping; :class:`FrontmatterError` otherwise."""
    return read(text)[0]


def read(text: str) -> tuple[dict[str, Any], dict[str, int]]:
    """The frontmatter block as a mapping, and the 0-based line of each top-level key,
    read in one pass; :class:`FrontmatterError` when it is refused."""
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_FRONTMATTER_BYTES:
        raise FrontmatterError(
            "too-large", f"frontmatter is {size} bytes; at most {MAX_FRONTMATTER_BYTES}", 0
        )
    loader = StrictLoader(text)
    try:
        node = loader.get_single_node()
        value = None if node is None else loader.construct_document(node)
    except FrontmatterError:
        raise
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        raise FrontmatterError(
            "invalid-frontmatter",
            f"frontmatter is not valid YAML: {exc.problem or exc.context}",
            mark.line if mark is not None else None,
        ) from None
    except yaml.YAMLError as exc:
        raise FrontmatterError(
            "invalid-frontmatter", f"frontmatter is not valid YAML: {exc}"
        ) from None
    finally:
        loader.dispose()
    if value is None:
        return {}, {}
    if not isinstance(value, dict):
        raise FrontmatterError(
            "invalid-frontmatter", "frontmatter must be a mapping of keys to values", 0
        )
    lines = {
        str(k.value): k.start_mark.line for k, _ in node.value if isinstance(k, yaml.ScalarNode)
    }
    return value, lines


def dump_value(key: str, value: Any) -> str:
    """One ``key: value`` line as YAML writes it (lists in flow style)."""
    return f"{_dump(key)}: {_dump(value)}"


def _dump(value: Any) -> str:
    text = yaml.safe_dump(value, default_flow_style=True, allow_unicode=True, width=10_000)
    # A lone scalar is written as a document of its own: drop the end marker.
    return text.removesuffix("\n").removesuffix("\n...").strip()
