"""Review rules: markdown files with strict frontmatter, their lint, layers and the brief.

A rule file reads::

    ---
    id: spacing
    family: layout
    check: partial
    severity: medium
    platform: [web]        # optional; omitted means web and mobile
    enabled: true          # optional; default true
    ---

    One sentence saying what a good screen does.

    Verify:

    - a concrete thing to look at
    - another one

Everything here is pure: text in, values out. Storage keeps the sources;
the service resolves the layers (built-in, workspace, project) with
:func:`resolve` and renders :func:`render_brief`.
"""

from __future__ import annotations

import difflib
import functools
import hashlib
import html
import json
import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from importlib import resources
from typing import Any, Literal

import attrs
from markdown_it import MarkdownIt

from layoutkit.errors import EngineError
from layoutkit.review import _frontmatter
from layoutkit.review._frontmatter import FrontmatterError

ID_PATTERN = re.compile(r"^[a-z][a-z0-9-]{1,40}$")
CHECKS = ("mechanical", "partial", "judgment")
SEVERITIES = ("high", "medium", "low")
PLATFORMS = ("web", "mobile")
KEYS = ("id", "family", "check", "severity", "platform", "enabled")
#: A whole rule file; a rule is a sentence and a few checks, so this is generous.
MAX_RULE_BYTES = 16 * 1024
#: The layers, lowest first: a higher layer's rule replaces a lower one's of the same id.
LAYERS = ("builtin", "workspace", "project")

#: Every lint code: the spec's, then the ones the strict reading adds.
LINT_CODES = (
    "missing-frontmatter",
    "invalid-frontmatter",
    "missing-id",
    "invalid-id",
    "missing-check",
    "invalid-check",
    "missing-severity",
    "invalid-severity",
    "invalid-platform",
    "invalid-enabled",
    "missing-body",
    "missing-sentence",
    "missing-family",
    "missing-verify",
    "unknown-key",
    # not named by the spec: what strict parsing and the fix option need to say
    "byte-order-mark",
    "html-entity",
    "duplicate-key",
    "yaml-anchor",
    "too-large",
)
#: Codes that leave a usable rule: reported, never a reason to refuse a write.
WARNINGS = frozenset({"byte-order-mark", "html-entity"})

_MD = MarkdownIt("commonmark", {"html": False})
_ENTITY = re.compile(r"&(?:[A-Za-z][A-Za-z0-9]{1,31}|#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6});")
_VERIFY = re.compile(r"^[*_]*verify[*_]*\s*:?\s*[*_]*\s*:?$", re.IGNORECASE)
#: "Verify: a check" on one line (a paragraph or a bullet): the check after the colon.
_VERIFY_INLINE = re.compile(r"^[*_]*verify[*_]*\s*:\s*[*_]*\s*(?P<check>\S.*)$", re.IGNORECASE)
_FENCE = re.compile(r"^(---|\.\.\.)[ \t]*$")


class RuleError(EngineError):
    """A rule refused: ``invalid_rule`` carries the lint ``findings``."""


@attrs.frozen(slots=True)
class LintFinding:
    """One thing lint found: its ``code``, a message, the 1-based line (None for the
    whole file), whether ``fix`` repairs it, and the field it is about."""

    code: str
    message: str
    line: int | None = None
    fixable: bool = False
    field: str | None = None
    did_you_mean: tuple[str, ...] = ()

    @property
    def severity(self) -> Literal["error", "warning"]:
        return "warning" if self.code in WARNINGS else "error"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
            "line": self.line,
            "fixable": self.fixable,
        }
        if self.field is not None:
            out["field"] = self.field
        if self.did_you_mean:
            out["didYouMean"] = list(self.did_you_mean)
        return out


