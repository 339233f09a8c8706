"""Read a config for fixing and write the fixed text back in place, atomically."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from evalkit.errors import InputError
from evalkit.inputs import decode_text, read_bytes

BOM = "\ufeff"


def read_config(path: str) -> tuple[str, str]:
    """The file's text and the prefix to restore on write (a UTF-8 BOM, else '')."""
    data = read_bytes(path)
    return decode_text(data, path), BOM if data.startswith(BOM.encode()) else ""


def write_in_place(path: str, text: str, prefix: str = "") -> None:
    """Replace the file's content: a temp file beside it, its mode copied, then a rename,
    so a crash leaves the old file or the new one, never half of each."""
    target = Path(os.path.realpath(path))  # through a symlink, as an editor would
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
        fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".fix", dir=target.parent)
    except OSError as err:
        raise InputError(f"cannot write the fixed file ({err.strerror or err})", path) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as handle:
            handle.write(prefix + text)
        os.chmod(temp, mode)
        os.replace(temp, target)
    except OSError as err:
        Path(temp).unlink(missing_ok=True)
        raise InputError(f"cannot write the fixed file ({err.strerror or err})", path) from None
