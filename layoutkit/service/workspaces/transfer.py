"""``transfer_project``: copy, merge or move a project into another workspace.

Only a deployment that keeps several workspaces in one database offers it
(``Workspace.multi_workspace``); a single-tenant one answers 501
``single_tenant``. The caller must be an owner of both workspaces; agent and
service tokens are refused by kind (403 ``forbidden``).

The order of a transfer:

1. Conflicts are found before anything is written: without ``merge`` a
   destination project, board slug or set of the same name is 409
   ``transfer_conflict`` naming them; under ``merge`` two ``next`` releases
   (a milestone keyed ``next`` on both sides) are 409 as well.
2. The copy runs in one destination transaction, table by table, in batches
   of ``BATCH`` rows read from the source and inserted with fresh ids.
   ``transfer_map`` remembers each source row's destination, so a re-run
   skips what it copied and writes it nowhere twice; rows the source gained
   since are copied then. A dry run does the same work and rolls it back:
   its report is exactly what the real run would do.
3. Only after that transaction committed, ``archiveSource`` archives the
   source boards (their meta names where they went), trashes the live tasks
   (each with a deleted ledger row, recoverable) and marks the project row
   moved.

Blobs are stored by the hash of their bytes in one store per deployment, so a
blob the destination reaches under a key is the very blob the source named:
nothing is rewritten, and the report counts the referenced blobs and their bytes.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import attrs

from layoutkit.errors import ServiceError
from layoutkit.principal import Principal
from layoutkit.service.road.registry import REGISTRY
from layoutkit.service.road.workspace import Call, Workspace
from layoutkit.service.shared.common import ID, SLUG_PATTERN
from layoutkit.service.shared.webhook_events import owe
from layoutkit.service.tasks.model import task_view
from layoutkit.storage import ConflictError, ProjectRecord, Tx, WorkspaceRecord
from layoutkit.storage._sql.transfer import BATCH

#: Tables a transfer copies, and why each belongs to the project.
COPIED: dict[str, str] = {
    "projects": "the registry row of the project itself",
    "boards": "boards of the project: sets, sessions, reports and reviews are boards",
    "board_tags": "tags of the copied boards",
    "cards": "cards of the copied boards (sets are doc cards)",
    "card_versions": "what each copied card looked like at each version",
    "card_faces": "drawn faces of cards whose board keeps its slug (live page state)",
    "edges": "wires between copied cards",
    "questions": "questions staged on copied boards",
    "annotations": "findings filed on copied cards, and comment threads",
    "review_rules": "the project's own layer of review rules",
    "project_memories": "the project's durable notes for agents, every version",
    "tasks": "the task engine: the project's tasks",
    "task_vocab": "states, labels, fields, sprints, milestones (releases), views and rules",
    "task_refs": "refs of the copied tasks",
    "task_events": "events of the copied tasks",
}
#: Tables a transfer leaves where they are, and why.
SKIPPED: dict[str, str] = {
    "workspaces": "workspace rows and settings stay with their workspace",
    "memberships": "memberships are per workspace",
    "api_tokens": "credentials are per deployment, granted per workspace",
    "invitations": "invitations to join the source workspace are its own",
    "share_links": "a link is a credential for the source board",
    "server_keys": "deployment secrets",
    "request_keys": "replay receipts of the source's callers",
    "audit_events": "the source workspace's history, undo included",
    "review_runs": "judging state of runs over the source's cards",
    "work_claims": "leases of work delivered to agents",
    "work_asks": "requests to the AI answerer (AI usage)",
    "work_signals": "the workspace's wake-up counter",
    "board_presence": "who is looking at a source board now: seconds-long, never history",
    "blobs": "one content-addressed store for the deployment: referenced, never copied",
    "transfer_map": "the transfer's own bookkeeping",
    "task_trash": "the deleted ledger of the source workspace",
    "search_docs": "derived: the copied rows are indexed by the destination's write",
    "search_words": "derived: the vocabulary follows the destination's search documents",
    "task_embeddings": "derived: meaning vectors are made again for the destination's tasks",
    "webhooks": "a workspace's integrations and their secrets, registered by its admins",
    "webhook_deliveries": "events owed to the source workspace's webhooks",
    "components": "reusable groups of cards are the workspace's templates, which stay",
}
#: A milestone with this key is a project's next release.
NEXT_RELEASE = "next"
_BLOB_KEY = re.compile(r"^sha256:[0-9a-f]{64}$")
#: ``<rows>:<file>``: after writing that many rows, touch the file and wait (to be
#: killed). Only the fault tests set it; a transfer never reads it otherwise.
PAUSE_ENV = "LAYOUTKIT_TRANSFER_PAUSE"
#: Runs of the copy transaction when another one committed the same rows first.
COPY_ATTEMPTS = 3

Progress = Callable[[str, int], None]


@attrs.define
class _Tally:
    copied: int = 0
    skipped: int = 0
    merged: int = 0

    def view(self) -> dict[str, int]:
        return {"copied": self.copied, "skipped": self.skipped, "merged": self.merged}


def _blob_keys(value: Any, into: set[str]) -> None:
    if isinstance(value, str):
        if _BLOB_KEY.match(value):
            into.add(value)
    elif isinstance(value, dict):
        for item in value.values():
            _blob_keys(item, into)
    elif isinstance(value, list):
        for item in value:
            _blob_keys(item, into)


def _pause_hook() -> tuple[int, Path] | None:
    raw = os.environ.get(PAUSE_ENV)
    if not raw:
        return None
    rows, _, path = raw.partition(":")
    return int(rows), Path(path)


class _Copy:
    """One transfer of one project inside one destination transaction."""

    def __init__(
        self,
        tx: Tx,
        source: WorkspaceRecord,
        dest: WorkspaceRecord,
        project: ProjectRecord,
        *,
        merge: bool,
        progress: Progress | None,
    ) -> None:
        self.tx, self.source, self.dest, self.project = tx, source, dest, project
        self.merge = merge
        self.progress = progress
        self.tallies: dict[str, _Tally] = {name: _Tally() for name in COPIED}
        #: source id → destination id of the tables others point at (ids only).
        self.ids: dict[str, dict[int, int]] = {
            t: {} for t in ("projects", "boards", "cards", "tasks", "task_vocab")
        }
        self.renamed: list[dict[str, str]] = []
        self.boards: list[dict[str, Any]] = []
        self.sets: list[dict[str, Any]] = []
        self.blobs: set[str] = set()
        #: Source boards whose slug changed: their live page state stays behind.
        self.renamed_boards: set[int] = set()
        #: Source cards of renamed boards: their drawn faces are not carried.
        self.faceless: set[int] = set()
        #: Source ids an earlier run copied, per table (what their children skip by).
        self.skipped_ids: dict[str, list[int]] = {}
        self.slugs: dict[str, str] = {}
        self.written = 0
        self.pause = _pause_hook()

    # ------------------------------------------------------------ plumbing

    def _mapped(self, table: str, ids: list[int]) -> dict[int, int]:
        found = self.tx.transfer_map(self.source.id, self.dest.id, table, ids)
        return {s: d for s, (d, _) in found.items()}

    def _remember(self, table: str, pairs: list[tuple[int, int, bool]]) -> None:
        self.tx.add_transfer_map(self.source.id, self.dest.id, table, pairs)
        if table in self.ids:
            self.ids[table].update((s, d) for s, d, _ in pairs)

    def _wrote(self, table: str, n: int, read: int | None = None) -> None:
        """Count ``n`` rows written of ``read`` rows read (the progress is told of
        rows read, so a re-run that skips everything moves the bar too)."""
        self.written += n
        seen = n if read is None else read
        if self.progress is not None and seen:
            self.progress(table, seen)
        if self.pause is not None and self.written >= self.pause[0]:
            # Written aside and renamed into place: a watcher that sees the marker
            # must never read it half-written.
            marker = self.pause[1]
            aside = marker.with_name(marker.name + ".part")
            aside.write_text(str(self.written))
            aside.replace(marker)
            time.sleep(3600)

    def _batches(self, table: str, column: str, values: list[int]) -> Iterator[list[dict]]:
        yield from self.tx.stream_rows(table, column, values, batch=BATCH)

    def _copy_rows(
        self,
        table: str,
        column: str,
        parents: list[int],
        shape: Callable[[dict[str, Any]], dict[str, Any] | None],
    ) -> list[int]:
        """Copy the rows of ``table`` under ``parents`` that no earlier run copied:
        ``shape`` turns a source row into its destination row (None leaves it out).
        Returns the source ids copied now."""
        tally, fresh = self.tallies[table], []
        for rows in self._batches(table, column, parents):
            for row in rows:
                self._scan(table, row)
            known = self._mapped(table, [r["id"] for r in rows])
            if table in self.ids:
                self.ids[table].update(known)
            tally.skipped += len(known)
            self.skipped_ids.setdefault(table, []).extend(int(i) for i in known)
            todo = [(r, shape(r)) for r in rows if r["id"] not in known]
            todo = [(r, new) for r, new in todo if new is not None]
            made = self.tx.insert_rows(table, [new for _, new in todo])
            self._remember(
                table, [(r["id"], d, False) for (r, _), d in zip(todo, made, strict=True)]
            )
            tally.copied += len(made)
            fresh += [r["id"] for r, _ in todo]
            self._wrote(table, len(made), len(rows))
        return fresh

    def _scan(self, table: str, row: dict[str, Any]) -> None:
        """Note the blobs a row references (copied now or before: the report counts both)."""
        if table == "cards":
            _blob_keys(row["payload"], self.blobs)
        elif table == "annotations":
            _blob_keys(row["deck"], self.blobs)
        elif table == "task_refs" and row["blob"]:
            self.blobs.add(row["blob"])

    # ------------------------------------------------------------ conflicts

    def check(self) -> None:
        """Refuse what cannot go without ``merge`` (and two next releases with it)."""
        tx = self.tx
        there = tx.project_by_slug(self.dest.id, self.project.slug)
        mapped = self._mapped("projects", [self.project.id])
        board_ids = tx.column_values("boards", "id", {"project_id": self.project.id})
        board_map = self._mapped("boards", board_ids)
        clashes: list[str] = []
        for rows in self._batches("boards", "id", board_ids):
            for row in rows:
                if row["id"] not in board_map and tx.board_by_slug(self.dest.id, row["slug"]):
                    clashes.append(row["slug"])
        if self.merge:
            if there is not None and not mapped:
                ours = tx.column_values(
                    "task_vocab",
                    "id",
                    {"project_id": self.project.id, "kind": "milestone", "key": NEXT_RELEASE},
                )
                theirs = tx.column_values(
                    "task_vocab",
                    "id",
                    {"project_id": there.id, "kind": "milestone", "key": NEXT_RELEASE},
                )
                if ours and theirs and not self._mapped("task_vocab", ours):
                    raise ServiceError(
                        409,
                        "transfer_conflict",
                        f"both workspaces have a next release of project "
                        f"{self.project.slug!r}; finish or rename one first",
                        releases=[NEXT_RELEASE],
                    )
            return
        project_clash = there is not None and not mapped
        if not clashes and not project_clash:
            return
        sets = self._sets_on([b for b in board_ids if b not in board_map], clashes)
        names = ([f"project {self.project.slug!r}"] if project_clash else []) + [
            f"board {slug!r}" for slug in clashes
        ]
        raise ServiceError(
            409,
            "transfer_conflict",
            f"workspace {self.dest.name!r} already has {', '.join(names)}; "
            "send merge true to append to it",
            project=self.project.slug if project_clash else None,
            boards=clashes,
            sets=sets,
        )

    def _sets_on(self, board_ids: list[int], slugs: list[str]) -> list[str]:
        """Keys ``<board>/<branch>@<version>`` of the sets on the named boards."""
        wanted = set(slugs)
        slug_of = {
            r["id"]: r["slug"]
            for rows in self._batches("boards", "id", board_ids)
            for r in rows
            if r["slug"] in wanted
        }
        keys: list[str] = []
        for rows in self._batches("cards", "board_id", list(slug_of)):
            for card in rows:
                pushed = card["payload"].get("set") if isinstance(card["payload"], dict) else None
                if isinstance(pushed, dict):
                    keys.append(
                        f"{slug_of[card['board_id']]}/{pushed.get('branch')}@{pushed.get('version')}"
                    )
        return keys

    # ------------------------------------------------------------ the copy

    def run(self) -> None:
        self.check()
        self._project()
        self._vocabulary()
        self._review_rules()
        self._project_memories()
        board_ids = self._boards()
        self._cards(board_ids)
        for table in ("edges", "questions", "annotations"):
            self._board_content(table, board_ids)
        task_ids = self._tasks()
        self._task_content(task_ids)
        self._blobs()

    def _project(self) -> None:
        tally = self.tallies["projects"]
        known = self._mapped("projects", [self.project.id])
        if known:
            self.ids["projects"].update(known)
            tally.skipped += 1
            return
        there = self.tx.project_by_slug(self.dest.id, self.project.slug)
        if there is not None:  # merge (check() refused it otherwise)
            self._remember("projects", [(self.project.id, there.id, True)])
            tally.merged += 1
            return
        made = self.tx.create_project(
            self.dest.id, self.project.slug, name=self.project.name, meta=self.project.meta
        )
        self._remember("projects", [(self.project.id, made.id, False)])
        tally.copied += 1
        self._wrote("projects", 1)

    @property
    def dest_project(self) -> int:
        return self.ids["projects"][self.project.id]

    def _vocabulary(self) -> None:
        tally = self.tallies["task_vocab"]
        dest_project = self.dest_project
        for rows in self._batches("task_vocab", "project_id", [self.project.id]):
            known = self._mapped("task_vocab", [r["id"] for r in rows])
            self.ids["task_vocab"].update(known)
            tally.skipped += len(known)
            fresh, merged = [], []
            for row in rows:
                if row["id"] in known:
                    continue
                same = self.tx.column_values(
                    "task_vocab",
                    "id",
                    {"project_id": dest_project, "kind": row["kind"], "key": row["key"]},
                )
                if same:
                    merged.append((row["id"], same[0], True))
                else:
                    fresh.append(row)
            made = self.tx.insert_rows(
                "task_vocab",
                [
                    {
                        **{k: v for k, v in r.items() if k != "id"},
                        "workspace_id": self.dest.id,
                        "project_id": dest_project,
                        "scope": f"project:{dest_project}",
                    }
                    for r in fresh
                ],
            )
            self._remember(
                "task_vocab",
                merged + [(r["id"], d, False) for r, d in zip(fresh, made, strict=True)],
            )
            tally.merged += len(merged)
            tally.copied += len(made)
            self._wrote("task_vocab", len(made), len(rows))

    def _review_rules(self) -> None:
        """The project's rule layer; under merge a rule id the destination project
        already has keeps the destination's versions (the source's count as merged)."""
        self._keyed_versions("review_rules", "rule_id", {"scope": f"project:{self.dest_project}"})

    def _project_memories(self) -> None:
        """The project's notes with every version, kept by key as a rule id is."""
        self._keyed_versions("project_memories", "key", {})

    def _keyed_versions(self, table: str, key: str, extra: dict[str, Any]) -> None:
        """Copy a project's versioned rows of ``table`` (every version of each ``key``);
        under merge a key the destination project already has keeps the destination's
        versions, and the source's count as merged."""
        tx, tally = self.tx, self.tallies[table]
        dest_project = self.dest_project
        src_ids = tx.column_values(table, "id", {"project_id": self.project.id})
        found = tx.transfer_map(self.source.id, self.dest.id, table, src_ids)
        # Keys an earlier run copied are ours; those it merged stay the destination's.
        copied = [src for src, (_, merged) in found.items() if not merged]
        ours = {r[key] for rows in self._batches(table, "id", copied) for r in rows}
        theirs = set(tx.column_values(table, key, {"project_id": dest_project})) - ours
        merged: list[tuple[int, int, bool]] = []

        def shape(row: dict[str, Any]) -> dict[str, Any] | None:
            if row[key] in theirs:
                newest = tx.column_values(table, "id", {"project_id": dest_project, key: row[key]})[
                    -1
                ]
                merged.append((row["id"], newest, True))
                return None
            return {
                **{k: v for k, v in row.items() if k != "id"},
                "workspace_id": self.dest.id,
                "project_id": dest_project,
                **extra,
            }

        self._copy_rows(table, "project_id", [self.project.id], shape)
        self.tx.add_transfer_map(self.source.id, self.dest.id, table, merged)
        tally.merged += len(merged)

    def _boards(self) -> list[int]:
        board_ids = self.tx.column_values("boards", "id", {"project_id": self.project.id})
        src_name = self.source.name
        parents: list[tuple[int, int]] = []

        def shape(row: dict[str, Any]) -> dict[str, Any]:
            slug = row["slug"]
            new = {k: v for k, v in row.items() if k != "id"}
            if self.tx.board_by_slug(self.dest.id, slug) is not None:
                base = f"{slug}-from-{src_name}"
                candidate, n = base, 2
                while self.tx.board_by_slug(self.dest.id, candidate) is not None:
                    candidate, n = f"{base}-{n}", n + 1
                self.renamed.append({"table": "boards", "from": slug, "to": candidate})
                self.renamed_boards.add(row["id"])
                new.update(slug=candidate, rev=0, edges_rev=0, purged_rev=0)
            self.slugs[slug] = new["slug"]
            self.boards.append({"from": slug, "to": new["slug"], "status": "copied"})
            if row["parent_board_id"] is not None:
                parents.append((row["id"], row["parent_board_id"]))
            new.update(
                workspace_id=self.dest.id, project_id=self.dest_project, parent_board_id=None
            )
            return new

        fresh = set(self._copy_rows("boards", "id", board_ids, shape))
        for rows in self._batches("boards", "id", board_ids):
            for row in rows:
                if row["id"] not in fresh:
                    dest = self.tx.board(self.ids["boards"][row["id"]])
                    to = dest.slug if dest is not None else row["slug"]
                    self.slugs[row["slug"]] = to
                    self.boards.append({"from": row["slug"], "to": to, "status": "skipped"})
        boards = self.ids["boards"]
        self.tx.update_rows(
            "boards",
            [{"id": boards[b], "parent_board_id": boards[p]} for b, p in parents if p in boards],
        )
        fresh_ids = sorted(fresh)
        tags = self.tallies["board_tags"]
        tags.skipped = self.tx.count_rows(
            "board_tags", "board_id", self.skipped_ids.get("boards", [])
        )
        for rows in self._batches("board_tags", "board_id", fresh_ids):
            self.tx.insert_rows(
                "board_tags", [{**r, "board_id": boards[r["board_id"]]} for r in rows]
            )
            tags.copied += len(rows)
            self._wrote("board_tags", len(rows))
        return board_ids

    def _cards(self, board_ids: list[int]) -> None:
        boards, cards = self.ids["boards"], self.ids["cards"]
        slug_of: dict[int, str] = {}
        for rows in self._batches("boards", "id", board_ids):
            slug_of.update({r["id"]: r["slug"] for r in rows})
        links: list[tuple[int, int | None, Any]] = []

        def shape(row: dict[str, Any]) -> dict[str, Any]:
            new = {k: v for k, v in row.items() if k != "id"}
            new["board_id"] = boards[row["board_id"]]
            new["payload"] = self._portal(row["kind"], row["payload"])
            if row["board_id"] in self.renamed_boards:
                new["rev"] = 0
                self.faceless.add(row["id"])
            if row["parent_id"] is not None or row["children"]:
                links.append((row["id"], row["parent_id"], row["children"]))
            new.update(parent_id=None, children=None if row["children"] is None else [])
            pushed = row["payload"].get("set") if isinstance(row["payload"], dict) else None
            if isinstance(pushed, dict):
                self.sets.append(
                    {
                        "board": self.slugs.get(slug_of[row["board_id"]], slug_of[row["board_id"]]),
                        "branch": pushed.get("branch"),
                        "version": pushed.get("version"),
                    }
                )
            return new

        fresh = self._copy_rows("cards", "board_id", board_ids, shape)
        fixes = []
        for card, parent, children in links:
            fix: dict[str, Any] = {"id": cards[card], "parent_id": cards.get(parent or -1)}
            fix["children"] = (
                [cards.get(c, c) for c in children] if isinstance(children, list) else children
            )
            fixes.append(fix)
        for start in range(0, len(fixes), BATCH):
            self.tx.update_rows("cards", fixes[start : start + BATCH])
        versions = self.tallies["card_versions"]
        for rows in self._batches("card_versions", "card_id", fresh):
            for r in rows:
                _blob_keys(r["payload"], self.blobs)
            self.tx.insert_rows(
                "card_versions",
                [
                    {
                        **r,
                        "card_id": cards[r["card_id"]],
                        "payload": self._portal(r["kind"], r["payload"]),
                    }
                    for r in rows
                ],
            )
            versions.copied += len(rows)
            self._wrote("card_versions", len(rows))
        old = self.skipped_ids.get("cards", [])
        versions.skipped = self.tx.count_rows("card_versions", "card_id", old)
        faces = self.tallies["card_faces"]
        faces.skipped = self.tx.count_rows("card_faces", "card_id", old)
        keep_faces = [c for c in fresh if c not in self.faceless]
        for rows in self._batches("card_faces", "card_id", keep_faces):
            self.tx.insert_rows("card_faces", [{**r, "card_id": cards[r["card_id"]]} for r in rows])
            faces.copied += len(rows)
            self._wrote("card_faces", len(rows))

    def _portal(self, kind: str, payload: Any) -> Any:
        """A portal card (kind board) shows its board under the board's new slug."""
        if kind != "board" or not isinstance(payload, dict):
            return payload
        target = payload.get("board")
        if isinstance(target, str) and self.slugs.get(target, target) != target:
            return {**payload, "board": self.slugs[target]}
        return payload

    def _board_content(self, table: str, board_ids: list[int]) -> None:
        boards, cards = self.ids["boards"], self.ids["cards"]

        def shape(row: dict[str, Any]) -> dict[str, Any] | None:
            new = {k: v for k, v in row.items() if k != "id"}
            new["board_id"] = boards[row["board_id"]]
            if table == "edges":
                if row["from_card"] not in cards or row["to_card"] not in cards:
                    return None
                new.update(from_card=cards[row["from_card"]], to_card=cards[row["to_card"]])
            elif table == "questions":
                new["card_id"] = cards.get(row["card_id"]) if row["card_id"] else None
            else:  # annotations: the run stays behind with the source's judging state
                if row["card_id"] is None:
                    # A comment pinned to a point of the board: it goes with the board.
                    new.update(run_id=None)
                elif row["card_id"] not in cards:
                    return None
                else:
                    new.update(card_id=cards[row["card_id"]], run_id=None)
            return new

        self._copy_rows(table, "board_id", board_ids, shape)

    def _vocab_id(self, item: int | None) -> int | None:
        """The destination's sprint or milestone for a source one: the project's own
        copy, or for a workspace-wide word the destination's word of the same key
        (made in the destination project when it has none)."""
        if item is None:
            return None
        vocab = self.ids["task_vocab"]
        if item in vocab:
            return vocab[item]
        known = self._mapped("task_vocab", [item])
        if known:
            vocab.update(known)
            return vocab[item]
        rows = next(self._batches("task_vocab", "id", [item]), [])
        if not rows:
            return None
        row = rows[0]
        same = self.tx.column_values(
            "task_vocab",
            "id",
            {
                "workspace_id": self.dest.id,
                "scope": "workspace",
                "key": row["key"],
                "kind": row["kind"],
            },
        )
        if same:
            self._remember("task_vocab", [(item, same[0], True)])
            self.tallies["task_vocab"].merged += 1
        else:
            target, _ = self.tx.ensure_task_vocab(
                self.dest.id,
                row["kind"],
                row["key"],
                project_id=self.dest_project,
                name=row["name"],
            )
            self._remember("task_vocab", [(item, target.id, False)])
            self.tallies["task_vocab"].copied += 1
        return vocab[item]

    def _tasks(self) -> list[int]:
        task_ids = self.tx.column_values("tasks", "id", {"project_id": self.project.id})
        parents: list[tuple[int, int]] = []
        src_name = self.source.name

        def shape(row: dict[str, Any]) -> dict[str, Any]:
            new = {k: v for k, v in row.items() if k != "id"}
            key = row["key"]
            if key is not None and self.tx.task_by_key(self.dest.id, key) is not None:
                renamed = f"{key}-from-{src_name}"[:80]
                self.renamed.append({"table": "tasks", "from": key, "to": renamed})
                new["key"] = renamed
            if row["parent_id"] is not None:
                parents.append((row["id"], row["parent_id"]))
            new.update(
                workspace_id=self.dest.id,
                project_id=self.dest_project,
                parent_id=None,
                sprint_id=self._vocab_id(row["sprint_id"]),
                milestone_id=self._vocab_id(row["milestone_id"]),
            )
            return new

        self._copy_rows("tasks", "id", task_ids, shape)
        tasks = self.ids["tasks"]
        fixes = [{"id": tasks[t], "parent_id": tasks[p]} for t, p in parents if p in tasks]
        for start in range(0, len(fixes), BATCH):
            self.tx.update_rows("tasks", fixes[start : start + BATCH])
        return task_ids

    def _task_content(self, task_ids: list[int]) -> None:
        tasks = self.ids["tasks"]

        def ref(row: dict[str, Any]) -> dict[str, Any]:
            new = {k: v for k, v in row.items() if k != "id"}
            new["task_id"] = tasks[row["task_id"]]
            if row["kind"] == "board" and row["ref"] in self.slugs:
                new["ref"] = self.slugs[row["ref"]]
            return new

        def event(row: dict[str, Any]) -> dict[str, Any]:
            return {**{k: v for k, v in row.items() if k != "id"}, "task_id": tasks[row["task_id"]]}

        self._copy_rows("task_refs", "task_id", task_ids, ref)
        self._copy_rows("task_events", "task_id", task_ids, event)

    def _blobs(self) -> None:
        self.blob_bytes = 0
        self.missing = 0
        for key in sorted(self.blobs):
            size = self.tx.blob_size(key)
            if size is None:
                self.missing += 1
            else:
                self.blob_bytes += size

    def report(self) -> dict[str, Any]:
        return {
            "project": self.project.slug,
            "from": self.source.name,
            "to": self.dest.name,
            "boardsMoved": sum(1 for b in self.boards if b["status"] == "copied"),
            "boards": self.boards,
            "sets": self.sets,
            "tables": {name: t.view() for name, t in self.tallies.items()},
            "renamed": self.renamed,
            "blobs": {"count": len(self.blobs), "bytes": self.blob_bytes, "missing": self.missing},
        }


