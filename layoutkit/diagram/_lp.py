"""The linear programs of layering and placement, handed to HiGHS directly.

Both programs read ``min cost·x`` subject to ``A x <= b`` and ``x >= 0``. They
used to go through ``scipy.optimize.linprog(method="highs-ds")``, whose Python
wrapper (input checks, sparse conversions, option validation, result packing)
took about 3 ms of a 10-node layout against 0.4 ms of solving, and whose import
took about a third of a second. This module gives HiGHS the model scipy gave it:
the matrix with duplicates summed (passed row by row, which HiGHS turns into the
columns scipy passed, entries in row order), rows unbounded below, columns from 0 up, and the options ``linprog`` sets (the dual simplex, no
output), but for presolve: ``linprog`` turns it on, and here it is off up to
``PRESOLVE_COLUMNS`` columns. On the 133 programs of the bench corpus up to 200
nodes and the labelled corpus (24 to 3,469 columns) the answers were bit for bit
those of presolve on, and a 10-node placement solved in two thirds of the time;
past about 1,400 columns presolve pays for itself again. The same solver build on
the same model reaches the same vertex, so layouts do not move (tests compare
with ``linprog``, presolve off with presolve on, and rows with columns).

HiGHS 1.16 reads two files per CPU of the machine (its core topology, under
``/sys``) on every solve, only for a developer log line: on this project's 2-CPU
test machine that was a fifth of a 10-node placement's solve, and it grows with the
CPUs a server has. ``pyproject.toml`` keeps to the releases before it.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

#: Programs with at most this many columns are solved without presolve (see above).
PRESOLVE_COLUMNS = 1000
#: Programs with at most this many columns price the dual simplex by Dantzig's rule
#: (the largest infeasibility) rather than by dual steepest edge: on a 10-node
#: placement (24 to 92 columns, about 40 iterations) the edge weights cost more to
#: keep up than the few iterations they save. Larger programs keep HiGHS's choice.
DANTZIG_COLUMNS = 300

# One solver per thread, reused (each ``passModel`` empties it): making one and setting its
# options cost about a tenth of a small placement's solve. HiGHS objects are not
# to be shared between threads, and a service may lay out in several.
_local = threading.local()


def _solver() -> Any:
    # highspy loads in a few milliseconds (numpy is already in): the first
    # diagram of a process pays that, not scipy.optimize's third of a second.
    import highspy

    solver = getattr(_local, "solver", None)
    if solver is None:
        # The bare binding: ``highspy.Highs`` adds callback plumbing this never uses.
        solver = highspy._Highs()
        solver.setOptionValue("output_flag", False)
        solver.setOptionValue("log_to_console", False)
        solver.setOptionValue("simplex_strategy", 1)  # dual, as linprog asks for every method
        # The serial dual simplex uses one thread anyway; without a pool to wake and
        # wait for, a small program's run costs half as much.
        solver.setOptionValue("threads", 1)
        _local.solver = solver
        _local.options = {}
    # No ``clearModel`` here: ``passModel`` clears the model, basis and solution
    # before it takes the new program (HiGHS's every ``passModel`` ends in the one
    # that does), so each program starts afresh, as from a new solver.
    return solver


def _set(solver: Any, name: str, value: Any) -> None:
    """Set an option unless it already holds ``value`` (``clearModel`` keeps options):
    each setting parses its name and value, a few microseconds a program."""
    options = _local.options
    if options.get(name, _UNSET) != value:
        solver.setOptionValue(name, value)
        options[name] = value


_UNSET = object()


def minimise(
    cost: Sequence[float] | np.ndarray,
    rows: Sequence[int],
    cols: Sequence[int],
    vals: Sequence[float],
    rhs: Sequence[float],
    simplex: bool = True,
    presolve: bool | None = None,
) -> np.ndarray | None:
    """The optimal ``x`` of ``min cost·x, A x <= rhs, x >= 0``, or None if HiGHS finds none.

    ``A`` is given as triplets (``A[rows[k], cols[k]] += vals[k]``) with
    ``len(rhs)`` rows and ``len(cost)`` columns. ``simplex`` runs the dual simplex
    (``linprog``'s ``highs-ds``); otherwise HiGHS chooses (``linprog``'s ``highs``).
    ``presolve`` (default: above ``PRESOLVE_COLUMNS`` columns only) is for the tests
    that hold both settings to one answer.
    """
    import highspy

    nv, nr = len(cost), len(rhs)
    # The rows go to HiGHS row by row, as they were built: it turns them into columns
    # itself (each column's entries in row order, as a sort by column then row gave
    # them), so the model it solves is the one it was given column by column, without
    # a sort here. (``fromiter`` reads a list of numbers faster than ``array``, which
    # first discovers its shape and type.)
    nz = len(vals)
    r = np.fromiter(rows, np.int64, nz)
    c = np.fromiter(cols, np.int64, nz)
    v = np.fromiter(vals, np.float64, nz)
    if nz > 1:
        key = r * nv + c
        # HiGHS refuses a row that names a column twice, and wants rows in order.
        # (A sort and a compare cost a third of ``np.unique``.)
        ordered = np.sort(key)
        if (r[1:] < r[:-1]).any() or (ordered[1:] == ordered[:-1]).any():
            order = key.argsort(kind="stable")
            key, v = key[order], v[order]
            # Repeated (row, column) entries add up, as a COO matrix's conversion does.
            first = np.empty(nz, dtype=bool)
            first[0] = True
            np.not_equal(key[1:], key[:-1], out=first[1:])
            starts = first.nonzero()[0]
            v = np.add.reduceat(v, starts)
            r, c = np.divmod(key[starts], max(nv, 1))
    start = r.searchsorted(np.arange(nr)).astype(np.int32)

    if presolve is None:
        presolve = nv > PRESOLVE_COLUMNS
    solver = _solver()
    _set(solver, "presolve", "on" if presolve else "off")
    _set(solver, "solver", "simplex" if simplex else "choose")
    _set(solver, "simplex_dual_edge_weight_strategy", 0 if nv <= DANTZIG_COLUMNS else -1)
    status = solver.passModel(
        nv,
        nr,
        len(v),
        int(highspy.MatrixFormat.kRowwise),
        int(highspy.ObjSense.kMinimize),
        0.0,
        np.asarray(cost, dtype=np.float64),
        np.zeros(nv),
        np.full(nv, highspy.kHighsInf),
        np.full(nr, -highspy.kHighsInf),
        np.asarray(rhs, dtype=np.float64),
        start,
        c.astype(np.int32),
        v,
        np.zeros(nv, dtype=np.int32),  # every column continuous
    )
    if status == highspy.HighsStatus.kError:
        return None
    if solver.run() == highspy.HighsStatus.kError:
        return None
    if solver.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        return None
    return np.array(solver.getSolution().col_value)
