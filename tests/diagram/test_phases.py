"""The layout phases on their own: ordering, track ordering, component packing."""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from layoutkit.diagram import lay_out, layered, ordering, placement
from layoutkit.diagram.findings import composition_findings
from layoutkit.diagram.placement import _order_tracks


def _hierarchy(n: int, edges: list[tuple[int, int]]) -> layered.Hierarchy:
    nodes = [f"v{i}" for i in range(n)]
    pairs = [(f"v{a}", f"v{b}") for a, b in edges]
    g = layered.LayoutGraph(
        nodes=nodes, w=dict.fromkeys(nodes, 40.0), h=dict.fromkeys(nodes, 20.0), edges=pairs
    )
    rev = layered.break_cycles(nodes, pairs)
    arcs = [((b, a, 1) if k in rev else (a, b, 1)) for k, (a, b) in enumerate(pairs) if a != b]
    layer = layered.assign_layers(nodes, arcs)
    return layered.insert_dummies(g, layer, rev, dict.fromkeys(nodes, 0))


def _crossings(h: layered.Hierarchy, layers: list[list[int]]) -> int:
    pos = [0] * len(h.items)
    for layer in layers:
        for p, i in enumerate(layer):
            pos[i] = p
    down: list[list[int]] = [[] for _ in h.items]
    for a, b, _ in h.segments:
        down[a].append(b)
    return ordering.layer_crossings(layers, pos, down)


@st.composite
def dags(draw: st.DrawFn) -> tuple[int, list[tuple[int, int]]]:
    n = draw(st.integers(3, 18))
    pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=3 * n))
    return n, [(min(a, b), max(a, b)) for a, b in pairs if a != b]


@settings(max_examples=60, deadline=None)
@given(dags())
def test_ordering_is_a_permutation_no_worse_than_its_depth_first_start(
    case: tuple[int, list[tuple[int, int]]],
) -> None:
    n, edges = case
    h = _hierarchy(n, edges)
    best = ordering.order_layers(h, {})
    assert [sorted(layer) for layer in best] == [sorted(layer) for layer in h.layers]
    start = ordering._Orderer(h, {}).dfs_start(True)
    assert _crossings(h, best) <= _crossings(h, start)
    assert ordering.order_layers(h, {}) == best


def test_cycle_breaking_searches_from_the_sources_and_reverses_every_parallel_back_edge() -> None:
    # "a" is the only source although it comes last: the search starts there, reaches
    # c through b, and both copies of c -> b close the cycle. Starting at "c" instead
    # would reverse b -> c. Self-loops are never reversed.
    edges = [("a", "b"), ("b", "c"), ("c", "b"), ("c", "b"), ("a", "a")]
    assert layered.break_cycles(["c", "b", "a"], edges) == {2, 3}
    # With no source at all, the first node in the given order starts.
    assert layered.break_cycles(["y", "x"], [("x", "y"), ("y", "x")]) == {0}


def _networkx_back_edges(nodes: list[str], edges: list[tuple[str, str]]) -> set[int]:
    """The back edges as networkx's depth-first search labels them (the reference)."""
    targets = {b for a, b in edges if a != b}
    graph = nx.DiGraph()
    graph.add_nodes_from([v for v in nodes if v not in targets])
    graph.add_nodes_from(nodes)
    graph.add_edges_from((a, b) for a, b in edges if a != b)
    open_: set[str] = set()
    back: set[tuple[str, str]] = set()
    for u, v, kind in nx.dfs_labeled_edges(graph):
        if kind == "forward":
            open_.add(v)
        elif kind == "reverse":
            open_.discard(v)
        elif kind == "nontree" and v in open_:
            back.add((u, v))
    return {k for k, pair in enumerate(edges) if pair in back}


