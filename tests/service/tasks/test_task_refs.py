"""Task refs: kinds and keys, versions, uploads, reading within a budget, and ask_task."""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

import pytest

from layoutkit import ServiceError, Workspace
from layoutkit.service.road.ai import AiError, OpenAICompatibleBackend, backend_from_env
from layoutkit.service.tasks.task_refs import MAX_BINARY_BYTES, MAX_UPLOAD_BYTES, UPLOAD_EXTENSIONS


def _task(ws: Workspace, **fields: object) -> int:
    return ws.call("create", {"kind": "task", "title": "T", **fields})["task"]["id"]


def _refused(ws: Workspace, op: str, params: dict) -> ServiceError:
    with pytest.raises(ServiceError) as exc:
        ws.call(op, params)
    return exc.value


def test_keys_are_kept_in_one_form_per_kind(ws: Workspace) -> None:
    ws.call("create", {"kind": "board", "slug": "plan-board"})
    task = _task(ws)
    cases = [
        ("pr", "https://github.com/acme/web/pull/12", "acme/web#12"),
        ("pr", "acme/web#13", "acme/web#13"),
        ("board", "/boards/plan-board", "plan-board"),
        ("board", "plan-board", "plan-board"),
        ("commit", "acme/web@ABCDEF1", "acme/web@abcdef1"),
        ("plan", "https://docs.example/plan", "https://docs.example/plan"),
        ("session", "  s-123 ", "s-123"),
    ]
    for kind, given, kept in cases:
        ref = ws.call("add_task_ref", {"id": task, "kind": kind, "ref": given})["ref"]
        assert (ref["kind"], ref["ref"]) == (kind, kept), given
    bad = [
        ("pr", "acme/web 12", "invalid_ref", 400),
        ("commit", "not-a-sha", "invalid_ref", 400),
        ("notes", "just words", "invalid_ref", 400),  # document kinds take a URL
        ("board", "no-such-board", "unknown_board", 404),
    ]
    for kind, given, code, status in bad:
        err = _refused(ws, "add_task_ref", {"id": task, "kind": kind, "ref": given})
        assert (err.status, err.code) == (status, code), given


def test_reattaching_updates_meta_and_never_adds_or_replaces_a_version(ws: Workspace) -> None:
    task = _task(ws)
    first = ws.call(
        "add_task_ref",
        {
            "id": task,
            "kind": "session",
            "ref": "s-1",
            "meta": {"hint": "when stuck", "tokens": 900},
        },
    )
    assert first["attached"] == "new"
    again = ws.call(
        "add_task_ref",
        {"id": task, "kind": "session", "ref": "s-1", "meta": {"load": "never", "tokens": None}},
    )
    assert again["attached"] == "meta"
    assert (again["ref"]["version"], again["ref"]["versions"]) == (1, 1)
    assert again["ref"]["meta"] == {"hint": "when stuck", "load": "never"}
    err = _refused(
        ws, "add_task_ref", {"id": task, "kind": "session", "ref": "s-2", "meta": {"hint": "a\nb"}}
    )
    assert (err.status, err.body["field"]) == (400, "meta.hint")
    err = _refused(
        ws, "add_task_ref", {"id": task, "kind": "session", "ref": "s-2", "meta": {"load": "later"}}
    )
    assert err.code == "invalid_params"


def test_a_merged_pr_completes_the_task(ws: Workspace) -> None:
    task = _task(ws, status="in_review")
    open_pr = ws.call("add_task_ref", {"id": task, "kind": "pr", "ref": "a/b#1"})
    assert open_pr["task"]["status"] == "in_review"
    merged = ws.call(
        "add_task_ref", {"id": task, "kind": "pr", "ref": "a/b#1", "meta": {"merged": True}}
    )
    assert merged["task"]["status"] == "done"
    events = ws.call("get", {"kind": "task", "id": task})["events"]
    assert events[-1]["detail"]["why"] == "PR a/b#1 merged"
    # A cancelled task stays cancelled.
    other = _task(ws, status="cancelled")
    out = ws.call(
        "add_task_ref", {"id": other, "kind": "pr", "ref": "a/b#2", "meta": {"merged": True}}
    )
    assert out["task"]["status"] == "cancelled"


