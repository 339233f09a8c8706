"""`preflight --fix` against the real nel 0.2.6 dry-run: refused configs it repairs.

Inputs: the differential corpus (tests/preflight/corpus, plus the shipped MRCR template)
with fixable defects planted by text edits (so comments and layout are the real ones),
and tests/preflight/corpus_fix (configs written for older launchers, see its README).
Each case is dry-run before and after `--fix` in one batch (nel_batch.py). Asserted: no
fix turns an accepted config into a refused one, and every case whose planted defects
are all fixable is accepted after the fix. The counts are printed for the README.
"""

from __future__ import annotations

import base64
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


def _capped(text):  # MRCR answers capped at both places NEL404 reads
    if "max_new_tokens: null" not in text or "max_output_tokens=null" not in text:
        return text
    text = text.replace("max_new_tokens: null", "max_new_tokens: 32768", 1)
    return text.replace("max_output_tokens=null", "max_output_tokens=32768", 1)


def _envelope(text):  # the 1M envelope's switches dropped from the serve call
    for flag in ("--enable-prefix-caching", "--enable-chunked-prefill", "--max-num-batched-tokens"):
        text = re.sub(rf"(?m)^ +{flag}( [0-9]+)?\n", "", text, count=1)
    return text


def _shell_brace(text):  # a shell variable in braces in a literal-block command
    return re.sub(
        r"(?m)^( +)command: \|\n( +)", r"\g<0># caches live under ${HOME}/.cache\n\2", text, count=1
    )


# The shell a user launches from sets the variables the corpus_fix files name.
ENV = {**FIXTURE_ENV, "GATED_HF_TOKEN": "hf_gated_dry_run_value"}
PLANTS = {
    "walltime": _walltime,
    "host_prefix": _host_prefix,
    "execution_env_vars": _exec_env,
    "capped": _capped,
    "envelope": _envelope,
    "shell_brace": _shell_brace,
}
# The config with planted mistakes the skill's review scenario hands an agent.
PLANTED = REPO / "tests/evals/files/configs/mrcr_planted_mistakes.yaml"


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
    cases.append(("planted_mistakes", PLANTED))
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


def _embedded_files(script: str) -> dict[str, str]:
    """The files the rendered script writes with `echo "<base64>" | base64 -d > NAME`."""
    found = re.findall(r'echo "([A-Za-z0-9+/=]*)" \| base64 -d > (\S+)', script)
    return {name: base64.b64decode(blob).decode("utf-8") for blob, name in found}


@pytest.mark.parametrize(
    "name,file,expected",
    [
        ("brace_in_block_comment", "config_ef.yaml", "# cache dir is ${HOME}/.cache"),
        ("bash_default_syntax", "pre_cmd.sh", "export CACHE=${CACHE_DIR:-cache}"),
    ],
)
def test_escaped_shell_variable_reaches_the_script_as_written(tmp_path, name, file, expected):
    from helpers.nel import dry_run

    source = HERE / "fixtures" / "NEL001" / "fail" / f"{name}.yaml"
    outcome = fix_text(source.read_text(encoding="utf-8"), str(source), Options(env=ENV))
    assert [f.rule for f in outcome.fixed] == ["NEL001"]
    fixed = tmp_path / source.name
    fixed.write_text(outcome.text, encoding="utf-8")
    result = dry_run(fixed, env=ENV)
    assert result.returncode == 0, result.error
    files = [_embedded_files(script) for script in result.scripts]
    assert any(expected in f.get(file, "") for f in files)
    # what runs carries no backslash (launcher_unresolved_config.yaml keeps the file as written)
    ran = [f.get(n, "") for f in files for n in ("config_ef.yaml", "pre_cmd.sh")]
    assert ran and all("\\${" not in text for text in ran)
