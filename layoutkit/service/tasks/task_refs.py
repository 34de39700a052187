"""A task's refs (attachments) and what is read through them: ``add_task_ref``,
``upload_task_file``, ``read_task_ref`` and ``ask_task``.

A ref is ``(kind, ref)`` on a task; its versions only grow and are never
replaced. Attaching a ref the task already has changes the meta of its newest
version (a shallow merge; null removes a key); uploading a file of the same
name, or naming its lineage in ``versionOf``, adds the next version. Keys are
kept in one form per kind: a PR is ``<owner>/<repo>#<n>`` (a GitHub pull
URL is read as one), a board is its slug, a commit its hash (optionally
``<owner>/<repo>@<hash>``), and the document kinds a URL.

Every ref's meta may carry ``hint`` (one line: when to load it), ``tokens``
(its size in tokens) and ``load`` (first, on-demand or never). A PR ref whose
meta says ``merged: true`` completes its task.

Tokens are counted as one per four characters (:func:`tokens_of`): a
budget is that many tokens of the head of the text.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import posixpath
import re
from typing import Any

import attrs

from layoutkit.errors import ServiceError, did_you_mean
from layoutkit.formatting import an
from layoutkit.limits import PDF_BYTES
from layoutkit.service.road.ai import AiBackend, AiError
from layoutkit.service.road.ids import TASK_ID
from layoutkit.service.road.reach import find_board
from layoutkit.service.road.registry import REGISTRY
from layoutkit.service.road.workspace import Call
from layoutkit.service.shared.common import ID
from layoutkit.service.tasks.brief_sections import lint_brief
from layoutkit.service.tasks.finding import find_task
from layoutkit.service.tasks.gates import fire
from layoutkit.service.tasks.model import (
    CLOSED,
    ref_view,
    refs_view,
    task_file_url,
    task_url,
    task_view,
)
from layoutkit.service.tasks.tasks import complete_task
from layoutkit.storage import TaskRecord, TaskRefRecord, Tx

KINDS = (
    "session",
    "shot",
    "board",
    "file",
    "pr",
    "run",
    "transcript",
    "conversation",
    "brainstorm",
    "plan",
    "handoff",
    "decision",
    "distill",
    "commit",
    "final",
    "brief",
    "notes",
)
#: Typed documents: uploaded as text, or attached by URL.
DOCUMENT_KINDS = (
    "file",
    "transcript",
    "conversation",
    "brainstorm",
    "plan",
    "handoff",
    "decision",
    "distill",
    "final",
    "brief",
    "notes",
)
LOADS = ("first", "on-demand", "never")
UPLOAD_EXTENSIONS = (
    ".md",
    ".txt",
    ".json",
    ".jsonl",
    ".csv",
    ".html",
    ".yaml",
    ".log",
    ".diff",
    ".patch",
)
_MIME = {
    ".md": "text/markdown",
    ".json": "application/json",
    ".jsonl": "application/jsonl",
    ".csv": "text/csv",
    ".html": "text/html",
    ".yaml": "application/yaml",
    ".diff": "text/x-diff",
    ".patch": "text/x-diff",
}
MAX_UPLOAD_BYTES = 1024 * 1024
_TEXT_MIMES = frozenset({*_MIME.values(), "text/plain"})
#: A file that is not text (a screenshot, a PDF) is kept as it is, up to this size.
MAX_BINARY_BYTES = PDF_BYTES
#: What a kept binary file is served as, by its leading bytes; anything else downloads.
_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"%PDF-", "application/pdf"),
)
MAX_UPLOAD_FILES = 20
#: Files the params check takes; over MAX_UPLOAD_FILES the handler answers
#: too_many_files naming that limit.
UPLOAD_FILES_CHECKED = 100
CHARS_PER_TOKEN = 4
DEFAULT_BUDGET = 4000
MAX_BUDGET = 200_000
MAX_HINT = 300
#: ask_task reads at most this deep a tree and this many tasks.
ASK_LEVELS = 3
ASK_TASKS = 200
#: Characters of each uploaded ref ask_task shows the backend.
ASK_REF_CHARS = 8000
INTENTS = ("developer", "product", "qa", "reviewer", "onboarding")

META: dict[str, Any] = {
    "type": "object",
    "description": "what the ref says about itself; null removes a key when re-attaching",
    "properties": {
        "hint": {
            "type": ["string", "null"],
            "maxLength": MAX_HINT,
            "description": "one line: when to load it",
        },
        "tokens": {"type": ["integer", "null"], "minimum": 0, "maximum": 10**9},
        "load": {"enum": [*LOADS, None]},
        "merged": {"type": ["boolean", "null"], "description": "pr: merged (completes the task)"},
        "title": {"type": ["string", "null"], "maxLength": 500},
        "section": {"type": ["string", "null"], "maxLength": 200},
    },
}
#: The ``refs`` param of the operations that attach refs as they write a task
#: (hand_back, spot, propose_tasks): up to 50 refs, each a kind, an address and meta.
REF_LIST: dict[str, Any] = {
    "type": "array",
    "maxItems": 50,
    "items": {
        "type": "object",
        "required": ["kind", "ref"],
        "properties": {
            "kind": {"enum": list(KINDS)},
            "ref": {"type": "string", "minLength": 1, "maxLength": 1000},
            "meta": META,
        },
        "additionalProperties": False,
    },
}
_HINT: dict[str, Any] = {
    "type": "string",
    "maxLength": MAX_HINT,
    "description": "one line saying when to load it (stored as meta.hint)",
}

_PR = re.compile(r"^(?P<owner>[\w.-]+)/(?P<repo>[\w.-]+)#(?P<n>[1-9][0-9]{0,9})$")
_PR_URL = re.compile(
    r"^https?://[^/\s]+/(?P<owner>[\w.-]+)/(?P<repo>[\w.-]+)/pulls?/(?P<n>[1-9][0-9]{0,9})/?$"
)
_COMMIT = re.compile(r"^(?:(?P<repo>[\w.-]+/[\w.-]+)@)?(?P<sha>[0-9a-fA-F]{7,40})$")
_BOARD_URL = re.compile(r"^(?:https?://[^/\s]+)?/boards/(?P<slug>[a-z0-9][a-z0-9-]{0,79})/?$")
_URL = re.compile(r"^(?:https?://[^\s/]+|/)[^\s]*$")


def tokens_of(text: str) -> int:
    """The size of ``text`` in tokens, counted as one per four characters."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def normalize_ref(call: Call, task: TaskRecord, kind: str, ref: str) -> str:
    """``ref`` in the one form its kind is kept in; 400 ``invalid_ref`` when it has none."""
    text = ref.strip()
    if kind == "pr":
        hit = _PR.match(text) or _PR_URL.match(text)
        if hit is None:
            raise _invalid(kind, ref, "a PR is <owner>/<repo>#<number>")
        return f"{hit['owner']}/{hit['repo']}#{hit['n']}"
    if kind == "board":
        url = _BOARD_URL.match(text)
        slug = url["slug"] if url else text
        # The board must be there: a ref to a typo would lead nowhere.
        return find_board(call.tx, task.workspace_id, slug).slug
    if kind == "commit":
        hit = _COMMIT.match(text)
        if hit is None:
            raise _invalid(kind, ref, "a commit is its hash, or <owner>/<repo>@<hash>")
        sha = hit["sha"].lower()
        return f"{hit['repo']}@{sha}" if hit["repo"] else sha
    if kind in DOCUMENT_KINDS:
        if not _URL.match(text):
            raise _invalid(
                kind, ref, f"{an(kind)} ref is attached by URL (or uploaded with upload_task_file)"
            )
        return text
    if not text:
        raise _invalid(kind, ref, "the ref is empty")
    return text


