"""What the service types against: the :class:`Store` and :class:`Tx` protocols.

``Tx`` is the transaction API, composed of one protocol per resource family
so that a family added later (tasks, annotations, reviews) is a protocol and
a backend module of its own. The SQL backend (``SqlStore``/``SqlTx``)
implements them; a second backend would implement the same methods.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from datetime import datetime, timedelta
from typing import Any, Literal, Protocol, runtime_checkable

from layoutkit.storage._blobs import BlobStore
from layoutkit.storage._records import (
    AnnotationRecord,
    ApiTokenRecord,
    AuditEventRecord,
    BoardRecord,
    BoardRevs,
    CardBox,
    CardPicture,
    CardRecord,
    CardVersionRecord,
    ComponentRecord,
    EdgeRecord,
    FaceRow,
    InvitationRecord,
    NewCard,
    NewEdge,
    NewQuestion,
    PresenceRecord,
    ProjectMemoryRecord,
    ProjectRecord,
    QuestionRecord,
    RequestKeyRecord,
    ReviewRuleRecord,
    ReviewRunRecord,
    SearchDocHit,
    SearchTaskRow,
    ShareLinkRecord,
    TaskEmbeddingRecord,
    TaskEmbeddingStamp,
    TaskEventRecord,
    TaskRecord,
    TaskRefRecord,
    TaskTitleQuery,
    TaskTitleRow,
    TaskVocabRecord,
    TokenKind,
    WebhookDeliveryRecord,
    WebhookRecord,
    WorkspaceRecord,
)
from layoutkit.storage._retention import CARD_RETENTION, REQUEST_KEY_RETENTION

Clock = Callable[[], datetime]


class WorkspaceTx(Protocol):
    """Workspaces and their projects."""

    def create_workspace(self, name: str, meta: Mapping[str, Any] | None = None) -> WorkspaceRecord:
        """Create a workspace; raises :class:`ConflictError` when ``name`` is taken."""
        ...

    def ensure_workspace(self, name: str = "default") -> WorkspaceRecord:
        """The workspace called ``name``, created if missing (race-safe)."""
        ...

    def workspace(self, workspace_id: int) -> WorkspaceRecord | None:
        """The workspace with this id, or None."""
        ...

    def workspace_by_name(self, name: str) -> WorkspaceRecord | None:
        """The workspace called ``name``, or None."""
        ...

    def workspaces(self) -> list[WorkspaceRecord]:
        """Every workspace, oldest first."""
        ...

    def rename_workspace(self, workspace_id: int, name: str) -> WorkspaceRecord:
        """Give the workspace a new name; raises :class:`ConflictError` when another
        workspace has it, :class:`NotFoundError` for no such workspace."""
        ...

    def set_workspace_archived(self, workspace_id: int, archived: bool) -> WorkspaceRecord:
        """Archive the workspace (``archived_at`` now) or bring it back (None)."""
        ...

    def set_workspace_meta_item(
        self, workspace_id: int, key: str, item: str, value: Any
    ) -> WorkspaceRecord:
        """Set ``meta[key][item]`` of the workspace (None removes the item; an empty map
        removes ``key``), holding the row's lock between read and write so two writers
        of other items both land."""
        ...

    def create_project(
        self,
        workspace_id: int,
        slug: str,
        *,
        name: str | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> ProjectRecord:
        """Create a project; raises :class:`ConflictError` when the slug is taken."""
        ...

    def project(self, project_id: int) -> ProjectRecord | None:
        """The project with this id, or None."""
        ...

    def project_by_slug(self, workspace_id: int, slug: str) -> ProjectRecord | None:
        """The workspace's project called ``slug``, or None."""
        ...

    def projects(self, workspace_id: int) -> list[ProjectRecord]:
        """A workspace's projects ordered by slug."""
        ...

    def update_project(self, project_id: int, **fields: Any) -> ProjectRecord:
        """Change ``slug``, ``name``, ``meta`` (replaced whole) or ``archived``.

        Raises :class:`NotFoundError`, :class:`ConflictError` (slug taken) or
        ``ValueError`` (unknown field).
        """
        ...

    def delete_project(self, project_id: int) -> bool:
        """Delete a project (its boards stay, unfiled). Returns whether it existed."""
        ...


