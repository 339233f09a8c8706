"""Shared material for the hostile-input suite: secrets of every shape and copies of the
bundled runs and examples (never the originals)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CANARY = ROOT / "tests" / "data" / "runs" / "mrcr-canary"
MRCR_EXAMPLE = ROOT / "recipes" / "examples" / "gym" / "example_mrcr.yaml"

# Made-up values in each credential shape evalkit redacts (none is a real credential).
SECRETS = {
    "hf": "hf_ABCDEFGHIJKLMNOPQRSTUVWXYZ123456",
    "ngc": "nvapi-Zq8xW3vB7nM2kL5pR9tY1uI4oE6aS0dF",
    "openai": "sk-proj-q1w2e3r4t5y6u7i8o9p0a1s2d3",
    "github": "ghp_0123456789abcdefghijABCDEFGHIJ012345",
    "aws": "AKIAQWERTYUIOPASDFGH",
    "plain": "pl41n-s3cr3t-v4lue",  # no shape: only its name gives it away
}


@pytest.fixture
def canary(tmp_path: Path) -> Path:
    """A private copy of the bundled MRCR canary invocation."""
    dest = tmp_path / "canary"
    shutil.copytree(CANARY, dest)
    return dest


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file's bytes under root (or root itself), to prove an input was not touched."""
    if root.is_file():
        return {str(root): root.read_bytes()}
    return {str(p): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def assert_no_secret(*texts: str) -> None:
    for text in texts:
        for kind, value in SECRETS.items():
            assert value not in text, f"{kind} secret printed"
