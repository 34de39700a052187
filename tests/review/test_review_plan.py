"""review_plan: which screens a review judges, whole or by a crop, and the sight rule."""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from PIL import Image, ImageDraw

from layoutkit import Principal, ServiceError, Workspace, limits
from layoutkit.review import images as review_images
from layoutkit.review import plan as planner
from layoutkit.review.diff import Pixels
from layoutkit.service.review import review_runs as runs
from layoutkit.storage import NewCard

AGENT = Principal.agent("claude")


def screen(
    label: str = "Save",
    *,
    size: tuple[int, int] = (1440, 900),
    dark: bool = False,
    rows: int = 8,
    seed: int = 0,
) -> bytes:
    """An app-like screen: a header, a list of rows, a button with a label."""
    bg, fg = ((24, 26, 32), (230, 232, 240)) if dark else ((250, 250, 252), (30, 34, 44))
    img = Image.new("RGB", size, bg)
    draw = ImageDraw.Draw(img)
    w, h = size
    draw.rectangle([0, 0, w, 64], fill=(60, 90, 200))
    draw.text((24, 20), f"Orders {seed}", fill=(255, 255, 255))
    for i in range(rows):
        y = 100 + i * 60
        draw.rectangle([24, y, w - 24, y + 48], outline=fg)
        draw.text((40, y + 16), f"Row {i} of screen {seed}", fill=fg)
    draw.rounded_rectangle([w - 200, h - 90, w - 40, h - 40], radius=8, fill=(40, 160, 90))
    draw.text((w - 170, h - 72), label, fill=(255, 255, 255))
    out = io.BytesIO()
    img.save(out, format="PNG")
    return out.getvalue()


def flat(color: tuple[int, int, int], size: tuple[int, int] = (1440, 900)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, color).save(out, format="PNG")
    return out.getvalue()


def skeleton() -> bytes:
    img = Image.new("RGB", (1440, 900), (245, 245, 245))
    draw = ImageDraw.Draw(img)
    for i in range(6):
        draw.rectangle([40, 80 + i * 120, 900, 160 + i * 120], fill=(225, 225, 225))
    out = io.BytesIO()
    img.save(out, format="PNG")
    return out.getvalue()


@pytest.fixture
def ws() -> Iterator[Workspace]:
    with Workspace.open() as workspace:
        yield workspace


def board(
    ws: Workspace, slug: str, images: list[bytes | None], *, project: str = "shop"
) -> list[int]:
    """A board of media cards, one per image (None: a card whose image was never stored)."""
    ws.call("create", {"kind": "board", "slug": slug, "project": project})
    with ws.store.transaction() as tx:
        found = tx.board_by_slug(ws.workspace_id, slug)
        assert found is not None
        cards = []
        for i, data in enumerate(images):
            ref = tx.blobs.put(data) if data is not None else "sha256:" + "0" * 64
            cards.append(
                NewCard(
                    "media",
                    {"ref": ref, "mime": "image/png"},
                    i * 500.0,
                    0.0,
                    480.0,
                    300.0,
                    "ai",
                    AGENT.label,
                )
            )
        return [c.id for c in tx.insert_cards(found.id, cards)]


def states(out: dict[str, Any]) -> dict[int, str]:
    return {r["cardId"]: r["state"] for r in out["receipts"]}


def sight_of(ws: Workspace, run: str) -> str:
    with ws.store.read() as tx:
        found = tx.review_run(ws.workspace_id, run)
        assert found is not None
        return found.sight


def test_a_plan_judges_each_screen_once_and_drops_gaps(ws: Workspace) -> None:
    base = screen()
    ids = board(
        ws,
        "app",
        [
            base,
            base,  # byte-identical: judged once
            screen("Send"),  # one label changed: a crop beside the first
            screen(dark=True),  # another theme: judged whole
            flat((255, 255, 255)),  # blank
            skeleton(),
            b"not a png at all",
            None,  # the shot failed: no image stored
        ],
    )
    out = ws.call("review_plan", {"boards": ["app"]}, AGENT)
    assert out["state"] == "planned" and out["run"].startswith("rr_")
    assert states(out) == {
        ids[0]: "blocked",  # judged once the run is verified
        ids[1]: "represented",
        ids[2]: "blocked",
        ids[3]: "blocked",
        ids[4]: "gap",
        ids[5]: "gap",
        ids[6]: "gap",
        ids[7]: "gap",
    }
    assert {r["cardId"]: r.get("by") for r in out["receipts"]}[ids[1]] == ids[0]
    assert {g["cardId"]: g["reason"] for g in out["gaps"]} == {
        ids[4]: "blank",
        ids[5]: "skeleton",
        ids[6]: "undecodable",
        ids[7]: "failed",
    }
    assert out["tiles"] == {"whole": 2, "crop": 1}
    assert out["sheets"] == 2  # whole screens and crops never share a sheet
    assert out["planned"] == {"judge": 3, "exactDuplicates": 1, "reused": 0, "gaps": 4}
    tokens = out["tokens"]
    assert tokens["plan"] < tokens["baseline"]
    assert tokens["saved"] == tokens["baseline"] - tokens["plan"]


