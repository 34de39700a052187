"""push_doc: set versions per branch, shots and file names to blobs, sources aliases to URLs."""

from __future__ import annotations

import base64
import copy
import io
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from layoutkit import Workspace
from layoutkit.storage import blob_key
from tests.service.helpers import assert_tidy, err


def png(w: int, h: int, color: str = "teal") -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (w, h), color).save(buf, "PNG")
    return buf.getvalue()


HOME = png(320, 200)
CART = png(200, 400, "navy")


def entry(name: str, data: bytes) -> dict[str, Any]:
    return {"name": name, "data": base64.b64encode(data).decode("ascii")}


def doc(*elements: dict[str, Any], **payload: Any) -> dict[str, Any]:
    return {
        "kind": "doc",
        "payload": {"title": "Release notes", **payload, "elements": list(elements)},
    }


def prose(md: str) -> dict[str, Any]:
    return {"kind": "prose", "payload": {"md": md}}


@pytest.fixture
def ws() -> Workspace:
    ws = Workspace.open()
    ws.call("create", {"kind": "board", "slug": "docs"})
    return ws


def payload(ws: Workspace, card_id: int) -> dict[str, Any]:
    with ws.store.read() as tx:
        return tx.card(card_id).payload


def push(ws: Workspace, **params: Any) -> dict[str, Any]:
    return ws.call("push_doc", {"board": "docs", **params})


# ---------------------------------------------------------------- versions


def test_first_push_is_version_1_on_main(ws: Workspace) -> None:
    r = push(ws, doc=doc(prose("hello")))
    assert (r["board"], r["branch"], r["version"], r["previous"]) == ("docs", "main", 1, None)
    stamp = payload(ws, r["card"])["set"]
    assert stamp == {"branch": "main", "version": 1, "files": {}, "shots": [], "shotMeta": []}


def test_re_push_takes_the_next_version_beside_the_latest(ws: Workspace) -> None:
    first = push(ws, doc=doc(prose("v1")))
    second = push(ws, doc=doc(prose("v2")))
    assert (second["version"], second["previous"]) == (2, first["card"])
    assert second["placedAs"] == "beside"
    assert second["x"] >= first["x"] + first["w"]
    assert payload(ws, first["card"])["elements"][0]["payload"]["md"] == "v1"
    assert_tidy(ws, "docs")


def test_branches_count_separately(ws: Workspace) -> None:
    push(ws, doc=doc(prose("a")))
    push(ws, doc=doc(prose("b")))
    r = push(ws, doc=doc(prose("c")), branch="feature/login")
    assert (r["branch"], r["version"], r["previous"]) == ("feature/login", 1, None)
    assert push(ws, doc=doc(prose("d")))["version"] == 3


def test_a_removed_version_number_is_never_reused(ws: Workspace) -> None:
    push(ws, doc=doc(prose("a")))
    second = push(ws, doc=doc(prose("b")))
    with ws.store.transaction() as tx:
        tx.remove_cards([second["card"]], by="test")
    third = push(ws, doc=doc(prose("c")))
    assert third["version"] == 3
    assert third["previous"] != second["card"]


def test_versions_are_per_board(ws: Workspace) -> None:
    ws.call("create", {"kind": "board", "slug": "other"})
    push(ws, doc=doc(prose("a")))
    r = ws.call("push_doc", {"board": "other", "doc": doc(prose("a"))})
    assert r["version"] == 1


@settings(max_examples=15, deadline=None)
@given(st.lists(st.sampled_from(["main", "dev", "x.1"]), min_size=1, max_size=6))
def test_each_branch_numbers_its_pushes_1_to_n(branches: list[str]) -> None:
    ws = Workspace.open()
    ws.call("create", {"kind": "board", "slug": "docs"})
    seen: dict[str, list[int]] = {}
    for b in branches:
        seen.setdefault(b, []).append(push(ws, doc=doc(prose(b)), branch=b)["version"])
    for versions in seen.values():
        assert versions == list(range(1, len(versions) + 1))


def test_push_into_a_section(ws: Workspace) -> None:
    r = push(ws, doc=doc(prose("a")), section="Docs")
    assert r["sections"][0]["title"] == "Docs"
    assert r["container"] == r["sections"][0]["id"]
    r2 = push(ws, doc=doc(prose("b")), section="Docs")
    assert (r2["version"], r2["container"]) == (2, r["container"])


def test_bad_branch_name_is_refused(ws: Workspace) -> None:
    e = err(ws, "push_doc", {"board": "docs", "doc": doc(prose("a")), "branch": "-x y"})
    assert (e.status, e.code, e.body["field"]) == (400, "invalid_params", "branch")


# ---------------------------------------------------------------- shots and files


