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


def vllm_startup(
    start: datetime,
    *,
    version: str = "0.26.0",
    model: str = "/checkpoint",
    served_model: str = "served-model",
    max_model_len: int | None = 1_100_000,
    reasoning_parser: str = "",
    logo: bool = True,
    color: bool = False,
    api_pid: int = 400,
    engine_pid: int = 600,
) -> str:
    """The start-up lines a vLLM 0.26.0 API server writes to a log file (a SLURM
    `--output`), in order. Formats, from the v0.26.0 wheel:
    - `vllm/entrypoints/serve/utils/api_utils.py:323-345` `log_version_and_model`, called
      from `vllm/entrypoints/openai/api_server.py:619`: the logo (monochrome unless
      VLLM_LOGGING_COLOR=1, since the log is no terminal: `vllm/logger.py:29-38`), or
      `vLLM server version %s, serving model %s` with VLLM_DISABLE_LOG_LOGO=1;
    - `vllm/logging_utils/formatter.py:71-74`: each line of a multi-line message is
      `\\r\\n` plus the prefix (`(<process> pid=<pid>) ` from
      `vllm/utils/system_utils.py:201-230`, then `_FORMAT`'s level, time and file:line);
    - `api_utils.py:273`: `non-default args: <dict>`; the dict's keys and values here are
      a plausible selection (a guess: the real dict holds every argument that differs
      from the parser's defaults);
    - `vllm/config/model.py:1788`: `Using max model len %s`;
    - `vllm/v1/engine/core.py:116-120` with `vllm/config/vllm.py:2090-2125`
      (`VllmConfig.__str__`, shortened here to the fields read) and
      `vllm/config/structured_outputs.py:17-41` (the parser's fields).
    """
    out: list[str] = []
    when = start

    def emit(process: str, pid: int, where: str, message: str) -> None:
        prefix = f"({process} pid={pid}) INFO {when:%m-%d %H:%M:%S} [{where}] "
        out.append(prefix + message.replace("\n", "\r\n" + prefix) + "\n")

    if logo:
        w, o, b, r = ("\033[97;1m", "\033[93m", "\033[94m", "\033[0m") if color else ("",) * 4
        banner = (
            f"\n       {w}\u2588     \u2588     \u2588\u2584   \u2584\u2588{r}\n"
            f" {o}\u2584\u2584{r} {b}\u2584\u2588{r} {w}\u2588     \u2588     \u2588 "
            f"\u2580\u2584\u2580 \u2588{r}  version {w}{version}{r}\n"
            f"  {o}\u2588{r}{b}\u2584\u2588\u2580{r} {w}\u2588     \u2588     \u2588     "
            f"\u2588{r}  model   {w}{model}{r}\n"
            f"   {b}\u2580\u2580{r}  {w}\u2580\u2580\u2580\u2580\u2580 \u2580\u2580\u2580\u2580"
            f"\u2580 \u2580     \u2580{r}\n"
        )
        emit("APIServer", api_pid, "api_utils.py:345", banner)
    else:
        emit(
            "APIServer",
            api_pid,
            "api_utils.py:345",
            f"vLLM server version {version}, serving model {model}",
        )
    args = {"model_tag": model, "model": model, "served_model_name": [served_model]}
    if max_model_len is not None:
        args["max_model_len"] = max_model_len
    if reasoning_parser:
        args["reasoning_parser"] = reasoning_parser
    emit("APIServer", api_pid, "api_utils.py:273", f"non-default args: {args!r}")
    when += timedelta(seconds=9)
    effective = max_model_len or 131072  # the model's own length when none is given
    emit("APIServer", api_pid, "model.py:1788", f"Using max model len {effective}")
    when += timedelta(seconds=3)
    structured = (
        "StructuredOutputsConfig(backend='auto', disable_any_whitespace=False, "
        f"disable_additional_properties=False, reasoning_parser='{reasoning_parser}', "
        "reasoning_parser_plugin='', enable_in_reasoning=False)"
    )
    emit(
        "EngineCore",
        engine_pid,
        "core.py:116",
        f"Initializing a V1 LLM engine (v{version}) with config: model={model!r}, "
        f"speculative_config=None, tokenizer={model!r}, skip_tokenizer_init=False, "
        f"dtype=torch.bfloat16, max_seq_len={effective}, tensor_parallel_size=1, "
        f"quantization=None, structured_outputs_config={structured}, "
        f"served_model_name={served_model}, enable_prefix_caching=True",
    )
    return "".join(out)
