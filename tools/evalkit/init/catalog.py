"""What `evalkit init` can write: task names, the shipped templates each renders from.

Templates are read from the skill directory at run time (never copied into the package),
so init follows whatever the shipped templates say today. The skill directory is
found by evalkit.skillroot (scripts/evalkit names it; a checkout finds itself).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from evalkit import skillroot
from evalkit.errors import InputError
from evalkit.init.facts import AA, GDPVAL, MRCR, SINGLE, TAU2, TAU3

MRCR_TEMPLATE = "recipes/examples/gym/example_mrcr.yaml"
GDPVAL_TEMPLATE = "recipes/examples/gym/example_gdpval.yaml"
AA_TEMPLATE = "recipes/examples/example_eval.yaml"
TAU2_TEMPLATE = "recipes/examples/example_eval_tau2.yaml"
TAU3_TEMPLATE = "recipes/examples/gym/example_tau3_banking.yaml"
SINGLE_RECIPES = "recipes/tasks"


@dataclass(frozen=True)
class Output:
    """One config a task writes: its template and its file name inside an -o directory."""

    template: str
    file_name: str
    role: str  # mrcr | gdpval | aa | tau3 | tau2 | single


@dataclass(frozen=True)
class Task:
    name: str
    kind: str
    summary: str
    outputs: tuple[Output, ...]
    mrcr_variant: str | None = None  # a Gym config file name, or "auto" from the context
    recipe: str | None = None  # single tasks: the recipe whose fragment becomes the task

    @property
    def writes_directory(self) -> bool:
        return len(self.outputs) > 1


def skill_dir() -> Path:
    return skillroot.skill_dir(MRCR_TEMPLATE)


def _single_tasks(root: Path) -> list[Task]:
    out = []
    for recipe in sorted((root / SINGLE_RECIPES).glob("*.md")):
        out.append(
            Task(
                name=recipe.stem,
                kind=SINGLE,
                summary=f"one task from {SINGLE_RECIPES}/{recipe.name}, on the AA template",
                outputs=(Output(AA_TEMPLATE, f"{recipe.stem}.yaml", "single"),),
                recipe=f"{SINGLE_RECIPES}/{recipe.name}",
            )
        )
    return out


def tasks(root: Path | None = None) -> dict[str, Task]:
    root = root or skill_dir()
    fixed = [
        Task(
            "mrcr-1m",
            MRCR,
            "MRCR, config_n3_1m.yaml (1M-token cap), NeMo Gym",
            (Output(MRCR_TEMPLATE, "mrcr_1m.yaml", "mrcr"),),
            mrcr_variant="config_n3_1m.yaml",
        ),
        Task(
            "mrcr-128k",
            MRCR,
            "MRCR, config_n3_128k.yaml (128k cap), NeMo Gym",
            (Output(MRCR_TEMPLATE, "mrcr_128k.yaml", "mrcr"),),
            mrcr_variant="config_n3_128k.yaml",
        ),
        Task(
            "mrcr",
            MRCR,
            "MRCR, the largest variant the documented context holds (fact `context`)",
            (Output(MRCR_TEMPLATE, "mrcr.yaml", "mrcr"),),
            mrcr_variant="auto",
        ),
        Task(
            "gdpval",
            GDPVAL,
            "GDPVal rubric mode, NeMo Gym (AA suite member, standalone config)",
            (Output(GDPVAL_TEMPLATE, "gdpval.yaml", "gdpval"),),
        ),
        Task(
            "tau3-banking",
            TAU3,
            "Tau3-Banking, NeMo Gym (the AA suite's agentic tool-use task, standalone config)",
            (Output(TAU3_TEMPLATE, "tau3_banking.yaml", "tau3"),),
        ),
        Task(
            "tau2",
            TAU2,
            "Tau2-Bench Telecom: SUPERSEDED by tau3-banking in the AA suite, scores not "
            "comparable; only when asked for by name",
            (Output(TAU2_TEMPLATE, "tau2.yaml", "tau2"),),
        ),
        Task(
            "aa",
            AA,
            "the AA suite: seven tasks in one config, Tau3-Banking and GDPVal apart (-o DIR)",
            (
                Output(AA_TEMPLATE, "aa.yaml", "aa"),
                Output(TAU3_TEMPLATE, "tau3_banking.yaml", "tau3"),
                Output(GDPVAL_TEMPLATE, "gdpval.yaml", "gdpval"),
            ),
        ),
    ]
    return {t.name: t for t in fixed + _single_tasks(root)}


_FENCE = re.compile(r"^## Config fragment\s*\n+```yaml\n(.*?)^```", re.M | re.S)


def recipe_fragment(root: Path, recipe: str) -> str:
    """The YAML task entry a single-task recipe gives under "## Config fragment"."""
    from evalkit.inputs import read_text

    text = read_text(root / recipe)
    match = _FENCE.search(text)
    if not match:
        raise InputError("no ```yaml block under '## Config fragment'", root / recipe)
    return match.group(1)