def test_figure_shot_resolves_to_the_shot_file_blob(ws: Workspace) -> None:
    r = push(
        ws,
        doc=doc({"kind": "figure", "payload": {"shot": 1, "caption": "Cart"}}),
        files=[entry("home.png", HOME), entry("shots/cart.png", CART)],
        shots=["home.png", {"file": "shots/cart.png", "title": "Cart page", "device": "phone"}],
    )
    figure = payload(ws, r["card"])["elements"][0]["payload"]
    assert figure == {"ref": blob_key(CART), "caption": "Cart", "alt": "Cart page"}
    assert r["shots"] == 1 + 1
    with ws.store.read() as tx:
        assert tx.blobs.get(blob_key(CART)) == CART
    stamp = payload(ws, r["card"])["set"]
    assert stamp["files"] == {"home.png": blob_key(HOME), "shots/cart.png": blob_key(CART)}
    assert stamp["shots"] == [blob_key(HOME), blob_key(CART)]


def test_file_names_in_figure_gallery_and_media_resolve(ws: Workspace) -> None:
    r = push(
        ws,
        doc=doc(
            {"kind": "figure", "payload": {"src": "home.png", "alt": "Home"}},
            {"kind": "figure", "payload": {"ref": "cart.png", "alt": "Cart"}},
            {
                "kind": "gallery",
                "payload": {
                    "items": [
                        {"shot": 0, "alt": "first"},
                        {"src": "cart.png", "alt": "second"},
                        {"src": "https://example.com/x.png", "alt": "remote"},
                    ]
                },
            },
            {"kind": "media", "payload": {"ref": "home.png", "mime": "image/png"}},
        ),
        files=[entry("home.png", HOME), entry("cart.png", CART)],
        shots=["cart.png"],
    )
    els = payload(ws, r["card"])["elements"]
    assert els[0]["payload"] == {"alt": "Home", "ref": blob_key(HOME)}
    assert els[1]["payload"] == {"ref": blob_key(CART), "alt": "Cart"}
    items = els[2]["payload"]["items"]
    assert [i.get("ref") for i in items] == [blob_key(CART), blob_key(CART), None]
    assert items[2]["src"] == "https://example.com/x.png"
    assert els[3]["payload"]["ref"] == blob_key(HOME)


def test_unknown_shot_index_is_refused_with_its_path(ws: Workspace) -> None:
    e = err(
        ws,
        "push_doc",
        {
            "board": "docs",
            "doc": doc(prose("x"), {"kind": "figure", "payload": {"shot": 2}}),
            "files": [entry("home.png", HOME)],
            "shots": ["home.png"],
        },
    )
    assert (e.status, e.code, e.body["field"]) == (
        400,
        "unknown_shot",
        "doc.payload.elements[1].payload.shot",
    )


def test_unknown_file_name_suggests_set_files(ws: Workspace) -> None:
    e = err(
        ws,
        "push_doc",
        {
            "board": "docs",
            "doc": doc({"kind": "figure", "payload": {"src": "hme.png"}}),
            "files": [entry("home.png", HOME)],
        },
    )
    assert (e.status, e.code, e.body["didYouMean"]) == (400, "unknown_file", ["home.png"])
    e = err(ws, "push_doc", {"board": "docs", "doc": doc(prose("x")), "shots": ["gone.png"]})
    assert (e.code, e.body["field"]) == ("unknown_file", "shots[0]")


def test_blob_refs_must_exist(ws: Workspace) -> None:
    missing = blob_key(b"never stored")
    e = err(
        ws,
        "push_doc",
        {"board": "docs", "doc": doc({"kind": "figure", "payload": {"ref": missing}})},
    )
    assert (e.status, e.code, e.body["missing"]) == (400, "unknown_blob", [missing])
    ws.call("upload_files", {"board": "docs", "files": [entry("h.png", HOME)]})
    ok = push(ws, doc=doc({"kind": "figure", "payload": {"ref": blob_key(HOME), "alt": "h"}}))
    assert ok["version"] == 1


def test_duplicate_file_names_are_refused(ws: Workspace) -> None:
    e = err(
        ws,
        "push_doc",
        {
            "board": "docs",
            "doc": doc(prose("x")),
            "files": [entry("a.png", HOME), entry("a.png", CART)],
        },
    )
    assert (e.status, e.code) == (400, "duplicate_file")