@settings(max_examples=300, deadline=None)
@given(
    st.integers(1, 12).flatmap(
        lambda n: st.tuples(
            st.permutations([f"v{i}" for i in range(n)]),
            st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=3 * n),
        )
    )
)
def test_depth_first_back_edges_are_networkxs(case: tuple) -> None:
    nodes, pairs = case
    edges = [(f"v{a}", f"v{b}") for a, b in pairs]
    assert layered._dfs_back_edges(list(nodes), edges) == _networkx_back_edges(list(nodes), edges)


@settings(max_examples=300, deadline=None)
@given(
    st.integers(1, 12).flatmap(
        lambda n: st.tuples(
            st.permutations([f"v{i}" for i in range(n)]),
            st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=3 * n),
        )
    )
)
def test_every_cycle_choice_leaves_the_edges_acyclic(case: tuple) -> None:
    """The layering breaks cycles again only for the arcs a group adds: with each of
    ``cycle_choices``'s choices reversed, the edges (self-loops aside, which the
    engine keeps apart) have no back edge left, so a second search would drop none."""
    nodes, pairs = case
    edges = [(f"v{a}", f"v{b}") for a, b in pairs if a != b]
    for rev in layered.cycle_choices(list(nodes), edges):
        turned = [((b, a) if k in rev else (a, b)) for k, (a, b) in enumerate(edges)]
        assert layered.break_cycles(list(nodes), turned) == set()


def test_longest_path_layers_follow_the_longest_chain() -> None:
    arcs = [("a", "b", 1), ("b", "c", 2), ("a", "c", 1), ("a", "b", 2)]
    assert layered._longest_path(["c", "b", "a", "d"], arcs) == {"a": 0, "b": 2, "c": 4, "d": 0}


def test_ordering_undoes_a_crossing_that_a_naive_order_makes() -> None:
    # a->d, b->c with a, b and c, d in input order: the naive order crosses once.
    h = _hierarchy(4, [(0, 3), (1, 2)])
    assert _crossings(h, h.layers) == 1
    assert _crossings(h, ordering.order_layers(h, {})) == 0


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 30), st.randoms(use_true_random=False))
def test_trees_are_drawn_without_crossings(n: int, rnd) -> None:
    edges = [{"from": f"n{rnd.randrange(i)}", "to": f"n{i}"} for i in range(1, n)]
    payload = {
        "title": "tree",
        "nodes": [{"id": f"n{i}", "title": f"N{i}"} for i in range(n)],
        "edges": edges,
    }
    assert lay_out(payload)["metrics"]["crossings"] == 0


def _track_cost(order: list[int], ends: dict[int, tuple[float, float]]) -> int:
    """Meeting points of the drawn segments for a top-to-bottom track order."""
    total = 0
    for i, j in itertools.combinations(order, 2):  # i above j
        (a1, b1), (a2, b2) = ends[i], ends[j]
        total += min(a1, b1) <= a2 <= max(a1, b1)
        total += min(a2, b2) <= b1 <= max(a2, b2)
    return total


def test_track_order_avoids_a_crossing_between_two_jogs() -> None:
    # Both jog right; drawing the later-starting one above keeps them apart.
    ends = {0: (0.0, 50.0), 1: (10.0, 100.0)}
    order = _order_tracks([0, 1], ends, [(0, 1), (2, 3)])
    assert order == [1, 0]
    assert _track_cost(order, ends) == 0


def test_track_order_counts_edges_that_share_an_end_node_only_to_break_ties() -> None:
    ends = {0: (0.0, 50.0), 1: (10.0, 100.0)}
    # Same source node: alone, the order where they do not cross (1 above 0) wins.
    assert _order_tracks([0, 1], ends, [(0, 1), (0, 3)]) == [1, 0]


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 20), st.integers(0, 20)).filter(lambda t: t[0] != t[1]),
        min_size=2,
        max_size=12,
    )
)
def test_track_order_is_no_worse_than_left_to_right(spans: list[tuple[int, int]]) -> None:
    ends = {s: (float(a * 10), float(b * 10)) for s, (a, b) in enumerate(spans)}
    segs = sorted(ends, key=lambda s: (min(ends[s]), s))
    nodes = [(2 * s, 2 * s + 1) for s in segs]
    order = _order_tracks(segs, ends, nodes)
    assert sorted(order) == sorted(segs)
    assert _track_cost(order, ends) <= _track_cost(segs, ends)


