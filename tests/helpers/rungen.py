"""Synthetic nel 0.2.6 MRCR run directories (NeMo Gym format) for tests and benchmarks.

`write_mrcr_run(root, ...)` writes
`<root>/<YYYYmmdd_HHMMSS>-<16 hex>/nemo_gym.0/` with `run.sub`, `logs/` and `artifacts/`
(rollouts in completion order, an aggregate file computed the way Gym's reward_profile
does, results.yml without a score, eval_factory_metrics.json, run_config.yml) and
returns the task directory. Everything is derived from `seed`, so runs are reproducible.

Grading and aggregation here are written straight from the facts (not imported from
evalkit) so that tests comparing evalkit with these files are not circular.
"""

from __future__ import annotations

import json
import math
import random
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from difflib import SequenceMatcher
from pathlib import Path

from evalkit.mrcr.variants import GYM_PIN, GYM_REPO_URL, VARIANTS

_VOCABULARY = (
    "moss river lantern quiet harbor ember willow silver morning thistle orchard "
    "meadow cinder hollow crane amber tide glass ridge sparrow velvet stone ferry "
    "north ash bramble copper dune echo fable garnet heron ivy juniper kestrel loam "
    "marrow nettle opal pewter quill rowan saffron tallow umber vesper wren yarrow "
    "the a of and in under over with beside through across toward while we they you "
    "remember carry gather wander whisper answer borrow kindle mend linger scatter "
)
WORDS = tuple(_VOCABULARY.split())
TOPICS = ("tapirs", "lighthouses", "bread", "glaciers", "chess", "owls", "rain", "copper")
FORMATS = ("poem", "short essay", "riddle", "story", "song", "letter")
ORDINALS = {1: "1st", 2: "2nd", 3: "3rd"}
ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
BASE_TIME = datetime(2026, 11, 30, 10, 15, 0)


@dataclass(frozen=True)
class MrcrItem:
    prefix: str  # random_string_to_prepend (10 alphanumerics)
    n_needles: int
    n_tokens: int
    messages: tuple[dict, ...]  # the chat (user/assistant turns), last = the ask
    answer: str  # prefix + the target assistant turn


def reference_grade(response_text: str | None, answer: str, prefix: str) -> tuple[float, bool]:
    """Gym verify(): strip the response only, prefix gate, removeprefix once on both."""
    text = (response_text or "").strip()
    if not text.startswith(prefix):
        return 0.0, False
    ratio = SequenceMatcher(None, text.removeprefix(prefix), answer.removeprefix(prefix))
    return float(ratio.ratio()), True


def prose(rng: random.Random, chars: int) -> str:
    """Poem/essay-like text of about `chars` characters (lines of 5-9 words)."""
    lines: list[str] = []
    size = 0
    while size < chars:
        words = [rng.choice(WORDS) for _ in range(rng.randint(5, 9))]
        line = " ".join(words).capitalize() + rng.choice((",", ".", ";", "", "!"))
        if rng.random() < 0.15:
            line = f"**Verse {len(lines) // 4 + 1}**\n" + line
        lines.append(line)
        size += len(line) + 1
    return "\n".join(lines)[:chars]