def test_file_limits_apply(ws: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    from layoutkit.service.uploads import uploads

    monkeypatch.setattr(uploads, "MAX_FILE_BYTES", 10)
    e = err(
        ws, "push_doc", {"board": "docs", "doc": doc(prose("x")), "files": [entry("a.png", HOME)]}
    )
    assert (e.status, e.code) == (413, "payload_too_large")


# ---------------------------------------------------------------- sources


SOURCES = {
    "app": {"repo": "acme/shop", "ref": "3f2a9c1"},
    "lab": {"repo": "gitlab.com/acme/lab", "ref": "main"},
}


def test_sources_aliases_expand_in_markdown_and_hrefs(ws: Workspace) -> None:
    md = (
        'See [the handler](app:src/cart.py#L10-L24 "title") and <lab:README.md>.\n\n'
        "Keep [mail](mailto:a@b.c), [web](https://x.io/app:y) and [other](zzz:path).\n\n"
        "[def]: app:docs/a.md"
    )
    table = {
        "kind": "table",
        "payload": {
            "cols": [{"key": "f", "type": "link"}],
            "rows": [
                {"f": {"v": "cart", "href": "app:src/cart.py#L3"}},
                {"f": {"v": "x", "href": "#top"}},
            ],
        },
    }
    code = {"kind": "code", "payload": {"source": "[a](app:b)", "lang": "md"}}
    r = push(ws, doc=doc(prose(md), table, code, sources=SOURCES))
    assert r["linksExpanded"] == 4
    els = payload(ws, r["card"])["elements"]
    assert els[0]["payload"]["md"] == (
        'See [the handler](https://github.com/acme/shop/blob/3f2a9c1/src/cart.py#L10-L24 "title") '
        "and <https://gitlab.com/acme/lab/-/blob/main/README.md>.\n\n"
        "Keep [mail](mailto:a@b.c), [web](https://x.io/app:y) and [other](zzz:path).\n\n"
        "[def]: https://github.com/acme/shop/blob/3f2a9c1/docs/a.md"
    )
    rows = els[1]["payload"]["rows"]
    assert rows[0]["f"]["href"] == "https://github.com/acme/shop/blob/3f2a9c1/src/cart.py#L3"
    assert rows[1]["f"]["href"] == "#top"
    assert els[2]["payload"]["source"] == "[a](app:b)"  # code is verbatim
    assert payload(ws, r["card"])["sources"] == SOURCES


def test_nested_elements_expand_too(ws: Workspace) -> None:
    section = {
        "kind": "section",
        "payload": {
            "title": "Deep",
            "elements": [{"kind": "list", "payload": {"items": ["[x](app:x.py)"]}}],
        },
    }
    r = push(ws, doc=doc(section, sources=SOURCES))
    items = payload(ws, r["card"])["elements"][0]["payload"]["elements"][0]["payload"]["items"]
    assert items == ["[x](https://github.com/acme/shop/blob/3f2a9c1/x.py)"]


@pytest.mark.parametrize("alias", ["https", "mailto", "JavaScript", "9x", "a b"])
def test_aliases_that_shadow_schemes_or_are_malformed_are_refused(
    ws: Workspace, alias: str
) -> None:
    e = err(
        ws,
        "push_doc",
        {"board": "docs", "doc": doc(prose("x"), sources={alias: {"repo": "o/r", "ref": "m"}})},
    )
    assert e.status == 400
    assert e.code in ("invalid_source_alias", "invalid_params")


# ---------------------------------------------------------------- contract and calls


def test_not_a_doc_is_refused(ws: Workspace) -> None:
    e = err(ws, "push_doc", {"board": "docs", "doc": prose("x")})
    assert (e.status, e.code, e.body["field"]) == (400, "not_a_doc", "doc")


def test_invalid_doc_reports_nested_findings(ws: Workspace) -> None:
    e = err(
        ws,
        "push_doc",
        {"board": "docs", "doc": doc({"kind": "chart", "payload": {"viz": "sparkle"}})},
    )
    assert e.status == 400
    assert any(f["path"] == "payload.elements[0].payload.viz" for f in e.body["findings"])
    assert ws.call("scrape_board", {"board": "docs"})["cards"] == []


def test_authored_set_stamp_is_overwritten(ws: Workspace) -> None:
    r = push(ws, doc=doc(prose("x"), set={"branch": "forged", "version": 99}))
    assert payload(ws, r["card"])["set"]["version"] == 1


def test_params_are_not_mutated_and_request_key_replays(ws: Workspace) -> None:
    params = {
        "board": "docs",
        "doc": doc(
            {"kind": "figure", "payload": {"shot": 0}}, prose("[a](app:x)"), sources=SOURCES
        ),
        "files": [entry("home.png", HOME)],
        "shots": ["home.png"],
        "requestKey": "push-1",
    }
    before = copy.deepcopy(params)
    first = ws.call("push_doc", params)
    assert params == before
    assert ws.call("push_doc", params) == first
    assert len(ws.call("scrape_board", {"board": "docs"})["cards"]) == 1


def test_doc_card_is_sized_like_a_composed_doc(ws: Workspace) -> None:
    d = doc(prose("one"), prose("two"))
    r = push(ws, doc=d)
    composed = ws.call("compose_board", {"board": "docs", "cards": [d]})["cards"][0]
    assert (r["w"], r["h"]) == (composed["w"], composed["h"])
