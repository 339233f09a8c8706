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
# Unset, an installed Python 3.12 that runs (python3.12 on PATH, else a pyenv 3.12.x) is
# used before uv would download one: a pyenv shim of an inactive version does not run.
#
# Without uv, the wrapper builds the same release once into a venv of its own
# (${EVALKIT_HOME:-${XDG_CACHE_HOME:-~/.cache}/evalkit}/nel-gym-VERSION-pyX.Y) from an
# installed Python 3.10-3.12, and runs `nel` from there.
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

Where uv cannot download Python $launcher_python (no internet), an installed 3.12 is
found on PATH or through pyenv; or name one: NEL_GYM_PYTHON=/usr/bin/python3.11 (Python
3.10-3.12, the versions the launcher supports). It picks the interpreter, never the release.
Without uv, the release is installed once with pip into a venv under
\${EVALKIT_HOME:-\${XDG_CACHE_HOME:-~/.cache}/evalkit} (needs the package index).

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

die() {
  echo "nel-gym.sh: error: $*" >&2
  exit 2
}

# Prints "MAJOR.MINOR" when $1 runs as a Python the launcher supports; fails otherwise.
supported_version() {
  local version
  version=$("$1" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null) || return 1
  case "$version" in
    3.10 | 3.11 | 3.12) echo "$version" ;;
    *) return 1 ;;
  esac
}

# An installed interpreter of the wanted minor version (3.12 by default) that really runs.
find_installed() {
  local minor=$1 candidate root bare
  candidate=$(command -v "python$minor" 2>/dev/null) &&
    [ "$(supported_version "$candidate")" = "$minor" ] && {
    echo "$candidate"
    return 0
  }
  if command -v pyenv >/dev/null 2>&1; then
    root=$(pyenv root 2>/dev/null) || return 1
    while read -r bare; do
      case "$bare" in "$minor".*) ;; *) continue ;; esac
      candidate="$root/versions/$bare/bin/python$minor"
      [ "$(supported_version "$candidate")" = "$minor" ] && {
        echo "$candidate"
        return 0
      }
    done < <(pyenv versions --bare 2>/dev/null)
  fi
  return 1
}

interpreter=""
if [ -n "${NEL_GYM_PYTHON:-}" ]; then
  interpreter=$(command -v -- "$NEL_GYM_PYTHON" 2>/dev/null) ||
    die "NEL_GYM_PYTHON=$NEL_GYM_PYTHON is not an interpreter on this machine (give a path)"
  version=$("$interpreter" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null) ||
    die "NEL_GYM_PYTHON=$NEL_GYM_PYTHON does not run as Python"
  case "$version" in
    3.10 | 3.11 | 3.12) ;;
    *) die "NEL_GYM_PYTHON=$NEL_GYM_PYTHON is Python $version; $launcher_spec needs 3.10-3.12" ;;
  esac
else
  interpreter=$(find_installed "$launcher_python") || interpreter=""
fi

# The caller's NEL_INVOCATION_ID is kept; otherwise a fresh 16-hex id for the launcher.
export_invocation_id() {
  if [ -z "${NEL_INVOCATION_ID:-}" ]; then
    NEL_INVOCATION_ID=$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
  fi
  export NEL_INVOCATION_ID
}

if ! command -v uvx >/dev/null 2>&1; then
  # No uv: the same pinned release from a venv of our own, built once with pip.
  if [ -z "$interpreter" ]; then
    interpreter=$(find_installed 3.11 || find_installed 3.10) ||
      die "uvx not found and no Python 3.10-3.12 on PATH or in pyenv: install uv (pip install uv) or set NEL_GYM_PYTHON to a Python 3.10-3.12"
  fi
  version=$(supported_version "$interpreter")
  cache=${EVALKIT_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/evalkit}
  venv="$cache/nel-gym-$launcher_version-py$version"
  # Built in place (a venv's scripts name their own path, so it cannot be moved) and
  # marked complete by a stamp written last; a lock keeps two callers from building at once.
  if [ "$(cat "$venv/.nel-gym-spec" 2>/dev/null)" != "$launcher_spec" ]; then
    mkdir -p "$cache" || die "cannot create $cache (set EVALKIT_HOME to a writable directory)"
    exec 9>"$venv.lock" || die "cannot write $venv.lock (set EVALKIT_HOME to a writable directory)"
    if command -v flock >/dev/null 2>&1; then flock 9; fi
    if [ "$(cat "$venv/.nel-gym-spec" 2>/dev/null)" != "$launcher_spec" ]; then
      echo "nel-gym.sh: uvx not found; installing $launcher_spec into $venv once (about a minute)" >&2
      rm -rf "$venv"
      "$interpreter" -m venv "$venv" || die "$interpreter could not create a venv in $venv"
      "$venv/bin/python" -m pip install --quiet "$launcher_spec" >&2 ||
        die "pip could not install $launcher_spec (is the package index reachable? set PIP_INDEX_URL for a mirror)"
      echo "$launcher_spec" >"$venv/.nel-gym-spec"
    fi
    exec 9>&-
  fi
  export_invocation_id
  exec "$venv/bin/nel" "$@"
fi

python_request=${interpreter:-$launcher_python}
export_invocation_id
exec uvx --python "$python_request" --from "$launcher_spec" nel "$@"
