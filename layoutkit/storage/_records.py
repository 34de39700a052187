"""Plain records the store returns and the inputs it takes for bulk writes.

Records are frozen attrs classes; their JSON fields (``payload``, ``meta``,
``options``...) are plain dicts and lists. Times are timezone-aware UTC.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from datetime import datetime
from typing import Any, Literal, NamedTuple

import attrs

from layoutkit.folding import fold

Layer = Literal["ai", "human"]
QuestionState = Literal["staged", "answered", "released"]
ShareMode = Literal["view", "annotate"]
TokenKind = Literal["owner", "user", "agent", "service"]


@attrs.frozen(slots=True)
class WorkspaceRecord:
    id: int
    name: str
    meta: dict[str, Any]
    created_at: datetime
    archived_at: datetime | None = None


@attrs.frozen(slots=True)
class ProjectRecord:
    id: int
    workspace_id: int
    slug: str
    name: str | None
    meta: dict[str, Any]
    archived: bool
    created_at: datetime
    updated_at: datetime


@attrs.frozen(slots=True)
class BoardRecord:
    id: int
    workspace_id: int
    slug: str
    project_id: int | None
    subgroup: str | None
    tags: tuple[str, ...]
    theme: str | None
    archived: bool
    meta: dict[str, Any]
    lanes: list[Any]
    parent_board_id: int | None
    section: str | None
    flow: str | None
    created_by: str | None
    created_at: datetime
    updated_at: datetime
    #: Change counters (see the boards table); ``card_seq`` is the last ordinal handed out.
    card_seq: int = 0
    rev: int = 0
    edges_rev: int = 0
    purged_rev: int = 0


@attrs.frozen(slots=True)
class BoardRevs:
    """What a warm board model checks against: the board's change counters (see
    the boards table), its flow, and when it was made (ids may be reused)."""

    created_at: datetime
    card_seq: int
    rev: int
    edges_rev: int
    purged_rev: int
    flow: str | None


@attrs.frozen(slots=True)
class NewCard:
    """A card to insert; the store assigns id, ordinal, version 1 and times."""

    kind: str
    payload: dict[str, Any]
    x: float
    y: float
    w: float
    h: float
    layer: Layer
    author: str
    parent_id: int | None = None
    children: list[int] | None = None
    sized_by: str | None = None


@attrs.frozen(slots=True)
class CardRecord:
    id: int
    board_id: int
    ordinal: int
    kind: str
    payload: dict[str, Any]
    x: float
    y: float
    w: float
    h: float
    layer: Layer
    version: int
    parent_id: int | None
    children: list[int] | None
    author: str
    sized_by: str | None
    created_at: datetime
    updated_at: datetime
    deleted_at: datetime | None
    deleted_by: str | None
    rev: int = 0

    @property
    def deleted(self) -> bool:
        return self.deleted_at is not None


@attrs.frozen(slots=True)
class CardVersionRecord:
    """A card as drawn from ``version`` on: its kind, payload and size. Versions
    after it that only moved, removed or restored the card draw the same."""

    card_id: int
    version: int
    kind: str
    payload: dict[str, Any]
    w: float
    h: float
    created_at: datetime


@attrs.frozen(slots=True)
class _CardPlace:
    """A card's box on its board and its frame links, as the cards table holds them.

    The leading fields of :class:`CardBox` and :class:`CardPicture`, in the order
    their rows are selected (both are built positionally from a row).
    """

    id: int
    ordinal: int
    kind: str
    x: float
    y: float
    w: float
    h: float
    layer: Layer
    version: int
    parent_id: int | None
    children: list[int] | None


@attrs.frozen(slots=True)
class CardBox(_CardPlace):
    """A card without its payload: what placement and overlap checks need."""

    author: str
    sized_by: str | None


@attrs.frozen(slots=True)
class CardPicture(_CardPlace):
    """What a picture of a card needs: its box and frame links, and either its stored
    face (``face``: SVG text, current for the card's row and the renderer's code)
    or its payload (``payload`` None when ``face`` is given). ``face_key`` and
    ``stored`` are the face kept for an older row, still good if the card only
    moved (its key says what the face depends on)."""

    rev: int
    payload: dict[str, Any] | None
    face: str | None
    face_key: str | None
    stored: str | None


@attrs.frozen(slots=True)
class FaceRow:
    """A card's face as drawn for its row at ``rev`` by renderer code ``code``."""

    card_id: int
    rev: int
    code: str
    key: str
    svg: str


