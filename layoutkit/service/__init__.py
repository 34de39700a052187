"""Workspace, the operation registry and the operation families.

Importing this package registers every operation; the generic verbs come
last so their ``kind`` lists cover what every family added.
"""

from layoutkit.service import access as _access  # noqa: F401  (registers operations)
from layoutkit.service import annotations as _annotations  # noqa: F401
from layoutkit.service import board_live as _board_live  # noqa: F401
from layoutkit.service import boards as _boards  # noqa: F401
from layoutkit.service import briefs as _briefs  # noqa: F401
from layoutkit.service import bulk_tasks as _bulk_tasks  # noqa: F401
from layoutkit.service import card_images as _card_images  # noqa: F401
from layoutkit.service import cards as _cards  # noqa: F401
from layoutkit.service import compose as _compose  # noqa: F401
from layoutkit.service import content as _content  # noqa: F401
from layoutkit.service import drafts as _drafts  # noqa: F401
from layoutkit.service import files as _files  # noqa: F401
from layoutkit.service import gates as _gates  # noqa: F401
from layoutkit.service import hand_back as _hand_back  # noqa: F401
from layoutkit.service import page_images as _page_images  # noqa: F401
from layoutkit.service import pickup as _pickup  # noqa: F401
from layoutkit.service import push as _push  # noqa: F401
from layoutkit.service import review_rules as _review_rules  # noqa: F401
from layoutkit.service import review_runs as _review_runs  # noqa: F401
from layoutkit.service import scrape as _scrape  # noqa: F401
from layoutkit.service import search as _search  # noqa: F401
from layoutkit.service import spot as _spot  # noqa: F401
from layoutkit.service import task_refs as _task_refs  # noqa: F401
from layoutkit.service import tasks as _tasks  # noqa: F401
from layoutkit.service import transfer as _transfer  # noqa: F401
from layoutkit.service import uploads as _uploads  # noqa: F401
from layoutkit.service import views as _views  # noqa: F401
from layoutkit.service import work as _work  # noqa: F401
from layoutkit.service.generic import register_generic_operations
from layoutkit.service.registry import REGISTRY, Operation, Registry
from layoutkit.service.workspace import Call, Workspace

register_generic_operations()

__all__ = ["REGISTRY", "Call", "Operation", "Registry", "Workspace"]
