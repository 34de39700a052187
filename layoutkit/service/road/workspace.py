"""``Workspace``: the single entry point every adapter goes through."""

from __future__ import annotations

import functools
import logging
import os
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import attrs

from layoutkit.errors import EngineError, ServiceError, did_you_mean
from layoutkit.formatting import an
from layoutkit.principal import Principal
from layoutkit.service.road import hooks, idempotency
from layoutkit.service.road import tokens as api_tokens
from layoutkit.service.road.errors import storage_service_error, to_service_error
from layoutkit.service.road.ids import unknown_task, values_at
from layoutkit.service.road.jobs import JobRunner
from layoutkit.service.road.reach import find_board, may_reach, personal_board, reachable_workspace
from layoutkit.service.road.registry import REGISTRY, Operation, Registry
from layoutkit.service.road.task_pins import task_id_pin
from layoutkit.storage import BoardRecord, StorageError, Store, Tx, open_store

if TYPE_CHECKING:
    from layoutkit.meaning import Embedder
    from layoutkit.net import Unfurler
    from layoutkit.service.road.ai import AiBackend

T = TypeVar("T")
E = TypeVar("E")
log = logging.getLogger("layoutkit.workspace")

#: How long closing a workspace waits for the calls under way to finish.
CLOSE_WAIT_S = 30.0


@attrs.frozen(slots=True)
class Call:
    """What a handler receives from the road.

    ``params`` are checked against the operation's schema; ``tx`` is the one
    transaction the road opened (a write transaction for operations that
    write); ``board`` is the board the operation names, found, access-checked
    and (for writes) locked; ``prepared`` is what the operation's ``prepare``
    step returned before the transaction opened.
    """

    workspace: Workspace
    principal: Principal
    params: dict[str, Any]
    # Typed as present: the road sets them before any handler runs (tx for every
    # operation that is not pure, board for every one that declares it).
    tx: Tx = attrs.field(default=None, repr=False)
    board: BoardRecord = attrs.field(default=None, repr=False)
    prepared: Any = attrs.field(default=None, repr=False)
    #: Work to start once the transaction has committed (background jobs that
    #: must see what the handler wrote); nothing runs when the call fails.
    after: list[Callable[[], None]] = attrs.field(factory=list, repr=False)
    snapshot: Any = attrs.field(default=None, repr=False)
    #: The workspace the call works in: the ``Workspace``'s own unless a task id it
    #: carries names another one the caller belongs to (the road decides, see
    #: ``Workspace._place``); handlers never choose it themselves.
    workspace_id: int = attrs.field(
        kw_only=True,
        default=attrs.Factory(lambda call: call.workspace.workspace_id, takes_self=True),
    )
    workspace_name: str = attrs.field(
        kw_only=True,
        default=attrs.Factory(lambda call: call.workspace.name, takes_self=True),
    )


