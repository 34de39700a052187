"""Spacing and effort defaults of the diagram layout, declared in one place (pixels)."""

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
    sweeps: int = 8


OPTIONS = LayoutOptions()
