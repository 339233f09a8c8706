"""Run `evalkit ARGV` and write this process's peak RSS (kB) to $RSS_OUT when it ends.

Used by tests/hostile/test_readers.py: a fresh process per command. The figure is VmHWM
from /proc/self/status, the peak of this program's own memory map: getrusage's ru_maxrss
survives exec on Linux, so it would count the test process that spawned us. An
address-space limit keeps a regression from taking the machine down.
"""

import os
import resource
import sys

LIMIT = 6 * 1024**3  # bytes of address space; numpy's thread pools reserve some

resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))
code = 3
try:
    from evalkit.cli import main

    code = main(sys.argv[1:])
finally:
    with open(os.environ["RSS_OUT"], "w") as out:
        with open("/proc/self/status") as status:
            peak = next(line.split()[1] for line in status if line.startswith("VmHWM:"))
        out.write(peak)
sys.exit(code)