def test_two_segment_gaps_take_the_order_sifting_gives() -> None:
    """A gap of two bending segments is ordered without sifting: every pair of spans
    on a small grid, sharing an end node or not, gets the order the sifting gives."""
    spots = [0.0, 10.0, 20.0, 30.0]
    for a0, b0, a1, b1 in itertools.product(spots, repeat=4):
        if a0 == b0 or a1 == b1:
            continue
        ends = {0: (a0, b0), 1: (a1, b1)}
        for nodes in ([(0, 1), (2, 3)], [(0, 1), (0, 3)], [(0, 1), (2, 1)]):
            small = placement._order_small_gap([0, 1], ends, nodes, 0.5, 8)
            with pytest.MonkeyPatch.context() as m:
                m.setattr(placement, "SMALL_GAP", 0)
                assert small == _order_tracks([0, 1], ends, nodes, 0.5, 8)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 12), st.integers(0, 12), st.integers(0, 5), st.integers(0, 5)),
        min_size=2,
        max_size=placement.SMALL_GAP,
    ),
    st.sampled_from([0, 8]),
)
def test_small_gaps_get_the_numpy_paths_order_and_tracks(
    spans: list[tuple[int, int, int, int]], rounds: int
) -> None:
    # Shared end nodes (few node ids) and touching ends (coarse positions) included.
    ends = {s: (float(a * 10), float(b * 10)) for s, (a, b, _, _) in enumerate(spans)}
    segs = sorted(ends, key=lambda s: (min(ends[s]), s))
    nodes = [(spans[s][2], 6 + spans[s][3]) for s in segs]
    small = placement._order_small_gap(segs, ends, nodes, 0.5, rounds)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(placement, "SMALL_GAP", 0)
        assert small == _order_tracks(segs, ends, nodes, 0.5, rounds)
    track: dict[int, int] = {}
    count = placement._pack_small(small, ends, 5.0, track)
    los = [min(ends[s]) - 5.0 for s in small]
    his = [max(ends[s]) + 5.0 for s in small]
    for p, s in enumerate(small):
        below = [track[small[q]] for q in range(p) if los[q] < his[p] and los[p] < his[q]]
        assert track[s] == (max(below) + 1 if below else 0)
    assert count == max(track.values()) + 1


def test_track_plans_of_corpus_hierarchies_match_the_numpy_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    plans: list[tuple] = []
    real = placement.plan_tracks

    def spy(*args, **kw):  # type: ignore[no-untyped-def]
        out = real(*args, **kw)
        with monkeypatch.context() as m:
            m.setattr(placement, "SMALL_GAP", 0)
            plans.append((out, real(*args, **kw)))
        return out

    monkeypatch.setattr(placement, "plan_tracks", spy)
    for n in (6, 9, 14):
        lay_out(_components_payload(1) | _dense_payload(n))
    assert plans and all(small == numpy_path for small, numpy_path in plans)


def _dense_payload(n: int) -> dict:
    ids = [f"v{i}" for i in range(n)]
    edges = [
        {"from": ids[i], "to": ids[j], **({"label": "x"} if (i + j) % 5 == 0 else {})}
        for i in range(n)
        for j in range(i + 1, n)
        if (i * 7 + j * 3) % 4 == 0
    ]
    return {"nodes": [{"id": v, "title": v} for v in ids], "edges": edges}


def _components_payload(count: int) -> dict:
    nodes, edges = [], []
    for c in range(count):
        nodes += [{"id": f"a{c}", "title": f"A{c}"}, {"id": f"b{c}", "title": f"B{c}"}]
        edges.append({"from": f"a{c}", "to": f"b{c}"})
    return {"title": "many", "nodes": nodes, "edges": edges}


