"""The large-graph path of the layout (hierarchies over ``LayoutOptions.exact_items``)
and the metrics that must stay cheap on big drawings."""

from __future__ import annotations

import itertools
import random

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from layoutkit.diagram import LayoutOptions, findings, lay_out, layered, ordering, placement
from layoutkit.diagram.findings import (
    _overlap,
    _overlapping_pairs,
    composition_findings,
    count_crossings_orth,
)
from layoutkit.diagram.placement import _order_tracks, _project

# Every hierarchy takes the large-graph path under these options.
LARGE = LayoutOptions(exact_items=0, order_items=0, placement_items=0)


def _random_digraph(n: int, m: int, seed: int) -> tuple[list[str], list[tuple[str, str]]]:
    rng = random.Random(seed)
    nodes = [f"v{i}" for i in range(n)]
    edges: list[tuple[str, str]] = []
    while len(edges) < m:
        a, b = rng.sample(nodes, 2)
        if (a, b) not in edges:
            edges.append((a, b))
    return nodes, edges


def _acyclic_after(nodes: list[str], edges: list[tuple[str, str]], rev: set[int]) -> bool:
    g = nx.DiGraph()
    g.add_nodes_from(nodes)
    g.add_edges_from((b, a) if k in rev else (a, b) for k, (a, b) in enumerate(edges) if a != b)
    return nx.is_directed_acyclic_graph(g)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 30), st.integers(0, 90), st.integers(0, 10_000))
def test_greedy_back_edges_leave_no_cycle(n: int, m: int, seed: int) -> None:
    nodes, edges = _random_digraph(n, min(m, n * (n - 1)), seed)
    edges += [(nodes[0], nodes[0]), *edges[:3]]  # a self-loop and parallel copies
    rev = layered._greedy_back_edges(nodes, edges)
    assert _acyclic_after(nodes, edges, rev)
    assert all(edges[k][0] != edges[k][1] for k in rev)
    # parallel copies are reversed together
    for j, k in itertools.combinations(range(len(edges)), 2):
        if edges[j] == edges[k]:
            assert (j in rev) == (k in rev)


def test_dense_graph_gets_the_smaller_hierarchy() -> None:
    nodes, edges = _random_digraph(100, 300, 1)
    dfs = layered._dfs_back_edges(nodes, edges)
    chosen = layered.break_cycles(nodes, edges)
    assert chosen != dfs
    assert _acyclic_after(nodes, edges, chosen)
    assert layered._hierarchy_estimate(nodes, edges, chosen) < layered._hierarchy_estimate(
        nodes, edges, dfs
    )
    # below the threshold the depth-first choice stands, as it always did
    big = LayoutOptions(exact_items=10**9)
    assert layered.break_cycles(nodes, edges, big) == dfs


@settings(deadline=None)
@given(
    st.lists(
        st.tuples(st.floats(-50, 50), st.floats(0.1, 10), st.floats(0, 20)), min_size=1, max_size=12
    )
)
def test_project_is_the_closest_feasible_row(rows: list[tuple[float, float, float]]) -> None:
    want = [r[0] for r in rows]
    weight = [r[1] for r in rows]
    gaps = [r[2] for r in rows[1:]]
    got = _project(want, weight, gaps)
    for p in range(1, len(got)):
        assert got[p] - got[p - 1] >= gaps[p - 1] - 1e-6
    # no single feasible shift of the whole row or of its tail does better
    cost = sum(w * (g - v) ** 2 for g, v, w in zip(got, want, weight, strict=True))
    for cut in range(len(got)):
        for d in (-0.5, 0.5):
            moved = got[:cut] + [g + d for g in got[cut:]]
            if all(moved[p] - moved[p - 1] >= gaps[p - 1] - 1e-9 for p in range(1, len(moved))):
                worse = sum(w * (g - v) ** 2 for g, v, w in zip(moved, want, weight, strict=True))
                assert worse >= cost - 1e-6


