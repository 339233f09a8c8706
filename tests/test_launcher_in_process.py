"""The in-process launcher (tests/helpers/launcher.py) is the real `nel` CLI: on a few
configs it gives the same exit status and the same rendered scripts as a fresh `nel run
--dry-run` process, and it leaves this process's environment, argv and cwd as it found
them."""

from __future__ import annotations

import os
import re
import sys
import tempfile
from pathlib import Path

import pytest

from helpers.nel import dry_run, dry_run_subprocess

pytestmark = [pytest.mark.launcher, pytest.mark.slow]

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO / "tests" / "preflight" / "corpus"
TEMPLATE = REPO / "recipes" / "examples" / "gym" / "example_mrcr.yaml"
# The MRCR template's blanks, filled (tests/fixtures/gym/mrcr_template.py has the values).
sys.path.insert(0, str(REPO / "tests"))
from fixtures.gym import mrcr_template as tpl  # noqa: E402
from preflight.nel_batch import fill_blanks  # noqa: E402


def _fill(config: Path, out: Path) -> dict[str, str]:
    return dict(o.split("=", 1) for o in fill_blanks(config, out))


# Differs per run by design: the invocation id, times, the temporary output paths and the
# random 4-hex scope of each secret's name (NAME_<4hex>_<GROUP>).
VOLATILE = re.compile(
    r"[0-9a-f]{16}|\d{4}-\d\d-\d\dT[\d:.]+|nel-dry-run-\w+|\d{8}_\d{6}|_[0-9a-f]{4}_"
)


def _stable(text: str) -> str:
    return VOLATILE.sub("<v>", text)


def _cases():
    corpus = [CORPUS / "local_endpoint.yaml", CORPUS / "slurm_vllm.yaml"]
    out = Path(tempfile.gettempdir()) / "evalkit-in-process-out"
    return [
        ("template-filled", TEMPLATE, tpl.FILLED),
        ("template-bare", TEMPLATE, None),
        *[(p.stem, p, _fill(p, out)) for p in corpus],
        (
            "ambiguous-task",
            corpus[0],
            {**_fill(corpus[0], out), "evaluation.tasks.0.name": "ifeval"},
        ),
    ]


@pytest.mark.parametrize(("name", "config", "overrides"), _cases(), ids=[c[0] for c in _cases()])
def test_in_process_equals_the_real_cli(name, config, overrides):
    inside = dry_run(config, overrides)
    outside = dry_run_subprocess(config, overrides)
    assert (inside.returncode == 0) == (outside.returncode == 0), (
        inside.stderr[-1500:],
        outside.stderr[-1500:],
    )
    assert [_stable(s) for s in inside.scripts] == [_stable(s) for s in outside.scripts]
    if outside.returncode != 0:
        # The refusal's message is in both (the CLI prints the traceback on stderr).
        assert inside.error and inside.error.split(": ", 1)[-1][:60] in outside.stderr


def test_process_state_is_restored(tmp_path):
    before = (dict(os.environ), list(sys.argv), os.getcwd())
    result = dry_run(TEMPLATE, None, env={"EVALKIT_ONLY_INSIDE": "1"})
    assert result.returncode != 0  # the bare template is refused; state restored anyway
    assert (dict(os.environ), list(sys.argv), os.getcwd()) == before


def test_environment_reaches_the_launcher(tmp_path):
    """A `host:` variable is read from the environment given to the call, not ours."""
    config = tmp_path / "needs_key.yaml"
    text = (CORPUS / "slurm_vllm.yaml").read_text()
    config.write_text(text + "env_vars:\n  EVALKIT_PROBE: host:EVALKIT_PROBE_VALUE\n")
    fill = _fill(config, tmp_path / "out")
    assert "EVALKIT_PROBE_VALUE" not in os.environ
    assert dry_run(config, fill).returncode != 0
    assert dry_run(config, fill, env={"EVALKIT_PROBE_VALUE": "x"}).returncode == 0