@attrs.frozen(slots=True)
class Rule:
    """One parsed rule. ``platform`` is as written: empty means both platforms."""

    id: str
    family: str
    check: str
    severity: str
    sentence: str
    verify: tuple[str, ...]
    platform: tuple[str, ...] = ()
    enabled: bool = True
    #: The markdown after the frontmatter, as written (sentence, Verify list, anything else).
    body: str = ""

    @property
    def platforms(self) -> tuple[str, ...]:
        """The platforms the rule applies to (both when the file names none)."""
        return self.platform or PLATFORMS

    def frontmatter(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "family": self.family,
            "check": self.check,
            "severity": self.severity,
        }
        if self.platform:
            out["platform"] = list(self.platform)
        if not self.enabled:
            out["enabled"] = False
        return out

    def to_source(self) -> str:
        """The rule as a file: canonical frontmatter, then the body as written."""
        return render_source(self.frontmatter(), self.body)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "family": self.family,
            "check": self.check,
            "severity": self.severity,
            "platform": list(self.platforms),
            "enabled": self.enabled,
            "sentence": self.sentence,
            "verify": list(self.verify),
            "body": self.body,
        }


@attrs.frozen(slots=True)
class LintResult:
    """What :func:`lint` found. With ``fix``, ``source`` is the repaired text,
    ``fixed`` what was repaired and ``findings`` what is left in it."""

    source: str
    findings: tuple[LintFinding, ...]
    fixed: tuple[LintFinding, ...] = ()
    rule: Rule | None = None

    @property
    def ok(self) -> bool:
        """No errors left (warnings do not stop a rule from being used)."""
        return not any(f.severity == "error" for f in self.findings)

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "findings": [f.to_dict() for f in self.findings],
            "fixed": [f.to_dict() for f in self.fixed],
            "source": self.source,
            "rule": None if self.rule is None else self.rule.to_dict(),
        }


# ---------------------------------------------------------------- reading


@attrs.frozen(slots=True)
class _Split:
    frontmatter: str | None  # None: the file has no frontmatter block
    closed: bool
    body: str
    body_line: int  # 0-based line of the file where the body starts


def _split(text: str) -> _Split:
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip("\r\n").rstrip() != "---":
        return _Split(None, False, text, 0)
    for i in range(1, len(lines)):
        if _FENCE.match(lines[i].rstrip("\r\n")):
            return _Split("".join(lines[1:i]), True, "".join(lines[i + 1 :]), i + 1)
    return _Split("".join(lines[1:]), False, "", len(lines))


@attrs.frozen(slots=True)
class _Body:
    heading: str | None
    sentence: str | None
    sentence_line: int | None
    verify: tuple[str, ...]
    verify_line: int | None
    has_verify_marker: bool


def _inline_text(token: Any) -> str:
    return " ".join(part.strip() for part in token.content.splitlines()).strip()


def _read_body(body: str) -> _Body:
    tokens = _MD.parse(body)
    scan = _BodyScan()
    i = 0
    while i < len(tokens):
        i = scan.step(tokens, i)
    return scan.result()