def make_items(
    n_items: int,
    seed: int = 0,
    prompt_chars: int = 2000,
    answer_chars: tuple[int, int] = (1000, 6000),
) -> list[MrcrItem]:
    """MRCR-like items: needle counts cycle 2/4/8, prompts of about prompt_chars."""
    rng = random.Random(f"items-{seed}")
    items = []
    for i in range(n_items):
        n_needles = (2, 4, 8)[i % 3]
        prefix = "".join(rng.choice(ALNUM) for _ in range(10))
        topic, fmt = rng.choice(TOPICS), rng.choice(FORMATS)
        which = rng.randint(1, n_needles)
        target = prose(rng, rng.randint(*answer_chars))
        messages: list[dict] = [
            {
                "role": "user",
                "content": "Here are some examples of conversations "
                "succeeded by a follow-up question answered correctly.\n======EXAMPLE======\n",
            }
        ]
        filler = max(0, prompt_chars - len(target))
        per_turn = max(40, filler // (2 * n_needles + 2))
        for k in range(1, n_needles + 1):
            messages.append({"role": "user", "content": f"write a {fmt} about {topic}"})
            body = target if k == which else prose(rng, per_turn)
            messages.append({"role": "assistant", "content": body})
            messages.append({"role": "user", "content": "write a note about something else"})
            messages.append({"role": "assistant", "content": prose(rng, per_turn)})
        ordinal = ORDINALS.get(which, f"{which}th")
        messages.append(
            {
                "role": "user",
                "content": f"Prepend {prefix} to the {ordinal} (1 indexed) {fmt} about {topic}. "
                "Do not include any other text in your response.",
            }
        )
        chars = sum(len(m["content"]) for m in messages)
        items.append(MrcrItem(prefix, n_needles, chars // 4 + 7, tuple(messages), prefix + target))
    return items


# ---- responses --------------------------------------------------------------------


def _mutate(rng: random.Random, text: str, edits: int) -> str:
    chars = list(text)
    for _ in range(edits):
        if not chars:
            break
        pos = rng.randrange(len(chars))
        op = rng.random()
        if op < 0.4:
            chars[pos] = rng.choice("etaoin ")
        elif op < 0.7:
            del chars[pos]
        else:
            chars.insert(pos, rng.choice("srhld,"))
    return "".join(chars)


@dataclass
class _Outcome:
    text: str | None  # message text; None = no message item
    reasoning: str | None = None  # summary of a reasoning item, if any
    finish: str = "stop"  # "stop" / "length"
    usage_null: bool = False


def _respond(
    rng: random.Random, item: MrcrItem, skill: float, kind: str, no_prefix_share: float = 0.15
) -> _Outcome:
    body = item.answer.removeprefix(item.prefix)
    thought = f"The user wants item {item.n_needles} about the topic; I recall it."
    if kind == "overflow":  # prompt + template above max-model-len: empty, usage null
        return _Outcome("", finish="length", usage_null=True)
    if kind == "leak":  # unclosed reasoning leaks into the text: the gate fails
        return _Outcome(f"{thought}</think>\n\n{item.prefix}{_mutate(rng, body, 3)}")
    if kind == "reasoning_only":
        return _Outcome(None, reasoning=thought, finish="length")
    if kind == "length":  # runaway output cut at the output limit
        loop = prose(rng, 300)
        return _Outcome(item.prefix + body[: len(body) // 3] + (loop * 12), thought, "length")
    if rng.random() < skill:
        lead = rng.choice(("", "", "\n\n", " "))  # Gym strips, so leading space is fine
        return _Outcome(lead + item.prefix + _mutate(rng, body, rng.randint(0, 12)), thought)
    if rng.random() < no_prefix_share:  # forgot the prefix
        return _Outcome(body, thought)
    return _Outcome(item.prefix + prose(rng, len(body)), thought)  # the wrong needle


def _response_obj(rng: random.Random, outcome: _Outcome, item: MrcrItem, model: str) -> dict:
    output: list[dict] = []
    if outcome.reasoning is not None:
        output.append(
            {
                "id": f"rs_{rng.getrandbits(64):016x}",
                "summary": [{"text": outcome.reasoning, "type": "summary_text"}],
                "type": "reasoning",
                "encrypted_content": None,
            }
        )
    if outcome.text is not None:
        output.append(
            {
                "id": f"msg_{rng.getrandbits(64):016x}",
                "content": [
                    {
                        "annotations": [],
                        "text": outcome.text,
                        "type": "output_text",
                        "logprobs": None,
                    }
                ],
                "role": "assistant",
                "status": "completed",
                "type": "message",
            }
        )
    out_tokens = max(1, len(outcome.text or "") // 4) + rng.randint(100, 3000)
    usage = (
        None
        if outcome.usage_null
        else {
            "input_tokens": item.n_tokens + 180,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": out_tokens,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": item.n_tokens + 180 + out_tokens,
        }
    )
    return {
        "id": f"resp_{rng.getrandbits(64):016x}",
        "created_at": 1784000000.0,
        "error": None,
        "incomplete_details": {"reason": "max_output_tokens"}
        if outcome.finish == "length"
        else None,
        "instructions": None,
        "metadata": None,
        "model": model,
        "object": "response",
        "output": output,
        "parallel_tool_calls": True,
        "temperature": 1.0,
        "tool_choice": "auto",
        "tools": [],
        "top_p": 0.95,
        "background": None,
        "conversation": None,
        "max_output_tokens": None,
        "max_tool_calls": None,
        "previous_response_id": None,
        "prompt": None,
        "prompt_cache_key": None,
        "reasoning": None,
        "safety_identifier": None,
        "service_tier": None,
        "status": None,
        "text": None,
        "top_logprobs": None,
        "truncation": None,
        "usage": usage,
        "user": None,
    }


def _create_params(item: MrcrItem) -> dict:
    return {
        "background": None,
        "include": None,
        "input": [
            {"content": m["content"], "role": m["role"], "type": "message"} for m in item.messages
        ],
        "instructions": None,
        "max_output_tokens": None,
        "max_tool_calls": None,
        "metadata": None,
        "model": None,
        "parallel_tool_calls": True,
        "previous_response_id": None,
        "prompt": None,
        "reasoning": None,
        "service_tier": None,
        "store": None,
        "temperature": 1.0,
        "text": None,
        "tool_choice": "auto",
        "tools": [],
        "top_logprobs": None,
        "top_p": 0.95,
        "truncation": None,
        "user": None,
        "stream": None,
    }


# ---- aggregation, the reward_profile way --------------------------------------------


def _stats(values: list[float]) -> dict[str, float]:
    vals = [v for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]
    if not vals:
        return {}
    return {
        "mean": sum(vals) / len(vals),
        "max": max(vals),
        "min": min(vals),
        "median": statistics.median(vals),
        "std": statistics.stdev(vals) if len(vals) > 1 else float("nan"),
    }


def _pass_at_1(rewards: list[float]) -> float:
    if all(r in (0.0, 1.0) for r in rewards):
        n, wrong = len(rewards), sum(1 for r in rewards if r == 0.0)
        return 1.0 - math.comb(wrong, 1) / math.comb(n, 1)
    return max(rewards[:1])


def gym_aggregate(records: list[dict], agent: str) -> list[dict]:
    """The aggregate metrics file content for unique records (dicts as written)."""
    fields = (
        "reward",
        "n_needles",
        "n_tokens",
        "prefix_matched",
        "seq_match_ratio",
        "input_tokens",
        "output_tokens",
        "total_tokens",
    )

    def flat(rec: dict) -> dict:
        usage = rec["response"]["usage"] or {}
        row = {f: rec.get(f) for f in fields[:5]}
        row["prefix_matched"] = float(row["prefix_matched"])
        for f in fields[5:]:
            row[f] = usage.get(f, float("nan"))
        return row

    rows = [flat(r) for r in records]
    metrics: dict = {}
    for stat in ("mean", "max", "min", "median", "std"):
        for f in fields:
            s = _stats([row[f] for row in rows])
            if s:
                metrics[f"{stat}/{f}"] = s[stat]
    by_task: dict[int, list[dict]] = {}
    for rec in sorted(records, key=lambda r: (r["_ng_task_index"], r["_ng_rollout_index"])):
        by_task.setdefault(rec["_ng_task_index"], []).append(rec)
    k = max(len(v) for v in by_task.values())
    p1 = [_pass_at_1([r["reward"] for r in v]) for v in by_task.values()]
    avg = [sum(r["reward"] for r in v[:k]) / len(v[:k]) for v in by_task.values()]
    metrics["pass@1/accuracy"] = 100.0 * sum(p1) / len(p1)
    metrics[f"pass@1[avg-of-{k}]/accuracy"] = 100.0 * sum(avg) / len(avg)
    metrics["per_sample_aggregate"] = {"accuracy": [metrics[f"pass@1[avg-of-{k}]/accuracy"]]}
    needles_order: list[int] = []
    for v in by_task.values():
        if v[0]["n_needles"] not in needles_order:
            needles_order.append(v[0]["n_needles"])
    for n in needles_order:
        tasks = [v for v in by_task.values() if v[0]["n_needles"] == n]
        sp1 = [_pass_at_1([r["reward"] for r in v]) for v in tasks]
        savg = [sum(r["reward"] for r in v[:k]) / len(v[:k]) for v in tasks]
        metrics[f"n_needles={n}/pass@1/accuracy"] = 100.0 * sum(sp1) / len(sp1)
        metrics[f"n_needles={n}/pass@1[avg-of-{k}]/accuracy"] = 100.0 * sum(savg) / len(savg)
    groups = []
    for task, v in by_task.items():
        info = [
            {
                "rollout_id": f"{task}:{r['_ng_rollout_index']}",
                "_ng_task_index": task,
                "_ng_rollout_index": r["_ng_rollout_index"],
                "reward": r["reward"],
                "n_needles": r["n_needles"],
                "prefix_matched": int(r["prefix_matched"]),
                "seq_match_ratio": r["seq_match_ratio"],
            }
            for r in v
        ]
        groups.append(
            {
                "_ng_task_index": task,
                "mean/reward": sum(r["reward"] for r in v) / len(v),
                "sample": {"agent_ref": {"name": "agent"}},
                "num_rollouts": len(v),
                "expected_num_rollouts": len(v),
                "missing_num_rollouts": 0,
                "reward_profile_completion_pct": 100.0,
                "rollout_infos": info,
            }
        )
    key = {
        "mean/input_tokens": metrics.get("mean/input_tokens"),
        "mean/output_tokens": metrics.get("mean/output_tokens"),
        f"pass@1[avg-of-{k}]/accuracy": metrics[f"pass@1[avg-of-{k}]/accuracy"],
        "pass@1/accuracy": metrics["pass@1/accuracy"],
    }
    return [
        {
            "agent_ref": {"name": agent},
            "agent_metrics": metrics,
            "key_metrics": key,
            "group_level_metrics": groups,
        }
    ]


# ---- the run directory --------------------------------------------------------------


def _dump_line(obj: dict) -> bytes:
    # orjson-like: compact, raw UTF-8
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


def _json_safe(obj):
    if isinstance(obj, float) and math.isnan(obj):
        return None
    if isinstance(obj, dict):
        return {k: _json_safe(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_json_safe(v) for v in obj]
    return obj


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
    (default gym_commit).
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
            outcome = _respond(draw, item, skills[task_index] * factor, kind, no_prefix_share)
            finish_counts[outcome.finish] += 1
            reward, matched = reference_grade(outcome.text, item.answer, item.prefix)
            records.append(
                {
                    "responses_create_params": _create_params(item),
                    "response": _response_obj(draw, outcome, item, "served-model"),
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
            json.dumps(_json_safe(agg), indent=2) + "\n"
        )

    order = list(records)
    rng.shuffle(order)  # completion order
    for _ in range(duplicate):
        order.append(rng.choice(records))
    for _ in range(conflicting_duplicate):
        copy = dict(rng.choice(records))
        copy["reward"] = copy["seq_match_ratio"] = round(1.0 - copy["reward"], 6)
        order.append(copy)
    payload = b"".join(_dump_line(rec) for rec in order)
    if truncate_last and order:
        last = _dump_line(order[-1])
        payload = payload[: len(payload) - len(last) // 2]
    (artifacts / "evaluator_rollouts.jsonl").write_bytes(payload)

    count = len(records)
    in_tok = [r["response"]["usage"]["input_tokens"] for r in records if r["response"]["usage"]]
    out_tok = [r["response"]["usage"]["output_tokens"] for r in records if r["response"]["usage"]]
    mean_in = sum(in_tok) / len(in_tok) if in_tok else 0.0
    mean_out = sum(out_tok) / len(out_tok) if out_tok else 0.0
    (artifacts / "results.yml").write_text(
        "results:\n"
        "  groups:\n"
        "    nemo_gym:\n"
        "      metrics:\n"
        f"        key_metrics/mean/input_tokens:\n"
        f"          scores:\n"
        f"            key_metrics/mean/input_tokens:\n"
        f"              value: {mean_in}\n"
        f"        key_metrics/mean/output_tokens:\n"
        f"          scores:\n"
        f"            key_metrics/mean/output_tokens:\n"
        f"              value: {mean_out}\n"
        "  tasks: {}\n"
    )
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
    (artifacts / "run_config.yml").write_text(_run_config(variant, gym_commit, limit, repeats))

    job = 4_100_000 + seed
    (task_dir / "run.sub").write_text(
        "#!/bin/bash\n#SBATCH --job-name=nemo_gym.0\n"
        f"# invocation {invocation}\nsrun echo running {spec.config}\n"
    )
    commit = gym_commit if logged_commit is None else logged_commit
    (logs / f"client-{job}.log").write_text(
        "Installing NeMo Gym on the fly\n=== NeMo Gym commit ===\n"
        f"{commit}\nng_prepare_benchmark done\nCollecting rollouts: {count} rows\n"
        + client_log_extra
    )
    (logs / f"server-{job}-0.log").write_text(
        "INFO vLLM API server started\nINFO Avg prompt throughput: 12000 tokens/s\n"
        + server_log_extra
    )
    return task_dir


# ---- provenance, GDPVal and whole suites (issue 12) -----------------------------------


def add_deployment(task_dir: Path, checkpoint: str, image: str = "vllm/vllm-openai:v0.11.0"):
    """Append the deployment srun line nel 0.2.6's slurm executor writes into run.sub
    (executor.py: `--container-image <deployment.image>` then `--container-mounts
    <checkpoint_path>:/checkpoint:ro` on the same line)."""
    run_sub = Path(task_dir) / "run.sub"
    with run_sub.open("a") as handle:
        handle.write(
            '    srun --mpi pmix --overlap --nodelist "$INSTANCE_NODELIST" --nodes 1 '
            f"--ntasks 1 --container-image {image} --container-mounts "
            f"{checkpoint}:/checkpoint:ro,/lustre/cache:/cache --output "
            f"{task_dir}/logs/server-${{g}}-%A-%t.log bash -c 'vllm serve /checkpoint' &\n"
        )


def write_gdpval_run(
    task_dir: Path,
    *,
    n_items: int = 40,
    seed: int = 0,
    quality: float | Sequence[float] = 0.6,
    gym_version: str = "baked-in 0.2.0rc0",
    prompts_seed: int = 0,
) -> Path:
    """A GDPVal rubric-mode task directory at TASK_DIR (e.g. `<invocation>/nemo_gym.1`).

    The rollout line shape is a guess modelled on the Gym rollout format of MRCR (same
    envelope: responses_create_params, response, reward, _ng_task_index,
    _ng_rollout_index, agent_ref); no recorded GDPVal line was available. Rewards are
    rubric scores in [0, 1] around `quality` (per item when a sequence). The client log
    carries the bootstrap's `=== NeMo Gym version ===` banner with `gym_version`."""
    task_dir = Path(task_dir)
    artifacts, logs = task_dir / "artifacts", task_dir / "logs"
    artifacts.mkdir(parents=True)
    logs.mkdir()
    prompts = random.Random(f"gdpval-prompts-{prompts_seed}")
    qualities = [quality] * n_items if isinstance(quality, (int, float)) else list(quality)
    lines = []
    for i in range(n_items):
        kind, topic = prompts.choice(FORMATS), prompts.choice(TOPICS)
        ask = f"Draft a {kind} on {topic}: {prose(prompts, 200)}"
        draw = random.Random(f"gdpval-{seed}-{i}")
        reward = min(1.0, max(0.0, round(draw.gauss(qualities[i], 0.15), 4)))
        text = prose(draw, 400)
        lines.append(
            {
                "responses_create_params": {
                    "input": [{"content": ask, "role": "user", "type": "message"}],
                    "temperature": 1.0,
                    "top_p": 0.95,
                },
                "response": {
                    "id": f"resp_{draw.getrandbits(64):016x}",
                    "model": "served-model",
                    "output": [
                        {
                            "id": f"msg_{draw.getrandbits(64):016x}",
                            "content": [{"annotations": [], "text": text, "type": "output_text"}],
                            "role": "assistant",
                            "status": "completed",
                            "type": "message",
                        }
                    ],
                    "usage": {"input_tokens": 900, "output_tokens": 300, "total_tokens": 1200},
                    "incomplete_details": None,
                },
                "reward": reward,
                "_ng_task_index": i,
                "_ng_rollout_index": 0,
                "agent_ref": {"type": "responses_api_agents", "name": "gdpval_stirrup_agent"},
            }
        )
    (artifacts / "evaluator_rollouts.jsonl").write_bytes(b"".join(_dump_line(r) for r in lines))
    (artifacts / "results.yml").write_text(
        "results:\n  groups:\n    nemo_gym:\n      metrics:\n"
        "        key_metrics/mean/output_tokens:\n          scores:\n"
        "            key_metrics/mean/output_tokens:\n              value: 300.0\n"
        "  tasks: {}\n"
    )
    (artifacts / "eval_factory_metrics.json").write_text(
        json.dumps(
            {"response_stats": {"count": n_items, "finish_reason": {"stop": n_items}}}, indent=2
        )
    )
    (artifacts / "run_config.yml").write_text(
        "config:\n  type: nemo_gym\n  params:\n    temperature: 1.0\n    top_p: 0.95\n"
        "target:\n  api_endpoint:\n    model_id: served-model\n"
    )
    (task_dir / "run.sub").write_text("#!/bin/bash\n#SBATCH --job-name=nemo_gym.1\n")
    (logs / f"client-{4_200_000 + seed}.log").write_text(
        "/opt/Gym is not a git repo; using baked-in Gym version\n"
        f"=== NeMo Gym version ===\n{gym_version}\nCollecting rollouts: {n_items} rows\n"
    )
    return task_dir


def write_results_task(
    invocation: Path, task: str, value: float, stderr: float | None, key: tuple[str, str]
) -> Path:
    """`<invocation>/<task>.0` with only results.yml (a non-Gym harness task): one score at
    results.tasks.<task>.metrics.<key[0]>.scores.<key[1]> (nemo-evaluator layout)."""
    task_dir = Path(invocation) / f"{task}.0"
    (task_dir / "artifacts").mkdir(parents=True)
    (task_dir / "logs").mkdir()
    stats = "" if stderr is None else f"              stats:\n                stderr: {stderr}\n"
    (task_dir / "artifacts" / "results.yml").write_text(
        f"results:\n  tasks:\n    {task}:\n      metrics:\n        {key[0]}:\n"
        f"          scores:\n            {key[1]}:\n              value: {value}\n{stats}"
        "  groups: {}\n"
    )
    return task_dir


# ---- the bundled sample run -----------------------------------------------------------

CANARY = {
    "variant": "config_n3_1m.yaml",
    "n_items": 60,
    "limit": 20,
    "seed": 7,
    "prompt_chars": 1500,
    "answer_chars": (600, 3000),
    "skill": 0.55,
    "skill_by_needles": {2: 1.0, 4: 0.75, 8: 0.5},
    "no_prefix_share": 0.55,
    "leak_fraction": 0.05,
    "length_fraction": 0.05,
}


def write_canary(dest: Path) -> Path:
    """The sample run shipped in tests/data/runs/mrcr-canary: an invocation directory
    holding `nemo_gym.0/` (a `++limit=20` canary of the 1M variant). DEST must not exist."""
    import shutil
    import tempfile

    dest = Path(dest)
    with tempfile.TemporaryDirectory() as tmp:
        task = write_mrcr_run(Path(tmp), **CANARY)
        shutil.copytree(task.parent, dest)
    return dest


if __name__ == "__main__":
    import sys

    if len(sys.argv) != 3 or sys.argv[1] != "canary":
        sys.exit("usage: python tests/helpers/rungen.py canary DEST")
    print(write_canary(Path(sys.argv[2])))