class Workspace:
    """A workspace of boards, documents and their operations.

    Open one with :meth:`open`, then run operations by name with :meth:`call`.

    ``unfurler`` fetches link cards (title, icon, frameability, screenshots) in
    the background after the write; without one the workspace is air-gapped:
    a link card keeps its bare URL and says why in ``payload.error``.

    ``ai`` is the deployment's AI backend (``layoutkit.service.road.ai``): without
    one, ``ask_task`` answers 501 and ``read_task_ref`` never distils.

    ``embedder`` is the deployment's embedding sidecar (``layoutkit.meaning``):
    with one, a search no task fully answers also ranks tasks by meaning
    (``service/search/meaning.py``); without one, search stays lexical and says so.
    """

    def __init__(
        self,
        store: Store,
        *,
        name: str = "default",
        registry: Registry = REGISTRY,
        unfurler: Unfurler | None = None,
        ai: AiBackend | None = None,
        multi_workspace: bool | None = None,
        embedder: Embedder | None = None,
    ) -> None:
        self.store = store
        self.name = name
        #: Whether this deployment keeps several workspaces in its database and offers
        #: what spans them (project transfer); off, it is single-tenant. None reads
        #: ``LAYOUTKIT_MULTI_WORKSPACE`` (1, true or yes turn it on).
        self.multi_workspace = (
            multi_workspace if multi_workspace is not None else multi_workspace_from_env()
        )
        self.registry = registry
        self.unfurler = unfurler
        self.ai = ai
        self.embedder = embedder
        #: Reads a diagram card's living source (its payload.source, {kind, ref, rev})
        #: into fresh semantics (nodes, groups, lanes, edges or diagram_text, and
        #: title or dir when the source has them); refresh_card calls it. None (no
        #: repository connection) makes a refresh of a living source answer 501.
        self.diagram_sources: Callable[[dict[str, Any]], dict[str, Any]] | None = None
        #: Where people reach this deployment (``https://layoutkit.example.com``), so
        #: share links, viewer addresses and webhook payloads can be absolute; None
        #: leaves them relative to the server (embedding code has no address).
        self.public_url: str | None = None
        self.jobs = JobRunner()
        # Operations running now and when the last one ended (see idle_for); a
        # plain counter: a lost update under threads only moves a lull a little.
        self._calls = 0
        # Calls run on many server threads at once; an unguarded count could lose one.
        self._calls_lock = threading.Lock()
        self._last_call = 0.0
        #: Set when close() begins: work that only saves later work gives up.
        self.closing = False
        # Faces drawn behind writes and kept after pictures (pictures.py): CPU work
        # on a thread of its own, so it never waits behind link fetches nor holds
        # one of their places.
        self.drawing = JobRunner(workers=1)
        # What families keep per workspace (hooks.extension), made when first asked for.
        self._extensions: dict[type, Any] = {}
        self._extensions_lock = threading.Lock()
        # The other workspaces of the database reached through this one (see at()).
        self._siblings: dict[int, Workspace] = {}
        self._siblings_lock = threading.Lock()
        self._owns_store = True
        with store.transaction() as tx:
            self.workspace_id: int = tx.ensure_workspace(name).id
            # Retention is enforced when a workspace opens: trashed cards go
            # after 30 days, request keys after their 24-hour replay window.
            tx.purge_deleted_cards()
            tx.purge_request_keys()
            # Made here, in a transaction that commits, so every process signs
            # and checks removal tokens with the same key.
            self.confirm_key: bytes = bytes.fromhex(tx.server_key("confirm"))

    @classmethod
    def open(
        cls,
        url: str | None = None,
        *,
        name: str = "default",
        unfurler: Unfurler | None = None,
        ai: AiBackend | None = None,
        multi_workspace: bool | None = None,
        embedder: Embedder | None = None,
    ) -> Workspace:
        """Open a workspace stored at ``url``.

        No URL keeps everything in memory; ``sqlite:///path.db`` is a file next
        to which blobs are kept; ``postgresql://...`` shares one database between
        processes. Migrations run on open. Link cards are fetched only when an
        ``unfurler`` is given (``layoutkit.net.Unfurler()``); by default the
        workspace touches no network. An ``ai`` backend is asked only by the
        operations that need one (``ask_task``, distilling in
        ``read_task_ref``); an ``embedder`` by search, to rank tasks by meaning.
        ``multi_workspace`` declares a deployment of several workspaces in one
        database (default: ``LAYOUTKIT_MULTI_WORKSPACE``); only such a deployment
        transfers projects. Raises :class:`ServiceError` (400 ``unsupported_url``)
        for a URL no backend understands.
        """
        try:
            store = open_store(url)
        except StorageError as exc:
            raise ServiceError(400, "unsupported_url", str(exc)) from exc
        return cls(
            store,
            name=name,
            unfurler=unfurler,
            ai=ai,
            multi_workspace=multi_workspace,
            embedder=embedder,
        )

    def create_token(self, kind: str, name: str, *, role: str | None = None) -> str:
        """Mint an API token for ``kind`` (owner, user, agent, service) called ``name``,
        whose home is this workspace, a member of it with ``role`` (owner, admin or
        member; by default owner for an owner token, member for the rest).

        The plain token is returned once; only its hash is stored. The ``create_token``
        operation, run as the deployment: a kind or role it does not know is 400
        ``invalid_params``, and an archived workspace refuses it.
        """
        params = {"kind": kind, "name": name} | ({} if role is None else {"role": role})
        token: str = self.call("create_token", params)["token"]
        return token

    def at(self, name: str) -> Workspace | None:
        """The ``Workspace`` of the workspace called ``name`` in this one's database, or
        None when there is none; which callers may work there is still the road's
        to say (see :func:`reachable_workspace`).

        Objects are kept, one per workspace, sharing this one's store and settings,
        and closed with it. A single-tenant deployment names no other workspace: 400
        ``single_tenant``.
        """
        if name == self.name:
            return self
        if not self.multi_workspace:
            raise ServiceError(
                400,
                "single_tenant",
                f"this deployment keeps one workspace, {self.name!r}; another one is "
                "reached only in a multi-workspace deployment (LAYOUTKIT_MULTI_WORKSPACE=1)",
                workspace=self.name,
            )
        with self.store.read(snapshot=False) as tx:
            space = tx.workspace_by_name(name)
        if space is None:
            return None
        with self._siblings_lock:
            found = self._siblings.get(space.id)
            if found is None:
                found = Workspace(
                    self.store,
                    name=space.name,
                    registry=self.registry,
                    unfurler=self.unfurler,
                    ai=self.ai,
                    multi_workspace=True,
                    embedder=self.embedder,
                )
                found.public_url = self.public_url
                # One object per workspace whichever of them is asked.
                found._siblings = self._siblings
                found._siblings_lock = self._siblings_lock
                found._owns_store = False
                self._siblings[space.id] = found
        # A rename elsewhere since the object was made: it answers to the new name.
        found.name = space.name
        return found

    def tokens(self) -> list[dict[str, Any]]:
        """The workspace's API tokens, its own and its members from elsewhere (id, kind,
        name, created, revoked, purpose, home), never the secret."""
        tokens: list[dict[str, Any]] = self.call("list_tokens", {})["tokens"]
        return tokens

    def revoke_token(self, ref: str) -> dict[str, Any]:
        """Revoke the live token with this id or name (the ``revoke_token`` operation): a
        token of this workspace's own is revoked, a member from elsewhere only leaves."""
        return self.call("revoke_token", {"token": ref})

    def serve_token(self, *, new: bool = False) -> tuple[str | None, dict[str, Any]]:
        """The owner token ``layoutkit serve`` keeps; see :func:`api_tokens.serve_token`."""
        with self.store.transaction() as tx:
            return api_tokens.serve_token(tx, self.workspace_id, new=new)

    def authenticate(self, token: str) -> Principal | None:
        """The principal a bearer token or share-link token stands for, or None; an API
        token that is no member of this workspace stands for nobody here."""
        # Every API request asks: no snapshot needed for a lookup by hash.
        with self.store.read(snapshot=False) as tx:
            if token.startswith("lks_"):
                link = tx.verify_share_token(token)
                board = tx.board(link.board_id) if link is not None else None
                if link is None or board is None or board.workspace_id != self.workspace_id:
                    return None
                return Principal.share(board.slug, link.mode, link.card_id)
            record = tx.verify_api_token(token)
            role = None if record is None else tx.membership(self.workspace_id, record.id)
        if record is None or role is None:
            return None
        return Principal(record.kind, record.name, role=role, token=record.id)  # type: ignore[arg-type]

    def extension(self, kind: type[E]) -> E:
        """The workspace's one ``kind``, a family's per-workspace state (warm board
        models, warm pictures) registered with :func:`hooks.extension`."""
        found = self._extensions.get(kind)
        if found is None:
            with self._extensions_lock:
                found = self._extensions.get(kind)
                if found is None:
                    found = self._extensions[kind] = hooks.EXTENSIONS[kind](self)
        return found  # type: ignore[no-any-return]

    def resumable(self) -> list[str]:
        """The names of the background work :meth:`resume` picks up (link fetches,
        PDF pages, ...), in the order the families registered them."""
        return list(hooks.RESUMERS)

    def resume(self, name: str) -> int:
        """Queue again background work ``name`` that never landed (a server stopped
        or crashed mid-way); the number of jobs queued. Servers call it for each of
        :meth:`resumable` when they start. Raises ``KeyError`` for an unknown name."""
        return hooks.RESUMERS[name](self)

    def background_write(self, board_id: int, work: Callable[[Tx, BoardRecord], T]) -> T | None:
        """Run ``work`` in one short write transaction with board ``board_id`` locked,
        as a background job lands its result; None when the board is gone.

        ``work`` must re-read what it changes: the job ran outside any
        transaction, and the board may have changed since.
        """
        with self.store.transaction() as tx:
            if tx.board(board_id) is None:
                return None
            before = tx.lock_board(board_id)
            result = work(tx, before)
            # A landing is a board write like any other: it owes its webhook
            # deliveries in its own transaction, and wakes watchers once committed.
            for writing in hooks.BOARD_WRITING:
                writing(self, tx, before)
        for hook in hooks.BOARD_WRITTEN:
            try:
                hook(self, board_id, before.rev)
            except Exception:
                log.exception("work after a background write to board %d failed", board_id)
        return result

    def cache_read(self, work: Callable[[Tx], T]) -> T:
        """Run ``work`` in one read transaction, for background work that derives what
        :meth:`cache_write` keeps."""
        with self.store.read() as tx:
            return work(tx)

    def cache_write(self, work: Callable[[Tx], T]) -> T:
        """Run ``work`` in one short write transaction that locks no board: for what is
        derived from stored content and checked before use (stored faces), and for
        the short record a read-only operation leaves after its read (the sheets a
        review run served, its wrong sight codes), which takes its own row lock."""
        with self.store.transaction() as tx:
            return work(tx)

    def write(self, work: Callable[[Tx], T], *, rollback: bool = False) -> T:
        """Run ``work`` in one write transaction of its own, for an operation that needs
        several in a row (a project transfer copies, then archives the source once the
        copy has committed). ``rollback`` discards everything ``work`` wrote and still
        returns its result: a dry run that does the real work."""
        if not rollback:
            with self.store.transaction() as tx:
                return work(tx)
        done: list[T] = []
        try:
            with self.store.transaction() as tx:
                done.append(work(tx))
                raise _Discard
        except _Discard:
            return done[0]

    def wake_waiters(self) -> None:
        """Wake every call waiting for this store's next change (a long poll): each
        looks again now. A stopping server calls this after telling its waits to end."""
        self.store.waker.fire()

    def close(self) -> None:
        """Refuse new calls, let the ones under way finish (for at most
        :data:`CLOSE_WAIT_S`), stop background jobs (those not started are dropped)
        and close the store."""
        self.closing = True
        # A call still running (a viewer's event stream checking the board, on a
        # server thread) must not find its store closed under it.
        deadline = time.monotonic() + CLOSE_WAIT_S
        while self._calls > 0 and time.monotonic() < deadline:
            time.sleep(0.01)
        for kept in list(self._extensions.values()):
            # An extension that runs a thread of its own (a dispatcher) stops it here.
            stop = getattr(kept, "close", None)
            if stop is not None:
                stop()
        self.jobs.shutdown()
        self.drawing.shutdown()
        if not self._owns_store:
            return
        with self._siblings_lock:
            siblings = [w for w in self._siblings.values() if w is not self]
            self._siblings.clear()
        for sibling in siblings:
            sibling.close()
        self.store.close()
        # An HTTP embedder holds a connection pool; the local one holds nothing to close.
        close_embedder = getattr(self.embedder, "close", None)
        if close_embedder is not None:
            close_embedder()

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def call(
        self, op: str, params: dict[str, Any] | None = None, principal: Principal | None = None
    ) -> dict[str, Any]:
        """Run operation ``op`` and return its JSON-able result.

        Raises :class:`ServiceError` for an unknown operation (404
        ``unknown_operation``), params that do not fit the operation's schema
        (400 ``invalid_params``), an unknown board (404 ``unknown_board``), a
        caller the operation does not admit (403 ``forbidden``) or any refusal
        of the operation itself.
        """
        operation = self.registry.get(op)
        who = principal or _OWNER
        raw: Any = {} if params is None else params
        if operation.kinds is not None:
            # Only the kind is read here: who may call is the kind's to say, and a
            # caller it refuses hears 403 before anything about its params.
            kinded = raw if isinstance(raw, dict) else operation.check_params(raw)
            operation = _select_kind(operation, kinded)
        _admit(op, operation, who)
        checked = operation.check_params(raw)
        _people_only(op, operation, who, checked)
        with self._calls_lock:
            self._calls += 1
        try:
            if self.closing:
                # Counted first, then checked: close() waits for every call it counts.
                raise ServiceError(
                    503, "shutting_down", "the workspace is closing; call again on a running server"
                )
            call = self._place(operation, Call(self, who, checked))
            if call.workspace_id != self.workspace_id:
                # The role that counts is the caller's role where the call now works.
                _admit(op, operation, call.principal)
            return self._run(operation, call)
        except EngineError as err:
            # Engines speak in codes; statuses are given here, once, for every operation.
            raise to_service_error(err) from err
        except StorageError as err:
            # So does the store: no storage error leaves the road as a crash.
            raise storage_service_error(err) from err
        finally:
            with self._calls_lock:
                self._calls -= 1
            self._last_call = time.monotonic()

    def _place(self, op: Operation, call: Call) -> Call:
        """The call moved into the workspace its task ids name, with the caller's role
        there; refused (404 ``unknown_task``, as for a task that does not exist) when
        an id names a workspace the caller may not work in, before any handler runs.

        An id without a workspace (``12``, ``#12``, ``tk-12``, ``/tasks/12``) keeps the
        call where it is, and the handler finds the task in that workspace or answers
        404. Every id of one call names one workspace: a call works in one.
        """
        named: dict[str, tuple[str, Any]] = {}
        for path in op.task_ids:
            for field, value in values_at(call.params, path):
                pin = task_id_pin(value) if isinstance(value, int | str) else None
                if pin is not None and pin.workspace is not None and pin.workspace != self.name:
                    named.setdefault(pin.workspace, (field, value))
        if not named:
            return call
        if len(named) > 1:
            (field, _), (other, _) = list(named.values())[:2]
            raise ServiceError(
                400,
                "mixed_workspaces",
                f"{field} and {other} name tasks of two workspaces; a call works in one",
                field=other,
            )
        ((name, (field, value)),) = named.items()
        with self.store.read(snapshot=False) as tx:
            reach = reachable_workspace(
                tx, self.workspace_id, call.principal, name, multi_workspace=self.multi_workspace
            )
        if reach is None:
            raise unknown_task(value, field)
        space, role = reach
        return attrs.evolve(
            call,
            principal=attrs.evolve(call.principal, role=role),
            workspace_id=space.id,
            workspace_name=space.name,
        )

    def idle_for(self, seconds: float) -> bool:
        """Whether no operation ran in this process for ``seconds``: background work
        that only saves later work (drawing faces) waits for such a lull."""
        return self._calls == 0 and time.monotonic() - self._last_call >= seconds

    def _run(self, op: Operation, call: Call) -> dict[str, Any]:
        """The road every operation travels, in this order: replay a known
        requestKey, prepare outside the transaction, then one transaction that
        finds the board, checks access, locks it for writes, runs the handler
        and records the requestKey with the receipt it describes."""
        key = call.params.get("requestKey") if op.idempotent else None
        replay = idempotency.Replay(call, op.name, key) if key is not None else None
        if replay is not None:
            earlier = self._replayed(replay)
            if earlier is not None:
                return earlier
        call = self._prepared(op, call)
        if op.pure:
            return op.handler(call)
        try:
            return self._transact(op, call, replay)
        except idempotency.ConflictError:
            # Another caller committed the same key first: answer as a retry would.
            earlier = self._replayed(replay) if replay is not None else None
            if earlier is None:
                raise
            return earlier

    def _replayed(self, replay: idempotency.Replay) -> dict[str, Any] | None:
        """The receipt an earlier call with this requestKey left, if any."""
        with self.store.read() as tx:
            return replay.lookup(tx)

    def _prepared(self, op: Operation, call: Call) -> Call:
        """The call with what the operation reads and computes before its transaction."""
        if op.snapshot is not None and (op.snapshot_when is None or op.snapshot_when(call.params)):
            # Engine work that needs stored state reads it here, so the write
            # transaction below holds its locks only for the write itself.
            with self.store.read() as tx:
                call = attrs.evolve(call, snapshot=op.snapshot(tx, call))
        if op.prepare is not None:
            call = attrs.evolve(call, prepared=op.prepare(call))
        return call

    def _transact(
        self, op: Operation, call: Call, replay: idempotency.Replay | None
    ) -> dict[str, Any]:
        """The handler in its one transaction, then the work that follows a commit."""
        with self.store.transaction() if op.writes else self.store.read() as tx:
            if op.writes and op.name not in _ARCHIVED_MAY_WRITE:
                _refuse_archived(tx, call.workspace_id)
            board = _board(op, tx, call)
            inside = attrs.evolve(call, tx=tx, board=board)
            result, kept = _handle(op, inside, replay)
            if op.writes and board is not None:
                for writing in hooks.BOARD_WRITING:
                    writing(self, tx, board)
        if kept is not None:
            raise kept
        if op.finish is not None:
            result = op.finish(attrs.evolve(call, board=board), result)
        if op.writes and board is not None:
            for hook in hooks.BOARD_WRITTEN:
                call.after.append(functools.partial(hook, self, board.id, board.rev))
        for start in call.after:
            try:
                start()
            except Exception:
                # The write is committed and its receipt is owed to the caller;
                # a job that fails to start only loses its own work.
                log.exception("starting background work after %s failed", op.name)
        return result

    def link(self, path: str) -> str:
        """``path`` (``/boards/x``) as people reach it: absolute under :attr:`public_url`."""
        if self.public_url is None or not path.startswith("/"):
            return path
        return self.public_url.rstrip("/") + path

    def operations(self) -> list[dict[str, Any]]:
        """Every registered operation as ``{name, description, params_schema}``."""
        return [op.describe() for op in self.registry]


