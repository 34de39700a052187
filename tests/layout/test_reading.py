"""Reading order, shared by arrange, scrape's section diff and restoring a card into its frame."""

from __future__ import annotations

import attrs

from layoutkit.layout.reading import reading_order


@attrs.frozen
class Box:
    name: str
    x: float
    y: float
    h: float
    n: int = 0


def names(boxes: list[Box]) -> list[str]:
    return [b.name for b in reading_order(boxes, tie=lambda b: b.n)]


def test_rows_top_to_bottom_each_left_to_right() -> None:
    # b's top is 70 px below a's, yet above a's middle: a reader sees them side by side.
    a, b = Box("a", 300, 0, 200), Box("b", 0, 70, 100)
    below = Box("c", 0, 130, 100)  # under b's middle, so it starts the next row
    assert names([below, a, b]) == ["b", "a", "c"]


def test_a_row_ends_at_the_middle_of_its_shortest_card() -> None:
    tall, short = Box("tall", 0, 0, 400), Box("short", 200, 0, 40)
    # short's middle is at 20: a card whose top is below it starts the next row,
    # even though it still sits beside the tall card.
    assert names([tall, short, Box("left", -100, 30, 40)]) == ["tall", "short", "left"]
    assert names([tall, short, Box("left", -100, 19, 40)]) == ["left", "tall", "short"]


def test_cards_at_the_same_spot_follow_the_tie_key() -> None:
    assert names([Box("second", 0, 0, 10, n=2), Box("first", 0, 0, 10, n=1)]) == [
        "first",
        "second",
    ]
