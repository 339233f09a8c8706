"""The comments of a written config: init's own header, and no template prose it made false.

A template explains itself in general ("1M variant", "Golden topology: 4 nodes",
"fill every ???", "256 / (4 x 2) = 32"). Once init has filled and sized the file those
sentences describe another file, so the header is rewritten from init's decisions and
the template comment blocks above the keys init decides are dropped; init's `# init:`
notes take their place. Comments that stay true whatever init decides (why a key is
quoted, where an env var must live, the Gym bootstrap) are kept.
"""

from __future__ import annotations

from evalkit.config.textedit import Doc

ADAPTER = ("evaluation", "nemo_evaluator_config", "target", "api_endpoint", "adapter_config")
PARAMS = ("evaluation", "nemo_evaluator_config", "config", "params")
KWARGS = ADAPTER + ("params_to_add", "chat_template_kwargs")

# Keys whose template comment block explains the template's own values; init decides them.
DECIDED = {
    "mrcr": [
        ("execution", "walltime"),
        ("execution", "num_nodes"),
        ("deployment", "reasoning_parser"),
        ("deployment", "kv_cache_dtype"),
        ("deployment", "command"),
        ("deployment", "env_vars", "VLLM_ALLOW_LONG_MAX_MODEL_LEN"),
        PARAMS + ("parallelism",),
        KWARGS,
    ],
    "gdpval": [("deployment", "command")],
    "aa": [
        ("execution", "walltime"),
        ("execution", "gres"),
        ("deployment", "command"),
        PARAMS + ("max_new_tokens",),
    ],
    "tau2": [("deployment", "command")],
    "tau3": [
        ("execution", "gres"),
        ("deployment", "max_model_len"),
        ("deployment", "reasoning_parser"),
        ("deployment", "tool_call_parser"),
        ("deployment", "command"),
        PARAMS + ("parallelism",),
        KWARGS,
    ],
}
DECIDED["single"] = DECIDED["aa"]
# Keys whose trailing comment speaks of the template's values.
DECIDED_TRAILING = {
    "aa": [("execution", "gres")],
    "tau2": [("execution", "gres"), PARAMS + ("max_new_tokens",)],
}
DECIDED_TRAILING["single"] = DECIDED_TRAILING["aa"]

RECIPES = {
    "mrcr": "recipes/tasks/gym/mrcr.md",
    "gdpval": "recipes/tasks/gym/gdpval.md",
    "tau2": "recipes/tasks/aa/tau2_bench_telecom.md",
    "tau3": "recipes/tasks/gym/tau3_banking.md",
    "aa": "recipes/tasks/aa/",
}
ROLE_NOTES = {
    "mrcr": [
        "One gym task per config: never add other tasks to this file. No auto-export block:",
        "results.yml carries no MRCR score; read it with `scripts/evalkit score RUN`.",
    ],
    "gdpval": [
        "One gym task per config: never add other tasks to this file. There is no canary:",
        "limit_samples does not reach the gym, every run does all tasks.",
    ],
    "aa": [
        "Tau3-Banking and GDPVal run from their own configs; MRCR is not an AA task.",
        "SciCode: plan at least 8 independent runs a side (`nel run --config THIS -t",
        "ns_scicode`, each into a fresh output_dir; num_repeats stays 1); evalkit compare",
        "pools them and gives no pass below 8 valid runs a side.",
    ],
    "tau3": [
        "One gym task per config: never add other tasks to this file. The user simulator",
        "comes from TAU3_USER_BASE_URL, TAU3_USER_MODEL and INFERENCE_API_KEY in the",
        "launching shell or .env. No auto-export block: read the score with",
        "`scripts/evalkit score RUN`.",
    ],
    "tau2": [
        "SUPERSEDED: the AA suite's agentic task is now Tau3-Banking (evalkit init",
        "tau3-banking); a Tau2 score is not comparable with a Tau3 one.",
    ],
}


def header(task_name: str, template: str, role: str, recipe: str | None, what: str) -> list[str]:
    """The generated head of the file: what it is, where it came from, what to read."""
    lines = [
        f"# {what}, nel 0.2.6, SLURM + vLLM.",
        f"# Written by `evalkit init {task_name}` from {template}.",
        f"# Recipe: {recipe or RECIPES.get(role, 'recipes/')}.",
        "# `# init:` comments say where each filled or derived value came from.",
        "# `evalkit init ... --check` runs preflight and the launcher's dry-run on this file",
        "# and prints the canary, full-run, validate and score commands.",
    ]
    lines += [f"# {line}" for line in ROLE_NOTES.get(role, [])]
    return lines + ["#"]


def replace_header(doc: Doc, lines: list[str]) -> None:
    """Swap the comment lines before the first key for `lines`."""
    text = doc.lines
    first = next(
        (i for i, line in enumerate(text) if line.strip() and not line.lstrip().startswith("#")),
        len(text),
    )
    doc.replace_text("\n".join(lines + [""] + text[first:]))


def drop_block_above(doc: Doc, path: tuple) -> None:
    """Remove the comment lines directly above a key (same indent), not init notes."""
    if not doc.has(path):
        return
    span = doc.doc.spans[tuple(path)]
    lines = doc.lines
    index = (span.key_line or span.line) - 1
    indent = len(lines[index]) - len(lines[index].lstrip())
    first = index
    while first > 0:
        above = lines[first - 1]
        stripped = above.lstrip()
        if not stripped.startswith("#") or len(above) - len(stripped) != indent:
            break
        if stripped.startswith("# init:"):
            break
        first -= 1
    del lines[first:index]
    doc.replace_text("\n".join(lines))


def drop_trailing(doc: Doc, path: tuple) -> None:
    """Remove the trailing comment of a one-line scalar."""
    if not doc.has(path):
        return
    span = doc.doc.spans[tuple(path)]
    if span.line != span.end_line:
        return
    lines = doc.lines
    index = span.line - 1
    start = sum(len(line) + 1 for line in lines[:index])
    tail = span.end - start
    if "#" in lines[index][tail:]:
        lines[index] = lines[index][:tail].rstrip()
        doc.replace_text("\n".join(lines))


def clear_template_prose(doc: Doc, role: str) -> None:
    for path in DECIDED.get(role, []):
        drop_block_above(doc, path)
    for path in DECIDED_TRAILING.get(role, []):
        drop_trailing(doc, path)
