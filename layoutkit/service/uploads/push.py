"""``push_doc``: publish a pushed document set onto a board as a versioned doc card.

A set is a doc element (``doc.json``), optional shots (``data.json``'s
``shots``) and files (images and anything the doc names). Before the doc is
placed:

- every file is stored as a blob;
- figure, media and gallery images that name a set file (``ref`` or a
  relative ``src``) or a shot (``shot: <index>``) get the blob key as ``ref``;
  a name or index the set does not hold is refused (400 ``unknown_file`` /
  ``unknown_shot``, with the element path);
- links written ``alias:path#L1-L5`` with an alias of the doc's ``sources``
  become repository-host URLs (:func:`source_url`).

Versions: the doc card's payload carries ``set {branch, version, files,
shots, shotMeta}`` (server-owned; ``shotMeta`` names each shot with its device
and theme, see :mod:`layoutkit.service.uploads.shots`). The version is one more than the highest version of
that branch on the board, counting removed cards too, so a number is never
handed out twice; it is taken under the board lock in the same transaction
that stores the card. Earlier versions stay on the board; a new version is
placed beside the latest live one unless a section is named.
"""

from __future__ import annotations

import copy
import re
from typing import Any

import attrs

from layoutkit import elements
from layoutkit.elements import doc_source, source_url
from layoutkit.errors import ServiceError, did_you_mean
from layoutkit.service.boards.board_model import BoardModels
from layoutkit.service.boards.content_prep import Prepared, prepare_card
from layoutkit.service.boards.placing import place_cards
from layoutkit.service.road.registry import REGISTRY
from layoutkit.service.road.workspace import Call
from layoutkit.service.shared.common import SLUG
from layoutkit.service.uploads import renditions
from layoutkit.service.uploads.shots import shot_meta
from layoutkit.service.uploads.uploads import (
    FILE_SCHEMA,
    FILES_CHECKED,
    MAX_FILES,
    Decoded,
    decode_files,
)
from layoutkit.storage import CardRecord, Tx, blob_key

BRANCH_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._/-]{0,99}$"
DEFAULT_BRANCH = "main"
_ALIAS = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]{0,63}$")
#: URL schemes an alias may not shadow: links using them must stay as written.
RESERVED_ALIASES = frozenset(
    {"http", "https", "mailto", "tel", "ftp", "data", "javascript", "file", "vbscript", "blob"}
)
_BLOB_KEY = re.compile(r"^sha256:[0-9a-f]{64}$")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
#: Text that is shown verbatim, never read as markdown.
_VERBATIM = {"code": ("source",), "diagram": ("diagram_text",)}

SHOT_SCHEMA: dict[str, Any] = {
    "anyOf": [
        {"type": "string", "minLength": 1},
        {
            "type": "object",
            "properties": {
                "file": {"type": "string", "minLength": 1},
                "image": {"type": "string", "minLength": 1},
                "ref": {"type": "string", "pattern": _BLOB_KEY.pattern},
            },
        },
    ],
    "description": "a set file name, or {file|image|ref, ...metadata}",
}

PUSH_SCHEMA: dict[str, Any] = {
    "required": ["board", "doc"],
    "properties": {
        "board": SLUG,
        "doc": {"type": "object", "description": "the doc element (doc.json)"},
        "files": {"type": "array", "items": FILE_SCHEMA, "maxItems": FILES_CHECKED},
        # A shot names a file of the set or a stored image: no more than the files.
        "shots": {"type": "array", "items": SHOT_SCHEMA, "maxItems": MAX_FILES},
        "branch": {"type": "string", "pattern": BRANCH_PATTERN, "default": DEFAULT_BRANCH},
        "section": {"type": "string", "minLength": 1, "maxLength": 200},
        "createSection": {"type": "boolean"},
    },
    "additionalProperties": False,
}
# Only shown: the handler answers a doc that is not {kind: doc, payload} with not_a_doc,
# and the content contract answers its payload with findings.
_SHOWN_SCHEMA: dict[str, Any] = {
    **PUSH_SCHEMA,
    "properties": {
        **PUSH_SCHEMA["properties"],
        "doc": {
            **PUSH_SCHEMA["properties"]["doc"],
            "required": ["kind", "payload"],
            "properties": {
                "kind": {"const": "doc"},
                "payload": elements.element_payload_ref("doc"),
            },
        },
    },
    "$defs": elements.schema_defs(),
}


