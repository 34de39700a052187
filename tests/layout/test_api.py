from __future__ import annotations

import pytest

import layoutkit.layout as layout


def test_public_surface_is_pinned():
    assert sorted(layout.__all__) == sorted(
        [
            "ARRANGE_MODES",
            "BLOCK_GAP",
            "CARD_GAP",
            "FRAME_KINDS",
            "FRAME_PAD",
            "MAX_FRAME_DEPTH",
            "SECTION_BAND",
            "Anchor",
            "ArrangeResult",
            "Batch",
            "BatchCard",
            "Board",
            "Card",
            "CardId",
            "CardPatch",
            "Changes",
            "GridIndex",
            "NewSection",
            "Placement",
            "PlacementResult",
            "Wire",
            "apply_patches",
            "arrange",
            "arrange_reads",
            "chrome",
            "clamp_aspect",
            "fold",
            "frame_layout",
            "is_content_sized",
            "nearly_matches",
            "place_batch",
            "reflow",
            "remove_cards",
            "shelf_pack",
            "size_card",
        ]
    )
    for name in layout.__all__:
        assert hasattr(layout, name)


def test_engine_does_not_import_storage_or_service():
    import sys

    for mod in [m for m in sys.modules if m.startswith("layoutkit.layout")]:
        src = getattr(sys.modules[mod], "__file__", None)
        if src:
            with open(src, encoding="utf-8") as fh:
                text = fh.read()
            assert "layoutkit.storage" not in text and "layoutkit.service" not in text


def test_grid_index_queries_only_overlaps():
    idx = layout.GridIndex(cell=100)
    idx.insert(1, 0, 0, 50, 50)
    idx.insert("new:1", 50, 0, 50, 50)
    idx.insert(2, 1000, 1000, 10, 10)
    assert idx.query(0, 0, 60, 10) == [1, "new:1"]
    assert idx.query(50, 0, 0.5, 0.5) == ["new:1"]  # touching edge of 1 does not count
    idx.insert(2, 10, 10, 10, 10)
    assert idx.query(0, 0, 30, 30) == [1, 2]
    idx.remove(1)
    assert idx.query(0, 0, 30, 30) == [2]


def test_near_match_folding():
    assert layout.fold("  Résumé  Draft ") == "resume draft"
    assert layout.nearly_matches("Research", "research")
    assert layout.nearly_matches("Research", "Reserch")
    assert not layout.nearly_matches("Research", "Research")
    assert not layout.nearly_matches("Plan", "Risks")


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Step 1", "Step 2"),
        ("Q1", "Q2"),
        ("R", "L"),
        ("UX", "UI"),
        ("API", "APIs"),
        ("Pass 10", "Pass 11"),
        ("Research", "Research 2"),
        ("Onboarding 2", "Onbaording 3"),
    ],
)
def test_numbered_and_short_names_are_different_sections(a, b):
    assert not layout.nearly_matches(a, b)
    assert not layout.nearly_matches(b, a)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Onboarding", "Onbaording"),
        ("Step 1", "step 1"),
        ("Step 1", "Step 01"),
        ("Step 1", "Stpe 1"),
        ("UX", "ux"),
        ("Q&A", "q&a"),
        ("É", "e"),
        ("Open questions", "Open question"),
    ],
)
def test_case_accent_and_typo_near_matches_remain(a, b):
    assert layout.nearly_matches(a, b)
    assert layout.nearly_matches(b, a)