def test_many_components_are_packed_into_rows() -> None:
    geo = lay_out(_components_payload(12))["geo"]
    assert composition_findings(geo) == []
    tops = sorted({geo["nodes"][f"a{c}"]["y"] for c in range(12)})
    assert len(tops) > 1  # more than one shelf
    assert geo["width"] / geo["height"] < 4  # not one long strip


def test_packed_components_keep_their_own_edges_attached() -> None:
    geo = lay_out(_components_payload(7))["geo"]
    for e in geo["edges"]:
        a, b = geo["nodes"][e["from"]], geo["nodes"][e["to"]]
        (x0, y0), (x1, y1) = e["points"][0], e["points"][-1]
        assert np.isclose(y0, a["y"] + a["h"]) and a["x"] <= x0 <= a["x"] + a["w"]
        assert np.isclose(y1, b["y"]) and b["x"] <= x1 <= b["x"] + b["w"]


def test_components_are_packed_by_the_board_shelf_packer() -> None:
    # One tall chain and six short pairs: the board's shelf packer stacks the short
    # components in sub-columns beside the tall one, three to a column, where plain
    # rows would leave them in one long strip.
    payload = _components_payload(6)
    payload["nodes"] += [{"id": f"t{i}", "title": f"T{i}"} for i in range(7)]
    payload["edges"] += [{"from": f"t{i}", "to": f"t{i + 1}"} for i in range(6)]
    geo = lay_out(payload)["geo"]
    assert composition_findings(geo) == []
    columns: dict[float, list[float]] = {}
    for c in range(6):
        columns.setdefault(geo["nodes"][f"a{c}"]["x"], []).append(geo["nodes"][f"a{c}"]["y"])
    assert [len(ys) for ys in columns.values()] == [3, 3]
    tall = [geo["nodes"][f"t{i}"] for i in (0, 6)]
    assert all(
        tall[0]["y"] <= y < tall[1]["y"] + tall[1]["h"] for ys in columns.values() for y in ys
    )


def test_lines_trading_columns_are_parted_to_cross_once() -> None:
    from layoutkit.diagram.layered import Hierarchy, Item
    from layoutkit.diagram.placement import Placed, straighten

    def item(kind: str, name: str, layer: int) -> Item:
        return Item(kind, name, layer, 40.0 if kind == "node" else 0.0, 20.0, ())

    # Edge 0: n0 -> a1 -> a2 -> a3 -> n1, edge 1: m0 -> b1 -> b2 -> b3 -> m1.
    items = [item("node", "n0", 0), item("node", "m0", 0)]
    for layer in (1, 2, 3):
        items += [item("dummy", "0", layer), item("dummy", "1", layer)]
    items += [item("node", "n1", 4), item("node", "m1", 4)]
    chains = {0: [0, 2, 4, 6, 8], 1: [1, 3, 5, 7, 9]}
    segments = [(c[j], c[j + 1], k) for k, c in chains.items() for j in range(4)]
    h = Hierarchy(items, [[0, 1], [2, 3], [4, 5], [6, 7], [8, 9]], segments, chains, set())
    # Between layers 1 and 2 the lines trade the columns 86 and 100.
    x = [0.0, 300.0, 86.0, 100.0, 100.0, 86.0, 100.0, 86.0, 0.0, 300.0]
    ends = straighten(h, Placed(x, {}, {}, {}))
    gap = [s for s, (a, _b, _k) in enumerate(segments) if items[a].layer == 1]
    (a0, b0), (a1, b1) = ends[gap[0]], ends[gap[1]]
    assert not (b0 == a1 and a0 == b1)
    order = _order_tracks(gap, ends, [(0, 8), (1, 9)])
    assert _track_cost(order, ends) == 1
    # The shifted run stays straight and every jog left is at least a pixel wide.
    for s in ends:
        xa, xb = ends[s]
        assert xa == xb or abs(xa - xb) >= 1.0


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.lists(st.tuples(st.integers(0, 3), st.integers(4, 7)), max_size=9),
        min_size=1,
        max_size=2,
    )
)
def test_forced_crossings_never_exceed_the_fewest_any_order_draws(
    gaps: list[list[tuple[int, int]]],
) -> None:
    # Two gaps of the layers {0..3} -> {4..7} (the second reusing the same items is
    # fine: each gap is counted alone). Parallel edges included.
    floor = ordering._forced_crossings(gaps)
    fewest = None
    for top in itertools.permutations(range(4)):
        for bottom in itertools.permutations(range(4, 8)):
            pos = {**{i: p for p, i in enumerate(top)}, **{i: p for p, i in enumerate(bottom)}}
            total = sum(
                ordering.bilayer_crossings([(pos[a], pos[b]) for a, b in segs]) for segs in gaps
            )
            fewest = total if fewest is None else min(fewest, total)
    assert floor <= fewest
    # two items both linked to the same two below always cross once
    assert ordering._forced_crossings([[(0, 4), (0, 5), (1, 4), (1, 5)]]) == 1


