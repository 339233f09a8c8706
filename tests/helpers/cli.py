"""`evalkit ARGV` in this process: what `subprocess.run([python, "-m", "evalkit", ...])`
returned, without paying the interpreter start and the package import on every call.

The CLI is `main(argv) -> int` (evalkit/cli.py), so a test calls it with the argv, the
environment and the working directory the process would have had, and gets back a
CompletedProcess: the exit status (SystemExit's code; 1 with the traceback on stderr for
an uncaught exception, as the interpreter does), stdout and stderr. The few tests that
must prove the entry points themselves (`python -m evalkit`, scripts/evalkit, a fresh
process's peak memory) spawn one and carry the `entrypoint` marker.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
import threading
import traceback
from collections.abc import Mapping


def _call(argv: list[str]) -> tuple[int, str, str]:
    from evalkit.cli import main

    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse's --help and usage errors
            if isinstance(exc.code, str):
                print(exc.code, file=sys.stderr)
                code = 1
            else:
                code = exc.code or 0
        except Exception as exc:  # noqa: BLE001 - the interpreter's view of a crash
            traceback.print_exception(exc, file=sys.stderr)
            code = 1
    return code, out.getvalue(), err.getvalue()


@contextlib.contextmanager
def process_state(env: Mapping[str, str] | None, cwd: str | os.PathLike | None):
    """The environment (the whole of it, as subprocess's env=) and working directory of
    one call; both restored afterwards."""
    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    if env is not None:
        os.environ.clear()
        os.environ.update(env)
    if cwd is not None:
        os.chdir(cwd)
    try:
        yield
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)


def run_evalkit(
    *argv,
    env: Mapping[str, str] | None = None,
    cwd: str | os.PathLike | None = None,
    timeout: float | None = None,
) -> subprocess.CompletedProcess:
    """`evalkit *argv` in-process. With `timeout`, the call runs in a thread and a call
    that has not returned by then fails the test (a blocking read hangs no worker)."""
    args = [str(a) for a in argv]
    with process_state(env, cwd):
        if timeout is None:
            code, out, err = _call(args)
        else:
            box: list = []
            worker = threading.Thread(target=lambda: box.append(_call(args)), daemon=True)
            worker.start()
            worker.join(timeout)
            if not box:
                import pytest

                pytest.fail(f"evalkit {' '.join(args)} did not return in {timeout} s")
            code, out, err = box[0]
    return subprocess.CompletedProcess(["evalkit", *args], code, out, err)