def _archive(tx: Tx, copy: _Copy, project: ProjectRecord, who: Principal) -> tuple[int, int]:
    """Archive the source side of a moved project: ``(boards archived, tasks trashed)``."""
    dest = copy.dest.name
    archived = 0
    board_ids = tx.column_values("boards", "id", {"project_id": project.id, "archived": False})
    for board_id in board_ids:
        board = tx.board(board_id)
        if board is None:
            continue
        moved = {"workspace": dest, "board": copy.slugs.get(board.slug, board.slug)}
        tx.update_board(board_id, archived=True, meta={**board.meta, "movedTo": moved})
        archived += 1
    trashed = 0
    tasks = copy.ids["tasks"]
    for task_id in tx.column_values("tasks", "id", {"project_id": project.id, "deleted_at": None}):
        detail = {"movedTo": {"workspace": dest, "task": tasks.get(task_id)}}
        trashed += tx.trash_task(task_id, reason="transferred", detail=detail, by=who.label)
    tx.update_project(
        project.id,
        archived=True,
        meta={**project.meta, "movedTo": {"workspace": dest, "project": project.slug}},
    )
    tx.record_event(
        "project.moved",
        who.label,
        detail={"project": project.slug, "to": dest, "boards": archived, "tasks": trashed},
    )
    return archived, trashed


