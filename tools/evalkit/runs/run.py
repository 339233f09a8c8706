"""A task run read once: settings parsed once, its provenance, and one streaming pass over
the rollouts whose results every analysis reads.

`Run` is a `TaskRun` (runs/layout.py) with cached reads, so any function taking a task run
takes a `Run` too, and `as_run` upgrades a plain one. score, validate, compare, regrade and
report each load a side once and read `run.settings`, `run.provenance` and
`run.scan(plan)` from it (the plan is the benchmark's, handed down: this package knows no
benchmark): the rollouts file is streamed at most once per command, and every consumer
(aggregation, item pairing, sampling, reuse fingerprints, tallies) is fed from that pass.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from evalkit.errors import InputError
from evalkit.inputs import iter_log_lines, iter_records, open_binary
from evalkit.runs.invocation import invocation_id as read_invocation_id
from evalkit.runs.layout import TaskRun, resolve_task_runs
from evalkit.runs.rollouts import Rollout, ScanStats, iter_rollouts
from evalkit.runs.settings import SAMPLING_KEYS, RunSettings, read_run_settings
from evalkit.secrets.quote import quote

# The template bootstrap prints one of these, then the Gym version on the next line: a
# 40-hex commit (git-backed image) or `baked-in <version>` (GDPVal's non-git fallback).
GYM_VERSION_BANNERS = ("=== NeMo Gym version ===", "=== NeMo Gym commit ===")
_SHA40 = re.compile(r"\b[0-9a-fA-F]{40}\b")
_CONTAINER_IMAGE = re.compile(r"--container-image[= ]+\"?([^\s\"]+)")
_MOUNT_TARGET = re.compile(r":/checkpoint\b")
_MOUNT_STOP = frozenset(" \t\r\n\f\v,\"':")  # what ends a mount's source path

ItemKey = tuple  # the benchmark's pairing key (default: (prompt digest,))


@dataclass(frozen=True)
class Provenance:
    """Where a run came from; None = not recorded in the run directory."""

    invocation_id: str | None = None
    served_model: str | None = None
    checkpoint: str | None = None
    image: str | None = None
    gym_version: str | None = None  # a 40-hex commit, or "baked-in <version>"

    def as_dict(self) -> dict[str, str | None]:
        return {
            "invocation_id": self.invocation_id,
            "served_model": self.served_model,
            "checkpoint": self.checkpoint,
            "image": self.image,
            "gym_version": self.gym_version,
        }


@dataclass(frozen=True)
class Fingerprint:
    """One response, small: enough to tell a reused response from a fresh one."""

    response_id: str | None
    text_digest: bytes | None  # None: trivially identical (exact answer, or no text)
    offset: int | None = None  # where the line starts, at or before (MRCR, non-trivial)


@dataclass
class RolloutPass:
    """Everything the analyses need from the rollouts, gathered in one pass."""

    stats: ScanStats = field(default_factory=ScanStats)
    records: int = 0
    incomplete: int = 0  # incomplete_details set (finish_reason "length")
    agents: Counter = field(default_factory=Counter)
    models: Counter = field(default_factory=Counter)  # response.model
    sampling_seen: dict[str, set[float]] = field(default_factory=dict)
    rewards: list[float] = field(default_factory=list)  # unique slots, stored rewards
    items: dict[ItemKey, float] = field(default_factory=dict)  # mean reward (0-1) per item
    duplicate_keys: int = 0  # distinct task indices sharing one item's content (merged)
    fingerprints: dict[tuple[ItemKey, int], Fingerprint] = field(default_factory=dict)
    aggregate: Any = None  # the plan's fold (MRCR: Gym's aggregate, recomputed)
    output_tokens: int = 0  # summed over unique slots whose response reports usage
    answered: int = 0  # unique slots whose response reports usage (a successful call)

    @property
    def first_agent(self) -> str | None:
        return next(iter(self.agents), None)

    @property
    def sampling(self) -> dict[str, float]:
        """temperature/top_p as sent, where every rollout sent the same value."""
        return {k: next(iter(v)) for k, v in self.sampling_seen.items() if len(v) == 1}

    @property
    def mixed_sampling(self) -> dict[str, list[float]]:
        return {k: sorted(v) for k, v in self.sampling_seen.items() if len(v) > 1}


class Run(TaskRun):
    """A TaskRun whose settings, provenance and rollout pass are read once, on demand."""

    @classmethod
    def of(cls, task: TaskRun) -> Run:
        return cls(task.name, task.task_dir, task.artifacts_dir, task.logs_dir)

    @cached_property
    def settings(self) -> RunSettings:
        """The run's settings; raises InputError when the config does not parse."""
        return read_run_settings(self)

    @cached_property
    def settings_or_empty(self) -> RunSettings:
        """The settings, or none when the config does not parse (costs only its checks)."""
        try:
            return self.settings
        except InputError:
            return RunSettings()

    def scan(self, plan: PassPlan | None = None) -> RolloutPass:
        """The one pass over evaluator_rollouts.jsonl, read the way PLAN says (its
        benchmark's item key and fold; InputError on a malformed line). Cached: asking
        again with the same plan costs nothing."""
        plan = plan or GENERIC
        cached = self.__dict__.get("_scan")
        if cached is None or cached[0] is not plan:
            cached = (plan, scan_rollouts(self.rollouts_path, plan))
            self.__dict__["_scan"] = cached
        return cached[1]

    @property
    def scanned(self) -> RolloutPass | None:
        """The pass, when one was made already (nothing is read here)."""
        cached = self.__dict__.get("_scan")
        return cached[1] if cached else None

    def copies_prompt(self, fingerprint: Fingerprint) -> bool:
        """Whether a fingerprinted response is a verbatim copy from its prompt."""
        if fingerprint.offset is None:
            return False
        return response_copies_prompt(self.rollouts_path, fingerprint.offset)

    @cached_property
    def gym_versions(self) -> list[tuple[str, int, str]]:
        """(client log name, line, version) for each version banner in the client logs."""
        return read_gym_versions(self.logs_dir)

    @cached_property
    def provenance(self) -> Provenance:
        """From every config the run kept (nemo-evaluator's run_config.yml has no
        deployment; the launcher's copy has), then run.sub's deployment srun line (nel
        0.2.6 slurm executor: `--container-image <deployment.image>` and
        `--container-mounts <checkpoint_path>:/checkpoint:ro` on one line), then the
        model name the responses carry."""
        found = [self.settings_or_empty, *_other_settings(self)]
        served = next((s.served_model for s in found if s.served_model), None)
        image = next((s.image for s in found if s.image), None)
        checkpoint = next((s.checkpoint for s in found if s.checkpoint), None)
        run_sub = _read_run_sub(self.task_dir / "run.sub")
        for line in run_sub.splitlines():
            source = checkpoint_mount(line)
            if source is None:
                continue
            checkpoint = checkpoint or source
            match = _CONTAINER_IMAGE.search(line)
            image = image or (match.group(1) if match else None)
            break
        if served is None and self.scanned is not None:
            models = self.scanned.models
            served = models.most_common(1)[0][0] if models else None
        return Provenance(
            invocation_id=read_invocation_id(self.task_dir),
            served_model=served,
            checkpoint=checkpoint,
            image=image,
            gym_version=gym_version(self.gym_versions),
        )