def _grouped_payload(seed: int) -> dict:
    rng = random.Random(seed)
    lanes = [{"label": f"Lane {k}", "nodes": [], "groups": []} for k in range(2)]
    ids = [f"n{i}" for i in range(24)]
    for i, v in enumerate(ids):
        lane = lanes[i % 2]
        node = {"id": v, "title": f"Step {v}"}
        if i % 3 == 0:
            if not lane["groups"]:
                lane["groups"].append({"id": f"g{i % 2}", "title": "Group", "nodes": []})
            lane["groups"][0]["nodes"].append(node)
        else:
            lane["nodes"].append(node)
    edges = []
    for _ in range(60):
        a, b = rng.sample(ids, 2)
        edges.append({"from": a, "to": b, **({"label": "calls"} if rng.random() < 0.2 else {})})
    return {"title": "t", "dir": rng.choice(["TD", "LR"]), "lanes": lanes, "edges": edges}


def _inside(b: dict, f: dict) -> bool:
    return (
        b["x"] >= f["x"] - 0.01
        and b["y"] >= f["y"] - 0.01
        and b["x"] + b["w"] <= f["x"] + f["w"] + 0.01
        and b["y"] + b["h"] <= f["y"] + f["h"] + 0.01
    )


@pytest.mark.parametrize("seed", range(4))
def test_large_path_keeps_frames_and_lanes(seed: int) -> None:
    payload = _grouped_payload(seed)
    geo = lay_out(payload, options=LARGE)["geo"]
    codes = {f["code"] for f in composition_findings(geo)}
    assert "node_overlap" not in codes
    for lane_in, lane_geo in zip(payload["lanes"], geo["lanes"], strict=True):
        members = [n["id"] for n in lane_in["nodes"]]
        members += [n["id"] for g in lane_in["groups"] for n in g["nodes"]]
        assert all(_inside(geo["nodes"][m], lane_geo) for m in members)
        for g in lane_in["groups"]:
            assert all(_inside(geo["nodes"][n["id"]], geo["groups"][g["id"]]) for n in g["nodes"])
    # frames of the two lanes do not overlap
    a, b = geo["lanes"]
    assert not _overlap(
        (a["x"], a["y"], a["x"] + a["w"], a["y"] + a["h"]),
        (b["x"], b["y"], b["x"] + b["w"], b["y"] + b["h"]),
    )


def test_large_path_is_deterministic_and_clean() -> None:
    nodes, edges = _random_digraph(60, 200, 3)
    payload = _payload("dense", nodes, edges)
    first = lay_out(payload, options=LARGE)
    assert lay_out(payload, options=LARGE)["geo"] == first["geo"]
    codes = {f["code"] for f in composition_findings(first["geo"])}
    assert not codes & {"node_overlap", "edge_through_node"}
    for e in first["geo"]["edges"]:  # orthogonal routes
        for p, q in itertools.pairwise(e["points"]):
            assert abs(p[0] - q[0]) < 0.01 or abs(p[1] - q[1]) < 0.01


def _brute_crossings(edges: list[dict]) -> int:
    hs, vs, ends = [], [], []
    for k, e in enumerate(edges):
        ends.append({e["from"].split(".")[0], e["to"].split(".")[0]})
        for p, q in itertools.pairwise(e["points"]):
            if p[1] == q[1] and p[0] != q[0]:
                hs.append((p[1], min(p[0], q[0]), max(p[0], q[0]), k))
            elif p[0] == q[0] and p[1] != q[1]:
                vs.append((p[0], min(p[1], q[1]), max(p[1], q[1]), k))
    seen = set()
    for y, x0, x1, k in hs:
        for x, y0, y1, k2 in vs:
            if k != k2 and x0 <= x <= x1 and y0 <= y <= y1 and not ends[k] & ends[k2]:
                seen.add((min(k, k2), max(k, k2), round(x), round(y)))
    return len(seen)


