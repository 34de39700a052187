"""The one operation registry: name -> description, params schema, needs, handler.

Every adapter (MCP tools, the HTTP API and its OpenAPI document, the CLI's
generic ``call``) is generated from this table, so they cannot drift apart.
An operation also declares what the road must do before its handler runs
(which param names its board, whether it writes, who may call it); the road
itself is ``Workspace.call``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Literal

import attrs
import jsonschema_rs
from jsonschema import Draft202012Validator, ValidationError, validators

from layoutkit.errors import SHOW_CHARS, EngineError, ServiceError, did_you_mean, show
from layoutkit.limits import check_json_value
from layoutkit.principal import PrincipalKind, Role
from layoutkit.service.road.errors import to_service_error
from layoutkit.service.road.expected import params_guidance
from layoutkit.service.road.ids import TaskIdPath, task_id_paths

if TYPE_CHECKING:
    from layoutkit.service.road.workspace import Call
    from layoutkit.storage import BoardRecord, Tx

Handler = Callable[["Call"], dict[str, Any]]
#: Work done before the transaction opens (validation, layout of diagrams,
#: decoding files): its result reaches the handler as ``call.prepared``.
Prepare = Callable[["Call"], Any]
#: Reads what ``prepare`` needs from storage, in a short read transaction of its
#: own before ``prepare`` runs; its result reaches both as ``call.snapshot``. It
#: runs before access checks, so it only reads: refusals belong to the handler.
Snapshot = Callable[["Tx", "Call"], Any]
#: Whether a call's checked params need its snapshot at all: without one the road
#: opens no read transaction (a compose names no component of the workspace).
SnapshotWhen = Callable[[dict[str, Any]], bool]
#: CPU work on what a read-only handler read, run after its transaction has
#: closed, so the connection is back in the pool while the CPU works (drawing).
Finish = Callable[["Call", dict[str, Any]], dict[str, Any]]
#: Finds the board of an operation whose params name it indirectly (by card id).
BoardResolver = Callable[["Tx", "Call"], "BoardRecord"]
ShareMode = Literal["view", "annotate"]
#: Who may call an operation unless it says otherwise; share links are admitted by mode.
ALL_PRINCIPALS: frozenset[PrincipalKind] = frozenset({"owner", "user", "agent", "service"})
PEOPLE: tuple[PrincipalKind, ...] = ("owner", "user")

#: Longest message of a params finding: jsonschema's messages quote the value, and
#: a value sent by a caller can be megabytes long.
MESSAGE_CHARS = 200


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _over_cap(instance: Any, schema: dict[str, Any]) -> bool:
    cap = schema.get("maxItems")
    return isinstance(instance, list) and isinstance(cap, int) and len(instance) > cap


_ITEMS = Draft202012Validator.VALIDATORS["items"]


def _items(validator: Any, items: Any, instance: Any, schema: dict[str, Any]) -> Iterator[Any]:
    # An array over its cap is refused by maxItems alone: checking each of its
    # items would be the very work the cap exists to bound.
    if not _over_cap(instance, schema):
        yield from _ITEMS(validator, items, instance, schema)


def _max_items(validator: Any, cap: int, instance: Any, schema: dict[str, Any]) -> Iterator[Any]:
    if isinstance(instance, list) and len(instance) > cap:
        yield ValidationError(f"{len(instance)} items; at most {cap}")


def _min_items(validator: Any, least: int, instance: Any, schema: dict[str, Any]) -> Iterator[Any]:
    if isinstance(instance, list) and len(instance) < least:
        yield ValidationError(f"{len(instance)} items; at least {least}")


def _max_length(validator: Any, cap: int, instance: Any, schema: dict[str, Any]) -> Iterator[Any]:
    if isinstance(instance, str) and len(instance) > cap:
        yield ValidationError(f"{len(instance)} characters; at most {cap}")


def _same_key(value: Any) -> Any:
    """A hashable key under which two JSON values are equal as JSON Schema compares
    them (1 and 1.0 alike, true and 1 not, objects whatever their key order)."""
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, list):
        return ("list", tuple(_same_key(v) for v in value))
    if isinstance(value, dict):
        return ("dict", frozenset((k, _same_key(v)) for k, v in value.items()))
    return ("value", value)


def _unique_items(
    validator: Any, unique: bool, instance: Any, schema: dict[str, Any]
) -> Iterator[Any]:
    if not unique or not isinstance(instance, list) or _over_cap(instance, schema):
        return
    first: dict[Any, int] = {}
    for i, item in enumerate(instance):
        seen = first.setdefault(_same_key(item), i)
        if seen != i:
            # The finding points at the repeat, so its path names the entry to drop.
            yield ValidationError(f"{_shown(item)} repeats item {seen}", path=[i], instance=item)
            return


#: JSON Schema counts 1.0 as an integer; handlers use integers as ids, counts and
#: slice bounds, so a params check takes only real integers (floats answer 400).
#: The size keywords answer with counts instead of quoting the value back.
ParamsValidator = validators.extend(
    Draft202012Validator,
    validators={
        "items": _items,
        "maxItems": _max_items,
        "minItems": _min_items,
        "maxLength": _max_length,
        "uniqueItems": _unique_items,
    },
    type_checker=Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda _, value: isinstance(value, int) and not isinstance(value, bool)
    ),
)

#: The result-shape rule for pictures: a result whose ``image`` field is ``{"mime":
#: "image/...", "data": <base64>}`` carries one picture. Adapters that can show pictures
#: show it as one (MCP image content) and send the rest of the result as usual; a
#: ``text`` string beside it (a sheet's text block) is shown as text of its own.
IMAGE_FIELD = "image"
TEXT_FIELD = "text"
#: Further pictures of a result (a board's tiles), each shaped like :data:`IMAGE_FIELD`.
TILES_FIELD = "tiles"


def _is_picture(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("mime"), str)
        and value["mime"].startswith("image/")
        and isinstance(value.get("data"), str)
    )


def split_image(
    result: dict[str, Any],
) -> tuple[list[dict[str, Any]], str | None, dict[str, Any]]:
    """``(pictures, text, rest)`` of a result that carries a picture under
    :data:`IMAGE_FIELD` (and perhaps more under :data:`TILES_FIELD`): ``rest`` is the
    result without the text block and without the pictures' data (the rest of each
    picture's fields stay). ``([], None, result)`` for any other result."""
    image = result.get(IMAGE_FIELD)
    if not _is_picture(image):
        return [], None, result
    text = result.get(TEXT_FIELD)
    text = text if isinstance(text, str) else None
    rest = {
        k: v
        for k, v in result.items()
        if k != IMAGE_FIELD and not (k == TEXT_FIELD and text is not None)
    }
    rest[IMAGE_FIELD] = {k: v for k, v in image.items() if k != "data"}
    found = [image]
    tiles = result.get(TILES_FIELD)
    if isinstance(tiles, list) and all(_is_picture(t) for t in tiles):
        found += tiles
        rest[TILES_FIELD] = [{k: v for k, v in t.items() if k != "data"} for t in tiles]
    return found, text, rest


