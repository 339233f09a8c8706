"""Running a real project's own code as a test oracle, without installing the project.

The oracle tests (NeMo Gym's grading, vLLM's reading of config.json) download a source
distribution or wheel once into a cache, load a few of its modules by path, and stand in
for the heavy imports those modules make at the top (torch, pandas, wandb, ...). Only the
functions under test are called; the stand-ins are never exercised.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import types
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


def ignore(*_args, **_kwargs) -> None:
    return None


class Anything(types.ModuleType):
    """A stand-in module: every attribute is a fresh class that takes any arguments, so it
    serves as a base class, a decorator factory or a value alike."""

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        value = type(name, (), {"__init__": ignore, "__call__": ignore})
        setattr(self, name, value)
        return value


def load_module(name: str, path: Path) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@contextmanager
def stand_ins(names: Iterable[str], restore: Iterable[str] = ()) -> Iterator[None]:
    """Install `Anything` for each name (linked into its parent, as `from a import b`
    reads the attribute); afterwards restore those and the `restore` names in sys.modules.
    Loaded functions keep their own module globals, so they still work."""
    names = tuple(names)
    saved = {name: sys.modules.get(name) for name in (*names, *restore)}
    try:
        for name in names:
            sys.modules[name] = Anything(name)
            parent, _, child = name.rpartition(".")
            if parent in sys.modules:
                setattr(sys.modules[parent], child, sys.modules[name])
        yield
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module


def cache_dir(env_var: str) -> Path:
    chosen = os.environ.get(env_var)
    # Outside the clone and its venv, so a fresh clone (as CI makes) reuses the downloads.
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    path = Path(chosen) if chosen else cache / "evalkit-tests" / "oracles"
    path.mkdir(parents=True, exist_ok=True)
    return path


def pip_download(requirement: str, dest: Path, pattern: str, *pip_args: str, timeout: int) -> Path:
    """The one file matching `pattern` in `dest`, downloaded with pip when absent. In CI a
    failed download fails the test; elsewhere it skips."""
    found = sorted(dest.glob(pattern))
    if found:
        return found[0]
    cmd = [sys.executable, "-m", "pip", "download", requirement, "--no-deps", "--quiet"]
    proc = subprocess.run(
        [*cmd, *pip_args, "-d", str(dest)],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    found = sorted(dest.glob(pattern))
    if proc.returncode != 0 or not found:
        reason = f"cannot download {requirement}: {proc.stderr.strip()[-400:]}"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    return found[0]
