"""Search bench: workspace search on a generated workspace of tasks, boards and cards.

Run: ``python benches/search_bench.py [--tasks N] [--queries N] [--pg URL]``. The
default is 100,000 tasks, 5,000 boards and 50,000 cards (boards and cards scale
with ``--tasks``: one board per 20 tasks, ten cards per board). SQLite always
runs (a file in a temporary directory); PostgreSQL runs with ``--pg`` or
LAYOUTKIT_TEST_POSTGRES_URL (a workspace of its own, removed afterwards).

What it prints, per backend:

- index build: the rows are bulk-inserted with SQL (the generator below), then
  the index is built through ``rebuild_search_index``, the code path that keeps
  it current; its wall time and the size of the index tables;
- latency, what a caller waits for through ``Workspace.call("search")``:
  two-word queries, and queries with one misspelt word (correction included),
  beside the full-text query alone (``tx.search_index``, the same words, no
  correction and no hit views) and the ratio of the two;
- the anchors of issue 34 (SQLite only), CPU beside wall in interleaved rounds: a raw
  FTS5 MATCH of the same words on the same database through plain sqlite3, asking for
  as many ids as ``search`` returned hits, and tantivy over the same folded documents
  (prefix words, the misspelt one fuzzy at our correction's distance) when
  ``tantivy`` is importable (install it outside the project, e.g. ``pip install
  --target DIR tantivy`` and ``PYTHONPATH=DIR``);
- quality: a labelled set of queries written from the generated data, each
  naming the task it should find first (a third misspelt); the share whose
  expected task ranks first in the tasks group;
- resolve: a fifth of the tasks (``--resolve-tasks``) come from
  ``resolve_bench.generate`` and are indexed with the rest; its labelled
  references (pins, exact titles, typos, English and Czech type and state
  words, ``under``/``pod``, ``mine``/``moje``) run through ``mode: resolve``,
  with p50/p95 and the share whose expected task is the first candidate, per
  kind of reference.

The generator (``Corpus``, ``generate``, ``insert_corpus``, ``labelled_queries``)
is importable, so other benches can add rows of their own to it.
"""

from __future__ import annotations

import argparse
import os
import random
import sqlite3
import statistics
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import attrs
import resolve_bench
from _timing import percentile, table
from sqlalchemy import delete, func, insert, select, text

from layoutkit import Workspace
from layoutkit.search_text import tokens
from layoutkit.storage import _schema as s

# ------------------------------------------------------------------ the generator

COMPONENTS = """checkout invoice dashboard login signup onboarding search export import billing payment
refund notification settings profile avatar upload gallery timeline calendar report
analytics webhook sync cache queue scheduler migration permissions session token
password email sidebar header footer modal tooltip dropdown table chart filter
pagination editor comment mention attachment thumbnail preview template workspace
project sprint milestone roadmap release deploy pipeline build coverage logging metrics
alert incident backup restore archive label priority assignee reminder digest invitation
subscription coupon discount cart shipping inventory warehouse vendor catalogue pricing
currency locale translation accessibility keyboard shortcut theme contrast font layout
grid mobile tablet desktop browser offline latency timeout throttle quota storage
database index query schema replica failover printer scanner barcode receipt ledger
payroll contract proposal quote supplier customer account tenant region cluster
container gateway proxy certificate firewall audit compliance consent cookie banner
survey feedback rating review wishlist recommendation bundle voucher loyalty referral
affiliate campaign newsletter segment funnel cohort experiment rollout feature toggle""".split()  # noqa: SIM905
VERBS = """Fix Add Remove Improve Refactor Investigate Document Support Migrate Redesign Test
Rename Split Merge Validate Handle Show Hide Allow Prevent Limit Cache Log Track Speed""".split()  # noqa: SIM905
PLACES = """Safari Firefox Chrome Android iPhone Windows Linux staging production tablet checkout
mobile desktop""".split()  # noqa: SIM905
PROBLEMS = """crashes freezes flickers duplicates disappears overflows misaligns truncates times out
loses data shows stale values rounds wrongly double counts rejects valid input""".split()  # noqa: SIM905
FILLER = """the a an and or but when after before while during because so then with without for from
into onto over under about again once only also still already never always often users
people customers agents admins teams they we it this that these those our their some
many every each other new old first last next same different open closed broken slow
fast wrong right report reports said says see seen saw expect expected happen happens
happened page screen button field value list row column step flow case time day week
month""".split()  # noqa: SIM905
_SYLLABLES = """ka lo mi ra ne to su vi da pe zo ri ma no la te bo fu ge hi ju ko""".split()  # noqa: SIM905


