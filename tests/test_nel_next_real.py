"""Every nel-next config the skill ships, loaded by the real nemo-evaluator 0.3.0, and
`mlflow-push` end to end against the real `nel export` (ssh and rsync stubbed)."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest
import yaml

from nel_next_env import NEWER_KEYS, RELEASE, SPEC, built_env, strip_newer
from test_nel_next import RSYNC_STUB, SSH_STUB, _write_exe

pytestmark = pytest.mark.network

REPO = Path(__file__).resolve().parent.parent
SCRIPT = REPO / "scripts" / "nel-next.sh"
TEMPLATE = REPO / "recipes" / "examples" / "example_eval_next.yaml"
RECIPES = sorted((REPO / "recipes" / "tasks" / "aa_next").glob("*.md"))
HELPER = Path(__file__).with_name("nel_next_validate.py")
# A newer build (e.g. a source checkout) to run the same checks against: its python.
NEWER = os.environ.get("EVALKIT_NEL_NEXT_NEWER_PYTHON")


def _env_vars() -> dict[str, str]:
    text = TEMPLATE.read_text() + "".join(p.read_text() for p in RECIPES)
    names = set(re.findall(r"\$\{([A-Za-z_]\w*)", text))
    return dict(os.environ, **{n: f"test-{n.lower()}" for n in names})


def _filled(config: dict) -> dict:
    # output.dir must be absolute for SLURM; every other ??? blank is a plain string.
    config["output"]["dir"] = "/lustre/evals/test"
    return config


def _fragment(recipe: Path) -> list:
    block = re.search(r"```yaml\n(.*?)```", recipe.read_text(), flags=re.S)
    return yaml.safe_load(block.group(1))["benchmarks"]


def _canary_overrides(text: str) -> list[str]:
    # The only -O overrides these files document are the canary's.
    found = re.findall(r"-O (\S+)", text)
    values = dict(o.split("=", 1) for o in found)
    # The canary keeps the skill's rule: max_concurrent == sandbox.concurrency.
    assert values.get("benchmarks.0.max_concurrent") == values.get(
        "benchmarks.0.sandbox.concurrency"
    ), found
    return found


def _configs() -> list[tuple[str, dict, list[str]]]:
    base = _filled(yaml.safe_load(TEMPLATE.read_text()))
    out = [("template", base, [])]
    canary = _canary_overrides(TEMPLATE.read_text())
    assert canary, "the template documents no canary overrides"
    out.append(("template canary", base, canary))
    for recipe in RECIPES:
        cfg = json.loads(json.dumps(base))
        cfg["benchmarks"] = _fragment(recipe)
        out.append((recipe.stem, cfg, []))
        overrides = _canary_overrides(recipe.read_text())
        assert overrides, f"{recipe.name} documents no canary overrides"
        out.append((f"{recipe.stem} canary", cfg, overrides))
    return out


def _validate(python: str, version: str, items, tmp: Path) -> dict[str, str]:
    batch = []
    for i, (name, config, overrides) in enumerate(items):
        stripped, _ = strip_newer(config, version)
        path = tmp / f"cfg{i}.yaml"
        path.write_text(yaml.safe_dump(stripped, sort_keys=False))
        batch.append({"name": name, "path": str(path), "overrides": overrides})
    done = subprocess.run(
        [python, str(HELPER)],
        input=json.dumps(batch),
        capture_output=True,
        text=True,
        env=_env_vars(),
        cwd=tmp,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def _pythons() -> list[tuple[str, str]]:
    found = [("release", "")]
    if NEWER:
        found.append(("newer", NEWER))
    return found


@pytest.fixture(scope="module")
def release_python() -> str:
    return str(built_env() / "bin" / "python")


def _installed(python: str) -> str:
    probe = "import importlib.metadata as m; print(m.version('nemo-evaluator'))"
    return subprocess.run([python, "-c", probe], capture_output=True, text=True).stdout.strip()


@pytest.mark.parametrize("which", [p[0] for p in _pythons()])
def test_every_shipped_config_loads(which, release_python, tmp_path):
    python = dict(_pythons())[which] or release_python
    version = _installed(python)
    if which == "release":
        assert version == RELEASE
    verdicts = _validate(python, version, _configs(), tmp_path)
    assert verdicts and all(v == "ok" for v in verdicts.values()), verdicts


def test_newer_key_list_matches_the_template():
    # Each listed key occurs in the template, so the list never strips a stale name.
    config = yaml.safe_load(TEMPLATE.read_text())
    _, removed = strip_newer(config, "0.0.0")
    assert len(removed) == len(NEWER_KEYS), removed


MUTATIONS = {
    "model_traffic renamed": ("model_traffic:", "model_trafic:"),
    "log_stream_prefix renamed": ("log_stream_prefix:", "log_prefix:"),
    "startup_timeout renamed": ("startup_timeout:", "start_timeout:"),
    "bogus cluster key": ("  mount_home: false", "  mount_home: false\n  partition_hint: x"),
}


def test_wrong_keys_fail_the_real_loader(release_python, tmp_path):
    text = TEMPLATE.read_text()
    items = []
    for name, (old, new) in MUTATIONS.items():
        assert text.count(old) == 1, old
        items.append((name, _filled(yaml.safe_load(text.replace(old, new))), []))
    verdicts = _validate(release_python, RELEASE, items, tmp_path)
    for name, verdict in verdicts.items():
        assert "Extra inputs are not permitted" in verdict, (name, verdict)


# --- mlflow-push with the real `nel export` -----------------------------------------

MAKE_RUN = """
import sys
from pathlib import Path
from nemo_evaluator.engine.artifacts import build_artifact_bundle, write_all
run = Path(sys.argv[1])
results = [{"problem_idx": i, "repeat": 0, "reward": float(i % 2)} for i in range(4)]
bundle = build_artifact_bundle(
    "terminal_bench_2_1", results, {"pass@1": {"value": 0.5}}, {"repeats": 1}
)
bundle["_results"] = results
for where in (run / "terminal_bench_2_1", run / "shard_0" / "terminal_bench_2_1"):
    write_all(bundle, where)
