"""tempfile.TemporaryDirectory, kept: made under $EVALKIT_KEEP and never removed.

nel 0.2.6's SLURM executor renders run.sub into a TemporaryDirectory it deletes
(executors/slurm/executor.py); with this class in its place the files survive the
dry-run, so a test can read what the launcher itself wrote. Nothing else changes.
"""

from __future__ import annotations

import contextlib
import os
import tempfile


class Kept(tempfile.TemporaryDirectory):
    def __init__(self, *args, **kwargs):
        kwargs["dir"] = os.environ["EVALKIT_KEEP"]
        super().__init__(*args, **kwargs)
        self._finalizer.detach()

    def cleanup(self):
        pass

    def __exit__(self, *exc):
        return None


@contextlib.contextmanager
def kept_temporary_directories():
    """For the length of the block, in this process."""
    real = tempfile.TemporaryDirectory
    tempfile.TemporaryDirectory = Kept
    try:
        yield
    finally:
        tempfile.TemporaryDirectory = real
