#!/usr/bin/env bash
# Build a git-backed NeMo Gym image: a public Gym image whose /opt/Gym becomes a git
# checkout at the pinned commit, so the gym bootstrap's pin can apply. The image's own
# virtual environments (/opt/Gym/.venv and any per-server .venv) are kept as they are.
#
# MRCR always needs such an image; GDPVal needs one only to run at its pin (on a public
# image it runs the baked-in Gym and logs which). See references/gym.md.
set -euo pipefail

# The pins the shipped templates use (tests check that they agree).
MRCR_PIN=a431501aa294f3237d472aaf58dd1e5026156ea8
GDPVAL_PIN=dd41196f620f2af99947d776cbe5da9439d2a08d
DEFAULT_BASE=nvcr.io/nvidia/eval-factory/nemo-gym:26.05
GYM_URL=https://github.com/NVIDIA-NeMo/Gym

usage() {
  cat <<'EOF'
Usage: build-gym-image.sh [--task mrcr|gdpval | --commit SHA] [--base IMAGE] [--tag NAME]
                          [--engine docker|podman] [--sqsh FILE] [--push] [--dry-run]
       build-gym-image.sh --check IMAGE|FILE.sqsh [--task mrcr|gdpval | --commit SHA]

Build a Gym image whose /opt/Gym is a git checkout at the pinned commit, verify it, and
print the reference to put in the config's `container:`.

Options:
  --task T       take the pin from the shipped template: mrcr (default) or gdpval
  --commit SHA   pin a full 40-hex commit of NVIDIA-NeMo/Gym instead
  --base IMAGE   the public Gym image to start from (default: nvcr.io/nvidia/eval-factory/nemo-gym:26.05)
  --tag NAME     name of the built image (default: nemo-gym-git:<first 12 hex of the pin>)
  --engine E     docker or podman (default: docker if present, else podman)
  --sqsh FILE    also write an enroot squashfs file (for SLURM with pyxis) with `enroot import`
  --push         push --tag to its registry after the build (the tag must name one)
  --check REF    only verify an existing image or .sqsh file: /opt/Gym HEAD must equal the pin
  --dry-run      print the Dockerfile and every command, run nothing
  -h, --help     this text

Examples:
  scripts/build-gym-image.sh --task mrcr --sqsh /lustre/images/nemo-gym-mrcr.sqsh
  scripts/build-gym-image.sh --task gdpval --tag registry.example/me/nemo-gym:gdpval --push
  scripts/build-gym-image.sh --check /lustre/images/nemo-gym-mrcr.sqsh
EOF
}

die() {
  echo "build-gym-image.sh: $*" >&2
  exit 2
}

task=mrcr commit='' base=$DEFAULT_BASE tag='' engine='' sqsh='' push=0 check='' dry_run=0
while [ $# -gt 0 ]; do
  case $1 in
    --task) task=${2:?--task needs a value}; shift 2 ;;
    --commit) commit=${2:?--commit needs a value}; shift 2 ;;
    --base) base=${2:?--base needs a value}; shift 2 ;;
    --tag) tag=${2:?--tag needs a value}; shift 2 ;;
    --engine) engine=${2:?--engine needs a value}; shift 2 ;;
    --sqsh) sqsh=${2:?--sqsh needs a value}; shift 2 ;;
    --push) push=1; shift ;;
    --check) check=${2:?--check needs a value}; shift 2 ;;
    --dry-run) dry_run=1; shift ;;
    -h | --help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument: $1" ;;
  esac
done

if [ -z "$commit" ]; then
  case $task in
    mrcr) commit=$MRCR_PIN ;;
    gdpval) commit=$GDPVAL_PIN ;;
    *) die "--task must be mrcr or gdpval, got '$task'" ;;
  esac
fi
printf '%s\n' "$commit" | grep -Eq '^[0-9a-f]{40}$' \
  || die "--commit must be a full 40-hex SHA (the bootstrap refuses anything else), got '$commit'"
