"""What a run's own config says about how it ran: MRCR variant, Gym pin, canary limit,
repeats and sampling.

Only parsed YAML counts. The launcher copies the user's file into run.sub as `#` lines,
comments included, and a template comment may well mention `++limit=10` or another
variant; those lines must not turn a full run into a canary. So the config is read from
the artifacts (run_config.yml, config.yml or launcher_unresolved_config.yaml, parsed),
or, when the job never wrote one, from the YAML that run.sub embeds base64-encoded for
the job.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

_VARIANT = re.compile(r"benchmarks/mrcr/([\w.-]+\.yaml)")
_LIMIT = re.compile(r"\+\+limit=(\d+)")
_REPEATS = re.compile(r"\+\+num_repeats=(\d+)")
# The gym command overrides what reaches the model: ++responses_create_params.temperature=1.0
_GYM_SAMPLING = re.compile(
    r"responses_create_params\.(temperature|top_p)=([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)"
)
_EMBEDDED_FILE = re.compile(r'echo "([A-Za-z0-9+/=]{16,})" \| base64 -d > (\S+\.ya?ml)')
SAMPLING_KEYS = ("temperature", "top_p")


@dataclass(frozen=True)
class RunSettings:
    config_path: Path | None = None
    variants_named: tuple[str, ...] = ()  # every benchmarks/mrcr/<file>, in config order
    gym_commit: str | None = None  # install_on_the_fly.commit
    limit: int | None = None  # ++limit=N or limit_samples (a canary)
    num_repeats: int = 1  # ++num_repeats=N
    sampling: Mapping[str, float] = field(default_factory=dict)
    served_model: str | None = None  # deployment.served_model_name or target model_id
    checkpoint: str | None = None  # deployment.checkpoint_path or hf_model_handle
    image: str | None = None  # deployment.image

    @property
    def variant(self) -> str | None:
        """The variant the rollouts used: the collect pass is named after the prepare pass."""
        return self.variants_named[-1] if self.variants_named else None


def find_key(node: Any, key: str) -> Iterator[Any]:
    """Every value stored under `key` anywhere in a parsed YAML tree."""
    if isinstance(node, dict):
        for k, v in node.items():
            if k == key:
                yield v
            yield from find_key(v, key)
    elif isinstance(node, list):
        for item in node:
            yield from find_key(item, key)


def strings_in(node: Any) -> Iterator[str]:
    """Every string value (not key) in a parsed YAML tree."""
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for value in node.values():
            yield from strings_in(value)
    elif isinstance(node, list):
        for item in node:
            yield from strings_in(item)


def _dig(data: Any, *path: str) -> Any:
    for step in path:
        if not isinstance(data, dict):
            return None
        data = data.get(step)
    return data


def _as_float(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None


def sampling_from_config(sections: Any) -> dict[str, float]:
    """temperature/top_p as the model saw them, from the task's own sections
    (`own_sections`); per key the first source found wins: the Gym command's
    responses_create_params override, then the task's params (a launcher config's task
    entry comes after the evaluation-wide block, so it is read first)."""
    found: dict[str, float] = {}
    for text in strings_in(sections):
        for key, value in _GYM_SAMPLING.findall(text):
            found.setdefault(key, float(value))
    blocks = sections if isinstance(sections, list) else [sections]
    for block in reversed(blocks):
        params = _dig(block, "config", "params") if isinstance(block, dict) else None
        if not isinstance(params, dict) and isinstance(block, dict):
            params = block.get("params")
        if isinstance(params, dict):
            for key in SAMPLING_KEYS:
                value = _as_float(params.get(key))
                if value is not None:
                    found.setdefault(key, value)
    return found


def _first_string(configs: Sequence[Any], *paths: tuple[str, ...]) -> str | None:
    """The first set string at any of `paths` (a `???` blank or an interpolation is unset)."""
    for path in paths:
        for cfg in configs:
            value = _dig(cfg, *path)
            unset = not isinstance(value, str) or value.strip() in ("", "???") or "${" in value
            if not unset:
                return value.strip()
    return None


def own_sections(config: Any, task_index: int | None = None) -> list[Any]:
    """The parts of a parsed config that describe this task, never another's: the `config`
    block of nemo-evaluator's own run config (run_config.yml, run.sub's config_ef.yaml; its
    `metadata` holds the whole invocation, other tasks included), or, in a launcher config,
    the evaluation-wide block and this task's entry (its index from `<task>.<idx>`; the
    only entry when there is one)."""
    if not isinstance(config, dict):
        return []
    if "config" in config or "target" in config:
        return [config.get("config"), config.get("target")]
    evaluation = config.get("evaluation") if isinstance(config.get("evaluation"), dict) else {}
    sections = [evaluation.get("nemo_evaluator_config")]
    tasks = evaluation.get("tasks") if isinstance(evaluation.get("tasks"), list) else []
    if task_index is None and len(tasks) == 1:
        task_index = 0
    if (
        task_index is not None
        and 0 <= task_index < len(tasks)
        and isinstance(tasks[task_index], dict)
    ):
        sections.append(tasks[task_index].get("nemo_evaluator_config"))
    return [s for s in sections if s is not None]


def settings_from(
    configs: Sequence[Any], config_path: Path | None = None, task_index: int | None = None
) -> RunSettings:
    """Settings from parsed configs (one from the artifacts, or those run.sub embeds), each
    read from this task's own sections only (`own_sections`)."""
    own = [section for cfg in configs for section in own_sections(cfg, task_index)]
    joined = "\n".join(strings_in(own))
    variants = tuple(dict.fromkeys(_VARIANT.findall(joined)))
    limits = [int(n) for n in _LIMIT.findall(joined)]
    limits += [v for v in find_key(own, "limit_samples") if type(v) is int and v > 0]
    repeats = _REPEATS.findall(joined)
    commit = None
    for block in find_key(own, "install_on_the_fly"):
        if isinstance(block, dict) and isinstance(block.get("commit"), str):
            commit = block["commit"].strip()
            break
    return RunSettings(
        served_model=_first_string(
            configs, ("deployment", "served_model_name"), ("target", "api_endpoint", "model_id")
        ),
        checkpoint=_first_string(
            configs, ("deployment", "checkpoint_path"), ("deployment", "hf_model_handle")
        ),
        image=_first_string(configs, ("deployment", "image")),
        config_path=config_path,
        variants_named=variants,
        gym_commit=commit,
        limit=min(limits) if limits else None,
        num_repeats=int(repeats[-1]) if repeats else 1,
        sampling=sampling_from_config(own),
    )


