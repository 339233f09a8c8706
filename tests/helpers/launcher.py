"""The real nel 0.2.6 launcher, called in this process.

`nel` is `nemo_evaluator_launcher.cli.main:main` (the console script in the package's
entry_points.txt). `InProcessLauncher.run` calls that same function with the same argv,
environment and working directory a `nel ...` process would get, and returns what the
process would: the exit status (0, SystemExit's code, or 1 with the traceback on stderr
for an uncaught exception, as the interpreter does), stdout and stderr. The launcher is
imported once per process (once per xdist worker), so each dry-run costs a fraction of a
second instead of the ~3 s of a fresh `nel`.

One deviation, for speed only: the launcher re-parses its packaged task catalog
(resources/all_tasks_irs.yaml, ~1 MB) with pure-Python YAML several times per dry-run;
that loader is memoised so a process parses it once. The data it returns is the same
(tests/test_launcher_in_process.py checks verdicts and scripts against the real CLI).

Another, for time only: during a call, host names other than the loopback's do not
resolve. The launcher looks up container metadata on a registry for some tasks
(common/container_metadata/registries.py); offline that lookup fails either way, but
this machine's resolver drops a query now and then and the lookup waits 5 s for it. The
verdict is the one an offline `nel` gives; a fresh `nel` process keeps the real
resolver.

Calls are serialised by a lock: argv, the environment, the working directory and
sys.stdout/stderr are process-wide, so two dry-runs cannot overlap.
"""

from __future__ import annotations

import contextlib
import functools
import io
import os
import socket
import sys
import threading
import traceback

from helpers.nel import DryRun


class InProcessLauncher:
    def __init__(self) -> None:
        from nemo_evaluator_launcher.cli import main as cli_main

        self._main = cli_main.main
        memoise_task_catalog()

    def run(self, argv: list[str], environ: dict[str, str], cwd: str) -> DryRun:
        """`nel *argv` with exactly `environ` as its environment, in `cwd`."""
        out, err = io.StringIO(), io.StringIO()
        with _LOCK, _process_state(["nel", *argv], environ, cwd), _no_remote_names():
            code, error = 0, ""
            try:
                with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                    self._main()
            except SystemExit as exc:
                code, error = _exit_status(exc, err)
            except Exception as exc:  # noqa: BLE001 - the interpreter's view of a crash
                traceback.print_exception(exc, file=err)
                code, error = 1, _one_line(exc)
        return DryRun(code, out.getvalue(), err.getvalue(), error)


def memoise_task_catalog() -> None:
    """The deviation above, on its own: nel's packaged task catalog parsed once per
    process (tests that call the launcher's mapping functions without its CLI)."""
    from nemo_evaluator_launcher.common.container_metadata import intermediate_repr

    loader = intermediate_repr._load_irs_from_package
    if not hasattr(loader, "cache_info"):
        intermediate_repr._load_irs_from_package = functools.lru_cache(maxsize=None)(loader)


def _exit_status(exc: SystemExit, err: io.StringIO) -> tuple[int, str]:
    if exc.code is None:
        return 0, ""
    if isinstance(exc.code, int):
        return exc.code, "" if exc.code == 0 else _one_line(exc)
    print(exc.code, file=err)  # sys.exit("message") prints it and exits 1
    return 1, str(exc.code)


def _one_line(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}".strip().splitlines()
    return text[0] if text else type(exc).__name__


@contextlib.contextmanager
def _process_state(argv: list[str], environ: dict[str, str], cwd: str):
    """argv, environment and working directory of the call; all restored afterwards."""
    saved_argv, saved_env, saved_cwd = sys.argv, dict(os.environ), os.getcwd()
    sys.argv = argv
    os.environ.clear()
    os.environ.update(environ)
    os.chdir(cwd)
    try:
        yield
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
        sys.argv = saved_argv


_LOOPBACK = {"localhost", "127.0.0.1", "::1"}


@contextlib.contextmanager
def _no_remote_names():
    """socket.getaddrinfo refuses every name but the loopback's, as an offline resolver
    does (without its occasional 5 s wait)."""
    real = socket.getaddrinfo

    def offline(host, *args, **kwargs):
        name = host.decode() if isinstance(host, bytes) else host
        if name in _LOOPBACK:
            return real(host, *args, **kwargs)
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    socket.getaddrinfo = offline
    try:
        yield
    finally:
        socket.getaddrinfo = real


# One lock for the process (not per instance): process-wide state is what it guards, and
# threads may ask for the first launcher at the same moment.
_LOCK = threading.RLock()
_ONE: list[InProcessLauncher] = []


def launcher() -> InProcessLauncher:
    """The one launcher of this process (a test worker): imported on first use."""
    with _LOCK:
        if not _ONE:
            _ONE.append(InProcessLauncher())
        return _ONE[0]


class _SubprocessRoutingNel:
    """Stands for the `subprocess` module inside evalkit.preflight.launcher: a `nel`
    command (the test venv's nel, or scripts/nel-gym.sh, which runs the same 0.2.6
    release) runs in-process; so does `keeper`, a `--nel` that runs nel with its
    temporary directories kept (helpers/keep.py), with them kept here too. Any other
    command (bash -n, a stub `--nel`) runs as before.
    """

    def __init__(self, real, wrapper: str, nel: str | None, keeper: str | None = None) -> None:
        self._real, self._wrapper, self._nel, self._keeper = real, wrapper, nel, keeper

    def __getattr__(self, name):
        return getattr(self._real, name)

    def _route(self, command) -> tuple[list[str], bool] | None:
        """(nel's arguments, whether temporary directories are kept), or None."""
        argv = [str(a) for a in command]
        if len(argv) >= 2 and argv[0] == "bash" and os.path.realpath(argv[1]) == self._wrapper:
            return argv[2:], False
        if self._nel and argv and argv[0] == self._nel:
            return argv[1:], False
        if self._keeper and argv and argv[0] == self._keeper:
            return argv[1:], True
        return None

    def run(self, command, *args, **kwargs):
        routed = self._route(command) if isinstance(command, (list, tuple)) else None
        if routed is None or routed[0][:1] != ["run"]:
            return self._real.run(command, *args, **kwargs)
        from helpers.keep import kept_temporary_directories

        nel_args, kept = routed
        environ = dict(kwargs.get("env") or os.environ)
        if not kept:  # scripts/nel-gym.sh exports an invocation id when the caller has none
            environ.setdefault("NEL_INVOCATION_ID", os.urandom(8).hex())
        cwd = str(kwargs.get("cwd") or os.getcwd())
        with kept_temporary_directories() if kept else contextlib.nullcontext():
            done = launcher().run(nel_args, environ, cwd)
        return self._real.CompletedProcess(list(command), done.returncode, done.stdout, done.stderr)


def route_dry_runs(monkeypatch, keeper: str | None = None) -> None:
    """For one test: evalkit's launcher dry-runs (preflight --with-launcher, init --check)
    call the real nel 0.2.6 in this process instead of starting `nel` (about 3 s each, or
    a uvx start through scripts/nel-gym.sh); `keeper` names a keeping `--nel` to route
    too. Tests marked `launcher` or `entrypoint` keep the real process unless they ask."""
    import subprocess
    from pathlib import Path

    from evalkit.preflight import launcher as evalkit_launcher
    from helpers.nel import nel_executable

    wrapper = os.path.realpath(Path(__file__).resolve().parents[2] / "scripts" / "nel-gym.sh")
    proxy = _SubprocessRoutingNel(subprocess, wrapper, nel_executable(), keeper)
    monkeypatch.setattr(evalkit_launcher, "subprocess", proxy)