class _Expander:
    """Rewrites ``alias:path`` link targets of one doc's sources in markdown and hrefs."""

    def __init__(self, sources: dict[str, Any]) -> None:
        self.sources = sources
        self.count = 0
        names = "|".join(re.escape(a) for a in sorted(sources, key=len, reverse=True))
        target = r"(?P<alias>" + names + r"):(?P<rest>"
        self.inline = re.compile(r"(?P<lead>\]\(\s*<?)" + target + r"[^)\s>]*)")
        self.auto = re.compile(r"(?P<lead><)" + target + r"[^>\s]+)(?=>)")
        self.define = re.compile(
            r"^(?P<lead>[ ]{0,3}\[[^\]\n]+\]:[ \t]*<?)" + target + r"[^\s>]+)", re.M
        )
        self.whole = re.compile(r"^" + target + r".*)$", re.S)

    def _sub(self, match: re.Match[str]) -> str:
        self.count += 1
        url = source_url(self.sources[match.group("alias")], match.group("rest"))
        return match.group("lead") + url

    def markdown(self, text: str) -> str:
        if ":" not in text:
            return text
        for rx in (self.inline, self.auto, self.define):
            text = rx.sub(self._sub, text)
        return text

    def href(self, value: str) -> str:
        match = self.whole.match(value.strip())
        if not match:
            return value
        self.count += 1
        return source_url(self.sources[match.group("alias")], match.group("rest"))


def _check_sources(sources: Any) -> dict[str, Any]:
    if not isinstance(sources, dict):
        return {}
    for alias in sources:
        if not _ALIAS.match(alias) or alias.lower() in RESERVED_ALIASES:
            raise ServiceError(
                400,
                "invalid_source_alias",
                f"doc.payload.sources: {alias!r} cannot be an alias (letters, digits, "
                f"_ . -; not a URL scheme such as {', '.join(sorted(RESERVED_ALIASES)[:4])})",
                field=f"doc.payload.sources.{alias}",
            )
        if doc_source(sources, alias) is None:
            raise ServiceError(
                400,
                "invalid_source",
                f"doc.payload.sources.{alias}: give {{repo, ref}}",
                field=f"doc.payload.sources.{alias}",
            )
    return sources


class _SetResolver:
    """Maps set file names and shot indices to blob keys inside one doc."""

    def __init__(self, files: dict[str, str], shots: list[dict[str, Any]]) -> None:
        self.files = files
        self.shots = shots

    def file_ref(self, name: str, where: str) -> str:
        if name in self.files:
            return self.files[name]
        raise ServiceError(
            400,
            "unknown_file",
            f"{where}: {name!r} is not a file of this set",
            field=where,
            didYouMean=did_you_mean(name, self.files),
        )

    def shot_ref(self, index: Any, where: str) -> dict[str, Any]:
        if isinstance(index, int) and not isinstance(index, bool) and 0 <= index < len(self.shots):
            return self.shots[index]
        raise ServiceError(
            400,
            "unknown_shot",
            f"{where}: shot {index!r} is not in data.json (it has {len(self.shots)} shots)",
            field=where,
        )

    def image(self, item: dict[str, Any], where: str, *, shots: bool) -> None:
        """Resolve one image holder (figure or media payload, gallery item) in place."""
        if shots and "shot" in item:
            shot = self.shot_ref(item["shot"], f"{where}.shot")
            del item["shot"]
            item["ref"] = shot["ref"]
            if "alt" not in item and isinstance(shot.get("alt") or shot.get("title"), str):
                item["alt"] = shot.get("alt") or shot["title"]
            return
        ref = item.get("ref")
        if isinstance(ref, str) and not _BLOB_KEY.match(ref):
            item["ref"] = self.file_ref(ref, f"{where}.ref")
            return
        src = item.get("src")
        if isinstance(src, str) and _is_relative(src):
            item["ref"] = self.file_ref(src, f"{where}.src")
            del item["src"]


