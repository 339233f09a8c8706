"""What init writes passes its own preflight: the rendered text goes through the same
rules and safe fixes as `evalkit preflight --fix`, before anything is written.

A safe fix (deterministic, proved by the fix engine: the composed, resolved config changes
only in the keys it owns) is applied and the key it changed gets an `# init:` comment
naming the substitution and the rule (a `--reasoning-parser nano_v3` on an image whose
vLLM registers the same parser as `nemotron_v3` is written as `nemotron_v3`). An error no
fix removes is a problem: init refuses to write, and says the finding's alternatives.
"""

from __future__ import annotations

from typing import Any

from evalkit.config.textedit import Doc
from evalkit.config.yamldoc import Path, format_path, parse_document

NOTE = "init: "


def _leaves(node: Any, path: Path = ()):
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _leaves(value, path + (key,))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _leaves(value, path + (index,))
    else:
        yield path, node


def _short(value: Any) -> str:
    text = str(value)
    return text if len(text) <= 40 and "\n" not in text else "(see the value)"


def accept(rendered, ckpt, context: int | None) -> None:
    """Fix `rendered.text` as preflight --fix would; errors left become its problems."""
    from evalkit.config.interpolation import launch_environment
    from evalkit.preflight.fixes import all_fixers
    from evalkit.preflight.fixes.engine import fix_text
    from evalkit.preflight.runner import Options

    name = rendered.output.file_name
    options = Options(checkpoint=ckpt, context=context, env=launch_environment())
    outcome = fix_text(rendered.text, name, options)
    if outcome.fixed:
        before = dict(_leaves(parse_document(rendered.text, name).data))
        doc = Doc(outcome.text, name)
        rules = sorted({f.rule for f in outcome.fixed})
        why = "; ".join(
            all_fixers()[code].summary.removeprefix(f"{code}: ").rstrip(".") + f" ({code})"
            for code in rules
        )
        changed = [
            (path, _short(before[path]), _short(value))
            for path, value in _leaves(doc.doc.data)
            if path in before and before[path] != value and doc.has(path)
        ]
        for path, old, new in changed:
            doc.note(path, f"{NOTE}{old} -> {new}: {why}")
        rendered.text = doc.text
        rendered.warnings += [
            f"{format_path(path)}: {old} written as {new} ({why})" for path, old, new in changed
        ]
    for finding in outcome.remaining:
        if finding.severity == "error":
            rendered.problems.append(
                f"{finding.rule} [{finding.path}] {finding.message}; no safe substitute, "
                f"so nothing is written: {finding.fix or 'see references/rules.md'}"
            )
