"""Write the bench corpora of labelled and of dense graphs (deterministic: run it again
and the files come out byte for byte the same).

usage: python benches/make_corpora.py [--out benches/corpus]

``labelled/``: 48 graphs of 10 to 300 nodes (12 sizes, TD and LR, two seeds each)
shaped like hand-written flowcharts: a spine of nearby links plus some longer
forward links and a few back links (loops), about 1.4 edges per node. Node boxes
hold 1 to 6 lines of text and are sized with the engine's own text metrics
(``size_node``); a fifth of the edges carry a label whose box is the one the
engine gives that text (``_label_size``), written as ``label: {text, w, h}`` so
the ELK runner of the layout anchors reserves the same room.

``large/``: six graphs of 1,000 nodes from the layout-anchors harness's own generator
(its ``syn_dag`` and ``syn_cyc`` families, seeds 0 to 2), the size above the corpus's
500-node bucket, beside dot and ELK in the bench's ``large`` set.

``dense/``: random digraphs with 3 to 5 edges per node (100/300, 150/600,
200/1,000, 2,000/4,000 nodes/edges; cycles allowed) and a 5,000-node chain, with
the anchors corpus's node sizes (w 120 to 260, h 48 to 120).

All files use the anchors corpus shape ``{name, family, dir, nodes: [{id, w, h}],
edges: [{from, to, label?}]}`` plus node ``text`` in the labelled set.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from layoutkit.diagram.engine import _label_size  # noqa: E402
from layoutkit.diagram.model import size_node  # noqa: E402

LABELLED_SIZES = (10, 15, 20, 30, 40, 50, 75, 100, 150, 200, 250, 300)
DENSE = ((100, 300), (150, 600), (200, 1000), (2000, 4000))
CHAIN = 5000
LARGE_NODES = 1000
WORDS = [
    "load",
    "parse",
    "check",
    "user",
    "order",
    "cache",
    "queue",
    "retry",
    "send",
    "store",
    "read",
    "write",
    "build",
    "render",
    "fetch",
    "merge",
    "split",
    "notify",
    "audit",
    "index",
    "score",
    "route",
    "verify",
    "apply",
    "commit",
    "report",
    "export",
    "import",
    "billing",
    "session",
    "token",
    "payment",
    "invoice",
    "stock",
    "shipping",
    "search",
    "filter",
    "rank",
    "sync",
    "backup",
    "alert",
]
LABELS = (
    "yes",
    "no",
    "ok",
    "on error",
    "retry",
    "timeout",
    "cache miss",
    "valid",
    "invalid input",
    "after 3 tries",
    "user cancels",
    "async",
    "batch of 100",
    "needs review",
)


def _text(rng: random.Random) -> str:
    """1 to 6 lines of 1 to 4 words: what a flowchart box says."""
    lines = rng.choice((1, 1, 2, 2, 3, 4, 5, 6))
    return "\n".join(
        " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 4))).capitalize()
        for _ in range(lines)
    )


def labelled(n: int, direction: str, seed: int) -> dict:
    rng = random.Random(f"labelled-{n}-{direction}-{seed}")
    nodes = []
    for i in range(n):
        text = _text(rng)
        w, h = size_node({"id": f"n{i}", "title": text}, "rect")
        nodes.append({"id": f"n{i}", "text": text, "w": round(w, 2), "h": round(h, 2)})
    pairs: list[tuple[int, int]] = []
    seen: set[tuple[int, int]] = set()

    def add(a: int, b: int) -> None:
        if a != b and (a, b) not in seen:
            seen.add((a, b))
            pairs.append((a, b))

    for i in range(1, n):  # the spine: each step follows one of the few before it
        add(rng.randint(max(0, i - 4), i - 1), i)
    for _ in range(int(0.3 * n)):  # longer forward links
        a = rng.randrange(n - 1)
        add(a, rng.randint(a + 1, min(n - 1, a + 12)))
    for _ in range(max(1, n // 12)):  # loops back
        b = rng.randrange(n - 1)
        add(rng.randint(b + 1, min(n - 1, b + 8)), b)
    rng.shuffle(pairs)
    edges = []
    for k, (a, b) in enumerate(pairs):
        e: dict = {"from": f"n{a}", "to": f"n{b}"}
        if k % 5 == 0:  # every fifth edge after the shuffle: 20% labelled
            text = rng.choice(LABELS)
            w, h = _label_size(text)
            e["label"] = {"text": text, "w": round(w, 2), "h": round(h, 2)}
        edges.append(e)
    return {
        "name": f"lab_n{n}_{direction}_s{seed}",
        "family": "labelled",
        "dir": direction,
        "nodes": nodes,
        "edges": edges,
    }


def _sized_nodes(n: int, rng: random.Random) -> list[dict]:
    return [
        {"id": f"n{i}", "w": float(rng.randint(120, 260)), "h": float(rng.randint(48, 120))}
        for i in range(n)
    ]


def dense(n: int, m: int) -> dict:
    rng = random.Random(f"dense-{n}-{m}")
    nodes = _sized_nodes(n, rng)
    seen: set[tuple[int, int]] = set()
    edges = []
    while len(edges) < m:
        a, b = rng.sample(range(n), 2)
        if (a, b) not in seen:
            seen.add((a, b))
            edges.append({"from": f"n{a}", "to": f"n{b}"})
    return {
        "name": f"dense_n{n}_m{m}",
        "family": "dense",
        "dir": "TD",
        "nodes": nodes,
        "edges": edges,
    }


def chain(n: int) -> dict:
    rng = random.Random(f"chain-{n}")
    nodes = _sized_nodes(n, rng)
    edges = [{"from": f"n{i}", "to": f"n{i + 1}"} for i in range(n - 1)]
    return {"name": f"chain_n{n}", "family": "chain", "dir": "TD", "nodes": nodes, "edges": edges}


def large() -> list[dict]:
    """The anchors corpus's synthetic families (flow-like DAGs, and the same with about
    12% of edges turned back plus a few long links back) at ``LARGE_NODES`` nodes, made
    by the harness's own generator so they are the 500-node graphs' kin."""
    harness = REPO.parent / "shared" / "tools" / "layout-anchors"
    sys.path.insert(0, str(harness))
    import gen_corpus  # the harness generator, unchanged

    out = []
    for seed in (0, 1, 2):
        for fam, make in (("dag", gen_corpus.gen_dag), ("cyc", gen_corpus.gen_cyc)):
            name = f"syn_{fam}_n{LARGE_NODES}_s{seed}_TD"
            out.append(gen_corpus.to_json(make(LARGE_NODES, seed), name, "syn_" + fam, "TD", seed))
    return out


def graphs() -> dict[str, list[dict]]:
    """Every corpus graph by folder."""
    lab = [labelled(n, d, s) for n in LABELLED_SIZES for d in ("TD", "LR") for s in (0, 1)]
    return {
        "labelled": lab,
        "dense": [dense(n, m) for n, m in DENSE] + [chain(CHAIN)],
        "large": large(),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent / "corpus"))
    out = Path(ap.parse_args().out)
    for folder, gs in graphs().items():
        (out / folder).mkdir(parents=True, exist_ok=True)
        for g in gs:
            (out / folder / f"{g['name']}.json").write_text(json.dumps(g, separators=(",", ":")))
        print(f"{len(gs)} graphs in {out / folder}")


if __name__ == "__main__":
    main()
