"""Resolve bench: search ``mode: resolve`` on a generated workspace of tasks.

Run: ``python benches/resolve_bench.py [--tasks N] [--queries N] [--pg URL]``.
SQLite always runs (a file in a temporary directory); PostgreSQL runs with
``--pg`` or LAYOUTKIT_TEST_POSTGRES_URL (a workspace of its own per run).

The workspace holds ``--tasks`` tasks (100,000 by default) with realistic
titles and bodies: a verb, an object and a component name made of syllables
(``Fix checkout totals in Korvali``), a fifth of them in Czech; one task in
fifty is an epic the others sit under; types, statuses, assignees and
authors vary. They are inserted straight into the tasks table in batches, as
a workspace grown over time, and the search index is then built from them.
``benches/search_bench.py`` adds these tasks to its own generated workspace and
prints the resolve rows beside its search rows.

The labelled set is written from the generated data (at least 100 queries):
pins (``#n``, ``tk-n``, a branch name), exact titles, titles with a typo in
one word, distinctive title words with English or Czech type and state
words, ``pod``/``under`` an epic, ``mine``/``moje``. Each query's expected
first candidate is the task it was written from, and the words are chosen so
that no other task in the facets holds them all. The figures: the share
whose expected task ranks first, the verdicts, and p50/p95 of the wall time a
caller waits (``Workspace.call``), the slowest, with this process's CPU beside
it (a PostgreSQL server's work shows in wall time only), per kind of query and
overall, and the machine's load. ``--slow MS`` lists every query whose wall
time passed MS milliseconds, with its kind and text, to look into an outlier.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import tempfile
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from _timing import CALLER, machine_load, percentile, table
from sqlalchemy import insert, select

from layoutkit import Workspace
from layoutkit.folding import fold
from layoutkit.principal import Principal
from layoutkit.storage import _schema as s

VERBS = ["Fix", "Add", "Refactor", "Investigate", "Update", "Remove", "Improve", "Document"]
OBJECTS = [
    "checkout totals",
    "login page",
    "password reset",
    "export report",
    "search results",
    "billing history",
    "invoice numbers",
    "session timeout",
    "upload progress",
    "dark mode",
    "notification settings",
    "payment retries",
    "onboarding checklist",
    "profile avatar",
    "audit trail",
    "rate limiter",
    "cache warmup",
    "release notes",
    "keyboard shortcuts",
    "webhook delivery",
]
CZECH_VERBS = ["Opravit", "Přidat", "Prověřit", "Upravit", "Odstranit", "Zlepšit"]
CZECH_OBJECTS = [
    "přihlášení uživatele",
    "souhrn objednávky",
    "export faktur",
    "nastavení oznámení",
    "obnovení hesla",
    "historii plateb",
    "nahrávání souborů",
    "vyhledávání zákazníků",
]
QUALIFIERS = ["on mobile", "for admins", "in Safari", "after upgrade", "", "", ""]
TYPES = ["task"] * 5 + ["bug"] * 3 + ["story"] * 2 + ["qa", "meeting", "journey"]
STATUSES = ["backlog", "todo", "in_progress", "in_review", "done", "cancelled"]
PEOPLE = ["alice", "bob", "claude", "dana", "eve"]
SYLLABLES = ["kor", "val", "tam", "ura", "bex", "lin", "dor", "mis", "pel", "zan", "rio", "tek"]
#: Palette words written into the labelled queries, English and Czech.
TYPE_EDGE = {"bug": ["bug", "chyba"], "story": ["story", "příběh"], "task": ["task", "úkol"]}
STATUS_EDGE = {
    "done": ["done", "hotovo"],
    "in_progress": ["in progress", "rozpracované"],
    "in_review": ["in review", "v revizi"],
    "cancelled": ["cancelled", "zrušené"],
}
WORD = re.compile(r"\w+")


def _component(rng: random.Random) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(3)).capitalize()


def _title(rng: random.Random, component: str) -> str:
    if rng.random() < 0.2:
        return f"{rng.choice(CZECH_VERBS)} {rng.choice(CZECH_OBJECTS)} v {component}"
    qualifier = rng.choice(QUALIFIERS)
    title = f"{rng.choice(VERBS)} {rng.choice(OBJECTS)} in {component}"
    return f"{title} {qualifier}".strip()


def _body(rng: random.Random) -> str:
    return " ".join(
        f"{rng.choice(VERBS)} the {rng.choice(OBJECTS)} {rng.choice(QUALIFIERS)}." for _ in range(6)
    )


def generate(
    ws: Workspace, count: int, seed: int = 7, *, index: bool = True
) -> list[dict[str, Any]]:
    """Insert ``count`` tasks into a workspace holding none yet, then build the search
    index the resolver reads (unless ``index`` is False: the caller builds it once
    after adding rows of its own); returns what the labelled set is written from."""
    rng = random.Random(seed)
    components = sorted({_component(rng) for _ in range(6000)})
    epics = max(1, count // 50)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    made: list[dict[str, Any]] = []
    with ws.store.transaction() as tx:
        project_id = tx.create_project(ws.workspace_id, "web").id
        epic_ids = []
        for _ in range(epics):
            title = f"{rng.choice(OBJECTS).capitalize()} epic {_component(rng)}"
            task = tx.insert_task(
                ws.workspace_id,
                title=title,
                created_by="user:alice",
                asked_by="user",
                type="epic",
                project_id=project_id,
            )
            epic_ids.append(task.id)
            made.append(_row(task.id, title, "epic", "backlog", None, None, "user:alice"))
        rows = []
        for i in range(count - epics):
            title = _title(rng, rng.choice(components))
            kind, status = rng.choice(TYPES), rng.choice(STATUSES)
            parent = rng.choice(epic_ids) if rng.random() < 0.6 else None
            assignee = rng.choice(PEOPLE) if rng.random() < 0.7 else None
            author = f"agent:{rng.choice(PEOPLE)}"
            when = start + timedelta(minutes=i)
            rows.append(
                {
                    "workspace_id": ws.workspace_id,
                    "project_id": project_id,
                    "title": title,
                    "body": _body(rng),
                    "status": status,
                    "type": kind,
                    "priority": "",
                    "assignee": assignee,
                    "parent_id": parent,
                    "asked_by": "agent",
                    "labels": [],
                    "gates": [],
                    "next_action": "",
                    "outcome": "",
                    "decisions": "",
                    "branch": "",
                    "fields": {},
                    "created_by": author,
                    "created_at": when,
                    "updated_at": when,
                }
            )
        for at in range(0, len(rows), 5000):
            tx.conn.execute(insert(s.tasks), rows[at : at + 5000])
        t = s.tasks.c
        ids = tx.conn.execute(
            select(t.id).where(t.workspace_id == ws.workspace_id, t.type != "epic").order_by(t.id)
        ).scalars()
        for task_id, row in zip(ids, rows, strict=True):
            made.append(
                _row(
                    task_id,
                    row["title"],
                    row["type"],
                    row["status"],
                    row["parent_id"],
                    row["assignee"],
                    row["created_by"],
                )
            )
    if index:
        with ws.store.transaction() as tx:
            tx.rebuild_search_index(ws.workspace_id)
    return made


def _row(
    task_id: int,
    title: str,
    kind: str,
    status: str,
    parent: int | None,
    assignee: str | None,
    author: str,
) -> dict[str, Any]:
    return {
        "id": task_id,
        "title": title,
        "words": frozenset(WORD.findall(fold(title))),
        "type": kind,
        "status": status,
        "parent": parent,
        "assignee": assignee,
        "author": author,
    }


# ------------------------------------------------------------------ the labelled set


def _typo(word: str, rng: random.Random) -> str:
    at = rng.randrange(1, len(word) - 1)
    edit = rng.choice(["drop", "swap", "double"])
    if edit == "drop":
        return word[:at] + word[at + 1 :]
    if edit == "swap":
        return word[: at - 1] + word[at] + word[at - 1] + word[at + 1 :]
    return word[:at] + word[at] + word[at:]


def labelled(tasks: list[dict[str, Any]], size: int, seed: int = 11) -> list[tuple[str, str, int]]:
    """``size`` queries as (kind, query, expected id), spread over the kinds."""
    rng = random.Random(seed)
    by_words: dict[str, set[int]] = defaultdict(set)
    for task in tasks:
        for word in task["words"]:
            by_words[word].add(task["id"])
    titles = Counter(fold(t["title"]) for t in tasks)
    plain = [t for t in tasks if t["type"] != "epic"]
    index = {t["id"]: t for t in tasks}

    def holders(words: list[str], keep: Any = None) -> set[int]:
        found = set.intersection(*(by_words[fold(w)] for w in words))
        return {i for i in found if keep is None or keep(index[i])}

    def distinctive(task: dict[str, Any], keep: Any = None) -> list[str] | None:
        # The component name (the rarest word) and one more, so the query reads like a person's.
        words = sorted(task["words"], key=lambda w: len(by_words[w]))
        for extra in words[1:]:
            chosen = [words[0], extra]
            if holders(chosen, keep) == {task["id"]}:
                return chosen
        return None

    out: list[tuple[str, str, int]] = []
    kinds = ["pin", "title", "typo", "words+type", "words+state", "under", "mine"]
    attempts = 0
    while len(out) < size and attempts < size * 50:
        attempts += 1
        kind = kinds[len(out) % len(kinds)]
        task = rng.choice(plain)
        n = task["id"]
        if kind == "pin":
            query = rng.choice([f"#{n}", f"tk-{n}", f"feat/tk-{n}-fix", f"Merge TK-{n} into main"])
        elif kind == "title":
            if titles[fold(task["title"])] != 1:
                continue
            query = task["title"]
        elif kind == "typo":
            words = distinctive(task)
            long = [w for w in (words or []) if len(w) >= 5 and w.isalpha()]
            if not words or not long:
                continue
            target = rng.choice(long)
            query = " ".join(_typo(w, rng) if w == target else w for w in words)
        elif kind == "words+type":
            if task["type"] not in TYPE_EDGE:
                continue
            words = distinctive(task, lambda t, k=task["type"]: t["type"] == k)
            if not words:
                continue
            query = f"{' '.join(words)} {rng.choice(TYPE_EDGE[task['type']])}"
        elif kind == "words+state":
            if task["status"] not in STATUS_EDGE:
                continue
            words = distinctive(task, lambda t, k=task["status"]: t["status"] == k)
            if not words:
                continue
            query = f"{rng.choice(STATUS_EDGE[task['status']])} {' '.join(words)}"
        elif kind == "under":
            if task["parent"] is None:
                continue
            words = distinctive(task, lambda t, p=task["parent"]: t["parent"] == p)
            if not words:
                continue
            query = f"{rng.choice(['under', 'pod'])} #{task['parent']} {' '.join(words)}"
        else:
            if task["assignee"] is None:
                continue
            words = distinctive(task, lambda t, a=task["assignee"]: t["assignee"] == a)
            if not words:
                continue
            query = f"{rng.choice(['mine', 'moje'])} {' '.join(words)}"
            kind = f"mine:{task['assignee']}"
        out.append((kind, query, n))
    return out


# ------------------------------------------------------------------ running


def run(
    ws: Workspace, queries: list[tuple[str, str, int]], slow: float | None = None
) -> dict[str, Any]:
    firsts: dict[str, list[bool]] = defaultdict(list)
    times: dict[str, list[float]] = defaultdict(list)
    cpus: dict[str, list[float]] = defaultdict(list)
    slowest: list[str] = []
    verdicts: Counter[str] = Counter()
    misses: list[str] = []
    for kind, query, expected in queries:
        label = kind.split(":")[0]
        who = Principal.user(kind.split(":")[1]) if ":" in kind else None
        params = {"q": query, "mode": "resolve"}
        start, cpu = time.perf_counter(), time.process_time()
        answer = ws.call("search", params, principal=who) if who else ws.call("search", params)
        took = (time.perf_counter() - start) * 1000
        times[label].append(took)
        cpus[label].append((time.process_time() - cpu) * 1000)
        if slow is not None and took > slow:
            slowest.append(f"{took:8.1f} ms wall {cpus[label][-1]:8.1f} ms CPU  {kind}: {query!r}")
        top = answer["candidates"][0]["id"] if answer["candidates"] else None
        firsts[label].append(top == expected)
        verdicts[answer["verdict"]] += 1
        if top != expected and len(misses) < 8:
            misses.append(f"{query!r}: expected {expected}, got {top} ({answer['verdict']})")
    return {
        "firsts": firsts,
        "times": times,
        "cpus": cpus,
        "verdicts": verdicts,
        "misses": misses,
        "slow": slowest,
    }


def _spread(wall: list[float], cpu: list[float]) -> list[str]:
    """Wall p50, p95, their ratio and the slowest, then CPU p50 and p95, as table cells."""
    p50, p95 = percentile(wall, 0.5), percentile(wall, 0.95)
    return [
        f"{p50:.1f}",
        f"{p95:.1f}",
        f"{p95 / p50:.2f}" if p50 else "-",
        f"{max(wall):.1f}",
        f"{percentile(cpu, 0.5):.1f}",
        f"{percentile(cpu, 0.95):.1f}",
    ]


def _workspaces(pg: str | None) -> Iterator[tuple[str, Workspace]]:
    with (
        tempfile.TemporaryDirectory() as tmp,
        Workspace.open(f"sqlite:///{Path(tmp) / 'bench.db'}") as ws,
    ):
        yield "sqlite", ws
    if not pg:
        print("(postgresql skipped: pass --pg URL or set LAYOUTKIT_TEST_POSTGRES_URL)")
        return
    with Workspace.open(pg, name=f"bench-{uuid.uuid4().hex[:10]}") as ws:
        yield "postgresql", ws


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=140)
    parser.add_argument("--pg", default=os.environ.get("LAYOUTKIT_TEST_POSTGRES_URL"))
    parser.add_argument("--slow", type=float, default=None, metavar="MS")
    args = parser.parse_args()
    for backend, ws in _workspaces(args.pg):
        started = time.perf_counter()
        tasks = generate(ws, args.tasks)
        built = time.perf_counter() - started
        queries = labelled(tasks, args.queries)
        run(ws, queries[:10])  # warm the connection and the caches
        result = run(ws, queries, args.slow)
        rows = []
        everything: list[float] = []
        cpu: list[float] = []
        hits: list[bool] = []
        for label, took in result["times"].items():
            firsts = result["firsts"][label]
            everything += took
            cpu += result["cpus"][label]
            hits += firsts
            rows.append(
                [
                    label,
                    str(len(took)),
                    f"{100 * sum(firsts) / len(firsts):.0f}%",
                    *_spread(took, result["cpus"][label]),
                ]
            )
        rows.append(
            [
                "all",
                str(len(everything)),
                f"{100 * sum(hits) / len(hits):.1f}%",
                *_spread(everything, cpu),
            ]
        )
        table(
            f"{backend}: {len(tasks):,} tasks generated in {built:.1f} s; {CALLER}; "
            + machine_load(),
            [
                "queries",
                "n",
                "first",
                "p50 ms",
                "p95 ms",
                "p95/p50",
                "max ms",
                "cpu p50",
                "cpu p95",
            ],
            rows,
        )
        print("verdicts:", dict(result["verdicts"]))
        for line in result["slow"]:
            print("  slow:", line)
        for miss in result["misses"]:
            print("  miss:", miss)


if __name__ == "__main__":
    main()
