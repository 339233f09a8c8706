"""Failure signatures: why a run died, the fix and the next command (issue 39).

rules/ holds one cause a module (stable id, What/Why/Fix docstring, the source of the
message it matches); scan.py reads a task's logs once (or follows them, for --watch);
facts.py what the run says about itself; budget.py counts the attempts; triage.py puts
them together for one task; slurmtext.py and slurmview.py read pasted sacct/squeue and
set them beside the logs; attach.py is what `evalkit status` calls; docs.py writes
references/failures.md. Read through the run model (evalkit.runs); knows no benchmark."""

from evalkit.checks.failures.rules import BY_ID, RULES
from evalkit.checks.failures.triage import Cause, TaskTriage, triage_task

__all__ = ["BY_ID", "RULES", "Cause", "TaskTriage", "triage_task"]
