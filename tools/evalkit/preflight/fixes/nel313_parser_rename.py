"""NEL313: a reasoning parser the image's vLLM does not register gets its built-in name.

Only for a parser known to be the same code under another name: `nano_v3` (the
Nemotron 3 Nano model card's plugin file) is built into vLLM as `nemotron_v3`, which
the generated table of the image's exact vLLM version (0.26.0 and later) registers.
Changes `--reasoning-parser nano_v3` to `--reasoning-parser nemotron_v3` where the
command writes it. Refuses when a `--reasoning-parser-plugin` is passed (the plugin
registers the name), when the image's vLLM version has no table of its own, and for
every other unregistered name.
"""

import re

from evalkit.config.vllm_cli import REASONING, REASONING_PLUGIN, choose_table
from evalkit.preflight.fixes import fixer

# plugin name -> the built-in name of the same parser (see the rule's Use instead).
SAME_PARSER = {"nano_v3": "nemotron_v3"}


@fixer("NEL313")
def fix(doc, hit, ctx):
    path = tuple(hit.path)
    if not doc.has(path) or REASONING_PLUGIN in ctx.cfg.serve_command:
        return False
    value = doc.value(path)
    if not isinstance(value, str):
        return False
    choice = choose_table(ctx.cfg.get(("deployment", "image")))
    if not choice.exact:
        return False
    for old, new in SAME_PARSER.items():
        if f"{old!r}" not in hit.message or new not in choice.table.reasoning_parsers:
            continue
        written = re.compile(rf"{REASONING}([ =])({re.escape(old)})(?![\w.-])")
        if not written.search(value):
            return False
        span = doc.doc.spans[path]
        inside = doc.text[span.start : span.end]
        fixed = written.sub(rf"{REASONING}\g<1>{new}", inside)
        doc.replace_text(doc.text[: span.start] + fixed + doc.text[span.end :])
        return True
    return False