def test_the_same_filename_is_the_next_version_and_version_of_continues_a_lineage(
    any_ws: Workspace,
) -> None:
    task = _task(any_ws)
    one = any_ws.call(
        "upload_task_file",
        {"id": task, "filename": "notes.md", "content": "first", "hint": "read before coding"},
    )
    assert set(one) == {"task", "refs", "uploaded"}
    two = any_ws.call("upload_task_file", {"id": task, "filename": "notes.md", "content": "second"})
    assert [u["version"] for u in one["uploaded"] + two["uploaded"]] == [1, 2]
    (ref,) = two["refs"]
    assert (ref["ref"], ref["version"], ref["versions"]) == ("notes.md", 2, 2)
    assert ref["meta"]["hint"] == "read before coding"  # carried to the next version
    three = any_ws.call(
        "upload_task_file",
        {"id": task, "filename": "notes-final.md", "content": "third", "versionOf": "notes.md"},
    )
    assert three["uploaded"][0]["version"] == 3
    assert three["refs"][0]["meta"]["filename"] == "notes-final.md"
    brief = any_ws.call(
        "upload_task_file",
        {
            "id": task,
            "kind": "brief",
            "filename": "notes.md",
            "content": "a brief",
            "load": "first",
        },
    )
    # A lineage is per kind: a brief of the same name starts its own.
    assert brief["uploaded"][0]["version"] == 1
    assert (
        any_ws.call("read_task_ref", {"id": task, "ref": "notes.md", "kind": "file"})["content"]
        == "third"
    )
    v1 = any_ws.call("read_task_ref", {"id": task, "ref": "notes.md", "kind": "file", "version": 1})
    assert v1["content"] == "first"
    missing = _refused(
        any_ws,
        "upload_task_file",
        {"id": task, "filename": "x.md", "content": "x", "versionOf": "noets.md"},
    )
    assert (missing.status, missing.code, missing.body["didYouMean"]) == (
        404,
        "unknown_ref",
        ["notes.md"],
    )


def test_uploads_are_text_files_of_the_listed_kinds_up_to_one_mib(ws: Workspace) -> None:
    task = _task(ws)
    for ext in UPLOAD_EXTENSIONS:
        ws.call("upload_task_file", {"id": task, "filename": f"f{ext.upper()}", "content": "ok"})
    for name in ("photo.png", "script.py", "noext", "notes.yml"):
        err = _refused(ws, "upload_task_file", {"id": task, "filename": name, "content": "x"})
        assert (err.status, err.code) == (415, "unsupported_file"), name
    big = "x" * (MAX_UPLOAD_BYTES + 1)
    err = _refused(ws, "upload_task_file", {"id": task, "filename": "big.txt", "content": big})
    assert (err.status, err.code, err.body["limit"]) == (413, "payload_too_large", MAX_UPLOAD_BYTES)
    exact = ws.call(
        "upload_task_file", {"id": task, "filename": "max.txt", "content": "x" * MAX_UPLOAD_BYTES}
    )
    assert exact["uploaded"][0]["size"] == MAX_UPLOAD_BYTES
    binary = base64.b64encode(b"\x89PNG\r\n\x1a\n\x00\x00").decode()
    err = _refused(
        ws, "upload_task_file", {"id": task, "files": [{"name": "a.txt", "data": binary}]}
    )
    assert (err.status, err.code) == (415, "unsupported_file")
    # A path is never more than its last part.
    sneaky = ws.call(
        "upload_task_file", {"id": task, "filename": "../../etc/passwd.txt", "content": "x"}
    )
    assert sneaky["uploaded"][0]["ref"] == "passwd.txt"