def _invalid(kind: str, ref: str, why: str) -> ServiceError:
    return ServiceError(400, "invalid_ref", f"{kind} ref {ref!r}: {why}", field="ref", kind=kind)


def _check_hint(hint: Any, field: str) -> None:
    if isinstance(hint, str) and ("\n" in hint or "\r" in hint):
        raise ServiceError(400, "invalid_params", "a hint is one line", field=field)


def _merged_meta(current: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    out = dict(current)
    for key, value in patch.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = value
    return out


def pr_merged(call: Call, task: TaskRecord, pr: str) -> TaskRecord:
    """A PR of the task merged: its ``when`` conditions fire, then the task completes
    (unless a gate still holds it)."""
    for when in ("pr merged", f"pr {pr} merged"):
        current = call.tx.task(task.id) or task
        fire(call, current, when, f"PR {pr} merged")
    return complete_task(call, call.tx.task(task.id) or task, f"PR {pr} merged")


def _latest(rows: list[TaskRefRecord], kind: str, ref: str) -> TaskRefRecord | None:
    same = [r for r in rows if r.kind == kind and r.ref == ref]
    return max(same, key=lambda r: r.version) if same else None


# ------------------------------------------------------------------ add_task_ref


@REGISTRY.operation(
    "add_task_ref",
    "Attach a ref to a task: a session, shot, board (by slug), file, PR "
    "(<owner>/<repo>#<n>), run, commit, or a typed document by URL (documents are "
    "uploaded with upload_task_file). Refs are versioned and never replaced: attaching "
    "one the task has updates its meta. meta.hint says when to load it, meta.tokens its "
    "size, meta.load is first, on-demand or never; a PR with meta.merged true completes "
    "the task.",
    {
        "required": ["id", "kind", "ref"],
        "properties": {
            "id": TASK_ID,
            "kind": {"enum": list(KINDS)},
            "ref": {"type": "string", "minLength": 1, "maxLength": 1000},
            "meta": META,
        },
        "additionalProperties": False,
    },
    writes=True,
)
def add_task_ref(call: Call) -> dict[str, Any]:
    p = call.params
    task = find_task(call, p["id"], operation="add_task_ref", lock=True)
    _check_hint((p.get("meta") or {}).get("hint"), "meta.hint")
    key = normalize_ref(call, task, p["kind"], p["ref"])
    tx = call.tx
    rows = tx.task_refs(task.id)
    latest = _latest(rows, p["kind"], key)
    patch = p.get("meta") or {}
    if latest is None:
        row = tx.add_task_ref_version(
            task.id,
            p["kind"],
            key,
            meta=_merged_meta({}, patch),
            author=call.principal.label,
        )
        attached = "new"
    else:
        row = tx.set_task_ref_meta(latest.id, _merged_meta(latest.meta, patch))
        attached = "meta"
    tx.record_task_event(
        task.id,
        "task.ref",
        call.principal.label,
        {"kind": row.kind, "ref": row.ref, "version": row.version, "attached": attached},
    )
    if row.kind == "pr" and row.meta.get("merged") is True:
        task = pr_merged(call, task, row.ref)
    versions = sum(1 for r in tx.task_refs(task.id) if (r.kind, r.ref) == (row.kind, row.ref))
    return {
        "task": task_view(tx, tx.task(task.id) or task),
        "ref": ref_view(call.workspace, task, row, versions),
        "attached": attached,
    }


# ------------------------------------------------------------------ upload_task_file

_FILE: dict[str, Any] = {
    "type": "object",
    "required": ["name", "data"],
    "properties": {
        "name": {"type": "string", "minLength": 1, "maxLength": 255},
        "data": {"type": "string", "description": "file bytes, base64"},
        "mime": {"type": "string", "maxLength": 200},
    },
    "additionalProperties": False,
}


@attrs.frozen
class _Upload:
    """One file of an upload, checked: its bare name, its bytes, and its text when it
    is a text file (None for a file kept as it is)."""

    name: str
    data: bytes
    text: str | None
    mime: str


def _decode_upload(params: dict[str, Any], *, any_file: bool = False) -> list[_Upload]:
    """Each file of the call, checked before the transaction opens: a listed
    extension, UTF-8 text without NUL bytes, at most 1 MiB; with ``any_file``, a
    file that is not such text is kept as it is, up to :data:`MAX_BINARY_BYTES`."""
    if "content" in params or "filename" in params:
        files = [_single_file(params)]
    else:
        files = _listed_files(params, MAX_BINARY_BYTES if any_file else MAX_UPLOAD_BYTES)
    if "versionOf" in params and len(files) > 1:
        raise ServiceError(
            400, "invalid_params", "versionOf continues one lineage: send one file", field="files"
        )
    out = []
    for i, (raw_name, data) in enumerate(files):
        field = "filename" if "filename" in params else f"files[{i}]"
        if any_file and not _is_text_file(raw_name, data):
            out.append(_binary_file(raw_name, data, field, params.get("kind", "file")))
        else:
            name, text = _text_file(raw_name, data, field)
            ext = posixpath.splitext(name)[1].lower()
            out.append(_Upload(name, data, text, _MIME.get(ext, "text/plain")))
    return out


def _bare_name(raw_name: str) -> str:
    # A name is a name, never a path into the task's upload area.
    return posixpath.basename(raw_name.replace("\\", "/")).strip()


def _is_text_file(raw_name: str, data: bytes) -> bool:
    """Whether the text rule takes the file: a listed extension and UTF-8 without NUL."""
    if posixpath.splitext(_bare_name(raw_name))[1].lower() not in UPLOAD_EXTENSIONS:
        return False
    try:
        return "\x00" not in data.decode("utf-8")
    except UnicodeDecodeError:
        return False


def _binary_file(raw_name: str, data: bytes, field: str, kind: str) -> _Upload:
    """A file kept as it is: named, within its size, and only as a plain file ref
    (a brief or a plan is text an agent reads)."""
    name = _bare_name(raw_name)
    if not name:
        raise ServiceError(400, "invalid_params", f"{field}: a file needs a name", field=field)
    if len(data) > MAX_BINARY_BYTES:
        raise ServiceError(
            413,
            "payload_too_large",
            f"{name} is over {MAX_BINARY_BYTES} bytes; files kept as they are are at most 25 MiB",
            field=field,
            limit=MAX_BINARY_BYTES,
        )
    if kind != "file":
        raise ServiceError(
            415,
            "unsupported_file",
            f"{name} is not text; {an(kind)} ref is text an agent reads (send kind file)",
            field=field,
        )
    mime = next((m for magic, m in _MAGIC if data.startswith(magic)), "application/octet-stream")
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        mime = "image/webp"
    return _Upload(name, data, None, mime)


def _single_file(params: dict[str, Any]) -> tuple[str, bytes]:
    """The file sent as ``filename`` and ``content``."""
    if "files" in params:
        raise ServiceError(
            400, "invalid_params", "send filename and content, or files", field="files"
        )
    if "filename" not in params or "content" not in params:
        missing = "content" if "filename" in params else "filename"
        raise ServiceError(400, "invalid_params", f"{missing} is missing", field=missing)
    return params["filename"], params["content"].encode("utf-8", "surrogatepass")


def _listed_files(params: dict[str, Any], limit: int) -> list[tuple[str, bytes]]:
    """The files sent as ``files``, each decoded from base64."""
    if not params.get("files"):
        raise ServiceError(
            400, "invalid_params", "send filename and content, or files", field="filename"
        )
    if len(params["files"]) > MAX_UPLOAD_FILES:
        raise ServiceError(
            400, "too_many_files", f"at most {MAX_UPLOAD_FILES} files per call", field="files"
        )
    files: list[tuple[str, bytes]] = []
    for i, entry in enumerate(params["files"]):
        if len(entry["data"]) // 4 * 3 > limit + 3:
            raise _too_large(entry["name"], f"files[{i}]")
        try:
            data = base64.b64decode(entry["data"], validate=True)
        except (binascii.Error, ValueError) as exc:
            raise ServiceError(
                400,
                "invalid_base64",
                f"files[{i}].data is not base64",
                field=f"files[{i}].data",
                index=i,
            ) from exc
        files.append((entry["name"], data))
    return files


def _text_file(raw_name: str, data: bytes, field: str) -> tuple[str, str]:
    """A file's bare name and its text: a listed extension, UTF-8 without NUL bytes."""
    name = _bare_name(raw_name)
    ext = posixpath.splitext(name)[1].lower()
    if not name or ext not in UPLOAD_EXTENSIONS:
        raise ServiceError(
            415,
            "unsupported_file",
            f"{raw_name!r}: tasks take text files ending in {', '.join(UPLOAD_EXTENSIONS)}",
            field=field,
            allowed=list(UPLOAD_EXTENSIONS),
        )
    if len(data) > MAX_UPLOAD_BYTES:
        raise _too_large(name, field)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ServiceError(
            415, "unsupported_file", f"{name} is not UTF-8 text", field=field
        ) from exc
    if "\x00" in text:
        raise ServiceError(415, "unsupported_file", f"{name} is binary, not text", field=field)
    return name, text


def _lineage_of(rows: list[TaskRefRecord], kind: str, name: str) -> str:
    """The lineage a file called ``name`` continues: the ref of that name, else the
    lineage whose newest version was stored under that file name (a brief's lineage
    ``<slug>-brief`` holds the file ``<slug>-brief.md``), else a new one, ``name``."""
    if _latest(rows, kind, name) is not None:
        return name
    newest: dict[str, TaskRefRecord] = {}
    for row in rows:
        if (
            row.kind == kind
            and row.blob is not None
            and (row.ref not in newest or row.version > newest[row.ref].version)
        ):
            newest[row.ref] = row
    named = [r for r in newest.values() if r.meta.get("filename") == name]
    return max(named, key=lambda r: r.id).ref if named else name


def _too_large(name: str, field: str) -> ServiceError:
    return ServiceError(
        413,
        "payload_too_large",
        f"{name} is over {MAX_UPLOAD_BYTES} bytes; task files are at most 1 MiB",
        field=field,
        limit=MAX_UPLOAD_BYTES,
    )


_UPLOAD_SCHEMA: dict[str, Any] = {
    "required": ["id"],
    "properties": {
        "id": TASK_ID,
        "kind": {"enum": list(DOCUMENT_KINDS), "description": "default file"},
        "hint": _HINT,
        "load": {"enum": list(LOADS)},
        "filename": {"type": "string", "minLength": 1, "maxLength": 255},
        "content": {"type": "string", "description": "the file's text"},
        "versionOf": {
            "type": "string",
            "minLength": 1,
            "maxLength": 1000,
            "description": "the lineage (the ref of an uploaded file) this is the next version of",
        },
        "files": {
            "type": "array",
            "minItems": 1,
            "maxItems": UPLOAD_FILES_CHECKED,
            "items": _FILE,
        },
    },
    "additionalProperties": False,
}


@REGISTRY.operation(
    "upload_task_file",
    "Attach text files to a task (.md .txt .json .jsonl .csv .html .yaml .log .diff "
    ".patch, at most 1 MiB each): filename and content for one file, or files (base64) "
    "for several. A file named like one the task has becomes its next version; "
    "versionOf names the lineage to continue explicitly. hint (one line: when to load "
    "it) is kept as meta.hint. Reply {task, refs, uploaded}; a brief's uploaded entry "
    "carries lint, where it strays from the brief's sections and caps.",
    _UPLOAD_SCHEMA,
    writes=True,
    prepare=lambda call: _decode_upload(call.params),
)
def upload_task_file(call: Call) -> dict[str, Any]:
    return _attach(call, "upload_task_file")


@REGISTRY.operation(
    "attach_task_files",
    "The HTTP upload of files to a task (POST /tasks/{id}/upload): text files as "
    "upload_task_file stores them, and any other file (a screenshot, a PDF, up to 25 "
    "MiB) kept as it is, as a file ref whose url serves its bytes.",
    _UPLOAD_SCHEMA,
    writes=True,
    prepare=lambda call: _decode_upload(call.params, any_file=True),
    tool=False,
)
def attach_task_files(call: Call) -> dict[str, Any]:
    return _attach(call, "attach_task_files")


def _attach(call: Call, operation: str) -> dict[str, Any]:
    """Store each checked file of ``call.prepared`` as the next version of its lineage."""
    p = call.params
    _check_hint(p.get("hint"), "hint")
    task = find_task(call, p["id"], operation=operation, lock=True)
    tx = call.tx
    kind = p.get("kind", "file")
    rows = tx.task_refs(task.id)
    uploaded = []
    upload: _Upload
    for upload in call.prepared:
        name, text = upload.name, upload.text
        lineage = p.get("versionOf") or _lineage_of(rows, kind, name)
        previous = _latest(rows, kind, lineage)
        if "versionOf" in p and previous is None:
            known = sorted({r.ref for r in rows if r.kind == kind and r.blob is not None})
            raise ServiceError(
                404,
                "unknown_ref",
                f"task {task.id} has no {kind} lineage {lineage!r} to continue",
                field="versionOf",
                didYouMean=did_you_mean(lineage, known),
            )
        data = upload.data
        # A new version keeps what the lineage says about loading it unless told anew.
        said = previous.meta if previous is not None else {}
        carried = {k: said[k] for k in ("hint", "load") if k in said}
        meta = {
            **carried,
            "filename": name,
            "mime": upload.mime,
            # a file kept as it is has no text to count in tokens
            **({"tokens": tokens_of(text)} if text is not None else {}),
            **({"hint": p["hint"]} if "hint" in p else {}),
            **({"load": p["load"]} if "load" in p else {}),
        }
        row = tx.add_task_ref_version(
            task.id,
            kind,
            lineage,
            meta=meta,
            author=call.principal.label,
            blob=tx.blobs.put(data),
            size=len(data),
        )
        rows.append(row)
        tx.record_task_event(
            task.id,
            "task.upload",
            call.principal.label,
            {"kind": kind, "ref": lineage, "version": row.version, "size": len(data)},
        )
        entry: dict[str, Any] = {
            "id": row.id,
            "kind": kind,
            "ref": lineage,
            "version": row.version,
            "filename": name,
            "size": len(data),
            "mime": upload.mime,
            **({"tokens": meta["tokens"]} if text is not None else {}),
            "url": task_file_url(call.workspace, task.id, row.id),
        }
        if kind == "brief" and text is not None:
            # Stored as sent; where it strays from the sections and their caps is said.
            entry["lint"] = lint_brief(text)
        uploaded.append(entry)
    return {
        "task": task_view(tx, task),
        "refs": refs_view(call.workspace, task, rows),
        "uploaded": uploaded,
    }


# ------------------------------------------------------------------ reading refs


def _find_ref(call: Call, task: TaskRecord, tx: Tx) -> TaskRefRecord:
    p = call.params
    rows = tx.task_refs(task.id)
    if "refId" in p:
        found = [r for r in rows if r.id == p["refId"]]
        if not found:
            raise ServiceError(404, "unknown_ref", f"task {task.id} has no ref {p['refId']}")
        return found[0]
    if "ref" not in p:
        raise ServiceError(400, "invalid_params", "name the ref: ref or refId", field="ref")
    same = [r for r in rows if r.ref == p["ref"] and ("kind" not in p or r.kind == p["kind"])]
    if len({r.kind for r in same}) > 1:
        raise ServiceError(
            400,
            "ambiguous_ref",
            f"{p['ref']!r} is a ref of several kinds; send kind",
            field="kind",
            allowed=sorted({r.kind for r in same}),
        )
    if "version" in p:
        same = [r for r in same if r.version == p["version"]]
    if not same:
        raise ServiceError(
            404,
            "unknown_ref",
            f"task {task.id} has no ref {p['ref']!r}"
            + (f" version {p['version']}" if "version" in p else ""),
            field="ref",
            didYouMean=did_you_mean(p["ref"], sorted({r.ref for r in rows})),
        )
    return max(same, key=lambda r: r.version)


def _read_snapshot(tx: Tx, call: Call) -> tuple[TaskRecord, TaskRefRecord, str]:
    task = find_task(_with_tx(call, tx), call.params["id"], operation="read_task_ref")
    row = _find_ref(call, task, tx)
    if row.blob is None:
        raise ServiceError(
            422,
            "not_readable",
            f"{row.kind} ref {row.ref!r} is an address, not stored text: only uploaded "
            "files are read here",
            field="ref",
        )
    if not is_text_ref(row):
        raise ServiceError(
            422,
            "not_readable",
            f"{row.kind} ref {row.ref!r} is a file kept as it is ({row.meta.get('mime')}), "
            f"not text: fetch its bytes at /api/v1/tasks/{task.id}/files/{row.id}",
            field="ref",
        )
    data = tx.blobs.get(row.blob)
    return task, row, data.decode("utf-8")


def is_text_ref(row: TaskRefRecord) -> bool:
    """Whether a stored ref is text an agent reads (uploaded text files count their
    tokens; a file kept as it is, a screenshot say, has none)."""
    return row.blob is not None and ("tokens" in row.meta or row.meta.get("mime") in _TEXT_MIMES)


def _with_tx(call: Call, tx: Tx) -> Call:
    """``call`` with the snapshot's read transaction, for lookups made before the road's."""
    return attrs.evolve(call, tx=tx)


DISTIL_SYSTEM = (
    "You distil a document for a software agent that has a small reading budget. "
    "Keep facts, names, numbers, decisions and open questions; drop repetition. "
    "Answer with the distilled text only."
)


def _distil(ai: AiBackend, text: str, budget: int, question: str | None) -> str:
    ask = f"Question to answer from it: {question}\n\n" if question else ""
    prompt = f"{ask}Distil this into at most {budget} tokens.\n\n---\n{text}"
    return ai.complete(DISTIL_SYSTEM, prompt, max_tokens=budget)


@REGISTRY.operation(
    "read_task_ref",
    "Read an uploaded ref of a task within a budget of tokens (about four characters "
    "each; default 4000). Text under the budget comes back whole. Over it, or with a "
    "question, a configured AI backend distils it; without one the head is cut at the "
    "budget and truncated is true. Reply {ref, version, size, tokens, truncated, content}.",
    {
        "required": ["id"],
        "properties": {
            "id": TASK_ID,
            "ref": {"type": "string", "minLength": 1, "maxLength": 1000},
            "refId": ID,
            "kind": {"enum": list(KINDS)},
            "version": {"type": "integer", "minimum": 1, "maximum": 2**31 - 1},
            "budget": {"type": "integer", "minimum": 1, "maximum": MAX_BUDGET},
            "question": {"type": "string", "minLength": 1, "maxLength": 2000},
        },
        "additionalProperties": False,
    },
    snapshot=_read_snapshot,
    pure=True,
    fetches=True,
)
def read_task_ref(call: Call) -> dict[str, Any]:
    _task, row, text = call.snapshot
    budget = call.params.get("budget", DEFAULT_BUDGET)
    question = call.params.get("question")
    tokens = tokens_of(text)
    out: dict[str, Any] = {
        "ref": row.ref,
        "kind": row.kind,
        "version": row.version,
        "size": row.size,
        "tokens": tokens,
        "truncated": False,
        "content": text,
    }
    ai = call.workspace.ai
    if ai is not None and (tokens > budget or question):
        try:
            out["content"] = _distil(ai, text, budget, question)
            out["distilled"] = True
            return out
        except AiError as exc:
            # The caller still gets the text, cut as without a backend, and why.
            out["distilError"] = str(exc)
    if tokens > budget:
        out["content"] = text[: budget * CHARS_PER_TOKEN]
        out["truncated"] = True
    return out


# ------------------------------------------------------------------ ask_task


def _no_backend() -> ServiceError:
    return ServiceError(
        501,
        "no_ai_backend",
        "ask_task needs an AI backend and this deployment has none; do not retry",
        retry=False,
    )


def _tree(tx: Tx, root: TaskRecord) -> list[tuple[int, TaskRecord]]:
    """``(level, task)`` of ``root`` and its descendants, three levels deep, at most 200."""
    out = [(0, root)]
    frontier = [root]
    for level in range(1, ASK_LEVELS):
        nxt = []
        for parent in frontier:
            for child in tx.tasks(root.workspace_id, parent_id=parent.id):
                if len(out) >= ASK_TASKS:
                    return out
                out.append((level, child))
                nxt.append(child)
        frontier = nxt
    return out


def _task_lines(level: int, task: TaskRecord) -> list[str]:
    lines = [
        f"{'  ' * level}- task {task.id} [{task.type}, {task.status}] {task.title}",
    ]
    for label, text in (
        ("body", task.body),
        ("next action", task.next_action),
        ("outcome", task.outcome),
        ("decisions", task.decisions),
    ):
        if text:
            lines.append(f"{'  ' * level}  {label}: {text[:2000]}")
    return lines


def _ask_snapshot(tx: Tx, call: Call) -> dict[str, Any]:
    if call.workspace.ai is None:
        raise _no_backend()
    p = call.params
    if ("id" in p) == ("project" in p):
        raise ServiceError(400, "invalid_params", "send id or project (one)", field="id")
    if "project" in p:
        if "scope" in p:
            raise ServiceError(
                400, "invalid_params", "scope goes with id, not project", field="scope"
            )
        project = tx.project_by_slug(call.workspace_id, p["project"])
        if project is None:
            raise ServiceError(404, "unknown_project", f"no project {p['project']!r}")
        live = [
            t for t in tx.tasks(call.workspace_id, project_id=project.id) if t.status not in CLOSED
        ][:ASK_TASKS]
        return {"form": "project", "tasks": {t.id: t for t in live}}
    task = find_task(_with_tx(call, tx), p["id"], operation="ask_task")
    scope = p.get("scope", "tree" if task.type == "epic" else "self")
    tree = _tree(tx, task) if scope == "tree" else [(0, task)]
    refs: list[tuple[TaskRefRecord, str]] = []
    for _level, member in tree:
        for row in tx.task_refs(member.id):
            if row.blob is not None and is_text_ref(row) and len(refs) < 40:
                refs.append((row, tx.blobs.get(row.blob).decode("utf-8")[:ASK_REF_CHARS]))
    return {"form": "id", "task": task, "tree": tree, "refs": refs}


ASK_SYSTEM = (
    "You answer questions about a team's tasks from the material given, and only from "
    "it. Reply with one JSON object and nothing else."
)


def _parse_json_object(text: str) -> dict[str, Any] | None:
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        return None
    try:
        value = json.loads(text[start : end + 1])
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _ask_id(call: Call, data: dict[str, Any]) -> dict[str, Any]:
    p = call.params
    lines = [line for level, t in data["tree"] for line in _task_lines(level, t)]
    docs = [
        f"=== ref {row.ref} version {row.version} ({row.kind})\n{text}"
        for row, text in data["refs"]
    ]
    prompt = "\n".join(
        [
            f"Reader: {p.get('intent', 'developer')}.",
            f"Question: {p['question']}",
            "Tasks:",
            *lines,
            "Documents:",
            *docs,
            'Reply as {"answer": "...", "citations": [{"ref": "<ref>", "version": <n>, '
            '"quote": "<exact words from that document>"}]}.',
        ]
    )
    raw = call.workspace.ai.complete(ASK_SYSTEM, prompt, max_tokens=1500)  # type: ignore[union-attr]
    parsed = _parse_json_object(raw) or {"answer": raw.strip(), "citations": []}
    by_key = {(row.ref, row.version): (row, text) for row, text in data["refs"]}
    citations = []
    for c in parsed.get("citations") or []:
        if not isinstance(c, dict):
            continue
        hit = by_key.get((c.get("ref"), c.get("version")))
        quote = c.get("quote")
        # Only quotes that are really in the cited version are passed on.
        if hit is None or not isinstance(quote, str) or not quote or quote not in hit[1]:
            continue
        citations.append(
            {
                "ref": hit[0].ref,
                "version": hit[0].version,
                "at": hit[0].created_at.isoformat(),
                "quote": quote,
            }
        )
    answer = parsed.get("answer")
    return {
        "answer": answer if isinstance(answer, str) else raw.strip(),
        "citations": citations,
        "task": data["task"].id,
    }


def _ask_project(call: Call, data: dict[str, Any]) -> dict[str, Any]:
    p = call.params
    tasks: dict[int, TaskRecord] = data["tasks"]
    lines = [line for t in tasks.values() for line in _task_lines(0, t)]
    prompt = "\n".join(
        [
            f"Reader: {p.get('intent', 'developer')}.",
            f"Question: {p['question']}",
            "Live tasks of the project:",
            *lines,
            'Reply as {"answer": "...", "tasks": [{"id": <task id>, "why": "..."}], '
            '"confidence": "high" | "medium" | "low"}.',
        ]
    )
    raw = call.workspace.ai.complete(ASK_SYSTEM, prompt, max_tokens=1500)  # type: ignore[union-attr]
    parsed = _parse_json_object(raw) or {"answer": raw.strip()}
    picked = []
    for item in parsed.get("tasks") or []:
        task = tasks.get(item.get("id")) if isinstance(item, dict) else None
        if task is None:
            continue  # an id the backend made up, or one outside the live tasks
        picked.append(
            {
                "id": task.id,
                "key": task.key,
                "title": task.title,
                "type": task.type,
                "state": task.state,
                "url": task_url(task),
                "why": str(item.get("why", "")),
            }
        )
    confidence = parsed.get("confidence")
    answer = parsed.get("answer")
    return {
        "answer": answer if isinstance(answer, str) else raw.strip(),
        "tasks": picked,
        "confidence": confidence if confidence in ("high", "medium", "low") else "low",
    }


@REGISTRY.operation(
    "ask_task",
    "Ask a question about a task (id) or a project's live tasks (project), answered by "
    "the deployment's AI backend from the tasks and their uploaded refs. The id form "
    "answers with citations [{ref, version, at, quote}]; scope tree reads three levels "
    "below (default for an epic), self the task alone. The project form answers {answer, "
    "tasks, confidence}. Writes nothing. Without an AI backend: 501, do not retry.",
    {
        "required": ["question"],
        "properties": {
            "id": TASK_ID,
            "project": {"type": "string", "pattern": "^[a-z0-9][a-z0-9-]{0,79}$"},
            "question": {"type": "string", "minLength": 1, "maxLength": 2000},
            "intent": {"enum": list(INTENTS)},
            "scope": {"enum": ["self", "tree"]},
        },
        "additionalProperties": False,
    },
    snapshot=_ask_snapshot,
    pure=True,
    fetches=True,
)
def ask_task(call: Call) -> dict[str, Any]:
    data = call.snapshot
    try:
        if data["form"] == "project":
            return _ask_project(call, data)
        return _ask_id(call, data)
    except AiError as exc:
        raise ServiceError(502, "ai_backend_failed", str(exc)) from exc


# ------------------------------------------------------------------ task_file


@REGISTRY.operation(
    "task_file",
    "One stored version of a task's uploaded file: name, mime, size and the bytes in "
    "base64. Over HTTP, GET /api/v1/tasks/{id}/files/{refId} serves the bytes themselves "
    "(the url a ref of an uploaded file carries).",
    {
        "required": ["id", "refId"],
        "properties": {"id": TASK_ID, "refId": ID},
        "additionalProperties": False,
    },
)
def task_file(call: Call) -> dict[str, Any]:
    task = find_task(call, call.params["id"], operation="task_file")
    row = next((r for r in call.tx.task_refs(task.id) if r.id == call.params["refId"]), None)
    data = call.tx.blobs.get(row.blob) if row is not None and row.blob is not None else None
    if row is None or data is None:
        raise ServiceError(
            404, "no_file", f"task {task.id} has no stored file {call.params['refId']}"
        )
    name = row.meta.get("filename")
    mime = row.meta.get("mime")
    return {
        "id": row.id,
        "ref": row.ref,
        "version": row.version,
        "name": name if isinstance(name, str) else row.ref,
        "mime": mime if isinstance(mime, str) else "text/plain",
        "size": len(data),
        "data": base64.b64encode(data).decode("ascii"),
    }
