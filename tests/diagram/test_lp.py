"""The layout LPs reach the optimum scipy's ``linprog`` reached.

HiGHS called directly (``_lp``) and the network simplex of the layering
(``layered._NetworkSimplex``) are each held to the LP they replace.

Every program the layering and the placement build while laying out the labelled
bench corpus and generated diagrams (groups, lanes, labels, both directions) is
solved both ways: the objective must agree, and with the same HiGHS build
underneath (scipy bundles one) so must the solution, so drawings do not move.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from layoutkit.diagram import _lp, lay_out, layered

CORPUS = Path(__file__).resolve().parents[2] / "benches" / "corpus" / "labelled"


def _payload(g: dict) -> dict:
    """A labelled corpus graph as a caller sends it: titled nodes, labelled edges."""
    return {
        "title": g["name"],
        "dir": g["dir"],
        "nodes": [{"id": n["id"], "title": n.get("text", "")} for n in g["nodes"]],
        "edges": [
            {
                "from": e["from"],
                "to": e["to"],
                **({"label": e["label"]["text"]} if "label" in e else {}),
            }
            for e in g["edges"]
        ],
    }


def _same_build() -> bool:
    import highspy
    from scipy.optimize._highspy import _core as bundled

    def version(m: object) -> tuple[int, int, int]:
        return (m.HIGHS_VERSION_MAJOR, m.HIGHS_VERSION_MINOR, m.HIGHS_VERSION_PATCH)  # type: ignore[attr-defined]

    return version(highspy) == version(bundled)


def _programs(payload: dict, monkeypatch: pytest.MonkeyPatch, **kw: object) -> list[tuple]:
    """The LPs laying ``payload`` out solves, with the answer each got."""
    return _solved(lambda: lay_out(payload, **kw), monkeypatch)


def _solved(work: object, monkeypatch: pytest.MonkeyPatch) -> list[tuple]:
    """The LPs ``work()`` hands to HiGHS, with the answer each got."""
    seen: list[tuple] = []
    real = _lp.minimise

    def spy(cost, rows, cols, vals, rhs, simplex=True):  # type: ignore[no-untyped-def]
        x = real(cost, rows, cols, vals, rhs, simplex)
        seen.append((np.array(cost), list(rows), list(cols), list(vals), list(rhs), simplex, x))
        return x

    with monkeypatch.context() as m:
        m.setattr(_lp, "minimise", spy)
        work()  # type: ignore[operator]
    return seen


def _check(programs: list[tuple]) -> None:
    from scipy.optimize import linprog
    from scipy.sparse import coo_matrix

    exact = _same_build()
    for cost, rows, cols, vals, rhs, simplex, x in programs:
        a = coo_matrix((vals, (rows, cols)), shape=(len(rhs), len(cost))).tocsr()
        method = "highs-ds" if simplex else "highs"
        res = linprog(cost, A_ub=a, b_ub=np.array(rhs), bounds=(0, None), method=method)
        assert (x is not None) == res.success
        if x is None:
            continue
        assert float(cost @ x) == pytest.approx(res.fun, rel=1e-9, abs=1e-9)
        assert np.all(a @ x <= np.array(rhs) + 1e-7) and np.all(x >= -1e-9)
        if exact:
            assert np.array_equal(x, res.x)


@pytest.mark.parametrize(
    "name", ["lab_n10_LR_s0", "lab_n10_TD_s1", "lab_n50_TD_s0", "lab_n100_LR_s1"]
)
def test_corpus_programs_reach_linprogs_optimum(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    payload = _payload(json.loads((CORPUS / f"{name}.json").read_text()))
    programs = _programs(payload, monkeypatch)
    assert programs  # the placement (the layering of a small graph is the network simplex's)
    _check(programs)


def _same_with_presolve(programs: list[tuple]) -> None:
    """Small programs skip HiGHS's presolve (``_lp.PRESOLVE_COLUMNS``): the answer must be
    the one presolve reaches (to rounding noise far below the 0.001 px placement keeps)."""
    for cost, rows, cols, vals, rhs, simplex, x in programs:
        with_presolve = _lp.minimise(cost, rows, cols, vals, rhs, simplex, presolve=True)
        assert (x is None) == (with_presolve is None)
        if x is not None:
            assert np.allclose(x, with_presolve, rtol=0, atol=1e-9)


def _same_drawing_with_presolve(payload: dict) -> None:
    """The whole drawing is the one every program solved with presolve gives."""
    skipped = lay_out(payload)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_lp, "PRESOLVE_COLUMNS", -1)
        presolved = lay_out(payload)
    assert skipped == presolved


@pytest.mark.parametrize("name", sorted(p.stem for p in CORPUS.glob("*.json")))
def test_corpus_drawings_without_presolve_are_presolves(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    payload = _payload(json.loads((CORPUS / f"{name}.json").read_text()))
    programs = _programs(payload, monkeypatch)
    assert programs
    _same_with_presolve(programs)
    _same_drawing_with_presolve(payload)


@st.composite
def diagrams(draw: st.DrawFn) -> dict:
    n = draw(st.integers(2, 14))
    ids = [f"v{i}" for i in range(n)]
    grouped = draw(st.lists(st.sampled_from(ids), max_size=n // 2, unique=True))
    loose = [i for i in ids if i not in grouped]
    pairs = draw(
        st.lists(
            st.tuples(st.sampled_from(ids), st.sampled_from(ids), st.booleans()),
            max_size=2 * n,
        )
    )
    edges = [{"from": a, "to": b, **({"label": "calls"} if lab else {})} for a, b, lab in pairs]
    if grouped and draw(st.booleans()):
        edges.append({"from": loose[0] if loose else grouped[0], "to": "g"})
    payload: dict = {
        "title": "generated",
        "dir": draw(st.sampled_from(["TD", "LR"])),
        "nodes": [{"id": v, "title": f"Node {v}"} for v in loose],
        "edges": edges,
    }
    if grouped:
        payload["groups"] = [
            {"id": "g", "title": "Group", "nodes": [{"id": v, "title": v} for v in grouped]}
        ]
    return payload


@settings(max_examples=40, deadline=None)
@given(diagrams())
def test_generated_programs_reach_linprogs_optimum(payload: dict) -> None:
    with pytest.MonkeyPatch.context() as mp:
        programs = _programs(payload, mp)
    _check(programs)
    _same_with_presolve(programs)
    _same_drawing_with_presolve(payload)


def _by_columns(cost, rows, cols, vals, rhs, simplex=True):  # type: ignore[no-untyped-def]
    """The program handed to HiGHS column by column, as scipy's ``linprog`` hands it (a
    canonical CSC matrix: duplicates summed, each column's rows in order), with the
    options ``_lp.minimise`` sets."""
    import highspy
    from scipy.sparse import coo_matrix

    nv, nr = len(cost), len(rhs)
    a = coo_matrix((vals, (rows, cols)), shape=(nr, nv)).tocsc()
    a.sum_duplicates()
    solver = highspy._Highs()
    for name, value in (
        ("output_flag", False),
        ("simplex_strategy", 1),
        ("threads", 1),
        ("presolve", "on" if nv > _lp.PRESOLVE_COLUMNS else "off"),
        ("solver", "simplex" if simplex else "choose"),
        ("simplex_dual_edge_weight_strategy", 0 if nv <= _lp.DANTZIG_COLUMNS else -1),
    ):
        solver.setOptionValue(name, value)
    solver.passModel(
        nv,
        nr,
        a.nnz,
        int(highspy.MatrixFormat.kColwise),
        int(highspy.ObjSense.kMinimize),
        0.0,
        np.asarray(cost, dtype=np.float64),
        np.zeros(nv),
        np.full(nv, highspy.kHighsInf),
        np.full(nr, -highspy.kHighsInf),
        np.asarray(rhs, dtype=np.float64),
        a.indptr[:-1].astype(np.int32),
        a.indices.astype(np.int32),
        a.data.astype(np.float64),
        np.zeros(nv, dtype=np.int32),
    )
    solver.run()
    assert solver.getModelStatus() == highspy.HighsModelStatus.kOptimal
    return np.array(solver.getSolution().col_value)


@pytest.mark.parametrize("name", ["lab_n10_TD_s1", "lab_n50_LR_s0", "lab_n100_TD_s1"])
def test_rows_passed_row_by_row_reach_the_columns_answer(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """HiGHS gets the rows as they were built and turns them into columns itself: the
    vertex must be the one the same build reaches from scipy's columns, bit for bit."""
    payload = _payload(json.loads((CORPUS / f"{name}.json").read_text()))
    programs = _programs(payload, monkeypatch)
    assert programs
    for cost, rows, cols, vals, rhs, simplex, x in programs:
        assert np.array_equal(x, _by_columns(cost, rows, cols, vals, rhs, simplex))