def checkpoint_mount(line: str) -> str | None:
    """The source of the first `<path>:/checkpoint` mount on a line, in linear time: the
    target is found first, then the path walked back to its separator (a regex that
    starts the path anywhere is quadratic on one long token: 1 MB took minutes)."""
    for match in _MOUNT_TARGET.finditer(line):
        end = start = match.start()
        while start > 0 and line[start - 1] not in _MOUNT_STOP:
            start -= 1
        if start < end:
            return line[start:end]
    return None


def as_run(task: TaskRun) -> Run:
    return task if isinstance(task, Run) else Run.of(task)


def load_runs(path: str | Path, several_runs: bool = False) -> list[Run]:
    """Every task run under PATH (invocation, task or artifacts dir), as Runs; with
    SEVERAL_RUNS a task may be there more than once (runs/layout.py)."""
    return [Run.of(t) for t in resolve_task_runs(path, several_runs)]


# ---- the pass --------------------------------------------------------------------------


def _digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()


class PassPlan:
    """How a benchmark reads the rollouts in the run's single pass. This default keys
    items by their prompt, calls only empty responses trivially identical, and folds
    nothing; a benchmark (benchmarks/) overrides what differs. Kept here so the run
    model stays free of any benchmark: the benchmark hands its plan down."""

    keeps_offsets = False  # store line offsets for Run.copies_prompt
    # False where the agent names responses by task, not per request (Tau3's tau2 agent):
    # then an id shared by two runs says nothing about reuse and is not kept.
    unique_response_ids = True

    def item_key(self, rollout: Rollout) -> ItemKey:
        if rollout.request_input is not None:
            return (_digest(bytes(rollout.request_input)).hex(),)
        return (f"task {rollout.task_index}",)  # no prompt recorded: the index is all we have

    def trivial(self, rollout: Rollout, body: str) -> bool:
        """Whether a (stripped, non-empty) response needs no digest to compare."""
        del rollout, body
        return False

    def fold(self, rollouts: Iterator[Rollout]) -> tuple[Any, list[tuple[ItemKey, float]]] | None:
        """Consume the stream; return (aggregate, (item key, reward) per unique slot), or
        None to have the pass average the stored rewards per item itself."""
        for _ in rollouts:
            pass
        return None


