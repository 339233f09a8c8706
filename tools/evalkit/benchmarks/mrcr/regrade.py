"""Re-grading a whole rollouts file: every line graded again, then aggregated.

The file is cut into byte ranges ("shards"); each shard is read line by line, decoded
(only the needed fields) and graded, and returns small per-rollout records (numbers and
the item's prefix, never the prompt or the response). Large files use a process pool so
decoding and difflib run on every core; the result is the same as a single pass, with
line numbers counted over the whole file.
"""

from __future__ import annotations

import hashlib
import os
from collections import Counter
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalkit.benchmarks.mrcr.aggregate import (
    MrcrAggregate,
    compare_metrics,
    read_aggregate_entries,
    recompute,
    select_agent,
)
from evalkit.benchmarks.mrcr.grading import grade
from evalkit.benchmarks.mrcr.leaks import leak_reading, leaked_reasoning
from evalkit.errors import InputError
from evalkit.runs.rollouts import ScanStats, iter_raw_lines, to_rollout

FLAG_NAMES = ("no_message", "usage_null", "reasoning_leak", "length_capped")
MAX_EXAMPLES = 5
# Below this size one process is faster than starting a pool.
POOL_MIN_BYTES = 64 * 1024 * 1024
SHARDS_PER_JOB = 4


Progress = Callable[[int, int, int], None]  # (shards done, bytes done, total bytes)


def answer_digest(answer: str) -> str:
    """What a Graded record keeps of its expected answer: enough to tell items apart."""
    return hashlib.blake2b(answer.encode(), digest_size=12).hexdigest()


_NO_ANSWER = answer_digest("")


@dataclass(slots=True)
class Graded:
    """One rollout after re-grading: small fields only (the answer is kept as a digest)."""

    line: int
    task_index: int
    rollout_index: int
    reward: float  # re-graded
    prefix_matched: bool  # re-graded
    stored_reward: float | None
    stored_prefix_matched: bool | None
    n_needles: int | None
    random_string_to_prepend: str
    expected_answer: str  # blake2b digest of the answer: enough to tell items apart
    agent: str | None

    @property
    def mismatch(self) -> bool:
        return (
            self.stored_reward != self.reward or self.stored_prefix_matched != self.prefix_matched
        )


@dataclass
class ShardResult:
    records: list[Graded] = field(default_factory=list)
    stats: ScanStats = field(default_factory=ScanStats)
    flags: Counter = field(default_factory=Counter)
    error: tuple[str, int | None] | None = None  # (message, line within the shard)


def grade_shard(
    path: str, start: int, end: int | None, progress: Progress | None = None
) -> ShardResult:
    """Grade every line that starts in [start, end); line numbers are shard-local.

    `progress` (single-process use only) is called with (0, bytes read, file size)."""
    result = ShardResult()
    size = Path(path).stat().st_size if progress is not None else 0
    try:
        for line_no, rec, _raw in iter_raw_lines(Path(path), result.stats, start, end):
            if progress is not None:
                progress(0, result.stats.bytes_read, size)
            r = to_rollout(rec, line_no)
            reward, matched = grade(r.response_text, r.expected_answer, r.random_string_to_prepend)
            if r.response_text is None:
                result.flags["no_message"] += 1
            if r.usage_missing:
                result.flags["usage_null"] += 1
            if leaked_reasoning(r.response_text):
                result.flags["reasoning_leak"] += 1
            if r.incomplete_reason is not None:
                result.flags["length_capped"] += 1
            digest = answer_digest(r.expected_answer)
            result.records.append(
                Graded(
                    line_no,
                    r.task_index,
                    r.rollout_index,
                    reward,
                    matched,
                    r.reward,
                    r.prefix_matched,
                    r.n_needles,
                    r.random_string_to_prepend,
                    digest,
                    r.agent,
                )
            )
    except InputError as err:  # returned, not raised: the line number still needs fixing
        result.error = (err.message, err.line)  # None: the file, not a line, is at fault
    return result


@dataclass
class RegradeResult:
    path: Path
    stats: ScanStats
    aggregate: MrcrAggregate  # from the re-graded rewards
    stored: MrcrAggregate  # from the rewards stored in the file
    flags: dict[str, int]
    reward_mismatches: int
    mismatch_examples: list[dict[str, Any]]
    agents: list[str]
    jobs: int


def _shards(size: int, jobs: int) -> list[tuple[int, int | None]]:
    count = 1 if jobs <= 1 else jobs * SHARDS_PER_JOB
    step = max(1, size // count)
    bounds = [i * step for i in range(count)]
    return [(b, bounds[i + 1] if i + 1 < count else None) for i, b in enumerate(bounds)]


def usable_cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def default_jobs(size: int) -> int:
    return 1 if size < POOL_MIN_BYTES else min(usable_cores(), 8)


def regrade_file(
    path: str | Path, jobs: int | None = None, progress: Progress | None = None
) -> RegradeResult:
    from evalkit.inputs import open_binary

    p = Path(path)
    # Opened once up front: a missing, unreadable or special file (FIFO, device) is one
    # line naming it before any worker starts.
    with open_binary(p, "a rollouts .jsonl file") as handle:
        size = os.fstat(handle.fileno()).st_size
    # more processes than cores only add start-up cost (`--jobs 100000` forked on and on)
    jobs = default_jobs(size) if jobs is None else max(1, min(jobs, usable_cores()))
    shards = _shards(size, jobs)
    results = None
    if jobs > 1:
        try:
            results = _run_pool(p, shards, jobs, size, progress)
        except (OSError, NotImplementedError, BrokenProcessPool):
            results, jobs = None, 1  # no usable process pool (or a worker died): one process
    if results is None:
        results = [grade_shard(str(p), 0, None, progress)]
    return _combine(p, results, jobs)


def _run_pool(p: Path, shards, jobs: int, size: int, progress: Progress | None):
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(grade_shard, str(p), s, e) for s, e in shards]
        pending = set(futures)
        done_bytes = 0
        while pending:
            done, pending = wait(pending, timeout=2.0, return_when=FIRST_COMPLETED)
            done_bytes += sum(f.result().stats.bytes_read for f in done)
            if progress is not None:
                progress(len(futures) - len(pending), done_bytes, size)
        return [f.result() for f in futures]


