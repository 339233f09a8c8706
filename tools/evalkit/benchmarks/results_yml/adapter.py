"""The adapter of a task that leaves only results.yml: its headline, compared unpaired."""

from __future__ import annotations

from evalkit.benchmarks.adapter import Adapter

ADAPTER = Adapter()
