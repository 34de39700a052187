"""The linear programs of layering and placement, handed to HiGHS directly.

Both programs read ``min cost·x`` subject to ``A x <= b`` and ``x >= 0``. They
used to go through ``scipy.optimize.linprog(method="highs-ds")``, whose Python
wrapper (input checks, sparse conversions, option validation, result packing)
took about 3 ms of a 10-node layout against 0.4 ms of solving, and whose import
took about a third of a second. This module gives HiGHS the model scipy gave it:
the matrix column-wise with rows sorted and duplicates summed, rows unbounded
below, columns from 0 up, and the options ``linprog`` sets (presolve on, the
dual simplex, no output). The same solver build on the same model reaches the
same vertex, so layouts do not move (tests compare with ``linprog``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def minimise(
    cost: np.ndarray,
    rows: Sequence[int],
    cols: Sequence[int],
    vals: Sequence[float],
    rhs: Sequence[float],
    simplex: bool = True,
) -> np.ndarray | None:
    """The optimal ``x`` of ``min cost·x, A x <= rhs, x >= 0``, or None if HiGHS finds none.

    ``A`` is given as triplets (``A[rows[k], cols[k]] += vals[k]``) with
    ``len(rhs)`` rows and ``len(cost)`` columns. ``simplex`` runs the dual simplex
    (``linprog``'s ``highs-ds``); otherwise HiGHS chooses (``linprog``'s ``highs``).
    """
    # highspy loads in a few milliseconds (numpy is already in): the first
    # diagram of a process pays that, not scipy.optimize's third of a second.
    import highspy

    nv, nr = len(cost), len(rhs)
    r = np.asarray(rows, dtype=np.int64)
    c = np.asarray(cols, dtype=np.int64)
    v = np.asarray(vals, dtype=np.float64)
    order = np.lexsort((r, c))
    r, c, v = r[order], c[order], v[order]
    if len(v):
        # Repeated (row, column) entries add up, as a COO matrix's conversion does.
        first = np.ones(len(v), dtype=bool)
        first[1:] = (r[1:] != r[:-1]) | (c[1:] != c[:-1])
        starts = np.flatnonzero(first)
        v = np.add.reduceat(v, starts)
        r, c = r[starts], c[starts]
    start = np.zeros(nv + 1, dtype=np.int32)
    np.cumsum(np.bincount(c, minlength=nv), out=start[1:])

    lp = highspy.HighsLp()
    lp.num_col_ = nv
    lp.num_row_ = nr
    lp.col_cost_ = np.asarray(cost, dtype=np.float64)
    lp.col_lower_ = np.zeros(nv)
    lp.col_upper_ = np.full(nv, highspy.kHighsInf)
    lp.row_lower_ = np.full(nr, -highspy.kHighsInf)
    lp.row_upper_ = np.asarray(rhs, dtype=np.float64)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.num_col_ = nv
    lp.a_matrix_.num_row_ = nr
    lp.a_matrix_.start_ = start
    lp.a_matrix_.index_ = r.astype(np.int32)
    lp.a_matrix_.value_ = v

    # The bare binding: ``highspy.Highs`` adds callback plumbing this never uses.
    solver = highspy._Highs()
    solver.setOptionValue("output_flag", False)
    solver.setOptionValue("log_to_console", False)
    solver.setOptionValue("presolve", "on")
    if simplex:
        solver.setOptionValue("solver", "simplex")
    solver.setOptionValue("simplex_strategy", 1)  # dual, as linprog asks for every method
    if solver.passModel(lp) == highspy.HighsStatus.kError:
        return None
    if solver.run() == highspy.HighsStatus.kError:
        return None
    if solver.getModelStatus() != highspy.HighsModelStatus.kOptimal:
        return None
    return np.array(solver.getSolution().col_value)
