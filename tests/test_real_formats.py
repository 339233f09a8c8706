"""The generator's and the agent scenarios' formats against the real nel 0.2.6 code.

- `nel status` tables in tests/evals are what the launcher's own `cli/status.py` prints
  for those jobs (tests/helpers/rungen.py `nel_status_table` runs that code).
- The log names and the abridged run.sub of tests/helpers/rungen.py follow the script the
  real launcher renders for recipes/examples/gym/example_mrcr.yaml (dry-run).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from helpers.rungen import nel_status_table, slurm_status_job, write_mrcr_run

REPO = Path(__file__).resolve().parent.parent
EVAL_FILES = REPO / "tests" / "evals" / "files"

# The jobs behind each pasted `nel status` table (get_status() entries for SLURM).
STATUS_FIXTURES = {
    "status/nel_status.txt": [
        slurm_status_job(
            "3f2a9c1d0b7e4a11",
            0,
            "running",
            7731904,
            "/lustre/fsw/llm_eval/results/aa/20261130_031200-3f2a9c1d0b7e4a11/ns_aa_lcr.0",
            1213,
        )
    ],
    # sacct says CANCELLED (by the preempting service account): the launcher maps it to
    # KILLED. The chained job exited before appending itself to .slurm_job_id.list, so
    # nel status still reads the first job.
    "runs/mrcr-preempted/summary.txt": [
        slurm_status_job(
            "5b0e77c2d4a19f30",
            0,
            "killed",
            812345,
            "/lustre/fsw/llm_eval/results/mrcr/20261128_141502-5b0e77c2d4a19f30/nemo_gym.0",
            1688,
        )
    ],
}


def test_status_table_has_the_026_columns():
    table = nel_status_table(list(STATUS_FIXTURES["status/nel_status.txt"]))
    header = [cell.strip() for cell in table.splitlines()[0].split("|")]
    assert header == ["Job ID", "Status", "Requests Processed", "Slurm Job ID", "Location"]


@pytest.mark.parametrize("name", sorted(STATUS_FIXTURES))
def test_scenario_status_tables_are_what_nel_prints(name):
    text = (EVAL_FILES / name).read_text(encoding="utf-8")
    table = nel_status_table(STATUS_FIXTURES[name])
    assert table in text, (
        f"tests/evals/files/{name} no longer holds the table nel 0.2.6 prints; paste:\n{table}"
    )


# ------------------------------------------------------------------- run.sub and logs


def _as_regex(pattern: str) -> re.Pattern[str]:
    """A SLURM --output file pattern as a regex over file names (%A job id, %t task,
    ${g} the instance of the launcher's server loop)."""
    parts = re.split(r"(%A|%t|\$\{g\})", Path(pattern).name)
    body = "".join(r"\d+" if p in ("%A", "%t", "${g}") else re.escape(p) for p in parts)
    return re.compile(body + r"\Z")


def _structure(script: str) -> list[str]:
    """The lines both scripts share, with paths, ids and images reduced to placeholders."""
    keep = re.compile(
        r"^(#SBATCH --(nodes|output|job-name|no-requeue|exclusive)\b|TASK_DIR=|NEL_INVOCATION_ID="
        r"|for \(\(g=0|\s*srun --mpi pmix --overlap --nodelist)"
    )
    out = []
    for line in script.splitlines():
        if not keep.match(line):
            continue
        if "srun" in line:
            found = re.search(r"--output (\S+)", line)
            line = f"srun ... --output {found.group(1) if found else ''}"
        line = re.sub(r"/\S*/(logs/)", r"<task>/\1", line)
        line = re.sub(r'"/\S+"', '"<task>"', line)
        line = re.sub(r'"[0-9a-f]{16}"', '"<id>"', line)
        line = re.sub(r"(--job-name|--nodes|g<)\s*\S+", r"\1 N", line)
        if line.startswith("srun ... --output") and "logs/" not in line:
            continue  # the proxy's and the node-IP probes' sruns
        out.append(line)
    return out


@pytest.fixture(scope="module")
def real_script(tmp_path_factory) -> str:
    from helpers.nel import blank_paths, dry_run

    template = REPO / "recipes" / "examples" / "gym" / "example_mrcr.yaml"
    fill = {}
    for key in blank_paths(template):
        if key.endswith(("container", "image")):
            fill[key] = "nvcr.io/example/gym-git:1.0"
        elif key.endswith(("dir", "path")):
            fill[key] = str(tmp_path_factory.mktemp("out"))
        else:
            fill[key] = "auto"
    result = dry_run(template, fill)
    assert result.returncode == 0, result.stderr[-2000:]
    (script,) = result.scripts
    return script


@pytest.mark.launcher
def test_generated_log_names_match_the_launchers_output_patterns(real_script, tmp_path):
    patterns = re.findall(r"--output (\S+)", real_script)
    assert any(p.endswith("logs/server-${g}-%A-%t.log") for p in patterns)
    assert any(p.endswith("logs/client-%A.log") for p in patterns)
    regexes = [_as_regex(p) for p in patterns]
    task = write_mrcr_run(tmp_path, n_items=6, limit=6, instances=4)
    names = sorted(p.name for p in (task / "logs").iterdir())
    assert len(names) == 1 + 1 + 4  # slurm, client, one server log per instance
    for name in names:
        assert any(rx.match(name) for rx in regexes), (name, patterns)


@pytest.mark.launcher
def test_abridged_run_sub_keeps_the_real_scripts_lines_in_order(real_script, tmp_path):
    ours = _structure((write_mrcr_run(tmp_path, n_items=3, limit=3) / "run.sub").read_text())
    theirs = _structure(real_script)
    assert ours, "nothing recognised in the generator's run.sub"
    # Every line we keep appears in the real script, in the same order.
    position = 0
    for line in ours:
        assert line in theirs[position:], (line, theirs)
        position = theirs.index(line, position) + 1
