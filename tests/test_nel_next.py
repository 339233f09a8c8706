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
PINNED_SPEC = (
    "nemo-evaluator[harbor,export] @ git+https://github.com/NVIDIA-NeMo/Evaluator.git"
    "@4d081325170aababd0c8f27c58bed31a81ce82ac"
)


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

SSH_STUB = """
echo "ssh $*" >> "$STUB_LOG"
cat "$STUB_FIND_OUTPUT"
"""

RSYNC_STUB = """
echo "rsync $*" >> "$STUB_LOG"
list=""; dest=""
for a; do
  case $a in --files-from=*) list=${a#--files-from=} ;; esac
  dest=$a
done
while read -r f; do mkdir -p "$dest/$(dirname "$f")"; echo '{}' > "$dest/$f"; done < "$list"
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
    assert calls[0] == f"uv venv --quiet --python 3.12 {sandbox.venv}"
    assert calls[1] == f"uv pip install --quiet --python {sandbox.venv}/bin/python {PINNED_SPEC}"
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
  username: ${oc.env:PUSH_USER}
output:
  dir: /lustre/evals/tb21
  export: [mlflow]
  export_config:
    mlflow:
      tracking_uri: ${MLFLOW_TRACKING_URI}
      experiment_name: team/model-tb21
      exclude_patterns: ["shard*", "model_traffic.jsonl"]
      tags:
        temperature: "1.0"
"""


def test_mlflow_push_stages_merged_results_and_exports(sandbox):
    cfg = sandbox.root / "next.yaml"
    cfg.write_text(PUSH_CONFIG)
    (sandbox.root / "find.out").write_text(
        "/lustre/evals/tb21/run42/eval-terminal_bench_2_1.json\n"
    )
    env = {"MLFLOW_TRACKING_URI": "http://mlflow.test:5000", "PUSH_USER": "alice"}
    pushed = sandbox.run(
        "mlflow-push", "-r", "run42", "-c", str(cfg), "--", "-o", "x=1", extra_env=env
    )
    assert pushed.returncode == 0, pushed.stderr
    calls = sandbox.calls()
    ssh = next(c for c in calls if c.startswith("ssh "))
    assert ssh.startswith("ssh alice@login.example find '/lustre/evals/tb21' -path '*run42*'")
    assert "! -path '*shard_*'" in ssh
    rsync = next(c for c in calls if c.startswith("rsync "))
    assert "alice@login.example:/" in rsync
    stage = sandbox.root / "nel-next" / "runs" / "run42"
    assert (stage / "lustre/evals/tb21/run42/eval-terminal_bench_2_1.json").is_file()
    export = next(c for c in calls if c.startswith("env-nel export"))
    assert export.startswith(
        f"env-nel export {stage} --dest mlflow -o tracking_uri=http://mlflow.test:5000"
    )
    assert "-o experiment_name=team/model-tb21" in export
    assert '-o exclude_patterns=["shard*", "model_traffic.jsonl"]' in export
    assert export.endswith("-o emit_traces=false -o x=1")
    assert not any(c.startswith("DECOY") for c in calls)


def test_mlflow_push_refuses_without_tracking_uri(sandbox):
    cfg = sandbox.root / "next.yaml"
    cfg.write_text(PUSH_CONFIG)
    (sandbox.root / "find.out").write_text("/x/eval-a.json\n")
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
    cfg = sandbox.root / "next.yaml"
    cfg.write_text(PUSH_CONFIG)
    (sandbox.root / "find.out").write_text("")
    env = {"MLFLOW_TRACKING_URI": "http://m:5000", "PUSH_USER": "a"}
    failed = sandbox.run("mlflow-push", "-r", "run42", "-c", str(cfg), extra_env=env)
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
