"""Read a config for fixing and write the fixed text back into the same file.

The fixers edit LF text; the file's own line ending (LF or CRLF) and UTF-8 BOM are put
back on write and in the diff. The write goes through the file's own inode (open, write,
truncate), so its mode, owner, ACLs and hard links stay as they were; a rename would
give a new file to one of the links only. A file without write permission, or changed
since it was read, is refused with one line and left as it was.
"""

from __future__ import annotations

import contextlib
import os
import stat
from dataclasses import dataclass

from evalkit.errors import InputError
from evalkit.inputs import decode_text, read_bytes

BOM = "\ufeff"
# Line breaks YAML counts that the line editor does not: a fix would land on the wrong line.
OTHER_BREAKS = {"\r": "CR", "\x85": "U+0085", "\u2028": "U+2028", "\u2029": "U+2029"}


@dataclass(frozen=True)
class Source:
    raw: bytes
    text: str  # LF line endings, no BOM
    bom: str
    newline: str  # "\n" or "\r\n"

    def encode(self, text: str) -> bytes:
        return (self.bom + text.replace("\n", self.newline)).encode("utf-8")


def read_config(path: str) -> Source:
    """The file as the fixers edit it; one line and exit 2 for line breaks they cannot."""
    raw = read_bytes(path)
    text = decode_text(raw, path)
    newline = "\r\n" if "\r\n" in text else "\n"
    lf = text.replace("\r\n", "\n")
    if newline == "\r\n" and lf.count("\n") != text.count("\r\n"):
        line = next(i for i, s in enumerate(text.split("\n"), 1) if not s.endswith("\r"))
        raise InputError("mixes CRLF and LF line endings: --fix would not keep them", path, line)
    for char, name in OTHER_BREAKS.items():
        if char in lf:
            line = lf[: lf.index(char)].count("\n") + 1
            raise InputError(f"a {name} line break: --fix edits LF or CRLF lines only", path, line)
    return Source(raw, lf, BOM if raw.startswith(BOM.encode()) else "", newline)


def check_writable(path: str) -> None:
    """Refuse a file the user cannot write, or one nobody may (root writes anything)."""
    try:
        mode = os.stat(path).st_mode
    except OSError as err:
        raise InputError(f"cannot write the fixed file ({err.strerror or err})", path) from None
    if not os.access(path, os.W_OK) or not mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
        raise InputError("read-only: not fixed (--diff shows the fixes)", path)


def write_in_place(path: str, source: Source, text: str) -> None:
    """Replace the file's content with `text`, through the same inode."""
    data = source.encode(text)
    try:
        fd = os.open(path, os.O_RDWR)  # through a symlink, as an editor writes
    except OSError as err:
        raise InputError(f"cannot write the fixed file ({err.strerror or err})", path) from None
    with os.fdopen(fd, "r+b") as handle:
        if handle.read(len(source.raw) + 1) != source.raw:
            raise InputError("changed while it was being fixed: not written", path)
        try:
            handle.seek(0)
            handle.write(data)
            handle.truncate()
            handle.flush()
            os.fsync(handle.fileno())
        except OSError as err:
            with contextlib.suppress(OSError):  # put the old content back
                handle.seek(0)
                handle.write(source.raw)
                handle.truncate()
            raise InputError(f"cannot write the fixed file ({err.strerror or err})", path) from None
