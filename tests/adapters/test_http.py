"""The HTTP adapter against a running uvicorn on 127.0.0.1."""

from __future__ import annotations

import base64
import io
import re
from typing import Any

import httpx
import pytest
from PIL import Image

from layoutkit import ServiceError, Workspace
from layoutkit.adapters.http import create_app, openapi_document
from tests.adapters.conftest import Api, LiveServer


def test_ops_route_runs_the_operation(api: Api) -> None:
    res = api.op("docs", {"topic": "chart"})
    assert res.status_code == 200
    assert res.json()["topic"] == "chart"


def test_no_credential_is_401(api: Api) -> None:
    res = httpx.post(f"{api.url}/api/v1/ops/docs", json={})
    assert res.status_code == 401
    assert res.json()["code"] == "unauthenticated"
    res = httpx.post(
        f"{api.url}/api/v1/ops/docs", json={}, headers={"authorization": "Bearer lkt_nope"}
    )
    assert res.status_code == 401


def test_tokens_act_as_their_principal(api: Api) -> None:
    api.op("create", {"kind": "board", "slug": "b"})
    agent = api.ws.create_token("agent", "claude")
    res = httpx.post(
        f"{api.url}/api/v1/boards/b/compose",
        json={"cards": [{"kind": "text", "payload": {"md": "hi"}}]},
        headers={"authorization": f"Bearer {agent}"},
    )
    assert res.status_code == 200, res.text
    card = api.op("scrape_board", {"board": "b"}).json()["cards"][0]
    assert card["layer"] == "ai"


def test_share_links_grant_one_board_and_one_mode(api: Api) -> None:
    api.op("create", {"kind": "board", "slug": "a"})
    api.op("create", {"kind": "board", "slug": "other"})
    url = api.op("share_board", {"board": "a"}).json()["url"]
    token = url.rsplit("/", 1)[-1]
    shared = {"authorization": f"Bearer {token}"}
    read = httpx.post(f"{api.url}/api/v1/ops/scrape_board", json={"board": "a"}, headers=shared)
    assert read.status_code == 200
    wrong_board = httpx.post(
        f"{api.url}/api/v1/ops/scrape_board", json={"board": "other"}, headers=shared
    )
    assert wrong_board.status_code == 403
    write = httpx.post(
        f"{api.url}/api/v1/boards/a/compose",
        json={"cards": [{"kind": "text", "payload": {"md": "x"}}]},
        headers=shared,
    )
    assert (write.status_code, write.json()["code"]) == (403, "forbidden")
    page = httpx.get(f"{api.url}{url}", follow_redirects=True)
    assert page.status_code == 200 and '"slug": "a"' in page.text
    assert "render_board" in _viewer_script(api, page.text)
    assert token not in page.text  # the page holds no credential; its cookie does


def test_errors_map_to_status_and_body(api: Api) -> None:
    res = api.op("docs", {"topic": "chrat"})
    assert res.status_code == 404
    body = res.json()
    assert body["code"] == "unknown_topic"
    assert "chart" in body["didYouMean"]


def test_unknown_operation_is_404(api: Api) -> None:
    res = api.op("compose_bored", {})
    assert res.status_code == 404
    assert res.json()["code"] == "unknown_operation"