def test_attach_keeps_any_other_file_as_it_is_and_text_by_the_text_rule(ws: Workspace) -> None:
    task = _task(ws)
    pdf = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n"
    files = [
        {"name": "spec.pdf", "data": base64.b64encode(pdf).decode()},
        {"name": "a.txt", "data": base64.b64encode(b"\x89PNG\r\n\x1a\n\x00").decode()},
        {"name": "plan.md", "data": base64.b64encode(b"# plan").decode()},
    ]
    out = ws.call("attach_task_files", {"id": task, "files": files})["uploaded"]
    assert [(u["ref"], u["mime"]) for u in out] == [
        ("spec.pdf", "application/pdf"),
        # named like text but a picture: kept as it is, served by what its bytes are
        ("a.txt", "image/png"),
        ("plan.md", "text/markdown"),
    ]
    assert "tokens" not in out[0] and out[2]["tokens"] == 2
    stored = ws.call("task_file", {"id": task, "refId": out[0]["id"]})
    assert base64.b64decode(stored["data"]) == pdf
    assert _refused(ws, "read_task_ref", {"id": task, "ref": "spec.pdf"}).code == "not_readable"
    big = base64.b64encode(b"\0" * (MAX_BINARY_BYTES + 1)).decode()
    err = _refused(ws, "attach_task_files", {"id": task, "files": [{"name": "b.bin", "data": big}]})
    assert (err.status, err.body["limit"]) == (413, MAX_BINARY_BYTES)


def test_read_task_ref_within_a_budget(ws: Workspace) -> None:
    task = _task(ws)
    text = "".join(f"line {i}\n" for i in range(400))  # 3,490 characters
    ws.call("upload_task_file", {"id": task, "filename": "log.log", "content": text})
    whole = ws.call("read_task_ref", {"id": task, "ref": "log.log", "budget": 1000})
    assert (whole["truncated"], whole["content"], whole["tokens"]) == (False, text, 873)
    cut = ws.call("read_task_ref", {"id": task, "ref": "log.log", "budget": 100})
    assert cut["truncated"] is True
    assert cut["content"] == text[:400]
    assert set(cut) >= {"ref", "version", "size", "tokens", "truncated", "content"}
    # A question without a backend reads the text as it is.
    asked = ws.call("read_task_ref", {"id": task, "ref": "log.log", "question": "errors?"})
    assert asked["content"] == text and "distilled" not in asked
    ws.call("add_task_ref", {"id": task, "kind": "pr", "ref": "a/b#1"})
    err = _refused(ws, "read_task_ref", {"id": task, "ref": "a/b#1"})
    assert (err.status, err.code) == (422, "not_readable")
    err = _refused(ws, "read_task_ref", {"id": task, "ref": "lgo.log"})
    assert (err.status, err.code, err.body["didYouMean"]) == (404, "unknown_ref", ["log.log"])


def test_ask_task_without_a_backend_is_501_do_not_retry(ws: Workspace) -> None:
    task = _task(ws)
    err = _refused(ws, "ask_task", {"id": task, "question": "what is left?"})
    assert (err.status, err.code, err.body["retry"]) == (501, "no_ai_backend", False)


# ----------------------------------------------------------------- an AI backend


class _Stub(BaseHTTPRequestHandler):
    """An OpenAI-compatible /chat/completions that answers what the test queued."""

    answers: ClassVar[list[str]] = []
    seen: ClassVar[list[dict]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        type(self).seen.append(
            {"path": self.path, "auth": self.headers.get("authorization"), **body}
        )
        if not type(self).answers:
            self.send_response(500)
            self.end_headers()
            return
        content = type(self).answers.pop(0)
        out = json.dumps({"choices": [{"message": {"role": "assistant", "content": content}}]})
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.end_headers()
        self.wfile.write(out.encode())

    def log_message(self, *args: object) -> None:
        """Keep the stub's request log out of the test output."""


@pytest.fixture
def stub() -> Iterator[str]:
    _Stub.answers, _Stub.seen = [], []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Stub)
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    )
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def test_the_openai_compatible_backend_talks_to_a_chat_completions_endpoint(stub: str) -> None:
    env = {"LAYOUTKIT_AI_URL": stub, "LAYOUTKIT_AI_MODEL": "m", "LAYOUTKIT_AI_KEY": "sk-secret"}
    backend = backend_from_env(env)
    assert isinstance(backend, OpenAICompatibleBackend) and "sk-secret" not in repr(backend)
    _Stub.answers.append("hello")
    assert backend.complete("sys", "hi", max_tokens=5) == "hello"
    sent = _Stub.seen[0]
    assert (sent["path"], sent["auth"], sent["model"], sent["max_tokens"]) == (
        "/v1/chat/completions",
        "Bearer sk-secret",
        "m",
        5,
    )
    assert [m["role"] for m in sent["messages"]] == ["system", "user"]
    with pytest.raises(AiError):
        backend.complete("sys", "hi", max_tokens=5)  # the stub answers 500 when empty
    assert backend_from_env({}) is None
    backend.close()