def task_index_of(task_dir: Path) -> int | None:
    """The launcher's index of a task from its directory name (`<task>.<idx>`)."""
    tail = task_dir.name.rsplit(".", 1)[-1]
    return int(tail) if tail.isdigit() else None


def embedded_files(run_sub_text: str) -> list[tuple[str, str, int]]:
    """(file name, decoded text, run.sub line) of each YAML file run.sub writes for the job
    (e.g. config_ef.yaml); a blob that does not decode is skipped."""
    import base64
    import binascii

    found = []
    for match in _EMBEDDED_FILE.finditer(run_sub_text):
        blob, name = match.groups()
        try:
            text = base64.b64decode(blob).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            continue
        found.append((name, text, run_sub_text.count("\n", 0, match.start()) + 1))
    return found


def embedded_configs(run_sub_text: str) -> list[Any]:
    """The YAML files run.sub writes for the job (e.g. config_ef.yaml), parsed."""
    from evalkit.errors import InputError
    from evalkit.inputs import parse_yaml

    found = []
    for name, text, _line in embedded_files(run_sub_text):
        try:
            found.append(parse_yaml(text, name))
        except InputError:
            # Not ours to judge (the launcher wrote it, the job read it); a blob past the
            # YAML bounds is skipped the same way, so it costs no more than its parse.
            continue
    return found


def read_run_settings(task: Any) -> RunSettings:
    """Settings of one TaskRun (evalkit.runs.layout); a malformed config is an InputError."""
    from evalkit.inputs import load_yaml, read_text

    index = task_index_of(task.task_dir)
    if task.config_path is not None:
        return settings_from([load_yaml(task.config_path)], task.config_path, index)
    run_sub = task.task_dir / "run.sub"
    if run_sub.is_file():
        return settings_from(embedded_configs(read_text(run_sub)), run_sub, index)
    return RunSettings()