@attrs.frozen(slots=True)
class NewEdge:
    from_card: int
    to_card: int
    rel: str | None = None
    label: str | None = None
    from_region: dict[str, Any] | None = None
    to_region: dict[str, Any] | None = None
    author: str | None = None


@attrs.frozen(slots=True)
class EdgeRecord:
    id: int
    board_id: int
    from_card: int
    to_card: int
    rel: str | None
    label: str | None
    from_region: dict[str, Any] | None
    to_region: dict[str, Any] | None
    author: str | None
    created_at: datetime


@attrs.frozen(slots=True)
class NewQuestion:
    prompt: str
    options: list[Any] = attrs.field(factory=list)
    stakes: str | None = None
    multi_select: bool = False
    kind: Literal["choice", "text"] = "choice"
    pivot: bool = False
    card_id: int | None = None
    author: str | None = None


@attrs.frozen(slots=True)
class QuestionRecord:
    id: int
    board_id: int
    prompt: str
    stakes: str | None
    options: list[Any]
    multi_select: bool
    kind: str
    pivot: bool
    card_id: int | None
    state: QuestionState
    answers: Any
    author: str | None
    created_at: datetime
    released_at: datetime | None
    answered_at: datetime | None


@attrs.frozen(slots=True)
class ShareLinkRecord:
    id: str
    board_id: int
    mode: ShareMode
    card_id: int | None
    created_by: str | None
    created_at: datetime
    revoked_at: datetime | None


@attrs.frozen(slots=True)
class ApiTokenRecord:
    id: int
    kind: TokenKind
    name: str
    created_at: datetime
    revoked_at: datetime | None
    #: ``serve`` for the owner token ``layoutkit serve`` keeps; None for tokens made by hand.
    purpose: str | None = None
    #: The workspace that minted the token (its home); None when it has none.
    home_workspace_id: int | None = None


@attrs.frozen(slots=True)
class InvitationRecord:
    """An invitation to join workspace ``workspace_id`` with ``role``; its secret is
    not kept, only its hash."""

    id: int
    workspace_id: int
    role: str
    invited_by: str
    inviter_token_id: int | None
    created_at: datetime
    expires_at: datetime
    used_at: datetime | None
    used_by_token_id: int | None


@attrs.frozen(slots=True)
class WebhookRecord:
    """An outbound webhook of workspace ``workspace_id``."""

    id: int
    workspace_id: int
    url: str
    events: list[str]
    secret: str = attrs.field(repr=False)
    active: bool
    created_by: str
    created_at: datetime
    updated_at: datetime


@attrs.frozen(slots=True)
class WebhookDeliveryRecord:
    """One event owed to one webhook: ``status`` pending, delivered or failed."""

    id: int
    webhook_id: int
    event: str
    occurred_at: datetime
    data: dict[str, Any]
    coalesce_key: str | None
    status: str
    attempts: int
    next_attempt_at: datetime | None
    lease_until: datetime | None
    last_attempt_at: datetime | None
    response_status: int | None
    response_excerpt: str | None
    error: str | None
    redelivery_of: int | None
    created_at: datetime


@attrs.frozen(slots=True)
class RequestKeyRecord:
    principal: str
    key: str
    operation: str
    input_hash: str
    receipt: dict[str, Any]
    created_at: datetime


@attrs.frozen(slots=True)
class AuditEventRecord:
    id: int
    at: datetime
    principal: str
    action: str
    board_id: int | None
    detail: dict[str, Any]


@attrs.frozen(slots=True)
class PresenceRecord:
    """One caller's page on a board as it last reported itself (``board_presence``)."""

    board_id: int
    who: str
    page: str
    kind: str
    name: str
    state: dict[str, Any]
    seen: datetime


