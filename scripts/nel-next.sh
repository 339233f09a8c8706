#!/usr/bin/env bash
# Run nel-next (nemo-evaluator with the harbor extra) from its own uv-managed virtual
# environment, so the nel 0.2.6 launcher elsewhere on PATH is never replaced or called.
set -euo pipefail

readonly PINNED_COMMIT=4d081325170aababd0c8f27c58bed31a81ce82ac
readonly DEFAULT_ORIGIN=https://github.com/NVIDIA-NeMo/Evaluator.git
readonly EXTRAS='harbor,export'

origin=${NEL_NEXT_ORIGIN:-$DEFAULT_ORIGIN}
spec=${NEL_NEXT_SPEC:-"nemo-evaluator[$EXTRAS] @ git+$origin@$PINNED_COMMIT"}
env_home=${NEL_NEXT_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/evalkit/nel-next}
venv=$env_home/venv
env_nel=$venv/bin/nel
env_python=$venv/bin/python
spec_stamp=$venv/.evalkit-spec
# Use an installed interpreter; never let uv fetch one (login nodes often cannot).
export UV_PYTHON_DOWNLOADS=never

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

  --setup-only   create or update the environment, then exit
  --which        print the path of the nel inside the environment (never installs)
  --version      print the installed nemo-evaluator version and the spec (never installs)
  mlflow-push    copy a finished SLURM run directory (merged results; logs when
                 copy_logs is true) from the cluster and export it with
                 'nel export --dest mlflow' (traces off); reads cluster.hostname/username,
                 output.dir and output.export_config.mlflow

Environment:
  NEL_NEXT_ORIGIN  a git mirror of NVIDIA-NeMo/Evaluator holding commit $PINNED_COMMIT
  NEL_NEXT_SPEC    any other pip spec, e.g. a local wheel
                   '/path/nemo_evaluator-X-py3-none-any.whl[$EXTRAS]'
                   (record it with the scores; leave unset for scored runs)
  NEL_NEXT_PYTHON  a Python 3.12 or 3.13 (default: python3.12, python3.13, python3 on PATH)
  NEL_NEXT_HOME    where the environment lives
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

require_env() {
  env_is_current || die "environment not set up for this spec; run: $prog --setup-only"
}

# nemo-evaluator needs Python >=3.12,<3.14.
python_fits() {
  "$1" -c 'import sys; sys.exit(not (3, 12) <= sys.version_info[:2] < (3, 14))' >/dev/null 2>&1
}

find_python() {
  if [ -n "${NEL_NEXT_PYTHON:-}" ]; then
    python_fits "$NEL_NEXT_PYTHON" \
      || die "NEL_NEXT_PYTHON=$NEL_NEXT_PYTHON is not a working Python 3.12 or 3.13"
    printf '%s\n' "$NEL_NEXT_PYTHON"
    return
  fi
  local candidate
  for candidate in python3.12 python3.13 python3; do
    if command -v "$candidate" >/dev/null 2>&1 && python_fits "$candidate"; then
      command -v "$candidate"
      return
    fi
  done
  # A pyenv shim of an inactive version does not run: look in pyenv's own versions.
  local root bare
  if command -v pyenv >/dev/null 2>&1 && root=$(pyenv root 2>/dev/null); then
    while read -r bare; do
      for candidate in "$root/versions/$bare/bin/python3.12" "$root/versions/$bare/bin/python3.13"; do
        if [ -x "$candidate" ] && python_fits "$candidate"; then
          printf '%s\n' "$candidate"
          return
        fi
      done
    done < <(pyenv versions --bare 2>/dev/null)
  fi
  die "no Python 3.12 or 3.13 on PATH (uv may not download one here): install one, or set NEL_NEXT_PYTHON=/path/to/python3.12"
}

way_out="set NEL_NEXT_ORIGIN to a git mirror holding $PINNED_COMMIT, or NEL_NEXT_SPEC to a local wheel ('/path/nemo_evaluator-X.whl[$EXTRAS]') or an index release ('nemo-evaluator[$EXTRAS]==0.3.0', which lacks proxy.model_traffic)"

# A git spec's repository URL, or nothing for wheels and index releases.
spec_git_url() {
  case $spec in
    *git+*)
      local url=${spec#*git+}
      printf '%s\n' "${url%@*}"
      ;;
  esac
}

check_origin() {
  local url
  url=$(spec_git_url)
  [ -n "$url" ] || return 0
  command -v git >/dev/null 2>&1 \
    || die "git is not on PATH but the spec installs from $url: install git, or $way_out"
  GIT_TERMINAL_PROMPT=0 timeout "${NEL_NEXT_GIT_TIMEOUT:-30}" git ls-remote "$url" HEAD >/dev/null 2>&1 \
    || die "cannot reach $url (git ls-remote failed): $way_out"
}

ensure_env() {
  env_is_current && return 0
  command -v uv >/dev/null 2>&1 \
    || die "uv is not on PATH: install it ('pip install uv' from your package index) and retry"
  local python
  python=$(find_python) || exit 1
  check_origin
  echo "$prog: installing $spec into $venv (Python: $python)" >&2
  mkdir -p "$env_home"
  if [ -d "$venv" ]; then
    rm -rf -- "$venv"
  fi
  local log=$env_home/install.log
  uv venv --quiet --python "$python" "$venv" >"$log" 2>&1 \
    || die "uv could not create $venv with $python: $(tail -n 1 "$log")"
  uv pip install --quiet --python "$env_python" "$spec" >"$log" 2>&1 \
    || die "could not install $spec: $(grep -v '^[[:space:]]*$' "$log" | tail -n 1) (full output: $log); $way_out"
  [ -x "$env_nel" ] || die "installation finished but $env_nel is missing"
  printf '%s\n' "$spec" >"$spec_stamp"
}

