"""Baseline and candidate differ in something other than the checkpoint.

## What it does
With `--pair BASE CAND`, compares everything that decides the score: the evaluation
section (tasks, containers, sampling, repeats, adapter settings, gym parameters and so
the MRCR variant), the serving image, `--max-model-len` and the reasoning/tool parsers.
Checkpoint-specific keys may differ: `checkpoint_path`, `served_model_name`,
`hf_model_handle`, `--quantization`, and the parallel layout. A different
`--kv-cache-dtype` is reported as info, since it follows each checkpoint.

## Why is this bad
A quantization verdict is only valid when the checkpoint is the one thing that changed;
any other difference is measured along with it.

Severity: error, the pair differs in more than the checkpoint, so the comparison is not
a fair one.

## Example
Baseline `temperature: 1.0`, candidate `temperature: 0.6`.

## Use instead
Copy the baseline config and change only the checkpoint-specific keys.
"""

from evalkit.preflight.registry import Hit, rule

ALLOWED_EVAL_KEYS = {"served_model_name", "model_id"}
FLAGS = ("max_model_len", "kv_cache_dtype")
EXTRA_FLAGS = ("--reasoning-parser", "--tool-call-parser", "--chat-template")


def flatten(node, path=()):
    if isinstance(node, dict):
        for key, value in node.items():
            yield from flatten(value, path + (key,))
    elif isinstance(node, list) and node and all(isinstance(v, dict) for v in node):
        for i, value in enumerate(node):
            yield from flatten(value, path + (i,))
    else:
        yield path, node


def _shown(a, b):
    """The two values as the message quotes them: a multi-line value (pre_cmd, a command)
    by its first differing line only, so a whole script is never pasted back."""
    if isinstance(a, str) and isinstance(b, str) and ("\n" in a or "\n" in b):
        left, right = a.splitlines(), b.splitlines()
        for i in range(max(len(left), len(right))):
            x = left[i] if i < len(left) else None
            y = right[i] if i < len(right) else None
            if x != y:
                return f"line {i + 1}: baseline {x!r}, candidate {y!r}"
    return f"baseline {a!r}, candidate {b!r}"


def _flag(cfg, spelling):
    words = cfg.flags.words
    for i, word in enumerate(words):
        if word == spelling and i + 1 < len(words):
            return words[i + 1]
        if word.startswith(spelling + "="):
            return word.split("=", 1)[1]
    return None


@rule("NEL701", "pair-difference", "error", scope="pair")
def check(ctx):
    base, cand = ctx.base, ctx.cfg
    a = dict(flatten(base.get(("evaluation",)) or {}, ("evaluation",)))
    b = dict(flatten(cand.get(("evaluation",)) or {}, ("evaluation",)))
    for path in sorted(set(a) | set(b), key=lambda p: tuple(map(str, p))):
        if path and path[-1] in ALLOWED_EVAL_KEYS:
            continue
        if a.get(path) != b.get(path):
            yield Hit(
                path,
                f"differs: {_shown(a.get(path), b.get(path))}",
                fix="make it identical in both configs",
            )
    ga, gb = base.mrcr, cand.mrcr
    va = ga.mrcr_variant.config if ga and ga.mrcr_variant else None
    vb = gb.mrcr_variant.config if gb and gb.mrcr_variant else None
    if va != vb:
        yield Hit(
            gb.path("collect_rollout_params") if gb else ("evaluation",),
            f"MRCR variant differs: baseline {va}, candidate {vb}",
            fix="use the same variant for both",
        )
    if base.get(("deployment", "image")) != cand.get(("deployment", "image")):
        yield Hit(
            ("deployment", "image"),
            "serving image differs: baseline "
            f"{base.get(('deployment', 'image'))!r}, candidate "
            f"{cand.get(('deployment', 'image'))!r}",
            fix="serve both with the same image",
        )
    for name in FLAGS:
        x, y = base.flags.raw(name), cand.flags.raw(name)
        if x != y:
            flag = "--" + name.replace("_", "-")
            info = name == "kv_cache_dtype"
            yield Hit(
                ("deployment", "command"),
                f"{flag} differs: baseline {x}, candidate {y}"
                + (
                    " (it follows each checkpoint's KV calibration; say so in the report)"
                    if info
                    else ""
                ),
                severity="info" if info else None,
                token=flag if y else None,
                fix=None if info else f"use the same {flag}",
            )
    for flag in EXTRA_FLAGS:
        x, y = _flag(base, flag), _flag(cand, flag)
        if x != y:
            yield Hit(
                ("deployment", "command"),
                f"{flag} differs: baseline {x}, candidate {y}",
                fix=f"use the same {flag}",
            )
