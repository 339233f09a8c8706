"""`preflight --fix` against the real nel 0.2.6 dry-run: refused configs it repairs.

Inputs: the differential corpus (tests/preflight/corpus, plus the shipped MRCR template)
with fixable defects planted by text edits (so comments and layout are the real ones),
and tests/preflight/corpus_fix (configs written for older launchers, see its README).
Each case is dry-run before and after `--fix` in one batch (nel_batch.py). Asserted: no
fix turns an accepted config into a refused one, and every case whose planted defects
are all fixable is accepted after the fix. The counts are printed for the README.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from evalkit.preflight.fixes.engine import fix_text
from evalkit.preflight.runner import Options

from .conftest import FIXTURE_ENV
from .nel_batch import fill_blanks, launch_env, run_batch

pytestmark = [pytest.mark.launcher, pytest.mark.slow]

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
BASES = sorted((HERE / "corpus").glob("*.yaml")) + [REPO / "recipes/examples/gym/example_mrcr.yaml"]


def _walltime(text):  # an unquoted 10-hour walltime (YAML 1.1 base-60 integer)
    return re.sub(r'(?m)^(  walltime: )"[0-9:]+"', r"\g<1>10:00:00", text, count=1)


def _host_prefix(text):  # an env value without its host: prefix
    return re.sub(r"(?m)^( +[A-Z_]+: )host:([A-Z_]+)$", r"\1\2", text, count=1)


def _exec_env(text):  # the pre-0.2.6 per-group env block under execution
    block = "  env_vars:\n    evaluation:\n      TOKENIZERS_PARALLELISM: 'false'\n"
    return re.sub(r"(?m)^execution:\n", "execution:\n" + block, text, count=1)


# The shell a user launches from sets the variables the corpus_fix files name.
ENV = {**FIXTURE_ENV, "GATED_HF_TOKEN": "hf_gated_dry_run_value"}
PLANTS = {"walltime": _walltime, "host_prefix": _host_prefix, "execution_env_vars": _exec_env}


def _cases(tmp: Path) -> list[tuple[str, Path]]:
    cases = []
    for base in BASES:
        text = base.read_text(encoding="utf-8")
        for name, plant in PLANTS.items():
            planted = plant(text)
            if planted != text:
                path = tmp / f"{base.stem}__{name}.yaml"
                path.write_text(planted, encoding="utf-8")
                cases.append((path.stem, path))
    for path in sorted((HERE / "corpus_fix").glob("*.yaml")):
        cases.append((f"corpus_fix/{path.stem}", path))
    return cases


def test_fix_turns_refused_configs_into_accepted(tmp_path):
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    fixed_dir = tmp_path / "fixed"
    fixed_dir.mkdir()
    jobs, names = [], []
    for name, path in _cases(tmp_path):
        outcome = fix_text(path.read_text(encoding="utf-8"), str(path), Options(env=ENV))
        fixed = fixed_dir / path.name
        fixed.write_text(outcome.text, encoding="utf-8")
        for config in (path, fixed):
            jobs.append({"config": str(config), "overrides": fill_blanks(config, out_dir)})
        names.append((name, outcome))
    verdicts = run_batch(jobs, tmp_path, 0, launch_env(ENV))
    refused = repaired = 0
    broken, unrepaired = [], []
    for i, (name, outcome) in enumerate(names):
        before, after = verdicts[2 * i], verdicts[2 * i + 1]
        if before["ok"] and not after["ok"]:
            broken.append(f"{name}: {after['error']}")
        if not before["ok"]:
            refused += 1
            repaired += after["ok"]
            print(f"{name}: {'accepted' if after['ok'] else after['error'][:100]}")
            left = [f for f in outcome.remaining if f.severity == "error"]
            if not after["ok"] and not left:
                unrepaired.append(f"{name}: no error left but refused: {after['error']}")
    print(f"\n--fix: {repaired} of {refused} refused configs accepted after the fix")
    assert not broken, broken
    assert not unrepaired, unrepaired
    assert refused >= len(names) // 2 and repaired == refused