#: The caller of a call that names none (frozen, so one serves every call).
_OWNER = Principal.owner()

#: What an archived workspace still lets its owners write: bringing it back.
_ARCHIVED_MAY_WRITE = frozenset({"archive_workspace"})


def _refuse_archived(tx: Tx, workspace_id: int) -> None:
    """409 ``workspace_archived`` for a write into an archived workspace."""
    space = tx.workspace(workspace_id)
    if space is not None and space.archived_at is not None:
        raise ServiceError(
            409,
            "workspace_archived",
            f"workspace {space.name!r} is archived; its owners bring it back with "
            "archive_workspace {archived: false}",
            workspace=space.name,
        )


class _Discard(Exception):
    """Leaves a transaction of :meth:`Workspace.write` so that it rolls back."""


def multi_workspace_from_env() -> bool:
    """Whether ``LAYOUTKIT_MULTI_WORKSPACE`` declares a deployment of several workspaces."""
    return os.environ.get("LAYOUTKIT_MULTI_WORKSPACE", "").strip().lower() in ("1", "true", "yes")


def _handle(
    op: Operation, call: Call, replay: idempotency.Replay | None
) -> tuple[dict[str, Any], ServiceError | None]:
    """The handler's result, recorded under its requestKey; or a refusal whose
    writes still commit (``keep_writes``), returned so the transaction ends normally."""
    try:
        result = op.handler(call)
    except ServiceError as exc:
        if not exc.keep_writes:
            raise
        return {}, exc
    if replay is not None:
        replay.record(call.tx, result)
    return result, None


