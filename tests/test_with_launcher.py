"""`preflight --with-launcher` against the real nel 0.2.6 dry-run (issue 15).

The oracle is `bash -n` on the files the launcher itself renders: the local executor
leaves them in `output_dir`; the SLURM executor writes `run.sub` into a temporary
directory it deletes, so `KEEPER` runs the real `nel` with that directory kept.
evalkit's split of the printed output must equal those files byte for byte, and NEL802
may fire only where `bash -n` on a real file fails.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from evalkit.preflight import launcher
from evalkit.preflight.runner import Options, check_launcher
from helpers.launcher import route_dry_runs
from helpers.nel import DRY_RUN_ENV, blank_paths, nel_executable
from test_templates import EXTRA_ENV, IDS, TEMPLATES, fill_value

# Runs nel 0.2.6's own CLI in a fresh process with tempfile.TemporaryDirectory kept under
# $EVALKIT_KEEP (helpers/keep.py), so the SLURM executor's run.sub files survive.
KEEPER = f"""\
import sys, tempfile
sys.path.insert(0, {str(Path(__file__).resolve().parent)!r})
from helpers.keep import Kept
tempfile.TemporaryDirectory = Kept
from nemo_evaluator_launcher.cli.main import main
sys.exit(main())
"""


# A minimal 0.2.6 config: one listed task against an existing endpoint (no deployment).
BASE = {
    "defaults": [{"execution": "slurm/default"}, {"deployment": "none"}, "_self_"],
    "execution": {
        "hostname": "login.cluster.example.com",
        "username": "${oc.env:USER}",
        "account": "eval_account",
        "partition": "batch",
        "output_dir": "/lustre/evals/output",
        "mounts": {"mount_home": False},
    },
    "target": {
        "api_endpoint": {
            "url": "https://api.example.com/v1/chat/completions",
            "model_id": "org/model-under-test",
            "api_key_name": "DUMMY_API_KEY",
        }
    },
    "evaluation": {"tasks": [{"name": "lm-evaluation-harness.ifeval"}]},
}
EXPORTS = {
    "mlflow": {"tracking_uri": "http://127.0.0.1:5000", "experiment_name": "evalkit-ci"},
    "wandb": {"entity": "evalkit-ci", "project": "model-under-test"},
}
PIN = 'pip install "nemo-evaluator-launcher[all]==0.2.6"'


def make_config(tmp: Path, executor: str, dest: str | None, **execution) -> Path:
    cfg = yaml.safe_load(yaml.safe_dump(BASE))
    cfg["defaults"][0] = {"execution": executor}
    if executor == "local":
        cfg["execution"] = {"output_dir": str(tmp / "out")}
    if dest:
        cfg["execution"]["auto_export"] = {"destinations": [dest], "launcher_install_cmd": PIN}
        cfg["export"] = {dest: EXPORTS[dest]}
        if executor != "local":
            cfg["execution"]["cpu_partition"] = "cpu"
    cfg["execution"].update(execution)
    path = tmp / "config.yaml"
    path.write_text(yaml.safe_dump(cfg, sort_keys=False))
    return path


@pytest.fixture
def keeper(tmp_path, monkeypatch, request):
    """A `--nel` executable that keeps the rendered files, and where it keeps them. Run
    in this worker unless the test is marked `entrypoint` (then a fresh process)."""
    nel = nel_executable()
    if nel is None:
        pytest.skip("nel 0.2.6 is not installed")
    kept = tmp_path / "kept"
    kept.mkdir()
    runner = tmp_path / "keeper.py"
    runner.write_text(KEEPER)
    wrapper = tmp_path / "nel-keep"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{runner}" "$@"\n')
    wrapper.chmod(0o755)
    for key, value in {**DRY_RUN_ENV, **EXTRA_ENV, "EVALKIT_KEEP": str(kept)}.items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(tmp_path)  # no stray .env
    if request.node.get_closest_marker("entrypoint") is None:
        # nel 0.2.6 in this worker with the same kept directories (7-9 s less per dry-run;
        # tests/test_launcher_in_process.py holds in-process runs to the CLI's verdicts).
        route_dry_runs(monkeypatch, keeper=str(wrapper))
    return str(wrapper), kept


def real_files(result: launcher.LauncherResult, kept: Path) -> list[str]:
    """The files the launcher rendered, read from disk (local: output_dir; slurm: kept)."""
    saved = re.search(r"Scripts prepared and saved to (\S+)", result.stdout)
    if saved:
        root = Path(saved.group(1))
        names = ["run_all.sequential.sh"] if (root / "run_all.sequential.sh").exists() else []
        paths = [root / n for n in names] or sorted(root.glob("*/run.sh"))
    else:
        paths = sorted(kept.rglob("run.sub"))
    return [p.read_text() for p in paths]


def bash_n(text: str, tmp: Path) -> subprocess.CompletedProcess:
    target = tmp / "real.sh"
    target.write_text(text)
    return subprocess.run(["bash", "-n", str(target)], capture_output=True, text=True)


def nel802(findings: list[dict]) -> list[str]:
    return [f["message"] for f in findings if f["rule"] == "NEL802"]


def cli_findings(run_cli, config: Path, nel: str, overrides=()) -> list[dict]:
    args = ["preflight", str(config), "--with-launcher", "--nel", nel, "--format", "json"]
    for item in overrides:
        args += ["-o", item]
    code, out, err = run_cli(*args)
    assert code in (0, 1), err
    findings = json.loads(out)["findings"]
    assert not [f for f in findings if f["rule"] == "NEL801"], findings
    return findings


# --- the split itself, on text laid out as nel 0.2.6 prints it ----------------------
# Header and footer lines copied from the print calls in nemo-evaluator-launcher 0.2.6,
# executors/slurm/executor.py (execute_eval, dry_run branch); bodies written here.
SLURM_OUT = """\
DRY RUN: SLURM scripts prepared


