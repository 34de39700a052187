"""Layout engine: text metrics, sizing, packing, placement, reflow and arrange."""