GENERIC = PassPlan()


def _verbatim_in_prompt(text: str, prompt: Any) -> bool:
    """Whether TEXT occurs in the raw JSON of the request input (either JSON spelling of
    non-ASCII characters). Searched in the bytes: the prompt is never decoded."""
    if prompt is None:
        return False
    raw = bytes(prompt)
    spellings = (True,) if text.isascii() else (True, False)  # ASCII: both spell it alike
    for ascii_only in spellings:
        needle = json.dumps(text, ensure_ascii=ascii_only)[1:-1].encode("utf-8", "surrogatepass")
        if needle in raw:
            return True
    return False


def _fingerprint(rollout: Rollout, plan: PassPlan, offset: int) -> Fingerprint:
    """Trivially identical responses get no digest: empty ones, and those the plan calls
    trivial (MRCR: an exact copy of the answer). (A verbatim copy of another turn of the
    prompt is trivial too, but searching every prompt costs more than the pass:
    `Run.copies_prompt` checks only the responses that turn out identical on both sides.)"""
    text = rollout.response_text
    body = (text or "").strip()
    response_id = rollout.response_id if plan.unique_response_ids else None
    if not body or plan.trivial(rollout, body):
        return Fingerprint(response_id, None)
    digest = _digest(text.encode("utf-8", "surrogatepass"))
    return Fingerprint(response_id, digest, offset if plan.keeps_offsets else None)


def response_copies_prompt(path: Path, offset: int) -> bool:
    """Whether the response of the rollout whose line starts at (or after blank lines
    following) OFFSET is, prefix removed, a verbatim copy of text in its own prompt."""
    from evalkit.runs.rollouts import decode_line, to_rollout

    with open_binary(path, "a rollouts .jsonl file") as handle:
        handle.seek(offset)
        for raw in iter_records(handle, path):  # a line the pass has read already
            if raw.strip():
                break
        else:
            return False
    rollout = to_rollout(decode_line(raw), 0)
    body = (rollout.response_text or "").strip().removeprefix(rollout.random_string_to_prepend)
    return bool(body) and _verbatim_in_prompt(body, rollout.request_input)