def test_the_crop_covers_the_changed_label_only(ws: Workspace) -> None:
    board(ws, "app", [screen(), screen("Send")])
    out = ws.call("review_plan", {"boards": ["app"]}, AGENT)
    with ws.store.read() as tx:
        run = tx.review_run(ws.workspace_id, out["run"])
        assert run is not None
    (crop_tile,) = run.plan["sheets"][1]
    crop = crop_tile["crop"]
    assert crop_tile["whole"] is False and crop_tile["vs"] is not None
    # The button sits at the bottom right; the crop holds it and little else.
    assert crop["x"] >= 1440 - 260 and crop["y"] >= 900 - 140
    assert crop["w"] * crop["h"] < 0.05 * 1440 * 900


def test_sheets_hold_at_most_twelve_whole_screens(ws: Workspace) -> None:
    images = [screen(seed=i, rows=2 + i % 9, dark=i % 2 == 1) for i in range(14)]
    board(ws, "many", images)
    out = ws.call("review_plan", {"boards": ["many"]}, AGENT)
    with ws.store.read() as tx:
        run = tx.review_run(ws.workspace_id, out["run"])
        assert run is not None
    sizes = [len(sheet) for sheet in run.plan["sheets"]]
    assert all(n <= planner.MAX_WHOLE for n in sizes) and sum(sizes) == out["planned"]["judge"]


def journey(ws: Workspace, passes: int) -> None:
    ws.call("create", {"kind": "board", "slug": "flows", "project": "shop"})
    for n in range(passes):
        with ws.store.transaction() as tx:
            found = tx.board_by_slug(ws.workspace_id, "flows")
            assert found is not None
            (frame,) = tx.insert_cards(
                found.id,
                [
                    NewCard(
                        "section",
                        {"title": f"Checkout pass {n + 1}", "journey": "checkout", "pass": n + 1},
                        n * 2000.0,
                        0.0,
                        1800.0,
                        800.0,
                        "ai",
                        AGENT.label,
                    )
                ],
            )
            (shot,) = tx.insert_cards(
                found.id,
                [
                    NewCard(
                        "media",
                        {"ref": tx.blobs.put(screen(seed=10 + n)), "mime": "image/png"},
                        n * 2000.0 + 40,
                        80.0,
                        480.0,
                        300.0,
                        "ai",
                        AGENT.label,
                        parent_id=frame.id,
                    )
                ],
            )
            tx.update_cards([{"id": frame.id, "children": [shot.id]}])


def test_several_passes_need_a_scope(ws: Workspace) -> None:
    journey(ws, 2)
    with pytest.raises(ServiceError) as err:
        ws.call("review_plan", {"boards": ["flows"]}, AGENT)
    e = err.value
    assert (e.status, e.code) == (409, "needs_scope")
    options = {o["scope"]: o for o in e.body["options"]}
    assert options["latest"]["screens"] == 1 and options["all"]["screens"] == 2
    assert options["all"]["tokens"] > options["latest"]["tokens"] > 0
    assert options["latest"]["call"] == {"boards": ["flows"], "scope": "latest"}
    latest = ws.call("review_plan", options["latest"]["call"], AGENT)
    assert latest["planned"]["judge"] == 1
    every = ws.call("review_plan", options["all"]["call"], AGENT)
    assert every["planned"]["judge"] == 2


