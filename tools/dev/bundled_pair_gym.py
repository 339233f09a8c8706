"""NeMo Gym 0.7.0's own MRCR grading and aggregation, loaded from its sdist by path.

Used by make_bundled_pair.py (see tests/data/suite/PROVENANCE.md). Only module sources
are loaded; the imports these functions never reach are replaced by small stand-ins.
"""

from __future__ import annotations

import ast
import importlib.util
import sys
import tarfile
import types
from pathlib import Path

GYM = "nemo_gym-0.7.0"
AGENT = "mrcr_n3_1m_benchmark_simple_agent"
ENV_SERVER = "mrcr_n3_1m_benchmark_environment_server"


def _stub(name: str, **attrs) -> types.ModuleType:
    module = types.ModuleType(name)
    module.__dict__.update(attrs)
    sys.modules[name] = module
    return module


def _placeholder(*_a, **_k):
    return None


class _AggregateMetrics:
    """Stands for nemo_gym.config_types.AggregateMetrics (a pydantic model): the fields
    rollout collection reads back from the /aggregate_metrics answer."""

    def __init__(self, **fields):
        self.group_level_metrics = fields.get("group_level_metrics", [])
        self.agent_metrics = fields.get("agent_metrics", {})
        self.key_metrics = fields.get("key_metrics", {})
        self.perf_summary = fields.get("perf_summary")
        self.repeat_level_metrics = fields.get("repeat_level_metrics", [])


def _global_config(source: str) -> types.ModuleType:
    """Only the constants and the three run-labelling functions of Gym's global_config
    (the rest of that module starts servers and reads Hydra configs)."""
    wanted = {"rollout_run_key", "label_runs", "rollout_run_labels"}
    keep = [
        node
        for node in ast.parse(source).body
        if (isinstance(node, ast.FunctionDef) and node.name in wanted)
        or (
            isinstance(node, ast.Assign)
            and all(isinstance(t, ast.Name) and t.id.endswith("KEY_NAME") for t in node.targets)
        )
    ]
    module = _stub("nemo_gym.global_config")
    exec("from collections import Counter, defaultdict\nfrom typing import *", module.__dict__)
    exec(compile(ast.Module(keep, []), "global_config.py", "exec"), module.__dict__)
    return module


def load_gym(sdist: Path, work: Path) -> types.SimpleNamespace:
    names = {
        "app": "resources_servers/mrcr/app.py",
        "reward_profile": "nemo_gym/reward_profile.py",
        "metrics_config": "nemo_gym/metrics_config.py",
        "global_config": "nemo_gym/global_config.py",
    }
    with tarfile.open(sdist) as tar:
        paths = {}
        for key, member in names.items():
            data = tar.extractfile(f"{GYM}/{member}").read()
            paths[key] = work / f"{key}.py"
            paths[key].write_bytes(data)
    _stub("wandb", Histogram=_placeholder)
    _stub("scipy", stats=None)  # used for repeat-level intervals only: one repeat here
    _stub("nemo_gym", __path__=[])
    _stub("nemo_gym.config_types", AggregateMetrics=_AggregateMetrics, BaseNeMoGymCLIConfig=object)
    _stub("nemo_gym.cli", __path__=[])
    _stub("nemo_gym.cli._compat", moved_attr_getter=lambda *_a: _placeholder)
    base = type("Base", (), {})
    _stub(
        "nemo_gym.base_resources_server",
        BaseResourcesServerConfig=base,
        BaseVerifyRequest=base,
        BaseVerifyResponse=base,
        SimpleResourcesServer=base,
    )
    _global_config(paths["global_config"].read_text())
    loaded = {}
    for key, mod in (
        ("metrics_config", "nemo_gym.metrics_config"),
        ("reward_profile", "nemo_gym.reward_profile"),
        ("app", "gym_mrcr_app"),
    ):
        spec = importlib.util.spec_from_file_location(mod, paths[key])
        loaded[key] = importlib.util.module_from_spec(spec)
        sys.modules[mod] = loaded[key]
        spec.loader.exec_module(loaded[key])
    return types.SimpleNamespace(**loaded)


def aggregate(gym, records: list[dict]) -> bytes:
    """The aggregate file as Gym 0.7.0's rollout collection writes it: heavy fields
    stripped, /aggregate_metrics computed by the MRCR server, one entry per server."""
    import orjson

    stripped = []
    for rec in records:
        entry = {k: v for k, v in rec.items() if k not in ("response", "responses_create_params")}
        entry["response"] = {"usage": rec["response"]["usage"]}
        stripped.append(entry)
    server = gym.app.MRCRResourcesServer
    result = gym.reward_profile.compute_aggregate_metrics(
        stripped,
        compute_metrics_fn=lambda tasks: server.compute_metrics(server, tasks),
        get_key_metrics_fn=lambda metrics: server.get_key_metrics(server, metrics),
    )
    entry = {
        "agent_ref": {"name": AGENT},
        "_ng_environment_server": ENV_SERVER,
        "agent_metrics": result.agent_metrics,
        "key_metrics": result.key_metrics,
        "group_level_metrics": result.group_level_metrics,
        "repeat_level_metrics": result.repeat_level_metrics,
    }
    if result.perf_summary is not None:
        entry["perf_summary"] = result.perf_summary
    return orjson.dumps([entry], option=orjson.OPT_INDENT_2)
