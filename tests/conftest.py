from __future__ import annotations

import gc
import logging
import os
import socket
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent
sys.path.insert(0, str(TESTS))

# Per-test CPU and spawn records when EVALKIT_TEST_PROFILE is set (tests/bench/bench_suite.py).
pytest_plugins = ["helpers.cpuprofile"]


# nel 0.2.6, once imported in a worker (helpers/launcher.py), sets the root logger to
# DEBUG with its structlog handlers; markdown-it then formats a record for every block
# rule it tries (check-skill on this repository: ~55000 records, 4 s of an 0.5 s check).
# No test reads markdown-it's debug lines.
logging.getLogger("markdown_it").setLevel(logging.INFO)


def pytest_collection_finish(session):
    """Move the collected items (and every module imported so far) out of the cyclic
    collector's view: they live for the whole run, and each full collection would
    otherwise walk them again (in a big worker, most of a test's GC time)."""
    gc.collect()
    gc.freeze()


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """`--dist loadfile` (tests/run.sh), with the files that share a costly import on one
    worker (helpers/schedule.py)."""
    if config.getvalue("dist") != "loadfile":
        return None
    from helpers.schedule import SharedImportScheduling

    return SharedImportScheduling(config, log)


def _network_hosts() -> list[tuple[str, int]]:
    """The hosts the `network` tests download from: pip's index and npm's registry (the
    clients' own environment overrides first), and PyPI's file host."""
    hosts = []
    for var, default in (
        ("PIP_INDEX_URL", "https://pypi.org/simple"),
        ("NPM_CONFIG_REGISTRY", "https://registry.npmjs.org"),
    ):
        url = urlsplit(os.environ.get(var) or default)
        hosts.append((url.hostname or "", url.port or (443 if url.scheme == "https" else 80)))
    if not os.environ.get("PIP_INDEX_URL"):
        hosts.append(("files.pythonhosted.org", 443))
    return hosts


@pytest.fixture
def repo_root() -> Path:
    return REPO


@pytest.fixture
def run_cli(capsys):
    """Call `evalkit.cli.main` in-process; returns (exit code, stdout, stderr)."""
    from evalkit.cli import main

    def _run(*argv: str):
        code = main([str(a) for a in argv])
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return _run


@pytest.fixture(autouse=True)
def _dry_runs_in_process(request, monkeypatch):
    """Outside `launcher` and `entrypoint` tests, evalkit's own launcher dry-runs (init
    --check, preflight --with-launcher) call the real nel 0.2.6 in this worker rather than
    a fresh `nel` process (helpers/launcher.py, route_dry_runs)."""
    node = request.node
    if node.get_closest_marker("launcher") or node.get_closest_marker("entrypoint"):
        return
    if "evalkit.preflight.launcher" not in sys.modules:
        import evalkit.preflight.launcher  # noqa: F401 - patched below
    from helpers.launcher import route_dry_runs

    route_dry_runs(monkeypatch)


@pytest.fixture
def cli(run_cli, capsys):
    """run_cli, after dropping what a launcher dry-run (rendering run.sub for a failure
    fixture, helpers/failure_logs.py) logged: the triage tests read stderr whole."""

    def _run(*argv):
        capsys.readouterr()
        return run_cli(*argv)

    return _run


@pytest.fixture(scope="session")
def nel_launcher():
    """The real nel 0.2.6, imported once in this worker: `.run(argv, environ, cwd)` is
    `nel *argv` in-process (helpers/launcher.py). helpers.nel.dry_run uses the same one."""
    from helpers.launcher import launcher

    return launcher()


def _unreachable_hosts() -> list[str]:
    down = []
    for host, port in _network_hosts():
        try:
            socket.create_connection((host, port), timeout=5).close()
        except OSError as err:
            down.append(f"{host} ({err})")
    return down


@pytest.fixture(scope="session")
def _network_state() -> list[str]:
    return _unreachable_hosts()


@pytest.fixture(autouse=True)
def _network_gate(request):
    """`@pytest.mark.network` tests need the package index or npm: skipped with the reason
    offline, but a failure where CI is set (there the index must be reachable)."""
    if request.node.get_closest_marker("network") is None:
        return
    down = request.getfixturevalue("_network_state")
    if not down:
        return
    reason = "needs the network (package index / npm); unreachable: " + ", ".join(down)
    if os.environ.get("CI"):
        pytest.fail(reason + " [CI is set: network tests are required]")
    pytest.skip(reason)
