"""Baseline against candidate, one direction: pair items (sides, items) -> statistics
(stats) -> trust -> per-task verdict (verdict, headlines) -> suite gate (gate, suite) ->
one document."""
