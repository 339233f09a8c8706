#!/usr/bin/env bash
# nel-gym.sh: run `nel` from the validated launcher release for gym tasks (MRCR, GDPVal).
#
# Gym configs are validated against nemo-evaluator-launcher 0.2.6 only, so this wrapper
# runs exactly that release through uvx, whatever `nel` is on PATH and whatever the
# environment says: the spec below is fixed and no variable can change it. To move to a
# new release, edit the two values below and the expected spec in tests/test_nel_gym.py.
#
# NEL_GYM_PYTHON may name an installed interpreter (a path, or a command on PATH) for
# machines where uv cannot download one (offline login nodes): it must be Python
# 3.10-3.12, the versions the launcher supports. It picks the interpreter, never the release.
#
# Usage: scripts/nel-gym.sh NEL_ARGS...        (all arguments go to `nel` unchanged)
#        scripts/nel-gym.sh --version | --help
set -euo pipefail

readonly launcher_version="0.2.6"
readonly launcher_spec="nemo-evaluator-launcher[all]==$launcher_version"
# The launcher declares Python >=3.10,<3.14. 3.12, because `nel skills build-config`
# crashes on 3.11 (importlib MultiplexedPath.joinpath takes one argument before 3.12).
readonly launcher_python="3.12"

usage() {
  cat <<EOF
Usage: $(basename "$0") NEL_ARGS...
       $(basename "$0") --version | --help

Runs \`nel NEL_ARGS...\` from $launcher_spec (Python $launcher_python)
through uvx. The release is fixed in this script; no environment variable overrides it.

Where uv cannot download Python $launcher_python (no internet), name an installed
interpreter instead: NEL_GYM_PYTHON=/usr/bin/python3.11 (Python 3.10-3.12, the versions
the launcher supports). It picks the interpreter, never the release.

Sets NEL_INVOCATION_ID for the launcher's process: the caller's value is kept, otherwise
a fresh 16-hex id is exported.
For nel's own help, ask a subcommand: $(basename "$0") run --help

Examples:
  $(basename "$0") run --config mrcr.yaml --env-file .env --dry-run
  $(basename "$0") run --config mrcr.yaml --env-file .env
  $(basename "$0") status INVOCATION_ID
EOF
}

if [ "$#" -eq 1 ]; then
  case "$1" in
    -h | --help)
      usage
      exit 0
      ;;
    --version)
      echo "$launcher_spec"
      exit 0
      ;;
  esac
fi

if ! command -v uvx >/dev/null 2>&1; then
  echo "nel-gym.sh: error: uvx not found on PATH; install uv (it provides uvx) and retry" >&2
  exit 2
fi

die() {
  echo "nel-gym.sh: error: $*" >&2
  exit 2
}

python_request=$launcher_python
if [ -n "${NEL_GYM_PYTHON:-}" ]; then
  interpreter=$(command -v -- "$NEL_GYM_PYTHON" 2>/dev/null) ||
    die "NEL_GYM_PYTHON=$NEL_GYM_PYTHON is not an interpreter on this machine (give a path)"
  version=$("$interpreter" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null) ||
    die "NEL_GYM_PYTHON=$NEL_GYM_PYTHON does not run as Python"
  case "$version" in
    3.10 | 3.11 | 3.12) python_request=$interpreter ;;
    *) die "NEL_GYM_PYTHON=$NEL_GYM_PYTHON is Python $version; $launcher_spec needs 3.10-3.12" ;;
  esac
fi

if [ -z "${NEL_INVOCATION_ID:-}" ]; then
  NEL_INVOCATION_ID=$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
fi
export NEL_INVOCATION_ID

exec uvx --python "$python_request" --from "$launcher_spec" nel "$@"
