"""Number and date formatting shared by charts, tables, tiles and faces."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from datetime import date, datetime
from typing import Any

import attrs


def fmt_num(value: Any) -> str:
    """Short human form of a number: thousands separators, at most 3 decimals."""
    if isinstance(value, bool) or value is None:
        return {True: "yes", False: "no", None: "—"}[value]
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return str(value)
        if value.is_integer() and abs(value) < 1e15:
            return f"{int(value):,}"
        magnitude = abs(value)
        digits = 3 if magnitude < 1 else 2 if magnitude < 100 else 1
        return f"{value:,.{digits}f}".rstrip("0").rstrip(".")
    return str(value)


def fmt_bytes(size: float) -> str:
    """A file size as a person reads it: ``14 B``, ``1.4 KB``, ``5.1 MB`` (1,024 per
    step, as file managers count), one decimal under 10 of a unit."""
    value, unit = float(size), "B"
    for bigger in ("KB", "MB", "GB", "TB"):
        if abs(value) < 1024:
            break
        value, unit = value / 1024, bigger
    if unit == "B":
        return f"{int(value):,} B"
    return f"{value:.1f} {unit}" if abs(value) < 10 else f"{round(value):,} {unit}"


def fmt_value(value: Any, unit: str | None = None) -> str:
    text = fmt_num(value) if isinstance(value, (int, float, bool)) or value is None else str(value)
    if unit and value is not None:
        return f"{text}\u2009{unit}" if not unit.startswith("%") else f"{text}{unit}"
    return text


def as_number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)) and math.isfinite(value):
        return float(value)
    if isinstance(value, str):
        try:
            out = float(value.replace(",", "").strip().rstrip("%"))
        except ValueError:
            return None
        return out if math.isfinite(out) else None
    return None


#: A number written as text with what surrounds it: "€1,200.50", "12%", "3.5 ms", "-4".
_NUMBER_TEXT = re.compile(
    r"^(?P<pre>[^\w\s.+-]{0,2})\s?(?P<num>[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.(?P<dec>\d+))?)"
    r"(?P<post>\s?[^\d\s][^\d]{0,7})?$"
)


@attrs.frozen(slots=True)
class NumberFormat:
    """How a column writes its numbers, so a total reads like its cells.

    Cells holding numbers are written by :func:`fmt_num`; cells holding numbers
    as text (``"€1,200.50"``, ``"12%"``, ``"3.5 ms"``) keep what the author wrote
    around them and their count of decimals. When every text number in a column
    shares its prefix and suffix, the column's totals wear them too, with as
    many decimals as the most precise cell (an average one more, when it is
    not whole at the cells' precision: 12% and 13% average 12.5%).
    """

    prefix: str = ""
    suffix: str = ""
    decimals: int | None = None

    def __call__(self, value: float, *, finer: bool = False) -> str:
        if self.decimals is None:
            text = fmt_num(value)
        else:
            text = f"{value:,.{self.decimals}f}"
            if finer:
                more = f"{value:,.{self.decimals + 1}f}"
                text = text if more.endswith("0") else more
        return f"{self.prefix}{text}{self.suffix}"


def number_in(value: Any) -> float | None:
    """The number a cell holds, written as a number or as text with a prefix or
    a suffix (see :class:`NumberFormat`); None for anything else."""
    if isinstance(value, str):
        found = _NUMBER_TEXT.match(value.strip())
        return float(found["num"].replace(",", "")) if found else None
    return as_number(value)


def number_format(values: Sequence[Any]) -> NumberFormat:
    """The :class:`NumberFormat` of a column holding ``values``."""
    shapes = set()
    decimals = None
    for value in values:
        if not isinstance(value, str):
            continue
        found = _NUMBER_TEXT.match(value.strip())
        if found is None:
            continue
        shapes.add((found["pre"] or "", (found["post"] or "").rstrip()))
        decimals = max(decimals or 0, len(found["dec"] or ""))
    if len(shapes) != 1:
        return NumberFormat(decimals=decimals) if decimals else NumberFormat()
    pre, post = shapes.pop()
    return NumberFormat(pre, post, decimals)


_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}")


def parse_when(value: Any) -> datetime | None:
    """An RFC 3339 timestamp or a plain YYYY-MM-DD date, else None."""
    if not isinstance(value, str) or not _DATE.match(value.strip()):
        return None
    text = value.strip().replace("Z", "+00:00").replace("z", "+00:00")
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        try:
            parsed = datetime.combine(date.fromisoformat(text[:10]), datetime.min.time())
        except ValueError:
            return None
    return parsed.replace(tzinfo=None)


_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_TIME = re.compile(r"[T ](\d{2}):(\d{2})")


def _iso_label(label: Any) -> tuple[date, int, str] | None:
    """A label's date, precision (3 a day, 2 a month) and its time of day
    ("14:30", or "" at midnight or without one), if it is an ISO date."""
    text = str(label).strip()
    try:
        if len(text) == 7 and text[4] == "-":
            return date(int(text[:4]), int(text[5:7]), 1), 2, ""
        if len(text) >= 10 and text[4] == "-" and text[7] == "-":
            clock = _TIME.match(text, 10)
            hhmm = f"{clock[1]}:{clock[2]}" if clock and clock[0][1:] != "00:00" else ""
            return date.fromisoformat(text[:10]), 3, hhmm
    except ValueError:
        return None
    return None


def is_iso_date(label: Any) -> bool:
    """Whether ``label`` is an ISO day (``2026-03-04``, with or without a time) or
    month (``2026-03``)."""
    return _iso_label(label) is not None


def date_labels(raw: Sequence[Any], *, times: bool = True, first_year: bool = True) -> list[str]:
    """Dates as a reader reads them in a run (an axis, a timeline): days "Mar 4",
    months "Mar", the year wherever it changes and on the first date (always on a
    month, as "Mar" alone reads as no date; on a day unless ``first_year`` is off),
    and the time of day when there is one (unless ``times`` is off). A label that
    is not an ISO date is kept as written and leaves the year where it was."""
    out: list[str] = []
    year = None
    for label in raw:
        parsed = _iso_label(label)
        if parsed is None:
            out.append("" if label is None else str(label))
            continue
        day, precision, hhmm = parsed
        text = _MONTHS[day.month - 1] + (f" {day.day}" if precision == 3 else "")
        if day.year != year:
            said = precision == 2 or year is not None or first_year
            text += f" {day.year}" if said else ""
            year = day.year
        out.append(text + (f" {hhmm}" if times and hhmm else ""))
    return out


def fmt_when(value: Any) -> str:
    parsed = parse_when(value)
    if parsed is None:
        return "" if value is None else str(value)
    if parsed.hour == 0 and parsed.minute == 0 and len(str(value).strip()) <= 10:
        return parsed.strftime("%Y-%m-%d")
    return parsed.strftime("%Y-%m-%d %H:%M")


#: Vowel letters read as "you" or "wun": "a user", "a URL", "a one-off".
_YOU = ("uni", "use", "usu", "uti", "url", "uri", "uuid", "usb", "one")


def an(word: object) -> str:
    """``word`` with its indefinite article, as it is read aloud: "an agent", "an
    annotate share link", "a user", "an 8x8 image", "an x card"."""
    text = str(word)
    head = text.lower()
    vowel = head[:1] in ("a", "e", "i", "o", "u") and not head.startswith(_YOU)
    # a lone letter or a number is read by its name: "an f", "an 8", "an 11", "an 18"
    named = (len(head) == 1 and head in "fhlmnrsx") or head.startswith(("8", "11", "18"))
    return f"{'an' if vowel or named or head.startswith('hour') else 'a'} {text}"