def _combine(p: Path, results: list[ShardResult], jobs: int) -> RegradeResult:
    stats = ScanStats()
    flags: Counter = Counter()
    records: list[Graded] = []
    offset = 0
    for shard in results:
        if shard.error is not None:
            message, line = shard.error
            raise InputError(message, p, None if line is None else offset + line)
        for rec in shard.records:
            rec.line += offset
        records.extend(shard.records)
        offset += shard.stats.lines
        stats.lines += shard.stats.lines
        stats.records += shard.stats.records
        stats.blank_lines += shard.stats.blank_lines
        stats.bytes_read += shard.stats.bytes_read
        stats.truncated_last_line |= shard.stats.truncated_last_line
        flags.update(shard.flags)
    if records and all(r.expected_answer == _NO_ANSWER for r in records):
        # MRCR always stores the answer it grades against; without one, grading would
        # compare every response with "" and report mismatches that mean nothing.
        raise InputError(
            "not MRCR rollouts: no record has an expected_answer (regrade re-grades MRCR "
            "only; `evalkit score` reads other Gym tasks)",
            p,
            min(r.line for r in records),
        )
    mismatched = [r for r in records if r.mismatch]
    examples = [
        {
            "line": r.line,
            "task_index": r.task_index,
            "rollout_index": r.rollout_index,
            "stored_reward": r.stored_reward,
            "regraded_reward": r.reward,
            "stored_prefix_matched": r.stored_prefix_matched,
            "regraded_prefix_matched": r.prefix_matched,
        }
        for r in sorted(mismatched, key=lambda r: r.line)[:MAX_EXAMPLES]
    ]
    agents = sorted({r.agent for r in records if r.agent})
    regraded = recompute(records)
    stored = recompute(_StoredView(r) for r in records)
    return RegradeResult(
        path=p,
        stats=stats,
        aggregate=regraded,
        stored=stored,
        flags={name: flags.get(name, 0) for name in FLAG_NAMES},
        reward_mismatches=len(mismatched),
        mismatch_examples=examples,
        agents=agents,
        jobs=jobs,
    )


class _StoredView:
    """A Graded record seen with the rewards stored in the file."""

    __slots__ = ("_r",)

    def __init__(self, record: Graded):
        self._r = record

    def __getattr__(self, name: str):
        if name == "reward":
            return self._r.stored_reward
        if name == "prefix_matched":
            return self._r.stored_prefix_matched
        return getattr(self._r, name)


def regrade_document(result: RegradeResult, aggregate_path: Path | None) -> tuple[dict, int]:
    """The regrade document and its exit code: 1 on a reward mismatch, an aggregate that
    disagrees, a truncated last line or conflicting duplicates, else 0."""

    agg = result.aggregate
    # a re-run rollout may differ in its stored reward or in its response: count either
    conflicts = max(agg.conflicting_duplicates, result.stored.conflicting_duplicates)
    agrees, diffs, agent = None, [], None
    if aggregate_path is not None:
        wanted = result.agents[0] if len(result.agents) == 1 else None
        agent, metrics = select_agent(
            read_aggregate_entries(aggregate_path), wanted, aggregate_path
        )
        diffs = compare_metrics(agg.gym_metrics(), metrics)
        agrees = not diffs
    doc = {
        "rollouts": agg.rollouts,
        "duplicates": agg.duplicates,
        "truncated_lines": int(result.stats.truncated_last_line),
        "pass_at_1": agg.pass_at_1,
        "strata": agg.strata,
        "prefix_matched": agg.prefix_matched,
        "reward_mismatches": result.reward_mismatches,
        "aggregate_agrees": agrees,
        "conflicting_duplicates": conflicts,
        "mean_reward": agg.mean_reward,
        "rollouts_per_task": agg.max_rollouts_per_task,
        "pass_at_1_avg_of_k": agg.pass_at_1_avg_of_k,
        "stored_pass_at_1": result.stored.pass_at_1,
        "flags": result.flags,
        "reasoning_leak": leak_reading(
            result.flags.get("reasoning_leak", 0), agg.rollouts + agg.duplicates
        ),
        "mismatch_examples": result.mismatch_examples,
        "aggregate_diffs": diffs[:10],
        "agent": agent or (result.agents[0] if len(result.agents) == 1 else None),
        "rollouts_file": str(result.path),
        "aggregate_file": None if aggregate_path is None else str(aggregate_path),
        "lines": result.stats.lines,
        "blank_lines": result.stats.blank_lines,
    }
    failed = (
        result.reward_mismatches > 0
        or agrees is False
        or result.stats.truncated_last_line
        or conflicts > 0
    )
    return doc, 1 if failed else 0
