"""Synthetic nel 0.2.6 MRCR run directories (NeMo Gym format) for tests and benchmarks.

`write_mrcr_run(root, ...)` writes
`<root>/<YYYYmmdd_HHMMSS>-<16 hex>/nemo_gym.0/` with `run.sub`, `logs/` and `artifacts/`
(rollouts in completion order, an aggregate file computed the way Gym's reward_profile
does, results.yml without a score, eval_factory_metrics.json, run_config.yml) and
returns the task directory. Everything is derived from `seed`, so runs are reproducible.

Grading and aggregation here are written straight from the facts (not imported from
evalkit) so that tests comparing evalkit with these files are not circular; the
aggregation is checked against NeMo Gym's own code in tests/test_gym_oracle.py.

Where each written format comes from (a pinned version moves: re-read its source and
move the format with it):
- `evaluator_rollouts.jsonl` and the aggregate file: NeMo Gym at the MRCR pin
  (`nemo_gym/rollout_collection.py`, `nemo_gym/reward_profile.py`,
  `resources_servers/mrcr/app.py`).
- log names and `run.sub`: nemo-evaluator-launcher 0.2.6,
  `executors/slurm/executor.py` (`#SBATCH --output .../logs/slurm-%A.log`, the server
  loop's `--output .../logs/server-${g}-%A-%t.log`, the client's
  `--output .../logs/client-%A.log`; auxiliary deployments write
  `NAME-server-${g}-%A-%t.log`). tests/test_real_formats.py checks these names against
  a real dry-run.
- the vLLM server log: vLLM v0.26.0 (the templates' image), see `vllm_server_log`.
- `nel status`: nemo-evaluator-launcher 0.2.6 `cli/status.py`; `nel_status_table`
  runs that code itself.
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
import math
import random
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from difflib import SequenceMatcher
from pathlib import Path

from evalkit.benchmarks.mrcr.variants import GYM_PIN, GYM_REPO_URL, VARIANTS

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


# ---- vLLM v0.26.0 server log ----------------------------------------------------------

VLLM_IMAGE = "vllm/vllm-openai:v0.26.0"  # the image recipes/examples/gym/example_mrcr.yaml pins
STATS_INTERVAL_S = 10  # vllm/envs.py VLLM_LOG_STATS_INTERVAL default


def _vllm_line(process: str, pid: int, when: datetime, where: str, message: str) -> str:
    # vllm/logger.py _FORMAT "%(levelname)s %(asctime)s [%(fileinfo)s:%(lineno)d] %(message)s"
    # with _DATE_FORMAT "%m-%d %H:%M:%S"; vllm/utils/system_utils.py _add_prefix puts
    # "(<process> pid=<pid>) " before every line when the output is not a terminal.
    return f"({process} pid={pid}) INFO {when:%m-%d %H:%M:%S} [{where}] {message}\n"


def vllm_server_log(
    start: datetime,
    *,
    intervals: int = 6,
    engines: int = 1,
    max_model_len: int = 1_100_000,
    kv_cache_tokens: int = 1_310_720,
    preemptions: Sequence[int] = (),
    peak_kv_usage: float = 87.5,
    seed: int = 0,
) -> str:
    """One instance's server log as vLLM v0.26.0 (V1 engine) writes it.

    Formats, from the v0.26.0 wheel:
    - `vllm/v1/core/kv_cache_utils.py` (lines 2177, 2179), once per engine process:
      `GPU KV cache size: {tokens:,} tokens` and `Maximum concurrency for {max_model_len:,}
      tokens per request: %.2fx`, the concurrency being tokens / max_model_len;
    - `vllm/entrypoints/openai/api_server.py` (line 677): `Starting vLLM server on ...`;
    - `vllm/v1/metrics/loggers.py` `LoggingStatLogger.log()` (line 310), every interval
      and engine: `Engine 000: Avg prompt throughput: %.1f tokens/s, Avg generation
      throughput: %.1f tokens/s, Running: %d reqs, Waiting: %d reqs, [Preemptions: %d, ]GPU
      KV cache usage: %.1f%%, Prefix cache hit rate: %.1f%%`. `Preemptions` is printed only
      when the interval had some and counts that interval only.
    preemptions: per interval, for engine 000 (0 or missing: none that interval).
    """
    rng = random.Random(f"vllm-{seed}")
    out: list[str] = []
    when = start
    api_pid = 400 + seed % 100
    for engine in range(engines):
        process = f"EngineCore_DP{engine}" if engines > 1 else "EngineCore"
        pid = 600 + 10 * engine
        out.append(
            _vllm_line(
                process,
                pid,
                when,
                "kv_cache_utils.py:2177",
                f"GPU KV cache size: {kv_cache_tokens:,} tokens",
            )
        )
        out.append(
            _vllm_line(
                process,
                pid,
                when,
                "kv_cache_utils.py:2179",
                f"Maximum concurrency for {max_model_len:,} tokens per request: "
                f"{kv_cache_tokens / max_model_len:.2f}x",
            )
        )
    when += timedelta(seconds=22)
    out.append(
        _vllm_line(
            "APIServer",
            api_pid,
            when,
            "api_server.py:677",
            "Starting vLLM server on http://0.0.0.0:8000",
        )
    )
    for i in range(intervals):
        when += timedelta(seconds=STATS_INTERVAL_S)
        usage = peak_kv_usage * (i + 1) / intervals
        for engine in range(engines):
            parts = [
                f"Engine {engine:03d}: Avg prompt throughput: {rng.uniform(8e3, 5e4):.1f} tokens/s",
                f"Avg generation throughput: {rng.uniform(200, 2400):.1f} tokens/s",
                f"Running: {rng.randint(8, 32)} reqs",
                f"Waiting: {rng.randint(0, 40) if usage > 90 else 0} reqs",
            ]
            count = preemptions[i] if engine == 0 and i < len(preemptions) else 0
            if count:
                parts.append(f"Preemptions: {count}")
            parts.append(f"GPU KV cache usage: {usage:.1f}%")
            parts.append(f"Prefix cache hit rate: {rng.uniform(5, 40):.1f}%")
            out.append(_vllm_line("APIServer", api_pid, when, "loggers.py:310", ", ".join(parts)))
    return "".join(out)


# ---- nel status (nemo-evaluator-launcher 0.2.6) ---------------------------------------


def nel_status_table(jobs: Sequence[dict]) -> str:
    """What `nel status` prints for these jobs, produced by the launcher's own code.

    Each job is shaped as `nemo_evaluator_launcher.api.functional.get_status` returns it for
    the SLURM executor: `{"invocation", "job_id": "<invocation>.<n>", "status": "running" |
    "success" | "failed" | "pending" | "killed", "progress": int | "unknown", "data":
    {"slurm_job_id", "remote_rundir_path", ...}}`. Runs `cli/status.py` `Cmd._print_table`
    (colours are off when stdout is not a terminal) and returns its output.
    """
    import contextlib
    import io

    from nemo_evaluator_launcher.cli.status import Cmd

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        Cmd(job_ids=[])._print_table(list(jobs))
    return buffer.getvalue()


def slurm_status_job(
    invocation: str, index: int, status: str, slurm_job_id: int, rundir: str, progress=None
) -> dict:
    """One entry of get_status() for a SLURM job (`executors/slurm/executor.py` stores
    `slurm_job_id` and `remote_rundir_path`, the task directory, per job)."""
    return {
        "invocation": invocation,
        "job_id": f"{invocation}.{index}",
        "status": status,
        "progress": "unknown" if progress is None else progress,
        "data": {"slurm_job_id": str(slurm_job_id), "remote_rundir_path": rundir},
    }


# ---- run.sub (nemo-evaluator-launcher 0.2.6, abridged) --------------------------------


def run_sub(remote_task_dir: str, invocation: str, instances: int, config_ef: str) -> str:
    """The lines of run.sub the tools read, in the launcher's own wording and order
    (`executors/slurm/executor.py`: the #SBATCH header, TASK_DIR and NEL_INVOCATION_ID, the
    per-instance server loop, the client srun with config_ef.yaml base64-embedded). The
    walltime bookkeeping, proxy and health checks between them are left out."""
    import base64

    blob = base64.b64encode(config_ef.encode()).decode()
    logs = f"{remote_task_dir}/logs"
    return (
        "#!/bin/bash\n"
        "# Abridged: the lines of a nel 0.2.6 SLURM run.sub that evalkit and the logs depend on.\n"
        "#SBATCH --time 04:00:00\n"
        "#SBATCH --account evalkit\n"
        "#SBATCH --partition batch\n"
        f"#SBATCH --nodes {instances}\n"
        "#SBATCH --ntasks-per-node 1\n"
        "#SBATCH --gres gpu:4\n"
        "#SBATCH --exclusive\n"
        "#SBATCH --job-name evalkit-nemo-evaluator-launcher.nemo_gym.0\n"
        "#SBATCH --no-requeue\n"
        f"#SBATCH --output {logs}/slurm-%A.log\n\n"
        f'TASK_DIR="{remote_task_dir}"\n'
        f'NEL_INVOCATION_ID="{invocation}"\n\n'
        "# deployment server\n"
        "HEAD_NODE_IPS=()\n"
        "SERVER_PIDS=()\n"
        f"for ((g=0; g<{instances}; g++)); do\n"
        "    START_IDX=$((g * 1))\n"
        '    INSTANCE_NODES_ARR=("${DEPLOY_NODES_ARRAY[@]:$START_IDX:1}")\n'
        '    INSTANCE_NODELIST=$(IFS=,; echo "${INSTANCE_NODES_ARR[*]}")\n'
        '    MASTER_IP="${NODES_IPS_ARRAY[$START_IDX]}"\n'
        '    echo "Instance $g: MASTER_IP=$MASTER_IP, nodes: ${INSTANCE_NODES_ARR[*]}"\n'
        '    srun --mpi pmix --overlap --nodelist "$INSTANCE_NODELIST" --nodes 1 --ntasks 1 '
        f"--container-image {VLLM_IMAGE} --output {logs}/server-${{g}}-%A-%t.log "
        "bash -c 'bash deployment_cmd.sh' &\n"
        "    SERVER_PIDS+=($!)\n"
        "done\n\n"
        "# evaluation client\n"
        'srun --mpi pmix --overlap --nodelist "${PRIMARY_NODE}" --nodes 1 --ntasks 1 '
        "--container-image gym-git-image --no-container-mount-home "
        f"--output {logs}/client-%A.log bash -c '"
        f'echo "{blob}" | base64 -d > config_ef.yaml && '
        "nemo-evaluator run_eval --run_config config_ef.yaml'\n"
    )


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
    instances: int = 1,
    server_preemptions: Sequence[int] = (),
    peak_kv_usage: float = 87.5,
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
    (task_dir / "run.sub").write_text(run_sub(remote, invocation, instances, run_config))
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


# ---- runs still being written (evalkit status) ---------------------------------------


def write_running_mrcr_run(
    root: Path,
    *,
    done: int,
    now: float,
    partial: bool = False,
    logs: bool = True,
    walltime: str = "04:00:00",
    started_ago: float = 600.0,
    **run_kwargs,
) -> tuple[Path, list[bytes]]:
    """A `write_mrcr_run` caught mid-job: the first `done` rollout lines written (plus
    half of the next when `partial`), no aggregate, results.yml or metrics file yet.

    Returns the task directory and the rollout lines still to come, so a test can
    append them. The job-time files follow nel 0.2.6's run.sub
    (executors/slurm/executor.py): `#SBATCH --time <walltime>`, `date +%s >
    .job_start_time` at the start of each job, the job id appended to `.slurm_job_id.list`.
    `logs=False`: the job has not started writing its logs (the directory is empty).
    """
    import os
    import shutil

    task = write_mrcr_run(root, aggregate=False, **run_kwargs)
    artifacts = task / "artifacts"
    rollouts = artifacts / "evaluator_rollouts.jsonl"
    lines = rollouts.read_bytes().splitlines(keepends=True)
    kept, pending = lines[:done], lines[done:]
    payload = b"".join(kept)
    if partial and pending:
        payload += pending[0][: len(pending[0]) // 2]
    rollouts.write_bytes(payload)
    for name in ("results.yml", "eval_factory_metrics.json"):
        (artifacts / name).unlink()
    job = next(task.glob("logs/client-*.log")).stem.removeprefix("client-")
    (task / "run.sub").write_text(
        "#!/bin/bash\n#SBATCH --job-name=nemo_gym.0\n"
        f"#SBATCH --time {walltime}\n#SBATCH --no-requeue\nsrun echo running\n"
    )
    start = int(now - started_ago)
    (task / ".job_start_time").write_text(f"{start}\n")
    (task / ".slurm_job_id.list").write_text(f"{job}\n")
    if not logs:
        shutil.rmtree(task / "logs")
        (task / "logs").mkdir()
    for path in [rollouts, *task.glob("logs/*.log")]:
        os.utime(path, (now - 5, now - 5))  # written a moment ago: the job is alive
    return task, pending
