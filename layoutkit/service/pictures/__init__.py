"""What a board looks like: rendered boards and cards, stamps, and the pictures kept warm."""

from layoutkit.service.pictures import (  # noqa: F401  (importing registers the operations)
    views,
)