(run / "logs").mkdir()
(run / "logs" / "slurm-7.log").write_text("finished\\n")
(run / "terminal_bench_2_1" / "model_traffic.jsonl").write_text("{}\\n")
"""

READ_BACK = """
import json, sys
import mlflow
mlflow.set_tracking_uri(sys.argv[1])
client = mlflow.MlflowClient()
exp = client.get_experiment_by_name(sys.argv[2])
runs = client.search_runs([exp.experiment_id])
out = []
for run in runs:
    names = []
    def walk(path):
        for item in client.list_artifacts(run.info.run_id, path):
            walk(item.path) if item.is_dir else names.append(item.path)
    walk(None)
    out.append({"metrics": run.data.metrics, "tags": run.data.tags, "artifacts": names})
json.dump(out, sys.stdout)
"""


@pytest.mark.parametrize("copy_logs", [True, False])
def test_mlflow_push_exports_with_the_real_package(copy_logs, release_python, tmp_path):
    env_root = built_env()
    out_dir = tmp_path / "cluster" / "evals"
    subprocess.run(
        [release_python, "-c", MAKE_RUN, str(out_dir / "tb21-run7")], check=True, timeout=300
    )
    config = yaml.safe_load(TEMPLATE.read_text())
    config["cluster"]["hostname"] = "login.example"
    config["output"]["dir"] = str(out_dir)
    mlflow_cfg = config["output"]["export_config"]["mlflow"]
    mlflow_cfg["experiment_name"] = "evalkit-test"
    mlflow_cfg["copy_logs"] = copy_logs
    mlflow_cfg["tags"]["model"] = "test-model"
    cfg = tmp_path / "tb21.yaml"
    cfg.write_text(yaml.safe_dump(config, sort_keys=False))

    stubs = tmp_path / "bin"
    stubs.mkdir()
    _write_exe(stubs / "ssh", SSH_STUB)
    _write_exe(stubs / "rsync", RSYNC_STUB)
    home = tmp_path / "nel-next"
    home.mkdir()
    (home / "venv").symlink_to(env_root)
    # A local store: MLflow 3 refuses the plain file store unless told; sqlite is its default.
    uri = f"sqlite:///{tmp_path / 'mlflow.db'}"
    env = dict(
        os.environ,
        PATH=f"{stubs}:{os.environ['PATH']}",
        NEL_NEXT_HOME=str(home),
        NEL_NEXT_SPEC=SPEC,
        STUB_LOG=str(tmp_path / "calls.log"),
        MLFLOW_TRACKING_URI=uri,
        USER="alice",
    )
    pushed = subprocess.run(
        ["bash", str(SCRIPT), "mlflow-push", "-r", "run7", "-c", str(cfg)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,  # MLflow puts a sqlite store's artifacts in ./mlruns
    )
    assert pushed.returncode == 0, pushed.stdout[-2000:] + pushed.stderr[-2000:]
    assert "ssh alice@login.example" in (tmp_path / "calls.log").read_text()

    read = subprocess.run(
        [release_python, "-c", READ_BACK, uri, "evalkit-test"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert read.returncode == 0, read.stderr[-2000:]
    runs = json.loads(read.stdout)
    assert len(runs) == 1, runs  # the shard copy is not exported a second time
    run = runs[0]
    assert run["metrics"]["pass_at_1"] == 0.5
    tags = run["tags"]
    assert all(isinstance(v, str) for v in tags.values())
    assert tags["temperature"] == "1.0" and tags["task_name"] == "terminal-bench-2.1"
    artifacts = run["artifacts"]
    assert any(a.endswith("eval-terminal_bench_2_1.json") or "eval-" in a for a in artifacts)
    assert not any("model_traffic" in a for a in artifacts)
    assert any(a.endswith("logs/slurm-7.log") for a in artifacts) is copy_logs, artifacts
