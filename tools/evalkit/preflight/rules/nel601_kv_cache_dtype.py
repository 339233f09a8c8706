"""`--kv-cache-dtype` disagrees with the checkpoint's declared KV-cache quantization.

## What it does
With `--checkpoint DIR`, reads `hf_quant_config.json` (`quantization.kv_cache_quant_algo`)
and `config.json` (`quantization_config.kv_cache_scheme`). `--kv-cache-dtype fp8` on a
checkpoint without calibrated FP8 KV scales is an error; a calibrated FP8 KV cache that
the command does not use is a warning.

## Why is this bad
Uncalibrated FP8 KV uses scale 1.0 and can cost accuracy that is then blamed on the
weight quantization; not using calibrated scales gives away half the KV capacity, which
decides whether long prompts fit.

Severity: error for FP8 KV without calibrated scales (the score would measure a KV
quantization nobody intended, so baseline and candidate are no longer comparable);
warning for calibrated scales left unused (the score is sound, the KV capacity wasted).

## Example
```yaml
command: vllm serve /checkpoint --kv-cache-dtype fp8   # checkpoint declares no KV quant
```

## Use instead
Follow the checkpoint: `--kv-cache-dtype fp8` only when it declares FP8 KV.
"""

from evalkit.preflight.registry import Hit, rule


@rule("NEL601", "kv-cache-dtype", "error", scope="checkpoint")
def check(ctx):
    if not ctx.deploys:
        return
    declared = ctx.checkpoint.kv_cache_quant
    used = (ctx.cfg.flags.raw("kv_cache_dtype") or "auto").lower()
    path = ("deployment", "command")
    if used.startswith("fp8") and not (declared or "").startswith("fp8"):
        yield Hit(
            path,
            f"--kv-cache-dtype {used} but the checkpoint declares no calibrated FP8 KV cache",
            fix="drop --kv-cache-dtype",
            token="--kv-cache-dtype",
        )
    elif (declared or "").startswith("fp8") and not used.startswith("fp8"):
        yield Hit(
            path,
            "the checkpoint declares an FP8 KV cache but the command does not use it",
            severity="warning",
            fix="add --kv-cache-dtype fp8",
        )
