"""The report's figures, drawn with matplotlib (Agg) into PNG files. Each
function takes the rows it plots and returns a Figure, or None when the rows
do not hold what it needs; report.py decides where it goes.

Every figure has a title that names the family and the device, axes with
units, and log scales where the values span decades.

This module names every figure the report draws; they live by role:
figure_parts.py (what every figure is made of, and its caption's notes),
figures_family.py (the built-in families' own figures), figures_overview.py
(any family's), figures_model.py (the model's), figures_time.py (the time
model's, the classes' bandwidth ratios), figures_summary.py (the Summary's)
and figures_devices.py (ranks and devices).
"""

from .figure_parts import caption_notes, scales
from .figures_devices import device_spread, rank_clocks
from .figures_family import (
    bank_conflicts,
    matmul_ladder,
    stride_bandwidth,
    stride_model,
    transpose_pad,
)
from .figures_model import counters_scatter, dram_bytes, model_heatmap
from .figures_overview import block_bandwidth, family_overview
from .figures_summary import summary
from .figures_time import bandwidth_ratios, predicted_measured, target_heatmap

__all__ = [
    "caption_notes",
    "scales",
    "device_spread",
    "rank_clocks",
    "bank_conflicts",
    "matmul_ladder",
    "stride_bandwidth",
    "stride_model",
    "transpose_pad",
    "counters_scatter",
    "dram_bytes",
    "model_heatmap",
    "block_bandwidth",
    "family_overview",
    "summary",
    "bandwidth_ratios",
    "predicted_measured",
    "target_heatmap",
]