REQUEST_KEY: dict[str, Any] = {
    "type": "string",
    "minLength": 1,
    "maxLength": 200,
    "description": "idempotency key: an unchanged retry returns the first receipt",
}


#: Each params validator with its schema compiled by jsonschema-rs, by id (validators
#: are unhashable); each is held, so its id cannot pass to another.
_COMPILED: dict[int, tuple[Any, Any]] = {}


def _compiled(validator: Any) -> Any:
    """``validator``'s schema as jsonschema-rs checks it: the door every call passes,
    where checking a compose of ten cards in Python cost a twentieth of the call.
    Made once per validator, after the schema passes the meta-check (raises
    :class:`jsonschema.SchemaError` when it is not sound JSON Schema).

    Only its yes is taken. It reads the same schema by the same draft with the
    same keywords, but it counts ``2.0`` as an integer (the caller asks only for
    values without such floats) and its patterns' ``$`` does not match before a
    final newline as Python's does: a no, and any value it may judge otherwise,
    goes to ``validator``, which says what is wrong in this project's words.
    """
    found = _COMPILED.get(id(validator))
    if found is None or found[0] is not validator:
        Draft202012Validator.check_schema(validator.schema)
        found = (validator, jsonschema_rs.Draft202012Validator(validator.schema))
        _COMPILED[id(validator)] = found
    return found[1]


