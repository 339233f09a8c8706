"""Golden fixtures: tests/preflight/fixtures/<CODE>/{pass,fail}/*.yaml.

Every rule has at least one failing config that yields its code and one passing config
that yields no error or warning with it. A sidecar `<name>.args.json` may ask for
--template, -o overrides, a --checkpoint directory, a --pair baseline, or the real
launcher (marked `launcher`); `context` is the model card's context (`--context N`).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from evalkit.checkpoint import load_checkpoint
from evalkit.preflight.registry import all_rules
from evalkit.preflight.runner import Options, check_file, check_launcher, check_pair

from .conftest import FIXTURE_ENV, FIXTURES

RULES = all_rules()


def _cases():
    for code_dir in sorted(FIXTURES.glob("NEL*")):
        for kind in ("fail", "pass"):
            for config in sorted((code_dir / kind).glob("*.yaml")):
                args_file = config.with_suffix(".args.json")
                args = json.loads(args_file.read_text()) if args_file.exists() else {}
                marks = [pytest.mark.launcher] if args.get("launcher") else []
                yield pytest.param(
                    code_dir.name,
                    kind,
                    config,
                    args,
                    marks=marks,
                    id=f"{code_dir.name}-{kind}-{config.stem}",
                )


CASES = list(_cases())


def run_case(config: Path, args: dict, launcher_env=None):
    checkpoint = None
    if args.get("checkpoint"):
        checkpoint = load_checkpoint(
            config.parent / args["checkpoint"], documented_context=args.get("context")
        )
    options = Options(
        overrides=args.get("overrides", []),
        template=args.get("template", False),
        checkpoint=checkpoint,
        env=dict(FIXTURE_ENV),
    )
    findings = check_file(str(config), options)
    if args.get("pair_base"):
        findings += check_pair(str(config.parent / args["pair_base"]), str(config), options)
    if args.get("launcher"):
        from evalkit.preflight import launcher
        from helpers.nel import nel_executable

        result = launcher.dry_run(str(config), options.overrides, nel_executable())
        findings += check_launcher(str(config), options, result)
    return findings


@pytest.mark.parametrize(("code", "kind", "config", "args"), CASES)
def test_golden_fixture(code, kind, config, args, monkeypatch):
    if args.get("launcher"):
        from helpers.launcher import route_dry_runs
        from helpers.nel import DRY_RUN_ENV

        # The real nel 0.2.6, called in this worker rather than as a fresh process (7-9 s
        # each, mostly its imports): tests/test_launcher_in_process.py holds the two to
        # the same verdicts and scripts, and test_with_launcher.py keeps the process.
        route_dry_runs(monkeypatch)
        for key in [k for k in os.environ if k.startswith("NEMO_EVALUATOR_")]:
            monkeypatch.delenv(key)
        for key, value in DRY_RUN_ENV.items():
            monkeypatch.setenv(key, value)
        monkeypatch.chdir(config.parent)
    findings = run_case(config, args)
    codes = {f.rule for f in findings}
    if kind == "fail":
        assert code in codes, f"{config.name} should trigger {code}; got {sorted(codes)}"
        hit = next(f for f in findings if f.rule == code)
        assert hit.line is not None and hit.line >= 1
        if RULES[code].scope != "launcher":
            assert hit.path, "config findings name their key path"
    else:
        # info findings (e.g. `???` under --template) are reports, not failures
        bad = [f for f in findings if f.rule == code and f.severity != "info"]
        assert not bad, bad


def test_every_rule_has_pass_and_fail_fixture():
    present = {(p.values[0], p.values[1]) for p in CASES}
    missing = [
        f"{code}/{kind}"
        for code in RULES
        for kind in ("fail", "pass")
        if (code, kind) not in present
    ]
    assert not missing, f"rules without golden fixtures: {missing}"


def test_fixture_dirs_name_real_rules():
    unknown = [p.name for p in FIXTURES.glob("NEL*") if p.name not in RULES]
    assert not unknown
