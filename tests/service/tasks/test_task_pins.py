"""Search rule 1's pin forms, read from free text by the pure parser."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from layoutkit.service.road.task_pins import Pin, distinct, parse_pins, unpinned


def _read(text: str) -> list[tuple[int, str | None, str]]:
    return [(p.number, p.workspace, p.form) for p in parse_pins(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("#12", [(12, None, "hash")]),
        ("fix login (#12) today", [(12, None, "hash")]),
        ("tk-42", [(42, None, "tk")]),
        ("TK-42", [(42, None, "tk")]),
        ("feat/tk-42-login", [(42, None, "tk")]),
        ("Merge pull request: TK-7 fix the login flow", [(7, None, "tk")]),
        ("feat_tk-9", [(9, None, "tk")]),
        ("acme/31", [(31, "acme", "workspace")]),
        ("see acme/31 and #4", [(31, "acme", "workspace"), (4, None, "hash")]),
        ("https://lk.example.com/acme/web/tasks/77", [(77, "acme", "url")]),
        ("https://lk.example.com/acme/tasks/77?tab=refs", [(77, "acme", "url")]),
        ("/acme/web/tasks/77#top", [(77, "acme", "url")]),
        ("/tasks/5", [(5, None, "url")]),
        ("https://lk.example.com/api/v1/tasks/5/files/2", [(5, None, "url")]),
        ("42", [(42, None, "number")]),
        ("  42 ", [(42, None, "number")]),
    ],
)
def test_each_form_pins(text: str, expected: list[tuple[int, str | None, str]]) -> None:
    assert _read(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "login 42",  # a bare number pins only as the whole query
        "42 login",
        "owner/repo#12",  # a pull-request key, not a task
        "issue#12",
        "atk-4",  # tk glued to a word
        "tk-",
        "#",
        "#0",
        "0",
        "a/b/31",  # not <workspace>/<n>: three segments
        "https://github.com/owner/repo/pull/tasks/12",  # someone else's long path
        "#12345678901234567",  # longer than a task number
        "",
    ],
)
def test_not_a_pin(text: str) -> None:
    assert parse_pins(text) == []


def test_span_and_text_point_at_the_pin() -> None:
    text = "branch feat/tk-42-login pinned"
    (pin,) = parse_pins(text)
    assert pin == Pin(42, None, "tk", 12, 17, "tk-42")
    assert text[pin.start : pin.end] == "tk-42"
    assert unpinned(text, [pin]).split() == ["branch", "feat/", "-login", "pinned"]


def test_url_carries_its_project() -> None:
    (pin,) = parse_pins("http://host/acme/web/tasks/3")
    assert (pin.workspace, pin.project, pin.text) == ("acme", "web", "http://host/acme/web/tasks/3")


def test_a_url_is_one_pin_not_three() -> None:
    # The URL's own ``tasks/8`` is not read again as a workspace form or a tk.
    assert _read("https://h/tk-1/tasks/8") == [(8, "tk-1", "url")]


def test_distinct_keeps_the_first_of_each_task() -> None:
    pins = parse_pins("#4 tk-4 acme/4 #5")
    assert [(p.number, p.workspace, p.form) for p in distinct(pins)] == [
        (4, None, "hash"),
        (4, "acme", "workspace"),
        (5, None, "hash"),
    ]


_WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=8)
_NUMBER = st.integers(min_value=1, max_value=10**15)


@given(
    before=st.lists(_WORD, max_size=3),
    after=st.lists(_WORD, max_size=3),
    number=_NUMBER,
    form=st.sampled_from(
        ["#{n}", "tk-{n}", "TK-{n}", "feat/tk-{n}-x", "acme/{n}", "/a/b/tasks/{n}"]
    ),
)
def test_a_written_pin_is_found_among_words(
    before: list[str], after: list[str], number: int, form: str
) -> None:
    token = form.format(n=number)
    text = " ".join([*before, token, *after])
    pins = parse_pins(text)
    assert [p.number for p in pins] == [number]
    (pin,) = pins
    assert text[pin.start : pin.end] == pin.text
    assert pin.text in token


@given(st.text(max_size=80))
def test_spans_are_in_order_disjoint_and_name_their_text(text: str) -> None:
    pins = parse_pins(text)
    for pin in pins:
        assert text[pin.start : pin.end].strip() == pin.text
        assert 1 <= pin.number < 10**16
    for first, second in itertools.pairwise(pins):
        assert first.end <= second.start