@attrs.frozen(slots=True)
class Operation:
    """One operation: its public description, its params schema and what it needs.

    ``params_schema`` is what hosts are shown, ``validator`` what is checked.
    The two differ where the handler checks a part itself and answers better
    than a schema error would (an unknown kind with the allowed kinds, a card
    payload with the contract's findings); ``variants`` are the per-kind
    schemas of a verb that dispatches on ``kind``.

    ``board`` names the param that holds the board's slug (a tuple lists
    aliases, first match wins), or is a resolver for boards named through a
    card or question id. ``writes`` opens a write transaction (and locks the
    board); ``idempotent`` honours ``requestKey`` (every write does by
    default). ``share`` lists the share-link modes that may call it;
    ``principals`` lists the other principal kinds that may call it (people
    only: owner and user); ``pure`` operations run without a transaction.
    """

    name: str
    description: str
    params_schema: dict[str, Any]
    handler: Handler
    validator: Draft202012Validator = attrs.field(eq=False, repr=False)
    board: str | tuple[str, ...] | BoardResolver | None = attrs.field(default=None, eq=False)
    writes: bool = False
    idempotent: bool = False
    share: frozenset[ShareMode] = frozenset()
    principals: frozenset[PrincipalKind] = ALL_PRINCIPALS
    prepare: Prepare | None = attrs.field(default=None, eq=False)
    snapshot: Snapshot | None = attrs.field(default=None, eq=False)
    snapshot_when: SnapshotWhen | None = attrs.field(default=None, eq=False)
    finish: Finish | None = attrs.field(default=None, eq=False)
    #: Touches no storage (validate, docs): the road opens no transaction.
    pure: bool = False
    #: Generic verbs dispatch on ``kind`` to one of these; the road then runs
    #: with the kind's own declarations.
    kinds: dict[str, Operation] | None = attrs.field(default=None, eq=False, repr=False)
    variants: tuple[dict[str, Any], ...] = attrs.field(default=(), eq=False, repr=False)
    #: Offered to agents as an MCP tool. A route of the board UI for people (the
    #: verdict on agents' findings) is an operation, so HTTP and the CLI reach it
    #: through the one road, but no tool: agents are never handed it.
    tool: bool = True
    #: Where the params hold task ids (found in the checked schema when the operation
    #: is declared): the road reads them to place the call in its workspace.
    task_ids: tuple[TaskIdPath, ...] = ()
    #: The least role the caller needs in the workspace the call works in; the road
    #: checks it beside ``principals`` (a role never widens what a kind may call).
    role: Role = "member"
    #: The toolset an agent selects to be offered this tool, where the family the
    #: handler lives in is the wrong grouping (see ``road/toolsets.py``).
    toolset: str | None = None
    #: A human title for hosts; derived from the name when not given.
    title: str | None = None
    #: Deletes, revokes or overwrites what cannot simply be sent again (hints a
    #: host to confirm first); a ``remove`` param says so by itself.
    destroys: bool = False
    #: Reaches past the deployment: fetches URLs (link unfurls) or asks an AI model.
    fetches: bool = False
    #: A pure operation that writes through transactions of its own (``writes``
    #: is False for it because the road opens none).
    changes: bool = False
    #: The JSON Schema of a result as the MCP adapter sends it as structured content
    #: (pictures' bytes split off, see :func:`split_image`); None: no declared shape.
    output: dict[str, Any] | None = attrs.field(default=None, eq=False, repr=False)
    #: Params only people (the human layer) may send: the road answers an agent or
    #: service that sends one 403 ``people_only`` (compose_board's ``at``, a card put
    #: where a person's pointer is).
    people_params: frozenset[str] = frozenset()

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "params_schema": self.params_schema,
        }

    def check_params(self, params: Any) -> dict[str, Any]:
        """Return ``params`` if they fit the schema, else raise 400 invalid_params."""
        if not isinstance(params, dict):
            raise ServiceError(
                400,
                "invalid_params",
                f"params of {self.name} must be a JSON object",
                field="",
            )
        try:
            # Every adapter and embedder reaches an operation through here, so this is
            # the one door that keeps NaN, overflowing integers, lone surrogates and
            # runaway nesting out of handlers and storage.
            whole_floats = check_json_value(params)
        except EngineError as err:
            raise to_service_error(err) from err
        fast = _compiled(self.validator)
        if not whole_floats and fast.is_valid(params):
            return params
        errors = sorted(self.validator.iter_errors(params), key=lambda e: list(e.absolute_path))
        if errors:
            findings = [{"path": _path(e), "message": _message(e)} for e in errors[:20]]
            first = findings[0]
            where = first["path"] or "params"
            raise ServiceError(
                400,
                "invalid_params",
                f"{self.name}: {where}: {first['message']}",
                field=first["path"],
                findings=findings,
                **params_guidance(self.name, errors[0], first["path"]),
            )
        return params


def _message(error: Any) -> str:
    if error.validator == "anyOf" and all(
        set(sub) == {"required"} for sub in error.validator_value
    ):
        names = [sub["required"][0] for sub in error.validator_value]
        return f"send one of {', '.join(repr(n) for n in names)}"
    message = str(error.message)
    # jsonschema quotes the whole bad value: a 4,001-character summary or 202 ids
    # read as their start and their length instead
    whole = repr(error.instance)
    if len(whole) > SHOW_CHARS and whole in message:
        message = message.replace(whole, show(error.instance))
    return message if len(message) <= MESSAGE_CHARS else message[: MESSAGE_CHARS - 3] + "..."


