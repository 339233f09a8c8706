"""`evalkit status`: a run still being written. The same run checks as validate
(checks/), run on what is written so far, plus progress, ETA and walltime (monitor.py);
following the files incrementally (follow.py). The text view is render/status.py."""

from evalkit.status.monitor import *  # noqa: F403
from evalkit.status.monitor import walltime_from_run_sub  # noqa: F401
