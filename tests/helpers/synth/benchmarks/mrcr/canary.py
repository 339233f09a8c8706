"""The bundled sample run (tests/data/runs/mrcr-canary) and the settings that make it."""

from __future__ import annotations

from pathlib import Path

from .run import write_mrcr_run

CANARY = {
    "variant": "config_n3_1m.yaml",
    "n_items": 60,
    "limit": 20,
    "seed": 7,
    "prompt_chars": 1500,
    "answer_chars": (600, 3000),
    "skill": 0.55,
    "skill_by_needles": {2: 1.0, 4: 0.75, 8: 0.5},
    "no_prefix_share": 0.55,
    "leak_fraction": 0.05,
    "length_fraction": 0.05,
}


def write_canary(dest: Path) -> Path:
    """The sample run shipped in tests/data/runs/mrcr-canary: an invocation directory
    holding `nemo_gym.0/` (a `++limit=20` canary of the 1M variant). DEST must not exist."""
    import shutil
    import tempfile

    dest = Path(dest)
    with tempfile.TemporaryDirectory() as tmp:
        task = write_mrcr_run(Path(tmp), **CANARY)
        shutil.copytree(task.parent, dest)
    return dest
