"""Following a file that another process is still appending to.

A `Tail` remembers the byte offset and line number where its last read stopped, so a
refresh costs what was appended since, not the file's size. Only complete lines (ending
in a newline) are handed out: a partial last line is a write in progress, left for the
next read. A file that shrank or was replaced (a rerun that cleared it) starts over, and
the read says so, so callers can drop what they had counted.

Nothing here writes; the file is opened read-only for each read and closed after it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from evalkit.inputs import iter_capped_lines, iter_records, open_binary


@dataclass
class Tail:
    path: Path
    offset: int = 0  # first byte not yet handed out (start of a partial line, if any)
    line_no: int = 0  # number of the last complete line handed out
    partial_bytes: int = 0  # bytes of an unfinished last line seen on the last read
    restarted: bool = False  # the last read started over from byte 0
    line_cap: int | None = None  # logs: keep at most this many bytes of one line
    last_length: int = 0  # bytes in the file of the last line handed out
    _identity: tuple[int, int] | None = None  # (device, inode) of the file we follow

    def exists(self) -> bool:
        return self.path.is_file()

    def _check_same_file(self) -> bool:
        """False (and state reset) when the file shrank below our offset or was replaced."""
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return True  # nothing to read yet; open_binary will not be called
        identity = (st.st_dev, st.st_ino)
        same = (self._identity in (None, identity)) and st.st_size >= self.offset
        if not same:
            self.offset = self.line_no = 0
        self._identity = identity
        return same

    def lines(self, limit_bytes: int | None = None) -> Iterator[tuple[int, bytes]]:
        """(line number, raw line with its newline) for each complete line appended since
        the last read; with `line_cap`, a longer line comes cut to that many bytes. Stop
        early after about `limit_bytes` (the rest comes next time).

        `restarted` is set before the first line is read, so a caller can reset its
        counts first; the offset moves with each line the caller takes."""
        self.restarted = not self._check_same_file()
        self.partial_bytes = 0
        return self._read(limit_bytes)

    def _read(self, limit_bytes: int | None) -> Iterator[tuple[int, bytes]]:
        if not self.path.is_file():
            return
        handle = open_binary(self.path, "a growing text file")
        try:
            handle.seek(self.offset)
            read = 0
            if self.line_cap is None:
                records = iter_records(handle, self.path, self.line_no + 1)
                stream = ((raw, len(raw)) for raw in records)
            else:
                stream = iter_capped_lines(handle, self.line_cap)
            for raw, length in stream:
                if not raw.endswith(b"\n"):
                    self.partial_bytes = length  # a write in progress
                    break
                self.offset += length
                self.line_no += 1
                self.last_length = length
                read += length
                yield self.line_no, raw
                if limit_bytes is not None and read >= limit_bytes:
                    break
        finally:
            handle.close()

    def size(self) -> int:
        try:
            return self.path.stat().st_size
        except OSError:
            return 0
