"""The one way a command writes a file: never onto an input, never silently over an
existing file, and exactly the text it is given (a config from `init -o` holds what the
user gave; a report was built from redacted data, evalkit.render.redact).

`redacting_streams()` guards stdout and stderr: `cli.main` runs every command inside it,
and plain text passes `redact_text` (known secret values only) line by line. A
structured document is already redacted as data and goes out untouched through
`write_structured`, so no text rewrite can break its syntax.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from evalkit.errors import UsageError
from evalkit.render.redact import redact_text


def _resolved(path: str | os.PathLike[str]) -> Path:
    return Path(path).expanduser().resolve(strict=False)


def check_destination(
    output: str | os.PathLike[str], inputs: Iterable[str | os.PathLike[str]], force: bool
) -> Path:
    """The resolved path to write, or UsageError: an input itself, a path inside an input
    directory (a run), a non-regular file, or an existing file without --force."""
    target = _resolved(output)
    for given in inputs:
        if given is None:
            continue
        source = _resolved(given)
        if target == source:
            raise UsageError(f"-o {output} is the input {given}: refusing to overwrite it")
        if source.is_dir() and target.is_relative_to(source):
            raise UsageError(f"-o {output} is inside the input {given}: write it elsewhere")
        if target.exists() and source.exists() and os.path.samefile(target, source):
            raise UsageError(f"-o {output} is the input {given}: refusing to overwrite it")
    if target.exists():
        if not target.is_file():
            raise UsageError(f"-o {output} exists and is not a regular file")
        if not force:
            raise UsageError(f"{output} exists (pass --force to overwrite)")
    return target


def write_output(
    output: str | os.PathLike[str],
    text: str,
    inputs: Iterable[str | os.PathLike[str]] = (),
    force: bool = False,
) -> Path:
    """Write `text` as given to `output` after `check_destination`; atomically, so a
    failed write leaves the old file (and any hard link to it) as it was."""
    target = check_destination(output, inputs, force)
    body = text
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    except OSError as err:
        raise UsageError(f"cannot write {output}: {err.strerror or err}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(body)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, target)
    except OSError as err:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise UsageError(f"cannot write {output}: {err.strerror or err}") from None
    return target


class RedactingStream(io.TextIOBase):
    """A text stream that redacts each complete line before passing it on.

    A partial line waits for its newline (a secret is never split across two writes);
    `flush()` passes on the complete lines, so `status --watch` still streams.
    """

    def __init__(self, target) -> None:
        super().__init__()
        self._target = target
        self._pending = ""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self._pending += text
        cut = self._pending.rfind("\n")
        if cut >= 0:
            done, self._pending = self._pending[: cut + 1], self._pending[cut + 1 :]
            self._target.write(redact_text(done))
        return len(text)

    def flush(self) -> None:
        self._target.flush()

    def write_verbatim(self, text: str) -> None:
        """Pending text redacted, then `text` as it is (a redacted document)."""
        self.finish()
        self._target.write(text)

    def finish(self) -> None:
        if self._pending:
            self._target.write(redact_text(self._pending))
            self._pending = ""
        self._target.flush()

    def isatty(self) -> bool:
        return self._target.isatty()

    @property
    def encoding(self):  # type: ignore[override]
        return getattr(self._target, "encoding", "utf-8")

    def fileno(self) -> int:
        return self._target.fileno()


def write_structured(text: str, out=None) -> None:
    """A serialised document built from redacted data: written without a text rewrite."""
    out = out or sys.stdout
    if isinstance(out, RedactingStream):
        out.write_verbatim(text)
    else:
        out.write(text)


@contextlib.contextmanager
def redacting_streams() -> Iterator[None]:
    """stdout and stderr redacted for the duration; the originals restored after."""
    saved = sys.stdout, sys.stderr
    out, err = RedactingStream(saved[0]), RedactingStream(saved[1])
    sys.stdout, sys.stderr = out, err
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
        for stream in (out, err):
            with contextlib.suppress(OSError, ValueError):
                stream.finish()