@attrs.frozen(slots=True)
class ComponentRecord:
    """One version of a workspace's reusable group of cards ``name``."""

    id: int
    workspace_id: int
    name: str
    version: int
    description: str | None
    definition: dict[str, Any]
    author: str
    created_at: datetime


@attrs.frozen(slots=True)
class ProjectMemoryRecord:
    """One version of a project's durable note ``key`` for agents."""

    id: int
    workspace_id: int
    project_id: int
    key: str
    version: int
    text: str
    load: str
    author: str
    created_at: datetime


@attrs.frozen(slots=True)
class ReviewRuleRecord:
    """One version of a review rule file at the workspace layer (``project_id``
    None) or a project's; ``source`` None records a deletion."""

    id: int
    workspace_id: int
    project_id: int | None
    rule_id: str
    version: int
    source: str | None
    author: str
    created_at: datetime


@attrs.frozen(slots=True)
class TaskRecord:
    """A task as stored; ``human`` None follows the type rule (service/tasks/model.py)."""

    id: int
    workspace_id: int
    project_id: int | None
    key: str | None
    title: str
    body: str
    state: str | None
    status: str
    type: str
    priority: str
    assignee: str | None
    assignee_id: int | None
    sprint_id: int | None
    milestone_id: int | None
    parent_id: int | None
    due_at: str | None
    estimate: float | None
    human: bool | None
    asked_by: str
    labels: list[str]
    gates: list[dict[str, Any]]
    next_action: str
    outcome: str
    decisions: str
    branch: str
    fields: dict[str, Any]
    draft: str | None
    source: dict[str, Any] | None
    created_by: str
    created_at: datetime
    updated_at: datetime


@attrs.frozen(slots=True)
class TaskTitleRow:
    """The few columns of a task that reading a reference needs (no body, no text fields)."""

    id: int
    workspace_id: int
    project_id: int | None
    key: str | None
    title: str
    type: str
    status: str
    state: str | None
    parent_id: int | None
    draft: str | None
    updated_at: datetime


@attrs.frozen(slots=True)
class TaskTitleQuery:
    """Which tasks :meth:`task_titles` reads: title terms and facets, all optional.

    ``terms`` are groups of words, looked up in the search index's task titles
    (case and accents aside, each the start of a title word); with ``match``
    ``all`` a title holds at least one word of every group, with ``any`` of at
    least one word of any group (titles holding more words first). Facets:
    ``types`` and ``statuses`` (any of), ``state`` (the workspace state word,
    without case), ``project_id``, ``under`` (every descendant of that task),
    ``assignees`` and ``creators`` (a task assigned to any of the first or made by
    any of the second), ``ids``.
    Drafts are left out unless ``drafts``.
    """

    terms: tuple[tuple[str, ...], ...] = ()
    match: Literal["all", "any"] = "all"
    types: tuple[str, ...] | None = None
    statuses: tuple[str, ...] | None = None
    state: str | None = None
    project_id: int | None = None
    under: int | None = None
    assignees: tuple[str, ...] = ()
    creators: tuple[str, ...] = ()
    ids: tuple[int, ...] | None = None
    drafts: bool = False


@attrs.frozen(slots=True)
class TaskVocabRecord:
    """One word of a workspace's (or project's) task vocabulary: a state, label,
    field, sprint, milestone, view or rule."""

    id: int
    workspace_id: int
    project_id: int | None
    kind: str
    key: str
    name: str
    meta: dict[str, Any]
    position: int
    created_at: datetime


@attrs.frozen(slots=True)
class TaskRefRecord:
    """One version of a task's ref; ``blob`` names the bytes of an uploaded file."""

    id: int
    task_id: int
    kind: str
    ref: str
    version: int
    meta: dict[str, Any]
    blob: str | None
    size: int | None
    author: str
    created_at: datetime
    updated_at: datetime


@attrs.frozen(slots=True)
class TaskEventRecord:
    id: int
    task_id: int
    at: datetime
    principal: str
    action: str
    detail: dict[str, Any]