[ -n "$tag" ] || tag="nemo-gym-git:${commit:0:12}"

if [ -z "$engine" ]; then
  if command -v docker >/dev/null 2>&1; then engine=docker
  elif command -v podman >/dev/null 2>&1; then engine=podman
  elif [ "$dry_run" = 1 ]; then engine=docker
  else die "neither docker nor podman found; pass --engine"
  fi
fi
case $engine in docker | podman) ;; *) die "--engine must be docker or podman, got '$engine'" ;; esac

# Print a command, and run it unless this is a dry run.
step() {
  printf '+ %s\n' "$*"
  if [ "$dry_run" = 0 ]; then "$@"; fi
}

# HEAD of /opt/Gym inside an image or a squashfs file (a detached HEAD holds the SHA).
gym_head() {
  local ref=$1
  case $ref in
    *.sqsh | *.squashfs)
      command -v unsquashfs >/dev/null 2>&1 || die "unsquashfs (squashfs-tools) is needed to check $ref"
      unsquashfs -cat "$ref" opt/Gym/.git/HEAD
      ;;
    *) "$engine" run --rm --entrypoint git "$ref" -C /opt/Gym rev-parse HEAD ;;
  esac
}

verify() {
  local ref=$1 head
  echo "+ verify: /opt/Gym HEAD in $ref must be $commit"
  [ "$dry_run" = 1 ] && return 0
  head=$(gym_head "$ref" | tr -d '[:space:]') || head=''
  if [ "$head" != "$commit" ]; then
    echo "build-gym-image.sh: $ref has /opt/Gym at '${head:-no git checkout}', not $commit" >&2
    return 1
  fi
  echo "ok: $ref has /opt/Gym at $commit"
}

if [ -n "$check" ]; then
  verify "$check"
  exit $?
fi

context=$(mktemp -d)
trap 'rm -rf "$context"' EXIT
# Turning /opt/Gym into a checkout in place: `git checkout -f` replaces the tracked files
# with the pinned ones and leaves untracked ones (the .venv directories) alone.
cat > "$context/Dockerfile" <<'EOF'
ARG BASE
FROM ${BASE}
ARG GYM_URL
ARG GYM_COMMIT
RUN set -eux; \
    if ! command -v git >/dev/null 2>&1; then \
      apt-get update && apt-get install -y --no-install-recommends git ca-certificates \
      && rm -rf /var/lib/apt/lists/*; \
    fi; \
    cd /opt/Gym; \
    git init -q; \
    git fetch -q --depth 1 "$GYM_URL" "$GYM_COMMIT"; \
    git checkout -q -f "$GYM_COMMIT"; \
    test "$(git rev-parse HEAD)" = "$GYM_COMMIT"
LABEL org.opencontainers.image.source="https://github.com/NVIDIA-NeMo/Gym" \
      org.opencontainers.image.revision="$GYM_COMMIT"
EOF
if [ "$dry_run" = 1 ]; then
  echo "# Dockerfile"
  sed 's/^/    /' "$context/Dockerfile"
fi

step "$engine" build --build-arg "BASE=$base" --build-arg "GYM_URL=$GYM_URL" \
  --build-arg "GYM_COMMIT=$commit" -t "$tag" "$context"
verify "$tag"
reference=$tag
if [ "$push" = 1 ]; then
  step "$engine" push "$tag"
fi
if [ -n "$sqsh" ]; then
  command -v enroot >/dev/null 2>&1 || [ "$dry_run" = 1 ] || die "--sqsh needs enroot on PATH"
  # enroot imports straight from the local engine's image store.
  if [ "$engine" = docker ]; then source_uri="dockerd://$tag"; else source_uri="podman://$tag"; fi
  step enroot import -o "$sqsh" "$source_uri"
  verify "$sqsh"
  reference=$sqsh
fi
echo "container: $reference"
