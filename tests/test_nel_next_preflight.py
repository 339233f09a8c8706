"""`preflight --with-launcher` on a nel-next config: never the 0.2.6 launcher; nel-next's
own dry-run when its environment is set up (here a stub environment: a guess at nothing
but the wrapper's contract, an executable nel and the spec stamp)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from helpers.cli import run_evalkit

REPO = Path(__file__).resolve().parent.parent
TEMPLATE = REPO / "recipes" / "examples" / "example_eval_next.yaml"
PIN_SPEC = (
    "nemo-evaluator[harbor,export] @ git+https://github.com/NVIDIA-NeMo/Evaluator.git"
    "@4d081325170aababd0c8f27c58bed31a81ce82ac"
)


def _preflight(tmp_path: Path, home: Path, exit_code: int = 0):
    decoy = tmp_path / "nel026"
    decoy.write_text(f"#!/usr/bin/env bash\necho nel026 >> {tmp_path}/calls.log\nexit 3\n")
    decoy.chmod(0o755)
    env = dict(os.environ, NEL_NEXT_HOME=str(home), STUB_EXIT=str(exit_code))
    env.pop("NEL_NEXT_SPEC", None)
    env.pop("NEL_NEXT_ORIGIN", None)
    args = ["preflight", str(TEMPLATE), "--with-launcher", "--nel", str(decoy)]
    done = run_evalkit(*args, "--format", "json", env=env, timeout=300)
    codes = [f["rule"] for f in json.loads(done.stdout)["findings"]]
    calls = tmp_path / "calls.log"
    return done, codes, calls.read_text().splitlines() if calls.exists() else []


def test_without_nel_next_env_no_dry_run_runs(tmp_path):
    done, codes, calls = _preflight(tmp_path, tmp_path / "empty")
    assert codes == ["NEL011"], done.stderr
    assert calls == []
    assert "no nel-next environment" in done.stderr


def test_with_nel_next_env_its_own_dry_run_runs(tmp_path):
    venv = tmp_path / "home" / "venv"
    (venv / "bin").mkdir(parents=True)
    nel = venv / "bin" / "nel"
    nel.write_text(f'#!/usr/bin/env bash\necho "nel-next $*" >> {tmp_path}/calls.log\n')
    nel.write_text(nel.read_text() + 'echo "ValueError: bad key" >&2\nexit "$STUB_EXIT"\n')
    nel.chmod(0o755)
    (venv / ".evalkit-spec").write_text(PIN_SPEC + "\n")
    ok, codes, calls = _preflight(tmp_path, tmp_path / "home")
    assert codes == ["NEL011"], ok.stderr
    assert calls == [f"nel-next eval run {TEMPLATE} --dry-run"]
    failed, codes, _ = _preflight(tmp_path, tmp_path / "home", exit_code=1)
    assert sorted(codes) == ["NEL011", "NEL801"], failed.stdout
    assert "ValueError: bad key" in failed.stdout, failed.stdout
