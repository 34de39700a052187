"""Extended markdown to safe HTML (markdown-it-py with HTML input switched off).

Extensions beyond CommonMark + tables + strikethrough:

* task list items ``- [ ]`` / ``- [x]`` (read-only checkboxes);
* ``==highlight==`` marks (no nesting);
* inline math ``$…$`` and display math ``$$…$$`` or a ```` ```math ```` fence,
  shown as escaped TeX in ``span.math`` / ``div.math`` (no script, no network);
* icon tokens ``:name:`` (``name`` = lower-case letter, then letters, digits or
  '-', at most 40 characters; not glued to a letter or digit on either side);
* wikilinks ``[[Target]]`` and ``[[Target|label]]`` linking to ``#slug(Target)``;
* heading anchors: every heading gets a stable, document-unique slug id.

Task lists and dollar math are parsed by mdit-py-plugins (``tasklists``,
``dollarmath``) and drawn by the render rules here; marks, icons, wikilinks
and heading anchors have no plugin that does the same (mdit-py-plugins has
no ``==mark==``, and its anchors plugin cannot share one slug set across the
blocks of a document), so they stay as rules of their own. The parse rules
live in :mod:`layoutkit.layout.blocks`, which the card sizer and the SVG faces
share; this module adds heading anchors and the HTML render rules.

Raw HTML is literal text. Link and image targets go through ``safe_url``
after ``sources`` aliases are expanded; an unsafe target leaves the text
without a link (or the image as its alt text).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.token import Token

from layoutkit.elements import slugify
from layoutkit.layout.blocks import configure
from layoutkit.render._highlight import highlight
from layoutkit.render._icons import icon_html
from layoutkit.render._images import site_address, site_picture_html
from layoutkit.render._safe import Slugger, esc, expand_alias, safe_url


def _heading_ids(state: Any) -> None:
    slugger: Slugger | None = state.env.get("slugger")
    if slugger is None:
        return
    tokens = state.tokens
    for i, token in enumerate(tokens):
        if token.type == "heading_open" and i + 1 < len(tokens):
            text = "".join(
                child.content
                for child in (tokens[i + 1].children or [])
                if child.type in ("text", "code_inline", "math_inline", "wikilink")
            )
            token.attrSet("id", slugger.slug(text or "section"))


def _link_open(self: Any, tokens: list[Token], idx: int, options: Any, env: dict) -> str:
    token = tokens[idx]
    href = expand_alias(str(token.attrGet("href") or ""), env.get("sources"))
    safe = safe_url(href)
    if safe is None:
        token.meta = {**(token.meta or {}), "unsafe": True}
        return '<a class="unsafe-link" title="link removed: unsafe target">'
    attrs = f' href="{esc(safe)}"'
    if token.attrGet("title"):
        attrs += f' title="{esc(token.attrGet("title"))}"'
    if safe.startswith(("http://", "https://", "//")):
        attrs += ' rel="noopener noreferrer nofollow"'
    return f"<a{attrs}>"


def _image(self: Any, tokens: list[Token], idx: int, options: Any, env: dict) -> str:
    token = tokens[idx]
    alt = self.renderInlineAsText(token.children or [], options, env)
    src = safe_url(expand_alias(str(token.attrGet("src") or ""), env.get("sources")), image=True)
    if src is None:
        return f'<span class="unsafe-image" title="image removed: unsafe source">{esc(alt)}</span>'
    remote = site_address(src)
    if remote is not None:
        return site_picture_html(remote, alt)
    title = f' title="{esc(token.attrGet("title"))}"' if token.attrGet("title") else ""
    return f'<img src="{esc(src)}" alt="{esc(alt)}"{title} loading="lazy">'


def _fence(self: Any, tokens: list[Token], idx: int, options: Any, env: dict) -> str:
    token = tokens[idx]
    lang = (token.info or "").strip().split(maxsplit=1)[0] if token.info else ""
    if lang.lower() in ("math", "latex", "tex", "katex"):
        return f'<div class="math math-block" role="math">{esc(token.content.rstrip())}</div>\n'
    return code_block_html(token.content, lang or None)


def code_block_html(source: str, lang: str | None) -> str:
    """A highlighted ``<pre>`` listing; the language label is escaped text."""
    label = f' data-lang="{esc(lang)}"' if lang else ""
    body = highlight(source.rstrip("\n"), lang)
    return f'<pre class="code"{label}><code>{body}</code></pre>\n'


def _code_block(self: Any, tokens: list[Token], idx: int, options: Any, env: dict) -> str:
    return code_block_html(tokens[idx].content, "text")


def _math_inline(self: Any, tokens: list[Token], idx: int, options: Any, env: dict) -> str:
    return f'<span class="math" role="math">{esc(tokens[idx].content)}</span>'


def _math_display(self: Any, tokens: list[Token], idx: int, options: Any, env: dict) -> str:
    return f'<span class="math math-display" role="math">{esc(tokens[idx].content)}</span>'


def _math_block(self: Any, tokens: list[Token], idx: int, options: Any, env: dict) -> str:
    return f'<div class="math math-block" role="math">{esc(tokens[idx].content)}</div>\n'


def _icon(self: Any, tokens: list[Token], idx: int, options: Any, env: dict) -> str:
    return icon_html(tokens[idx].content)


def _wikilink(self: Any, tokens: list[Token], idx: int, options: Any, env: dict) -> str:
    token = tokens[idx]
    target = token.meta["target"]
    return (
        f'<a class="wikilink" href="#{esc(slugify(target))}" data-target="{esc(target)}">'
        f"{esc(token.content)}</a>"
    )


def _table_open(self: Any, tokens: list[Token], idx: int, options: Any, env: dict) -> str:
    return '<div class="table-wrap"><table class="md-table">\n'


def _table_close(self: Any, tokens: list[Token], idx: int, options: Any, env: dict) -> str:
    return "</table></div>\n"


def _build() -> MarkdownIt:
    md = configure(
        MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    )
    md.core.ruler.push("heading_ids", _heading_ids)
    for name, fn in (
        ("link_open", _link_open),
        ("image", _image),
        ("fence", _fence),
        ("code_block", _code_block),
        ("math_inline", _math_inline),
        ("math_inline_double", _math_display),
        ("math_block", _math_block),
        ("icon", _icon),
        ("wikilink", _wikilink),
        ("table_open", _table_open),
        ("table_close", _table_close),
    ):
        md.add_render_rule(name, fn)
    return md


_MD = _build()


def render_markdown(
    text: Any,
    *,
    sources: Mapping[str, Any] | None = None,
    slugger: Slugger | None = None,
) -> str:
    """Block markdown to HTML. Headings take ids from ``slugger`` (document-unique)."""
    if not isinstance(text, str) or not text:
        return ""
    env: dict[str, Any] = {"sources": sources, "slugger": slugger or Slugger()}
    return _MD.render(text, env)


def render_inline(text: Any, *, sources: Mapping[str, Any] | None = None) -> str:
    """Inline markdown (no paragraphs, no block constructs) to HTML."""
    if text is None:
        return ""
    if not isinstance(text, str):
        return esc(text)
    env: dict[str, Any] = {"sources": sources}
    return _MD.renderInline(text, env)


def parse_blocks(text: str) -> list[Token]:
    """Token stream of ``text`` for renderers that draw markdown themselves (SVG faces)."""
    return _MD.parse(text or "", {"sources": None})