class BoardTx(Protocol):
    """Boards and their folded tags."""

    def create_board(
        self,
        workspace_id: int,
        slug: str,
        *,
        project_id: int | None = None,
        subgroup: str | None = None,
        tags: Iterable[str] = (),
        theme: str | None = None,
        archived: bool = False,
        meta: Mapping[str, Any] | None = None,
        lanes: Sequence[Any] | None = None,
        parent_board_id: int | None = None,
        section: str | None = None,
        flow: str | None = None,
        created_by: str | None = None,
    ) -> BoardRecord:
        """Create a board; tags are stored folded.

        Raises :class:`ConflictError` when the slug exists in the workspace.
        """
        ...

    def boards_by_id(self, board_ids: Iterable[int]) -> dict[int, BoardRecord]:
        """The boards of ``board_ids`` that exist, by id, in one read."""
        ...

    def board(self, board_id: int) -> BoardRecord | None:
        """The board with this id, or None."""
        ...

    def board_by_slug(
        self, workspace_id: int, slug: str, *, lock: bool = False
    ) -> BoardRecord | None:
        """The workspace's board called ``slug``, or None; ``lock`` locks it as
        :meth:`lock_board` does, in the same read."""
        ...

    def board_revs(self, board_id: int) -> BoardRevs | None:
        """The board's change counters and flow, or None (one narrow read)."""
        ...

    def lock_board(self, board_id: int) -> BoardRecord:
        """Serialise writers to this board until the transaction ends; returns it fresh.

        PostgreSQL takes the board row's lock (``FOR UPDATE``); on SQLite the
        write transaction already excludes every other writer. Raises
        :class:`NotFoundError` and, in a read transaction, :class:`StorageError`.
        """
        ...

    def boards(
        self,
        workspace_id: int,
        *,
        project_id: int | None = None,
        all_tags: Iterable[str] = (),
        any_tags: Iterable[str] = (),
        without_tags: Iterable[str] = (),
        archived: bool | None = None,
        parent_board_id: int | None = None,
    ) -> list[BoardRecord]:
        """Boards of a workspace ordered by slug, filtered.

        A board must carry every tag of ``all_tags``, at least one of
        ``any_tags`` (when given) and none of ``without_tags``; tags are
        folded before matching. ``archived`` None means both.
        """
        ...

    def board_slugs(self, workspace_id: int) -> list[str]:
        """Every board slug of a workspace (for did-you-mean suggestions)."""
        ...

    def update_board(self, board_id: int, **fields: Any) -> BoardRecord:
        """Change board fields: slug, project_id, subgroup, theme, archived, meta,
        lanes, parent_board_id, section, flow (JSON fields are replaced whole;
        merge-patching is the caller's rule). Tags go through :meth:`set_board_tags`.

        Raises :class:`NotFoundError`, :class:`ConflictError` (slug taken) or
        ``ValueError`` (unknown field).
        """
        ...

    def set_board_tags(
        self, board_id: int, tags: Iterable[str], mode: Literal["add", "set"] = "set"
    ) -> tuple[str, ...]:
        """Replace (``set``) or extend (``add``) a board's tags; returns them folded, in order."""
        ...

    def tags(self, workspace_id: int) -> list[tuple[str, int]]:
        """Every folded tag in the workspace with its number of boards, by tag."""
        ...

    def delete_board(self, board_id: int) -> bool:
        """Delete a board with everything on it. Returns whether it existed."""
        ...


class CardTx(Protocol):
    """Cards (versioned, soft-deleted) and the wires between them."""

    def insert_cards(self, board_id: int, cards: Sequence[NewCard]) -> list[CardRecord]:
        """Insert cards in order (one multi-row statement); returns them with ids.

        Each gets the board's next ordinal (compose order), version 1 (kept, see
        :meth:`card_version`) and the clock's time. Raises :class:`NotFoundError` for an unknown board.
        """
        ...

    def card(self, card_id: int) -> CardRecord | None:
        """One card by id, trashed or not."""
        ...

    def card_version(self, card_id: int, version: int) -> CardVersionRecord | None:
        """How the card was drawn at ``version``: the kept row of the latest version at
        or before it that changed its kind, payload or size (that row's ``version`` may
        be lower). None when none is kept that early (a card stored before versions
        were kept has only the version it had then). The caller checks ``version``
        against the card's current one."""
        ...

    def card_versions(self, card_id: int, *, newest: int | None = None) -> list[CardVersionRecord]:
        """Every kept version of the card, oldest first: its first version and each
        one that changed its kind, payload or size; only the ``newest`` ones when given."""
        ...

    def cards_by_id(self, card_ids: Iterable[int]) -> list[CardRecord]:
        """The named cards that exist (trashed included), in the order of ``card_ids``."""
        ...

    def cards(self, board_id: int, *, include_deleted: bool = False) -> list[CardRecord]:
        """A board's cards in created order; trashed ones only when asked."""
        ...

    def card_boxes(
        self,
        board_id: int,
        *,
        kinds: Iterable[str] | None = None,
        within: tuple[float, float, float, float] | None = None,
    ) -> list[CardBox]:
        """A board's live cards without payloads, in created order (cheaper than
        :meth:`cards`); only those of ``kinds``, and only those whose box overlaps
        ``within`` (x0, y0, x1, y1), when given."""
        ...

    def card_outline(
        self, board_id: int, *, within: tuple[float, float, float, float] | None = None
    ) -> list[tuple[int, str, float, float, float, float, int | None]]:
        """``(id, kind, x, y, w, h, parent_id)`` of a board's live cards in created order
        (only those overlapping ``within`` (x0, y0, x1, y1) when given): the narrowest
        read of a whole board, for outlines and minimaps."""
        ...

    def card_extent(self, board_id: int) -> tuple[float, float, float, float] | None:
        """(x0, y0, x1, y1) around the board's live top-level cards; None when it has none."""
        ...

    def card_pictures(
        self,
        board_id: int,
        *,
        code: str | None = None,
        card_ids: Iterable[int] | None = None,
        keys: Sequence[str] | None = None,
        whole: Iterable[str] = (),
        since: int | None = None,
    ) -> list[CardPicture]:
        """What pictures of the board's live cards need (only those of ``card_ids`` when
        given), in created order: a card whose stored face was drawn for its current
        row by renderer code ``code`` comes with that face instead of its payload;
        without ``code`` no face comes (nor a stale one). With ``keys``, a payload holds only those fields (text cut to 400 characters),
        but for cards of kinds ``whole``; with ``since``, only the cards changed after
        that board rev."""
        ...

    def store_faces(self, faces: Sequence[FaceRow]) -> int:
        """Keep each card's face, replacing the one it had; cards gone meanwhile are
        skipped. Returns how many were kept."""
        ...

    def card_changes(self, board_id: int, since: int) -> list[CardRecord]:
        """The board's cards changed after board rev ``since``, soft-deleted ones
        included, in ordinal order (see :attr:`BoardRecord.rev`)."""
        ...

    def count_cards(self, board_id: int, *, include_deleted: bool = False) -> int:
        """How many cards a board has; trashed ones only when asked."""
        ...

    def update_cards(self, patches: Sequence[Mapping[str, Any]]) -> list[CardRecord]:
        """Apply patches ``{"id": n, <field>: value, ...}``; every patched card's
        version goes up by one. Fields: kind, payload (replaced whole), x, y, w,
        h, layer, parent_id, children, sized_by. A patch of kind, payload, w or
        h keeps the new version (:meth:`card_version`) in the same transaction.

        Patches with the same field set go out as one executemany. Returns the
        updated cards in patch order. Raises ``ValueError`` for an unknown
        field and :class:`NotFoundError` for an unknown id (the caller's
        transaction then rolls back).
        """
        ...

    def link_new_cards(self, links: Sequence[Mapping[str, Any]]) -> None:
        """Set ``parent_id`` and ``children`` of cards created in this transaction.

        Frames and their members are inserted in one batch before their ids
        are known; wiring them up afterwards is part of creating them, so the
        version stays at 1. Each link is ``{"id", "parent_id", "children"}``.
        """
        ...

    def remove_cards(self, card_ids: Iterable[int], *, by: str) -> list[int]:
        """Soft-delete live cards (version +1, ``deleted_at`` now, ``deleted_by`` ``by``).

        Returns the ids actually trashed; already-trashed or unknown ids are skipped.
        """
        ...

    def restore_cards(self, card_ids: Iterable[int]) -> list[int]:
        """Bring trashed cards back (version +1). Returns the ids restored."""
        ...

    def trash(self, board_id: int, *, deleted_by: str | None = None) -> list[CardRecord]:
        """A board's trashed cards still within retention, newest first."""
        ...

    def purge_deleted_cards(self, retention: timedelta = CARD_RETENTION) -> int:
        """Delete for good every card trashed longer than ``retention`` (30 days) ago.

        Their edges go with them; children and questions pointing at them
        lose the reference. Returns the number of cards purged.
        """
        ...

    def insert_edges(self, board_id: int, new_edges: Sequence[NewEdge]) -> list[EdgeRecord]:
        """Insert wires in order; returns them with ids."""
        ...

    def edges(self, board_id: int, *, include_trashed_ends: bool = False) -> list[EdgeRecord]:
        """A board's wires in created order; by default only those whose two cards are live."""
        ...

    def update_edge(self, edge_id: int, **fields: Any) -> EdgeRecord:
        """Change rel, label, from_region or to_region. Raises :class:`NotFoundError`."""
        ...

    def delete_edges(self, edge_ids: Iterable[int]) -> int:
        """Delete wires; returns how many existed."""
        ...


