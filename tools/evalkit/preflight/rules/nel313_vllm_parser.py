"""A `--reasoning-parser` or `--tool-call-parser` that the image's vLLM does not register.

## What it does
Compares the parser names in the `vllm serve` call with the reasoning and tool-call
parsers the image's vLLM version registers (read from its wheel). With a
`--reasoning-parser-plugin` / `--tool-parser-plugin` in the same call the name may come
from the plugin file: then it is info, a reminder that the file must exist in the image
or a mount. Against a stand-in version (NEL310) errors are warnings.

## Why is this bad
vLLM validates the name after parsing and exits at startup: every server in the
allocation dies. A model card's `--reasoning-parser-plugin nano_v3_reasoning_parser.py
--reasoning-parser nano_v3` copied without its plugin flag is the common case; vLLM 0.26.0
ships the Nemotron 3 parser built in as `nemotron_v3`.

Severity: error; info when a `--*-parser-plugin` flag is passed (the plugin file must
exist in the image or a mount); warning when the table is a stand-in for an unknown
version.

## Example
```yaml
deployment:
  image: vllm/vllm-openai:v0.26.0
  command: vllm serve /checkpoint --reasoning-parser nano_v3
```

## Use instead
`--reasoning-parser nemotron_v3` (built in), or the plugin form with its file mounted:
`--reasoning-parser-plugin /plugins/nano_v3_reasoning_parser.py --reasoning-parser nano_v3`.
"""

from evalkit.preflight.registry import rule
from evalkit.preflight.rules.nel311_vllm_unknown_flag import problems


@rule("NEL313", "vllm-unregistered-parser", "error")
def check(ctx):
    yield from problems(ctx, {"unregistered-parser": None, "plugin-parser": "info"})
