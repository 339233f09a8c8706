#!/usr/bin/env bash
# Run nel-next (nemo-evaluator with the harbor extra) from its own uv-managed virtual
# environment, so the nel 0.2.6 launcher elsewhere on PATH is never replaced or called.
set -euo pipefail

readonly PINNED_SPEC='nemo-evaluator[harbor,export] @ git+https://github.com/NVIDIA-NeMo/Evaluator.git@4d081325170aababd0c8f27c58bed31a81ce82ac'
readonly PYTHON_VERSION=3.12   # nemo-evaluator needs >=3.12,<3.14

spec=${NEL_NEXT_SPEC:-$PINNED_SPEC}
env_home=${NEL_NEXT_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/evalkit/nel-next}
venv=$env_home/venv
env_nel=$venv/bin/nel
env_python=$venv/bin/python
spec_stamp=$venv/.evalkit-spec

prog=$(basename "$0")

usage() {
  cat <<EOF
usage: $prog [--setup-only | --which | --version | --help]
       $prog eval run CONFIG [--dry-run | --submit] [-O key=value ...]
       $prog mlflow-push -r RUN_ID -c CONFIG [-- EXPORT_ARGS...]
       $prog ANY NEL-NEXT ARGUMENTS

Runs nel-next from a private environment in:
  $venv
installed from:
  $spec
(set NEL_NEXT_SPEC only to test another build; NEL_NEXT_HOME moves the environment).

  --setup-only   create or update the environment, then exit
  --which        print the path of the nel inside the environment
  --version      print the installed nemo-evaluator version and the spec
  mlflow-push    copy a finished SLURM run's merged eval-*.json files from the cluster
                 and export them with 'nel export --dest mlflow' (traces off); reads
                 cluster.hostname/username, output.dir and output.export_config.mlflow
Other arguments go unchanged to that environment's nel.
EOF
}

die() {
  echo "$prog: $*" >&2
  exit "${EXIT_CODE:-1}"
}

usage_error() {
  EXIT_CODE=2 die "$*"
}

env_is_current() {
  [ -x "$env_nel" ] && [ -f "$spec_stamp" ] && [ "$(cat "$spec_stamp")" = "$spec" ]
}

ensure_env() {
  env_is_current && return 0
  command -v uv >/dev/null 2>&1 || die "uv is required on PATH; install uv first"
  echo "$prog: installing $spec into $venv" >&2
  mkdir -p "$env_home"
  if [ -d "$venv" ]; then
    rm -rf -- "$venv"
  fi
  uv venv --quiet --python "$PYTHON_VERSION" "$venv" >&2
  uv pip install --quiet --python "$env_python" "$spec" >&2
  [ -x "$env_nel" ] || die "installation finished but $env_nel is missing"
  printf '%s\n' "$spec" >"$spec_stamp"
}

# Print host, user, output dir, tracking URI, then one exporter override per line.
read_push_settings() {
  "$env_python" - "$1" <<'PY'
import json
import os
import re
import sys

import yaml

ref = re.compile(r"\$\{(?:oc\.env:)?([A-Za-z_][A-Za-z0-9_]*)(?:(?::-|,)([^}]*))?\}")


def expand(value):
    if not isinstance(value, str):
        return value
    return ref.sub(lambda m: os.environ.get(m.group(1)) or (m.group(2) or ""), value)


def fail(message):
    print(message, file=sys.stderr)
    sys.exit(2)


try:
    with open(sys.argv[1], encoding="utf-8") as handle:
        config = yaml.safe_load(handle)
except (OSError, yaml.YAMLError) as exc:
    fail(f"cannot read {sys.argv[1]}: {exc}")
if not isinstance(config, dict):
    fail(f"{sys.argv[1]}: not a mapping")
cluster = config.get("cluster") or {}
output = config.get("output") or {}
mlflow = dict((output.get("export_config") or {}).get("mlflow") or {})
host = expand(cluster.get("hostname") or "")
user = expand(cluster.get("username") or "")
out_dir = expand(output.get("dir") or "")
uri = expand(mlflow.pop("tracking_uri", "") or "")
for name, value in (("cluster.hostname", host), ("output.dir", out_dir)):
    if not value or value == "???":
        fail(f"{sys.argv[1]}: {name} is not set")
print(host)
print(user)
print(out_dir)
print(uri)
for key, value in mlflow.items():
    value = expand(value)
    text = value if isinstance(value, str) else json.dumps(value)
    print(f"{key}={text}")
PY
}

mlflow_push() {
  local run_id="" config=""
  while [ $# -gt 0 ]; do
    case $1 in
      -r | --run-id) [ $# -ge 2 ] || usage_error "$1 needs a value"; run_id=$2; shift 2 ;;
      -c | --config) [ $# -ge 2 ] || usage_error "$1 needs a value"; config=$2; shift 2 ;;
      --) shift; break ;;
      *) usage_error "mlflow-push: unknown argument '$1' (see --help)" ;;
    esac
  done
  [ -n "$run_id" ] && [ -n "$config" ] || usage_error "mlflow-push needs -r RUN_ID and -c CONFIG"
  [ -f "$config" ] || usage_error "mlflow-push: no such config: $config"
  case $run_id in
    *[!A-Za-z0-9._-]*) usage_error "mlflow-push: run id may hold only letters, digits, '.', '_' and '-'" ;;
  esac
  ensure_env

  local settings
  settings=$(read_push_settings "$config") || exit 2
  local -a lines
  mapfile -t lines <<<"$settings"
  local host=${lines[0]} user=${lines[1]} out_dir=${lines[2]} uri=${lines[3]}
  [ -n "$uri" ] || usage_error "no MLflow tracking URI: set MLFLOW_TRACKING_URI (or output.export_config.mlflow.tracking_uri in $config)"
  local remote=$host
  [ -z "$user" ] || remote=$user@$host

  local stage=$env_home/runs/$run_id
  mkdir -p "$stage"
  local list=$stage/.files
  # Merged bundles only: shard_* copies would be exported a second time.
  # shellcheck disable=SC2029  # out_dir and run_id are meant to expand on this side
  ssh "$remote" "find '$out_dir' -path '*$run_id*' -name 'eval-*.json' ! -path '*shard_*'" \
    | sed 's|^/||' >"$list"
  [ -s "$list" ] || die "no merged eval-*.json for run $run_id under $remote:$out_dir"
  rsync -a --files-from="$list" "$remote:/" "$stage/"
  echo "$prog: staged $(wc -l <"$list") file(s) in $stage" >&2

  local -a export_args=(--dest mlflow -o "tracking_uri=$uri")
  local line
  for line in "${lines[@]:4}"; do
    [ -n "$line" ] && export_args+=(-o "$line")
  done
  export_args+=(-o emit_traces=false)
  exec "$env_nel" export "$stage" "${export_args[@]}" "$@"
}

main() {
  if [ $# -eq 0 ]; then
    usage >&2
    exit 2
  fi
  case $1 in
    -h | --help) usage ;;
    --setup-only) ensure_env; echo "$prog: ready: $env_nel" >&2 ;;
    --which)
      env_is_current || die "environment not set up for this spec; run: $prog --setup-only"
      printf '%s\n' "$env_nel"
      ;;
    --version)
      ensure_env
      printf 'nemo-evaluator %s\nspec: %s\nenv: %s\n' \
        "$("$env_python" -c 'import importlib.metadata as m; print(m.version("nemo-evaluator"))')" \
        "$spec" "$venv"
      ;;
    mlflow-push) shift; mlflow_push "$@" ;;
    *) ensure_env; exec "$env_nel" "$@" ;;
  esac
}

main "$@"