@attrs.frozen
class ReviewRunRecord:
    """A review run: ``plan`` is the plan as made (sheets, gaps, receipts, judged
    blob keys); ``served`` the sheet numbers served; ``misses`` wrong sight codes."""

    id: str
    workspace_id: int
    project_id: int | None
    state: str
    rubric: str
    sight: str
    misses: int
    served: list[int]
    plan: dict[str, Any]
    author: str
    created_at: datetime
    updated_at: datetime


@attrs.frozen(slots=True)
class AnnotationRecord:
    """A finding filed on version ``card_version`` of a card. ``region`` holds the
    rectangle in that version's picture pixels and the region as sent; ``prompt`` is
    ``{summary, detail?}``; ``replies`` the thread; ``deck`` the before shot and the
    fix attempts; ``filed_version`` the card's version when it was filed. ``kind`` is
    ``finding`` or ``comment`` (a person's thread: ``region`` holds where it is pinned,
    and one pinned to the board itself has no card, so the card fields are None)."""

    id: int
    board_id: int
    card_id: int | None
    card_version: int | None
    filed_version: int | None
    key: str
    region: dict[str, Any]
    prompt: dict[str, Any]
    intent: str
    severity: str | None
    category: str | None
    related: Any
    state: str
    author: str
    principal: str
    run_id: str | None
    replies: list[dict[str, Any]]
    deck: dict[str, Any]
    created_at: datetime
    updated_at: datetime
    kind: str = "finding"
    attention: int | None = None


#: The folded form a tag is stored and matched as: tags compare like every other typed name.
fold_tag = fold


def fold_tags(tags: Iterable[str]) -> list[str]:
    """Folded tags in first-seen order, without duplicates or empties."""
    seen: dict[str, None] = {}
    for tag in tags:
        folded = fold_tag(tag)
        if folded:
            seen.setdefault(folded, None)
    return list(seen)


def input_hash(operation: str, params: Any) -> str:
    """A stable hash of an operation's input, for requestKey comparisons.

    Key order in objects does not matter; anything else does.
    """
    canonical = json.dumps(
        [operation, params], sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


class SearchTaskRef(NamedTuple):
    """One version of a task's ref, as much as search reads of it (its address)."""

    kind: str
    ref: str
    meta: dict[str, Any]


class SearchTaskRow(NamedTuple):
    """What a task hit of search shows and reads for where it matched, in one read:
    the task's text columns, its project's slug, every version of its refs and what
    its comments said, both oldest first. A tuple, made and read by name at the cost
    of a tuple: a search makes one for every task hit it shows."""

    id: int
    workspace_id: int
    key: str | None
    title: str
    body: str
    type: str
    status: str
    state: str | None
    project: str | None
    gates: list[dict[str, Any]]
    next_action: str
    outcome: str
    decisions: str
    branch: str
    fields: dict[str, Any]
    refs: tuple[SearchTaskRef, ...]
    comments: tuple[str, ...]


class SearchDocHit(NamedTuple):
    """One search document a full-text query matched: the row it was read from
    (``kind`` task, board, card, annotation or tag; ``subject`` its id, or the
    folded tag), the reply group it answers in, and its relevance (higher is better).
    A tuple: a query makes one per row it reads, up to its limit in every group."""

    doc_id: int
    kind: str
    subject: str
    group: str
    board_id: int | None
    score: float


class TaskEmbeddingStamp(NamedTuple):
    """Where one task of a meaning-search window stands: whether its stored vector
    is current (made by the model asked about, from the task as it is now), and
    the digest of the text that vector was made from (None without a vector).

    A tuple rather than a record: a window is thousands of rows read per search.
    """

    task_id: int
    current: bool
    text_hash: str | None


@attrs.frozen(slots=True)
class TaskEmbeddingRecord:
    """A task's stored vector (``dim`` little-endian float32 values in ``vector``)."""

    task_id: int
    workspace_id: int
    model: str
    dim: int
    text_hash: str
    task_updated_at: datetime
    vector: bytes
