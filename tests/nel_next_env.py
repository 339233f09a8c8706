"""The real nel-next package for tests: nemo-evaluator 0.3.0 (the newest on the package
index) in a Python 3.12 environment built once into a cache outside the clone
(~/.cache/evalkit-tests/nel-next; EVALKIT_NEL_NEXT_CACHE moves it)."""

from __future__ import annotations

import fcntl
import glob
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

RELEASE = "0.3.0"
SPEC = f"nemo-evaluator[harbor,export]=={RELEASE}"

# The one list of template keys that 0.3.0 rejects, with the release that adds each
# (NVIDIA-NeMo/Evaluator: config/services.py ModelTrafficCaptureConfig, PRs #1071 and
# #1118). A path segment "*" matches any key. Tests strip exactly these, nothing else.
NEWER_KEYS: dict[tuple[str, ...], str] = {
    ("services", "*", "proxy", "model_traffic"): "0.3.1",
    ("services", "*", "proxy", "model_traffic", "capture_request_body"): "0.4.0",
}


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in text.split(".")[:3] if p.isdigit())


def strip_newer(config: dict, installed: str) -> tuple[dict, list[str]]:
    """A copy without the keys newer than `installed`; also the dotted paths removed."""
    removed: list[str] = []

    def walk(node, path, pattern):
        if not isinstance(node, dict):
            return
        head, rest = pattern[0], pattern[1:]
        for key in list(node) if head == "*" else [head]:
            if key not in node:
                continue
            if rest:
                walk(node[key], (*path, key), rest)
            else:
                del node[key]
                removed.append(".".join((*path, key)))

    import copy

    out = copy.deepcopy(config)
    for pattern, added in sorted(NEWER_KEYS.items(), key=lambda kv: -len(kv[0])):
        if _version(added) > _version(installed):
            walk(out, (), pattern)
    return out, removed


def skip_or_fail(reason: str):
    """Skip with the reason, except in CI, where these tests are required."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"required in CI: {reason}")
    pytest.skip(reason)


def _python312() -> str | None:
    named = os.environ.get("EVALKIT_NEL_NEXT_PYTHON")
    candidates = [named] if named else []
    candidates += [shutil.which("python3.12") or "", shutil.which("python3.13") or ""]
    pyenv_root = os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv")
    candidates += sorted(glob.glob(f"{pyenv_root}/versions/3.1[23].*/bin/python3.1[23]"))
    probe = "import sys; sys.exit(not (3, 12) <= sys.version_info[:2] < (3, 14))"
    for cand in filter(None, candidates):
        ok = subprocess.run([cand, "-c", probe], capture_output=True, timeout=60)
        if ok.returncode == 0:
            return cand
    return None


def env_dir() -> Path:
    # Outside the clone by default, so a fresh clone (as CI makes) reuses the 1.5 GB build.
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    base = os.environ.get("EVALKIT_NEL_NEXT_CACHE") or os.path.join(
        cache, "evalkit-tests", "nel-next"
    )
    return Path(base) / RELEASE


def built_env() -> Path:
    """The environment's root, built on first use (a lock keeps xdist workers apart)."""
    root = env_dir()
    stamp = root / ".evalkit-spec"
    if stamp.is_file() and stamp.read_text().strip() == SPEC:
        return root
    root.parent.mkdir(parents=True, exist_ok=True)
    with open(root.parent / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if stamp.is_file() and stamp.read_text().strip() == SPEC:
            return root
        python = _python312()
        if python is None:
            skip_or_fail("no Python 3.12/3.13 (set EVALKIT_NEL_NEXT_PYTHON)")
        uv = shutil.which("uv") or str(Path(sys.executable).parent / "uv")
        env = dict(os.environ, UV_PYTHON_DOWNLOADS="never")
        shutil.rmtree(root, ignore_errors=True)
        steps = (
            [uv, "venv", "--quiet", "--python", python, str(root)],
            [uv, "pip", "install", "--quiet", "--python", str(root / "bin" / "python"), SPEC],
        )
        for step in steps:
            done = subprocess.run(step, capture_output=True, text=True, env=env, timeout=1200)
            if done.returncode != 0:
                last = (done.stderr.strip().splitlines() or ["?"])[-1]
                skip_or_fail(f"cannot build {SPEC} from the package index: {last}")
        # nel-next.sh accepts an environment whose stamp names its spec.
        stamp.write_text(SPEC + "\n")
    return root
