"""The palette of a task reference, read without the store (service/tasks/task_palette.py)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from layoutkit.service.road.task_pins import Pin
from layoutkit.service.tasks.task_palette import Facet, PaletteRefusal, read_palette


def _facets(q: str) -> list[tuple[str, tuple[str, ...], str]]:
    return [(f.kind, f.values, f.typed) for f in read_palette(q).facets]


def test_edge_words_fields_and_title_words_split_apart() -> None:
    palette = read_palette("Přihlášení chyba v revizi projekt:Web moje")
    assert _facets("Přihlášení chyba v revizi projekt:Web moje") == [
        ("type", ("bug",), "word"),
        ("status", ("in_review",), "word"),
        ("project", ("Web",), "field"),
        ("mine", (), "word"),
    ]
    assert (palette.words, palette.typed) == (("prihlaseni",), ("Přihlášení",))


def test_field_values_may_follow_a_space_or_be_quoted() -> None:
    assert _facets("typ: chyba") == [("type", ("bug",), "field")]
    assert _facets('state:"Ready for QA"') == [("state", ("Ready for QA",), "field")]
    assert _facets("in:progress") == [("status", ("in_progress",), "field")]
    assert _facets("state:in-review") == [("status", ("in_review",), "field")]
    assert _facets("type:spike") == [("type", ("spike",), "field")]


def test_under_takes_the_next_token_as_its_task() -> None:
    (facet,) = read_palette("pod #12 login").facets
    assert facet == Facet("under", (), "pod #12", "word", Pin(12, None, "hash", 4, 7, "#12"))
    assert read_palette("pod #12 login").pins == ()
    assert read_palette('under "Login epic" x').facets[0].target == "Login epic"
    # At the end it is a title word.
    assert read_palette("work under").words == ("work", "under")


def test_a_pin_inside_a_token_leaves_the_rest_as_words() -> None:
    palette = read_palette("feat/tk-42-login")
    assert [p.number for p in palette.pins] == [42]
    assert palette.words == ("feat", "login")


@pytest.mark.parametrize(
    ("q", "facet"),
    [("tag:x", "tag"), ("Labels:y", "tag"), ("#ux", "tag"), ("groups:cards", "group")],
)
def test_tags_and_groups_are_refused(q: str, facet: str) -> None:
    with pytest.raises(PaletteRefusal) as refused:
        read_palette(f"login {q}")
    assert refused.value.facet == facet


@given(st.text(alphabet='abcdefghij klmnop:#"-/0123456789', max_size=60))
def test_any_text_reads_or_refuses_and_words_are_folded(q: str) -> None:
    try:
        palette = read_palette(q)
    except PaletteRefusal as refused:
        assert refused.facet in ("tag", "group")
        return
    assert len(palette.words) == len(palette.typed)
    assert all(w == w.lower() for w in palette.words)