class QuestionTx(Protocol):
    """Questions on a board: staged, answered, released."""

    def insert_questions(
        self, board_id: int, new_questions: Sequence[NewQuestion]
    ) -> list[QuestionRecord]:
        """Stage questions on a board; returns them with ids, state ``staged``."""
        ...

    def question(self, question_id: int) -> QuestionRecord | None:
        """The question with this id, or None."""
        ...

    def questions(self, board_id: int, *, state: str | None = None) -> list[QuestionRecord]:
        """A board's questions in asked order, optionally of one state."""
        ...

    def answer_question(self, question_id: int, answers: Any) -> QuestionRecord:
        """Record an answer (state ``answered``; held until released). Raises :class:`NotFoundError`."""
        ...

    def release_questions(self, board_id: int) -> list[QuestionRecord]:
        """Release every answered question of a board at once (the operator's Send).

        Returns the released questions in asked order.
        """
        ...

    def delete_questions(self, question_ids: Iterable[int]) -> int:
        """Delete questions; returns how many existed."""
        ...


class AccessTx(Protocol):
    """Share links and API tokens; only hashes of their secrets are kept."""

    def create_share_link(
        self,
        board_id: int,
        mode: Literal["view", "annotate"] = "view",
        *,
        card_id: int | None = None,
        created_by: str | None = None,
    ) -> tuple[ShareLinkRecord, str]:
        """Mint a share link; returns the record and its secret token (shown once).

        Only the token's hash is stored. Raises ``ValueError`` for a bad mode.
        """
        ...

    def share_link(self, link_id: str) -> ShareLinkRecord | None:
        """The share link with this id (revoked or not), or None."""
        ...

    def share_links(self, board_id: int) -> list[ShareLinkRecord]:
        """A board's share links, oldest first."""
        ...

    def verify_share_token(self, token: str) -> ShareLinkRecord | None:
        """The live (unrevoked) link this token opens, or None."""
        ...

    def revoke_share_link(self, link_id: str) -> bool:
        """Revoke a link; returns whether a live link was revoked."""
        ...

    def create_api_token(
        self,
        kind: TokenKind,
        name: str,
        *,
        purpose: str | None = None,
        workspace_id: int | None = None,
        role: str | None = None,
    ) -> tuple[ApiTokenRecord, str]:
        """Issue a token for the owner, a user, an agent or a service; returns the record and the
        plain token (shown once; only its hash is kept). ``purpose`` marks a token a tool
        mints for itself (``serve``). With ``workspace_id`` that workspace is the token's
        home and the token becomes a member of it with ``role`` (owner for owner tokens,
        member for the rest by default). Raises ``ValueError`` for a bad kind or role.
        """
        ...

    def api_token(self, token_id: int) -> ApiTokenRecord | None:
        """The token with this id (revoked or not), or None."""
        ...

    def set_membership(self, workspace_id: int, token_id: int, role: str) -> None:
        """Make the token a member of the workspace with ``role`` (owner, admin, member),
        or change its role there. Raises ``ValueError`` for another role."""
        ...

    def lock_memberships(self, workspace_id: int) -> None:
        """Hold the workspace's memberships until the transaction ends: another writer
        that locks them waits (SQLite lets one writer in at a time anyway)."""
        ...

    def remove_membership(self, workspace_id: int, token_id: int) -> bool:
        """End the token's membership of the workspace; whether it was a member."""
        ...

    def membership(self, workspace_id: int, token_id: int) -> str | None:
        """The token's role in the workspace, or None when it is no member."""
        ...

    def memberships(
        self, *, workspace_id: int | None = None, token_id: int | None = None
    ) -> list[tuple[int, int, str]]:
        """``(workspace_id, token_id, role)`` rows, filtered, by workspace then token."""
        ...

    def verify_api_token(self, token: str) -> ApiTokenRecord | None:
        """The live token record matching ``token``, or None."""
        ...

    def api_tokens(self, workspace_id: int | None = None) -> list[ApiTokenRecord]:
        """Every API token record (revoked ones too), oldest first; with
        ``workspace_id`` only the workspace's members and the tokens whose home it is."""
        ...

    def revoke_api_token(self, token_id: int) -> bool:
        """Revoke a token; returns whether a live token was revoked."""
        ...

    def create_invitation(
        self,
        workspace_id: int,
        role: str,
        *,
        invited_by: str,
        inviter_token_id: int | None,
        expires_at: datetime,
    ) -> tuple[InvitationRecord, str]:
        """Invite a token to join the workspace with ``role``; returns the record and the
        plain secret (shown once; only its hash is kept). Raises ``ValueError`` for a
        bad role."""
        ...

    def invitation(self, secret: str) -> InvitationRecord | None:
        """The invitation this secret stands for, used or not, expired or not; or None."""
        ...

    def use_invitation(self, invitation_id: int, token_id: int) -> bool:
        """Mark the invitation used by ``token_id``; False when it was used already (of
        two concurrent uses, one wins)."""
        ...

    def server_key(self, name: str) -> str:
        """The store's secret called ``name`` (hex), made at random on first use.

        Concurrent first uses agree on one value. Call it in a transaction that
        commits, or a new key may be handed out and then rolled back.
        """
        ...


