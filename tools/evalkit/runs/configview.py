"""A task run's config read for its fingerprint: each value with the file and line it
came from, and the adapter settings that change what the model is asked and what is graded.

nemo-evaluator's run_config.yml is the task's merged config (the framework's defaults, the
evaluation-wide block and the task's own block, in that order), so its `config.params`
are the values the harness used; a launcher config (config.yml,
launcher_unresolved_config.yaml) holds every task, and this task's block (its index from
the `<task>.<idx>` directory) wins over the evaluation-wide one. The adapter keys are
nemo-evaluator 0.2.8's (`adapters/adapter_config.py`: the legacy flat keys, converted at
lines 388-425 and 598-614 into the `system_message`, `payload_modifier` and `reasoning`
interceptors, which a config may also list itself).
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evalkit.errors import InputError
from evalkit.inputs import compose_bounded, parse_yaml, read_text
from evalkit.runs.launchscript import LaunchScript
from evalkit.runs.serverbanner import ServerFacts
from evalkit.runs.settings import embedded_files
from evalkit.secrets.quote import redact_quoted

PROMPT_CHARS = 500  # a longer system prompt is kept as its head and its digest


@dataclass(frozen=True)
class FieldValue:
    value: Any  # None: not recorded
    source: str | None  # "artifacts/run_config.yml:40", "run.sub:160", ...

    def to_json(self) -> dict[str, Any]:
        return {"value": self.value, "source": self.source}


NOT_RECORDED = FieldValue(None, None)


def as_data(value: Any) -> Any:
    """Run data as JSON data: strings redacted of secrets, containers walked, anything else
    YAML may construct (a date, a non-finite float, bytes) as its text."""
    if isinstance(value, str):
        return redact_quoted(value)
    if isinstance(value, dict):
        return {redact_quoted(str(k)): as_data(v) for k, v in value.items()}
    if isinstance(value, list):
        return [as_data(v) for v in value]
    if value is None or isinstance(value, (bool, int)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    return redact_quoted(str(value))


class ConfigView:
    """One parsed config and its node graph (for lines). nemo-evaluator's own config
    (`config:`/`target:` at the top) is the task's merged config; a launcher config holds
    every task, so this task's entry (its index from the `<task>.<idx>` directory) wins
    over the evaluation-wide one."""

    def __init__(self, data: Any, root: Any, label: str, task_index: int | None, outer: str = ""):
        self.data = data if isinstance(data, dict) else {}
        self.root = root
        self.label = f"{outer} ({label})" if outer else label
        self._file, self._outer = label, outer
        prefixes: list[tuple] = []
        if "config" in self.data or "target" in self.data:
            prefixes.append(())
        if task_index is not None:
            prefixes.append(("evaluation", "tasks", task_index, "nemo_evaluator_config"))
        prefixes.append(("evaluation", "nemo_evaluator_config"))
        self.prefixes = prefixes

    def source(self, path: tuple) -> str:
        node = self.root
        for step in path:
            node = _child(node, step)
            if node is None:
                return self.label
        line = f"{self._file}:{node.start_mark.line + 1}"
        return f"{self._outer} ({line})" if self._outer else line

    def get(self, *path: Any) -> tuple[bool, Any, str | None]:
        """(present, value, source) of PATH under this task's config blocks."""
        for prefix in self.prefixes:
            full = (*prefix, *path)
            present, value = _dig(self.data, full)
            if present:
                return True, value, self.source(full)
        return False, None, None

    def line_of(self, text: str) -> str | None:
        """Where the first scalar equal to TEXT stands (None: nowhere in this config)."""
        import yaml

        stack = [self.root] if self.root is not None else []
        while stack:
            node = stack.pop()
            if isinstance(node, yaml.ScalarNode):
                if node.value == text:
                    line = f"{self._file}:{node.start_mark.line + 1}"
                    return f"{self._outer} ({line})" if self._outer else line
            elif isinstance(node, yaml.SequenceNode):
                stack.extend(reversed(node.value))
            elif isinstance(node, yaml.MappingNode):
                stack.extend(v for pair in reversed(node.value) for v in reversed(pair))
        return None

    def adapter(self) -> tuple[dict, str | None]:
        """The adapter config, the evaluation-wide block with this task's merged over it
        (as the launcher merges them; nemo-evaluator's own config is merged already).
        The source is the most specific block's."""
        merged: dict = {}
        source = None
        for prefix in reversed(self.prefixes):
            full = (*prefix, "target", "api_endpoint", "adapter_config")
            present, value = _dig(self.data, full)
            if present and isinstance(value, dict):
                merged = _deep_merge(merged, value)
                source = self.source(full)
        return merged, source


def _deep_merge(base: dict, over: dict) -> dict:
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _deep_merge(out[key], value)
        else:
            out[key] = value
    return out


def _dig(data: Any, path: tuple) -> tuple[bool, Any]:
    for step in path:
        if isinstance(step, int):
            if not isinstance(data, list) or step >= len(data):
                return False, None
            data = data[step]
        elif isinstance(data, dict) and step in data:
            data = data[step]
        else:
            return False, None
    return True, data


def _child(node: Any, step: Any) -> Any:
    import yaml

    if isinstance(step, int):
        if isinstance(node, yaml.SequenceNode) and step < len(node.value):
            return node.value[step]
        return None
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode) and key.value == step:
                return value
    return None


def _task_index(run: Any) -> int | None:
    tail = run.task_dir.name.rsplit(".", 1)[-1]
    return int(tail) if tail.isdigit() else None


