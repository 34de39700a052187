"""Syntax highlighting for fenced code and code elements.

Pygments is used when it is importable (it is a test-time dependency of the
project); otherwise a small built-in tokenizer marks comments, strings,
numbers and keywords. Both emit ``<span class="tok-…">`` runs styled by the
same CSS, and both escape every character of the source.
"""

from __future__ import annotations

import re
from functools import lru_cache

from layoutkit.render._safe import esc

try:  # pragma: no cover - exercised only where pygments is missing
    from pygments import lex
    from pygments.lexers import get_lexer_by_name, guess_lexer
    from pygments.token import Token
    from pygments.util import ClassNotFound

    HAVE_PYGMENTS = True
except ImportError:  # pragma: no cover
    HAVE_PYGMENTS = False

_KEYWORDS = frozenset(
    [
        "and",
        "as",
        "assert",
        "async",
        "await",
        "break",
        "case",
        "catch",
        "class",
        "const",
        "continue",
        "def",
        "default",
        "del",
        "do",
        "elif",
        "else",
        "enum",
        "export",
        "extends",
        "false",
        "final",
        "finally",
        "fn",
        "for",
        "from",
        "func",
        "function",
        "go",
        "if",
        "impl",
        "import",
        "in",
        "interface",
        "is",
        "let",
        "match",
        "mod",
        "module",
        "mut",
        "new",
        "nil",
        "none",
        "null",
        "or",
        "package",
        "pass",
        "private",
        "protected",
        "pub",
        "public",
        "raise",
        "return",
        "select",
        "self",
        "static",
        "struct",
        "super",
        "switch",
        "this",
        "throw",
        "true",
        "try",
        "type",
        "use",
        "var",
        "void",
        "where",
        "while",
        "with",
        "yield",
    ]
)
_BUILTIN = re.compile(
    r"(?P<comment>#[^\n]*|//[^\n]*|/\*.*?\*/|--[^\n]*)"
    r"|(?P<string>\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'|`[^`]*`)"
    r"|(?P<number>\b\d[\d_]*(?:\.\d+)?(?:e[+-]?\d+)?\b)"
    r"|(?P<word>\b[A-Za-z_][A-Za-z0-9_]*\b)",
    re.S,
)


def _builtin(source: str) -> str:
    out: list[str] = []
    pos = 0
    for match in _BUILTIN.finditer(source):
        out.append(esc(source[pos : match.start()]))
        kind = match.lastgroup
        text = match.group(0)
        if kind == "word":
            out.append(
                f'<span class="tok-k">{esc(text)}</span>' if text in _KEYWORDS else esc(text)
            )
        else:
            cls = {"comment": "c", "string": "s", "number": "n"}[kind or "comment"]
            out.append(f'<span class="tok-{cls}">{esc(text)}</span>')
        pos = match.end()
    out.append(esc(source[pos:]))
    return "".join(out)


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
    if not HAVE_PYGMENTS:
        return _builtin(source)
    try:
        lexer = get_lexer_by_name(lang) if lang else guess_lexer(source)
    except ClassNotFound:
        return _builtin(source)
    out: list[str] = []
    for ttype, value in lex(source, lexer):
        cls = _token_class(ttype)
        out.append(f'<span class="tok-{cls}">{esc(value)}</span>' if cls else esc(value))
    html = "".join(out)
    # Lexers append a final newline the source may not have had.
    if not source.endswith("\n") and html.endswith("\n"):
        html = html[:-1]
    return html
