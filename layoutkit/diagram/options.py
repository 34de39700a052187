"""Spacing and effort of the diagram layout, declared in one place (pixels).

``lay_out(payload, options=LayoutOptions(layer_gap=60))`` sets them for one
call; ``OPTIONS`` holds the defaults and is never changed at run time.
"""

from __future__ import annotations

import attrs


@attrs.frozen
class LayoutOptions:
    node_gap: float = 40.0  # between neighbours in a layer
    dummy_gap: float = 14.0  # between an edge line and its neighbours in a layer
    dummy_width: float = 0.0
    layer_gap: float = 36.0  # minimum free space between layers
    track_gap: float = 10.0  # between routing tracks in a layer gap
    group_pad: float = 16.0
    group_title: float = 24.0  # title band of a group frame
    lane_gap: float = 24.0
    lane_header: float = 36.0
    label_gap: float = 8.0  # between an edge line and its label
    loop_room: float = 28.0  # space beside a node for its self-loops
    port_step: float = 18.0  # spacing of edge attachment points on a side
    component_gap: float = 60.0
    pack_aspect: float = 1.6  # width / height the component shelves aim for
    # Crossing minimisation effort: order_work / sqrt(items + segments) sweeps in
    # all, so time grows a little slower than the graph. Fixed counts (never
    # the clock) keep the output deterministic.
    order_work: int = 1600
    order_starts: int = 24  # at most this many starts (two depth-first, then shuffles)
    order_sweeps: int = 30  # at most this many sweeps from one start
    order_patience: int = 6  # sweeps without a better count before a start is given up
    order_large_sweeps: int = 8  # sweeps in all above order_items (two starts)
    # Hierarchies (nodes + dummies + label holders) above this many items take the
    # cheaper phase of each pair: greedy cycle breaking (when it gives fewer items),
    # bounded ordering effort and heuristic placement instead of the exact LP. The
    # bench corpus (at most about 1,650 items) stays below it, so its layouts are
    # the exact ones; see docs/diagram-layout.md.
    exact_items: int = 2000
    # Placement by the LP and track ordering by sifting stay exact up to this many
    # items (above exact_items too): the depth-first hierarchies that cycle_choices
    # keeps for the bench's 500-node graphs with loops have up to about 2,600 items,
    # whose LP takes under a second, and their edges come out 7% shorter than by sweeps.
    placement_items: int = 3000
    # Crossing minimisation stays thorough (restarts, sweeps until nothing improves,
    # full transposition) up to this many items: on sparse graphs of 500 to 1,000
    # nodes it halves the crossings of the bounded sweeps for well under a second.
    order_items: int = 10000
    # Where greedy cycle breaking gives the smaller hierarchy, the depth-first one is
    # laid out and ordered too (the fewer crossings win) when it reverses at most a
    # tenth of the edges and its hierarchy (estimated) stays within this many items.
    dfs_items: int = 50000
    snap: float = 1.0  # shifts below this between a segment's ends are drawn straight
    touch: float = 0.5  # ends this close count as touching when ordering tracks
    unswap: float = 3.0  # sideways shift that parts two lines trading columns in one gap


OPTIONS = LayoutOptions()
"""The defaults, used when a call passes no options."""
