"""NEL313: a reasoning parser the image's vLLM does not register gets its built-in name.

Only for a parser known to be the same code under another name: `nano_v3` (the
Nemotron 3 Nano model card's plugin file) is built into vLLM as `nemotron_v3`, which
the generated table of the image's exact vLLM version (0.26.0 and later) registers.
Changes `--reasoning-parser nano_v3` to `--reasoning-parser nemotron_v3` where the
command writes it, or, when the command says `--reasoning-parser ${deployment.X}` (the
shipped templates and `init`'s configs: `deployment.reasoning_parser`), the key it names.
Refuses when a `--reasoning-parser-plugin` is passed (the plugin
registers the name), when the image's vLLM version has no table of its own, and for
every other unregistered name.
"""

import re

from evalkit.config.vllm_cli import REASONING, REASONING_PLUGIN, choose_table
from evalkit.config.yamldoc import Path
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
            return _through_key(doc, value, old, new)
        span = doc.doc.spans[path]
        inside = doc.text[span.start : span.end]
        fixed = written.sub(rf"{REASONING}\g<1>{new}", inside)
        doc.replace_text(doc.text[: span.start] + fixed + doc.text[span.end :])
        return True
    return False


def _through_key(doc, command: str, old: str, new: str) -> bool:
    """`--reasoning-parser ${deployment.X}` with `deployment.X: old`: X becomes `new`."""
    found = re.search(rf"{REASONING}[ =]\$\{{(deployment(?:\.[A-Za-z_][\w]*)+)\}}", command)
    if not found:
        return False
    key: Path = tuple(found.group(1).split("."))
    if not doc.has(key) or doc.value(key) != old:
        return False
    doc.set(key, new)
    doc.claim(key)  # the parser's own key; the command reads it
    return True
