"""The sections of a feature brief and their caps: one table for the skeleton's
placeholders (service/tasks/briefs.py) and for the check of an uploaded brief.

:func:`lint_brief` reads a brief's markdown and says where it strays from the
table: a section missing or out of order, a placeholder still there, more
than the cap of a section's sentences, lines or list items, an acceptance
criterion naming no story number or no test seam, work packages that are not
numbered or that share a file. It only warns: the brief is stored as sent.
"""

from __future__ import annotations

import re
from typing import Any

import attrs


@attrs.frozen(slots=True)
class BriefSection:
    """One section of a brief: its heading, its cap (None: uncapped), what the cap
    counts, and what its placeholder asks the writer for."""

    title: str
    cap: int | None
    unit: str
    ask: str

    def placeholder(self) -> str:
        return f"<!-- brief: {self.ask} -->"


#: The sections of a brief in order, with their caps.
SECTIONS: tuple[BriefSection, ...] = (
    BriefSection("Intent", 3, "sentences", "write the intent in at most 3 sentences"),
    BriefSection("Vocabulary", 8, "terms", "define at most 8 terms, one line each"),
    BriefSection("As-is", 12, "lines", "describe what exists today in at most 12 lines"),
    BriefSection("To-be", 15, "user stories", "write at most 15 numbered user stories"),
    BriefSection(
        "Architecture", 10, "units", "draw one diagram of at most 10 units, and list them"
    ),
    BriefSection(
        "Decisions that matter",
        8,
        "decisions",
        "keep at most 8 decisions that matter and say why each take won",
    ),
    BriefSection("Prerequisites", 8, "items", "list at most 8 prerequisites"),
    BriefSection(
        "Acceptance criteria",
        15,
        "criteria",
        "write at most 15 criteria, each naming a story number and a test seam",
    ),
    BriefSection(
        "Work packages",
        8,
        "packages",
        "order at most 8 work packages; no two of them touch the same file",
    ),
    BriefSection("Out of scope", None, "", "say what this feature leaves out"),
    BriefSection("Open questions", None, "", "settle or carry each question still open"),
    BriefSection("Refs", None, "", "add the refs the writer used"),
)
BY_TITLE = {s.title: s for s in SECTIONS}

_ITEM = re.compile(r"^(?:[-*+]|\d+[.)])\s+\S")
_NUMBERED = re.compile(r"^\d+[.)]\s+\S")
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)")
_COMMENT = re.compile(r"<!--.*?-->", re.S)
#: "story 3", "stories 2", "S3", "US-3", "#3": how a criterion names a story.
_STORY = re.compile(r"\b(?:stor(?:y|ies)\s*#?\d+|u?s-?\d+)\b|#\d+", re.I)
_SEAM = re.compile(r"\b(?:seam|test)", re.I)
_FILE = re.compile(r"`([^`\s]+\.[A-Za-z0-9]+)`")
_FENCE = re.compile(r"^```")


def _finding(section: str, code: str, message: str, **extra: Any) -> dict[str, Any]:
    return {"section": section, "code": code, "message": message, **extra}


def split_sections(text: str) -> list[tuple[str, list[str]]]:
    """``(heading, lines)`` of each ``##`` section of ``text``, in order."""
    out: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        if line.startswith("## "):
            out.append((line[3:].strip(), []))
        elif out:
            out[-1][1].append(line)
    return out


def _items(lines: list[str]) -> list[str]:
    return [line for line in lines if _ITEM.match(line)]


def _table_rows(lines: list[str]) -> list[str]:
    rows = [line for line in lines if line.strip().startswith("|")]
    # The header and the separator row are not decisions.
    return (
        rows[2:] if len(rows) >= 2 and set(rows[1].replace("|", "").strip()) <= set("-: ") else rows
    )


def _count(section: BriefSection, lines: list[str]) -> int:
    body = [line for line in _COMMENT.sub("", "\n".join(lines)).splitlines() if line.strip()]
    if section.unit == "sentences":
        return len(_SENTENCE_END.findall(" ".join(body))) or (1 if body else 0)
    if section.unit == "lines":
        return len(body)
    if section.unit == "decisions":
        return len(_table_rows(body))
    return len(_items(body))


def lint_brief(text: str) -> list[dict[str, Any]]:
    """Where ``text`` strays from :data:`SECTIONS` (see the module docs); [] when it fits."""
    found: list[dict[str, Any]] = []
    parts = split_sections(text)
    titles = [t for t, _ in parts if t in BY_TITLE]
    for section in SECTIONS:
        if section.title not in titles:
            found.append(
                _finding(section.title, "missing_section", f"no section ## {section.title}")
            )
    expected = [s.title for s in SECTIONS if s.title in titles]
    if titles != expected:
        found.append(
            _finding(
                "",
                "section_order",
                "sections are out of order; they go " + ", ".join(s.title for s in SECTIONS),
            )
        )
    for title, lines in parts:
        section = BY_TITLE.get(title)
        if section is None:
            continue
        if section.placeholder() in "\n".join(lines) and section.title not in (
            "Open questions",
            "Refs",
        ):
            found.append(
                _finding(title, "placeholder_left", f"{title} still holds its placeholder")
            )
        if section.cap is not None:
            count = _count(section, lines)
            if count > section.cap:
                found.append(
                    _finding(
                        title,
                        "over_cap",
                        f"{title} has {count} {section.unit}; at most {section.cap}",
                        count=count,
                        cap=section.cap,
                    )
                )
        found += _section_rules(title, lines)
    return found


def _section_rules(title: str, lines: list[str]) -> list[dict[str, Any]]:
    """What the rules of the section called ``title`` find in its ``lines``."""
    rule = _SECTION_RULES.get(title)
    return rule(title, lines) if rule is not None else []


def _to_be(title: str, lines: list[str]) -> list[dict[str, Any]]:
    items = _items(lines)
    if items and not all(_NUMBERED.match(i) for i in items):
        return [_finding(title, "not_numbered", "number the user stories (1., 2., ...)")]
    return []


def _architecture(title: str, lines: list[str]) -> list[dict[str, Any]]:
    fences = sum(1 for line in lines if _FENCE.match(line)) // 2
    if fences > 1:
        return [_finding(title, "over_cap", f"{fences} diagrams; a brief has one")]
    return []


def _acceptance(title: str, lines: list[str]) -> list[dict[str, Any]]:
    out = []
    for n, item in enumerate(_items(lines), start=1):
        if not _STORY.search(item):
            out.append(_finding(title, "missing_story", f"criterion {n} names no story number"))
        if not _SEAM.search(item):
            out.append(_finding(title, "missing_seam", f"criterion {n} names no test seam"))
    return out


def _work_packages(title: str, lines: list[str]) -> list[dict[str, Any]]:
    items = _items(lines)
    out = []
    if items and not all(_NUMBERED.match(i) for i in items):
        out.append(_finding(title, "not_ordered", "number the work packages in their order"))
    owner: dict[str, int] = {}
    for n, item in enumerate(items, start=1):
        for path in dict.fromkeys(_FILE.findall(item)):
            if path in owner:
                out.append(
                    _finding(
                        title,
                        "shared_file",
                        f"packages {owner[path]} and {n} both touch {path}",
                        file=path,
                    )
                )
            else:
                owner[path] = n
    return out


#: The rules a section of that title keeps besides its length cap.
_SECTION_RULES = {
    "To-be": _to_be,
    "Architecture": _architecture,
    "Acceptance criteria": _acceptance,
    "Work packages": _work_packages,
}
