"""Serving-capacity formulas shared by `evalkit size`, `evalkit preflight` and init.

One implementation of each formula lives here so the commands never disagree: the
per-token and per-sequence state (layout.py), the weights (weights.py) and the plan that
puts them on GPUs (planner.py).
"""

from evalkit.sizing.layout import (
    DTYPE_BYTES,
    GIB,
    Layout,
    dtype_bytes,
    fixed_bytes_per_sequence,
    kv_bytes_per_token,
    layout_of,
    max_num_seqs,
    resolve_kv_dtype,
)
from evalkit.sizing.planner import DEFAULT_OVERHEAD_GIB, SizePlan, SizeRequest, plan
from evalkit.sizing.weights import WEIGHT_BYTES, estimate_parameters, weights_bytes

__all__ = [
    "DEFAULT_OVERHEAD_GIB",
    "DTYPE_BYTES",
    "GIB",
    "WEIGHT_BYTES",
    "Layout",
    "SizePlan",
    "SizeRequest",
    "dtype_bytes",
    "estimate_parameters",
    "fixed_bytes_per_sequence",
    "kv_bytes_per_token",
    "layout_of",
    "max_num_seqs",
    "plan",
    "resolve_kv_dtype",
    "weights_bytes",
]