def _select_kind(verb: Operation, params: dict[str, Any]) -> Operation:
    """The kind operation a generic verb's ``kind`` names (search defaults to any)."""
    assert verb.kinds is not None
    kind = params.get("kind", "any" if verb.name == "search" else None)
    chosen = verb.kinds.get(kind) if isinstance(kind, str) else None
    if chosen is None:
        raise ServiceError(
            400,
            "unknown_kind",
            f"{verb.name} takes kind {', '.join(sorted(verb.kinds))}",
            allowed=sorted(verb.kinds),
            didYouMean=did_you_mean(str(kind), verb.kinds),
        )
    return chosen


def admits(op: Operation, who: Principal) -> bool:
    """Whether ``op`` admits callers like ``who`` (share links by mode, others by kind
    and role); the board access check still follows when it runs."""
    if who.kind == "share":
        return (who.mode or "view") in op.share
    return who.kind in op.principals and who.at_least(op.role)


def _admit(name: str, op: Operation, who: Principal) -> None:
    """Refuse callers the operation does not declare: share links by mode, others by kind."""
    if who.kind == "share":
        if (who.mode or "view") not in op.share:
            raise ServiceError(
                403, "forbidden", f"{an(who.mode)} share link cannot call {name}", operation=name
            )
    elif who.kind not in op.principals:
        allowed = sorted(op.principals)
        raise ServiceError(
            403,
            "forbidden",
            f"{name} is for {', '.join(allowed)}; {an(who.kind)} cannot call it",
            operation=name,
            allowed=allowed,
        )
    elif not who.at_least(op.role):
        raise ServiceError(
            403,
            "forbidden",
            f"{name} needs the {op.role} role or higher in this workspace; "
            f"the caller is {who.workspace_role}",
            operation=name,
            role=who.workspace_role,
            required=op.role,
        )


