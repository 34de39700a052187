"""pixelmatch 7's ``index.js``, transliterated line by line into plain Python loops.

The reference the vectorised port is checked against on generated images: no
numpy, the same branches, the same arithmetic order (``checkerboard: false``,
so semi-transparent pixels blend with white). Slow, and meant to be.
"""

from __future__ import annotations


def _word(img: bytes, pos: int) -> int:
    return img[pos] | img[pos + 1] << 8 | img[pos + 2] << 16 | img[pos + 3] << 24


def _blend_diffs(img1: bytes, img2: bytes, k: int, m: int) -> tuple[float, float, float]:
    r1, g1, b1, a1 = img1[k], img1[k + 1], img1[k + 2], img1[k + 3]
    r2, g2, b2, a2 = img2[m], img2[m + 1], img2[m + 2], img2[m + 3]
    dr, dg, db = r1 - r2, g1 - g2, b1 - b2
    da = a1 - a2
    if a1 < 255 or a2 < 255:
        dr = (r1 * a1 - r2 * a2 - 255 * da) / 255
        dg = (g1 * a1 - g2 * a2 - 255 * da) / 255
        db = (b1 * a1 - b2 * a2 - 255 * da) / 255
    return dr, dg, db


def colour_delta(img1: bytes, img2: bytes, k: int, m: int) -> float:
    dr, dg, db = _blend_diffs(img1, img2, k, m)
    y = dr * 0.29889531 + dg * 0.58662247 + db * 0.11448223
    i = dr * 0.59597799 - dg * 0.27417610 - db * 0.32180189
    q = dr * 0.21147017 - dg * 0.52261711 + db * 0.31114694
    delta = 0.5053 * y * y + 0.299 * i * i + 0.1957 * q * q
    return -delta if y > 0 else delta


def _brightness_delta(img: bytes, k: int, m: int) -> float:
    if img[k : k + 4] == img[m : m + 4]:
        return 0
    dr, dg, db = _blend_diffs(img, img, k, m)
    return dr * 0.29889531 + dg * 0.58662247 + db * 0.11448223


def _has_many_siblings(img: bytes, x1: int, y1: int, width: int, height: int) -> bool:
    x0, y0 = max(x1 - 1, 0), max(y1 - 1, 0)
    x2, y2 = min(x1 + 1, width - 1), min(y1 + 1, height - 1)
    val = _word(img, (y1 * width + x1) * 4)
    zeroes = 1 if x1 in (x0, x2) or y1 in (y0, y2) else 0
    for x in range(x0, x2 + 1):
        for y in range(y0, y2 + 1):
            if x == x1 and y == y1:
                continue
            zeroes += val == _word(img, (y * width + x) * 4)
            if zeroes > 2:
                return True
    return False


def _antialiased(img: bytes, x1: int, y1: int, width: int, height: int, a: bytes, b: bytes) -> bool:
    x0, y0 = max(x1 - 1, 0), max(y1 - 1, 0)
    x2, y2 = min(x1 + 1, width - 1), min(y1 + 1, height - 1)
    pos = (y1 * width + x1) * 4
    zeroes = 1 if x1 in (x0, x2) or y1 in (y0, y2) else 0
    least = most = 0.0
    min_x = min_y = max_x = max_y = 0
    for x in range(x0, x2 + 1):
        for y in range(y0, y2 + 1):
            if x == x1 and y == y1:
                continue
            delta = _brightness_delta(img, pos, (y * width + x) * 4)
            if delta == 0:
                zeroes += 1
                if zeroes > 2:
                    return False
            elif delta < least:
                least, min_x, min_y = delta, x, y
            elif delta > most:
                most, max_x, max_y = delta, x, y
    if least == 0 or most == 0:
        return False
    return (
        _has_many_siblings(a, min_x, min_y, width, height)
        and _has_many_siblings(b, min_x, min_y, width, height)
    ) or (
        _has_many_siblings(a, max_x, max_y, width, height)
        and _has_many_siblings(b, max_x, max_y, width, height)
    )


def pixelmatch(
    img1: bytes,
    img2: bytes,
    width: int,
    height: int,
    threshold: float = 0.1,
    include_aa: bool = False,
) -> int:
    """The number of mismatched pixels, as pixelmatch 7 counts them."""
    max_delta = 35215 * threshold * threshold
    diff = 0
    for i in range(width * height):
        pos = i * 4
        if img1[pos : pos + 4] == img2[pos : pos + 4]:
            continue
        delta = colour_delta(img1, img2, pos, pos)
        if abs(delta) > max_delta:
            x, y = i % width, i // width
            if not include_aa and (
                _antialiased(img1, x, y, width, height, img1, img2)
                or _antialiased(img2, x, y, width, height, img2, img1)
            ):
                continue
            diff += 1
    return diff