class RequestKeyTx(Protocol):
    """Receipts kept under request keys for replay."""

    def request_key(self, principal: str, key: str) -> RequestKeyRecord | None:
        """The stored outcome of ``key`` for this principal, or None."""
        ...

    def save_request_key(
        self,
        principal: str,
        key: str,
        *,
        operation: str,
        input_hash: str,
        receipt: Mapping[str, Any],
    ) -> RequestKeyRecord:
        """Remember an operation's receipt under ``key``.

        Raises :class:`ConflictError` when the principal already used the key
        (the transaction stays usable).
        """
        ...

    def purge_request_keys(self, keep: timedelta = REQUEST_KEY_RETENTION) -> int:
        """Forget request keys older than ``keep`` (24 hours); returns how many."""
        ...


class EventTx(Protocol):
    """The audit trail."""

    def record_event(
        self,
        action: str,
        principal: str,
        *,
        board_id: int | None = None,
        detail: Mapping[str, Any] | None = None,
    ) -> AuditEventRecord:
        """Append an audit event stamped with the clock's time."""
        ...

    def events(
        self,
        *,
        board_id: int | None = None,
        action: str | None = None,
        since: datetime | None = None,
        limit: int | None = None,
    ) -> list[AuditEventRecord]:
        """Audit events oldest first, filtered; ``limit`` keeps the newest ones."""
        ...


class ReviewRuleTx(Protocol):
    """Review rule files of the workspace layer (``project_id`` None) and of projects.

    Rows are never changed: every write adds the layer's next version of the
    rule, a deletion included, so the whole history stays readable.
    """

    def review_rules(
        self, workspace_id: int, project_id: int | None = None
    ) -> list[ReviewRuleRecord]:
        """The layer's live rules (latest version of each id, deletions left out),
        in the order each id was first written."""
        ...

    def review_rule_history(
        self, workspace_id: int, rule_id: str, project_id: int | None = None
    ) -> list[ReviewRuleRecord]:
        """Every version of one rule at one layer, oldest first (deletions included)."""
        ...

    def write_review_rule(
        self,
        workspace_id: int,
        rule_id: str,
        source: str | None,
        *,
        author: str,
        project_id: int | None = None,
    ) -> ReviewRuleRecord:
        """Add the next version of a rule at a layer; ``source`` None deletes it there.

        Writers of one layer are serialised (the workspace's or project's row is
        locked on PostgreSQL). Raises :class:`NotFoundError` for an unknown project.
        """
        ...


