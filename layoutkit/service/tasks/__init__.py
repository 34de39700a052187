"""Tasks and hand-backs: the task kind, refs, gates, drafts, pickup, spots, bulk
updates, briefs and resolving a reference to one task."""

from layoutkit.service.tasks import (  # noqa: F401  (importing registers the operations)
    briefs,
    bulk_tasks,
    drafts,
    gates,
    hand_back,
    memory,
    pickup,
    spot,
    task_refs,
    tasks,
)
