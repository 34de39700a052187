"""Extended markdown: each extension and the CommonMark pieces the contract names."""

from __future__ import annotations

from layoutkit.render._markdown import render_inline, render_markdown
from layoutkit.render._safe import Slugger, expand_alias


def test_headings_get_stable_unique_slugs() -> None:
    md = "# Überblick\n\n## Setup & Run\n\n# Überblick"
    first = render_markdown(md)
    assert '<h1 id="uberblick">' in first
    assert '<h2 id="setup-run">' in first
    assert '<h1 id="uberblick-2">' in first
    assert render_markdown(md) == first


def test_slugger_is_shared_across_blocks_of_one_document() -> None:
    slugger = Slugger()
    assert 'id="intro"' in render_markdown("# Intro", slugger=slugger)
    assert 'id="intro-2"' in render_markdown("# Intro", slugger=slugger)


def test_task_lists() -> None:
    html = render_markdown("- [x] done\n- [ ] open\n- plain")
    assert '<ul class="task-list">' in html
    assert '<li class="task done"><input type="checkbox" disabled checked> done</li>' in html
    assert '<li class="task"><input type="checkbox" disabled> open</li>' in html
    assert "<li>plain</li>" in html


def test_tables_quotes_rules_and_strikethrough() -> None:
    html = render_markdown("| a | b |\n|---|--:|\n| 1 | 2 |\n\n> said\n\n---\n\n~~gone~~")
    assert '<table class="md-table">' in html and "<td>1</td>" in html
    assert "<blockquote>" in html
    assert "<hr />" in html or "<hr>" in html
    assert "<s>gone</s>" in html


def test_fenced_code_is_highlighted_and_escaped() -> None:
    html = render_markdown("```python\nif x < 1: return 'a'\n```")
    assert '<pre class="code" data-lang="python">' in html
    assert '<span class="tok-k">if</span>' in html
    assert "&lt;" in html


def test_code_in_a_language_pygments_does_not_know_is_escaped_as_written() -> None:
    html = render_markdown("```no-such-language\nif x < 1: return 'a'\n```")
    assert '<pre class="code" data-lang="no-such-language">' in html
    assert "tok-" not in html
    assert "<code>if x &lt; 1: return &#x27;a&#x27;</code>" in html


def test_inline_and_block_math() -> None:
    html = render_markdown("Energy $E=mc^2$ costs $5 and $6.\n\n$$\n\\sum_i x_i < y\n$$")
    assert '<span class="math" role="math">E=mc^2</span>' in html
    assert "$5 and $6" in html
    assert '<div class="math math-block" role="math">\\sum_i x_i &lt; y</div>' in html
    assert 'class="math math-block"' in render_markdown("```math\na+b\n```")


def test_plugin_tokens_keep_the_house_shape() -> None:
    # Task text starts after the box however many spaces follow it, and display math is
    # trimmed of the line breaks around it, also across a blank line, as before the plugins.
    html = render_markdown("- [x]   spaced\n- [ ] open")
    assert '<li class="task done"><input type="checkbox" disabled checked> spaced</li>' in html
    assert (
        render_markdown("$$\na\n\nb\n$$")
        == '<div class="math math-block" role="math">a\n\nb</div>\n'
    )
    assert "<li>[x]</li>" in render_markdown("- [x]\n- b")  # GFM: a box needs text after it


def test_icon_tokens() -> None:
    html = render_inline("ok :check: unknown :zz-top: not a:b:c nor 10:30:00")
    assert 'data-icon="check"' in html and "✓" in html
    assert 'class="icon icon-unknown" data-icon="zz-top"' in html
    assert "a:b:c" in html and "10:30:00" in html


def test_wikilinks() -> None:
    html = render_inline("See [[Release Notes]] and [[Runbook|the runbook]].")
    assert (
        '<a class="wikilink" href="#release-notes" data-target="Release Notes">Release Notes</a>'
        in html
    )
    assert '<a class="wikilink" href="#runbook" data-target="Runbook">the runbook</a>' in html


def test_highlight_marks_do_not_nest() -> None:
    assert render_inline("a ==b *c*== d") == "a <mark>b <em>c</em></mark> d"
    assert "<mark>" not in render_inline("a == b == c")


def test_sources_alias_expands_to_repository_urls() -> None:
    sources = {
        "src": {"repo": "acme/kit", "ref": "main"},
        "gl": {"repo": "gitlab.com/acme/tools", "ref": "v2"},
    }
    html = render_inline("[x](src:lib/a.py#L1-L5) [y](gl:b.go#L3)", sources=sources)
    assert 'href="https://github.com/acme/kit/blob/main/lib/a.py#L1-L5"' in html
    assert 'href="https://gitlab.com/acme/tools/-/blob/v2/b.go#L3"' in html
    # an alias that is not declared is an unknown scheme and is neutralised
    assert 'class="unsafe-link"' in render_inline("[z](nope:x.py)", sources=sources)


def test_expand_alias_through_declared_sources_only() -> None:
    assert expand_alias("https://x.y/z", {"https": {"repo": "o/r", "ref": "v1"}}).startswith(
        "https://github.com/o/r/blob/v1/"
    )
    assert expand_alias("src:x", None) == "src:x"
    # A source without a ref is no source: the link stays as written (and is neutralised).
    assert expand_alias("src:x#L2", {"src": {"repo": "o/r"}}) == "src:x#L2"
    assert 'class="unsafe-link"' in render_inline("[z](src:x.py)", sources={"src": {"repo": "o/r"}})


def test_links_and_images() -> None:
    html = render_markdown(
        '[t](https://example.com "T") ![alt](https://example.com/i.png) ![here](/files/i.png)'
    )
    assert (
        '<a href="https://example.com" title="T" rel="noopener noreferrer nofollow">t</a>' in html
    )
    # A picture on another site is its alt text and a link, never fetched by the page.
    assert '<span class="site-picture" role="img" aria-label="alt">alt <a href=' in html
    assert '<img src="/files/i.png" alt="here" loading="lazy">' in html
