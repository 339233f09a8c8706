"""A placeholder such as `<HOST_HF_CACHE>`, `<your-endpoint>` or `CHANGEME` left in a value.

## What it does
Looks in keys and values for angle-bracket placeholders in any case (`<HOST_HF_CACHE>`,
`<your-model-id>`, `<Model_Path>`: one word between the brackets, upper case, or joined
with `-`/`_`, or starting with `your`/`my`), for `your-...`/`YOUR_...` words, and for
`CHANGEME`, `CHANGE_ME`, `TODO` and `FIXME`. YAML comments are not values and are
ignored, and so are shell comments inside commands. Prompt and template text (keys
named like `*prompt*`, `*template*`, `*message*`, `*instruction*`) is left alone, so
`<think>` or `<answer_text>` in a system prompt is not a placeholder; neither is a
shell redirection (`> /tmp/vllm.log 2>&1`), which has no word inside brackets.

## Why is this bad
The launcher only knows `???`. Any other placeholder passes its dry-run and lands in
the job script: a mount source `<HOST_HF_CACHE>`, `--reasoning-parser <PARSER>`, an
MLflow experiment named `CHANGEME`. The job then fails on the cluster, or worse,
exports results under a wrong name.

Severity: error, the job fails on every cluster (the placeholder reaches the script as a
path, an account or a flag) although the launcher accepts it; info with `--template`,
where a template's placeholders are its blanks, as `???` is for NEL002.

## Example
```yaml
execution:
  mounts:
    deployment:
      <HOST_HF_CACHE>: /hf-cache
```

## Use instead
Write the real value; in shared templates use `???` for anything the user must fill
(the launcher refuses a `???` it reaches, so it cannot slip through).
"""

import re

from evalkit.preflight.helpers import COMMAND_KEYS, strip_shell_comments
from evalkit.preflight.registry import Hit, rule

ANGLE = re.compile(r"<([A-Za-z][A-Za-z0-9_.-]*)>")
WORD = re.compile(
    r"\b(?:CHANGE_?ME|change_?me|ChangeMe|TODO|FIXME)\b"
    r"|(?<![\w-])(?:[Yy]our|YOUR)[-_][A-Za-z0-9][\w-]*"
)
# Free text the model reads: tags such as <think> there are content, not blanks.
PROSE_KEY = re.compile(r"prompt|template|message|instruction|few_?shot|stop", re.I)


def is_placeholder(inner: str) -> bool:
    """Whether the text inside <...> names a blank (NEL307 skips these too)."""
    if re.fullmatch(r"[A-Z][A-Z0-9_]*", inner):
        return True
    lower = inner.lower()
    return "-" in inner or "_" in inner or lower.startswith(("your", "my"))


def find_placeholder(text: str) -> str | None:
    """The first placeholder token in `text`, or None."""
    for m in ANGLE.finditer(text):
        if is_placeholder(m.group(1)):
            return m.group(0)
    m = WORD.search(text)
    return m.group(0) if m else None


def _walk_keys(node, path=()):
    if isinstance(node, dict):
        for key, value in node.items():
            yield path + (key,), key
            yield from _walk_keys(value, path + (key,))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _walk_keys(value, path + (i,))


def _prose(path) -> bool:
    return any(isinstance(p, str) and PROSE_KEY.search(p) for p in path)


@rule("NEL003", "placeholder-left", "error")
def check(ctx):
    severity = "info" if ctx.template else None
    for path, key in _walk_keys(ctx.cfg.data):
        token = find_placeholder(key) if isinstance(key, str) and path[0] != "defaults" else None
        if token and not _prose(path[:-1]):
            yield Hit(
                path,
                f"placeholder {token!r} in key {key!r}",
                fix="replace it with the real value",
                severity=severity,
            )
    for path, value in ctx.strings():
        if path[0] == "defaults" or _prose(path):
            continue
        if path[-1] in COMMAND_KEYS:
            value = strip_shell_comments(value)
        for line in value.splitlines() or [value]:
            if line.lstrip().startswith("#"):
                continue
            token = find_placeholder(line)
            if token:
                yield Hit(
                    path,
                    f"placeholder {token!r} left in the value",
                    fix="replace it with the real value (templates use ??? for blanks)",
                    token=token,
                    severity=severity,
                )
                break
