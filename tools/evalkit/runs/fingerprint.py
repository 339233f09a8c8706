"""The run fingerprint: how a task run was served and sampled, read from what it left.

One record per task run, each field with its value (None = the run did not record it)
and the file and line it was read from, so a comparison can say which setting differs
and where to look. Sources, most direct first:
- the vLLM server log's start-up lines (evalkit.runs.serverbanner): what the server ran;
- run.sub (evalkit.runs.launchscript): the container images and the serve command;
- the run's config (nemo-evaluator's run_config.yml holds the merged, effective task
  config; else the launcher's copies or the config run.sub embeds): generation
  settings, the adapter's chat-template arguments, system prompt and reasoning handling;
- the client log's Gym version banner and the rollouts' sampling (already read by
  evalkit.runs.run, reused here);
- the dataset identity, which only the benchmark can compute: handed in by the caller.
Values are data: strings from logs and configs pass the secrets filter and are never
interpreted; rendering escapes them.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from evalkit.errors import InputError
from evalkit.inputs import iter_log_lines, parse_yaml
from evalkit.runs.clientlog import GenKwargs, read_gen_kwargs
from evalkit.runs.configview import (
    NOT_RECORDED,
    ConfigView,
    FieldValue,
    as_data,
    chat_template_kwargs,
    load_config_view,
    reasoning_traces,
    rel_path,
    system_prompt,
)
from evalkit.runs.launchscript import LaunchScript, read_launch_script
from evalkit.runs.records import Conflict, conflicts, results_param, results_params
from evalkit.runs.run import Run, as_run
from evalkit.runs.serverbanner import Found, ServerFacts, read_banner, read_serve_command
from evalkit.runs.settings import strings_in

NO_LIMIT = "none (all items)"  # limit_samples recorded as null
UNSET = "null (harness default)"  # max_new_tokens recorded as null
NO_CAP = "null (no cap sent)"  # Gym's max_output_tokens=null: up to max-model-len

# field -> where it is read from, one line each (the docs table is built from this).
READS: dict[str, str] = {
    "checkpoint": "run.sub's `<path>:/checkpoint` mount, else `deployment.checkpoint_path`"
    " / `hf_model_handle` in the config",
    "served_model": "`--served-model-name` of the serve command in run.sub, else"
    " `deployment.served_model_name` or the target's `model_id` in the config, else the"
    " rollouts' model",
    "images": "every `--container-image` in run.sub by role (deployment, proxy, auxiliary"
    " services; the evaluation's is harness_version); a digest only where the reference"
    " pins one (`@sha256:`): pyxis logs `imported docker image: <reference>`, never the"
    " digest it pulled",
    "vllm_version": "the server log's `vLLM server version`, logo `version` or `V1 LLM"
    " engine (v...)` line",
    "reasoning_parser": "the server log's `non-default args` or engine config, else"
    " `--reasoning-parser` (and `--reasoning-parser-plugin`) of the serve command",
    "reasoning_traces": "the adapter config: `process_reasoning_traces`/`use_reasoning` and"
    " their tokens (legacy keys), or the `reasoning` interceptor",
    "max_model_len": "the server log's `Using max model len`, engine config or arguments,"
    " else `--max-model-len` of the serve command",
    "temperature": "the harness's own `Using gen_kwargs` line in the client log"
    " (lm-evaluation-harness), else the rollouts' responses_create_params (NeMo Gym), else"
    " the task's `config.params.temperature`",
    "top_p": "as temperature: the client log's `Using gen_kwargs`, the rollouts, then"
    " `config.params.top_p`",
    "max_new_tokens": "the client log's `Using gen_kwargs` (`max_gen_toks`), else NeMo Gym's"
    " `responses_create_params.max_output_tokens` override, else"
    " `config.params.max_new_tokens`",
    "chat_template_kwargs": "`params_to_add.chat_template_kwargs` of the adapter config (or"
    " its `payload_modifier` interceptor), over the server's"
    " `--default-chat-template-kwargs`",
    "system_prompt": "the adapter config's `custom_system_prompt` (with `use_system_prompt`)"
    " or its `system_message` interceptor",
    "harness_version": "the evaluation container's image in run.sub (`client-%A.log` is its"
    " output): its tag or digest is the harness release",
    "launcher_version": "`metadata.versioning.nemo_evaluator_launcher` in run_config.yml",
    "gym_version": "the client log's NeMo Gym version banner, else"
    " `install_on_the_fly.commit` (NeMo Gym tasks only)",
    "dataset": "item count and digest of the item ids and prompts: the benchmark's adapter"
    " names them, `dataset_identity` folds them, the caller hands the result in",
    "repeats": "`++num_repeats=N` (NeMo Gym) or `config.params.extra.n_samples`",
    "limit_samples": "`++limit=N` (NeMo Gym) or the task's `config.params.limit_samples`",
}
FIELDS = tuple(READS)


@dataclass(frozen=True)
class DatasetIdentity:
    item_count: int
    digest: str


def dataset_identity(items: Iterable[tuple[str, str]]) -> DatasetIdentity:
    """The identity of a task's items from (item id, prompt digest) pairs, in any order:
    their count and a sha256 over the sorted pairs (the benchmark's adapter names the
    ids and digests; this layer only folds them, so every adapter folds alike)."""
    pairs = sorted(set(items))
    digest = hashlib.sha256()
    for item_id, prompt in pairs:
        digest.update(
            f"{len(item_id)}:{item_id}{len(prompt)}:{prompt}".encode("utf-8", "surrogatepass")
        )
    return DatasetIdentity(len(pairs), digest.hexdigest())


@dataclass(frozen=True)
class Fingerprint:
    fields: dict[str, FieldValue]
    conflicts: tuple[Conflict, ...] = ()

    def __getitem__(self, name: str) -> FieldValue:
        return self.fields.get(name, NOT_RECORDED)

    def value(self, name: str) -> Any:
        return self[name].value

    def to_json(self) -> dict[str, Any]:
        return {name: self[name].to_json() for name in FIELDS}


# -- the fields --------------------------------------------------------------------------
def _number(value: Any) -> float | int | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return value


MAX_SERVER_LOGS = 64  # instances x resumed jobs; each costs its start-up lines only


def _server(run: Run, script: LaunchScript | None) -> tuple[ServerFacts, str, ServerFacts, str]:
    """(facts of the first server log saying anything, its name; serve command facts, where).
    Versions are gathered from every server log: a job resumed on another image shows as
    `a | b`, as the Gym version does."""
    logged, log_label = ServerFacts(), ""
    versions: list[str] = []
    logs = sorted(run.logs_dir.glob("server-*.log")) if run.logs_dir is not None else []
    for log in logs[:MAX_SERVER_LOGS]:
        try:
            facts = read_banner(iter_log_lines(log))
        except InputError:
            continue
        if facts.version is not None and facts.version.value not in versions:
            versions.append(str(facts.version.value))
        if not log_label and (facts.version or facts.max_model_len or facts.reasoning_parser):
            logged, log_label = facts, rel_path(run, log)
    if len(versions) > 1 and logged.version is not None:
        logged.version = Found(" | ".join(versions), logged.version.line)
    command, command_label = ServerFacts(), ""
    if script is not None and script.serve_command is not None:
        text, line = script.serve_command
        command, command_label = read_serve_command(text, line), "run.sub"
    return logged, log_label, command, command_label


def _from(found: Found | None, label: str) -> FieldValue | None:
    if found is None:
        return None
    where = f"{label}:{found.line}" if found.line else label
    return FieldValue(as_data(found.value), where)


def _pick(*candidates: FieldValue | None) -> FieldValue:
    return next((c for c in candidates if c is not None and c.value is not None), NOT_RECORDED)


def _param(view: ConfigView | None, *path: str, null: Any = None) -> FieldValue | None:
    if view is None:
        return None
    present, value, source = view.get("config", "params", *path)
    if not present:
        return None
    return FieldValue(null if value is None else as_data(value), source)


_GYM_OVERRIDE = r"responses_create_params\.{key}=([^\s'\"{{}}]{{1,64}})"


def _gym_override(view: ConfigView | None, key: str) -> FieldValue | None:
    """A literal `++responses_create_params.<key>=<v>` in the Gym command's parameters."""
    if view is None:
        return None
    pattern = re.compile(_GYM_OVERRIDE.format(key=re.escape(key)))
    present, extra, source = view.get("config", "params", "extra", "nemo_gym")
    for text in strings_in(extra if present else None):
        match = pattern.search(text)
        if match:
            raw = match.group(1)
            return FieldValue(NO_CAP if raw == "null" else _yaml_scalar(raw), source)
    return None


