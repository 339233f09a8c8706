"""One synthetic nel 0.2.6 MRCR run (NeMo Gym format): the task directory with its
rollouts, aggregate, results.yml, eval_factory_metrics.json, run_config.yml, run.sub and
logs.

- `results.yml`: the envelope (`git_hash`, `command`, `config`, `target`, `results`,
  `metadata`; `yaml.dump`, keys sorted) is nemo-evaluator 0.2.8 `core/evaluate.py`; the
  metric names inside `results` for `nemo_gym` are a guess. The code that maps Gym's
  aggregate into them ships only inside the task container, and the only public trace is
  the upstream MRCR recipe's remark that results.yml holds no MRCR score.
- `eval_factory_metrics.json` `response_stats`: nemo-evaluator 0.2.8
  `adapters/interceptors/response_stats_interceptor.py` (a subset of its keys).
- the client log lines other than the Gym commit banner (which our own template's
  bootstrap prints) are a guess.
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path

from evalkit.benchmarks.mrcr.variants import GYM_PIN, GYM_REPO_URL, VARIANTS

from ...runs.files import BASE_TIME, dump_line, json_safe
from ...runs.serverlog import vllm_server_log
from ...runs.slurm import run_sub
from .aggregate import gym_aggregate
from .items import MrcrItem, make_items, reference_grade
from .responses import create_params, respond, response_obj


def _gym_command(variant: str, gym_commit: str, limit: int | None, repeats: int) -> str:
    limit_arg = f" ++limit={limit}" if limit is not None else ""
    paths = (
        f"+config_paths=[responses_api_models/vllm_model/configs/vllm_model.yaml,"
        f"benchmarks/mrcr/{variant}]"
    )
    return (
        f"ng_prepare_benchmark {paths} +hf_token=$HF_TOKEN "
        f"++use_cached_prepared_benchmarks=true && ng_e2e_collect_rollouts {paths} "
        f"++split=benchmark ++num_repeats={repeats} ++resume_from_cache=true "
        "++output_jsonl_fpath=/results/evaluator_rollouts.jsonl "
        f"++responses_create_params.temperature=1.0 ++responses_create_params.top_p=0.95 "
        f"++responses_create_params.max_output_tokens=null{limit_arg}"
    )


def _run_config(variant: str, gym_commit: str, limit: int | None, repeats: int) -> str:
    command = _gym_command(variant, gym_commit, limit, repeats)
    return (
        "config:\n"
        "  type: nemo_gym\n"
        "  output_dir: /results\n"
        "  params:\n"
        "    parallelism: 256\n"
        "    temperature: 1.0\n"
        "    top_p: 0.95\n"
        "    max_new_tokens: null\n"
        "    request_timeout: 36000\n"
        "    max_retries: 10\n"
        "    extra:\n"
        "      nemo_gym:\n"
        "        install_on_the_fly:\n"
        f"          url: {GYM_REPO_URL}\n"
        f"          commit: {gym_commit}\n"
        f"        variant: benchmarks/mrcr/{variant}\n"
        f"        command: {json.dumps(command)}\n"
        "target:\n"
        "  api_endpoint:\n"
        "    model_id: served-model\n"
        "    type: chat\n"
        "    url: http://127.0.0.1:8000/v1/chat/completions\n"
    )


def write_mrcr_run(
    root: Path,
    *,
    variant: str = "config_n3_1m.yaml",
    n_items: int = 60,
    seed: int = 0,
    prompt_chars: int = 2000,
    skill: float | Sequence[float] = 0.5,
    skill_by_needles: dict[int, float] | None = None,
    no_prefix_share: float = 0.15,
    leak_fraction: float = 0.0,
    length_fraction: float = 0.0,
    overflow_fraction: float = 0.0,
    reasoning_only_fraction: float = 0.0,
    limit: int | None = None,
    gym_commit: str = GYM_PIN,
    logged_commit: str | None = None,
    truncate_last: bool = False,
    duplicate: int = 0,
    conflicting_duplicate: int = 0,
    corrupt_rewards: int = 0,
    aggregate: bool = True,
    aggregate_offset: float = 0.0,
    repeats: int = 1,
    items: Sequence[MrcrItem] | None = None,
    answer_chars: tuple[int, int] = (1000, 6000),
    client_log_extra: str = "",
    server_log_extra: str = "",
    instances: int = 1,
    server_preemptions: Sequence[int] = (),
    peak_kv_usage: float = 87.5,
    checkpoint: str | None = None,
) -> Path:
    """Write one synthetic MRCR run; returns `<invocation>/nemo_gym.0`.

    skill: probability of a close copy per item (a float, or one per item), multiplied
    by skill_by_needles[n_needles] when given. no_prefix_share: share of the other
    responses that omit the prefix (the rest answer with the wrong needle).
    *_fraction: share of rollouts with that failure (leak: `...</think>answer`;
    length: runaway output cut at the limit; overflow: usage null, empty text;
    reasoning_only: no message item). duplicate / conflicting_duplicate: extra copies of
    random lines (same reward / changed reward). corrupt_rewards: lines whose stored reward
    is off by 0.01 (the aggregate follows the stored values). aggregate_offset: added to
    the aggregate file's pass@1 and strata. logged_commit: commit in the client log
    (default gym_commit). instances: vLLM instances, one server log each.
    server_preemptions: `Preemptions:` per stats interval in instance 0's log;
    peak_kv_usage: the highest `GPU KV cache usage` there. server_log_extra is appended
    to instance 0's log.
    """
    spec = VARIANTS[variant]
    rng = random.Random(f"run-{seed}")
    if items is None:
        items = make_items(n_items, seed, prompt_chars, answer_chars)
    items = list(items)
    if limit is not None:
        items = items[:limit]
    skills = [skill] * len(items) if isinstance(skill, (int, float)) else list(skill)

    stamp = (BASE_TIME + timedelta(seconds=seed)).strftime("%Y%m%d_%H%M%S")
    invocation = f"{rng.getrandbits(64):016x}"
    task_dir = Path(root) / f"{stamp}-{invocation}" / "nemo_gym.0"
    artifacts, logs = task_dir / "artifacts", task_dir / "logs"
    artifacts.mkdir(parents=True)
    logs.mkdir()

    records: list[dict] = []
    finish_counts = {"stop": 0, "length": 0}
    for task_index, item in enumerate(items):
        for rollout_index in range(repeats):
            draw = random.Random(f"resp-{seed}-{task_index}-{rollout_index}")
            u = draw.random()
            kind = "ok"
            for name, frac in (
                ("overflow", overflow_fraction),
                ("leak", leak_fraction),
                ("reasoning_only", reasoning_only_fraction),
                ("length", length_fraction),
            ):
                if u < frac:
                    kind = name
                    break
                u -= frac
            factor = (skill_by_needles or {}).get(item.n_needles, 1.0)
            outcome = respond(draw, item, skills[task_index] * factor, kind, no_prefix_share)
            finish_counts[outcome.finish] += 1
            reward, matched = reference_grade(outcome.text, item.answer, item.prefix)
            records.append(
                {
                    "responses_create_params": create_params(item),
                    "response": response_obj(draw, outcome, item, "served-model"),
                    "reward": reward,
                    "expected_answer": item.answer,
                    "random_string_to_prepend": item.prefix,
                    "n_needles": item.n_needles,
                    "n_tokens": item.n_tokens,
                    "prefix_matched": matched,
                    "seq_match_ratio": reward,
                    "_ng_task_index": task_index,
                    "_ng_rollout_index": rollout_index,
                    "agent_ref": {"type": "responses_api_agents", "name": spec.agent},
                }
            )
    for i in rng.sample(range(len(records)), min(corrupt_rewards, len(records))):
        bumped = round(records[i]["reward"] + 0.01, 6)
        records[i]["reward"] = records[i]["seq_match_ratio"] = bumped

    if aggregate and records:
        agg = gym_aggregate(records, spec.agent)
        for key in list(agg[0]["agent_metrics"]):
            if "pass@1" in key and "per_sample" not in key:
                agg[0]["agent_metrics"][key] += aggregate_offset
        (artifacts / "evaluator_rollouts_aggregate_metrics.json").write_text(
            json.dumps(json_safe(agg), indent=2) + "\n"
        )

    order = list(records)
    rng.shuffle(order)  # completion order
    for _ in range(duplicate):
        order.append(rng.choice(records))
    for _ in range(conflicting_duplicate):
        copy = dict(rng.choice(records))
        copy["reward"] = copy["seq_match_ratio"] = round(1.0 - copy["reward"], 6)
        order.append(copy)
    payload = b"".join(dump_line(rec) for rec in order)
    if truncate_last and order:
        last = dump_line(order[-1])
        payload = payload[: len(payload) - len(last) // 2]
    (artifacts / "evaluator_rollouts.jsonl").write_bytes(payload)

    count = len(records)
    in_tok = [r["response"]["usage"]["input_tokens"] for r in records if r["response"]["usage"]]
    out_tok = [r["response"]["usage"]["output_tokens"] for r in records if r["response"]["usage"]]
    mean_in = sum(in_tok) / len(in_tok) if in_tok else 0.0
    mean_out = sum(out_tok) / len(out_tok) if out_tok else 0.0
    run_config = _run_config(variant, gym_commit, limit, repeats)
    (artifacts / "results.yml").write_text(_results_yml(run_config, mean_in, mean_out))
    (artifacts / "eval_factory_metrics.json").write_text(
        json.dumps(
            {
                "response_stats": {
                    "description": "Response statistics",
                    "avg_prompt_tokens": mean_in,
                    "avg_completion_tokens": mean_out,
                    "count": count,
                    "successful_count": count,
                    "finish_reason": {k: v for k, v in finish_counts.items() if v},
                    "stop_reason": {},
                    "status_codes": {"200": count},
                },
                "evaluation": {"runtime_seconds": 3600.0 + seed, "total_runs": 1},
            },
            indent=2,
        )
        + "\n"
    )
    (artifacts / "run_config.yml").write_text(run_config)

    job = 4_100_000 + seed
    remote = f"/lustre/evals/mrcr/{task_dir.parent.name}/{task_dir.name}"
    # nel 0.2.6 mounts deployment.checkpoint_path at /checkpoint on the server's srun line;
    # one checkpoint per seed (the same seed makes a copy of the run, checkpoint included).
    # checkpoint="" writes no mount: a run whose checkpoint nothing records.
    if checkpoint is None:
        checkpoint = f"/lustre/checkpoints/model-{seed}"
    (task_dir / "run.sub").write_text(
        run_sub(remote, invocation, instances, run_config, checkpoint or None)
    )
    # Names from the --output patterns of run.sub: %A = the SLURM job id, ${g} = the
    # instance, %t = the task within the srun (one task per instance here).
    (logs / f"slurm-{job}.log").write_text(
        "".join(
            f"Instance {g}: MASTER_IP=10.0.0.{g + 1}, nodes: node{g + 1:03d}\n"
            for g in range(instances)
        )
    )
    commit = gym_commit if logged_commit is None else logged_commit
    (logs / f"client-{job}.log").write_text(
        "Installing NeMo Gym on the fly\n=== NeMo Gym commit ===\n"
        f"{commit}\nng_prepare_benchmark done\nCollecting rollouts: {count} rows\n"
        + client_log_extra
    )
    for g in range(instances):
        text = vllm_server_log(
            BASE_TIME + timedelta(seconds=seed),
            preemptions=server_preemptions if g == 0 else (),
            peak_kv_usage=peak_kv_usage,
            seed=seed * 31 + g,
        )
        if g == 0:
            text += server_log_extra
        (logs / f"server-{g}-{job}-0.log").write_text(text)
    return task_dir


def _results_yml(run_config: str, mean_in: float, mean_out: float) -> str:
    """results.yml as nemo-evaluator 0.2.8 writes it (core/evaluate.py: yaml.dump of
    git_hash, command, config, target, results; keys sorted). Scores are
    `EvaluationResult.model_dump(exclude_none=True)`, so an empty ScoreStats is `{}`.
    The two token means under groups.nemo_gym are a guess (see the module docstring)."""
    import yaml

    parsed = yaml.safe_load(run_config)

    def score(name: str, value: float) -> dict:
        return {"scores": {name: {"stats": {}, "value": value}}}

    doc = {
        "git_hash": None,
        "command": parsed["config"]["params"]["extra"]["nemo_gym"]["command"],
        "config": parsed["config"],
        "target": parsed["target"],
        "results": {
            "groups": {
                "nemo_gym": {
                    "metrics": {
                        "key_metrics/mean/input_tokens": score(
                            "key_metrics/mean/input_tokens", mean_in
                        ),
                        "key_metrics/mean/output_tokens": score(
                            "key_metrics/mean/output_tokens", mean_out
                        ),
                    }
                }
            },
            "tasks": {},
        },
    }
    return yaml.dump(doc)