def scan_rollouts(path: Path, plan: PassPlan = GENERIC) -> RolloutPass:
    """Stream the rollouts once, feeding every consumer and the plan's fold."""
    result = RolloutPass()
    slot_rewards: dict[ItemKey, list[float]] = {}
    seen: set[tuple[int, int]] = set()

    def observe():
        line_start = 0  # bytes read before this line (blank lines may sit in between)
        for r in iter_rollouts(path, result.stats):
            result.records += 1
            if r.incomplete_reason is not None:
                result.incomplete += 1
            if r.agent:
                result.agents[r.agent] += 1
            if r.model:
                result.models[r.model] += 1
            for key, value in (("temperature", r.temperature), ("top_p", r.top_p)):
                if value is not None and math.isfinite(value):
                    result.sampling_seen.setdefault(key, set()).add(float(value))
            slot = (r.task_index, r.rollout_index)
            if slot not in seen:  # a resumed run's appended copies count once
                seen.add(slot)
                item = plan.item_key(r)
                fingerprint = _fingerprint(r, plan, line_start)
                result.fingerprints.setdefault((item, r.rollout_index), fingerprint)
                if r.reward is not None:
                    result.rewards.append(float(r.reward))
                if not r.usage_missing and r.output_tokens is not None:
                    result.answered += 1
                    result.output_tokens += r.output_tokens
                reward = 0.0 if r.reward is None else float(r.reward)
                slot_rewards.setdefault(item, []).append(reward)
            line_start = result.stats.bytes_read
            yield r

    folded = plan.fold(observe())
    if folded is None:
        result.items = {k: math.fsum(v) / len(v) for k, v in slot_rewards.items()}
        return result
    result.aggregate, per_item = folded
    per_key: dict[ItemKey, list[float]] = {}
    for key, reward in per_item:
        per_key.setdefault(key, []).append(reward)
    result.items = {k: math.fsum(v) / len(v) for k, v in per_key.items()}
    result.duplicate_keys = sum(len(v) - 1 for v in per_key.values())
    return result


# ---- provenance --------------------------------------------------------------------------


def _other_settings(run: Run) -> list[RunSettings]:
    """Settings of the configs after the first (provenance only; a bad one is skipped)."""
    from evalkit.inputs import load_yaml
    from evalkit.runs.layout import CONFIG_FILES
    from evalkit.runs.settings import settings_from

    out = []
    for name in CONFIG_FILES:
        path = run.artifacts_dir / name
        if path.is_file() and path != run.config_path:
            try:
                out.append(settings_from([load_yaml(path)], path))
            except InputError:
                continue
    return out


def _read_run_sub(path: Path) -> str:
    from evalkit.inputs import read_bytes

    if not path.is_file():
        return ""
    try:
        return read_bytes(path).decode("utf-8", errors="replace")
    except InputError:
        return ""  # provenance is a report, not a check: an unreadable run.sub shows blanks


def read_gym_versions(logs_dir: Path | None) -> list[tuple[str, int, str]]:
    """The line after each Gym version banner in logs/client-*.log."""
    if logs_dir is None or not logs_dir.is_dir():
        return []
    found: list[tuple[str, int, str]] = []
    for log in sorted(logs_dir.glob("client-*.log")):
        try:
            after = False
            for line_no, line in enumerate(iter_log_lines(log), start=1):
                if after and line.strip():
                    found.append((log.name, line_no, quote(line)))
                    after = False
                if any(banner in line for banner in GYM_VERSION_BANNERS):
                    after = True
        except InputError:
            continue
    return found


def _normalise_version(text: str) -> str:
    sha = _SHA40.search(text)
    if sha:
        return sha.group(0).lower()
    return text.strip()


def gym_version(found: list[tuple[str, int, str]]) -> str | None:
    """One version string; several different ones (a resume on another image) are joined."""
    versions = list(dict.fromkeys(_normalise_version(text) for _, _, text in found))
    return " | ".join(versions) if versions else None


__all__ = [
    "SAMPLING_KEYS",
    "Fingerprint",
    "Provenance",
    "GENERIC",
    "PassPlan",
    "Run",
    "RolloutPass",
    "as_run",
    "checkpoint_mount",
    "gym_version",
    "load_runs",
    "read_gym_versions",
    "scan_rollouts",
]