@st.composite
def orthogonal_edges(draw: st.DrawFn) -> list[dict]:
    out = []
    for k in range(draw(st.integers(0, 8))):
        x, y = draw(st.integers(0, 12)), draw(st.integers(0, 12))
        pts = [[float(x), float(y)]]
        for j in range(draw(st.integers(1, 5))):
            step = draw(st.integers(-6, 6))
            if j % 2:
                y += step
            else:
                x += step
            pts.append([float(x), float(y)])
        ends = draw(st.lists(st.sampled_from("abcdef"), min_size=2, max_size=2))
        out.append({"from": ends[0], "to": f"{ends[1]}.p" if k % 3 else ends[1], "points": pts})
    return out


@settings(max_examples=150, deadline=None)
@given(orthogonal_edges(), st.sampled_from([0, findings.SMALL_DRAWING_POINTS]))
def test_crossing_count_matches_all_pairs(edges: list[dict], small: int) -> None:
    # Both ways of counting: the STRtree (``small`` 0) and the pair loop of small drawings.
    with pytest.MonkeyPatch.context() as m:
        m.setattr(findings, "SMALL_DRAWING_POINTS", small)
        assert count_crossings_orth(edges) == _brute_crossings(edges)


@settings(deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 40), st.integers(0, 40), st.integers(1, 15), st.integers(1, 15)),
        max_size=14,
    )
)
def test_overlapping_pairs_match_all_pairs(boxes: list[tuple[int, int, int, int]]) -> None:
    for small in (0, findings.SMALL_PAIRS):  # the STRtree, and the pair loop of small sets
        with pytest.MonkeyPatch.context() as m:
            m.setattr(findings, "SMALL_PAIRS", small)
            _check_overlapping_pairs(boxes)


def _check_overlapping_pairs(boxes: list[tuple[int, int, int, int]]) -> None:
    rects = [(f"n{i}", (x, y, x + w, y + h)) for i, (x, y, w, h) in enumerate(boxes)]
    by_x = sorted(range(len(rects)), key=lambda i: rects[i][1][0])
    expected = [
        (by_x[a], by_x[b])
        for a, b in itertools.combinations(range(len(by_x)), 2)
        if _overlap(rects[by_x[a]][1], rects[by_x[b]][1])
    ]
    assert _overlapping_pairs(rects, by_x) == expected


@st.composite
def routes_and_boxes(draw: st.DrawFn) -> tuple[list[dict], list[tuple[str, tuple]]]:
    """Orthogonal routes and boxes on a coarse grid, so routes run along borders, stop
    on them and end inside as often as they cross."""
    edges = draw(orthogonal_edges())
    boxes = draw(
        st.lists(
            st.tuples(
                st.integers(-2, 12), st.integers(-2, 12), st.integers(0, 6), st.integers(0, 6)
            ),
            max_size=8,
        )
    )
    rects = [
        (f"n{i}", (float(x), float(y), float(x + w), float(y + h)))
        for i, (x, y, w, h) in enumerate(boxes)
    ]
    for k, e in enumerate(edges):
        e["index"] = k
    return edges, rects


@settings(max_examples=300, deadline=None)
@given(routes_and_boxes())
def test_edges_through_nodes_the_same_without_shapely(case: tuple) -> None:
    edges, rects = case
    by_x = sorted(range(len(rects)), key=lambda i: rects[i][1][0])
    with pytest.MonkeyPatch.context() as m:
        m.setattr(findings, "EPS", 0.0)  # borders on the grid: touching is the hard case
        small = findings._edges_through_nodes(edges, rects, by_x)
        m.setattr(findings, "SMALL_PAIRS", 0)
        assert small == findings._edges_through_nodes(edges, rects, by_x)


