"""Near-duplicate screenshots: a perceptual hash, and groups with a baseline each.

The hash is a 16×16 difference hash (``imagehash.dhash``, 256 bits, written as
64 hex digits so it stores and travels as text): the screen shrunk to 17×16
grey pixels, one bit per pair of neighbours saying which is brighter. A label,
an image or table rows changing moves it by 0–14 bits on the review corpus; a
one-pixel shift by up to 11; a scrolled page by 35–75; a theme change by 187+.

Grouping happens within one key (the caller's device and theme): screens are
taken in the order given – capture order – and each joins the first group
whose baseline is within :data:`MAX_DISTANCE` bits, else starts a group of its
own. **The baseline of a group is its earliest member**: adding a later
capture never changes an existing group's baseline, so what was judged against
it stays valid. The other members are judged by a crop of what differs from
the baseline (see :mod:`layoutkit.review.diff`).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import attrs
import imagehash
import numpy as np
import numpy.typing as npt
from PIL import Image

from layoutkit.review.diff import Pixels

#: Hash side: ``HASH_SIZE ** 2`` bits.
HASH_SIZE = 16
#: Screens whose hashes differ in at most this many of the 256 bits are near-duplicates.
MAX_DISTANCE = 24


def perceptual_hash(image: Pixels | npt.NDArray[np.uint8] | Image.Image) -> str:
    """The difference hash of a screenshot, as 64 hex digits."""
    if isinstance(image, Pixels):
        image = image.rgba()
    if isinstance(image, np.ndarray):
        image = Image.fromarray(image, "RGBA")
    return str(imagehash.dhash(image, hash_size=HASH_SIZE))


def hash_distance(a: str, b: str) -> int:
    """Bits in which two hashes of :func:`perceptual_hash` differ."""
    return (int(a, 16) ^ int(b, 16)).bit_count()


@attrs.frozen
class DupGroup:
    """Near-duplicates of one key: positions in the input, ``baseline`` first."""

    key: Hashable
    baseline: int
    members: tuple[int, ...]

    @property
    def others(self) -> tuple[int, ...]:
        return self.members[1:]


class NearDuplicates:
    """:func:`group_near_duplicates` one item at a time.

    An item joins a group by looking back only (at the baselines before it), so
    its group is known as it comes: a caller can judge a screen against its
    baseline while the screen's pixels are at hand, instead of holding every
    screen until the last one is hashed.
    """

    def __init__(self, max_distance: int = MAX_DISTANCE) -> None:
        self.max_distance = max_distance
        # key, baseline, its hash, members: in the order of the baselines.
        self._groups: list[tuple[Hashable, int, int, list[int]]] = []
        self._count = 0

    def add(self, key: Hashable, digest: str) -> int:
        """Take the next item; answers the position of its group's baseline (its own
        position when it starts a group). Positions count the items added, from 0."""
        position, self._count = self._count, self._count + 1
        value = int(digest, 16)
        for g_key, baseline, g_hash, members in self._groups:
            if g_key == key and (g_hash ^ value).bit_count() <= self.max_distance:
                members.append(position)
                return baseline
        self._groups.append((key, position, value, [position]))
        return position

    @property
    def groups(self) -> list[DupGroup]:
        """The groups so far, in the order of their baselines."""
        return [DupGroup(key, base, tuple(members)) for key, base, _, members in self._groups]


def group_near_duplicates(
    items: Sequence[tuple[Hashable, str]], max_distance: int = MAX_DISTANCE
) -> list[DupGroup]:
    """Group ``(key, hash)`` items (in capture order) into near-duplicate groups.

    Items group only with the same key; each joins the first group whose
    baseline hash is within ``max_distance`` bits. Groups come in the order of
    their baselines; a screen alike to none is a group of one.
    """
    grouping = NearDuplicates(max_distance)
    for key, digest in items:
        grouping.add(key, digest)
    return grouping.groups
