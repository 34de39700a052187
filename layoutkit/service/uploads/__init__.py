"""Uploaded files and pages: uploads, stored blobs, pushed documents, PDF pages and
image renditions."""

from layoutkit.service.uploads import (  # noqa: F401  (importing registers the operations)
    files,
    page_images,
    push,
    shots,
    uploads,
)