def _sparse_flow_with_loops(seed: int = 3) -> tuple[list[str], list[tuple[str, str]]]:
    """A flow of 60 steps with local links and four links back (1.3 edges a node)."""
    rng = random.Random(seed)
    nodes = [f"v{i}" for i in range(60)]
    edges = [(nodes[v - rng.randint(1, min(v, 4))], nodes[v]) for v in range(1, 60)]
    for _ in range(20):
        u = rng.randrange(59)
        v = min(59, u + 1 + int(rng.expovariate(1 / 5)))
        if (nodes[u], nodes[v]) not in edges:
            edges.append((nodes[u], nodes[v]))
    for _ in range(4):
        u, v = sorted(rng.sample(range(60), 2))
        edges.append((nodes[v], nodes[u]))
    return nodes, edges


# Small enough a bound that the 60-node flow's depth-first hierarchy is over it.
SPARSE = LayoutOptions(exact_items=100)


def test_cycle_choices_offer_depth_first_only_on_sparse_graphs() -> None:
    nodes, edges = _sparse_flow_with_loops()
    dfs = layered._dfs_back_edges(nodes, edges)
    greedy = layered._greedy_back_edges(nodes, edges)
    assert layered.cycle_choices(nodes, edges, SPARSE) == [greedy, dfs]
    assert layered.break_cycles(nodes, edges, SPARSE) == greedy
    # beyond its item bound, the depth-first choice is not tried
    tight = LayoutOptions(exact_items=100, dfs_items=100)
    assert layered.cycle_choices(nodes, edges, tight) == [greedy]
    # a dense graph reverses a third of its edges depth-first: greedy alone
    nodes, edges = _random_digraph(100, 300, 1)
    assert layered.cycle_choices(nodes, edges) == [layered.break_cycles(nodes, edges)]


def test_layout_keeps_the_cycle_choice_that_crosses_less(monkeypatch: pytest.MonkeyPatch) -> None:
    nodes, edges = _sparse_flow_with_loops()
    payload = _payload("flow", nodes, edges)
    counted: list[tuple[int, object]] = []
    real_count = ordering.hierarchy_crossings

    def count(h, layers):  # type: ignore[no-untyped-def]
        counted.append((real_count(h, layers), h))
        return counted[-1][0]

    placed: list[object] = []
    real_ports = placement.port_offsets

    def ports(h, *args, **kw):  # type: ignore[no-untyped-def]
        placed.append(h)
        return real_ports(h, *args, **kw)

    monkeypatch.setattr(ordering, "hierarchy_crossings", count)
    monkeypatch.setattr(placement, "port_offsets", ports)
    lay_out(payload, options=SPARSE)
    assert len(counted) == 2 and counted[0][0] != counted[1][0]
    assert placed == [min(counted, key=lambda c: c[0])[1]]
    # the count is the one the ordering minimised: every gap's crossings, pair by pair
    h = placed[0]
    layers = [sorted(layer) for layer in h.layers]  # any order: counted both ways alike
    pos = {i: p for layer in layers for p, i in enumerate(layer)}
    brute = 0
    for (a, b, _), (c, d, _) in itertools.combinations(h.segments, 2):
        if h.items[a].layer == h.items[c].layer and a != c and b != d:
            brute += (pos[a] - pos[c]) * (pos[b] - pos[d]) < 0
    assert real_count(h, layers) == brute


def test_ordering_and_placement_keep_their_own_bounds(monkeypatch: pytest.MonkeyPatch) -> None:
    # Over exact_items but within order_items and placement_items: thorough ordering,
    # the placement LP and sifted tracks, as on the exact path.
    nodes, edges = _random_digraph(30, 60, 5)
    payload = _payload("t", nodes, edges)
    larges: list[bool] = []
    real_run = ordering._Orderer.run

    def run(self):  # type: ignore[no-untyped-def]
        larges.append(self.large)
        return real_run(self)

    def no_sweeps(*args, **kw):  # type: ignore[no-untyped-def]
        raise AssertionError("placed by sweeps")

    monkeypatch.setattr(ordering._Orderer, "run", run)
    monkeypatch.setattr(placement, "_place_by_sweeps", no_sweeps)
    opts = LayoutOptions(exact_items=0, dfs_items=0)
    lay_out(payload, options=opts)
    assert larges and not any(larges)
    # below placement_items' own bound the sweeps do place it, and ordering is bounded
    # below order_items'
    larges.clear()
    with pytest.raises(AssertionError, match="sweeps"):
        lay_out(payload, options=LayoutOptions(exact_items=0, dfs_items=0, placement_items=0))
    lay_out(
        payload,
        options=LayoutOptions(exact_items=0, dfs_items=0, order_items=0, placement_items=10**6),
    )
    assert larges[-1]