@attrs.define
class _BodyScan:
    """What the top-level blocks of a rule's body said so far: the first heading and
    sentence, and the items under the verify marker."""

    heading: str | None = None
    sentence: str | None = None
    sentence_line: int | None = None
    verify: list[str] = attrs.Factory(list)
    verify_line: int | None = None
    marker: bool = False

    def step(self, tokens: Sequence[Any], i: int) -> int:
        """Read the block starting at ``tokens[i]``; the index of the next token to read."""
        tok = tokens[i]
        if tok.level != 0:
            return i + 1
        if tok.type == "heading_open":
            self._heading(tok, _inline_text(tokens[i + 1]))
            return i + 3
        if tok.type == "paragraph_open":
            self._paragraph(tok, _inline_text(tokens[i + 1]))
            return i + 3
        if tok.type == "bullet_list_open" and not self.verify:
            items, end = _list_items(tokens, i)
            if self.marker:
                self.verify.extend(items)
            else:
                self._verify_bullets(tok, tokens, i, items)
            return end + 1
        return i + 1

    def _verify_bullets(self, tok: Any, tokens: Sequence[Any], i: int, items: list[str]) -> None:
        """The other ways people write the list: a "- Verify:" bullet with the checks
        nested under it, or bullets that each begin "Verify: …"."""
        if items and _VERIFY.match(items[0]):
            nested, _ = _list_items(tokens, i, depth_of_items=2)
            self.verify.extend(nested or items[1:])
        elif items and all(_VERIFY_INLINE.match(item) for item in items):
            self.verify.extend(m["check"] for item in items if (m := _VERIFY_INLINE.match(item)))
        else:
            return
        self.marker, self.verify_line = True, tok.map[0] if tok.map else None

    def _heading(self, tok: Any, text: str) -> None:
        if _VERIFY.match(text):
            self.marker, self.verify_line = True, tok.map[0] if tok.map else None
        elif self.heading is None and self.sentence is None:
            self.heading = text

    def _paragraph(self, tok: Any, text: str) -> None:
        inline = _VERIFY_INLINE.match(text)
        if _VERIFY.match(text):
            self.marker, self.verify_line = True, tok.map[0] if tok.map else None
        elif inline and self.sentence is not None and not self.verify:
            # "Verify: the one check" on the marker's own line
            self.marker, self.verify_line = True, tok.map[0] if tok.map else None
            self.verify.append(inline["check"])
        elif self.sentence is None and not self.marker:
            self.sentence, self.sentence_line = text, tok.map[0] if tok.map else None

    def result(self) -> _Body:
        return _Body(
            self.heading,
            self.sentence,
            self.sentence_line,
            tuple(self.verify),
            self.verify_line,
            self.marker,
        )


def _list_items(tokens: Sequence[Any], i: int, *, depth_of_items: int = 1) -> tuple[list[str], int]:
    """The non-empty texts of the items of the bullet list opening at ``tokens[i]``
    (its own items, or with ``depth_of_items`` 2 those of the lists nested in them),
    and the index of its closing token."""
    items: list[str] = []
    level = 1 + 2 * depth_of_items
    depth = 0
    j = i
    while j < len(tokens):
        t = tokens[j]
        if t.type == "bullet_list_open":
            depth += 1
        elif t.type == "bullet_list_close":
            depth -= 1
            if depth == 0:
                break
        elif t.type == "inline" and t.level == level and depth == depth_of_items:
            item = _inline_text(t)
            if item:
                items.append(item)
        j += 1
    return items, j


