"""Review diff bench: layoutkit.review.diff beside pixelmatch (JS) and odiff, in one run.

On the shared screenshot corpus at 1440×900 (``desk``), base against each
variant:

- ``bytes``: two byte-identical files (the first tier; no decoding).
- ``decoded``: ``diff_pixels`` on pixels already decoded (engine only), beside
  pixelmatch 7 timing itself in node on the same decoded pixels. ``way`` says
  how the pair was compared: ``index`` (lists of the differing pixels) or
  ``masks`` (whole-image masks, for opaque pairs where at least
  ``MASK_SHARE`` of the words differ); for a ``masks`` pair the other way is
  timed too (``index way cpu ms``, beside ``ours cpu ms``), to show what the
  masks save.
- ``files``: ``diff_png`` from the two files' bytes, decoding included, beside
  the odiff CLI comparing the same two files (a process per pair; its time is
  the child's wall time, its CPU the child's user+system). Its rounds
  alternate with ours.

Medians of ``--rounds`` rounds (on decoded pixels in three blocks, pixelmatch's
then ours, so load bursts fall on both sides); wall and CPU (this process's ``process_time``,
both decode threads included; for pixelmatch, node's ``process.cpuUsage``).
Ratios are ours over the anchor measured in this run, of wall and of CPU time
(on a loaded machine the CPU ratio is the steadier one); targets are issue
34's, on wall time: a 1-pixel shift at most 1.2× pixelmatch on decoded pixels,
every file pair at most 1.2× the odiff CLI. The machine's cores and load
average are printed before and after, and a closing table gives the goals'
ratios, wall and CPU, side by side. The anchors come from an npm
folder outside the repository (``--tools DIR`` holding
``npm install pixelmatch@7 pngjs odiff-bin``); without it the anchor columns are
left empty, with a note. Asserts nothing.

    python benches/review_bench.py --tools ../npm-tools [--rounds 15] [--corpus DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from _timing import ENGINE, Timing, measure, table

from layoutkit.review import diff as rd
from layoutkit.review.diff import decode, diff_pixels, diff_png

HERE = Path(__file__).resolve().parent
DEFAULT_CORPUS = HERE.parents[1] / "shared" / "corpus" / "screens"

# (variant, what it is, the target for ours: (kind, limit)); kind "ms" is an
# absolute median wall time, "x" a ratio to the anchor of the row.
DECODED = [
    ("identical", "same pixels", ("ms", 2.0)),
    ("label", "label, 0.02% changed", ("ms", 2.0)),
    ("aa_mild", "re-sampled: 7% of words differ", ("ms", 2.0)),
    ("table20", "table rows, 0.7% counted", ("ms", 25.0)),
    ("photo5", "image area, 5% changed", ("ms", 25.0)),
    ("shift1px", "all moved 1 px", ("x", 1.2)),
    ("scroll40", "scrolled", None),
    ("theme", "theme, 94%", None),
]
#: The decoded table's rounds come in this many blocks, pixelmatch's and ours in turn.
BLOCKS = 3
FILES = ["identical", "reencode", "label", "photo5", "table20", "shift1px", "scroll40", "theme"]
#: Issue 34's target for every file pair: ours over the odiff CLI, on wall time.
FILE_TARGET = ("x", 1.2)


def _load() -> str:
    return f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}"


def _ms(values: list[float]) -> float:
    return statistics.median(values)


def pixelmatch_times(tools: Path, corpus: Path, variants: list[str], rounds: int) -> dict:
    """pixelmatch's own timing of each pair on decoded pixels: each round's wall and CPU
    ms, and its count."""
    args = []
    for v in variants:
        args += [str(corpus / "desk__base.png"), str(corpus / f"desk__{v}.png")]
    out = subprocess.run(
        [
            "node",
            str(HERE / "anchors" / "pixelmatch_anchor.mjs"),
            "--tools",
            str(tools),
            "--rounds",
            str(rounds),
            *args,
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    found = {}
    for line in out.splitlines():
        row = json.loads(line)
        variant = row["b"].removeprefix("desk__").removesuffix(".png")
        found[variant] = (row["wall_ms"], row["cpu_ms"], row["count"])
    return found


def odiff_once(odiff: Path, a: Path, b: Path) -> tuple[float, float]:
    """The odiff CLI on two files once: the child's wall and user+system CPU ms."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([str(odiff), str(a), str(b)], capture_output=True, check=False)
    elapsed = (time.perf_counter() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return elapsed, (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000


def odiff_time(odiff: Path, a: Path, b: Path, rounds: int) -> Timing:
    """The odiff CLI on two files, ``rounds`` times after one that warms the page cache
    and the binary."""
    odiff_once(odiff, a, b)
    runs = [odiff_once(odiff, a, b) for _ in range(rounds)]
    return Timing([w for w, _ in runs], [c for _, c in runs])


def _verdict(value: float, target: tuple[str, float] | None, anchor: float | None) -> str:
    if target is None:
        return "-"
    kind, limit = target
    if kind == "ms":
        return f"≤ {limit:g} ms: {'ok' if value <= limit else 'MISSED'}"
    if anchor is None:
        return f"≤ {limit:g}× anchor: (no anchor)"
    return f"≤ {limit:g}× anchor: {'ok' if value <= limit * anchor else 'MISSED'}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", type=Path, help="npm folder with pixelmatch@7, pngjs, odiff-bin")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    corpus: Path = args.corpus
    if not (corpus / "desk__base.png").is_file():
        sys.exit(f"corpus not found: {corpus} (give --corpus)")
    tools: Path | None = args.tools
    odiff = None
    if tools is not None:
        for candidate in [
            *sorted((tools / "node_modules" / "@odiff").glob("*/odiff")),
            tools / "node_modules" / "odiff-bin" / "bin" / "odiff",
        ]:
            if candidate.is_file() and os.access(candidate, os.X_OK):
                odiff = candidate
                break
    have_pm = tools is not None and (tools / "node_modules" / "pixelmatch").is_dir()
    notes = []
    if not have_pm:
        notes.append("pixelmatch columns empty: no --tools folder with pixelmatch@7 and pngjs")
    if odiff is None:
        notes.append("odiff columns empty: no odiff binary under --tools (npm install odiff-bin)")

    print(f"machine before: {_load()}")
    base_file = corpus / "desk__base.png"
    base_bytes = base_file.read_bytes()
    base = decode(base_bytes)
    rounds = args.rounds

    # 1. identical bytes
    same = (corpus / "desk__identical.png").read_bytes()
    t = measure(lambda _: diff_png(base_bytes, same), rounds * 4)
    od = odiff_time(odiff, base_file, corpus / "desk__identical.png", rounds) if odiff else None
    rows = [
        [
            "identical bytes",
            *t.cells(3)[0:1],
            t.cells(3)[2],
            f"{od.wall_median:.1f}" if od else "",
            f"{t.wall_median / od.wall_median:.3f}" if od else "",
            _verdict(t.wall_median, ("ms", 0.5), None),
        ]
    ]
    table(
        f"Tier 1, byte-identical files, desk 1440×900 ({ENGINE}; {rounds * 4} rounds)",
        ["pair", "ours wall ms", "ours cpu ms", "odiff CLI wall ms", "ours/odiff", "target"],
        rows,
    )

    # 2. decoded pixels, beside pixelmatch on the same decoded pixels. In BLOCKS
    # blocks, pixelmatch's rounds then ours, so that a burst of load on the shared
    # machine falls on both sides of the ratio.
    variants = [v for v, _, _ in DECODED]
    others = {v: decode((corpus / f"desk__{v}.png").read_bytes()) for v in variants}
    pm_runs: dict[str, tuple[list[float], list[float], int]] = {}
    ours_runs: dict[str, tuple[list[float], list[float]]] = {v: ([], []) for v in variants}
    for _ in range(BLOCKS):
        if have_pm and tools:
            block = pixelmatch_times(tools, corpus, variants, max(1, rounds // BLOCKS))
            for v, (walls, cpus, count) in block.items():
                pm_runs.setdefault(v, ([], [], count))
                pm_runs[v][0].extend(walls)
                pm_runs[v][1].extend(cpus)
        for v in variants:
            n = rounds if v not in ("scroll40", "theme") else max(3, rounds // 3)
            t = measure(lambda _, o=others[v]: diff_pixels(base, o), max(1, n // BLOCKS))
            ours_runs[v][0].extend(t.wall)
            ours_runs[v][1].extend(t.cpu)
    pm = {v: (_ms(w), _ms(c), count) for v, (w, c, count) in pm_runs.items()}
    rows = []
    goals: list[list[str]] = []
    for variant, what, target in DECODED:
        other = others[variant]
        result = diff_pixels(base, other)
        n = rounds if variant not in ("scroll40", "theme") else max(3, rounds // 3)
        t = Timing(*ours_runs[variant])
        masks = rd._mostly_different(base.words, other.words, *base.size)
        index_way = ""
        if masks:
            with mock.patch.object(rd, "MASK_SHARE", 2.0):  # no pair reaches it
                index_way = f"{measure(lambda _, o=other: diff_pixels(base, o), n).cpu_median:.2f}"
        anchor = pm.get(variant)
        if target and target[0] == "x":
            goals.append(_goal(f"{variant}, decoded pixels", "pixelmatch", t, anchor, target))
        rows.append(
            [
                variant,
                what,
                "masks" if masks else "index",
                f"{result.changed_pixels}",
                f"{anchor[2]}" if anchor else "",
                f"{t.wall_median:.2f}",
                f"{t.cpu_median:.2f}",
                index_way,
                f"{anchor[0]:.2f}" if anchor else "",
                f"{anchor[1]:.2f}" if anchor else "",
                f"{t.wall_median / anchor[0]:.2f}" if anchor else "",
                f"{t.cpu_median / anchor[1]:.2f}" if anchor else "",
                f"{len(result.boxes)}",
                f"{result.share:.1%}",
                _verdict(t.wall_median, target, anchor[0] if anchor else None),
            ]
        )
    table(
        f"Tiers 3–4 on decoded pixels, desk 1440×900 ({ENGINE}; medians of {rounds} rounds, "
        "3+ for the largest changes)",
        [
            "variant",
            "what",
            "way",
            "count",
            "pm count",
            "ours wall ms",
            "ours cpu ms",
            "index way cpu ms",
            "pm wall ms",
            "pm cpu ms",
            "ours/pm",
            "cpu ours/pm",
            "boxes",
            "share",
            "target",
        ],
        rows,
    )

    # 3. from two PNG files, decoding included, beside the odiff CLI
    rows = []
    for variant in FILES:
        path = corpus / f"desk__{variant}.png"
        # Every pair the full rounds: the ratio to odiff is the target here, and on
        # a shared machine a median of a few rounds swings past it either way.
        n = rounds
        # odiff's rounds alternate with ours (one ahead of each), so a burst of load
        # on the shared machine falls on both sides of the ratio.
        od_runs: list[tuple[float, float]] = []
        if odiff:
            odiff_once(odiff, base_file, path)  # warm the page cache and the binary
        t = measure(
            lambda _, p=path: diff_png(base_file.read_bytes(), p.read_bytes()),
            n,
            before=(lambda p=path, o=od_runs: o.append(odiff_once(odiff, base_file, p)))
            if odiff
            else None,
        )
        od = Timing([w for w, _ in od_runs], [c for _, c in od_runs]) if odiff else None
        rows.append(
            [
                variant,
                f"{t.wall_median:.1f}",
                f"{t.cpu_median:.1f}",
                f"{od.wall_median:.1f}" if od else "",
                f"{od.cpu_median:.1f}" if od else "",
                f"{t.wall_median / od.wall_median:.2f}" if od else "",
                f"{t.cpu_median / od.cpu_median:.2f}" if od else "",
                _verdict(t.wall_median, FILE_TARGET, od.wall_median if od else None),
            ]
        )
        if variant != "identical":  # answered from the bytes: far under, and no ratio to watch
            anchor = (od.wall_median, od.cpu_median) if od else None
            goals.append(_goal(f"{variant}, files", "odiff CLI", t, anchor, FILE_TARGET))
    table(
        "From two PNG files, decoding included, desk 1440×900 (ours: read + diff_png in this "
        "process, two decodes side by side; odiff: its CLI, a process per pair)",
        [
            "variant",
            "ours wall ms",
            "ours cpu ms",
            "odiff wall ms",
            "odiff cpu ms",
            "ours/odiff",
            "cpu ours/odiff",
            "target",
        ],
        rows,
    )
    table(
        "Issue 34's goals: ours ÷ anchor in this run (medians; the verdict is on wall time)",
        ["pair", "anchor", "wall ours/anchor", "cpu ours/anchor", "target", "verdict"],
        goals,
    )
    print(f"machine after: {_load()}")
    for note in notes:
        print(f"note: {note}")


def _goal(
    pair: str,
    anchor_name: str,
    ours: Timing,
    anchor: tuple[float, ...] | None,
    target: tuple[str, float],
) -> list[str]:
    """A row of the goals table: ours over the anchor's (wall, CPU) medians."""
    if anchor is None:
        return [pair, anchor_name, "", "", f"≤ {target[1]:g}×", "(no anchor)"]
    wall, cpu = ours.wall_median / anchor[0], ours.cpu_median / anchor[1]
    verdict = "ok" if wall <= target[1] else "MISSED"
    return [pair, anchor_name, f"{wall:.2f}", f"{cpu:.2f}", f"≤ {target[1]:g}×", verdict]


if __name__ == "__main__":
    main()