def _meets(
    segs: list[int],
    ends: dict[int, tuple[float, float]],
    nodes: dict[int, tuple[int, int]],
    track: dict[int, int],
    touch: float = 0.5,
) -> tuple[int, int]:
    """(meets of edges sharing no end node, meets of the others) for tracks per segment."""
    apart = shared = 0
    for i, j in itertools.combinations(segs, 2):
        if track[i] == track[j]:
            continue
        top, low = (i, j) if track[i] < track[j] else (j, i)
        (a1, b1), (a2, b2) = ends[top], ends[low]
        m = min(a1, b1) - touch <= a2 <= max(a1, b1) + touch
        m += min(a2, b2) - touch <= b1 <= max(a2, b2) + touch
        if set(nodes[i]) & set(nodes[j]):
            shared += m
        else:
            apart += m
    return apart, shared


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 20), st.integers(0, 20), st.integers(0, 5), st.integers(0, 5)),
        min_size=2,
        max_size=30,
    )
)
def test_packing_by_meets_meets_no_more_than_stacking(
    spans: list[tuple[int, int, int, int]],
) -> None:
    # A large gap's tracks (placement._pack_by_meets) against packing each segment
    # below every overlapping one placed before it, in the same order: no more meets
    # (edges sharing no end first), no two overlapping segments on one track, and a
    # gap no deeper.
    ends = {s: (float(a * 10), float(b * 10)) for s, (a, b, _, _) in enumerate(spans) if a != b}
    if len(ends) < 2:
        return
    nodes = {s: (spans[s][2], 6 + spans[s][3]) for s in ends}
    order = _order_tracks(sorted(ends), ends, [nodes[s] for s in sorted(ends)], 0.5, 0)
    stacked: dict[int, int] = {}
    deep = placement._pack_small(order, ends, 5.0, stacked)
    track: dict[int, int] = {}
    count = placement._pack_by_meets(order, ends, [nodes[s] for s in order], 5.0, 0.5, track)
    assert count == max(track.values()) + 1
    for i, j in itertools.combinations(order, 2):
        (a1, b1), (a2, b2) = ends[i], ends[j]
        if min(a1, b1) - 5 < max(a2, b2) + 5 and min(a2, b2) - 5 < max(a1, b1) + 5:
            assert track[i] != track[j]
    assert _meets(order, ends, nodes, track) <= _meets(order, ends, nodes, stacked)
    assert count <= deep


def test_settling_lowers_the_sweeps_cost_and_keeps_the_gaps() -> None:
    # The large path's placement: after the sweeps, _settle only moves an item where its
    # segments' weighted shifts (the LP's objective) and then its jogs go down; every
    # layer keeps its order and gaps, and many long-edge jogs go.
    nodes, edges = _random_digraph(150, 260, 7)
    payload = _payload("t", nodes, edges)
    seen: list[tuple] = []
    real = placement._settle

    def spy(layers, sweeps, sep, x):  # type: ignore[no-untyped-def]
        before = list(x)
        after = real(layers, sweeps, sep, list(x))
        seen.append((layers, sweeps, sep, before, after))
        return after

    with pytest.MonkeyPatch.context() as m:
        m.setattr(placement, "_settle", spy)
        lay_out(payload, options=LARGE)
    ((layers, sweeps, sep, before, after),) = seen

    def cost(x: list[float]) -> tuple[float, int]:
        off = np.abs(np.array(x)[sweeps.b_idx] - np.array(x)[sweeps.a_idx] - sweeps.shift)
        return float((sweeps.wts * off).sum()), int((off >= 1.0).sum())

    (c0, j0), (c1, j1) = cost(before), cost(after)
    assert c1 <= c0 + 1e-6
    assert j1 < j0 * 0.8
    # Looking again only at items next to a move gives what looking at all of them does.
    assert after == _settle_every_item(layers, sweeps, sep, list(before))
    for layer in layers:
        for p, q in itertools.pairwise(layer):
            assert after[q] - after[p] >= sep.pair_gap.get((p, q), 0.0) - 1e-6