def test_bad_json_is_400(api: Api) -> None:
    res = api.client.post(
        "/api/v1/ops/docs", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert res.status_code == 400
    assert res.json()["code"] == "invalid_json"


def test_invalid_params_name_the_field(api: Api) -> None:
    res = api.op("docs", {"topic": 3})
    assert res.status_code == 400
    assert res.json()["field"] == "topic"


def test_oversized_body_is_413(api: Api) -> None:
    big = b'{"element": "' + b"x" * (8 * 1024 * 1024 + 10) + b'"}'
    res = api.client.post(
        "/api/v1/ops/validate", content=big, headers={"content-type": "application/json"}
    )
    assert res.status_code == 413
    assert res.json()["code"] == "payload_too_large"


def test_named_routes_compose_and_search(api: Api) -> None:
    api.op("create", {"kind": "board", "slug": "roadmap"})
    res = api.client.post(
        "/api/v1/boards/roadmap/compose",
        json={"cards": [{"kind": "text", "payload": {"md": "Launch café"}, "ref": "a"}]},
    )
    assert res.status_code == 200
    receipt = res.json()
    assert receipt["cards"][0]["ref"] == "a"
    found = api.client.get("/api/v1/search", params={"q": "cafe"}).json()
    assert found["groups"]["cards"][0]["board"] == "roadmap"
    task = api.op("create", {"kind": "task", "title": "Roadmap review"}).json()["task"]
    resolved = api.client.get("/api/v1/search", params={"q": "roadmap", "mode": "resolve"}).json()
    assert (resolved["verdict"], resolved["candidates"][0]["id"]) == ("confident", task["id"])


def test_pages_route_names_an_unknown_card(api: Api) -> None:
    # Re-rendering works (tests/adapters/test_pdf_pages_http.py); a card that is not there is 404.
    res = api.client.post("/api/v1/cards/999999/pages", json={})
    assert res.status_code == 404
    assert res.json()["code"] == "unknown_card"


def test_openapi_document_lists_every_operation(api: Api) -> None:
    doc = httpx.get(f"{api.url}/api/v1/openapi.json").json()
    assert doc["openapi"].startswith("3.1")
    ids = {m["operationId"] for path in doc["paths"].values() for m in path.values()}
    assert {op["name"] for op in api.ws.operations()} <= ids


def test_unknown_boards_viewer_page_is_a_readable_404(api: Api) -> None:
    api.op("create", {"kind": "board", "slug": "real"})
    for slug in ("rael", "Not_A_Slug"):
        page = httpx.get(f"{api.url}/boards/{slug}")
        assert page.status_code == 404, slug
        assert page.headers["content-type"].startswith("text/html")
        assert "No such board" in page.text and f"“{slug}”" in page.text
        assert "render_board" not in page.text  # not the viewer that would poll forever
    escaped = httpx.get(f"{api.url}/boards/%3Cb%3Ex")
    assert escaped.status_code == 404 and "“&lt;b&gt;x”" in escaped.text
    assert httpx.get(f"{api.url}/boards/real").status_code == 200


def test_openapi_declares_the_bearer_credential(api: Api) -> None:
    doc = httpx.get(f"{api.url}/api/v1/openapi.json").json()
    schemes = doc["components"]["securitySchemes"]
    assert schemes["bearer"] == {**schemes["bearer"], "type": "http", "scheme": "bearer"}
    assert schemes["viewerCookie"] == {
        **schemes["viewerCookie"],
        "type": "apiKey",
        "in": "cookie",
        "name": "lk_token",
    }
    assert not [s for s in schemes.values() if s.get("in") == "query"]
    assert {"bearer": []} in doc["security"]
    operations = [m for path in doc["paths"].values() for m in path.values()]
    assert operations and all({"bearer": []} in m["security"] for m in operations)
    assert all("401" in m["responses"] for m in operations)
    upload = doc["paths"]["/api/v1/boards/{slug}/upload"]["post"]["responses"]
    assert "201" in upload and "200" not in upload


@pytest.mark.parametrize(("require_auth", "optional"), [(True, False), (False, True)])
def test_openapi_credential_is_optional_only_without_auth(
    require_auth: bool, optional: bool
) -> None:
    with Workspace.open() as ws:
        doc = openapi_document(ws, require_auth=require_auth)
    assert ({} in doc["security"]) is optional


def test_viewer_page_and_render(api: Api) -> None:
    api.op("create", {"kind": "board", "slug": "v"})
    api.client.post(
        "/api/v1/boards/v/compose", json={"cards": [{"kind": "note", "payload": {"md": "n"}}]}
    )
    page = httpx.get(f"{api.url}/boards/v")
    assert page.status_code == 200
    # what the page's script asks when no event stream is open
    assert "board_changes" in _viewer_script(api, page.text)
    svg = api.op("render_board", {"board": "v"}).json()
    assert svg["svg"].startswith("<svg") and svg["cards"] == 1


def test_multipart_upload_makes_media_and_file_cards(api: Api) -> None:
    import io

    from PIL import Image

    api.op("create", {"kind": "board", "slug": "up"})
    png = io.BytesIO()
    Image.new("RGB", (320, 200), "white").save(png, "PNG")
    res = api.client.post(
        "/api/v1/boards/up/upload",
        files=[
            ("files", ("shot.png", png.getvalue(), "image/png")),
            ("files", ("notes.txt", b"hello", "text/plain")),
        ],
        data={"createSection": "true", "section": "Uploads"},
    )
    assert res.status_code == 201, res.text
    kinds = [f["kind"] for f in res.json()["files"]]
    assert kinds == ["media", "file"]
    media = res.json()["files"][0]
    assert (media["natW"], media["natH"]) == (320, 200)
    # The created cards come back with their boxes, one per file.
    cards = {c["id"]: c for c in res.json()["cards"]}
    assert [cards[f["card"]]["kind"] for f in res.json()["files"]] == kinds
    assert all(c["w"] > 0 and c["h"] > 0 for c in cards.values())


def test_multipart_upload_needs_multipart(api: Api) -> None:
    api.op("create", {"kind": "board", "slug": "up"})
    res = api.client.post(
        "/api/v1/boards/up/upload", content=b"x", headers={"content-type": "text/plain"}
    )
    assert (res.status_code, res.json()["code"]) == (400, "invalid_upload")


def test_multipart_upload_is_held_to_the_upload_operations_limits(
    api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The adapter refuses before reading the body, with the operation's own cap.
    from layoutkit.service.uploads import uploads

    monkeypatch.setattr(uploads, "MAX_CALL_BYTES", 100)
    api.op("create", {"kind": "board", "slug": "up"})
    res = api.client.post(
        "/api/v1/boards/up/upload", files=[("files", ("a.txt", b"x" * 200, "text/plain"))]
    )
    assert (res.status_code, res.json()["code"]) == (413, "payload_too_large")
    assert res.json()["message"] == "uploads are at most 100 bytes"
    assert api.op("scrape_board", {"board": "up"}).json()["cards"] == []
    # The per-file cap is the operation's alone: it names the file that is over it.
    monkeypatch.setattr(uploads, "MAX_CALL_BYTES", 1000)
    monkeypatch.setattr(uploads, "MAX_FILE_BYTES", 10)
    res = api.client.post(
        "/api/v1/boards/up/upload",
        files=[
            ("files", ("a.txt", b"ok", "text/plain")),
            ("files", ("b.txt", b"x" * 11, "text/plain")),
        ],
    )
    assert (res.status_code, res.json()["code"], res.json()["index"]) == (
        413,
        "payload_too_large",
        1,
    )


def test_compose_cannot_forge_a_push_set_stamp(api: Api) -> None:
    api.op("create", {"kind": "board", "slug": "d"})
    doc = {
        "title": "T",
        "elements": [{"kind": "prose", "payload": {"md": "x"}}],
        "set": {"branch": "main", "version": 99},
    }
    api.client.post("/api/v1/boards/d/compose", json={"cards": [{"kind": "doc", "payload": doc}]})
    card = api.op("scrape_board", {"board": "d"}).json()["cards"][0]
    assert "set" not in card["payload"]


def test_query_numbers_that_only_look_like_digits_are_text(api: Api) -> None:
    # '²' passes str.isdigit() but is no number; it once crashed the search route.
    res = api.client.get("/api/v1/search", params={"q": "x", "limit": "²"})
    assert (res.status_code, res.json()["code"]) == (400, "invalid_params")


def test_named_route_bodies_show_the_operations_params_without_the_path_ones() -> None:
    doc = openapi_document(Workspace.open())
    body = doc["paths"]["/api/v1/boards/{slug}/compose"]["post"]["requestBody"]
    schema = body["content"]["application/json"]["schema"]
    # The slug travels in the path; everything else compose takes is declared.
    assert "board" not in schema["properties"]
    assert {"cards", "edges", "questions", "section", "requestKey"} <= set(schema["properties"])
    refresh = doc["paths"]["/api/v1/cards/{id}/refresh"]["post"]["requestBody"]
    assert "id" not in refresh["content"]["application/json"]["schema"]["properties"]


def test_all_digit_slugs_and_queries_stay_text_on_named_routes(api: Api) -> None:
    api.op("create", {"kind": "board", "slug": "2024"})
    res = api.client.post(
        "/api/v1/boards/2024/compose", json={"cards": [{"kind": "text", "payload": {"md": "y"}}]}
    )
    assert res.status_code == 200, res.text
    assert res.json()["board"] == "2024"
    found = api.client.get("/api/v1/search", params={"q": "2024", "limit": "5"})
    assert found.status_code == 200, found.text
    # A param declared as a number still arrives as one.
    assert api.client.post("/api/v1/cards/1/pages", json={}).json()["code"] != "invalid_params"


def test_a_file_cards_artifact_url_serves_the_document(api: Api) -> None:
    api.op("create", {"kind": "board", "slug": "files"})
    res = api.client.post(
        "/api/v1/boards/files/upload",
        files=[
            ("files", ("notes.txt", b"hello", "text/plain")),
            ("files", ("page.html", b"<script>alert(1)</script>", "text/html")),
        ],
    )
    assert res.status_code == 201, res.text
    cards = api.op("scrape_board", {"board": "files"}).json()["cards"]
    text_url, html_url = (c["artifact"] for c in cards)
    got = api.client.get(text_url)
    assert got.status_code == 200 and got.content == b"hello"
    assert got.headers["content-type"].startswith("text/plain")
    assert got.headers["x-content-type-options"] == "nosniff"
    # An uploaded page is never served as a page of this origin.
    page = api.client.get(html_url)
    assert page.headers["content-type"] == "application/octet-stream"
    assert page.headers["content-disposition"].startswith("attachment")
    assert httpx.get(f"{api.url}{text_url}").status_code == 401


def test_revoked_share_links_and_tokens_answer_401(api: Api) -> None:
    api.op("create", {"kind": "board", "slug": "r"})
    link = api.op("share_board", {"board": "r"}).json()
    shared = {"authorization": f"Bearer {link['url'].rsplit('/', 1)[-1]}"}
    agent = api.ws.create_token("agent", "revokable")
    as_agent = {"authorization": f"Bearer {agent}"}
    url = f"{api.url}/api/v1/ops/scrape_board"
    for headers in (shared, as_agent):
        assert httpx.post(url, json={"board": "r"}, headers=headers).status_code == 200
    revoked = api.op("revoke_share_link", {"board": "r", "id": link["id"]})
    assert revoked.status_code == 200, revoked.text
    (mine,) = httpx.post(f"{api.url}/api/v1/ops/list_tokens", json={}, headers=as_agent).json()[
        "tokens"
    ]
    own = httpx.post(
        f"{api.url}/api/v1/ops/revoke_token", json={"token": str(mine["id"])}, headers=as_agent
    )
    assert own.status_code == 200, own.text
    for headers in (shared, as_agent):
        refused = httpx.post(url, json={"board": "r"}, headers=headers)
        assert (refused.status_code, refused.json()["code"]) == (401, "unauthenticated")
    assert httpx.get(f"{api.url}{link['url']}").status_code == 404


def test_another_workspaces_token_joins_over_http_only_by_invitation(api: Api) -> None:
    studio = Workspace(api.ws.store, name="studio")
    try:
        with LiveServer(create_app(studio)) as server:
            bea = studio.create_token("owner", "bea")

            def as_bea(url: str, op: str, params: dict[str, Any]) -> httpx.Response:
                return httpx.post(
                    f"{url}/api/v1/ops/{op}",
                    json=params,
                    headers={"authorization": f"Bearer {bea}"},
                )

            (row,) = as_bea(server.url, "list_tokens", {}).json()["tokens"]
            # Studio's owner token, named by id in this workspace, is no token at all here.
            pulled = api.op("set_member", {"token": row["id"], "role": "owner"})
            never = api.op("set_member", {"token": 10**9, "role": "owner"})
            assert (pulled.status_code, pulled.json()["code"]) == (404, "unknown_token")
            assert pulled.json()["message"] == never.json()["message"].replace(
                str(10**9), str(row["id"])
            )
            assert api.op("revoke_token", {"token": str(row["id"])}).status_code == 404
            secret = api.op("invite_member", {"role": "member"}).json()["invitation"]
            accepted = as_bea(server.url, "accept_invitation", {"invitation": secret})
            assert accepted.status_code == 200, accepted.text
            assert accepted.json() == {
                "workspace": api.ws.name,
                "token": row["id"],
                "role": "member",
            }
            assert as_bea(api.url, "list_workspaces", {}).status_code == 200
            again = as_bea(server.url, "accept_invitation", {"invitation": secret})
            assert (again.status_code, again.json()["code"]) == (404, "unknown_invitation")
            ended = api.op("revoke_token", {"token": str(row["id"])}).json()
            assert (ended["membershipEnded"], ended["revoked"]) == (True, None)
            assert as_bea(api.url, "list_workspaces", {}).status_code == 401
            assert as_bea(server.url, "list_workspaces", {}).status_code == 200
    finally:
        # One store under both: the API's workspace closes it.
        studio.jobs.shutdown()
        studio.drawing.shutdown()


def test_api_routes_never_take_a_token_in_the_query(api: Api) -> None:
    api.op("create", {"kind": "board", "slug": "q"})
    url = f"{api.url}/api/v1/ops/scrape_board?token={api.token}"
    res = httpx.post(url, json={"board": "q"})
    assert (res.status_code, res.json()["code"]) == (401, "unauthenticated")
    search = httpx.get(f"{api.url}/api/v1/search", params={"q": "q", "token": api.token})
    assert search.status_code == 401


def test_the_viewer_trades_a_token_for_a_cookie_and_a_clean_address(api: Api) -> None:
    api.op("create", {"kind": "board", "slug": "v"})
    api.op("create", {"kind": "board", "slug": "other"})
    with httpx.Client(base_url=api.url) as browser:
        res = browser.get("/boards/v", params={"token": api.token, "section": "x"})
        assert res.status_code == 303
        assert res.headers["location"] == "/boards/v?section=x"
        cookie = res.headers["set-cookie"].lower()
        assert cookie.startswith(f"lk_token={api.token.lower()};")
        for attribute in ("httponly", "samesite=strict", "path=/api/v1"):
            assert attribute in cookie
        assert res.headers["referrer-policy"] == "no-referrer"
        page = browser.get(res.headers["location"])
        assert page.status_code == 200 and api.token not in page.text
        # The cookie is the viewer's credential on the API.
        assert browser.post("/api/v1/ops/scrape_board", json={"board": "v"}).status_code == 200
    bad = httpx.get(f"{api.url}/boards/v", params={"token": "lkt_nope"})
    assert bad.status_code == 401 and "set-cookie" not in bad.headers


def test_a_share_link_opens_the_viewer_with_a_cookie_for_its_board_only(api: Api) -> None:
    api.op("create", {"kind": "board", "slug": "shared"})
    api.op("create", {"kind": "board", "slug": "private"})
    url = api.op("share_board", {"board": "shared"}).json()["url"]
    with httpx.Client(base_url=api.url) as browser:
        res = browser.get(url)
        assert (res.status_code, res.headers["location"]) == (303, "/boards/shared")
        assert "httponly" in res.headers["set-cookie"].lower()
        assert browser.post("/api/v1/ops/scrape_board", json={"board": "shared"}).status_code == 200
        other = browser.post("/api/v1/ops/scrape_board", json={"board": "private"})
        assert other.status_code == 403


def _resolve(template: Any, answer: dict[str, Any]) -> Any:
    """A link's request body with its ``$response.body#/...`` pointers read from ``answer``."""
    if isinstance(template, dict):
        return {k: _resolve(v, answer) for k, v in template.items()}
    if isinstance(template, list):
        return [_resolve(v, answer) for v in template]
    if isinstance(template, str) and template.startswith("$response.body#/"):
        node: Any = answer
        for part in template.removeprefix("$response.body#/").split("/"):
            node = node[int(part)] if isinstance(node, list) else node[part]
        return node
    return template


def test_openapi_links_lead_from_real_answers_to_calls_that_work() -> None:
    """Each link names an operation, and following it from a real answer makes a call
    that the target accepts (or refuses for a reason of its own, never a 5xx)."""
    ws = Workspace.open()
    doc = openapi_document(ws)
    ops = {
        path.rsplit("/", 1)[-1]: entry["post"]
        for path, entry in doc["paths"].items()
        if path.startswith("/api/v1/ops/")
    }
    png = base64.b64encode(_png_bytes()).decode("ascii")
    answers = {
        "create": ws.call("create", {"kind": "board", "slug": "links"}),
        "compose_board": ws.call(
            "compose_board",
            {"board": "links", "cards": [{"kind": "note", "payload": {"md": "a"}}] * 4},
        ),
        "push_doc": ws.call(
            "push_doc",
            {"board": "links", "doc": {"kind": "doc", "payload": {"title": "D", "elements": []}}},
        ),
        "upload_files": ws.call(
            "upload_files", {"board": "links", "files": [{"name": "a.png", "data": png}]}
        ),
        "ask_board": ws.call("ask_board", {"board": "links", "prompt": "ok?", "options": ["yes"]}),
    }
    answers["update_cards"] = ws.call(
        "update_cards", {"remove": [answers["compose_board"]["cards"][3]["id"]]}
    )
    followed = 0
    for source, answer in answers.items():
        links = ops[source]["responses"]["200"].get("links", {})
        assert links, f"{source} links to nothing"
        for name, link in links.items():
            assert link["operationId"] in ops, (source, name)
            params = _resolve(link["requestBody"], answer)
            try:
                ws.call(link["operationId"], params)
            except ServiceError as exc:
                # A link gives only what it extracts; the caller fills in the rest, so a
                # refusal may name a missing param, never one the link filled in.
                assert exc.status < 500, (source, name, exc)
                assert exc.code not in ("unknown_board", "unknown_card"), (source, name, exc)
                field = str(exc.body.get("field", ""))
                assert not any(field.startswith(k) for k in params if k != "cards"), (
                    source,
                    name,
                    params,
                    exc,
                )
            else:
                if link["operationId"] == "update_cards" and "remove" in params:
                    ws.call("update_cards", {"restore": params["remove"]})  # for the next links
            followed += 1
    assert followed > 20


def _png_bytes() -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (4, 3), "teal").save(buf, "PNG")
    return buf.getvalue()


def _viewer_script(api: Api, page: str) -> str:
    """The script a viewer page loads (served apart from the page, by its digest)."""
    src = re.search(r'<script src="(/viewer\.js\?v=[0-9a-f]+)"', page)
    assert src is not None, "the page loads its script"
    script = httpx.get(f"{api.url}{src[1]}")
    assert script.status_code == 200
    return script.text
