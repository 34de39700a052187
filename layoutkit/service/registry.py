"""The one operation registry: name -> description, params schema, handler.

Every adapter (MCP tools, the HTTP API and its OpenAPI document, the CLI's
generic ``call``) is generated from this table, so they cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import attrs
from jsonschema import Draft202012Validator

from layoutkit.errors import ServiceError, did_you_mean

if TYPE_CHECKING:
    from layoutkit.service.workspace import Call

Handler = Callable[["Call"], dict[str, Any]]


@attrs.frozen(slots=True)
class Operation:
    """One operation: ``params_schema`` is what hosts are shown, ``validator`` what is checked.

    The two differ where the handler checks a part itself and answers better
    than a schema error would (an unknown kind with the allowed kinds, a card
    payload with the contract's findings); ``variants`` are the per-kind
    schemas of a verb that dispatches on ``kind``.
    """

    name: str
    description: str
    params_schema: dict[str, Any]
    handler: Handler
    validator: Draft202012Validator = attrs.field(eq=False, repr=False)
    variants: tuple[dict[str, Any], ...] = attrs.field(default=(), eq=False, repr=False)

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
        errors = sorted(self.validator.iter_errors(params), key=lambda e: list(e.absolute_path))
        if errors:
            findings = [{"path": _path(e), "message": e.message} for e in errors[:20]]
            first = findings[0]
            where = first["path"] or "params"
            raise ServiceError(
                400,
                "invalid_params",
                f"{self.name}: {where}: {first['message']}",
                field=first["path"],
                findings=findings,
            )
        return params


def _path(error: Any) -> str:
    out = ""
    for part in error.absolute_path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    if error.validator == "required" and isinstance(error.instance, dict):
        missing = next((r for r in error.validator_value if r not in error.instance), None)
        if missing is not None:
            out = f"{out}.{missing}" if out else missing
    elif error.validator == "additionalProperties" and isinstance(error.instance, dict):
        allowed = set(error.schema.get("properties", {}))
        extra = next((k for k in error.instance if k not in allowed), None)
        if extra is not None:
            out = f"{out}.{extra}" if out else extra
    return out


class Registry:
    """Operations by name, in registration order."""

    def __init__(self) -> None:
        self._ops: dict[str, Operation] = {}

    def operation(
        self,
        name: str,
        description: str,
        params_schema: dict[str, Any],
        *,
        shown: dict[str, Any] | None = None,
        variants: tuple[dict[str, Any], ...] = (),
    ) -> Callable[[Handler], Handler]:
        """Decorator registering ``handler`` as operation ``name``.

        Params are checked against ``params_schema``. ``shown``, when given, is
        what hosts see instead: the same params with the parts the handler
        checks itself spelled out. It must accept every call the check and the
        handler accept, and it keeps ``oneOf``/``anyOf`` off its top level, which
        several tool hosts refuse.
        """
        schema = {"type": "object", **params_schema}
        Draft202012Validator.check_schema(schema)
        advertised = schema if shown is None else {"type": "object", **shown}
        Draft202012Validator.check_schema(advertised)
        for variant in variants:
            Draft202012Validator.check_schema(variant)

        def register(handler: Handler) -> Handler:
            if name in self._ops:
                raise ValueError(f"operation {name!r} registered twice")
            self._ops[name] = Operation(
                name, description, advertised, handler, Draft202012Validator(schema), variants
            )
            return handler

        return register

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

    def __iter__(self) -> Iterator[Operation]:
        return iter(self._ops.values())


REGISTRY = Registry()