def _is_relative(src: str) -> bool:
    s = src.strip()
    return bool(s) and not s.startswith(("/", "#", "?")) and not _SCHEME.match(s)


def _walk(
    node: Any, path: str, resolver: _SetResolver, expander: _Expander | None, kind: str = ""
) -> Any:
    """Resolve images and expand links throughout ``node``; returns the new value."""
    if isinstance(node, dict):
        element_kind = node.get("kind") if isinstance(node.get("kind"), str) else ""
        payload = node.get("payload")
        if element_kind and isinstance(payload, dict):
            where = f"{path}.payload"
            if element_kind in ("figure", "media"):
                resolver.image(payload, where, shots=element_kind == "figure")
            elif element_kind == "gallery" and isinstance(payload.get("items"), list):
                for i, item in enumerate(payload["items"]):
                    if isinstance(item, dict):
                        resolver.image(item, f"{where}.items[{i}]", shots=True)
            return {
                **node,
                "payload": _walk(payload, where, resolver, expander, element_kind),
            }
        skip = _VERBATIM.get(kind, ())
        out = {}
        for key, value in node.items():
            if key in skip:
                out[key] = value
            elif expander is not None and key == "href" and isinstance(value, str):
                out[key] = expander.href(value)
            else:
                out[key] = _walk(value, f"{path}.{key}", resolver, expander)
        return out
    if isinstance(node, list):
        return [_walk(v, f"{path}[{i}]", resolver, expander, kind) for i, v in enumerate(node)]
    if isinstance(node, str) and expander is not None:
        return expander.markdown(node)
    return node


def _shots(raw: list[Any], files: dict[str, str]) -> list[dict[str, Any]]:
    out = []
    for i, shot in enumerate(raw):
        meta = {"file": shot} if isinstance(shot, str) else dict(shot)
        name = meta.get("file") or meta.get("image")
        if isinstance(name, str):
            if name not in files:
                raise ServiceError(
                    400,
                    "unknown_file",
                    f"shots[{i}]: {name!r} is not a file of this set",
                    field=f"shots[{i}]",
                    didYouMean=did_you_mean(name, files),
                )
            meta["ref"] = files[name]
        elif not isinstance(meta.get("ref"), str):
            raise ServiceError(
                400, "invalid_shot", f"shots[{i}]: name a file or a blob ref", field=f"shots[{i}]"
            )
        out.append(meta)
    return out


def _versions(cards: list[CardRecord], branch: str) -> tuple[int, CardRecord | None]:
    """Highest version on ``branch`` (removed cards included) and the latest live card."""
    top, latest, latest_version = 0, None, 0
    for card in cards:
        stamp = card.payload.get("set") if card.kind == "doc" else None
        if not isinstance(stamp, dict) or stamp.get("branch") != branch:
            continue
        version = stamp.get("version")
        if not isinstance(version, int):
            continue
        top = max(top, version)
        if not card.deleted and version > latest_version:
            latest, latest_version = card, version
    return top, latest


@attrs.frozen(slots=True)
class _Push:
    """A push request resolved without the board: the doc card and what it links to."""

    prepared: Prepared
    resolved: dict[str, Any]
    decoded: list[Decoded]
    file_refs: dict[str, str]
    shots: list[dict[str, Any]]
    links_expanded: int


def _prepare(call: Call) -> _Push:
    params = call.params
    # Resolution rewrites the tree; the caller's params (and their requestKey hash) stay intact.
    doc = copy.deepcopy(params["doc"])
    if doc.get("kind") != "doc" or not isinstance(doc.get("payload"), dict):
        raise ServiceError(
            400,
            "not_a_doc",
            "doc must be a doc element: {kind: 'doc', payload: {title?, elements: [...]}}",
            field="doc",
        )
    decoded = decode_files(list(params.get("files") or []))
    names = [f.name for f in decoded]
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise ServiceError(400, "duplicate_file", f"files: {dup!r} is sent twice", field="files")
    # Keys are content hashes, so the doc can be resolved before the bytes are stored.
    file_refs = {f.name: blob_key(f.data) for f in decoded}
    shots = _shots(list(params.get("shots") or []), file_refs)
    sources = _check_sources(doc["payload"].get("sources"))
    expander = _Expander(sources) if sources else None
    resolved = _walk(doc, "doc", _SetResolver(file_refs, shots), expander)
    try:
        prepared = prepare_card({"kind": "doc", "payload": resolved["payload"]})
    except ServiceError as err:
        # The doc card is the call's doc: say where the refused value sits in the call.
        if isinstance(err.body.get("path"), str):
            err.body["path"] = f"doc.{err.body['path']}"
        raise
    return _Push(prepared, resolved, decoded, file_refs, shots, expander.count if expander else 0)


