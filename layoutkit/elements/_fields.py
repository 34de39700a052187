"""Field declarations: one table per object shape drives validation, normalization and docs.

A :class:`Spec` is compiled once at import. Checking a value walks its items
once, keeps values whose type already matches a field's fast type without a
function call, and only builds findings (and their path strings) when
something is wrong.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from typing import Any

import attrs

from layoutkit.elements._core import BAD, MISSING, Ctx, format_path, show
from layoutkit.limits import LIMITS, LIST_ITEMS, LimitExceeded, check_limit

#: A checker takes (value, ctx, parent, key) and returns the normalized value or BAD.
Check = Callable[[Any, Ctx, Any, Any], Any]

_NUM_TYPES = frozenset((int, float))
#: Integers beyond signed 64 bits are refused: JSON consumers cannot hold them.
INT_LIMIT = 2**63 - 1
_STR_TYPES = frozenset((str,))
_isfinite = math.isfinite
_fsum = math.fsum


@attrs.frozen
class Field:
    """One field of an object shape, as validated and as documented."""

    name: str
    type: str
    check: Check | None = None
    required: bool = False
    default: Any = MISSING
    notes: str = ""
    fast: type | None = None
    server: bool = False
    members: Spec | None = None
    #: The JSON Schema of the value (nested shapes as ``$ref``s, see ``spec_ref``); it
    #: describes, the checker decides, so it never refuses what only draws a warning.
    schema: dict[str, Any] | None = attrs.field(default=None, eq=False)

    @property
    def default_doc(self) -> str:
        if self.default is MISSING:
            return ""
        d = self.default
        if callable(d):
            d = d()
        if isinstance(d, str):
            return d
        return json.dumps(d)


class Spec:
    """A compiled object shape: fields by name, required names, defaults, a cross-field rule."""

    __slots__ = (
        "by_name",
        "defaults",
        "fields",
        "label",
        "name",
        "open",
        "post",
        "required",
        "required_set",
        "table",
        "title",
    )

    def __init__(
        self,
        label: str,
        fields: list[Field] | tuple[Field, ...],
        post: Callable[[dict[str, Any], Ctx, Any], None] | None = None,
        *,
        title: str = "",
        open: bool = False,
        name: str = "",
    ) -> None:
        self.label = label
        self.title = title or label
        # The shape's name among the generated JSON Schema definitions; ``name``
        # tells apart shapes that share a label.
        self.name = (name or label).replace(" ", "-")
        self.fields = tuple(fields)
        self.by_name = {f.name: f for f in self.fields}
        # The hot loop reads (fast type, checker) pairs rather than Field attributes.
        self.table = {f.name: (f.fast, f.check or _keep) for f in self.fields}
        self.required = tuple(f.name for f in self.fields if f.required)
        self.required_set = frozenset(self.required)
        self.defaults = tuple((f.name, f.default) for f in self.fields if f.default is not MISSING)
        self.post = post
        self.open = open


def schema_ref(name: str) -> dict[str, Any]:
    """A JSON Schema reference to the generated definition ``name`` (a shape or a union)."""
    return {"$ref": f"#/$defs/{name}"}


def spec_ref(spec: Spec) -> dict[str, Any]:
    """A JSON Schema reference to the definition generated for ``spec``."""
    return schema_ref(spec.name)


def _keep(v: Any, ctx: Ctx, parent: Any, key: Any) -> Any:
    return v


def check_list_items(v: list[Any], parent: Any, key: Any) -> None:
    """Refuse (413 ``listItems``) an array longer than one payload array may be.

    Every array of the contract without a tighter cap of its own goes through
    here before its items are checked, so an oversize one costs no item work.
    """
    if len(v) > LIMITS["listItems"]:
        raise LimitExceeded("listItems", len(v), field=format_path(parent, key))


#: The JSON Schema bound of an array that :func:`check_list_items` checks.
LIST_BOUND: dict[str, Any] = {"maxItems": LIST_ITEMS}


def _fields(spec: Spec, v: dict[Any, Any], ctx: Ctx, path: Any) -> dict[Any, Any]:
    # A value already of the field's exact type needs no check call: the common case.
    out: dict[Any, Any] = {}
    table = spec.table
    for k, x in v.items():
        entry = table.get(k)
        if entry is None:
            if spec.open:
                out[k] = x
            else:
                ctx.unknown_field(path, k, table, spec.label)
        elif type(x) is entry[0]:
            out[k] = x
        else:
            y = entry[1](x, ctx, path, k)
            if y is not BAD:
                out[k] = y
    return out


def _fill_defaults(spec: Spec, out: dict[Any, Any]) -> None:
    for name, d in spec.defaults:
        if name not in out:
            out[name] = d() if callable(d) else d


def check_object(spec: Spec, v: Any, ctx: Ctx, parent: Any, key: Any) -> Any:
    """Validate ``v`` against ``spec``; returns the normalized dict or BAD when not an object."""
    if type(v) is not dict:
        ctx.wrong_type(parent, key, "an object", v)
        return BAD
    path = (parent, key)
    out = _fields(spec, v, ctx, path)
    if spec.required_set and not spec.required_set <= v.keys():
        for name in spec.required:
            if name not in v:
                ctx.error(path, name, "missing_field", f"{spec.label} needs {name!r}")
    if spec.defaults:
        _fill_defaults(spec, out)
    if spec.post is not None:
        spec.post(out, ctx, path)
    return out


def object_check(spec: Spec) -> Check:
    """A checker for one object of shape ``spec`` (used for list items)."""

    def check(v: Any, ctx: Ctx, parent: Any, key: Any) -> Any:
        return check_object(spec, v, ctx, parent, key)

    return check


# ---------------------------------------------------------------- scalar checks


def _check_str(v: Any, ctx: Ctx, parent: Any, key: Any) -> Any:
    if type(v) is str:
        return v
    ctx.wrong_type(parent, key, "a string", v)
    return BAD


def _check_bool(v: Any, ctx: Ctx, parent: Any, key: Any) -> Any:
    if type(v) is bool:
        return v
    ctx.wrong_type(parent, key, "a boolean", v)
    return BAD


def _bad_number(v: Any, ctx: Ctx, parent: Any, key: Any) -> None:
    if type(v) is float:
        ctx.error(parent, key, "not_finite", "numbers must be finite")
    else:
        ctx.error(parent, key, "out_of_range", "integers must fit in 64 bits")


def is_number(v: Any) -> bool:
    """True for finite JSON numbers (booleans excluded)."""
    t = type(v)
    if t is int:
        return -INT_LIMIT <= v <= INT_LIMIT
    return t is float and _isfinite(v)


def numbers_ok(v: list[Any]) -> bool:
    """True when every item of the list is a finite number."""
    ts = set(map(type, v))
    if not ts <= _NUM_TYPES:
        return False
    if int in ts and v and (min(v) < -INT_LIMIT or max(v) > INT_LIMIT):
        return False
    if float in ts:
        try:
            return _isfinite(_fsum(v))
        except OverflowError:
            return all(type(x) is int or _isfinite(x) for x in v)
    return True


def number_check(
    *,
    minimum: float | None = None,
    maximum: float | None = None,
    positive: bool = False,
    integer: bool = False,
) -> Check:
    """A checker for a finite number within the given bounds."""

    def check(v: Any, ctx: Ctx, parent: Any, key: Any) -> Any:
        t = type(v)
        if t is not int and (integer or t is not float):
            ctx.wrong_type(parent, key, "an integer" if integer else "a number", v)
            return BAD
        if t is float and not _isfinite(v):
            ctx.error(parent, key, "not_finite", "numbers must be finite")
            return BAD
        if t is int and not -INT_LIMIT <= v <= INT_LIMIT:
            ctx.error(parent, key, "out_of_range", "integers must fit in 64 bits")
            return BAD
        if positive and not v > 0:
            ctx.error(parent, key, "out_of_range", f"must be positive, got {show(v)}")
            return BAD
        if minimum is not None and v < minimum:
            ctx.error(parent, key, "out_of_range", f"must be at least {minimum}, got {show(v)}")
            return BAD
        if maximum is not None and v > maximum:
            ctx.error(parent, key, "out_of_range", f"must be at most {maximum}, got {show(v)}")
            return BAD
        return v

    return check


_check_number = number_check()


def enum_check(choices: tuple[str, ...], what: str = "value") -> Check:
    """A checker for a closed vocabulary; an unknown value is an error with a suggestion."""
    allowed = frozenset(choices)
    listed = ", ".join(choices)

    def check(v: Any, ctx: Ctx, parent: Any, key: Any) -> Any:
        if type(v) is str and v in allowed:
            return v
        if type(v) is not str:
            ctx.wrong_type(parent, key, f"one of {listed}", v)
            return BAD
        ctx.error(
            parent,
            key,
            "unknown_value",
            f"{show(v)} is not allowed for {what}; use one of {listed}",
            ctx.suggest(v, choices),
        )
        return BAD

    return check


def open_enum_check(choices: tuple[str, ...], fallback: str, what: str) -> Check:
    """A checker for an open vocabulary: unknown values fall back with a warning and a fix."""
    allowed = frozenset(choices)

    def check(v: Any, ctx: Ctx, parent: Any, key: Any) -> Any:
        if type(v) is str and v in allowed:
            return v
        fix = ctx.suggest(v, choices)
        ctx.warn(
            parent,
            key,
            "unknown_vocabulary",
            f"{show(v)} is not a known {what}; drawn as {fallback!r}",
            fix or f"use one of {', '.join(choices)}",
        )
        return fallback

    return check


def _check_finite(v: Any, ctx: Ctx, parent: Any, key: Any) -> Any:
    if is_number(v):
        return v
    ctx.wrong_type(parent, key, "a finite number", v)
    return BAD


def _all_str(v: list[Any]) -> bool:
    return set(map(type, v)) <= _STR_TYPES


def _check_str_or_strings(v: Any, ctx: Ctx, parent: Any, key: Any) -> Any:
    if type(v) is str:
        return v
    if type(v) is list:
        return _check_strings(v, ctx, parent, key)
    ctx.wrong_type(parent, key, "a string or an array of strings", v)
    return BAD


def _check_scalar(v: Any, ctx: Ctx, parent: Any, key: Any) -> Any:
    t = type(v)
    if t is str or t is bool or v is None:
        return v
    if t is float or t is int:
        if is_number(v):
            return v
        _bad_number(v, ctx, parent, key)
        return BAD
    ctx.wrong_type(parent, key, "a string, number, boolean or null", v)
    return BAD


def _check_str_or_number(v: Any, ctx: Ctx, parent: Any, key: Any) -> Any:
    if type(v) is str or is_number(v):
        return v
    ctx.wrong_type(parent, key, "a string or a number", v)
    return BAD


def _check_card_id(v: Any, ctx: Ctx, parent: Any, key: Any) -> Any:
    if type(v) is int and v > 0:
        return v
    if type(v) is int:
        ctx.error(parent, key, "out_of_range", "card ids are positive integers")
        return BAD
    ctx.wrong_type(parent, key, "a card id (positive integer)", v)
    return BAD


def _array_head(
    v: Any, what: str, min_items: int, max_items: int | None, ctx: Ctx, parent: Any, key: Any
) -> bool:
    """False (reported) when ``v`` is no array; otherwise its length is checked."""
    if type(v) is not list:
        ctx.wrong_type(parent, key, f"an array of {what}", v)
        return False
    n = len(v)
    if max_items is None:
        check_list_items(v, parent, key)
    if n < min_items:
        ctx.error(parent, key, "too_few", f"needs at least {min_items} entries, got {n}")
    elif max_items is not None and n > max_items:
        ctx.error(parent, key, "too_many", f"takes at most {max_items} entries, got {n}")
    return True


def list_check(
    item: Check,
    what: str,
    *,
    min_items: int = 0,
    max_items: int | None = None,
    all_ok: Callable[[list[Any]], bool] | None = None,
) -> Check:
    """A checker for an array whose items go through ``item``; bad items are dropped.

    ``all_ok`` says cheaply that every item passes, so a clean array is copied
    without a call per item."""

    def check(v: Any, ctx: Ctx, parent: Any, key: Any) -> Any:
        if not _array_head(v, what, min_items, max_items, ctx, parent, key):
            return BAD
        if all_ok is not None and all_ok(v):
            return v[:]
        path = (parent, key)
        out = []
        for i, x in enumerate(v):
            y = item(x, ctx, path, i)
            if y is not BAD:
                out.append(y)
        return out

    return check


def objects_check(spec: Spec, *, min_items: int = 0, max_items: int | None = None) -> Check:
    """A checker for an array of objects of shape ``spec`` (one call level less per item)."""
    what = spec.title

    def check(v: Any, ctx: Ctx, parent: Any, key: Any) -> Any:
        if not _array_head(v, what, min_items, max_items, ctx, parent, key):
            return BAD
        path = (parent, key)
        out = []
        for i, x in enumerate(v):
            y = check_object(spec, x, ctx, path, i)
            if y is not BAD:
                out.append(y)
        return out

    return check


_check_strings = list_check(_check_str, "strings", all_ok=_all_str)
_check_numbers = list_check(_check_finite, "numbers", all_ok=numbers_ok)


def map_check(value: Check, what: str) -> Check:
    """A checker for an object used as a map of string keys to values checked by ``value``."""

    def check(v: Any, ctx: Ctx, parent: Any, key: Any) -> Any:
        if type(v) is not dict:
            ctx.wrong_type(parent, key, f"an object mapping names to {what}", v)
            return BAD
        path = (parent, key)
        out = {}
        for k, x in v.items():
            if type(k) is not str:
                ctx.wrong_type(path, None, "string keys", k)
                continue
            y = value(x, ctx, path, k)
            if y is not BAD:
                out[k] = y
        return out

    return check


def _plain_json(v: Any, ctx: Ctx, parent: Any, key: Any) -> Any:
    t = type(v)
    if t is str or t is bool or v is None or ((t is int or t is float) and is_number(v)):
        return v
    try:
        json.dumps(v, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        ctx.warn(parent, key, "not_plain_json", "this value is not plain JSON; it is dropped")
        return BAD
    return v


# ---------------------------------------------------------------- field constructors

SCALAR_SCHEMA: dict[str, Any] = {"type": ["string", "number", "boolean", "null"]}
STR_OR_NUMBER_SCHEMA: dict[str, Any] = {"type": ["string", "number"]}
CARD_ID_SCHEMA: dict[str, Any] = {"type": "integer", "minimum": 1}


_STRING = {"type": "string"}
_NUMBER = {"type": "number"}


def string(name: str, notes: str = "", *, required: bool = False, default: Any = MISSING) -> Field:
    return Field(name, "string", _check_str, required, default, notes, fast=str, schema=_STRING)


_ENTITY = re.compile(r"&(#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")


def _check_markdown(v: Any, ctx: Ctx, parent: Any, key: Any) -> Any:
    if type(v) is not str:
        ctx.wrong_type(parent, key, "a string", v)
        return BAD
    # Parsing and sizing markdown is linear but not cheap: one text is bounded.
    check_limit("markdownChars", len(v), field=format_path(parent, key))
    # Markdown fields take characters as they are; an entity would show literally.
    if "&" in v:
        m = _ENTITY.search(v)
        if m is not None:
            ctx.warn(
                parent,
                key,
                "html_entity",
                f"{m.group(0)} is written as an HTML entity; markdown fields take the "
                "character itself",
                "type the character directly",
            )
    return v


def text_block(name: str, notes: str = "", *, required: bool = False) -> Field:
    """A string holding inline markup or markdown; HTML entities in it warn."""
    return Field(
        name,
        "string (markdown)",
        _check_markdown,
        required,
        MISSING,
        notes,
        schema={"type": "string", "contentMediaType": "text/markdown"},
    )


def timestamp(name: str, notes: str = "", *, required: bool = False) -> Field:
    # parse_time reads the date at fixed offsets; the pattern states just that much.
    schema = {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}"}
    return Field(
        name, "string (RFC 3339)", _check_timestamp, required, MISSING, notes, schema=schema
    )


def number(
    name: str,
    notes: str = "",
    *,
    required: bool = False,
    default: Any = MISSING,
    minimum: float | None = None,
    maximum: float | None = None,
    positive: bool = False,
    integer: bool = False,
) -> Field:
    plain = minimum is None and maximum is None and not positive
    check = (
        _check_number
        if plain and not integer
        else number_check(minimum=minimum, maximum=maximum, positive=positive, integer=integer)
    )
    typ = "integer" if integer else "number"
    if positive:
        typ += " > 0"
    elif minimum is not None and maximum is not None:
        typ += f" {minimum:g}..{maximum:g}"
    elif minimum is not None:
        typ += f" >= {minimum:g}"
    schema: dict[str, Any] = {"type": "integer" if integer else "number"}
    if positive:
        schema["exclusiveMinimum"] = 0
    if minimum is not None:
        schema["minimum"] = minimum
    if maximum is not None:
        schema["maximum"] = maximum
    return Field(name, typ, check, required, default, notes, schema=schema)


def boolean(name: str, notes: str = "", *, required: bool = False, default: Any = MISSING) -> Field:
    return Field(
        name,
        "boolean",
        _check_bool,
        required,
        default,
        notes,
        fast=bool,
        schema={"type": "boolean"},
    )


def enum(
    name: str,
    choices: tuple[str, ...],
    notes: str = "",
    *,
    required: bool = False,
    default: Any = MISSING,
) -> Field:
    return Field(
        name,
        "one of " + ", ".join(choices),
        enum_check(choices, name),
        required,
        default,
        notes,
        schema={"enum": list(choices)},
    )


def open_enum(name: str, choices: tuple[str, ...], fallback: str, notes: str = "") -> Field:
    return Field(
        name,
        f"open vocabulary ({', '.join(choices)})",
        open_enum_check(choices, fallback, name),
        notes=notes + (" " if notes else "") + f"Unknown values fall back to {fallback!r}.",
        # Any value is accepted (with a warning), so the known ones are examples, not an enum.
        schema={"examples": list(choices)},
    )


def strings(name: str, notes: str = "", *, required: bool = False) -> Field:
    return Field(
        name,
        "array of string",
        _check_strings,
        required,
        MISSING,
        notes,
        schema={"type": "array", "items": _STRING, **LIST_BOUND},
    )


def numbers(name: str, notes: str = "", *, required: bool = False) -> Field:
    return Field(
        name,
        "array of number",
        _check_numbers,
        required,
        MISSING,
        notes,
        schema={"type": "array", "items": _NUMBER, **LIST_BOUND},
    )


def str_or_strings(name: str, notes: str = "") -> Field:
    return Field(
        name,
        "string or array of string",
        _check_str_or_strings,
        notes=notes,
        fast=str,
        schema={"type": ["string", "array"], "items": _STRING, **LIST_BOUND},
    )


def scalar(name: str, notes: str = "", *, required: bool = False) -> Field:
    return Field(
        name,
        "string, number, boolean or null",
        _check_scalar,
        required,
        MISSING,
        notes,
        schema=SCALAR_SCHEMA,
    )


def str_or_number(name: str, notes: str = "", *, required: bool = False) -> Field:
    return Field(
        name,
        "string or number",
        _check_str_or_number,
        required,
        MISSING,
        notes,
        fast=str,
        schema=STR_OR_NUMBER_SCHEMA,
    )


def card_id(name: str, notes: str = "", *, required: bool = False) -> Field:
    return Field(
        name, "card id (integer)", _check_card_id, required, MISSING, notes, schema=CARD_ID_SCHEMA
    )


def obj(name: str, spec: Spec, notes: str = "", *, required: bool = False) -> Field:
    return Field(
        name,
        f"object ({spec.title})",
        object_check(spec),
        required,
        MISSING,
        notes,
        members=spec,
        schema=spec_ref(spec),
    )


def objects(
    name: str,
    spec: Spec,
    notes: str = "",
    *,
    required: bool = False,
    min_items: int = 0,
    max_items: int | None = None,
) -> Field:
    what = spec.title
    typ = f"array of {what}"
    schema: dict[str, Any] = {"type": "array", "items": spec_ref(spec)}
    if min_items or max_items is not None:
        typ += f" ({min_items}..{max_items if max_items is not None else ''})"
    # Too few or too many entries is an error in the contract, so the bounds hold here too.
    if min_items:
        schema["minItems"] = min_items
    schema["maxItems"] = max_items if max_items is not None else LIST_ITEMS
    return Field(
        name,
        typ,
        objects_check(spec, min_items=min_items, max_items=max_items),
        required,
        MISSING,
        notes,
        members=spec,
        schema=schema,
    )


def custom(
    name: str,
    typ: str,
    check: Check,
    notes: str = "",
    *,
    schema: dict[str, Any],
    required: bool = False,
    default: Any = MISSING,
    fast: type | None = None,
    members: Spec | None = None,
) -> Field:
    """A field with its own checker; ``schema`` describes the values it accepts.

    ``members`` names the shape ``schema`` refers to, so the schema generator
    reaches it.
    """
    return Field(
        name, typ, check, required, default, notes, fast=fast, members=members, schema=schema
    )


def anything(name: str, typ: str, notes: str = "") -> Field:
    """A field kept as sent (opaque to validation, but it must be plain JSON)."""
    return Field(name, typ, _plain_json, notes=notes, schema={})


def server_owned(name: str, typ: str = "object", notes: str = "", *, editor: bool = False) -> Field:
    """A field the server writes: accepted as read back, passed through, rewritten on write.

    In an authored value (``Ctx.authored``) it is dropped with a ``server_owned``
    warning, wherever it is nested: this is the one place that rule lives.
    ``editor`` marks the fields the editor writes (a page's mirror, a diagram's
    human overrides), which its own write path (``Ctx.editor``) may set.
    """

    def check(v: Any, ctx: Ctx, parent: Any, key: Any) -> Any:
        if ctx.authored and not (editor and ctx.editor):
            ctx.warn(
                parent,
                key,
                "server_owned",
                f"{key} is written by the server; the value sent is ignored",
                f"leave {key} out",
            )
            return BAD
        return _plain_json(v, ctx, parent, key)

    # Any plain JSON is taken back as sent, so the schema marks the field read-only
    # rather than demanding the type the server writes.
    return Field(
        name,
        typ,
        check,
        notes=(notes + " " if notes else "") + "Server-owned.",
        server=True,
        schema={"readOnly": True},
    )


# ---------------------------------------------------------------- timestamps

_DIGITS = frozenset("0123456789")


def _check_timestamp(v: Any, ctx: Ctx, parent: Any, key: Any) -> Any:
    if type(v) is not str:
        ctx.wrong_type(parent, key, "an RFC 3339 time string", v)
        return BAD
    if parse_time(v) is None:
        ctx.error(
            parent,
            key,
            "bad_timestamp",
            f"{show(v)} is not an RFC 3339 date or time",
            "write it like 2024-05-01 or 2024-05-01T12:00:00Z",
        )
        return BAD
    return v


def parse_time(v: str) -> tuple[int, int, int] | None:
    """Parse an RFC 3339 full-date or date-time; returns (year, month, day) or None."""
    import datetime as _dt

    if len(v) < 10 or v[4] != "-" or v[7] != "-":
        return None
    try:
        if len(v) == 10:
            d = _dt.date.fromisoformat(v)
            return (d.year, d.month, d.day)
        if v[10] not in "Tt ":
            return None
        stamp = v[:-1] + "+00:00" if v[-1] in "Zz" else v
        t = _dt.datetime.fromisoformat(stamp)
    except ValueError:
        return None
    return (t.year, t.month, t.day)
