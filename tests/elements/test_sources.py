"""Doc sources: which aliases are sources, and the repository-host URL of a link through one."""

from __future__ import annotations

import pytest

from layoutkit.elements import doc_source, source_url


@pytest.mark.parametrize(
    ("repo", "ref", "target", "url"),
    [
        (
            "acme/shop",
            "v1.2",
            "a/b.py#L1-L5",
            "https://github.com/acme/shop/blob/v1.2/a/b.py#L1-L5",
        ),
        ("acme/shop", "main", "/README.md", "https://github.com/acme/shop/blob/main/README.md"),
        (
            "gitlab.example.com/g/p",
            "dev",
            "x.go#L9",
            "https://gitlab.example.com/g/p/-/blob/dev/x.go#L9",
        ),
        ("codeberg.org/o/r", "main", "x", "https://codeberg.org/o/r/blob/main/x"),
        ("o/r", "abc", "p.py#L2", "https://github.com/o/r/blob/abc/p.py#L2"),
        ("https://git.example.org/o/r", "main", "/p", "https://git.example.org/o/r/blob/main/p"),
        (
            "https://git.example.org/o/r/",
            "abc",
            "y.rs",
            "https://git.example.org/o/r/blob/abc/y.rs",
        ),
    ],
)
def test_source_url_mapping(repo: str, ref: str, target: str, url: str) -> None:
    assert source_url({"repo": repo, "ref": ref}, target) == url


@pytest.mark.parametrize(
    "source",
    [
        {"repo": "acme/shop"},
        {"repo": "acme/shop", "ref": ""},
        {"repo": "acme/shop", "ref": "  "},
        {"repo": "", "ref": "main"},
        {"repo": "acme/shop", "ref": 7},
        "acme/shop",
    ],
)
def test_an_alias_without_both_repo_and_ref_is_no_source(source: object) -> None:
    # A missing ref is never read as the default branch: line ranges would drift under the link.
    assert doc_source({"app": source}, "app") is None


def test_a_complete_source_is_found_by_its_alias() -> None:
    sources = {"app": {"repo": "acme/shop", "ref": "v1"}}
    assert doc_source(sources, "app") == sources["app"]
    assert doc_source(sources, "web") is None
    assert doc_source(None, "app") is None
