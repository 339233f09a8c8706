"""The MRCR 1M serving envelope is incomplete (recommendations).

## What it does
For the 1M MRCR variant, checks the settings the reference run served with:
`--gpu-memory-utilization` 0.95, `--enable-prefix-caching`, `--enable-chunked-prefill`
and `--max-num-batched-tokens` (131072 in the reference).

## Why is this bad
Without them a 1M-token prompt either does not fit in the KV cache or its prefill
monopolises the server; the run is slower than the reference and may preempt and
recompute prompts for hours.

Severity: warning, recommendations from the reference run; a run without them may still
finish.

## Example
```yaml
deployment:
  command: vllm serve /checkpoint --max-model-len 1100000
```

## Use instead
```yaml
deployment:
  command: >-
    vllm serve /checkpoint --max-model-len 1100000 --gpu-memory-utilization 0.95
    --enable-prefix-caching --enable-chunked-prefill --max-num-batched-tokens 131072
```
"""

from evalkit.preflight.registry import Hit, rule


@rule("NEL303", "long-context-envelope", "warning")
def check(ctx):
    cfg = ctx.cfg
    gym = cfg.mrcr
    variant = gym.mrcr_variant if gym else None
    if not ctx.deploys or variant is None or (variant.cap_tokens or 0) < 1_000_000:
        return
    path = ("deployment", "command")
    flags = cfg.flags
    util = flags.number("gpu_memory_utilization")
    if util is None or util < 0.95:
        shown = "vLLM's default 0.9" if util is None else util
        yield Hit(
            path,
            f"gpu memory utilisation is {shown}; the 1M envelope uses 0.95",
            fix="add --gpu-memory-utilization 0.95",
        )
    for name, flag in (
        ("prefix_caching", "--enable-prefix-caching"),
        ("chunked_prefill", "--enable-chunked-prefill"),
    ):
        if not flags.has(name):
            yield Hit(path, f"{flag} is missing from the 1M envelope", fix=f"add {flag}")
    if flags.raw("max_num_batched_tokens") is None:
        yield Hit(
            path,
            "--max-num-batched-tokens is not set (reference: 131072)",
            fix="add --max-num-batched-tokens 131072",
        )
