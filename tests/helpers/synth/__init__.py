"""Synthetic nel 0.2.6 run directories for tests and benchmarks, laid out like the code they
feed: `runs/` the parts no benchmark owns (file writing, the vLLM server log, run.sub and
`nel status`), `benchmarks/` one module or package per benchmark family (MRCR, GDPVal,
results.yml harness tasks), `text` the filler prose they share. Tests import the public
names from tests/helpers/rungen.py.

Everything is derived from a seed, so runs are reproducible. Each module's docstring names
the source and version of the format it writes (a pinned version moves: re-read its
source and move the format with it); a format no source could be found for says it is a
guess.
"""