@attrs.define
class Corpus:
    """The generated rows of one workspace, before they are stored."""

    tasks: list[dict[str, Any]]
    boards: list[dict[str, Any]]
    cards: list[dict[str, Any]]
    refs: list[dict[str, Any]]


def _names(rng: random.Random, n: int) -> list[str]:
    """Pronounceable words (customers, codenames): the long tail of a real vocabulary."""
    out: set[str] = set()
    while len(out) < n:
        out.add("".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(3, 4))))
    return sorted(out)


def _sentence(rng: random.Random, tail: list[str]) -> str:
    words = [rng.choice(FILLER) for _ in range(rng.randint(5, 10))]
    words.insert(rng.randrange(len(words)), rng.choice(COMPONENTS))
    if rng.random() < 0.5:
        words.insert(rng.randrange(len(words)), rng.choice(tail))
    if rng.random() < 0.3:
        words.insert(rng.randrange(len(words)), rng.choice(PROBLEMS))
    return " ".join(words).capitalize() + "."


def generate(
    tasks: int, *, boards: int | None = None, cards: int | None = None, seed: int = 7
) -> Corpus:
    """Tasks with titles, bodies, text fields and PR refs, boards with tags, and cards."""
    rng = random.Random(seed)
    boards = boards if boards is not None else max(1, tasks // 20)
    cards = cards if cards is not None else boards * 10
    tail = _names(rng, 3000)
    out = Corpus([], [], [], [])
    for i in range(tasks):
        c1, c2 = rng.sample(COMPONENTS, 2)
        title = f"{rng.choice(VERBS)} {c1} {c2}"
        if rng.random() < 0.6:
            title += f" for {rng.choice(tail).capitalize()}"
        if rng.random() < 0.4:
            title += f" on {rng.choice(PLACES)}"
        body = " ".join(_sentence(rng, tail) for _ in range(rng.randint(2, 6)))
        row: dict[str, Any] = {"title": title, "body": body}
        if rng.random() < 0.3:
            row["next_action"] = _sentence(rng, tail)
        if rng.random() < 0.25:
            row["branch"] = f"feat/tk-{i + 1}-{c1}-{c2}"
        out.tasks.append(row)
        if rng.random() < 0.2:
            out.refs.append(
                {
                    "task": i,
                    "kind": "pr",
                    "ref": f"acme/{rng.choice(['web', 'api', 'app'])}#{rng.randint(1, 9999)}",
                    "meta": {"title": f"{rng.choice(VERBS)} {c1} {rng.choice(COMPONENTS)}"},
                }
            )
    for b in range(boards):
        words = rng.sample(COMPONENTS, 2)
        out.boards.append(
            {
                "slug": f"{words[0]}-{words[1]}-{b}",
                "title": f"{words[0].capitalize()} {words[1]} {rng.choice(tail)}",
                "tags": rng.sample(COMPONENTS[:40], rng.randint(0, 2)),
            }
        )
    for c in range(cards):
        kind = rng.choices(["note", "text", "page", "checklist"], [5, 3, 1, 1])[0]
        md = " ".join(_sentence(rng, tail) for _ in range(rng.randint(1, 3)))
        payload: dict[str, Any] = {"md": md}
        if kind == "checklist":
            payload = {
                "title": md[:40],
                "items": [{"text": _sentence(rng, tail)} for _ in range(3)],
            }
        out.cards.append({"board": c % boards, "kind": kind, "payload": payload})
    return out


def insert_corpus(ws: Workspace, corpus: Corpus) -> list[int]:
    """Bulk-insert the corpus's rows into the workspace with SQL (no index writes);
    returns the task ids in corpus order."""
    now = ws.store.clock()
    wsid = ws.workspace_id
    with ws.store.transaction() as tx:
        conn = tx.conn
        start = conn.execute(select(func.coalesce(func.max(s.tasks.c.id), 0))).scalar_one()
        defaults = {
            "workspace_id": wsid,
            "status": "backlog",
            "type": "task",
            "priority": "",
            "asked_by": "agent",
            "labels": [],
            "gates": [],
            "next_action": "",
            "outcome": "",
            "decisions": "",
            "branch": "",
            "fields": {},
            "created_by": "agent:bench",
            "created_at": now,
            "updated_at": now,
        }
        for at in range(0, len(corpus.tasks), 5000):
            conn.execute(insert(s.tasks), [{**defaults, **t} for t in corpus.tasks[at : at + 5000]])
        ids = list(
            conn.execute(
                select(s.tasks.c.id)
                .where(s.tasks.c.workspace_id == wsid, s.tasks.c.id > start)
                .order_by(s.tasks.c.id)
            ).scalars()
        )
        conn.execute(
            insert(s.task_refs),
            [
                {
                    "task_id": ids[r["task"]],
                    "kind": r["kind"],
                    "ref": r["ref"],
                    "version": 1,
                    "meta": r["meta"],
                    "author": "agent:bench",
                    "created_at": now,
                    "updated_at": now,
                }
                for r in corpus.refs
            ],
        )
        board_rows = [
            {
                "workspace_id": wsid,
                "slug": b["slug"],
                "meta": {"title": b["title"]},
                "lanes": [],
                "archived": False,
                "card_seq": 0,
                "created_at": now,
                "updated_at": now,
            }
            for b in corpus.boards
        ]
        conn.execute(insert(s.boards), board_rows)
        board_ids = dict(
            conn.execute(
                select(s.boards.c.slug, s.boards.c.id).where(s.boards.c.workspace_id == wsid)
            ).all()
        )
        bids = [board_ids[b["slug"]] for b in corpus.boards]
        tags = [
            {"board_id": bids[i], "tag": tag, "position": p}
            for i, b in enumerate(corpus.boards)
            for p, tag in enumerate(b["tags"])
        ]
        if tags:
            conn.execute(insert(s.board_tags), tags)
        card_rows = [
            {
                "board_id": bids[c["board"]],
                "ordinal": n,
                "kind": c["kind"],
                "payload": c["payload"],
                "x": 0.0,
                "y": 0.0,
                "w": 300.0,
                "h": 120.0,
                "layer": "ai",
                "version": 1,
                "author": "agent:bench",
                "created_at": now,
                "updated_at": now,
            }
            for n, c in enumerate(corpus.cards)
        ]
        for at in range(0, len(card_rows), 5000):
            conn.execute(insert(s.cards), card_rows[at : at + 5000])
    return ids


# ------------------------------------------------------------------ the queries


def _typo(rng: random.Random, word: str) -> str:
    """``word`` with one edit past its first letter (swap, drop or double a letter)."""
    i = rng.randrange(1, len(word) - 1)
    how = rng.choice(["swap", "drop", "double"])
    if how == "swap":
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    if how == "drop":
        return word[:i] + word[i + 1 :]
    return word[:i] + word[i] + word[i:]


def labelled_queries(
    corpus: Corpus, ids: list[int], n: int, seed: int = 11
) -> list[tuple[str, int]]:
    """``n`` queries, each with the task it should find first: the rarest words of a
    task's title that no other title holds together (every third one misspelt)."""
    rng = random.Random(seed)
    titles = [set(tokens(t["title"])) for t in corpus.tasks]
    texts = [
        set(tokens(f"{t['title']} {t['body']} {t.get('next_action', '')}")) for t in corpus.tasks
    ]
    df = Counter(w for t in titles for w in t)
    known = {w for t in texts for w in t}
    out: list[tuple[str, int]] = []
    tries = 0
    while len(out) < n and tries < n * 50:
        tries += 1
        i = rng.randrange(len(corpus.tasks))
        words = sorted(titles[i], key=lambda w: (df[w], w))[:3]
        if len(words) < 2:
            continue
        pick = words[:2]
        if sum(1 for t in titles if set(pick) <= t) > 1:
            pick = words[:3]
        # The expected task must be the only one whose title holds the words, and
        # no other task's text may hold them all (else bm25 may fairly prefer it).
        if (
            sum(1 for t in titles if set(pick) <= t) != 1
            or sum(1 for t in texts if set(pick) <= t) != 1
        ):
            continue
        if len(out) % 3 == 2:
            long = [w for w in pick if w.isalpha() and len(w) >= 5]
            if not long:
                continue
            typo = _typo(rng, long[0])
            if any(k.startswith(typo) for k in known) or typo == long[0]:
                continue
            pick = [typo if w == long[0] else w for w in pick]
        rng.shuffle(pick)
        out.append((" ".join(pick), ids[i]))
    return out


def two_word_queries(corpus: Corpus, n: int, seed: int = 5) -> list[str]:
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        words = [w for w in tokens(rng.choice(corpus.tasks)["title"]) if len(w) > 3]
        if len(words) >= 2:
            out.append(" ".join(rng.sample(words, 2)))
    return out


def typo_queries(corpus: Corpus, n: int, seed: int = 6) -> list[str]:
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        words = [w for w in tokens(rng.choice(corpus.tasks)["title"]) if len(w) > 4 and w.isalpha()]
        if len(words) >= 2:
            a, b = rng.sample(words, 2)
            out.append(f"{_typo(rng, a)} {b}")
    return out


# ------------------------------------------------------------------ measuring


def _ms(fn: Any, items: list[Any]) -> list[float]:
    out = []
    for item in items:
        t0 = time.perf_counter()
        fn(item)
        out.append((time.perf_counter() - t0) * 1000)
    return out


def _cpu_ms(fn: Any, items: list[Any]) -> list[float]:
    out = []
    for item in items:
        t0 = time.process_time()
        fn(item)
        out.append((time.process_time() - t0) * 1000)
    return out


def _hit_count(ws: Workspace, q: str) -> int:
    return sum(len(rows) for rows in ws.call("search", {"q": q})["groups"].values())


def _raw_fts5(db: Path) -> Any:
    """The anchor of issue 34: one FTS5 MATCH of the query's words as prefixes on the
    same database, ranked by the same bm25 weights, asking for as many ids as
    ``search`` returns hits, through a plain sqlite3 connection."""
    conn = sqlite3.connect(db)

    def run(item: tuple[str, int]) -> None:
        q, n = item
        match = " AND ".join(f'"{w}"*' for w in tokens(q))
        conn.execute(
            "SELECT rowid FROM search_fts WHERE search_fts MATCH ? "
            "ORDER BY bm25(search_fts, 10.0, 1.0) LIMIT ?",
            (match, n),
        ).fetchall()

    return run


def _tantivy(ws: Workspace) -> Any | None:
    """The other anchor: tantivy (``pip install tantivy``, outside the project) over the
    same documents' folded title and body; each word a prefix, the misspelt one a fuzzy
    term at the distance our correction allows. None when tantivy is not importable."""
    try:
        import tantivy
    except ImportError:
        return None
    builder = tantivy.SchemaBuilder()
    builder.add_text_field("title", stored=False)
    builder.add_text_field("body", stored=False)
    builder.add_integer_field("doc", stored=True, indexed=False)
    schema = builder.build()
    index = tantivy.Index(schema)
    writer = index.writer(heap_size=200_000_000, num_threads=1)
    with ws.store.read() as tx:
        rows = tx.conn.execute(
            select(s.search_docs.c.id, s.search_docs.c.title, s.search_docs.c.body)
        ).all()
    for doc_id, title, body in rows:
        writer.add_document(tantivy.Document(title=title, body=body, doc=doc_id))
    writer.commit()
    writer.wait_merging_threads()
    index.reload()
    searcher = index.searcher()
    occur = tantivy.Occur

    def word_query(word: str, fuzzy: bool) -> Any:
        if fuzzy:
            distance = 2 if len(word) >= 8 else 1
            parts = [
                tantivy.Query.fuzzy_term_query(schema, f, word, distance=distance, prefix=True)
                for f in ("title", "body")
            ]
        else:
            parts = [tantivy.Query.regex_query(schema, f, f"{word}.*") for f in ("title", "body")]
        return tantivy.Query.boolean_query([(occur.Should, p) for p in parts])

    def run(item: tuple[str, int, bool]) -> None:
        q, n, fuzzy_first = item
        words = tokens(q)
        query = tantivy.Query.boolean_query(
            [(occur.Must, word_query(w, fuzzy_first and i == 0)) for i, w in enumerate(words)]
        )
        searcher.search(query, n)

    return run


def _fts_alone(ws: Workspace) -> Any:
    from layoutkit.service.search.search import GROUPS

    def run(q: str) -> None:
        with ws.store.read() as tx:
            tx.search_index(
                ws.workspace_id, [[(w, True)] for w in tokens(q)], groups=GROUPS, per_group=20
            )

    return run


def _index_bytes(ws: Workspace, db: Path | None) -> int:
    with ws.store.read() as tx:
        if db is None:
            return int(
                tx.conn.execute(
                    text(
                        "SELECT pg_total_relation_size('search_docs') + "
                        "pg_total_relation_size('search_words')"
                    )
                ).scalar_one()
            )
    return 0


def run_backend(
    label: str,
    ws: Workspace,
    corpus: Corpus,
    queries: int,
    db: Path | None,
    resolve_tasks: int,
) -> list[list[str]]:
    before = db.stat().st_size if db else 0
    t0 = time.perf_counter()
    # The resolver's tasks first: its generator reads back the ids of every task.
    resolvable = resolve_bench.generate(ws, resolve_tasks, index=False)
    ids = insert_corpus(ws, corpus)
    inserted = time.perf_counter() - t0
    if db:
        before = db.stat().st_size
    t0, c0 = time.perf_counter(), time.process_time()
    with ws.store.transaction() as tx:
        docs = tx.rebuild_search_index(ws.workspace_id)
    built, built_cpu = time.perf_counter() - t0, time.process_time() - c0
    size = (db.stat().st_size - before) if db else _index_bytes(ws, None)
    print(
        f"\n{label}: {len(corpus.tasks):,} tasks and {len(resolvable):,} resolver tasks, "
        f"{len(corpus.boards):,} boards, "
        f"{len(corpus.cards):,} cards inserted in {inserted:.1f} s; index of {docs:,} documents "
        f"built in {built:.1f} s, {size / 2**20:.1f} MiB"
    )
    search = lambda q: ws.call("search", {"q": q})  # noqa: E731
    fts = _fts_alone(ws)
    two = two_word_queries(corpus, queries)
    typos = typo_queries(corpus, queries)
    for q in two[:20]:
        search(q)  # warm the caches a long-running server has warm
    rows = []
    fts_two = _ms(fts, two)
    for name, qs in (("two words", two), ("one word misspelt", typos)):
        full = _ms(search, qs)
        rows.append(
            [
                label,
                name,
                f"{statistics.median(full):.1f}",
                f"{percentile(full, 0.95):.1f}",
                f"{statistics.median(fts_two):.1f}",
                f"{percentile(fts_two, 0.95):.1f}",
                f"{statistics.median(full) / max(statistics.median(fts_two), 1e-6):.1f}x",
            ]
        )
    if db is not None:
        _build_anchor(ws, db, built_cpu, built)
        _anchor_table(label, ws, db, two, typos)
    labelled = labelled_queries(corpus, ids, max(200, queries))
    first = 0
    misses = []
    for q, expected in labelled:
        got = ws.call("search", {"q": q, "kind": "task", "limit": 3})["groups"]["tasks"]
        if got and got[0]["id"] == expected:
            first += 1
        else:
            misses.append(q)
    share = first / len(labelled)
    rows.append([label, f"quality: {len(labelled)} labelled", f"{share:.1%} first", "", "", "", ""])
    if misses:
        print(f"  missed, e.g.: {misses[:5]}")
    rows += _resolve_rows(label, ws, resolvable, queries)
    return rows


def _resolve_rows(
    label: str, ws: Workspace, tasks: list[dict[str, Any]], queries: int
) -> list[list[str]]:
    """``mode: resolve`` on resolve_bench's labelled references (English and Czech
    palette words, typos, pins), in this workspace: p50/p95 per kind and the share
    whose expected task is the first candidate."""
    labelled = resolve_bench.labelled(tasks, max(140, queries))
    resolve_bench.run(ws, labelled[:10])  # warm, as the search queries were
    result = resolve_bench.run(ws, labelled)
    rows = []
    every: list[float] = []
    hits: list[bool] = []
    for kind, took in result["times"].items():
        firsts = result["firsts"][kind]
        every += took
        hits += firsts
        rows.append(
            [
                label,
                f"resolve {kind} ({len(took)}, {sum(firsts) / len(firsts):.0%} first)",
                f"{statistics.median(took):.1f}",
                f"{percentile(took, 0.95):.1f}",
                "",
                "",
                "",
            ]
        )
    rows.append(
        [
            label,
            f"resolve all ({len(every)}, {sum(hits) / len(hits):.1%} first)",
            f"{statistics.median(every):.1f}",
            f"{percentile(every, 0.95):.1f}",
            "",
            "",
            "",
        ]
    )
    print(f"  resolve verdicts: {dict(result['verdicts'])}")
    for miss in result["misses"]:
        print(f"  resolve miss: {miss}")
    return rows


@contextmanager
def _sqlite() -> Iterator[tuple[Workspace, Path]]:
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "bench.db"
        with Workspace.open(f"sqlite:///{db}") as ws:
            yield ws, db


@contextmanager
def _postgres(url: str) -> Iterator[Workspace]:
    name = f"search-bench-{uuid.uuid4().hex[:8]}"
    with Workspace.open(url, name=name) as ws:
        try:
            yield ws
        finally:
            with ws.store.transaction() as tx:
                tx.conn.execute(delete(s.workspaces).where(s.workspaces.c.id == ws.workspace_id))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tasks", type=int, default=100_000)
    parser.add_argument("--boards", type=int)
    parser.add_argument("--cards", type=int)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument(
        "--resolve-tasks",
        type=int,
        help="tasks of resolve_bench's generator added to the workspace (default a fifth of --tasks)",
    )
    parser.add_argument("--pg", default=os.environ.get("LAYOUTKIT_TEST_POSTGRES_URL"))
    args = parser.parse_args()
    boards = args.boards if args.boards is not None else max(1, args.tasks // 20)
    cards = args.cards if args.cards is not None else boards * 10
    resolve_tasks = args.resolve_tasks or max(500, args.tasks // 5)
    # The search corpus and the resolver's tasks share one workspace of --tasks tasks.
    args.tasks -= resolve_tasks
    t0 = time.perf_counter()
    corpus = generate(args.tasks, boards=boards, cards=cards)
    print(f"generated in {time.perf_counter() - t0:.1f} s")
    with _sqlite() as (ws, db):
        _report(run_backend("sqlite", ws, corpus, args.queries, db, resolve_tasks))
    if args.pg:
        with _postgres(args.pg) as ws:
            _report(run_backend("postgresql", ws, corpus, args.queries, None, resolve_tasks))
    else:
        print("(postgresql skipped: pass --pg URL or set LAYOUTKIT_TEST_POSTGRES_URL)")


def _build_anchor(ws: Workspace, db: Path, cpu: float, wall: float) -> None:
    """Issue 34's index build anchor: FTS5's bulk build of the same documents (their
    folded title and body, the same tokenizer and prefix indexes) in a database of
    its own, beside our rebuild from the rows (reading, folding, vocabulary and FTS)."""
    with ws.store.read() as tx:
        rows = [
            tuple(r) for r in tx.conn.execute(select(s.search_docs.c.title, s.search_docs.c.body))
        ]
    anchor = db.with_name("fts5-anchor.db")
    conn = sqlite3.connect(anchor)
    conn.execute(
        "CREATE VIRTUAL TABLE f USING fts5(title, body, "
        "tokenize='unicode61 remove_diacritics 2', prefix='2 3')"
    )
    t0, c0 = time.perf_counter(), time.process_time()
    with conn:
        conn.executemany("INSERT INTO f(title, body) VALUES (?, ?)", rows)
    f_wall, f_cpu = time.perf_counter() - t0, time.process_time() - c0
    conn.close()
    anchor.unlink()
    table(
        f"index build of {len(rows):,} documents, s CPU / wall (load {os.getloadavg()[0]:.1f})",
        ["ours (rebuild_search_index)", "FTS5 bulk build", "ours / FTS5"],
        [
            [
                f"{cpu:.2f} / {wall:.2f}",
                f"{f_cpu:.2f} / {f_wall:.2f}",
                f"{cpu / max(f_cpu, 1e-6):.1f}x / {wall / max(f_wall, 1e-6):.1f}x",
            ]
        ],
    )


def _anchor_table(label: str, ws: Workspace, db: Path, two: list[str], typos: list[str]) -> None:
    """Issue 34's ratios, CPU of this process beside wall, one interleaved run: ours
    (``Workspace.call("search")``, hit views included) beside a raw FTS5 MATCH asking
    for as many ids, and beside tantivy's query for the same words."""
    search = lambda q: ws.call("search", {"q": q})  # noqa: E731
    raw = _raw_fts5(db)
    tan = _tantivy(ws)
    rows = []
    for name, qs, fuzzy in (("two words", two, False), ("one word misspelt", typos, True)):
        sized = [(q, max(_hit_count(ws, q), 1)) for q in qs]
        ours_cpu, raw_cpu, tan_cpu = [], [], []
        ours_wall, raw_wall, tan_wall = [], [], []
        for _ in range(3):  # interleaved rounds: the machine's load falls on all alike
            ours_cpu += _cpu_ms(search, qs)
            ours_wall += _ms(search, qs)
            raw_cpu += _cpu_ms(raw, sized)
            raw_wall += _ms(raw, sized)
            if tan is not None:
                tan_items = [(q, n, fuzzy) for q, n in sized]
                tan_cpu += _cpu_ms(tan, tan_items)
                tan_wall += _ms(tan, tan_items)
        med = statistics.median
        row = [
            label,
            name,
            f"{med(ours_cpu):.2f} / {med(ours_wall):.2f}",
            f"{med(raw_cpu):.2f} / {med(raw_wall):.2f}",
            f"{med(ours_cpu) / max(med(raw_cpu), 1e-6):.1f}x / {med(ours_wall) / max(med(raw_wall), 1e-6):.1f}x",
        ]
        if tan is not None:
            row += [
                f"{med(tan_cpu):.2f} / {med(tan_wall):.2f}",
                f"{med(ours_cpu) / max(med(tan_cpu), 1e-6):.1f}x / {med(ours_wall) / max(med(tan_wall), 1e-6):.1f}x",
            ]
        else:
            row += ["(pip install tantivy)", ""]
        rows.append(row)
    load = os.getloadavg()[0]
    table(
        f"search beside its anchors, p50 ms CPU / wall (load {load:.1f})",
        ["backend", "queries", "ours", "raw FTS5", "ours / FTS5", "tantivy", "ours / tantivy"],
        rows,
    )


def _report(rows: list[list[str]]) -> None:
    table(
        "search, caller waits (Workspace.call) beside the full-text query alone (engine only), ms",
        ["backend", "queries", "p50", "p95", "fts p50", "fts p95", "p50 / fts"],
        rows,
    )


if __name__ == "__main__":
    main()
