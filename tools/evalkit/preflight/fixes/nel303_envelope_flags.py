"""NEL303: the 1M MRCR serving envelope's missing switches are passed to vLLM.

Adds `--enable-chunked-prefill`, `--enable-prefix-caching` and
`--max-num-batched-tokens 131072` (the reference run's values) to the single
`vllm serve` call of `deployment.command`, each on its own line after the serve line,
the way NEL301's fix adds a flag. They change how the server schedules and caches
prompts, not what it answers, so the score stays comparable. Refuses a switch the
command turns off on purpose (`--no-enable-prefix-caching`, `--no-enable-chunked-prefill`),
the commands NEL301's fix refuses (no single `vllm serve`, a serve line inside quotes or
chained), and the memory fraction: a value below 0.95, or vLLM's default, may be what
the GPUs can hold next to other processes, so it stays yours to raise.
"""

from evalkit.preflight.fixes import fixer
from evalkit.preflight.fixes.serve import add_serve_flag

# flag in the hit's message -> (text added, the switch that turns it off)
ADDED = {
    "--enable-chunked-prefill": ("--enable-chunked-prefill", "--no-enable-chunked-prefill"),
    "--enable-prefix-caching": ("--enable-prefix-caching", "--no-enable-prefix-caching"),
    "--max-num-batched-tokens": ("--max-num-batched-tokens 131072", None),
}


@fixer("NEL303")
def fix(doc, hit, ctx):
    if tuple(hit.path) != ("deployment", "command"):
        return False
    for flag, (text, off) in ADDED.items():
        if not hit.message.startswith(flag):
            continue
        words = ctx.cfg.flags.words
        if off is not None and any(w == off or w.startswith(off + "=") for w in words):
            return False
        if any(w == flag or w.startswith(flag + "=") for w in words):
            return False  # written without a value the rule could read: not certain
        return add_serve_flag(doc, ctx.cfg, text)
    return False
