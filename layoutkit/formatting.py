"""Number and date formatting shared by charts, tables, tiles and faces."""

from __future__ import annotations

import math
import re
from datetime import date, datetime
from typing import Any


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


def fmt_when(value: Any) -> str:
    parsed = parse_when(value)
    if parsed is None:
        return "" if value is None else str(value)
    if parsed.hour == 0 and parsed.minute == 0 and len(str(value).strip()) <= 10:
        return parsed.strftime("%Y-%m-%d")
    return parsed.strftime("%Y-%m-%d %H:%M")