def slug_id(text: str) -> str | None:
    """An id made from a file name or a heading (``Dark theme`` -> ``dark-theme``), or
    None when nothing usable is left."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")
    slug = re.sub(r"^[^a-z]+", "", slug)[:41].rstrip("-")
    return slug if ID_PATTERN.match(slug) else None


def _file_stem(filename: str | None) -> str | None:
    if not filename:
        return None
    name = re.split(r"[\\/]", filename)[-1]
    for suffix in (".markdown", ".md"):
        if name.lower().endswith(suffix):
            return name[: -len(suffix)]
    return name


def _near(value: Any, allowed: Sequence[str]) -> str | None:
    """The allowed value ``value`` nearly is (case, a letter or two), or None."""
    if not isinstance(value, str):
        return None
    folded = value.strip().lower()
    if folded in allowed:
        return folded
    # An abbreviation (``med``, ``hi``) names the one value it starts.
    starts = [a for a in allowed if len(folded) >= 2 and a.startswith(folded)]
    if len(starts) == 1:
        return starts[0]
    hits = difflib.get_close_matches(folded, allowed, n=1, cutoff=0.75)
    return hits[0] if hits else None


def lint(source: str, *, filename: str | None = None, fix: bool = False) -> LintResult:
    """Lint one rule file; with ``fix``, repair what can be repaired and lint the result.

    ``filename`` lets a missing id be derived from the file's name. The fix
    option strips a byte-order mark, decodes HTML entities, snaps enum values
    that are near misses (``Hgh`` -> ``high``), derives a missing id from the
    file name or the first heading, and sets a missing check to ``judgment``.
    A frontmatter it repairs is written back in canonical key order.
    """
    findings, read = _lint(source, filename)
    if not fix or not any(f.fixable for f in findings):
        return LintResult(source, tuple(findings), (), _rule_if_ok(read, findings))
    fixed_text = _apply_fixes(source, filename, findings, read)
    after, again = _lint(fixed_text, filename)
    done = tuple(f for f in findings if f.fixable)
    return LintResult(fixed_text, tuple(after), done, _rule_if_ok(again, after))


def _rule_if_ok(read: _Read, findings: Sequence[LintFinding]) -> Rule | None:
    if any(f.severity == "error" for f in findings):
        return None
    return _build(read)


@functools.lru_cache(maxsize=512)
def parse(source: str, *, filename: str | None = None) -> Rule:
    """The rule in ``source``; :class:`RuleError` ``invalid_rule`` with the lint
    findings when it has errors.

    Cached: every brief parses the stored rules of its layers again, and a rule
    is a value of its text alone.
    """
    result = lint(source, filename=filename)
    if result.rule is None:
        errors = [f for f in result.findings if f.severity == "error"]
        first = errors[0]
        where = f"line {first.line}: " if first.line else ""
        raise RuleError(
            "invalid_rule",
            f"the rule does not lint clean: {where}{first.message}",
            findings=[f.to_dict() for f in result.findings],
        )
    return result.rule


def _clean(source: str) -> str:
    return source.removeprefix("\ufeff")


def _build(read: _Read) -> Rule:
    """The rule of a source that linted without errors, from what lint read."""
    meta, body, split = read.meta, read.body, read.split
    assert meta is not None and body is not None and split is not None
    platform = meta.get("platform")
    plats = (platform,) if isinstance(platform, str) else tuple(platform or ())
    assert body.sentence is not None
    return Rule(
        id=meta["id"],
        family=meta["family"].strip(),
        check=meta["check"],
        severity=meta["severity"],
        platform=tuple(p for p in PLATFORMS if p in plats),
        enabled=meta.get("enabled", True),
        sentence=body.sentence,
        verify=body.verify,
        body=split.body.strip("\n"),
    )


@attrs.define(slots=True)
class _Read:
    """What lint read of a file (kept so a clean file is not read twice), and the
    values the fix option would write into its frontmatter."""

    split: _Split | None = None
    meta: dict[str, Any] | None = None
    body: _Body | None = None
    values: dict[str, Any] = attrs.field(factory=dict)


def _lint(source: str, filename: str | None) -> tuple[list[LintFinding], _Read]:
    out: list[LintFinding] = []
    repairs = _Read()
    size = len(source.encode("utf-8", "surrogatepass"))
    if size > MAX_RULE_BYTES:
        out.append(
            LintFinding("too-large", f"the rule file is {size} bytes; at most {MAX_RULE_BYTES}")
        )
        return out, repairs
    if source.startswith("\ufeff"):
        out.append(
            LintFinding("byte-order-mark", "the file starts with a byte-order mark", 1, True)
        )
    text = _clean(source)
    for n, line in enumerate(text.splitlines(), start=1):
        for m in _ENTITY.finditer(line):
            if html.unescape(m.group(0)) != m.group(0):
                out.append(
                    LintFinding(
                        "html-entity",
                        f"HTML entity {m.group(0)} where the character itself belongs",
                        n,
                        True,
                    )
                )
    split = _split(text)
    body = _read_body(split.body)
    repairs.split, repairs.body = split, body
    derived = slug_id(_file_stem(filename) or "") or (
        slug_id(body.heading) if body.heading else None
    )
    if split.frontmatter is None:
        out.append(
            LintFinding(
                "missing-frontmatter",
                "a rule starts with a --- frontmatter block (id, family, check, severity)",
                1,
            )
        )
    elif not split.closed:
        out.append(
            LintFinding("invalid-frontmatter", "the frontmatter block has no closing --- line", 1)
        )
    else:
        out.extend(_lint_frontmatter(split, derived, repairs))
    out.extend(_lint_body(split, body))
    return out, repairs


def _lint_frontmatter(split: _Split, derived: str | None, repairs: _Read) -> list[LintFinding]:
    assert split.frontmatter is not None
    try:
        meta, lines = _frontmatter.read(split.frontmatter)
    except FrontmatterError as err:
        line = err.line + 2 if err.line is not None else 1
        return [LintFinding(err.code, err.message, line, field="frontmatter")]
    repairs.meta = meta
    at = functools.partial(_key_line, lines)
    out = _lint_unknown_keys(meta, at)
    out.extend(_lint_id(meta.get("id"), derived, at, repairs))
    out.extend(_lint_family(meta.get("family"), at))
    out.extend(_lint_choice(meta.get("check"), "check", CHECKS, "judgment", at, repairs))
    out.extend(_lint_choice(meta.get("severity"), "severity", SEVERITIES, None, at, repairs))
    if "platform" in meta:
        out.extend(_lint_platform(meta["platform"], at("platform"), repairs))
    enabled = meta.get("enabled", True)
    if not isinstance(enabled, bool):
        out.append(
            LintFinding(
                "invalid-enabled",
                f"enabled is true or false, not {enabled!r}",
                at("enabled"),
                field="enabled",
            )
        )
    return out


def _key_line(lines: dict[str, int], key: str) -> int | None:
    # Key lines count from the frontmatter's first line, which is the file's second.
    return lines[key] + 2 if key in lines else None


_At = Callable[[str], int | None]


def _lint_unknown_keys(meta: dict[str, Any], at: _At) -> list[LintFinding]:
    out: list[LintFinding] = []
    for key in meta:
        if key not in KEYS:
            hint = tuple(difflib.get_close_matches(str(key).lower(), KEYS, n=1, cutoff=0.6))
            out.append(
                LintFinding(
                    "unknown-key",
                    f"unknown frontmatter key {key!r}; keys are {', '.join(KEYS)}",
                    at(str(key)),
                    field=str(key),
                    did_you_mean=hint,
                )
            )
    return out


def _lint_id(rule_id: Any, derived: str | None, at: _At, repairs: _Read) -> list[LintFinding]:
    if rule_id is None or rule_id == "":
        if derived is not None:
            repairs.values["id"] = derived
        return [
            LintFinding(
                "missing-id",
                "the rule has no id"
                + (f"; fix derives {derived!r}" if derived else " and none can be derived"),
                at("id") or 1,
                fixable=derived is not None,
                field="id",
            )
        ]
    if not isinstance(rule_id, str) or not ID_PATTERN.match(rule_id):
        hint = slug_id(str(rule_id))
        return [
            LintFinding(
                "invalid-id",
                f"id {rule_id!r} does not match {ID_PATTERN.pattern}",
                at("id"),
                field="id",
                did_you_mean=(hint,) if hint else (),
            )
        ]
    return []


def _lint_family(family: Any, at: _At) -> list[LintFinding]:
    if isinstance(family, str) and family.strip():
        return []
    return [
        LintFinding(
            "missing-family",
            "the rule has no family (free text naming the kind of problem)"
            if family is None or family == ""
            else f"family must be text, not {family!r}",
            at("family") or 1,
            field="family",
        )
    ]


def _lint_choice(
    value: Any,
    key: str,
    allowed: Sequence[str],
    missing_fix: str | None,
    at: _At,
    repairs: _Read,
) -> list[LintFinding]:
    """A key whose value is one of ``allowed``: missing (``missing_fix`` is what fix
    sets), or not one of them (fix snaps a near miss)."""
    if value is None or value == "":
        if missing_fix is not None:
            repairs.values[key] = missing_fix
        return [
            LintFinding(
                f"missing-{key}",
                f"the rule has no {key} ({', '.join(allowed)})"
                + (f"; fix sets {missing_fix}" if missing_fix else ""),
                at(key) or 1,
                fixable=missing_fix is not None,
                field=key,
            )
        ]
    if value in allowed:
        return []
    near = _near(value, allowed)
    if near is not None:
        repairs.values[key] = near
    return [
        LintFinding(
            f"invalid-{key}",
            f"{key} {value!r} is not one of {', '.join(allowed)}"
            + (f"; did you mean {near!r}?" if near else ""),
            at(key),
            fixable=near is not None,
            field=key,
            did_you_mean=(near,) if near else (),
        )
    ]


def _lint_platform(value: Any, line: int | None, repairs: _Read) -> list[LintFinding]:
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not items:
        return [
            LintFinding(
                "invalid-platform",
                f"platform is a list of {', '.join(PLATFORMS)} (omit it for both), not {value!r}",
                line,
                field="platform",
            )
        ]
    snapped: list[str] = []
    out: list[LintFinding] = []
    for item in items:
        if item in PLATFORMS:
            snapped.append(item)
            continue
        near = _near(item, PLATFORMS)
        out.append(
            LintFinding(
                "invalid-platform",
                f"platform {item!r} is not one of {', '.join(PLATFORMS)}"
                + (f"; did you mean {near!r}?" if near else ""),
                line,
                fixable=near is not None,
                field="platform",
                did_you_mean=(near,) if near else (),
            )
        )
        if near is not None:
            snapped.append(near)
    if len(set(snapped)) != len(snapped) and not out:
        out.append(
            LintFinding(
                "invalid-platform", "platform names the same value twice", line, field="platform"
            )
        )
    if out and all(f.fixable for f in out):
        repairs.values["platform"] = [p for p in PLATFORMS if p in snapped]
    return out


def _lint_body(split: _Split, body: _Body) -> list[LintFinding]:
    start = split.body_line + 1
    if not split.body.strip():
        return [
            LintFinding(
                "missing-body",
                "after the frontmatter comes the rule sentence, then a Verify list",
                start,
                field="body",
            )
        ]
    out: list[LintFinding] = []
    if body.sentence is None:
        out.append(
            LintFinding(
                "missing-sentence",
                "the first paragraph after the frontmatter is the rule sentence; there is none",
                start,
                field="body",
            )
        )
    if not body.verify:
        line = start + body.verify_line if body.verify_line is not None else None
        out.append(
            LintFinding(
                "missing-verify",
                "a 'Verify:' line followed by a bullet list of checks is missing"
                if not body.has_verify_marker
                else "the Verify list has no items",
                line,
                field="body",
            )
        )
    return out


def _apply_fixes(
    source: str, filename: str | None, findings: Sequence[LintFinding], repairs: _Read
) -> str:
    codes = {f.code for f in findings if f.fixable}
    text = _clean(source) if "byte-order-mark" in codes else source
    if "html-entity" in codes:
        # A no-break space from &nbsp; would be invisible in the brief: a space it is.
        text = _ENTITY.sub(lambda m: html.unescape(m.group(0)).replace("\xa0", " "), text)
        # An id derived from a heading is derived from the decoded text.
        _, repairs = _lint(text, filename)
    # Repairs are only found in a frontmatter that was read whole (``meta`` set).
    if not repairs.values or repairs.meta is None or repairs.split is None:
        return text
    meta = {**repairs.meta, **repairs.values}
    return render_source(meta, repairs.split.body.lstrip("\n"))


def render_source(meta: dict[str, Any], body: str) -> str:
    """A rule file from frontmatter values (known keys first, in order) and a body."""
    ordered = [k for k in KEYS if k in meta] + [k for k in meta if k not in KEYS]
    head = "\n".join(_frontmatter.dump_value(str(k), meta[k]) for k in ordered)
    return f"---\n{head}\n---\n\n{body.strip(chr(10))}\n"


# ---------------------------------------------------------------- layers


@attrs.frozen(slots=True)
class LayerRule:
    """A rule as a layer holds it, with the version stored there (0 for built-ins)."""

    rule: Rule
    version: int = 0


@attrs.frozen(slots=True)
class ResolvedRule:
    """The rule in force for an id, the layer it came from and the lower layers it hides."""

    rule: Rule
    layer: str
    version: int
    hides: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.rule.to_dict(),
            "layer": self.layer,
            "version": self.version,
            "overrides": list(self.hides),
        }


def resolve(layers: Sequence[tuple[str, Iterable[LayerRule]]]) -> list[ResolvedRule]:
    """Rules in force, lowest layer first in ``layers``.

    A rule of a higher layer replaces the lower layers' rule of the same id
    whole, and keeps the place that id first took; ids a layer adds are
    appended in that layer's order. A disabled rule is still resolved (with
    ``enabled`` false): the brief leaves it out, listings show it.
    """
    order: list[str] = []
    chosen: dict[str, ResolvedRule] = {}
    for name, rules in layers:
        for entry in rules:
            rid = entry.rule.id
            below = chosen.get(rid)
            if below is None:
                order.append(rid)
                hides: tuple[str, ...] = ()
            else:
                hides = (*below.hides, below.layer)
            chosen[rid] = ResolvedRule(entry.rule, name, entry.version, hides)
    return [chosen[rid] for rid in order]


# ---------------------------------------------------------------- built-ins

#: The built-in ids, in the order the brief lists them.
BUILTIN_IDS = (
    "broken",
    "ia-flow",
    "redundant",
    "spacing",
    "scope-directive",
    "native-shell",
    "consistency",
    "visual-polish",
    "copy",
    "clarity",
    "reuse",
    "data-honesty",
    "hierarchy",
    "layout-width",
    "redesign-open",
    "states",
    "dark-theme",
    "repeat-class",
    "not-a-finding",
)


@functools.cache
def _builtin_texts() -> tuple[tuple[str, str], ...]:
    folder = resources.files("layoutkit.review").joinpath("builtin")
    return tuple((rid, folder.joinpath(f"{rid}.md").read_text("utf-8")) for rid in BUILTIN_IDS)


def builtin_sources() -> dict[str, str]:
    """The shipped rule files by id (read once from the package's ``builtin`` folder)."""
    return dict(_builtin_texts())


@functools.cache
def builtin_rules() -> tuple[Rule, ...]:
    """The built-in layer, parsed once per process."""
    return tuple(parse(text, filename=f"{rid}.md") for rid, text in builtin_sources().items())


# ---------------------------------------------------------------- the brief

PREAMBLE = (
    "You are reviewing screens of {subject} against the rules below.",
    "Look at every screen you are given before writing anything. Each rule says what a good "
    "screen does, then lists what to verify on the screen itself.",
    "File a finding only for what the pixels show: name the rule id, point at the region, "
    "say what is wrong and what good would look like. One finding per problem, on the "
    "screen where it is clearest.",
    "Apply a rule only on the platforms it names. Severity ranks the findings: high first.",
)

DEFAULT_PERSONA = "a careful first-time user who knows what the product is for"


def _platform_label(rule: Rule) -> str:
    return "+".join(rule.platforms)


def render_brief(
    resolved: Sequence[ResolvedRule], *, project: str | None = None, persona: str | None = None
) -> str:
    """The review brief: the preamble, then each enabled rule as
    ``[id, platform, severity] sentence`` with its verify lines, then the persona."""
    subject = f"the project {project}" if project else "this workspace"
    lines = [p.format(subject=subject) for p in PREAMBLE]
    lines.append("")
    for entry in resolved:
        rule = entry.rule
        if not rule.enabled:
            continue
        lines.append(f"[{rule.id}, {_platform_label(rule)}, {rule.severity}] {rule.sentence}")
        lines.extend(f"  - verify: {item}" for item in rule.verify)
        lines.append("")
    # One line whatever was sent: the persona must not start lines of its own.
    who = " ".join((persona or "").split()) or DEFAULT_PERSONA
    lines.append(f"Persona: review as {who}.")
    return "\n".join(lines) + "\n"


def rubric_hash(resolved: Sequence[ResolvedRule]) -> str:
    """A digest of the enabled rules in force: any edit to one of them changes it
    (a review plan re-judges images judged under another rubric)."""
    rules = [e.rule.to_dict() for e in resolved if e.rule.enabled]
    text = json.dumps(rules, ensure_ascii=False, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()
