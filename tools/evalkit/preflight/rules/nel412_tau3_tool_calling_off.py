"""Tau3-Banking served without tool calling.

## What it does
For a config that prepares or rolls out a Tau3 `banking_knowledge` benchmark
(`benchmarks/tau2/configs/banking_*` in the gym parameters) and deploys its own vLLM,
looks for `--enable-auto-tool-choice` and `--tool-call-parser` in the serve command.

## Why is this bad
The agent acts only through tool calls (the bank's tools and the knowledge-base search).
Without both flags vLLM refuses requests with `tool_choice: auto` or returns the calls
as plain text, so no episode reaches a tool and every episode scores 0. The run
finishes and reports a valid-looking 0.

Severity: error, every episode scores 0, so the score is wrong.

## Example
```yaml
deployment:
  command: vllm serve /checkpoint --max-model-len 262144
```

## Use instead
`--enable-auto-tool-choice --tool-call-parser <parser>` with the parser of the model's
chat template (recipes/tasks/gym/tau3_banking.md, "Deployment").
"""

from evalkit.preflight.registry import Hit, rule


@rule("NEL412", "tau3-tool-calling-off", "error")
def check(ctx):
    if ctx.cfg.tau3 is None or not ctx.deploys:
        return
    flags = ctx.cfg.flags
    missing = [
        flag
        for name, flag in (
            ("auto_tool_choice", "--enable-auto-tool-choice"),
            ("tool_call_parser", "--tool-call-parser"),
        )
        if not flags.has(name)
    ]
    if missing:
        yield Hit(
            ("deployment", "command"),
            f"Tau3-Banking needs tool calling but the vLLM command lacks {' and '.join(missing)}: "
            "every episode scores 0",
            fix="add --enable-auto-tool-choice --tool-call-parser <the chat template's parser>",
        )
