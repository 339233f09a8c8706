"""Where the skill is: one answer for every module that needs a file the skill ships
(templates, scripts/nel-gym.sh, scripts/nel-next.sh).

The package runs from two places. In a checkout (or `pip install -e`) it sits inside the
skill at tools/evalkit/. Installed the way agents run it, through scripts/evalkit, it sits
in a venv's site-packages, far from the skill; scripts/evalkit exports EVALKIT_SKILL_DIR
for exactly this. So: $EVALKIT_SKILL_DIR first, then the tree this module sits in, then
the current directory. The named directory counts when it holds the file asked for; the
other two must also hold SKILL.md (a bare `scripts/` in the working directory is not it).
"""

from __future__ import annotations

import os
from pathlib import Path

from evalkit.errors import InputError

SKILL_DIR_VAR = "EVALKIT_SKILL_DIR"


def candidates() -> list[tuple[Path, bool]]:
    """(directory, whether it must hold SKILL.md), in the order they are asked."""
    places = []
    if os.environ.get(SKILL_DIR_VAR):
        places.append((Path(os.environ[SKILL_DIR_VAR]), False))
    places += [(Path(__file__).resolve().parents[2], True), (Path.cwd(), True)]
    return places


def find_skill_file(relative: str) -> Path | None:
    """The skill's RELATIVE file (e.g. "scripts/nel-gym.sh"), or None when no skill
    directory holding it is known."""
    for root, needs_skill_md in candidates():
        if needs_skill_md and not (root / "SKILL.md").is_file():
            continue
        if (root / relative).is_file():
            return root / relative
    return None


def skill_dir(needs: str) -> Path:
    """The skill directory holding NEEDS, or one line saying how to point at it."""
    found = find_skill_file(needs)
    if found is None:
        raise InputError(
            f"the skill's {needs} was not found: run evalkit through the skill's "
            f"scripts/evalkit, or set {SKILL_DIR_VAR} to the skill directory"
        )
    return found.parents[len(Path(needs).parts) - 1]


__all__ = ["SKILL_DIR_VAR", "find_skill_file", "skill_dir"]
