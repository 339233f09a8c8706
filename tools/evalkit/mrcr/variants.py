"""The pre-launch side (config/, preflight/, init/, sizing) reads MRCR's variant table
from here; it lives in `evalkit.benchmarks.mrcr.variants`. Kept so those packages, edited
in parallel, move their imports on their own schedule; new code imports the new home."""

from evalkit.benchmarks.mrcr.variants import *  # noqa: F403