def test_sliding_ends_shortens_jogs_and_keeps_each_sides_order() -> None:
    # Above exact_items the free ends slide toward their other ends: the segments' total
    # sideways shift goes down, more of them run straight, and every side keeps the order
    # and spacing of its ends, inside its corners. Below it nothing moves.
    nodes, edges = _random_digraph(120, 200, 11)
    payload = _payload("t", nodes, edges)
    seen: list[tuple] = []
    real = placement.slide_ends

    def spy(h, placed, ports, fixed, opts):  # type: ignore[no-untyped-def]
        out = real(h, placed, ports, fixed, opts)
        seen.append((h, placed, out, opts))
        return out

    def shifts(h, pl) -> tuple[float, int]:  # type: ignore[no-untyped-def]
        d = [
            abs(pl.x[a] + pl.out_off.get(s, 0.0) - pl.x[b] - pl.in_off.get(s, 0.0))
            for s, (a, b, _k) in enumerate(h.segments)
        ]
        return sum(d), sum(v >= 1.0 for v in d)

    with pytest.MonkeyPatch.context() as m:
        m.setattr(placement, "slide_ends", spy)
        lay_out(payload, options=LARGE)
        lay_out(payload)
    (h, before, after, opts), (_, before2, after2, _) = seen
    assert after2 is before2  # the exact path keeps its ends
    (d0, j0), (d1, j1) = shifts(h, before), shifts(h, after)
    assert d1 < d0
    assert j1 < j0
    for upper, table, old in (
        (True, after.out_off, before.out_off),
        (False, after.in_off, before.in_off),
    ):
        sides: dict[int, list[int]] = {}
        for s, (a, b, _k) in enumerate(h.segments):
            sides.setdefault(a if upper else b, []).append(s)
        for i, segs in sides.items():
            it = h.items[i]
            if it.kind != "node":
                continue
            step = min(opts.port_step, it.w / (len(segs) + 1))
            segs.sort(key=lambda s: old.get(s, 0.0))
            offs = [table[s] for s in segs]
            assert all(q - p >= step - 1e-6 for p, q in itertools.pairwise(offs))
            assert all(abs(o) <= it.w / 2 - step + 1e-6 for o in offs)


def _payload(title: str, nodes: list[str], edges: list[tuple[str, str]]) -> dict:
    """A top-down diagram payload of ``nodes`` (titled by their ids) and ``edges``."""
    return {
        "title": title,
        "dir": "TD",
        "nodes": [{"id": v, "title": v} for v in nodes],
        "edges": [{"from": a, "to": b} for a, b in edges],
    }


def _settle_every_item(layers, sweeps, sep, x):  # type: ignore[no-untyped-def]
    """placement._settle as first written: every item looked at in every round."""
    links, gaps = placement.settle_inputs(layers, sweeps, sep, len(x))
    for r in range(placement.SETTLE_ROUNDS):
        moved = False
        for L in range(len(layers)) if r % 2 == 0 else range(len(layers) - 1, -1, -1):
            layer = layers[L]
            for p, i in enumerate(layer):
                if not links[i]:
                    continue
                lo = x[layer[p - 1]] + gaps[L][p - 1] if p else -float("inf")
                hi = x[layer[p + 1]] - gaps[L][p] if p + 1 < len(layer) else float("inf")
                spot = placement._best_spot(links[i], x, x[i], lo, hi)
                moved |= spot != x[i]
                x[i] = spot
        if not moved:
            break
    return x
