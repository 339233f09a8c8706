"""slurmstepd's own lines when it ends a job (SchedMD slurm, src/slurmd/slurmstepd/
req.c, _handle_signal_container; the `ON <node>` form of Slurm 20.02 and later)."""

from __future__ import annotations

import re

from evalkit.checks.failures.model import Source

SOURCE = Source("slurm", ">=20.02", "src/slurmd/slurmstepd/req.c (_handle_signal_container)")
HEAD = (
    r"\*\*\* (?P<entity>JOB|STEP) (?P<job>\d+)(?:\.\S+)? ON (?P<node>\S{1,200}) "
    r"CANCELLED AT (?P<at>\S{1,40})"
)


def pattern(tail: str) -> re.Pattern[str]:
    return re.compile(HEAD + tail + r" \*\*\*")