def _people_only(name: str, op: Operation, who: Principal, params: dict[str, Any]) -> None:
    """Refuse an agent or service that sends a param the operation keeps for people."""
    if who.layer == "human":
        return
    for param in sorted(op.people_params):
        if param in params:
            raise ServiceError(
                403,
                "people_only",
                f"{name}'s {param} is for people working by hand; {an(who.kind)} places "
                "cards by intent (layout, anchor, section) instead",
                operation=name,
                field=param,
            )


def _board(op: Operation, tx: Tx, call: Call) -> BoardRecord | None:
    """The board ``op`` names: found (404 with close slugs), access-checked, locked for writes."""
    if op.board is None:
        return None
    if callable(op.board):
        board = op.board(tx, call)
        named = call.params.get("board")
        # An operation that finds its board through the ids it names also takes the
        # board, as every other board operation does: a check, never a second source.
        if named is not None and named != board.slug:
            raise ServiceError(
                400,
                "wrong_board",
                f"board is {named!r}, but what {op.name} names is on board {board.slug!r}",
                field="board",
                board=board.slug,
            )
    else:
        names = (op.board,) if isinstance(op.board, str) else op.board
        sent = [n for n in names if n in call.params]
        if not sent:
            return None
        slug = call.params[sent[0]]
        other = next((n for n in sent[1:] if call.params[n] != slug), None)
        if other is not None:
            raise ServiceError(
                400,
                "invalid_params",
                f"{sent[0]} and {other} name the same board; they differ",
                field=other,
            )
        board = find_board(tx, call.workspace_id, slug, lock=op.writes)
    who = call.principal
    # A share link is bound to one board; what its mode may do was admitted above.
    if who.kind == "share" and who.board != board.slug:
        raise ServiceError(403, "forbidden", "this share link grants another board")
    if not may_reach(who, board):
        raise personal_board(board)
    # A board found by slug for a write was locked as it was read.
    return tx.lock_board(board.id) if op.writes and callable(op.board) else board
