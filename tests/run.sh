#!/usr/bin/env bash
# Run the whole test suite on a fresh machine: makes the test venv (once), installs the
# package with its test extra (the real nel 0.2.6 launcher included), then runs pytest.
# Extra arguments go to pytest, e.g. `bash tests/run.sh -m "not launcher"`. Tests run in
# parallel workers, one per core (EVALKIT_TEST_WORKERS=N sets the number; 0 runs them in
# this process, as `-n 0` does), each test file whole on one worker.
#
#   bash tests/run.sh --fast            the edit loop: no real launcher, no slow or network
#                                       tests (the full run keeps them as the oracle), a
#                                       quarter of the Hypothesis examples, corpus subsets
#   bash tests/run.sh --venv            print the test venv's path and exit
#   bash tests/run.sh --python ARGS     run the test venv's python (benches, generators)
#
# The venv, pytest's cache and Hypothesis's example database live OUTSIDE the clone, in
#   ${EVALKIT_TEST_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/evalkit/test-venv-<hash of clone path>}
# because `npx skills add <this clone>` copies every file of the skill directory except
# .git, __pycache__ and __pypackages__ (skills 1.7.4 honours no ignore file).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
key=$(printf '%s' "$root" | sha256sum | cut -c1-12)
venv="${EVALKIT_TEST_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/evalkit/test-venv-$key}"
if [ "${1:-}" = "--venv" ]; then
  echo "$venv"
  exit 0
fi
if [ -d "$root/.venv" ] && [ "$venv" != "$root/.venv" ]; then
  echo "tests/run.sh: ./.venv is no longer used (the test venv is $venv);" \
    "remove it so that installing the skill from this clone does not copy it" >&2
fi
if [ ! -x "$venv/bin/python" ]; then
  echo "tests/run.sh: creating $venv" >&2
  mkdir -p "$(dirname "$venv")"
  python3 -m venv "$venv"
fi
stamp="$venv/.evalkit-test-install"
# Reinstall when the package metadata or the C extension's source changes (an editable
# install picks up Python edits by itself, but not a rebuilt extension), and when the
# extension the last install compiled is gone from the clone: the venv lives outside it,
# so a clean checkout at the same path (CI keeping its cache) finds the stamp but not the
# in-place build. The stamp's second line says whether that install compiled it (a
# machine without a compiler installs without it, and must not reinstall every run).
want=$(cat pyproject.toml tools/evalkit/*.c | sha256sum | cut -d' ' -f1)
in_place_build() { compgen -G "tools/evalkit/_seqmatch*.so" >/dev/null; }
if [ "$(head -n 1 "$stamp" 2>/dev/null)" != "$want" ] ||
  { grep -qx compiled "$stamp" && ! in_place_build; }; then
  echo "tests/run.sh: installing evalkit[test] into $venv (first run takes about a minute)" >&2
  "$venv/bin/python" -m pip install --quiet --upgrade pip
  # The editable install builds _seqmatch*.so (and evalkit.egg-info) under tools/:
  # scripts/evalkit's content hash leaves such build products out.
  "$venv/bin/python" -m pip install --quiet -e ".[test]"
  if in_place_build; then
    printf '%s\ncompiled\n' "$want" >"$stamp"
  else
    echo "$want" >"$stamp"
  fi
fi
export PATH="$venv/bin:$PATH"
if [ "${1:-}" = "--python" ]; then
  shift
  exec "$venv/bin/python" "$@"
fi
fast=()
# The fast tier also runs property tests with fewer examples and corpus-wide loops over a
# subset that keeps every kind of case (tests/helpers/tier.py); the full run never does.
export EVALKIT_TEST_FAST=0
if [ "${1:-}" = "--fast" ]; then
  shift
  fast=(-m "not slow and not launcher and not network")
  EVALKIT_TEST_FAST=1
fi
export HYPOTHESIS_STORAGE_DIRECTORY="${HYPOTHESIS_STORAGE_DIRECTORY:-$venv/hypothesis}"
# Bytecode for every process of the run (workers, entry-point tests, the launcher) lives
# beside the venv, not in the clone: with PYTHONDONTWRITEBYTECODE=1 (often set to keep
# __pycache__ out of a source tree) each process would compile every module it imports.
if [ -z "${PYTHONPYCACHEPREFIX:-}" ]; then
  export PYTHONPYCACHEPREFIX="$venv/pycache"
  unset PYTHONDONTWRITEBYTECODE
fi
exec "$venv/bin/python" -m pytest -n "${EVALKIT_TEST_WORKERS:-auto}" --dist loadfile \
  -o cache_dir="$venv/pytest-cache" ${fast[@]+"${fast[@]}"} "$@"