@st.composite
def layered_graphs(draw: st.DrawFn) -> tuple[list[list[int]], list[list[int]]]:
    """Up to four layers of one to four items, segments between neighbouring layers
    (parallel ones included): the layers and each item's items above."""
    sizes = draw(st.lists(st.integers(1, 4), min_size=2, max_size=4))
    layers, first = [], 0
    for s in sizes:
        layers.append(list(range(first, first + s)))
        first += s
    up: list[list[int]] = [[] for _ in range(first)]
    for upper, lower in itertools.pairwise(layers):
        for a, b in draw(st.lists(st.tuples(st.sampled_from(upper), st.sampled_from(lower)))):
            up[b].append(a)
    return layers, up


@settings(max_examples=150, deadline=None)
@given(layered_graphs())
def test_the_ordering_proof_answers_as_trying_every_order(
    case: tuple[list[list[int]], list[list[int]]],
) -> None:
    """``_fewer_exist`` (which lets ordering skip its later starts) says whether some
    order crosses fewer than the target, as trying every order of every layer does."""
    layers, up = case
    segs = [(a, b) for b, ups in enumerate(up) for a in ups]
    gaps = [[(a, b) for a, b in segs if a in upper] for upper in layers[:-1]]
    floors = [ordering._forced_crossings([g]) for g in gaps]
    fewest = None
    for orders in itertools.product(*(itertools.permutations(layer) for layer in layers)):
        pos = {i: p for order in orders for p, i in enumerate(order)}
        total = sum(ordering.bilayer_crossings([(pos[a], pos[b]) for a, b in g]) for g in gaps)
        fewest = total if fewest is None else min(fewest, total)
    assert fewest is not None
    for target in range(fewest + 3):
        found = ordering._fewer_exist(layers, up, floors, target, 10**6)
        assert found == (fewest < target)