@REGISTRY.operation(
    "push_doc",
    "Publish a document set on a board: doc is the doc element (doc.json), shots the "
    "data.json shots, files the set's files in base64. Images named by file or shot index "
    "are stored and linked, sources aliases in links become repository URLs, and the doc "
    "card takes the next free version on its branch (default main). Returns board, "
    "branch, version and the card.",
    PUSH_SCHEMA,
    board="board",
    writes=True,
    prepare=_prepare,
    shown=_SHOWN_SCHEMA,
)
def push_doc(call: Call) -> dict[str, Any]:
    params, tx, board = call.params, call.tx, call.board
    push: _Push = call.prepared
    branch = params.get("branch", DEFAULT_BRANCH)
    placement = {k: params[k] for k in ("section", "createSection") if k in params}
    _store_files(tx, push.decoded)
    large = [blob_key(f.data) for f in push.decoded if renditions.needs_one(f.data)]
    if large:
        workspace = call.workspace
        call.after.append(lambda: renditions.schedule(workspace, large))
    _check_blob_refs(tx, push.resolved, push.shots)
    top, latest = _versions(tx.cards(board.id, include_deleted=True), branch)
    version = top + 1
    # The card is prepared once per call; a replayed key never reaches here twice.
    payload = dict(push.prepared.payload)
    payload["set"] = {
        "branch": branch,
        "version": version,
        "files": push.file_refs,
        "shots": [s["ref"] for s in push.shots],
        # Names, devices and themes: what kind shot lists and attach_after names.
        "shotMeta": shot_meta(push.shots, push.file_refs),
    }
    where = dict(placement)
    if latest is not None and "section" not in where:
        where["anchor"] = {"cardId": latest.id, "relation": "beside"}
    card_in = attrs.evolve(push.prepared, payload=payload)
    receipt = place_cards(
        call.principal, tx, board, [card_in], where, models=call.workspace.extension(BoardModels)
    )
    (card,) = receipt["cards"]
    tx.record_event(
        "board.push",
        call.principal.label,
        board_id=board.id,
        detail={"branch": branch, "version": version, "card": card["id"]},
    )
    return {
        "board": board.slug,
        "branch": branch,
        "version": version,
        "card": card["id"],
        "previous": latest.id if latest is not None else None,
        **{k: card[k] for k in ("x", "y", "w", "h", "placedAs", "container")},
        "sections": receipt["sections"],
        "moved": receipt["moved"],
        "files": [
            {"name": f.name, "ref": push.file_refs[f.name], "size": len(f.data)}
            for f in push.decoded
        ],
        "shots": len(push.shots),
        "linksExpanded": push.links_expanded,
        "warnings": receipt["warnings"],
    }


def _store_files(tx: Tx, files: list[Decoded]) -> None:
    for f in files:
        tx.blobs.put(f.data)


def _check_blob_refs(tx: Tx, doc: dict[str, Any], shots: list[dict[str, Any]]) -> None:
    """Refuse blob keys the workspace does not hold (named directly, not as set files)."""
    keys = {s["ref"] for s in shots}
    stack: list[Any] = [doc]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            ref = node.get("ref")
            if isinstance(ref, str) and _BLOB_KEY.match(ref):
                keys.add(ref)
            stack.extend(v for v in node.values() if isinstance(v, dict | list))
        elif isinstance(node, list):
            stack.extend(v for v in node if isinstance(v, dict | list))
    missing = sorted(k for k in keys if not tx.blobs.has(k))
    if missing:
        raise ServiceError(
            400, "unknown_blob", f"no stored blob {missing[0]}", missing=missing, field="doc"
        )
