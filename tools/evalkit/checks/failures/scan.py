"""One streamed pass over a task's logs: every failure rule's hits, with the Slurm job
each log belongs to, plus the few facts the fixes compute from (the served model name
vLLM logged, the last checkpoint-shard progress line, the answered requests).

Lines come through evalkit.inputs.iter_log_lines (per-line cap, undecodable bytes
replaced); each rule is tried only on lines holding its literal needle, so a pass costs
one substring test per rule and line. Quoted text is redacted (secrets.quote) before it
is kept.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from evalkit.checks.failures.fatal import Fatal, FatalReader
from evalkit.checks.failures.model import FailureRule, Hit
from evalkit.errors import InputError
from evalkit.inputs import MAX_LINE_BYTES
from evalkit.runs.tail import Tail
from evalkit.secrets.quote import quote, redact_quoted

MAX_HITS = 3  # lines kept per rule and file; the count covers the rest
# The job id in nel 0.2.6 log names (executors/slurm/executor.py): slurm-%A.log,
# client-%A.log, proxy-%A.log, server-<g>-%A-%t.log.
_JOB = re.compile(r"^(?:slurm|client|proxy|export)-(\d+)\.log$|^server-\d+-(\d+)-\d+\.log$")
# vLLM 0.26 vllm/model_executor/model_loader/weight_utils.py:634 (_BAR_FORMAT).
_SHARDS = re.compile(r"Loading safetensors checkpoint shards:\s+\d+% Completed \| (\d+)/(\d+)")
# vLLM 0.26 vllm/entrypoints/serve/utils/api_utils.py:273 logs the non-default args as a
# Python dict; the served name is a list of strings there.
_SERVED = re.compile(r"non-default args: .*'served_model_name': \['([^']{1,200})'")


@dataclass
class RuleHits:
    hits: list[Hit] = field(default_factory=list)
    count: int = 0
    by_job: dict[str, Hit] = field(default_factory=dict)  # the first hit in each job's logs


@dataclass
class LogFacts:
    hits: dict[str, RuleHits] = field(default_factory=dict)
    served: str | None = None
    shards: tuple[int, int] | None = None
    files: list[str] = field(default_factory=list)
    ok_requests: int = 0  # client or server lines showing a 200 answer
    unreadable: list[str] = field(default_factory=list)
    waiting_jobs: set[str] = field(default_factory=set)
    ready_jobs: set[str] = field(default_factory=set)
    loaded_files: set[str] = field(default_factory=set)
    prepare_lines: dict[str, int] = field(default_factory=dict)
    fatal: dict[str, FatalReader] = field(default_factory=dict)  # log -> its fatal line
    submitted: set[str] = field(default_factory=set)  # follow-up jobs a job's run.sub queued

    def fatal_line(self, name: str) -> Fatal | None:
        reader = self.fatal.get(name)
        return reader.best() if reader else None


def job_of(name: str) -> str | None:
    match = _JOB.match(name)
    return (match.group(1) or match.group(2)) if match else None


def log_files(logs_dir: Path | None) -> list[Path]:
    if logs_dir is None or not logs_dir.is_dir():
        return []
    return sorted(p for p in logs_dir.glob("*.log") if p.is_file())


def _feed(
    facts: LogFacts,
    rules: Sequence[FailureRule],
    name: str,
    lines: Iterable[str],
    first_line: int = 1,
) -> None:
    mine = [r for r in rules if name.startswith(r.logs)]
    job = job_of(name)
    fatal = facts.fatal.setdefault(name, FatalReader())
    for line_no, line in enumerate(lines, start=first_line):
        fatal.feed(line_no, line)
        for rule in mine:
            if not any(n in line for n in rule.needles):
                continue
            match = rule.match(line)
            if not match:
                continue
            bucket = facts.hits.setdefault(rule.id, RuleHits())
            bucket.count += 1
            fresh = job is not None and job not in bucket.by_job
            if len(bucket.hits) < MAX_HITS or fresh:
                # Values a fix or a cause repeats (a URL, a path, a model name) are
                # redacted like the quoted line.
                groups = {k: redact_quoted(v) for k, v in match.groupdict().items() if v}
                hit = Hit(rule.id, name, line_no, quote(line), groups, job)
                if len(bucket.hits) < MAX_HITS:
                    bucket.hits.append(hit)
                if fresh:
                    bucket.by_job[job] = hit
        if job is not None and name.startswith("slurm-"):
            # nel 0.2.6 executor.py:2252 and :2259, the health wait's own lines.
            if line.startswith("Waiting for server on "):
                facts.waiting_jobs.add(job)
            elif line.startswith("server ready on "):
                facts.ready_jobs.add(job)
            # sbatch's answer to the auto-resume handler's `sbatch --dependency=afternotok`
            elif line.startswith("Submitted batch job ") and line[20:].strip().isdigit():
                facts.submitted.add(line[20:].strip()[:20])
        # vLLM 0.26 v1/worker/gpu_model_runner.py:5348: the weights are on the GPUs.
        if "Model loading took" in line:
            facts.loaded_files.add(name)
        # recipes/examples/gym/example_mrcr.yaml: the bootstrap's prepare step begins.
        if "gym bootstrap: ng_prepare_benchmark" in line and name not in facts.prepare_lines:
            facts.prepare_lines[name] = line_no
        if "checkpoint shards" in line:
            shard = _SHARDS.search(line)
            if shard:
                facts.shards = (int(shard.group(1)), int(shard.group(2)))
        if "non-default args" in line:
            served = _SERVED.search(line)
            if served:
                facts.served = served.group(1)
        if '" 200' in line or "HTTP/1.1 200" in line:
            facts.ok_requests += 1


def scan_logs(logs_dir: Path | None, rules: Sequence[FailureRule]) -> LogFacts:
    from evalkit.inputs import iter_log_lines

    facts = LogFacts()
    for path in log_files(logs_dir):
        facts.files.append(path.name)
        try:
            _feed(facts, rules, path.name, iter_log_lines(path))
        except InputError as err:
            facts.unreadable.append(str(err))
    return facts


def scan_lines(name: str, lines: Iterable[str], rules: Sequence[FailureRule]) -> LogFacts:
    """The same pass over given lines (tests, and a log pasted on its own)."""
    facts = LogFacts(files=[name])
    _feed(facts, rules, name, lines)
    return facts


class LogScanner:
    """The same pass, kept across refreshes (`status --watch`): each log is followed by a
    runs.tail.Tail, so a refresh reads what was appended since the last one. A log that
    shrank or was replaced starts the whole scan over. A last line without its newline
    is a write in progress, read once it is complete."""

    def __init__(self, rules: Sequence[FailureRule]) -> None:
        self.rules = rules
        self.tails: dict[Path, Tail] = {}
        self.facts = LogFacts()

    def refresh(self, logs_dir: Path | None) -> LogFacts:
        for path in log_files(logs_dir):
            tail = self.tails.get(path)
            if tail is None:
                tail = self.tails[path] = Tail(path, line_cap=MAX_LINE_BYTES)
                self.facts.files.append(path.name)
            try:
                lines = tail.lines()
                if tail.restarted:  # shrank or replaced: what was counted from it is gone
                    self._restart()
                    return self.refresh(logs_dir)
                start = tail.line_no + 1
                text = (raw.decode("utf-8", errors="replace") for _, raw in lines)
                _feed(self.facts, self.rules, path.name, text, start)
            except InputError as err:
                self.facts.unreadable.append(str(err))
        return self.facts

    def _restart(self) -> None:
        self.tails.clear()
        self.facts = LogFacts()
