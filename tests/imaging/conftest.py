"""Fixtures for the bounded decode road: the huge PNG (written once per session) and a
record of every picture Pillow is made to hold."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PIL import Image, ImageFile

from tests import pngs


@pytest.fixture(scope="session")
def huge() -> bytes:
    """A 9,400 x 9,400 PNG (just under the imagePixels cap), flat but for a red square."""
    return pngs.huge_png()


@pytest.fixture
def held(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[int, int]]]:
    """The size of every picture a decoder fills or a caller makes: what Pillow loads
    from a file, builds from bytes or a buffer, or makes new."""
    sizes: list[tuple[int, int]] = []
    load, frombytes, frombuffer, new = (
        ImageFile.ImageFile.load,
        Image.frombytes,
        Image.frombuffer,
        Image.new,
    )

    def loading(self: ImageFile.ImageFile) -> object:
        sizes.append(self.size)
        return load(self)

    def from_bytes(mode: str, size: tuple[int, int], *args: object, **kw: object) -> Image.Image:
        sizes.append(size)
        return frombytes(mode, size, *args, **kw)  # type: ignore[arg-type]

    def from_buffer(mode: str, size: tuple[int, int], *args: object, **kw: object) -> Image.Image:
        sizes.append(size)
        return frombuffer(mode, size, *args, **kw)  # type: ignore[arg-type]

    def making(mode: str, size: tuple[int, int], *args: object, **kw: object) -> Image.Image:
        sizes.append(size)
        return new(mode, size, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(ImageFile.ImageFile, "load", loading)
    monkeypatch.setattr(Image, "frombytes", from_bytes)
    monkeypatch.setattr(Image, "frombuffer", from_buffer)
    monkeypatch.setattr(Image, "new", making)
    yield sizes