def rel_path(run: Any, path: Path) -> str:
    try:
        return str(path.relative_to(run.task_dir))
    except ValueError:
        return path.name


def load_config_view(run: Any, script: LaunchScript | None) -> ConfigView | None:
    """The run's config (or the one run.sub embeds), or None when none is readable."""
    index = _task_index(run)
    try:
        if run.config_path is not None:
            text = read_text(run.config_path)
            label, outer = rel_path(run, run.config_path), ""
        elif script is not None:
            embedded = embedded_files(read_text(script.path))
            if not embedded:
                return None
            label, text, line = embedded[0]
            outer = f"run.sub:{line}"
        else:
            return None
        root = compose_bounded(text, label)
        return ConfigView(parse_yaml(text, label), root, label, index, outer)
    except InputError:
        return None


def _adapter_value(adapter: dict, legacy: str, interceptor: str, key: str) -> Any:
    if legacy in adapter:
        return adapter[legacy]
    for entry in _interceptors(adapter):
        if entry.get("name") == interceptor:
            if entry.get("enabled", True) is False:
                return None
            config = entry.get("config")
            return config.get(key) if isinstance(config, dict) else None
    return None


def _defaults_source(view: ConfigView | None) -> str | None:
    """Where an adapter default comes from: a config that holds the task's target but no
    adapter_config ran with nemo-evaluator's defaults (no system prompt, no reasoning
    processing, no added parameters); None when no config was read at all."""
    if view is None:
        return None
    present, _, source = view.get("target")
    return f"{source or view.label} (no adapter_config: defaults)" if present else None


def chat_template_kwargs(view: ConfigView | None, command: ServerFacts) -> FieldValue:
    merged: dict[str, Any] = {}
    sources = []
    if command.chat_template_kwargs is not None:
        try:
            server = parse_yaml(str(command.chat_template_kwargs.value), "serve command")
        except InputError:
            server = None
        if isinstance(server, dict):
            merged.update(server)
            sources.append(f"run.sub:{command.chat_template_kwargs.line}")
    adapter, where = view.adapter() if view is not None else ({}, None)
    added = _adapter_value(adapter, "params_to_add", "payload_modifier", "params_to_add")
    if isinstance(added, dict) and isinstance(added.get("chat_template_kwargs"), dict):
        merged.update(added["chat_template_kwargs"])
        sources.append(where or "config")
    if not sources:
        if adapter:
            return FieldValue({}, where)
        default = _defaults_source(view)
        return FieldValue({}, default) if default else NOT_RECORDED
    return FieldValue(as_data(merged), "; ".join(sources))


def system_prompt(view: ConfigView | None) -> FieldValue:
    adapter, where = view.adapter() if view is not None else ({}, None)
    if not adapter:
        default = _defaults_source(view)
        return FieldValue("none", default) if default else NOT_RECORDED
    if "custom_system_prompt" in adapter or "use_system_prompt" in adapter:
        text = adapter.get("custom_system_prompt") if adapter.get("use_system_prompt") else None
        if adapter.get("use_system_prompt") and not (isinstance(text, str) and text):
            # switched on with no text of its own: still not the run that had it off
            return FieldValue("use_system_prompt: true (no custom_system_prompt)", where)
    else:
        text = _adapter_value(adapter, "-", "system_message", "system_message")
    if not isinstance(text, str) or not text:
        return FieldValue("none", where)
    text = redact_quoted(text)
    if len(text) > PROMPT_CHARS:
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        text = f"{text[:PROMPT_CHARS]}... ({len(text)} characters, sha256 {digest})"
    return FieldValue(text, where)


def _interceptors(adapter: dict) -> list[dict]:
    entries = adapter.get("interceptors")
    return [e for e in entries if isinstance(e, dict)] if isinstance(entries, list) else []


# The reasoning interceptor's settings that change the graded text, with its defaults
# (nemo-evaluator 0.2.8 `adapters/interceptors/reasoning_interceptor.py:48-69`); the
# legacy keys map onto them (`adapter_config.py:598-614`).
_REASONING_DEFAULTS = {
    "start_reasoning_token": "<think>",
    "end_reasoning_token": "</think>",
    "include_if_not_finished": True,
    "migrate_reasoning_content": False,
}
_LEGACY_REASONING = {
    "start_reasoning_token": "start_reasoning_token",
    "end_reasoning_token": "end_reasoning_token",
    "include_if_reasoning_not_finished": "include_if_not_finished",
}


def reasoning_traces(view: ConfigView | None) -> FieldValue:
    """Whether the adapter strips the thinking before the harness grades, and how: one
    shape for the legacy keys and the interceptor, defaults filled in, so two spellings
    of one setting compare equal."""
    adapter, where = view.adapter() if view is not None else ({}, None)
    if not adapter:
        default = _defaults_source(view)
        return FieldValue({"process_reasoning_traces": False}, default) if default else NOT_RECORDED
    entries = _interceptors(adapter)
    if entries:
        entry = next((e for e in entries if e.get("name") == "reasoning"), None)
        on = entry is not None and entry.get("enabled", True) is not False
        given = entry.get("config") if on and isinstance(entry.get("config"), dict) else {}
    else:
        on = bool(adapter.get("process_reasoning_traces") or adapter.get("use_reasoning"))
        given = {
            new: adapter[old]
            for old, new in _LEGACY_REASONING.items()
            if adapter.get(old) is not None
        }
    if not on:
        return FieldValue({"process_reasoning_traces": False}, where)
    value = {"process_reasoning_traces": True}
    value.update({k: given.get(k, default) for k, default in _REASONING_DEFAULTS.items()})
    return FieldValue(as_data(value), where)