def _path(error: Any) -> str:
    out = ""
    for part in error.absolute_path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    if error.validator == "anyOf" and all(
        set(sub) == {"required"} for sub in error.validator_value
    ):
        # One of several aliases is required: name the first as the field to send.
        missing = error.validator_value[0]["required"][0]
        out = f"{out}.{missing}" if out else missing
    elif error.validator == "required" and isinstance(error.instance, dict):
        missing = next((r for r in error.validator_value if r not in error.instance), None)
        if missing is not None:
            out = f"{out}.{missing}" if out else missing
    elif error.validator == "additionalProperties" and isinstance(error.instance, dict):
        allowed = set(error.schema.get("properties", {}))
        extra = next((k for k in error.instance if k not in allowed), None)
        if extra is not None:
            out = f"{out}.{extra}" if out else extra
    return out


def declare(
    name: str,
    description: str,
    params_schema: dict[str, Any],
    handler: Handler,
    *,
    board: str | tuple[str, ...] | BoardResolver | None = None,
    writes: bool = False,
    idempotent: bool | None = None,
    share: tuple[ShareMode, ...] = (),
    principals: tuple[PrincipalKind, ...] = tuple(ALL_PRINCIPALS),
    prepare: Prepare | None = None,
    snapshot: Snapshot | None = None,
    snapshot_when: SnapshotWhen | None = None,
    finish: Finish | None = None,
    pure: bool = False,
    shown: dict[str, Any] | None = None,
    variants: tuple[dict[str, Any], ...] = (),
    tool: bool = True,
    role: Role = "member",
    toolset: str | None = None,
    title: str | None = None,
    destroys: bool = False,
    fetches: bool = False,
    changes: bool = False,
    output: dict[str, Any] | None = None,
    people_params: tuple[str, ...] = (),
) -> Operation:
    """Build an :class:`Operation`; a writing one takes ``requestKey`` unless told not to.

    Params are checked against ``params_schema``. ``shown``, when given, is what
    hosts see instead: the same params with the parts the handler checks itself
    spelled out. It must accept every call the check and the handler accept,
    and it keeps ``oneOf``/``anyOf`` off its top level, which several tool hosts
    refuse. ``output`` is the shape of the result an agent reads (see
    :attr:`Operation.output`).
    """
    keyed = writes if idempotent is None else idempotent
    if finish is not None and writes:
        # A write's receipt is recorded for replay inside its transaction.
        raise ValueError(f"{name}: only a read-only operation may finish after its transaction")

    def with_key(declared: dict[str, Any]) -> dict[str, Any]:
        schema = {"type": "object", **declared}
        if keyed:
            schema["properties"] = {**schema.get("properties", {}), "requestKey": REQUEST_KEY}
        return schema

    checked = with_key(params_schema)
    # Meta-checking every schema here cost most of a second of every start (a
    # shown schema can carry the whole contract): the checked schema is
    # meta-checked before it first checks params (Operation.check_params), and
    # the registry test meta-checks every schema of every operation.
    advertised = checked if shown is None else with_key(shown)
    return Operation(
        name,
        description,
        advertised,
        handler,
        ParamsValidator(checked),
        variants=variants,
        board=board,
        writes=writes,
        idempotent=keyed,
        share=frozenset(share),
        principals=frozenset(principals),
        prepare=prepare,
        snapshot=snapshot,
        snapshot_when=snapshot_when,
        finish=finish,
        pure=pure,
        tool=tool,
        task_ids=task_id_paths(checked),
        role=role,
        toolset=toolset,
        title=title,
        destroys=destroys,
        fetches=fetches,
        changes=changes,
        output=output,
        people_params=frozenset(people_params),
    )


class Registry:
    """Operations by name, in registration order."""

    def __init__(self) -> None:
        self._ops: dict[str, Operation] = {}

    def operation(
        self, name: str, description: str, params_schema: dict[str, Any], **needs: Any
    ) -> Callable[[Handler], Handler]:
        """Decorator registering ``handler`` as operation ``name``; ``needs`` are
        :func:`declare`'s keywords (board, writes, share, prepare, ...)."""

        def register(handler: Handler) -> Handler:
            self.add(declare(name, description, params_schema, handler, **needs))
            return handler

        return register

    def add(self, op: Operation) -> None:
        if op.name in self._ops:
            raise ValueError(f"operation {op.name!r} registered twice")
        self._ops[op.name] = op

    def get(self, name: str) -> Operation:
        op = self._ops.get(name)
        if op is None:
            raise ServiceError(
                404,
                "unknown_operation",
                f"no operation named {name!r}",
                didYouMean=did_you_mean(name, self._ops),
            )
        return op

    def names(self) -> list[str]:
        return list(self._ops)

    def tools(self) -> list[Operation]:
        """The operations offered as MCP tools (every one but the board UI's routes)."""
        return [op for op in self._ops.values() if op.tool]

    def __iter__(self) -> Iterator[Operation]:
        return iter(self._ops.values())


REGISTRY = Registry()