def test_rows_out_of_order_and_repeated_reach_the_same_answer() -> None:
    """Rows may come in any order and name a column twice: they are sorted and summed
    before HiGHS (which refuses both) sees them."""
    # min x0 + 2 x1 - x2 with x0 - x1 <= -3, x1 - x2 <= -2 (half and half), x2 <= 9
    rows, cols = [0, 0, 1, 1, 1, 2], [0, 1, 1, 2, 2, 2]
    vals, rhs = [1.0, -1.0, 1.0, -0.5, -0.5, 1.0], [-3.0, -2.0, 9.0]
    cost = np.array([1.0, 2.0, -1.0])
    x = _lp.minimise(cost, rows, cols, vals, rhs)
    backwards = _lp.minimise(cost, rows[::-1], cols[::-1], vals[::-1], rhs)
    assert x is not None and backwards is not None
    assert np.array_equal(x, backwards)
    assert np.array_equal(x, _by_columns(cost, rows, cols, vals, rhs))
    assert x.tolist() == pytest.approx([0.0, 3.0, 9.0])


def test_an_infeasible_program_has_no_answer() -> None:
    # x0 <= -1 with x0 >= 0
    assert _lp.minimise(np.array([1.0]), [0], [0], [1.0], [-1.0]) is None


def test_repeated_entries_add_up() -> None:
    # min -x0 with 0.5 x0 + 0.5 x0 <= 3: the two halves are one coefficient of 1
    x = _lp.minimise(np.array([-1.0]), [0, 0], [0, 0], [0.5, 0.5], [3.0])
    assert x is not None and x[0] == pytest.approx(3.0)