class ReviewRunTx(Protocol):
    """Review runs: the plan is written once; only the state, the sheets served and
    the wrong sight codes change after."""

    def insert_review_run(
        self,
        run_id: str,
        workspace_id: int,
        project_id: int | None,
        *,
        rubric: str,
        sight: str,
        plan: dict[str, Any],
        author: str,
    ) -> ReviewRunRecord:
        """Store a new run in state ``planned``."""
        ...

    def review_run(
        self, workspace_id: int, run_id: str, *, lock: bool = False
    ) -> ReviewRunRecord | None:
        """The run, or None; ``lock`` holds its row to the end of the transaction."""
        ...

    def update_review_run(self, run_id: str, **fields: Any) -> ReviewRunRecord:
        """Set ``state``, ``misses`` or ``served``; raises :class:`NotFoundError`."""
        ...

    def verified_runs(
        self, workspace_id: int, project_id: int | None, rubric: str
    ) -> list[ReviewRunRecord]:
        """The project's verified runs under ``rubric``, oldest first."""
        ...

    def recent_review_runs(
        self, workspace_id: int, project_id: int | None, limit: int = 20
    ) -> list[ReviewRunRecord]:
        """The project's newest runs first, at most ``limit``."""
        ...


class AnnotationTx(Protocol):
    """Annotations: findings on card versions and people's comment threads (``kind``),
    their state, thread and deck."""

    def insert_annotation(self, **fields: Any) -> AnnotationRecord:
        """Store a new finding (every column but id and the times); raises
        :class:`ConflictError` when its board already holds its key."""
        ...

    def insert_annotations(self, rows: Sequence[Mapping[str, Any]]) -> list[AnnotationRecord]:
        """Store new findings in one statement, in the order given; a row whose key its
        board already holds is left out of the answer (nothing of it is written)."""
        ...

    def annotation(self, annotation_id: int) -> AnnotationRecord | None:
        """The finding, or None."""
        ...

    def annotations_by_id(self, annotation_ids: Iterable[int]) -> dict[int, AnnotationRecord]:
        """The findings among ``annotation_ids`` that exist, by id, in one read."""
        ...

    def annotations(
        self,
        board_id: int,
        *,
        states: Iterable[str] | None = None,
        card_id: int | None = None,
        keys: Iterable[str] | None = None,
        ids: Iterable[int] | None = None,
        kind: str | None = None,
    ) -> list[AnnotationRecord]:
        """A board's annotations, oldest first, narrowed by state, card, key, id or kind
        (``finding`` or ``comment``; None: both)."""
        ...

    def update_annotation(self, annotation_id: int, **fields: Any) -> AnnotationRecord:
        """Set ``state``, ``intent``, ``replies``, ``deck``, ``prompt`` or ``attention``; raises
        :class:`NotFoundError`."""
        ...

    def delete_annotation(self, annotation_id: int) -> None:
        """Remove an annotation for good (a comment thread its author deletes); raises
        :class:`NotFoundError`."""
        ...

    def card_heads(self, card_ids: Iterable[int]) -> dict[int, tuple[int, int]]:
        """``card id -> (board id, current version)`` of the live cards among ``card_ids``,
        without reading their payloads (a finding needs only where a card is and its
        version)."""
        ...

    def count_annotations(
        self, board_ids: Iterable[int], states: Iterable[str], *, kind: str = "finding"
    ) -> dict[int, int]:
        """How many annotations of ``kind`` in ``states`` each board holds (boards with
        none left out)."""
        ...

    def annotation_tally(self, board_id: int) -> list[tuple[str, str, int, Any]]:
        """``(state, intent, count, latest updated_at)`` per state and intent of a board's
        annotations (comment threads too), sorted: a few rows that move whenever a finding
        or a comment thread is filed, changes or goes."""
        ...