def test_over_the_screen_limit_needs_a_scope(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(planner, "MAX_SCREENS", 2)
    board(ws, "app", [screen(seed=i) for i in range(3)])
    with pytest.raises(ServiceError) as err:
        ws.call("review_plan", {"boards": ["app"]}, AGENT)
    assert (err.value.status, err.value.code, err.value.body["limit"]) == (409, "needs_scope", 2)


def test_boards_of_one_project_and_known_slugs(ws: Workspace) -> None:
    board(ws, "app", [screen()])
    board(ws, "other", [screen()], project="admin")
    with pytest.raises(ServiceError) as err:
        ws.call("review_plan", {"boards": ["app", "other"]}, AGENT)
    assert (err.value.status, err.value.code) == (400, "mixed_projects")
    with pytest.raises(ServiceError) as err:
        ws.call("review_plan", {"boards": ["app", "apq"]}, AGENT)
    e = err.value
    assert (e.status, e.code, e.body["field"]) == (404, "unknown_board", "boards[1]")
    assert e.body["didYouMean"] == ["app"]


def test_the_receipt_needs_the_sight_code_and_three_wrong_codes_lock_the_run(
    ws: Workspace,
) -> None:
    board(ws, "app", [screen()])
    run = ws.call("review_plan", {"boards": ["app"]}, AGENT)["run"]
    with pytest.raises(ServiceError) as err:
        ws.call("review_plan", {"run": run}, AGENT)
    assert (err.value.status, err.value.code) == (403, "sight_required")
    for tries_left in (2, 1):
        with pytest.raises(ServiceError) as err:
            ws.call("review_plan", {"run": run, "sight": "XXXX"}, AGENT)
        assert (err.value.status, err.value.body["triesLeft"]) == (403, tries_left)
    with pytest.raises(ServiceError) as err:
        ws.call("review_plan", {"run": run, "sight": "XXXX"}, AGENT)
    assert (err.value.status, err.value.code) == (409, "sight_locked")
    with pytest.raises(ServiceError) as err:  # the right code no longer opens it
        ws.call("review_plan", {"run": run, "sight": sight_of(ws, run)}, AGENT)
    assert err.value.code == "sight_locked"


def test_a_receipt_before_every_sheet_was_served_keeps_the_run_pending(ws: Workspace) -> None:
    board(ws, "app", [screen()])
    run = ws.call("review_plan", {"boards": ["app"]}, AGENT)["run"]
    out = ws.call("review_plan", {"run": run, "sight": sight_of(ws, run).lower()}, AGENT)
    assert out["state"] == "planned" and out["served"] == []
    assert set(states(out).values()) == {"blocked"}


# ---------------------------------------------------------------- the engine


def pixels(data: bytes) -> Pixels:
    rgba = np.asarray(Image.open(io.BytesIO(data)).convert("RGBA"))
    return Pixels.from_rgba(rgba)


def held(decoded: Pixels) -> planner.Loader:
    """A loader of pixels decoded beforehand."""
    return lambda: decoded


@pytest.mark.parametrize(
    ("width", "device"),
    [(390, "phone"), (599, "phone"), (600, "tablet"), (1099, "tablet"), (1100, "desktop")],
)
def test_devices_by_width(width: int, device: str) -> None:
    assert planner.device_of(width) == device


def test_gaps_and_themes() -> None:
    assert planner.gap_of(pixels(flat((12, 12, 12)))) == "blank"
    assert planner.gap_of(pixels(skeleton())) == "skeleton"
    assert planner.gap_of(pixels(screen())) is None
    assert planner.theme_of(pixels(screen(dark=True))) == "dark"
    assert planner.theme_of(pixels(screen())) == "light"


def test_a_near_duplicate_of_another_size_is_its_own_whole_tile() -> None:
    a, b = screen(), screen(size=(1440, 960))
    screens = [
        planner.Screen(1, "app", 1, "sha256:a", held(pixels(a))),
        planner.Screen(2, "app", 1, "sha256:b", held(pixels(b))),
    ]
    made = planner.make_plan(screens)
    assert [t.whole for t in made.tiles] == [True, True]


def test_screens_judged_before_are_reused_unless_full() -> None:
    screens = [planner.Screen(1, "app", 1, "sha256:a", held(pixels(screen())))]
    assert planner.make_plan(screens, judged={"sha256:a"}).receipts == {1: "reused"}
    assert planner.make_plan(screens, judged={"sha256:a"}, full=True).receipts == {1: "inspected"}


def test_scrape_shows_device_and_duplicates_of_image_cards(ws: Workspace) -> None:
    ids = board(ws, "app", [screen(), screen(), screen("Send"), screen(size=(390, 844))])
    before = {c["id"]: c for c in ws.call("scrape_board", {"board": "app"})["cards"]}
    assert "dup" not in before[ids[1]] and "vs" not in before[ids[0]]
    ws.call("review_plan", {"boards": ["app"]}, AGENT)
    cards = {c["id"]: c for c in ws.call("scrape_board", {"board": "app"})["cards"]}
    assert [cards[i]["device"] for i in ids] == ["desktop", "desktop", "desktop", "phone"]
    assert cards[ids[1]]["dup"] == ids[0] and cards[ids[2]]["dup"] == ids[0]
    assert "dup" not in cards[ids[0]] and "dup" not in cards[ids[3]]
    assert all("vs" not in c for c in cards.values())  # absent until scored


def test_the_plan_document(ws: Workspace, snapshot: Any) -> None:
    board(
        ws,
        "app",
        [screen(), screen(), screen("Send"), screen(dark=True), skeleton(), None],
    )
    out = ws.call("review_plan", {"boards": ["app"]}, AGENT)
    with ws.store.read() as tx:
        run = tx.review_run(ws.workspace_id, out["run"])
        assert run is not None
    # Blob keys are digests of PNG bytes, which another zlib may encode otherwise.
    assert len(run.plan["judged"]) == 3
    assert {k: v for k, v in run.plan.items() if k != "judged"} == snapshot
    assert {k: v for k, v in out.items() if k != "run"} == snapshot


def serve(ws: Workspace, run: str, sheet: int, sight: str | None = None) -> dict[str, Any]:
    params: dict[str, Any] = {"run": run, "sheet": sheet}
    if sight is not None:
        params["sight"] = sight
    return ws.call("get_card_image", params, AGENT)


def test_a_run_is_served_sheet_by_sheet_then_verified_and_its_screens_reused(
    ws: Workspace,
) -> None:
    ids = board(ws, "app", [screen(), screen("Send"), screen(dark=True)])
    planned = ws.call("review_plan", {"boards": ["app"]}, AGENT)
    run, code = planned["run"], sight_of(ws, planned["run"])
    assert planned["sheets"] == 2
    first = serve(ws, run, 1)  # sheet 1 prints the code; it needs none
    assert first["state"] == "pending" and first["image"]["mime"] == "image/png"
    assert code not in repr({k: v for k, v in first.items() if k != "image"})
    assert [t["cardId"] for t in first["tiles"]] == [ids[0], ids[2]]
    assert f"cardId={ids[0]}" in first["text"]
    with pytest.raises(ServiceError) as err:
        serve(ws, run, 2)
    assert (err.value.status, err.value.code) == (403, "sight_required")
    with pytest.raises(ServiceError) as err:
        serve(ws, run, 2, "ZZZZ")
    assert err.value.body["triesLeft"] == 2
    second = serve(ws, run, 2, code)
    (crop,) = second["tiles"]
    assert crop["cardId"] == ids[1] and crop["vs"] == ids[0] and "crop" in crop
    with pytest.raises(ServiceError) as err:
        serve(ws, run, 3, code)
    assert (err.value.status, err.value.code, err.value.body["sheets"]) == (404, "unknown_sheet", 2)
    receipt = ws.call("review_plan", {"run": run, "sight": code}, AGENT)
    assert receipt["state"] == "verified"
    assert set(states(receipt).values()) == {"inspected"}
    again = ws.call("review_plan", {"boards": ["app"]}, AGENT)
    assert set(states(again).values()) == {"reused"} and again["prior"] == [run]
    assert again["sheets"] == 0
    fresh = ws.call("review_plan", {"boards": ["app"], "full": True}, AGENT)
    assert fresh["planned"]["reused"] == 0 and fresh["sheets"] == 2


def test_a_rule_edit_judges_again(ws: Workspace) -> None:
    board(ws, "app", [screen()])
    planned = ws.call("review_plan", {"boards": ["app"]}, AGENT)
    run, code = planned["run"], sight_of(ws, planned["run"])
    serve(ws, run, 1)
    ws.call("review_plan", {"run": run, "sight": code}, AGENT)
    ws.call("put_review_rule", {"project": "shop", "id": "copy", "enabled": False})
    again = ws.call("review_plan", {"boards": ["app"]}, AGENT)
    assert again["planned"]["reused"] == 0 and again["prior"] == []


def test_a_locked_run_serves_no_sheet(ws: Workspace) -> None:
    board(ws, "app", [screen(seed=i, rows=2 + i, dark=i % 2 == 1) for i in range(13)])
    run = ws.call("review_plan", {"boards": ["app"]}, AGENT)["run"]
    for _ in range(3):
        with pytest.raises(ServiceError):
            serve(ws, run, 2, "ZZZZ")
    with pytest.raises(ServiceError) as err:
        serve(ws, run, 1)
    assert (err.value.status, err.value.code) == (409, "sight_locked")


def test_a_plan_takes_up_to_fifty_boards_each_once(ws: Workspace) -> None:
    slugs = [f"app-{i}" for i in range(runs.MAX_BOARDS + 1)]
    for slug in slugs:
        ws.call("create", {"kind": "board", "slug": slug, "project": "shop"})
    board(ws, "app-0-shots", [screen()])
    at_cap = ["app-0-shots", *slugs[: runs.MAX_BOARDS - 1]]
    out = ws.call("review_plan", {"boards": at_cap}, AGENT)
    assert out["boards"] == at_cap and out["planned"]["judge"] == 1
    with pytest.raises(ServiceError) as err:
        ws.call("review_plan", {"boards": slugs}, AGENT)
    e = err.value
    assert (e.status, e.code, e.body["field"]) == (400, "invalid_params", "boards")
    assert "51 items; at most 50" in str(e)


def test_a_refused_plan_of_thousands_of_boards_reads_none_and_quotes_none(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 20,000 copies of one slug held a worker for seconds, one board read per copy.
    board(ws, "app", [screen()])
    monkeypatch.setattr(runs, "_boards", _never_called)
    with pytest.raises(ServiceError) as err:
        ws.call("review_plan", {"boards": ["app"] * 20_000}, AGENT)
    e = err.value
    assert (e.status, e.code, e.body["field"]) == (400, "invalid_params", "boards")
    assert e.body["findings"] == [{"path": "boards", "message": "20000 items; at most 50"}]


def _never_called(*args: object) -> None:
    raise AssertionError("a refused plan read its boards")


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"boards": ["app", "admin", "app"]}, "boards[2]"),
        ({"boards": ["app"], "sections": ["Checkout", "Login", "Login"]}, "sections[2]"),
    ],
)
def test_a_board_or_section_named_twice_is_refused_at_the_repeat(
    ws: Workspace, params: dict[str, Any], field: str
) -> None:
    board(ws, "app", [screen()])
    board(ws, "admin", [screen()])
    with pytest.raises(ServiceError) as err:
        ws.call("review_plan", params, AGENT)
    e = err.value
    assert (e.status, e.code, e.body["field"]) == (400, "invalid_params", field)
    assert f"{field}: {params[field.split('[')[0]][-1]!r} repeats item" in str(e)


