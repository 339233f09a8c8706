"""A vLLM v0.26.0 server log (the templates' image), one per deployment instance."""

from __future__ import annotations

import random
from collections.abc import Sequence
from datetime import datetime, timedelta

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
