"""pytest plugin: per-test CPU time (this process and its waited-for children) and every
process a test spawns, written as JSON lines for tests/bench/bench_suite.py.

Wall-clock figures on a shared machine swing with the load; user+sys CPU seconds do not
(much), so the bench ranks test files by CPU. Enabled with `-p helpers.cpuprofile` and
EVALKIT_TEST_PROFILE=DIR (one file per xdist worker); inert otherwise.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import time

import pytest

_OUT: list = []
_SPAWNS: list[list] = []


def _cpu() -> tuple[float, float]:
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime, kids.ru_utime + kids.ru_stime


def pytest_configure(config):
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    if worker == "main" and getattr(config.option, "numprocesses", None):
        return  # the xdist controller runs no test; its workers inherit the variable
    # Popped in a process that runs tests: a pytest that a test starts (test_seqmatch.py
    # does) would otherwise open this worker's file again and truncate it.
    folder = os.environ.pop("EVALKIT_TEST_PROFILE", None)
    if not folder:
        return
    os.makedirs(folder, exist_ok=True)
    _OUT.append(open(os.path.join(folder, f"{worker}.jsonl"), "w", encoding="utf-8"))  # noqa: SIM115
    real_init = subprocess.Popen.__init__

    def recording_init(self, args, *rest, **kwargs):
        argv = [args] if isinstance(args, (str, bytes, os.PathLike)) else list(args)
        if _SPAWNS:
            _SPAWNS[-1].append([os.path.basename(str(a)) for a in argv[:4]])
        real_init(self, args, *rest, **kwargs)

    subprocess.Popen.__init__ = recording_init


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    if not _OUT:
        yield
        return
    _SPAWNS.append([])
    wall, (me, kids) = time.perf_counter(), _cpu()
    yield
    me2, kids2 = _cpu()
    row = {
        "id": item.nodeid,
        "wall": round(time.perf_counter() - wall, 4),
        "cpu": round(me2 - me, 4),
        "child_cpu": round(kids2 - kids, 4),
        "spawns": _SPAWNS.pop(),
    }
    _OUT[0].write(json.dumps(row) + "\n")
    _OUT[0].flush()