def test_more_than_fifty_sections_are_refused(ws: Workspace) -> None:
    board(ws, "app", [screen()])
    names = [f"Section {i}" for i in range(runs.MAX_SECTIONS + 1)]
    with pytest.raises(ServiceError) as err:
        ws.call("review_plan", {"boards": ["app"], "sections": names}, AGENT)
    assert (err.value.code, err.value.body["field"]) == ("invalid_params", "sections")


def test_a_screen_over_the_decode_cap_is_judged_reduced_in_natural_pixels(
    ws: Workspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    # 1440 x 900 is over a cap of 400,000 pixels: decoded at half size, reported whole.
    monkeypatch.setitem(limits.LIMITS, "decodePixels", 400_000)
    decoded = review_images.decode(screen())
    assert (decoded.size, decoded.factor, decoded.natural_size) == ((720, 450), 2, (1440, 900))
    board(ws, "app", [screen(), screen("Send")])
    out = ws.call("review_plan", {"boards": ["app"]}, AGENT)
    with ws.store.read() as tx:
        run = tx.review_run(ws.workspace_id, out["run"])
        assert run is not None
    (whole,), (crop_tile,) = run.plan["sheets"]
    assert (whole["width"], whole["height"]) == (1440, 900)
    crop = crop_tile["crop"]
    assert (crop_tile["width"], crop_tile["height"]) == (1440, 900)
    assert crop["x"] >= 1440 - 260 and crop["y"] >= 900 - 140
    assert crop["x"] + crop["w"] <= 1440 and crop["y"] + crop["h"] <= 900
    assert crop["w"] * crop["h"] < 0.05 * 1440 * 900


def test_reduced_screens_of_two_natural_sizes_are_a_size_change(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(limits.LIMITS, "decodePixels", 400_000)
    # 1440 x 900 and 1439 x 900 both reduce to 720 x 450.
    a, b = review_images.decode(screen()), review_images.decode(screen(size=(1439, 900)))
    assert a.size == b.size and a.natural_size != b.natural_size
    screens = [
        planner.Screen(1, "app", 1, "sha256:a", held(a)),
        planner.Screen(2, "app", 1, "sha256:b", held(b)),
    ]
    made = planner.make_plan(screens)
    assert [(t.whole, t.width) for t in made.tiles] == [(True, 1440), (True, 1439)]