def _check_owner(
    tx: Tx, who: Principal, dest: WorkspaceRecord | None, name: str
) -> WorkspaceRecord:
    if who.token is not None:
        role = None if dest is None else tx.membership(dest.id, who.token)
        if role is None:
            # A principal sees only the workspaces it belongs to.
            dest = None
        elif role != "owner":
            raise ServiceError(
                403,
                "forbidden",
                f"transferring a project needs the owner role in {name!r} too; yours is {role}",
                required="owner",
            )
    if dest is None:
        raise ServiceError(404, "unknown_workspace", f"no workspace {name!r}", field="to")
    return dest


def transfer_project(
    workspace: Workspace,
    principal: Principal,
    params: dict[str, Any],
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Run a transfer (see the module's docstring); ``progress(table, rows)`` is told of
    every batch written. The params are the operation's, already checked."""
    if not workspace.multi_workspace:
        raise ServiceError(
            501,
            "single_tenant",
            "this deployment keeps one workspace; project transfer needs a multi-workspace "
            "deployment (LAYOUTKIT_MULTI_WORKSPACE=1)",
        )
    if not principal.at_least("owner"):
        raise ServiceError(
            403,
            "forbidden",
            "transferring a project needs the owner role in both workspaces",
            required="owner",
        )
    dry = bool(params.get("dryRun", False))
    merge = bool(params.get("merge", False))
    archive = bool(params.get("archiveSource", False))

    def copy_project(tx: Tx) -> tuple[_Copy, ProjectRecord]:
        source = tx.workspace(workspace.workspace_id)
        assert source is not None
        dest = _check_owner(tx, principal, tx.workspace_by_name(params["to"]), params["to"])
        if dest.id == source.id:
            raise ServiceError(
                400, "same_workspace", "the project is in that workspace already", field="to"
            )
        project = tx.project_by_slug(source.id, params["project"])
        if project is None:
            raise ServiceError(
                404,
                "unknown_project",
                f"workspace {source.name!r} has no project {params['project']!r}",
                field="project",
            )
        copy = _Copy(tx, source, dest, project, merge=merge, progress=progress)
        copy.run()
        if not dry:
            tx.record_event(
                "project.transfer",
                principal.label,
                detail={"project": project.slug, "to": dest.name, "merge": merge},
            )
            told = {"project": project.slug, "from": source.name, "to": dest.name, "merge": merge}
            # Both ends hear it, each told which way the project went.
            owe(workspace, tx, source.id, "transfer.finished", {**told, "direction": "out"})
            owe(workspace, tx, dest.id, "transfer.finished", {**told, "direction": "in"})
        return copy, project

    # One destination transaction for the whole copy; a dry run rolls it back.
    copy, project = _write_copy(workspace, copy_project, dry)
    archived = trashed = 0
    if archive and not dry:
        # Only now: the destination has committed, so the source is never archived
        # for a copy that did not land.
        archived, trashed = workspace.write(lambda tx: _archive(tx, copy, project, principal))
    return {
        **copy.report(),
        "dryRun": dry,
        "merge": merge,
        "archived": archived,
        "trashed": trashed,
    }


def _write_copy(
    workspace: Workspace, copy_project: Callable[[Tx], tuple[_Copy, ProjectRecord]], dry: bool
) -> tuple[_Copy, ProjectRecord]:
    """The copy's one transaction, run again when a row it makes was committed by
    another transaction after this one read the transfer map.

    That other transaction is the same copy: a caller killed while its commit was
    still in flight (PostgreSQL finishes a commit it has received), retried at once.
    The run that follows reads the map that commit left and skips what landed, so
    the retry completes exactly once instead of failing on the duplicate.
    """
    attempts = 1
    while True:
        try:
            return workspace.write(copy_project, rollback=dry)
        except ConflictError:
            if attempts >= COPY_ATTEMPTS:
                raise
            attempts += 1


def source_rows(workspace: Workspace, project: str) -> int:
    """About how many rows a transfer of ``project`` reads (for a progress bar); 0 for
    an unknown project."""

    def count(tx: Tx) -> int:
        found = tx.project_by_slug(workspace.workspace_id, project)
        if found is None:
            return 0
        boards = tx.column_values("boards", "id", {"project_id": found.id})
        tasks = tx.column_values("tasks", "id", {"project_id": found.id})
        total = 1 + len(boards) + len(tasks)
        for table in ("board_tags", "cards", "edges", "questions", "annotations"):
            total += tx.count_rows(table, "board_id", boards)
        for table in ("task_refs", "task_events"):
            total += tx.count_rows(table, "task_id", tasks)
        total += tx.count_rows("task_vocab", "project_id", [found.id])
        return total

    return workspace.cache_read(count)


@REGISTRY.operation(
    "transfer_project",
    "Copy a project into another workspace of this deployment: its boards (sets, sessions, "
    "reports) with cards, card versions, wires, annotations, questions and tags, the "
    "project's review rules, and the task engine (tasks, refs, events and the vocabulary: "
    "states, labels, fields, sprints, milestones, views, rules); blobs are referenced. "
    "Never workspace settings, templates, connectors, listeners, undo history, AI usage or "
    "memberships. dryRun reports without writing; a re-run skips what was copied. merge "
    "appends to a destination project of the same slug (a clashing board becomes "
    "<slug>-from-<workspace>, listed under renamed); without it a clash is 409 "
    "transfer_conflict. archiveSource then archives the source boards, trashes its live "
    "tasks and marks the project moved. Needs an owner of both workspaces; 501 "
    "single_tenant on a single-workspace deployment.",
    {
        "required": ["project", "to"],
        "properties": {
            "project": {"type": "string", "pattern": SLUG_PATTERN, "description": "project slug"},
            "to": {
                "type": "string",
                "minLength": 1,
                "maxLength": 200,
                "description": "destination workspace name",
            },
            "dryRun": {"type": "boolean"},
            "archiveSource": {"type": "boolean"},
            "merge": {"type": "boolean"},
        },
        "additionalProperties": False,
    },
    pure=True,
    principals=("owner", "user"),
    role="owner",
    changes=True,
    destroys=True,
)
def transfer_project_op(call: Call) -> dict[str, Any]:
    return transfer_project(call.workspace, call.principal, call.params)


@REGISTRY.operation(
    "restore_task",
    "Bring back a task a project transfer trashed (archiveSource): it shows in task lists "
    "again and its deleted ledger row is closed. 404 unknown_task for no task of this "
    "workspace, 409 not_trashed for a live one.",
    {"required": ["id"], "properties": {"id": ID}, "additionalProperties": False},
    writes=True,
    principals=("owner", "user"),
)
def restore_task(call: Call) -> dict[str, Any]:
    tx, task_id = call.tx, call.params["id"]
    task = tx.task(task_id, lock=True)
    if task is None or task.workspace_id != call.workspace_id:
        raise ServiceError(404, "unknown_task", f"no task {task_id}", field="id", id=task_id)
    if not tx.restore_task(task_id):
        raise ServiceError(409, "not_trashed", f"task {task_id} is not in the trash", id=task_id)
    tx.record_task_event(task_id, "task.restore", call.principal.label, {})
    restored = tx.task(task_id)
    assert restored is not None
    return {"task": task_view(tx, restored)}