=========== Task 0 =====================


#!/bin/bash
#SBATCH --job-name=t0
if true; then
    cat > /out/export.sbatch << 'EXPORT_EOF'
#!/bin/bash
#SBATCH --job-name=nel-export
=========== Task 1 =====================
EXPORT_EOF
else
    echo skipped
fi


----------- Secrets (redacted) | Task 0 / .secrets.env -----------

export HF_TOKEN=<redacted>

=========== Task 1 =====================


#!/bin/bash
echo "a literal <<NOT_A_HEREDOC in quotes"
echo task1

To submit jobs, run the executor without --dry-run
"""


def test_split_follows_launcher_headers_not_shebangs():
    scripts = launcher.rendered_scripts(SLURM_OUT)
    assert [s.name for s in scripts] == ["Task 0 run.sub", "Task 1 run.sub"]
    first, second = (s.text for s in scripts)
    assert first.startswith("#!/bin/bash\n#SBATCH --job-name=t0\n")
    assert first.endswith("    echo skipped\nfi\n")
    assert "=========== Task 1 =====================\nEXPORT_EOF\n" in first
    assert "redacted" not in first
    assert second == '#!/bin/bash\necho "a literal <<NOT_A_HEREDOC in quotes"\necho task1\n'
    assert launcher.bash_syntax_errors(scripts) == []


def test_split_strips_colour_codes():
    cyan, grey, reset = "\x1b[36m", "\x1b[90m", "\x1b[0m"
    coloured = SLURM_OUT.replace(
        "=========== Task 0 =====================",
        f"{cyan}=========== Task 0 ====================={reset}",
    ).replace("#!/bin/bash\n#SBATCH --job-name=t0", f"{grey}#!/bin/bash\n#SBATCH --job-name=t0")
    assert [s.name for s in launcher.rendered_scripts(coloured)] == [
        "Task 0 run.sub",
        "Task 1 run.sub",
    ]


def test_real_error_names_script_line_and_text():
    out = SLURM_OUT.replace("    echo skipped\n", "    echo skipped\nfi\n")
    (failure,) = launcher.bash_syntax_errors(launcher.rendered_scripts(out))
    assert failure.script == "Task 0 run.sub"
    assert failure.line == 12
    assert failure.source == "fi"
    assert "unexpected token `fi'" in failure.message


# --- the real launcher ----------------------------------------------------------------
# The case runs the keeper as a fresh process (the `entrypoint` mark), the rest
# in the worker.
MATRIX = [
    pytest.param(
        ex,
        dest,
        id=f"{ex.split('/')[0]}-{dest or 'no-export'}",
        marks=[pytest.mark.entrypoint] if (ex, dest) == ("slurm/default", "mlflow") else [],
    )
    for ex in ("slurm/default", "local")
    for dest in (None, "mlflow", "wandb")
]


@pytest.mark.launcher
@pytest.mark.parametrize(("executor", "dest"), MATRIX)
def test_split_equals_the_rendered_files(executor, dest, keeper, tmp_path):
    """Includes the issue's case: a sound SLURM config with MLflow auto-export, whose
    run.sub carries the export job's own `#!/bin/bash` inside a here-document."""
    nel, kept = keeper
    config = make_config(tmp_path, executor, dest)
    result = launcher.dry_run(str(config), [], nel)
    assert result.returncode == 0, result.stderr[-2000:]
    files = real_files(result, kept)
    assert files, "the launcher rendered no file"
    assert sorted(result.scripts) == sorted(files)
    for text in files:
        assert bash_n(text, tmp_path).returncode == 0
    assert result.syntax_errors == []
    findings = check_launcher(str(config), Options(), result)
    assert [f for f in findings if f.rule == "NEL802"] == []
    if dest:
        assert any(f"--dest {dest}" in text for text in files)
    if dest and executor.startswith("slurm"):
        (run_sub,) = files
        assert "<< 'EXPORT_EOF'\n#!/bin/bash\n" in run_sub