# Print host, user, output dir, tracking URI, copy_logs, then tagged lines:
# "exclude<TAB>pattern" and "opt<TAB>key=value" (one exporter override each).
read_push_settings() {
  "$env_python" - "$1" <<'PY'
import json
import os
import re
import sys

import yaml

# nel-next's own grammar (config/eval_config.py, _ENV_RE and _expand_env): ${VAR} and
# ${VAR:-default} from the shell, $${ escapes; no OmegaConf resolvers such as oc.env.
ref = re.compile(r"\$\{(\w+)(?::-(.*?))?\}")
escape = "\x00esc\x00"


def expand(value):
    if not isinstance(value, str):
        return value

    def one(match):
        # Set (even to "") wins, then the default; neither stops the load, as in nel-next.
        name, default = match.group(1), match.group(2)
        if name in os.environ:
            return os.environ[name]
        if default is not None:
            return default
        print(
            f"nel-next.sh: error: ${{{name}}} is not set and has no default "
            f"(export it, or write ${{{name}:-default}})",
            file=sys.stderr,
        )
        sys.exit(2)

    protected = value.replace("$${", escape)
    return ref.sub(one, protected).replace(escape, "${")


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
if "${" in user:
    fail(f"{sys.argv[1]}: cluster.username {user!r} is not a shell variable nel-next expands")
print(host)
print(user)
print(out_dir)
print(uri)
print("true" if mlflow.get("copy_logs") is True else "false")
for pattern in mlflow.get("exclude_patterns") or []:
    print(f"exclude\t{pattern}")
for key, value in mlflow.items():
    value = expand(value)
    text = value if isinstance(value, str) else json.dumps(value)
    print(f"opt\t{key}={text}")
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
  local host=${lines[0]} user=${lines[1]} out_dir=${lines[2]} uri=${lines[3]} copy_logs=${lines[4]}
  [ -n "$uri" ] || usage_error "no MLflow tracking URI: set MLFLOW_TRACKING_URI (or output.export_config.mlflow.tracking_uri in $config)"
  local remote=$host
  [ -z "$user" ] || remote=$user@$host

  local -a excludes=(--exclude='shard_*') opts=()
  local line
  for line in "${lines[@]:5}"; do
    case $line in
      exclude$'\t'*) excludes+=(--exclude="${line#exclude$'\t'}") ;;
      opt$'\t'*) opts+=(-o "${line#opt$'\t'}") ;;
    esac
  done

  # Merged bundles sit at RUN_DIR/BENCH/eval-*.json; shard_* copies would count twice.
  local found
  # shellcheck disable=SC2029  # out_dir and run_id are meant to expand on this side
  found=$(ssh "$remote" "find '$out_dir' -path '*$run_id*' -name 'eval-*.json' ! -path '*shard_*'")
  [ -n "$found" ] || die "no merged eval-*.json for run $run_id under $remote:$out_dir"
  local -a bench_dirs
  mapfile -t bench_dirs < <(printf '%s\n' "$found" | xargs -n1 dirname | sort -u)
  local run_dir
  run_dir=$(printf '%s\n' "${bench_dirs[@]}" | xargs -n1 dirname | sort -u)
  [ "$(printf '%s\n' "$run_dir" | wc -l)" -eq 1 ] \
    || die "run $run_id matches more than one run directory under $remote:$out_dir: $(echo "$run_dir" | tr '\n' ' ')"

  # nel export looks for eval-*.json one directory below the path it gets, and for
  # copy_logs in PATH/logs: the stage mirrors the run directory.
  local stage=$env_home/runs/$run_id
  rm -rf -- "$stage"
  mkdir -p "$stage"
  local dir
  for dir in "${bench_dirs[@]}"; do
    rsync -a "${excludes[@]}" "$remote:$dir/" "$stage/$(basename "$dir")/"
  done
  if [ "$copy_logs" = true ]; then
    rsync -a "${excludes[@]}" "$remote:$run_dir/logs/" "$stage/logs/" \
      || echo "$prog: no logs copied from $remote:$run_dir/logs" >&2
  fi
  echo "$prog: staged $run_dir in $stage" >&2

  exec "$env_nel" export "$stage" --dest mlflow -o "tracking_uri=$uri" "${opts[@]}" \
    -o emit_traces=false "$@"
}

main() {
  if [ $# -eq 0 ]; then
    usage >&2
    exit 2
  fi
  case $1 in
    -h | --help) usage ;;
    --setup-only) ensure_env; echo "$prog: ready: $env_nel" >&2 ;;
    --which) require_env; printf '%s\n' "$env_nel" ;;
    --version)
      require_env
      printf 'nemo-evaluator %s\nspec: %s\nenv: %s\n' \
        "$("$env_python" -c 'import importlib.metadata as m; print(m.version("nemo-evaluator"))')" \
        "$spec" "$venv"
      ;;
    mlflow-push) shift; mlflow_push "$@" ;;
    *) ensure_env; exec "$env_nel" "$@" ;;
  esac
}

main "$@"
