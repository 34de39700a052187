"""Review: rules, runs and their sheets, annotations, card images and reading a
board back (scrape)."""

from layoutkit.service.review import (  # noqa: F401  (importing registers the operations)
    annotations,
    card_images,
    comments,
    review_rules,
    review_runs,
    scrape,
)
