"""The failure corpus (issue 48): real failure text, each case placed where nel 0.2.6
writes it in a dead task directory, read by `evalkit status --format json`. A case is
named right (its cause id, fix and resubmit stance) or, when no signature covers it,
reported as not recognised with its fatal line quoted; never named wrong.
tests/data/failures_corpus/README.md describes the cases and their sources."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from helpers.failure_logs import dead_task

CORPUS = Path(__file__).parent / "data" / "failures_corpus"
JOB = "4100001"


def _cases() -> list[tuple[str, dict]]:
    found = []
    for path in sorted(CORPUS.glob("*.yaml")):
        for case in yaml.safe_load(path.read_text()):
            found.append((f"{path.stem}: {case['name']}", case))
    return found


CASES = _cases()


def test_the_corpus_is_large_and_sourced():
    assert len(CASES) >= 80
    for name, case in CASES:
        assert case.get("source"), name
        assert case["expect"] is not None or case.get("fatal"), name


# The causes a retry can outlive (references/failures.md: never "do not resubmit" for "a
# rate limit, a preemption, a node failure, an NCCL timeout, a port taken on a shared
# node"); every other named cause is not transient.
TRANSIENT = {"rate-limited", "slurm-preempted", "slurm-node-failure", "nccl-timeout", "port-in-use"}
# The causes whose line is printed as the job ends (by Slurm, run.sub or the bootstrap):
# seen in the latest job's log, the task has ended even while its files are fresh.
ENDS_JOB = {
    "chain-ended", "chain-max-walltime", "enroot-mount", "gym-rollouts-exited",
    "health-check-timeout", "mrcr-bootstrap-stop", "pyxis-image-import", "server-died",
    "slurm-cancelled", "slurm-host-oom", "time-limit-while-starting",
}  # fmt: skip


def _triage(tmp_path: Path, run_cli, case: dict, ended_ago: float = 7200.0) -> dict:
    logs = {
        name.replace("{job}", JOB): text.replace("{job}", JOB)
        for name, text in case["logs"].items()
    }
    task = dead_task(tmp_path, logs, jobs=case.get("jobs", [JOB]), ended_ago=ended_ago)
    code, out, err = run_cli("status", task, "--format", "json", "--stale-after", "600")
    assert err == "", err
    return json.loads(out)["tasks"][0]["triage"]


@pytest.mark.parametrize("name,case", CASES, ids=[n for n, _ in CASES])
def test_each_case_is_named_right_or_not_recognised(tmp_path, run_cli, name, case):
    cause = _triage(tmp_path, run_cli, case)["cause"]
    assert cause is not None, name
    if case["expect"] is None:
        assert cause["id"] == "not-recognised" and cause["recognised"] is False, cause
        assert cause["component"] in ("server", "proxy", "client", "job"), cause
        assert case["fatal"] in cause["evidence"]["text"], cause["evidence"]
        assert cause["resubmit_can_succeed"] is None
        assert cause["evidence"]["line"] >= 1 and cause["evidence"]["file"].startswith("logs/")
        return
    assert cause["id"] == case["expect"], (cause["id"], cause["cause"], cause["evidence"])
    assert cause["recognised"] is True
    assert cause["transient"] is (case["expect"] in TRANSIENT)
    if "resubmit" in case:
        assert cause["resubmit_can_succeed"] is case["resubmit"]
    if "cause" in case:
        assert case["cause"] in cause["cause"], cause["cause"]
    if "fix" in case:
        assert cause["fix"], cause
        assert case["fix"] in cause["fix"][0]["value"] + cause["fix"][0]["why"], cause["fix"]
    if "fixes" in case:  # every change, in order: a computed value is checked by value
        changes = [f"{c['key']}: {c['value']} ({c['why']})" for c in cause["fix"]]
        assert len(changes) == len(case["fixes"]), changes
        for want, got in zip(case["fixes"], changes, strict=True):
            assert want in got, (want, got)


def test_the_text_answer_quotes_an_unrecognised_fatal_line(tmp_path, run_cli):
    """The text of status on a case no signature covers: the component, the file and
    line, the line itself, and no resubmit advice beyond reading it."""
    (case,) = [c for n, c in CASES if "Unsupported head size 80" in str(c["logs"])]
    logs = {k.replace("{job}", JOB): v for k, v in case["logs"].items()}
    task = dead_task(tmp_path, logs, jobs=[JOB])
    _, out, err = run_cli("status", task, "--stale-after", "600")
    assert err == ""
    assert "why it ended: not-recognised: no signature matches; the server died first" in out
    assert "its fatal line is logs/server-0-4100001-0.log:4" in " ".join(out.split())
    assert "evidence: logs/server-0-4100001-0.log:4: (EngineCore pid=263) ERROR" in out
    assert "AssertionError: Unsupported head size 80" in out
    assert "resubmit: cause not recognised" in out
    assert "also seen: server-died at logs/slurm-4100001.log:1" in out


# one single-job case of each named cause
FIRST_OF_EACH = {
    c["expect"]: (n, c)
    for n, c in reversed(CASES)
    if c["expect"] and len(c.get("jobs", [JOB])) == 1
}


@pytest.mark.parametrize(
    "name,case", FIRST_OF_EACH.values(), ids=[n for n, _ in FIRST_OF_EACH.values()]
)
def test_a_fresh_task_has_ended_only_on_a_line_that_ends_the_job(tmp_path, run_cli, name, case):
    """The same logs written 5 s ago instead of 2 h ago: the task looks live, and has
    ended only if one of the causes found in the old copy prints as the job ends."""
    old = _triage(tmp_path / "old", run_cli, case)
    found = {old["cause"]["id"]} | {c["id"] for c in old["also_seen"]}
    fresh = _triage(tmp_path / "fresh", run_cli, case, ended_ago=5)
    assert (fresh["cause"] is not None) is bool(found & ENDS_JOB), (found, fresh)
    if fresh["cause"] is not None:
        assert fresh["cause"]["id"] == case["expect"]