def test_the_ordering_proof_leaves_every_drawing_as_it_was(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where the proof shows the first starts' best can't be beaten, the later starts
    are skipped; they could only have tied, and a tie keeps the first, so the drawing
    is the one every start gives. The labelled corpus graphs and generated ones, with
    and without the proof."""
    import json
    from pathlib import Path

    corpus = Path(__file__).resolve().parents[2] / "benches" / "corpus" / "labelled"
    payloads = []
    for p in sorted(corpus.glob("lab_n1*.json")):
        g = json.loads(p.read_text())
        payloads.append(
            {
                "title": g["name"],
                "dir": g["dir"],
                "nodes": [{"id": n["id"], "title": n.get("text", "")} for n in g["nodes"]],
                "edges": [{"from": e["from"], "to": e["to"]} for e in g["edges"]],
            }
        )
    rnd = np.random.default_rng(3)
    for k in range(40):
        n = int(rnd.integers(8, 14))
        edges = {(int(a), int(b)) for a, b in rnd.integers(0, n, size=(int(1.5 * n), 2)) if a != b}
        payloads.append(
            {
                "title": f"random {k}",
                "nodes": [{"id": f"v{i}", "title": f"v{i}"} for i in range(n)],
                "edges": [{"from": f"v{a}", "to": f"v{b}"} for a, b in sorted(edges)],
            }
        )
    answers: list[bool | None] = []
    real = ordering._fewer_exist

    def spy(*args: object) -> bool | None:
        found = real(*args)  # type: ignore[arg-type]
        answers.append(found)
        return found

    monkeypatch.setattr(ordering, "_fewer_exist", spy)
    with_proof = [lay_out(p) for p in payloads]
    assert False in answers  # the proof did cut some orderings short
    monkeypatch.setattr(ordering, "PROOF_AFTER", 10**9)
    assert [lay_out(p) for p in payloads] == with_proof


def _two_pass_simplify(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """The route simplification as it read before it became one pass: repeats dropped,
    then middle points of straight runs."""
    pts: list[tuple[float, float]] = []
    for p in points:
        if pts and abs(pts[-1][0] - p[0]) < 1e-6 and abs(pts[-1][1] - p[1]) < 1e-6:
            continue
        pts.append(p)
    out: list[tuple[float, float]] = []
    for p in pts:
        if len(out) >= 2:
            a, b = out[-2], out[-1]
            if (abs(a[0] - b[0]) < 1e-6 and abs(b[0] - p[0]) < 1e-6) or (
                abs(a[1] - b[1]) < 1e-6 and abs(b[1] - p[1]) < 1e-6
            ):
                out[-1] = p
                continue
        out.append(p)
    return out


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from([0.0, 1.0, 1.0000001, 2.0]), st.sampled_from([0.0, 3.0, 3.0000004])
        ),
        max_size=8,
    )
)
def test_route_simplification_in_one_pass_is_the_two_pass_one(
    points: list[tuple[float, float]],
) -> None:
    from layoutkit.diagram import engine

    expected = [[engine._r(x), engine._r(y)] for x, y in _two_pass_simplify(points)]
    assert [[engine._r(x), engine._r(y)] for x, y in engine._kept_points(points)] == expected


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from([0.0, -0.0, 1.25, 2.5, 1.0000001, 3.337]),
            st.sampled_from([0.0, 4.75, 3.0000004, 7.125]),
        ),
        max_size=6,
    ),
    st.sampled_from([16.0, 16.5, 17.3]),
    st.sampled_from([0.0, 42.25, 40.1]),
    st.booleans(),
)
def test_placing_a_route_is_placing_each_rounded_point(
    points: list[tuple[float, float]], dx: float, off_y: float, lr: bool
) -> None:
    """The skip of ``_r`` for quarter pixels changes nothing: each point is rounded in the
    scene's frame, then placed (shifted, turned, rounded again)."""
    from layoutkit.diagram import engine

    put = engine._Placer(dx, 16.0, off_y, lr)
    expected = [put.point(engine._r(x), engine._r(y)) for x, y in points]
    placed = put.route(points)
    assert placed == expected
    assert [[str(v) for v in p] for p in placed] == [[str(v) for v in p] for p in expected]


@settings(max_examples=2000, deadline=None)
@given(
    st.one_of(
        st.floats(allow_nan=True, allow_infinity=True),
        st.integers(-(2**60), 2**60).map(lambda k: k / 4),
        st.integers(-(10**7), 10**7).map(lambda k: k / 100),
        st.sampled_from([-0.0, 0.0, 0.125, 2.675, 1e300, -1e-300]),
    )
)
def test_coordinate_rounding_is_pythons_round_to_two_places(v: float) -> None:
    """``engine._r`` skips ``round`` for quarter multiples; the answer is the same."""
    import math

    from layoutkit.diagram import engine

    got, want = engine._r(v), round(float(v), 2) + 0.0
    assert (math.isnan(got) and math.isnan(want)) or (got == want and str(got) == str(want))