def _yaml_scalar(raw: str) -> Any:
    try:
        value = parse_yaml(raw, "override")
    except InputError:
        return raw
    return value if isinstance(value, (int, float, str)) else raw


def _harness_said(harness: GenKwargs | None, key: str) -> FieldValue | None:
    if harness is None or key not in harness.values:
        return None
    return FieldValue(harness.values[key], f"logs/{harness.log}:{harness.line}")


def _sampling_records(
    run: Run, view: ConfigView | None, key: str, harness: GenKwargs | None, results: Any
) -> list[FieldValue | None]:
    """Every record of KEY the task itself left, most direct first: what the harness said
    it sent, what the rollouts carry, the Gym command's override, the task's config, the
    harness's copy of that config in results.yml."""
    records: list[FieldValue | None] = [_harness_said(harness, key)]
    if run.is_gym:
        scanned = run.scanned
        if scanned is not None and key in scanned.sampling:
            where = "artifacts/evaluator_rollouts.jsonl (responses_create_params)"
            records.append(FieldValue(scanned.sampling[key], where))
        override = _gym_override(view, key)
        if override is not None and _number(override.value) is not None:
            return [*records, override]  # what the Gym command sends, over config.params
    return [*records, _param(view, key), results_param(results, key)]


def _images(script: LaunchScript | None) -> FieldValue:
    """Every image but the evaluation's (that one is harness_version: one change, one
    finding)."""
    images = [i for i in script.images if i.role != "evaluation"] if script else []
    if not images:
        return NOT_RECORDED
    value: dict[str, str] = {}
    for image in images:
        label, n = image.role, 1
        while label in value:  # a second image for one role (another instance's)
            n += 1
            label = f"{image.role} {n}"
        value[label] = as_data(image.ref)
    lines = ", ".join(str(i.line) for i in images)
    return FieldValue(value, f"run.sub:{lines}")