@st.composite
def ranked_dags(draw: st.DrawFn) -> tuple[list[str], list[tuple[str, str, int]]]:
    n = draw(st.integers(1, 40))
    nodes = [f"v{i}" for i in range(n)]
    pairs = draw(
        st.lists(
            st.tuples(st.integers(0, n - 1), st.integers(0, n - 1), st.sampled_from([1, 1, 2])),
            max_size=3 * n,
        )
    )
    arcs = [(nodes[min(a, b)], nodes[max(a, b)], k) for a, b, k in pairs if a != b]
    return nodes, arcs


@settings(max_examples=300, deadline=None)
@given(ranked_dags())
def test_network_simplex_layers_are_the_lps_layers(case: tuple) -> None:
    nodes, arcs = case
    found = layered._NetworkSimplex(nodes, arcs).solve()
    assert found is not None  # below SPAN nodes the optimum is unique: no tie to refuse
    box: list[dict] = []
    with pytest.MonkeyPatch.context() as mp:
        programs = _solved(lambda: box.append(layered._lp_layers(nodes, arcs)), mp)
    assert dict(zip(nodes, found, strict=True)) == box[0]
    _check(programs)  # and the layering LP itself, HiGHS direct against linprog


def test_network_simplex_refuses_a_cycle() -> None:
    arcs = [("a", "b", 1), ("b", "a", 1)]
    assert layered._NetworkSimplex(["a", "b"], arcs).solve() is None


@pytest.mark.parametrize("name", sorted(p.stem for p in CORPUS.glob("*.json"))[:24])
def test_corpus_layers_are_the_lps_layers(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every layering the engine asks for while laying out a labelled corpus graph."""
    g = json.loads((CORPUS / f"{name}.json").read_text())
    asked: list[tuple] = []
    real = layered.assign_layers

    def spy(nodes, arcs):  # type: ignore[no-untyped-def]
        asked.append((list(nodes), list(arcs)))
        return real(nodes, arcs)

    monkeypatch.setattr(layered, "assign_layers", spy)
    lay_out(_payload(g))
    assert asked
    for nodes, arcs in asked:
        if arcs and len(nodes) <= layered.SIMPLEX_NODES:
            found = layered._NetworkSimplex(nodes, arcs).solve()
            assert found is not None
            assert dict(zip(nodes, found, strict=True)) == layered._lp_layers(nodes, arcs)


def test_a_flat_diagram_loads_neither_scipy_nor_networkx() -> None:
    """A one-shot process pays for what it imports: scipy.optimize took a third of a
    second and networkx a tenth, and a flat diagram needs neither now."""
    import os
    import subprocess
    import sys

    script = (
        "import sys\n"
        "from layoutkit.diagram import lay_out\n"
        "lay_out({'title': 't', 'nodes': [{'id': 'a', 'title': 'A'}, {'id': 'b', 'title': 'B'},"
        " {'id': 'c', 'title': 'C'}], 'edges': [{'from': 'a', 'to': 'b'},"
        " {'from': 'a', 'to': 'c'}, {'from': 'c', 'to': 'a', 'label': 'back'}]})\n"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'scipy', 'networkx'}))\n"
    )
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root)}
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True
    )
    assert out.stdout.strip() == "[]"
