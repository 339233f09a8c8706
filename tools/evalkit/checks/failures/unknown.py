"""An honest "not recognised" (issue 48): when no signature names why a task ended, the
component that died first and its fatal line, quoted with file and line, instead of a
guessed cause. The latest job's logs are read; the server's before the client's (a
client fails because its server died), then the job's own log (pyxis, enroot, run.sub).
"""

from __future__ import annotations

import re

from evalkit.checks.failures.model import NONE, Change, FailureRule, Hit, Source, TaskFacts
from evalkit.checks.failures.rules.server_died import RULE as SERVER_DIED
from evalkit.checks.failures.scan import LogFacts, job_of
from evalkit.secrets.quote import quote

ID = "not-recognised"
_ORDER = (("server-", "server"), ("client-", "client"), ("slurm-", "job"), ("proxy-", "proxy"))


def _no_fix(hit: Hit, facts: TaskFacts) -> list[Change]:
    return []


def _cause(hit: Hit, facts: TaskFacts) -> str:
    component = hit.groups.get("component", "job")
    return (
        f"no signature matches; the {component} died first, and its fatal line is "
        f"{hit.where}{hit.file}:{hit.line}"
    )


RULE = FailureRule(
    id=ID,
    name="not recognised",
    doc=__doc__,
    source=Source("evalkit", "-", "checks/failures/unknown.py"),
    needle="\0",  # never scanned for: built from the fatal lines
    pattern=re.compile(r"(?!)"),
    logs=(),
    resubmit=False,
    next=NONE,
    fix=_no_fix,
    cause=_cause,
    rank=100,
)


def fatal_hit(logs: LogFacts, latest: str | None) -> Hit | None:
    """The fatal line of the first component that has one, in the latest job's logs (or
    in every log, when none names that job)."""
    names = [n for n in logs.files if job_of(n) == latest] if latest else []
    names = names or list(logs.files)
    for prefix, component in _ORDER:
        for name in names:
            if not name.startswith(prefix):
                continue
            found = logs.fatal_line(name)
            if found is not None:
                # run.sub's own "server process N died": the server died, its log is silent
                died = SERVER_DIED.match(found.text) if prefix == "slurm-" else None
                if died:
                    component = "server" if died.group("service") == "server" else "proxy"
                groups = {"component": component, "how": found.how}
                return Hit(ID, name, found.line, quote(found.text), groups, job_of(name))
    return None