def _reasoning_parser(
    logged: ServerFacts, log: str, command: ServerFacts, command_read: bool
) -> FieldValue:
    parser = _pick(_from(logged.reasoning_parser, log), _from(command.reasoning_parser, "run.sub"))
    if parser.value is not None and command.reasoning_parser_plugin is not None:
        plugin = as_data(command.reasoning_parser_plugin.value)
        return FieldValue(f"{parser.value} (plugin {plugin})", parser.source)
    if parser.value is None and command_read:
        return FieldValue("none", "run.sub")  # the command that ran names no parser
    return parser


def _max_new_tokens(
    run: Run, view: ConfigView | None, harness: GenKwargs | None, results: Any
) -> list[FieldValue | None]:
    records: list[FieldValue | None] = [_harness_said(harness, "max_new_tokens")]
    override = _gym_override(view, "max_output_tokens") if run.is_gym else None
    if override is not None:
        return [*records, override]  # Gym sends its own cap, not config.params'
    return [
        *records,
        _param(view, "max_new_tokens", null=UNSET),
        results_param(results, "max_new_tokens", null=UNSET),
    ]


def _gym_count(view: ConfigView | None, flag: str) -> FieldValue | None:
    """`++<flag>=N` in the task's own Gym command parameters."""
    if view is None:
        return None
    present, extra, source = view.get("config", "params", "extra", "nemo_gym")
    for text in strings_in(extra if present else None):
        match = re.search(rf"\+\+{flag}=(\d{{1,9}})", text)
        if match:
            return FieldValue(int(match.group(1)), source)
    return None


def _repeats(run: Run, view: ConfigView | None, results: Any) -> list[FieldValue | None]:
    if run.is_gym:
        return [_gym_count(view, "num_repeats")]
    return [_param(view, "extra", "n_samples"), results_param(results, "extra", "n_samples")]


def _limit(run: Run, view: ConfigView | None, results: Any) -> list[FieldValue | None]:
    if run.is_gym and (limit := _gym_count(view, "limit")) is not None:
        return [limit]
    return [
        _param(view, "limit_samples", null=NO_LIMIT),
        results_param(results, "limit_samples", null=NO_LIMIT),
    ]


def _harness(script: LaunchScript | None) -> FieldValue:
    """The evaluation container's image: the harness's release is its tag (or digest)."""
    image = next((i for i in script.images if i.role == "evaluation"), None) if script else None
    if image is None:
        return NOT_RECORDED
    return FieldValue(as_data(image.ref), f"run.sub:{image.line}")


