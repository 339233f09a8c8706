# ruff: noqa: E501  (fixture edits are literal YAML snippets; wrapping them hurts)
"""What every fixture family shares: the two clean bases, the writers, and the edits and
checkpoint arguments that more than one family applies."""

import json
import pathlib

ROOT = pathlib.Path(__file__).resolve().parent.parent / "fixtures"
BASE = {n: (ROOT / "_base" / f"{n}.yaml").read_text() for n in ("mrcr", "generic", "tau3")}
HEAD = "# Golden fixture for {code} ({kind}): {what}\n"


def make(code, kind, name, base, subs=(), what="", args=None, append=""):
    """Write fixtures/CODE/KIND/NAME.yaml: BASE[base] with each (old, new) of SUBS replaced
    once, under a one-line header; ARGS (the test's CLI options) beside it as JSON."""
    text = BASE[base]
    for old, new in subs:
        assert old in text, (code, name, old)
        text = text.replace(old, new, 1)
    text = HEAD.format(code=code, kind=kind, what=what) + text + append
    d = ROOT / code / kind
    d.mkdir(parents=True, exist_ok=True)
    (d / f"{name}.yaml").write_text(text)
    if args:
        (d / f"{name}.args.json").write_text(json.dumps(args, indent=2) + "\n")


def ckpt(name, config, quant=None):
    """Write a checkpoint directory (config.json, hf_quant_config.json) under _checkpoints."""
    d = ROOT / "_checkpoints" / name
    d.mkdir(parents=True, exist_ok=True)
    (d / "config.json").write_text(json.dumps(config, indent=2) + "\n")
    if quant:
        (d / "hf_quant_config.json").write_text(json.dumps(quant, indent=2) + "\n")


def C(n, context=None):
    """The args of a fixture checked against checkpoint N (and, when given, a context)."""
    args = {"checkpoint": f"../../_checkpoints/{n}"}
    if context is not None:
        args["context"] = context
    return args


# A MoE with custom code and no KV calibration, served as the golden serves it.
MOE_NOKV = [
    (
        "    --enable-prefix-caching\n",
        "    --enable-prefix-caching\n    --enable-expert-parallel\n    --trust-remote-code\n",
    )
]
NO_OVERRIDE = [("    VLLM_ALLOW_LONG_MAX_MODEL_LEN: lit:1\n", "")]


MOE_OK = [
    (
        "    --enable-prefix-caching\n",
        "    --enable-prefix-caching\n    --enable-expert-parallel\n    --trust-remote-code\n    --kv-cache-dtype fp8\n",
    )
]

V128 = [
    (
        'benchmarks/mrcr/config_n3_1m.yaml]"\n                  +hf_token',
        'benchmarks/mrcr/config_n3_128k.yaml]"\n                  +hf_token',
    ),
    (
        'benchmarks/mrcr/config_n3_1m.yaml]"\n                  ++split',
        'benchmarks/mrcr/config_n3_128k.yaml]"\n                  ++split',
    ),
]
