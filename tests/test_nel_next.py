"""scripts/nel-next.sh with stub uv/ssh/rsync/nel, and the structure of the nel-next template."""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parent.parent
SCRIPT = REPO / "scripts" / "nel-next.sh"
TEMPLATE = REPO / "recipes" / "examples" / "example_eval_next.yaml"
PIN = "4d081325170aababd0c8f27c58bed31a81ce82ac"
ORIGIN = "https://github.com/NVIDIA-NeMo/Evaluator.git"
PINNED_SPEC = f"nemo-evaluator[harbor,export] @ git+{ORIGIN}@{PIN}"


def _write_exe(path: Path, body: str) -> None:
    path.write_text("#!/usr/bin/env bash\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


# uv stub: `uv venv ... DIR` makes DIR/bin; `uv pip install --python PY SPEC` drops a nel
# that logs its argv and a python that forwards to this interpreter (it has pyyaml).
UV_STUB = f"""
echo "uv $*" >> "$STUB_LOG"
if [ "$1" = venv ]; then
  for last; do :; done
  mkdir -p "$last/bin"
elif [ "$1" = pip ]; then
  py=""
  while [ $# -gt 0 ]; do
    if [ "$1" = --python ]; then py=$2; shift; fi
    shift
  done
  bin=$(dirname "$py")
  printf '#!/usr/bin/env bash\\nexec {sys.executable} "$@"\\n' > "$bin/python"
  printf '#!/usr/bin/env bash\\necho "env-nel $*" >> "$STUB_LOG"\\n' > "$bin/nel"
  chmod +x "$bin/python" "$bin/nel"
fi
"""

# ssh stub: the "cluster" is this machine, so the remote command runs here.
SSH_STUB = """
echo "ssh $*" >> "$STUB_LOG"
for last; do :; done
bash -c "$last"
"""

# rsync stub: `rsync -a [--exclude=P ...] HOST:SRC/ DEST/` copies SRC locally, leaving out
# names that match an exclude pattern (rsync's own matching for plain names and globs).
RSYNC_STUB = f"""
echo "rsync $*" >> "$STUB_LOG"
exec {sys.executable} - "$@" <<'PY'
import fnmatch, shutil, sys
args = sys.argv[1:]
pats = [a.split("=", 1)[1] for a in args if a.startswith("--exclude=")]
src, dest = [a for a in args if not a.startswith("-")][-2:]
src = src.split(":", 1)[1]
ignore = lambda d, names: [n for n in names if any(fnmatch.fnmatch(n, p) for p in pats)]
try:
    shutil.copytree(src, dest, ignore=ignore, dirs_exist_ok=True)
except FileNotFoundError:
    sys.exit(23)
PY
"""

# git stub: ls-remote succeeds unless STUB_GIT_FAIL is set (an unreachable origin).
GIT_STUB = """
echo "git $*" >> "$STUB_LOG"
[ -z "${STUB_GIT_FAIL:-}" ] || { echo "fatal: unable to access" >&2; exit 128; }
"""

# Stands for an installed Python 3.12 (a guess at its behaviour: it passes the version
# probe, everything else runs on this interpreter).
PY312_STUB = f"""
[ "$1" = -c ] && exit 0
exec {sys.executable} "$@"
"""

DECOY_NEL = """
echo "DECOY nel $*" >> "$STUB_LOG"
exit 99
"""


@pytest.fixture
def sandbox(tmp_path):
    stubs = tmp_path / "bin"
    stubs.mkdir()
    _write_exe(stubs / "uv", UV_STUB)
    _write_exe(stubs / "ssh", SSH_STUB)
    _write_exe(stubs / "rsync", RSYNC_STUB)
    _write_exe(stubs / "nel", DECOY_NEL)
    _write_exe(stubs / "git", GIT_STUB)
    _write_exe(stubs / "python3.12", PY312_STUB)
    log = tmp_path / "calls.log"
    log.touch()
    env = {
        "PATH": f"{stubs}:/usr/bin:/bin",
        "HOME": str(tmp_path / "home"),
        "NEL_NEXT_HOME": str(tmp_path / "nel-next"),
        "STUB_LOG": str(log),
        "STUB_FIND_OUTPUT": str(tmp_path / "find.out"),
    }

    class Box:
        root = tmp_path
        bin = stubs
        venv = tmp_path / "nel-next" / "venv"

        def run(self, *args: str, extra_env: dict[str, str] | None = None):
            full = dict(env, **(extra_env or {}))
            return subprocess.run(
                ["bash", str(SCRIPT), *args], env=full, capture_output=True, text=True, timeout=60
            )

        def calls(self) -> list[str]:
            return log.read_text().splitlines()

    return Box()


def test_shellcheck_clean():
    shellcheck = shutil.which("shellcheck") or str(Path(sys.executable).parent / "shellcheck")
    proc = subprocess.run([shellcheck, str(SCRIPT)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_help_and_no_arguments(sandbox):
    shown = sandbox.run("--help")
    assert shown.returncode == 0
    assert "mlflow-push -r RUN_ID -c CONFIG" in shown.stdout
    assert PINNED_SPEC in shown.stdout
    bare = sandbox.run()
    assert bare.returncode == 2
    assert sandbox.calls() == []


def test_which_needs_setup_then_points_into_the_env(sandbox):
    before = sandbox.run("--which")
    assert before.returncode == 1
    assert "--setup-only" in before.stderr
    setup = sandbox.run("--setup-only")
    assert setup.returncode == 0, setup.stderr
    calls = sandbox.calls()
    assert calls[0] == f"git ls-remote {ORIGIN} HEAD"
    assert calls[1] == f"uv venv --quiet --python {sandbox.bin}/python3.12 {sandbox.venv}"
    assert calls[2] == f"uv pip install --quiet --python {sandbox.venv}/bin/python {PINNED_SPEC}"
    which = sandbox.run("--which")
    assert which.returncode == 0
    assert which.stdout.strip() == f"{sandbox.venv}/bin/nel"


def test_spec_override_reinstalls(sandbox):
    assert sandbox.run("--setup-only").returncode == 0
    other = "nemo-evaluator[harbor,export]==0.3.0"
    assert sandbox.run("--setup-only", extra_env={"NEL_NEXT_SPEC": other}).returncode == 0
    installs = [c for c in sandbox.calls() if c.startswith("uv pip install")]
    assert installs[-1].endswith(other)
    # Back on the pin, --which is stale until set up again.
    assert sandbox.run("--which").returncode == 1


def test_version_reports_spec(sandbox):
    assert sandbox.run("--setup-only").returncode == 0
    shown = sandbox.run("--version")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith("nemo-evaluator ")
    assert f"spec: {PINNED_SPEC}" in shown.stdout


def test_arguments_pass_through_to_the_env_nel_only(sandbox):
    args = ["eval", "run", "cfg.yaml", "--dry-run", "-O", "benchmarks.0.repeats=1"]
    first = sandbox.run(*args)
    assert first.returncode == 0, first.stderr
    second = sandbox.run("eval", "status", "-r", "abc123")
    assert second.returncode == 0
    calls = sandbox.calls()
    assert "env-nel eval run cfg.yaml --dry-run -O benchmarks.0.repeats=1" in calls
    assert "env-nel eval status -r abc123" in calls
    assert not any(c.startswith("DECOY") for c in calls)
    # Installed once, reused after.
    assert sum(c.startswith("uv venv") for c in calls) == 1


PUSH_CONFIG = """
cluster:
  type: slurm
  hostname: login.example
  username: ${PUSH_USER}
output:
  dir: OUT_DIR
  export: [mlflow]
  export_config:
    mlflow:
      tracking_uri: ${MLFLOW_TRACKING_URI}
      experiment_name: team/model-tb21
      copy_logs: true
      exclude_patterns: ["shard*", "model_traffic.jsonl"]
      tags:
        temperature: "1.0"
"""


def _fake_run(root: Path) -> Path:
    """A finished sharded run on the 'cluster': merged bundle, shard copies, logs."""
    out = root / "remote" / "lustre" / "evals"
    run = out / "run42-tb21"
    (run / "terminal_bench_2_1").mkdir(parents=True)
    (run / "terminal_bench_2_1" / "eval-terminal_bench_2_1.json").write_text("{}")
    (run / "terminal_bench_2_1" / "model_traffic.jsonl").write_text("{}\n")
    (run / "shard_0" / "terminal_bench_2_1").mkdir(parents=True)
    (run / "shard_0" / "terminal_bench_2_1" / "eval-terminal_bench_2_1.json").write_text("{}")
    (run / "logs").mkdir()
    (run / "logs" / "slurm-1.log").write_text("done\n")
    return out


def _push_setup(sandbox, copy_logs: bool = True) -> tuple[Path, Path]:
    out = _fake_run(sandbox.root)
    cfg = sandbox.root / "next.yaml"
    text = PUSH_CONFIG.replace("OUT_DIR", str(out))
    cfg.write_text(text if copy_logs else text.replace("copy_logs: true", "copy_logs: false"))
    assert sandbox.run("--setup-only").returncode == 0
    return cfg, out


def test_mlflow_push_stages_the_run_directory_and_exports(sandbox):
    cfg, out = _push_setup(sandbox)
    env = {"MLFLOW_TRACKING_URI": "http://mlflow.test:5000", "PUSH_USER": "alice"}
    pushed = sandbox.run(
        "mlflow-push", "-r", "run42", "-c", str(cfg), "--", "-o", "x=1", extra_env=env
    )
    assert pushed.returncode == 0, pushed.stderr
    calls = sandbox.calls()
    ssh = next(c for c in calls if c.startswith("ssh "))
    assert ssh.startswith(f"ssh alice@login.example find '{out}' -path '*run42*'")
    assert "! -path '*shard_*'" in ssh
    stage = sandbox.root / "nel-next" / "runs" / "run42"
    # One directory deep, where nel export looks; logs beside it; no shard or traffic copy.
    assert (stage / "terminal_bench_2_1" / "eval-terminal_bench_2_1.json").is_file()
    assert (stage / "logs" / "slurm-1.log").is_file()
    assert not (stage / "shard_0").exists()
    assert not (stage / "terminal_bench_2_1" / "model_traffic.jsonl").exists()
    export = next(c for c in calls if c.startswith("env-nel export"))
    assert export.startswith(
        f"env-nel export {stage} --dest mlflow -o tracking_uri=http://mlflow.test:5000"
    )
    assert "-o experiment_name=team/model-tb21" in export
    assert '-o exclude_patterns=["shard*", "model_traffic.jsonl"]' in export
    assert export.endswith("-o emit_traces=false -o x=1")
    assert not any(c.startswith("DECOY") for c in calls)


def test_mlflow_push_leaves_logs_without_copy_logs(sandbox):
    cfg, _ = _push_setup(sandbox, copy_logs=False)
    env = {"MLFLOW_TRACKING_URI": "http://m:5000", "PUSH_USER": "a"}
    assert sandbox.run("mlflow-push", "-r", "run42", "-c", str(cfg), extra_env=env).returncode == 0
    stage = sandbox.root / "nel-next" / "runs" / "run42"
    assert (stage / "terminal_bench_2_1").is_dir()
    assert not (stage / "logs").exists()


def test_mlflow_push_refuses_oc_env_username(sandbox):
    cfg, _ = _push_setup(sandbox)
    cfg.write_text(cfg.read_text().replace("${PUSH_USER}", "${oc.env:PUSH_USER}"))
    env = {"MLFLOW_TRACKING_URI": "http://m:5000", "PUSH_USER": "a"}
    refused = sandbox.run("mlflow-push", "-r", "run42", "-c", str(cfg), extra_env=env)
    assert refused.returncode == 2
    assert "cluster.username" in refused.stderr
    assert not any(c.startswith("ssh") for c in sandbox.calls())


def test_mlflow_push_refuses_without_tracking_uri(sandbox):
    cfg, _ = _push_setup(sandbox)
    refused = sandbox.run(
        "mlflow-push", "-r", "run42", "-c", str(cfg), extra_env={"PUSH_USER": "a"}
    )
    assert refused.returncode == 2
    assert "MLFLOW_TRACKING_URI" in refused.stderr
    assert not any(c.startswith(("ssh", "rsync", "env-nel export")) for c in sandbox.calls())


def test_mlflow_push_usage_errors(sandbox):
    assert sandbox.run("mlflow-push", "-c", "x.yaml").returncode == 2
    assert sandbox.run("mlflow-push", "-r", "a b", "-c", str(TEMPLATE)).returncode == 2
    assert sandbox.run("mlflow-push", "-r", "r1", "-c", "missing.yaml").returncode == 2
    assert sandbox.calls() == []


def test_mlflow_push_fails_when_no_merged_results(sandbox):
    cfg, _ = _push_setup(sandbox)
    env = {"MLFLOW_TRACKING_URI": "http://m:5000", "PUSH_USER": "a"}
    failed = sandbox.run("mlflow-push", "-r", "run99", "-c", str(cfg), extra_env=env)
    assert failed.returncode == 1
    assert "no merged eval-*.json" in failed.stderr


# --- the nel-next template ---------------------------------------------------------


@pytest.fixture(scope="module")
def next_config() -> dict:
    return yaml.safe_load(TEMPLATE.read_text())


def test_template_top_level_shape(next_config):
    assert set(next_config) == {"services", "benchmarks", "cluster", "output"}
    assert len(next_config["benchmarks"]) == 1
    mlflow = next_config["output"]["export_config"]["mlflow"]
    assert mlflow["tracking_uri"] == "${MLFLOW_TRACKING_URI}"
    assert {"shard*", "model_traffic.jsonl"} <= set(mlflow["exclude_patterns"])
    assert "mlflow" in next_config["output"]["export"]


def test_template_follows_nel_next_rules(next_config):
    bench = next_config["benchmarks"][0]
    cluster = next_config["cluster"]
    service = next_config["services"][bench["solver"]["service"]]
    proxy = service["proxy"]
    llm_timeout = bench["solver"]["agent_kwargs"]["llm_kwargs"]["timeout"]
    assert proxy["request_timeout"] >= llm_timeout
    chain = [i["name"] for i in proxy["interceptors"]]
    assert "http_pairs_dump" not in chain
    drop = next(i for i in proxy["interceptors"] if i["name"] == "drop_params")
    assert drop["config"]["params"] == [
        "max_tokens",
        "max_completion_tokens",
        "max_input_tokens_per_task",
        "no_rebuild",
    ]
    assert bench["max_concurrent"] == bench["sandbox"]["concurrency"]
    assert bench["sandbox"]["region"] == cluster["container_env"]["AWS_DEFAULT_REGION"]
    assert cluster["mount_home"] is False
    assert cluster["auto_resume"] is True
    assert cluster["max_retries"] == 3
    assert cluster["eval_image"] == "${NEL_NEXT_EVAL_IMAGE}"
    gpus = cluster["node_pools"][service["node_pool"]]["gpus_per_node"]
    assert gpus == service["tensor_parallel_size"] * service["data_parallel_size"]
    flags = " ".join(service["extra_args"])
    assert "parallel-size" not in flags
    seqs = re.search(r"--max-num-seqs=(\d+)", flags)
    if seqs:
        dp = service["data_parallel_size"]
        assert int(seqs.group(1)) == -(-bench["max_concurrent"] // dp)
    assert not service["image"].endswith(":latest")


def test_template_terminal_bench_settings(next_config):
    bench = next_config["benchmarks"][0]
    assert bench["playbook"] == "terminal_bench_2_1"
    assert bench["repeats"] == 8
    assert bench["max_concurrent"] == 50
    assert bench["solver"]["timeout_strategy"] == "max"
    assert bench["solver"]["run_timeout"] == 7200
    assert bench["sandbox"]["region"] == "${HARBOR_ECS_REGION:-us-east-1}"


def test_template_tags_mirror_generation(next_config):
    generation = next_config["services"]["model"]["generation"]
    tags = next_config["output"]["export_config"]["mlflow"]["tags"]
    for key in ("temperature", "top_p"):
        assert tags[key] == str(generation[key])


def test_template_blanks_are_only_question_marks():
    text = TEMPLATE.read_text()
    assert "CHANGEME" not in text
    assert not re.search(r"<[A-Z][A-Z0-9_]*>", text)
    for line in text.splitlines():
        body = line.split(" #")[0]
        if "???" in body and not body.lstrip().startswith("#"):
            assert re.search(r"(:|-) \?\?\?$", body.rstrip()), line


def test_template_canary_overrides_resolve(next_config):
    # The documented canary overrides address keys that exist in the template.
    bench = next_config["benchmarks"][0]
    assert "repeats" in bench and "max_concurrent" in bench
    assert "-O benchmarks.0.max_problems=2" in TEMPLATE.read_text()
    assert os.path.basename(SCRIPT) in TEMPLATE.read_text()


def test_env_example_lists_every_variable_the_templates_read():
    env_example = REPO / "recipes" / "env.example"
    listed = set(re.findall(r"^([A-Z][A-Z0-9_]*)=", env_example.read_text(), flags=re.M))
    used: set[str] = set()
    for template in (REPO / "recipes" / "examples").rglob("*.yaml"):
        lines = template.read_text().splitlines()
        text = "\n".join(ln for ln in lines if not ln.lstrip().startswith("#"))
        used |= set(re.findall(r"host:([A-Z][A-Z0-9_]*)", text))
        used |= set(re.findall(r"\$\{(?:oc\.env:)?([A-Z][A-Z0-9_]*)", text))
    used -= {"USER"}  # set by the login shell
    assert used, "no variables found: the pattern is broken"
    assert used <= listed, sorted(used - listed)
    for required in ("NEMO_EVALUATOR_TRUST_PRE_CMD", "NEMO_EVALUATOR_TRUST_UNLISTED_TASKS"):
        assert required in listed
    assert not re.search(r"^[A-Z][A-Z0-9_]*=\S", env_example.read_text(), flags=re.M)


# --- setup failure modes: one line naming what failed and the way out -------------


def _one_line(text: str) -> str:
    """The failure message: the one line besides the 'installing' progress note."""
    lines = [ln for ln in text.splitlines() if ln.strip() and ": installing " not in ln]
    assert len(lines) == 1, text
    return lines[0]


def test_version_and_which_never_install(sandbox):
    for flag in ("--version", "--which"):
        shown = sandbox.run(flag)
        assert shown.returncode == 1
        assert "--setup-only" in _one_line(shown.stderr)
    assert sandbox.calls() == []
    assert not sandbox.venv.exists()


def test_unreachable_origin_names_the_ways_out(sandbox):
    failed = sandbox.run("--setup-only", extra_env={"STUB_GIT_FAIL": "1"})
    assert failed.returncode == 1
    line = _one_line(failed.stderr)
    assert f"cannot reach {ORIGIN}" in line
    for way_out in ("NEL_NEXT_ORIGIN", "NEL_NEXT_SPEC", ".whl[harbor,export]"):
        assert way_out in line
    assert not any(c.startswith("uv") for c in sandbox.calls())


def test_mirror_origin_installs_the_same_commit(sandbox):
    mirror = "https://git.mirror.example/NVIDIA-NeMo/Evaluator.git"
    done = sandbox.run("--setup-only", extra_env={"NEL_NEXT_ORIGIN": mirror})
    assert done.returncode == 0, done.stderr
    calls = sandbox.calls()
    assert f"git ls-remote {mirror} HEAD" in calls
    install = next(c for c in calls if c.startswith("uv pip install"))
    assert install.endswith(f"nemo-evaluator[harbor,export] @ git+{mirror}@{PIN}")


def test_local_wheel_spec_skips_the_git_probe(sandbox):
    wheel = "/opt/wheels/nemo_evaluator-0.3.0-py3-none-any.whl[harbor,export]"
    done = sandbox.run("--setup-only", extra_env={"NEL_NEXT_SPEC": wheel})
    assert done.returncode == 0, done.stderr
    calls = sandbox.calls()
    assert not any(c.startswith("git") for c in calls)
    assert calls[-1].endswith(wheel)


def test_no_uv_says_so_in_one_line(sandbox):
    (sandbox.bin / "uv").unlink()
    failed = sandbox.run("--setup-only")
    assert failed.returncode == 1
    assert "uv is not on PATH" in _one_line(failed.stderr)


def test_no_python_312_never_lets_uv_download_one(sandbox):
    (sandbox.bin / "python3.12").unlink()  # leaves /usr/bin/python3, older than 3.12
    failed = sandbox.run("--setup-only")
    assert failed.returncode == 1
    line = _one_line(failed.stderr)
    assert "no Python 3.12 or 3.13 on PATH" in line and "NEL_NEXT_PYTHON" in line
    assert not any(c.startswith("uv") for c in sandbox.calls())
    bad = sandbox.run("--setup-only", extra_env={"NEL_NEXT_PYTHON": "/usr/bin/python3"})
    assert "NEL_NEXT_PYTHON=/usr/bin/python3 is not a working Python 3.12" in bad.stderr


def test_python_named_by_variable_is_used(sandbox):
    named = sandbox.root / "py312"
    named.write_text((sandbox.bin / "python3.12").read_text())
    named.chmod(0o755)
    (sandbox.bin / "python3.12").unlink()
    done = sandbox.run("--setup-only", extra_env={"NEL_NEXT_PYTHON": str(named)})
    assert done.returncode == 0, done.stderr
    assert f"uv venv --quiet --python {named} {sandbox.venv}" in sandbox.calls()


def test_uv_runs_with_python_downloads_off(sandbox):
    (sandbox.bin / "uv").write_text(
        '#!/usr/bin/env bash\necho "uv $* downloads=$UV_PYTHON_DOWNLOADS" >> "$STUB_LOG"\nexit 1\n'
    )
    failed = sandbox.run("--setup-only")
    assert failed.returncode == 1
    assert sandbox.calls()[-1].endswith("downloads=never")
    assert "uv could not create" in _one_line(failed.stderr)


def test_index_failure_quotes_uv_and_names_the_ways_out(sandbox):
    uv = sandbox.bin / "uv"
    uv.write_text(
        uv.read_text().replace(
            'elif [ "$1" = pip ]; then',
            'elif [ "$1" = pip ]; then\n'
            '  echo "error: Failed to fetch: https://pypi.org/simple/x/" >&2; exit 2\n'
            "elif false; then",
        )
    )
    failed = sandbox.run("--setup-only", extra_env={"NEL_NEXT_SPEC": "nemo-evaluator==0.3.0"})
    assert failed.returncode == 1
    line = _one_line(failed.stderr)
    assert "could not install nemo-evaluator==0.3.0: error: Failed to fetch" in line
    assert "NEL_NEXT_ORIGIN" in line and "install.log" in line


def test_an_inactive_pyenv_shim_is_passed_over_for_pyenvs_own_312(sandbox):
    # pyenv's `root` and `versions --bare` (pyenv 2.x) reduced to what the script asks; a
    # shim of an inactive version exits non-zero, as pyenv's does. Stand-ins, not pyenv.
    real = sandbox.root / "pyenv-root" / "versions" / "3.12.1" / "bin" / "python3.12"
    real.parent.mkdir(parents=True)
    real.write_text((sandbox.bin / "python3.12").read_text())
    real.chmod(0o755)
    shim = sandbox.bin / "python3.12"
    shim.write_text("#!/usr/bin/env bash\necho 'pyenv: python3.12: not found' >&2\nexit 127\n")
    pyenv = sandbox.bin / "pyenv"
    pyenv.write_text(
        "#!/usr/bin/env bash\n"
        f'case "$1" in root) echo "{sandbox.root / "pyenv-root"}";; '
        'versions) printf "3.11.7\\n3.12.1\\n";; esac\n'
    )
    pyenv.chmod(0o755)
    done = sandbox.run("--setup-only")
    assert done.returncode == 0, done.stderr
    assert f"uv venv --quiet --python {real} {sandbox.venv}" in sandbox.calls()


def test_mlflow_push_stops_on_an_unset_variable_as_nel_next_does(sandbox):
    # nel-next's _expand_env (config/eval_config.py, 0.3.0) raises for ${VAR} unset with no
    # default; connecting as "@host" instead would pick the local user silently.
    cfg, _ = _push_setup(sandbox)
    refused = sandbox.run(
        "mlflow-push", "-r", "run42", "-c", str(cfg),
        extra_env={"MLFLOW_TRACKING_URI": "http://m:5000"},
    )  # fmt: skip
    assert refused.returncode == 2
    assert "${PUSH_USER} is not set and has no default" in refused.stderr
    assert not any(c.startswith(("ssh", "rsync")) for c in sandbox.calls())
