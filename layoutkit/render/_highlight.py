"""Syntax highlighting for fenced code and code elements, by Pygments.

Every token becomes a ``<span class="tok-…">`` run styled by the document CSS,
and every character of the source is escaped.
"""

from __future__ import annotations

from functools import lru_cache

from pygments import lex
from pygments.lexer import Lexer
from pygments.lexers import TextLexer, get_lexer_by_name, guess_lexer
from pygments.token import Token
from pygments.util import ClassNotFound

from layoutkit.render._safe import esc


def _token_class(ttype: object) -> str | None:
    checks = (
        (Token.Comment, "c"),
        (Token.Literal.String, "s"),
        (Token.Literal.Number, "n"),
        (Token.Keyword, "k"),
        (Token.Name.Builtin, "b"),
        (Token.Name.Function, "f"),
        (Token.Name.Class, "f"),
        (Token.Name.Decorator, "b"),
        (Token.Operator.Word, "k"),
        (Token.Name.Tag, "k"),
        (Token.Name.Attribute, "b"),
    )
    for parent, cls in checks:
        if ttype in parent:
            return cls
    return None


@lru_cache(maxsize=256)
def highlight(source: str, lang: str | None = None) -> str:
    """Escaped HTML of ``source`` with token spans; ``lang`` None means autodetect."""
    lexer: Lexer
    try:
        lexer = get_lexer_by_name(lang) if lang else guess_lexer(source)
    except ClassNotFound:
        # A language Pygments does not know is shown as written rather than guessed at.
        lexer = TextLexer()
    out: list[str] = []
    for ttype, value in lex(source, lexer):
        cls = _token_class(ttype)
        out.append(f'<span class="tok-{cls}">{esc(value)}</span>' if cls else esc(value))
    html = "".join(out)
    # Lexers append a final newline the source may not have had.
    if not source.endswith("\n") and html.endswith("\n"):
        html = html[:-1]
    return html
