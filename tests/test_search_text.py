"""What search reads of a task (``task_parts``): the parts a task fills, none it leaves
empty or blank, whatever shape its refs and comments come in."""

from __future__ import annotations

from layoutkit.search_text import task_parts


def test_a_task_of_title_and_body_has_those_two_parts_only() -> None:
    task = {"title": "Fix login", "body": "", "gates": [], "fields": {}, "branch": None}
    assert task_parts(task) == {"title": "Fix login", "body": ""}
    assert task_parts({}) == {"title": "", "body": ""}


def test_blank_parts_are_left_out_and_written_ones_kept_as_written() -> None:
    task = {
        "title": "T",
        "body": "B",
        "gates": [{"title": "tests pass", "who": "ci", "evidence": None}],
        "next_action": " \t\n",
        "outcome": "  shipped ",
        "decisions": "",
        "branch": "fix/login",
        "fields": {"customer": "Acme", "size": 3, "outcome": "not this one", "blank": "  "},
    }
    assert task_parts(task) == {
        "title": "T",
        "body": "B",
        "field:gates": "tests pass ci ",
        "field:outcome": "  shipped ",
        "field:branch": "fix/login",
        "field:customer": "Acme",
    }


def test_refs_and_comments_are_read_from_any_iterable() -> None:
    refs = [{"kind": "pr", "ref": "o/r#1", "meta": {"title": "Login fix"}}, {"kind": "x"}]
    parts = task_parts({"title": "T"}, iter(refs), (c for c in ["", "looks good"]))
    assert parts["ref"] == "o/r#1 Login fix"
    assert parts["comment"] == "looks good"
    # A ref without an address still says the task has refs; no comment, no part.
    assert task_parts({"title": "T"}, [{"kind": "x", "ref": ""}], [""]) == {
        "title": "T",
        "body": "",
        "ref": "",
    }
