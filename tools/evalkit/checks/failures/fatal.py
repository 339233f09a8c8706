"""The fatal line of one log, for a cause no signature names (issue 48): the exception
line that ends the log's first Python traceback; else its first exception-shaped line;
else the last line enroot wrote (pyxis prints enroot's log); else its last error line.

Fed one line at a time by scan.py's single pass; every test is a prefix strip and a few
substring checks or an anchored, bounded pattern, so a line costs linear time."""

from __future__ import annotations

import re
from dataclasses import dataclass

# What loggers put before a message: vLLM's process tag `(EngineCore pid=263) `, its
# `ERROR 12-03 10:20:01 [core.py:1100] ` (or the older `core.py:1100] `), torch's
# `[rank0]: `, a dated `2024-12-19 21:40:35 ERROR 56542 [file.py:64] `, a container
# runtime's ISO time, Ray's colour codes around the process tag.
_PREFIX = re.compile(
    r"(?:\d{4}-\d\d-\d\dT[\d:.]{8,30}Z? )?(?:\x1b\[[\d;]{0,12}m)?"
    r"(?:\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:[.,]\d{1,9})? (?:ERROR|CRITICAL|WARNING|INFO|DEBUG) "
    r"(?:\d{1,10} )?\[[\w.:-]{1,80}\] )?"
    r"(?:\(\w[\w-]{0,40} pid=\d{1,10}\)(?:\x1b\[[\d;]{0,12}m)? ?)?(?:\[rank\d{1,6}\]: ?)?"
    r"(?:(?:ERROR|CRITICAL|WARNING|INFO|DEBUG) \d\d-\d\d \d\d:\d\d:\d\d(?:\.\d{1,9})? "
    r"(?:\[[\w.:-]{1,80}\] |[\w.-]{1,80}:\d{1,6}\] ))?"
)
_EXCEPTION = re.compile(
    r"(?:[A-Za-z_]\w{0,60}\.){0,6}[A-Z]\w{0,80}(?:Error|Exception|Timeout|Exit)\b:? "
)
_ENROOT = "pyxis:     "  # pyxis_slurmstepd.c prints enroot's log lines indented so
_ERROR_WORDS = ("ERROR", "error", "Error", "FATAL", "CRITICAL", "[E", " died")
# srun's own reports of a task's end follow the real error; they never are it.
_ECHOES = ("Exited with exit code", "Terminating job step", "task_init", "spank_")


@dataclass
class Fatal:
    line: int
    text: str
    how: str  # traceback | exception | enroot | error


@dataclass
class FatalReader:
    traceback: Fatal | None = None
    exception: Fatal | None = None
    enroot: Fatal | None = None
    error: Fatal | None = None
    _in_traceback: bool = False

    def feed(self, line_no: int, line: str) -> None:
        if self.traceback is not None and self.exception is not None:
            self._last_error(line_no, line)
            return
        body = line[_PREFIX.match(line).end() :]  # type: ignore[union-attr]
        if self._in_traceback:
            if body[:1] in (" ", "\t") or not body.strip():
                return
            self._in_traceback = False
            self.traceback = Fatal(line_no, line, "traceback")
        elif body.startswith("Traceback (most recent call last)") and self.traceback is None:
            self._in_traceback = True
            return
        if self.exception is None and _EXCEPTION.match(body):
            self.exception = Fatal(line_no, line, "exception")
        at = line.find(_ENROOT)
        if at >= 0 and line[at + len(_ENROOT) :].strip():
            self.enroot = Fatal(line_no, line, "enroot")
        self._last_error(line_no, line)

    def _last_error(self, line_no: int, line: str) -> None:
        if any(w in line for w in _ERROR_WORDS) and not any(e in line for e in _ECHOES):
            self.error = Fatal(line_no, line, "error")

    def best(self) -> Fatal | None:
        return self.traceback or self.exception or self.enroot or self.error