class TaskTx(Protocol):
    """The task engine: tasks, their vocabulary, their versioned refs and events."""

    def insert_task(
        self, workspace_id: int, *, title: str, created_by: str, asked_by: str, **values: Any
    ) -> TaskRecord:
        """Store a new task; ``values`` are columns of the tasks table."""
        ...

    def task(self, task_id: int, *, lock: bool = False) -> TaskRecord | None:
        """The task, or None; ``lock`` holds its row to the end of the transaction."""
        ...

    def task_by_key(self, workspace_id: int, key: str) -> TaskRecord | None:
        """The workspace's task with this key, or None."""
        ...

    def update_task(self, task_id: int, **fields: Any) -> TaskRecord:
        """Set columns of a task; raises :class:`NotFoundError`."""
        ...

    def tasks(
        self,
        workspace_id: int,
        *,
        project_id: int | None = None,
        parent_id: int | None = None,
        ids: Sequence[int] | None = None,
        limit: int | None = None,
    ) -> list[TaskRecord]:
        """Tasks most recently updated first, filtered."""
        ...

    def task_titles(
        self, workspace_id: int, query: TaskTitleQuery, *, limit: int, ordered: bool = True
    ) -> list[TaskTitleRow]:
        """At most ``limit`` tasks the query picks, read as :class:`TaskTitleRow`: with
        ``match`` all the shortest titles first, with any those holding the most
        terms; then most recently updated. Terms are looked up in the search
        index's task titles, each matching the start of a title word. ``ordered`` False takes any (a check
        whether one exists stops at the first)."""
        ...

    def task_child_counts(self, task_ids: Sequence[int]) -> dict[int, int]:
        """How many children (drafts aside) each of these tasks has, by id."""
        ...

    def task_titles_by_id(self, task_ids: Sequence[int]) -> dict[int, TaskTitleRow]:
        """The tasks of ``task_ids`` that exist, in any workspace, drafts too, read as
        :class:`TaskTitleRow`, by id."""
        ...

    def task_vocab(
        self, workspace_id: int, kind: str, project_id: int | None = None
    ) -> list[TaskVocabRecord]:
        """The scope's vocabulary of one kind, in the order it was made."""
        ...

    def task_vocab_item(self, item_id: int) -> TaskVocabRecord | None:
        """One vocabulary row by id, or None."""
        ...

    def ensure_task_vocab(
        self,
        workspace_id: int,
        kind: str,
        key: str,
        *,
        project_id: int | None = None,
        name: str | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> tuple[TaskVocabRecord, bool]:
        """The row of ``key``, created if missing; the flag is True when created."""
        ...

    def task_refs(self, task_id: int) -> list[TaskRefRecord]:
        """Every version of every ref of the task, oldest first."""
        ...

    def refs_of_tasks(self, task_ids: Sequence[int]) -> dict[int, list[TaskRefRecord]]:
        """:meth:`task_refs` of several tasks at once, by task id."""
        ...

    def add_task_ref_version(
        self,
        task_id: int,
        kind: str,
        ref: str,
        *,
        meta: Mapping[str, Any],
        author: str,
        blob: str | None = None,
        size: int | None = None,
    ) -> TaskRefRecord:
        """Add the next version of a ref (version 1 for a new one)."""
        ...

    def set_task_ref_meta(self, ref_id: int, meta: Mapping[str, Any]) -> TaskRefRecord:
        """Replace the meta of one ref version; raises :class:`NotFoundError`."""
        ...

    def record_task_event(
        self, task_id: int, action: str, principal: str, detail: Mapping[str, Any] | None = None
    ) -> TaskEventRecord:
        """Append an event to the task's log."""
        ...

    def task_comments(self, task_ids: Sequence[int]) -> dict[int, list[str]]:
        """The text of each task's comments (events ``comment`` with ``detail.text``),
        oldest first, by task id."""
        ...

    def task_events(self, task_id: int, *, limit: int | None = None) -> list[TaskEventRecord]:
        """The task's events oldest first; ``limit`` keeps the newest ones."""
        ...


class EmbeddingTx(Protocol):
    """Task vectors of meaning search (service/search/meaning.py)."""

    def task_embedding_window(
        self,
        workspace_id: int,
        model: str,
        *,
        filters: Mapping[str, Collection[Any]],
        limit: int,
    ) -> tuple[list[TaskEmbeddingStamp], int]:
        """The ``limit`` most recently updated tasks (drafts left out) whose columns
        hold one of the values ``filters`` gives by column (id, project_id, type,
        state, status), each saying whether it holds a current vector of ``model``;
        and how many tasks the filters let through in all."""
        ...

    def task_embeddings(self, task_ids: Sequence[int]) -> dict[int, TaskEmbeddingRecord]:
        """The stored vectors of these tasks, by task id (tasks without one left out)."""
        ...

    def tasks_to_embed(
        self,
        workspace_id: int,
        model: str,
        *,
        limit: int,
        before: tuple[datetime, int] | None = None,
    ) -> list[tuple[TaskRecord, str | None]]:
        """Up to ``limit`` tasks (drafts left out, most recently updated first, and
        after the ``(updated_at, id)`` of ``before`` when given) with no current
        vector of ``model``, each with its stored vector's text hash when that
        vector is of ``model`` (None otherwise)."""
        ...

    def put_task_embedding(
        self,
        task_id: int,
        *,
        model: str,
        dim: int,
        text_hash: str,
        task_updated_at: datetime,
        vector: bytes,
    ) -> bool:
        """Store the task's vector, made from its text as of ``task_updated_at``;
        False (nothing stored) when the task changed since then or is gone."""
        ...


class WorkTx(Protocol):
    """Work delivered to agents: leases on items, asks, and the wake-up signal."""

    def signal_work(self, workspace_id: int) -> None:
        """Tell waiters in every process that work may have appeared (on commit)."""
        ...

    def work_counters(self) -> dict[int, int]:
        """Every workspace's change counter (what SQLite waiters poll)."""
        ...

    def work_candidates(
        self,
        workspace_id: int,
        *,
        board_ids: Sequence[int],
        project: str | None,
        branch: str | None,
        board_id: int | None,
        limit: int,
    ) -> list[str]:
        """Item keys in scope that no live lease holds and nobody finished."""
        ...

    def claim_work(self, workspace_id: int, item: str, agent: str, lease_s: float) -> bool:
        """Lease ``item`` to ``agent``; True when this call won it."""
        ...

    def holds_work(self, workspace_id: int, agent: str) -> bool:
        """Whether ``agent`` holds a live lease."""
        ...

    def heartbeat_work(self, workspace_id: int, agent: str, lease_s: float) -> list[str]:
        """Extend every live lease ``agent`` holds; the items whose lease it kept."""
        ...

    def finish_work(
        self, workspace_id: int, agent: str | None, items: Iterable[str], *, release: bool
    ) -> list[str]:
        """Mark ``items`` done, or hand them back with ``release``; the items changed."""
        ...

    def work_claims(self, workspace_id: int, items: Iterable[str]) -> dict[str, dict[str, Any]]:
        """The claim rows of ``items`` by item key."""
        ...

    def insert_ask(self, workspace_id: int, fields: Mapping[str, Any]) -> dict[str, Any]:
        """Store a new ask for an AI answerer."""
        ...

    def work_ask(self, ask_id: int) -> dict[str, Any] | None:
        """The ask, or None."""
        ...

    def answer_work_ask(self, ask_id: int, answer: str, by: str) -> dict[str, Any]:
        """Record the answer of an open ask."""
        ...


class WebhookTx(Protocol):
    """Outbound webhooks of a workspace and the outbox of their deliveries."""

    def create_webhook(
        self, workspace_id: int, *, url: str, events: Sequence[str], secret: str, created_by: str
    ) -> WebhookRecord:
        """Register an active webhook of ``workspace_id``."""
        ...

    def webhook(self, webhook_id: int) -> WebhookRecord | None:
        """The webhook, or None (of any workspace: the caller checks whose it is)."""
        ...

    def webhooks(self, workspace_id: int, *, active: bool | None = None) -> list[WebhookRecord]:
        """The workspace's webhooks oldest first; ``active`` keeps those on (or off)."""
        ...

    def update_webhook(self, webhook_id: int, **fields: Any) -> WebhookRecord:
        """Change ``url``, ``events``, ``secret`` or ``active``. Raises ``ValueError``
        (another field) and :class:`NotFoundError` (unknown id)."""
        ...

    def delete_webhook(self, webhook_id: int) -> bool:
        """Delete the webhook and its deliveries; False when there was none."""
        ...

    def queue_webhook_delivery(
        self,
        webhook_id: int,
        event: str,
        data: Mapping[str, Any],
        *,
        due: datetime,
        coalesce_key: str | None = None,
        redelivery_of: int | None = None,
    ) -> WebhookDeliveryRecord:
        """Write a pending delivery first due at ``due``. With ``coalesce_key``, a
        pending delivery of the same webhook and key that was never tried nor
        claimed takes ``data`` instead (keeping its due time) and is returned."""
        ...

    def webhook_delivery(self, delivery_id: int) -> WebhookDeliveryRecord | None:
        """The delivery, or None."""
        ...

    def webhook_deliveries(
        self,
        webhook_id: int,
        *,
        status: str | None = None,
        before: int | None = None,
        limit: int = 50,
    ) -> list[WebhookDeliveryRecord]:
        """The webhook's deliveries newest first; ``before`` an id pages back."""
        ...

    def due_webhook_deliveries(
        self, limit: int = 20, *, workspace_id: int | None = None
    ) -> list[int]:
        """Ids of pending deliveries that are due and not leased, of every workspace
        or of ``workspace_id``."""
        ...

    def claim_webhook_delivery(
        self, delivery_id: int, lease: timedelta, *, early: bool = False
    ) -> WebhookDeliveryRecord | None:
        """Lease a due delivery to this caller for ``lease``; None when another
        process holds it or it is no longer due. ``early`` also takes a pending
        delivery whose first attempt is not due yet (a debounce window)."""
        ...

    def finish_webhook_attempt(
        self,
        delivery_id: int,
        *,
        status: str,
        next_attempt_at: datetime | None,
        response_status: int | None,
        response_excerpt: str | None,
        error: str | None,
    ) -> WebhookDeliveryRecord:
        """Record one attempt (attempts +1, the lease released) and the new status."""
        ...


class TransferTx(Protocol):
    """Rows as plain mappings, for copying a project between workspaces in batches,
    the map of what each copied row became, and the deleted ledger of tasks."""

    def stream_rows(
        self, table: str, column: str, values: Sequence[Any], *, batch: int = 500
    ) -> Iterator[list[dict[str, Any]]]:
        """The rows of ``table`` whose ``column`` is one of ``values``, in batches of at
        most ``batch`` rows, in primary key order within each chunk of values."""
        ...

    def count_rows(self, table: str, column: str, values: Sequence[Any]) -> int:
        """How many rows of ``table`` have ``column`` in ``values``."""
        ...

    def column_values(self, table: str, column: str, where: Mapping[str, Any]) -> list[Any]:
        """``column`` of the rows of ``table`` matching every ``where`` equality, sorted."""
        ...

    def insert_rows(self, table: str, rows: Sequence[Mapping[str, Any]]) -> list[int]:
        """Insert ``rows``; the new ids in row order (empty for a table without ``id``)."""
        ...

    def update_rows(self, table: str, rows: Sequence[Mapping[str, Any]]) -> None:
        """Set the columns each row names on the row with its ``id`` (same keys in every row)."""
        ...

    def transfer_map(
        self, source_ws: int, dest_ws: int, table: str, source_ids: Sequence[int]
    ) -> dict[int, tuple[int, bool]]:
        """Of ``source_ids``, those an earlier transfer between the two workspaces
        mapped: source id → (destination id, merged)."""
        ...

    def add_transfer_map(
        self, source_ws: int, dest_ws: int, table: str, pairs: Sequence[tuple[int, int, bool]]
    ) -> None:
        """Remember ``(source id, destination id, merged)`` pairs of ``table``."""
        ...

    def blob_size(self, key: str) -> int | None:
        """The size in bytes of the stored blob ``key``, or None when it is missing."""
        ...

    def trash_task(self, task_id: int, *, reason: str, detail: Mapping[str, Any], by: str) -> bool:
        """Trash a live task (task listings leave it out) and add its deleted ledger row;
        whether it was live."""
        ...

    def restore_task(self, task_id: int) -> bool:
        """Bring a trashed task back and close its ledger row; whether it was trashed."""
        ...

    def trashed_tasks(self, workspace_id: int) -> list[dict[str, Any]]:
        """The workspace's open deleted ledger rows, oldest first."""
        ...


class SearchTx(Protocol):
    """The search index (``search_docs``, the full-text index over it, and the
    ``search_words`` vocabulary), kept current by the writes of the other families."""

    def flush_search_index(self) -> None:
        """Rewrite the documents of the rows this transaction changed (done before
        every commit; call it to read this transaction's own writes)."""
        ...

    def rebuild_search_index(self, workspace_id: int | None = None) -> int:
        """Read every indexed row of the workspace (or of all) into the index again;
        returns the number of documents."""
        ...

    def search_index(
        self,
        workspace_id: int,
        terms: Sequence[Sequence[tuple[str, bool]]],
        *,
        groups: Sequence[str],
        per_group: int,
    ) -> list[SearchDocHit]:
        """Documents holding every term (one list of ``(word, prefix)`` alternatives
        per query word), at most ``per_group`` per group, best first in each."""
        ...

    def search_task_rows(
        self, workspace_id: int, ids: Sequence[int], *, live: bool = True
    ) -> dict[int, SearchTaskRow]:
        """The workspace's live tasks among ``ids`` with what a search hit shows of
        them (text columns, project slug, ref versions, comments), by id, in one read;
        ``live`` False reads trashed tasks too."""
        ...

    def vocabulary_word(self, workspace_id: int, start: str) -> int | None:
        """How many documents hold the vocabulary word ``start``: 0 when only longer
        words begin with it, None when no vocabulary word does."""
        ...

    def vocabulary_counts(self, workspace_id: int, words: Iterable[str]) -> dict[str, int]:
        """How many documents hold each of ``words`` the vocabulary has (one read);
        words it lacks are left out."""
        ...

    def vocabulary_near(
        self, workspace_id: int, first: str, shortest: int, longest: int, *, min_docs: int = 1
    ) -> dict[str, int]:
        """Vocabulary words with this first letter, a length in the range and at
        least ``min_docs`` documents, with the number of documents holding each."""
        ...


class ProjectMemoryTx(Protocol):
    """A project's durable notes for agents, every write a new version of its key."""

    def write_project_memory(
        self, workspace_id: int, project_id: int, key: str, *, text: str, load: str, author: str
    ) -> ProjectMemoryRecord:
        """Write the next version of note ``key`` (version 1 for a new key)."""
        ...

    def project_memories(self, project_id: int) -> list[ProjectMemoryRecord]:
        """The newest version of each note of the project, in key order."""
        ...

    def project_memory_history(self, project_id: int, key: str) -> list[ProjectMemoryRecord]:
        """Every version of note ``key``, oldest first (empty: no such note)."""
        ...


class ComponentTx(Protocol):
    """A workspace's reusable groups of cards, every write a new version of its name."""

    def write_component(
        self,
        workspace_id: int,
        name: str,
        *,
        definition: Mapping[str, Any],
        description: str | None,
        author: str,
    ) -> ComponentRecord:
        """Write the next version of component ``name`` (version 1 for a new name)."""
        ...

    def components(self, workspace_id: int) -> list[ComponentRecord]:
        """The newest version of each component of the workspace, in name order."""
        ...

    def component(self, workspace_id: int, name: str) -> ComponentRecord | None:
        """The newest version of component ``name``, or None."""
        ...


class PresenceTx(Protocol):
    """Who has a board open now: one short-lived row per caller and page."""

    def write_presence(
        self,
        board_id: int,
        who: str,
        page: str,
        *,
        kind: str,
        name: str,
        state: Mapping[str, Any],
        expired: datetime,
    ) -> PresenceRecord:
        """Record (or refresh) ``who``'s page on the board, seen now; rows of any board
        last seen before ``expired`` are cleared on the way."""
        ...

    def leave_presence(self, board_id: int, who: str, page: str) -> bool:
        """Forget ``who``'s page on the board; whether it was there."""
        ...

    def presence(self, board_id: int, since: datetime) -> list[PresenceRecord]:
        """The board's rows seen at ``since`` or later, in ``who`` and ``page`` order."""
        ...


class Tx(
    WorkspaceTx,
    BoardTx,
    CardTx,
    QuestionTx,
    AccessTx,
    RequestKeyTx,
    EventTx,
    ReviewRuleTx,
    ReviewRunTx,
    AnnotationTx,
    TaskTx,
    EmbeddingTx,
    WorkTx,
    TransferTx,
    SearchTx,
    WebhookTx,
    ProjectMemoryTx,
    ComponentTx,
    PresenceTx,
    Protocol,
):
    """One open transaction or read snapshot; write methods raise
    :class:`~layoutkit.storage.StorageError` in a read snapshot."""

    def on_end(self, callback: Callable[[bool], None]) -> None:
        """Call ``callback(committed)`` once the transaction has ended, after the
        commit (True) or the rollback (False); for caches that must only keep
        what was committed."""
        ...

    def now(self) -> datetime:
        """The store clock's current time (UTC)."""
        ...

    @property
    def blobs(self) -> BlobStore:
        """The blob store bound to this transaction (table blobs roll back with it)."""
        ...


@runtime_checkable
class Store(Protocol):
    """A workspace's durable state: transactions, read snapshots and blobs."""

    dialect: str
    clock: Clock
    blobs: BlobStore

    def transaction(self) -> AbstractContextManager[Tx]:
        """An all-or-nothing write transaction."""
        ...

    def read(self, *, snapshot: bool = True) -> AbstractContextManager[Tx]:
        """A read-only transaction with one consistent snapshot; ``snapshot=False``
        lets each statement read the latest commits instead (cheaper for one row)."""
        ...

    def schema_version(self) -> str:
        """The schema revision the database is at."""
        ...

    def close(self) -> None:
        """Release connections."""
        ...
