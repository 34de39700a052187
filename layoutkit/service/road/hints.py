"""The corrected call, where a refusal lets the service know it: a tool error's ``hint``.

A hint is ``{"text": <one line>, "patch": [JSON Patch operations on the call's
arguments]}``: applying the patch (RFC 6902) to the arguments sent gives the
call to repeat. A refusal whose fix needs a value only the caller has (a missing
text) carries the text alone, with what to send in the body's ``expected``.
"""

from __future__ import annotations

import re
from typing import Any

from layoutkit.errors import did_you_mean

_TOKEN = re.compile(r"([^.\[\]]+)|\[(\d+)\]")
_FIX = re.compile(r"did you mean '([^']+)'")


def pointer(path: str) -> str:
    """A JSON Pointer for a dotted path as refusals name them (``cards[0].payload.md``)."""
    parts = [name or index for name, index in _TOKEN.findall(path)]
    return "".join("/" + p.replace("~", "~0").replace("/", "~1") for p in parts)


def _at(arguments: Any, path: str) -> Any:
    value = arguments
    for name, index in _TOKEN.findall(path):
        if index and isinstance(value, list) and int(index) < len(value):
            value = value[int(index)]
        elif name and isinstance(value, dict):
            value = value.get(name)
        else:
            return None
    return value


def _replace(path: str, value: Any, text: str) -> dict[str, Any]:
    return {"text": text, "patch": [{"op": "replace", "path": pointer(path), "value": value}]}


def _named_fix(body: dict[str, Any]) -> str | None:
    for finding in body.get("findings") or ():
        match = _FIX.search(str(finding.get("fix", "")))
        if match and finding.get("severity", "error") == "error":
            return match.group(1)
    return None


def _choice(body: dict[str, Any], arguments: Any, path: str) -> dict[str, Any] | None:
    schema = body.get("expectedSchema") or {}
    allowed = schema.get("enum") or body.get("allowed")
    if not isinstance(allowed, list) or not allowed:
        return None
    sent = _at(arguments, path)
    close = did_you_mean(str(sent), [str(a) for a in allowed], n=1)
    pick = next((a for a in allowed if str(a) == close[0]), None) if close else None
    if pick is None:
        pick = schema.get("default", allowed[0])
    return {**_replace(path, pick, f"{path} takes one of {allowed}"), "allowed": allowed}


def _extra_field(body: dict[str, Any], path: str) -> dict[str, Any]:
    name = path.rsplit(".", 1)[-1]
    close = did_you_mean(name, body.get("allowed") or (), n=1)
    if close:
        moved = path[: -len(name)] + close[0]
        return {
            "text": f"{path} is not a field here; did you mean {close[0]}?",
            "patch": [{"op": "move", "from": pointer(path), "path": pointer(moved)}],
        }
    return {"text": f"drop {path}", "patch": [{"op": "remove", "path": pointer(path)}]}


def _by_path(body: dict[str, Any], arguments: Any) -> dict[str, Any] | None:
    path = body.get("path") or body.get("field")
    if not isinstance(path, str) or not path:
        return None
    fix = _named_fix(body)
    if fix is not None:
        return _replace(path, fix, f"did you mean {fix!r} at {path}?")
    if body.get("code") == "invalid_params" and "allowed" in body:
        return _extra_field(body, path)
    if body.get("code") in ("unknown_value", "invalid_params", "unknown_kind"):
        found = _choice(body, arguments, path)
        if found is not None:
            return found
    if "expected" in body:
        # The value is the caller's own: name what to send and where to read more.
        docs = f" (docs topic {body['docs']})" if "docs" in body else ""
        return {"text": f"send {body['expected']}{docs}"}
    return None


def hint_for(operation: str, arguments: Any, body: dict[str, Any]) -> dict[str, Any] | None:
    """The hint for refusal ``body`` of a call of ``operation`` with ``arguments``."""
    code = body.get("code")
    if code == "unknown_operation" and body.get("didYouMean"):
        name = body["didYouMean"][0]
        return {"text": f"no tool {operation!r}; call {name!r}", "tool": name}
    if code == "needs_confirm" and isinstance(body.get("token"), str):
        return {
            "text": "repeat the same call with confirm set to the token and a reason",
            "patch": [{"op": "add", "path": "/confirm", "value": body["token"]}],
        }
    return _by_path(body, arguments)