def test_a_backend_distils_long_refs_and_answers_ask_task_with_checked_citations(
    stub: str,
) -> None:
    with Workspace.open(ai=OpenAICompatibleBackend(stub)) as ws:
        task = _task(ws, type="epic", title="Checkout")
        child = _task(ws, title="Pay button", parentId=task)
        text = "The pay button is green. " * 100
        ws.call("upload_task_file", {"id": child, "filename": "spec.md", "content": text})
        _Stub.answers.append("Green pay button.")
        read = ws.call("read_task_ref", {"id": child, "ref": "spec.md", "budget": 50})
        assert (read["content"], read["distilled"], read["truncated"]) == (
            "Green pay button.",
            True,
            False,
        )
        assert _Stub.seen[-1]["max_tokens"] == 50
        _Stub.answers.append(
            json.dumps(
                {
                    "answer": "It is green.",
                    "citations": [
                        {"ref": "spec.md", "version": 1, "quote": "The pay button is green."},
                        {"ref": "spec.md", "version": 1, "quote": "a quote that is not there"},
                        {"ref": "other.md", "version": 1, "quote": "x"},
                    ],
                }
            )
        )
        answer = ws.call("ask_task", {"id": task, "question": "What colour is the button?"})
        assert answer["answer"] == "It is green."
        assert [c["quote"] for c in answer["citations"]] == ["The pay button is green."]
        assert set(answer["citations"][0]) == {"ref", "version", "at", "quote"}
        # The epic's tree (scope tree by default) reached the backend, the child included.
        assert "Pay button" in _Stub.seen[-1]["messages"][1]["content"]
        ws.call("update", {"kind": "task", "id": child, "project": None})
        ws.call(
            "create", {"kind": "task", "title": "Done one", "project": "shop", "status": "done"}
        )
        live = _task(ws, title="Live one", project="shop")
        _Stub.answers.append(
            json.dumps(
                {
                    "answer": "One.",
                    "tasks": [{"id": live, "why": "open"}, {"id": 999}],
                    "confidence": "sure",
                }
            )
        )
        out = ws.call("ask_task", {"project": "shop", "question": "What is open?"})
        assert [t["id"] for t in out["tasks"]] == [live]
        assert out["confidence"] == "low"  # not one of high, medium, low
        assert "Done one" not in _Stub.seen[-1]["messages"][1]["content"]
        err = _refused(ws, "ask_task", {"project": "shop", "scope": "tree", "question": "?"})
        assert err.status == 400
        # A backend that fails answers 502; read_task_ref still gives the cut text.
        failed = _refused(ws, "ask_task", {"id": task, "question": "again?"})
        assert (failed.status, failed.code) == (502, "ai_backend_failed")
        cut = ws.call("read_task_ref", {"id": child, "ref": "spec.md", "budget": 10})
        assert (cut["truncated"], len(cut["content"])) == (True, 40)
        assert "distilError" in cut


def test_task_file_hands_back_the_stored_bytes(ws: Workspace) -> None:
    task = _task(ws)
    up = ws.call("upload_task_file", {"id": task, "filename": "a.csv", "content": "x,y\n1,2\n"})
    ref_id = up["uploaded"][0]["id"]
    out = ws.call("task_file", {"id": task, "refId": ref_id})
    assert (out["name"], out["mime"], base64.b64decode(out["data"])) == (
        "a.csv",
        "text/csv",
        b"x,y\n1,2\n",
    )
    err = _refused(ws, "task_file", {"id": task, "refId": ref_id + 100})
    assert (err.status, err.code) == (404, "no_file")