@pytest.mark.launcher
@pytest.mark.parametrize("template", TEMPLATES, ids=IDS)
def test_shipped_template_reports_no_nel802(template, keeper, run_cli, tmp_path):
    nel, kept = keeper
    overrides = [f"{k}={v}" for k, v in (fill_value(p) for p in blank_paths(template))]
    assert nel802(cli_findings(run_cli, template, nel, overrides)) == []
    files = [p.read_text() for p in kept.rglob("run.sub")]
    assert len(files) == len(yaml.safe_load(template.read_text())["evaluation"]["tasks"])
    assert all(bash_n(text, tmp_path).returncode == 0 for text in files)


@pytest.mark.launcher
def test_header_line_inside_a_heredoc_is_not_a_cut(keeper, tmp_path):
    """A multi-line launcher_install_cmd lands verbatim in the EXPORT_EOF here-document."""
    nel, kept = keeper
    install = f"{PIN}\n=========== Task 1 =====================\necho installed\n"
    config = make_config(tmp_path, "slurm/default", "mlflow")
    cfg = yaml.safe_load(config.read_text())
    cfg["execution"]["auto_export"]["launcher_install_cmd"] = install
    config.write_text(yaml.safe_dump(cfg, sort_keys=False))
    result = launcher.dry_run(str(config), [], nel)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.scripts == real_files(result, kept)
    assert result.syntax_errors == []


@pytest.mark.launcher
def test_broken_run_sub_is_reported_with_its_line(keeper, tmp_path, run_cli):
    """A quote in a mount path breaks the rendered run.sub itself (a true NEL802)."""
    nel, kept = keeper
    config = make_config(
        tmp_path,
        "slurm/default",
        None,
        mounts={"mount_home": False, "evaluation": {"/d/it's": "/d"}},
    )
    (message,) = nel802(cli_findings(run_cli, config, nel))
    (run_sub,) = [p.read_text() for p in kept.rglob("run.sub")]
    real = bash_n(run_sub, tmp_path)
    assert real.returncode != 0
    line = int(re.search(r": line (\d+): ", real.stderr).group(1))
    assert message.startswith(f"rendered script Task 0 run.sub fails `bash -n` at line {line}: ")
    assert "unexpected EOF while looking for matching" in message
    assert f"the line reads: {run_sub.splitlines()[line - 1].strip()[:160]}" in message


@pytest.mark.launcher
def test_broken_pre_cmd_is_reported_in_its_embedded_file(keeper, tmp_path, run_cli):
    nel, _ = keeper
    config = make_config(tmp_path, "slurm/default", None)
    cfg = yaml.safe_load(config.read_text())
    cfg["evaluation"]["pre_cmd"] = "echo start\nif true; then echo hi\n"
    config.write_text(yaml.safe_dump(cfg, sort_keys=False))
    (message,) = nel802(cli_findings(run_cli, config, nel))
    assert message.startswith("rendered script Task 0 run.sub > pre_cmd.sh fails `bash -n` at line")
    assert "syntax error: unexpected end of file" in message
    assert message.endswith("the line reads: if true; then echo hi")
