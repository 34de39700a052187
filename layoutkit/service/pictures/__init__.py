"""What a board looks like: rendered boards and cards, stamps, the pictures kept warm, and
boards as files other tools open (JSON Canvas, Excalidraw) and read back."""

from layoutkit.service.pictures import (  # noqa: F401  (importing registers the operations)
    travel,
    views,
)
