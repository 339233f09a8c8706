#!/usr/bin/env bash
# Run the whole test suite on a fresh machine: makes ./.venv (once), installs the
# package with its test extra (the real nel 0.2.6 launcher included), then runs pytest.
# Extra arguments go to pytest, e.g. `bash tests/run.sh -m "not launcher"`. Tests run in
# parallel workers, one per core (EVALKIT_TEST_WORKERS=N sets the number; 0 runs them in
# this process, as `-n 0` does), each test file whole on one worker.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
venv="${EVALKIT_TEST_VENV:-$root/.venv}"
if [ ! -x "$venv/bin/python" ]; then
  echo "tests/run.sh: creating $venv" >&2
  python3 -m venv "$venv"
fi
stamp="$venv/.evalkit-test-deps"
# Reinstall when the package metadata or the C extension's source changes (an editable
# install picks up Python edits by itself, but not a rebuilt extension).
want=$(cat pyproject.toml tools/evalkit/*.c | sha256sum | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "tests/run.sh: installing evalkit[test] into $venv (first run takes about a minute)" >&2
  "$venv/bin/python" -m pip install --quiet --upgrade pip
  "$venv/bin/python" -m pip install --quiet -e ".[test]"
  echo "$want" > "$stamp"
fi
export PATH="$venv/bin:$PATH"
exec "$venv/bin/python" -m pytest -n "${EVALKIT_TEST_WORKERS:-auto}" --dist loadfile "$@"
