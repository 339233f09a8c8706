"""Serving-capacity formulas shared by `evalkit size` and `evalkit preflight`.

One implementation of each formula lives here so the two commands never disagree.
"""

from __future__ import annotations

import math


def max_num_seqs(parallelism: int, data_parallel: int = 1, num_instances: int = 1) -> int:
    """Per-replica sequence ceiling: ceil(parallelism / (num_instances x DP)).

    `parallelism` is the client's total concurrency across all instances; each of the
    num_instances x DP replicas then sees at most this many requests at once.
    """
    if parallelism < 1 or data_parallel < 1 or num_instances < 1:
        raise ValueError("parallelism, data_parallel and num_instances must be >= 1")
    return math.ceil(parallelism / (data_parallel * num_instances))