def _launcher(view: ConfigView | None) -> FieldValue:
    if view is None:
        return NOT_RECORDED
    present, value, source = view.get("metadata", "versioning", "nemo_evaluator_launcher")
    if not present or value is None:
        return NOT_RECORDED
    return FieldValue(as_data(str(value)), source)


def _gym(run: Run, view: ConfigView | None) -> FieldValue:
    if run.gym_versions:
        name, line, _ = run.gym_versions[0]
        return FieldValue(run.provenance.gym_version, f"logs/{name}:{line}")
    if run.is_gym and view is not None:
        present, commit, source = view.get(
            "config", "params", "extra", "nemo_gym", "install_on_the_fly", "commit"
        )
        if present and isinstance(commit, str) and commit.strip():
            return FieldValue(as_data(commit.strip()), f"{source} (the pin, not the banner)")
    return NOT_RECORDED


def _checkpoint(run: Run, view: ConfigView | None, script: LaunchScript | None) -> FieldValue:
    if script is not None and script.checkpoint is not None:
        path, line = script.checkpoint
        return FieldValue(as_data(path), f"run.sub:{line}")
    value = run.provenance.checkpoint
    return FieldValue(as_data(value), _config_source(view, value)) if value else NOT_RECORDED


def _served(run: Run, view: ConfigView | None, command: ServerFacts) -> FieldValue:
    """The name the server answered to: its command's --served-model-name, else the
    config's (evalkit.runs.run.Provenance)."""
    named = _from(command.served_model, "run.sub")
    if named is not None:
        return named
    value = run.provenance.served_model
    return FieldValue(as_data(value), _config_source(view, value)) if value else NOT_RECORDED


def _config_source(view: ConfigView | None, value: str) -> str:
    """Where a provenance value came from: its line in the config, or the run at large."""
    found = view.line_of(value) if view is not None else None
    return found or "the run's configs or rollouts"


def read_fingerprint(run: Any, dataset: DatasetIdentity | None = None) -> Fingerprint:
    """The fingerprint of one task run (a Run, or a TaskRun upgraded with as_run). Nothing
    here raises on a missing or unreadable source: that field is simply not recorded.

    Nothing here streams the rollouts: a NeMo Gym run's sampling comes from them only
    when the run's pass was made already (`run.scan(plan)`, as every command does before
    it compares), else from the config; call this after the pass for the values sent."""
    run = as_run(run)
    script = read_launch_script(run.task_dir / "run.sub")
    view = load_config_view(run, script)
    logged, log, command, command_label = _server(run, script)
    harness = read_gen_kwargs(run.logs_dir)
    results = results_params(run)
    records = {
        "temperature": _sampling_records(run, view, "temperature", harness, results),
        "top_p": _sampling_records(run, view, "top_p", harness, results),
        "max_new_tokens": _max_new_tokens(run, view, harness, results),
        "repeats": _repeats(run, view, results),
        "limit_samples": _limit(run, view, results),
    }
    fields = {
        "checkpoint": _checkpoint(run, view, script),
        "served_model": _served(run, view, command),
        "images": _images(script),
        "vllm_version": _pick(_from(logged.version, log)),
        "reasoning_parser": _reasoning_parser(logged, log, command, bool(command_label)),
        "reasoning_traces": reasoning_traces(view),
        "max_model_len": _pick(
            _from(logged.max_model_len, log), _from(command.max_model_len, command_label)
        ),
        "temperature": _pick(*records["temperature"]),
        "top_p": _pick(*records["top_p"]),
        "max_new_tokens": _pick(*records["max_new_tokens"]),
        "chat_template_kwargs": chat_template_kwargs(view, command),
        "system_prompt": system_prompt(view),
        "harness_version": _harness(script),
        "launcher_version": _launcher(view),
        "gym_version": _gym(run, view),
        "dataset": FieldValue(
            {"item_count": dataset.item_count, "digest": dataset.digest}, "the benchmark's items"
        )
        if dataset is not None
        else NOT_RECORDED,
        "repeats": _pick(*records["repeats"]),
        "limit_samples": _pick(*records["limit_samples"]),
    }
    return Fingerprint(fields, conflicts(records))


__all__ = [
    "FIELDS",
    "READS",
    "Conflict",
    "DatasetIdentity",
    "dataset_identity",
    "FieldValue",
    "Fingerprint",
    "read_fingerprint",
]
