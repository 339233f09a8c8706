"""Write tools/evalkit/data/nel-0.1-task-resolutions.yaml (the harness each bare task name
resolved to under the launcher 0.1.x, for the names 0.2.6 finds ambiguous) and
tools/evalkit/data/nel-task-history.yaml (task names older launchers knew and 0.2.6 does
not: the image each last ran in and the 0.2.6 tasks running the same container task).

    python tools/dev/gen_task_history.py                # pip-downloads the wheels
    python tools/dev/gen_task_history.py --wheels DIR   # wheels already downloaded

A config written for 0.1.x that says `ifeval` ran the one task of that name its launcher
knew; 0.2.6 knows several and stops ("there are multiple tasks named ..."). Each 0.1.x
wheel carries its task registry: resources/all_tasks_irs.yaml (a `tasks:` list of
`name`/`harness`) where present, else resources/mapping.toml
(`[<harness>.tasks.<endpoint type>.<task>]`); a bare name resolves when exactly one
harness has it (common/mapping.py `get_task_from_mapping` in every one of them). A name
is written only when every sampled version that resolved it chose the same harness, and
that harness's task is one of 0.2.6's candidates; the versions are listed with it.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import tomllib
import yaml

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "tools" / "evalkit" / "data" / "nel-0.1-task-resolutions.yaml"
HISTORY = REPO / "tools" / "evalkit" / "data" / "nel-task-history.yaml"
CATALOG = REPO / "tools" / "evalkit" / "data" / "nel-0.2.6-tasks.yaml"
# A sample across the 0.1.x line (every release would be ~100 downloads of one package).
VERSIONS = (
    "0.1.0", "0.1.5", "0.1.10", "0.1.15", "0.1.20", "0.1.30", "0.1.40",
    "0.1.50", "0.1.60", "0.1.70", "0.1.80", "0.1.93",
)  # fmt: skip
# The later releases the history reads too, and the release whose registry is "now".
LATER = ("0.2.0", "0.2.3", "0.2.5")
CURRENT = "0.2.6"
PACKAGE = "nemo-evaluator-launcher"
RESOURCES = "nemo_evaluator_launcher/resources/"


def download(version: str, into: Path) -> Path:
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "-q", "--no-deps", f"{PACKAGE}=={version}",
         "-d", str(into)],
        check=True,
    )  # fmt: skip
    return wheel_of(version, into)


def wheel_of(version: str, folder: Path) -> Path:
    found = sorted(folder.glob(f"nemo_evaluator_launcher-{version}-*.whl"))
    if not found:
        raise SystemExit(f"no wheel of {PACKAGE} {version} in {folder}")
    return found[0]


def registry(wheel: Path) -> set[tuple[str, str]]:
    """(harness, task) pairs the wheel's launcher looks bare names up in."""
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        if RESOURCES + "all_tasks_irs.yaml" in names:
            data = yaml.load(zf.read(RESOURCES + "all_tasks_irs.yaml"), Loader=yaml.CSafeLoader)
            return {(t["harness"], t["name"]) for t in data.get("tasks") or []}
        data = tomllib.loads(zf.read(RESOURCES + "mapping.toml").decode("utf-8"))
    pairs = set()
    for harness, table in data.items():
        for by_type in (table.get("tasks") or {}).values():
            pairs.update((harness, task) for task in by_type)
    return pairs


def _irs(wheel: Path) -> dict | None:
    with zipfile.ZipFile(wheel) as zf:
        if RESOURCES + "all_tasks_irs.yaml" not in zf.namelist():
            return None
        return yaml.load(zf.read(RESOURCES + "all_tasks_irs.yaml"), Loader=yaml.CSafeLoader)


def containers(wheel: Path) -> dict[str, str]:
    """harness -> the image the wheel's launcher runs its tasks in."""
    irs = _irs(wheel)
    if irs is not None:
        return {h["name"]: h["container"] for h in irs.get("harnesses") or [] if h.get("container")}
    with zipfile.ZipFile(wheel) as zf:
        data = tomllib.loads(zf.read(RESOURCES + "mapping.toml").decode("utf-8"))
    return {h: t["container"] for h, t in data.items() if isinstance(t, dict) and "container" in t}


def definitions(wheel: Path) -> dict[tuple[str, str], dict]:
    """(harness, task) -> {task: the container-side task, types: endpoint types}, from the
    IRs (wheels with only mapping.toml carry neither)."""
    out = {}
    for t in (_irs(wheel) or {}).get("tasks") or []:
        config = (t.get("defaults") or {}).get("config") or {}
        out[(t["harness"], t["name"])] = {
            "task": (config.get("params") or {}).get("task"),
            "types": list(config.get("supported_endpoint_types") or []),
        }
    return out


def history(wheels: dict[str, Path], current: Path) -> dict:
    """Names older registries had that `current` has under no harness, and the endpoint
    types of `current`'s candidates for every name it finds ambiguous."""
    now = definitions(current)
    now_names = {t for _, t in now}
    gone: dict[str, dict] = {}
    for version, wheel in wheels.items():  # oldest first: the last listing wins
        images, defs = containers(wheel), definitions(wheel)
        for harness, task in registry(wheel):
            if task in now_names:
                continue
            entry = gone.setdefault(task, {"harnesses": {}})
            seen = entry["harnesses"].setdefault(harness, {"versions": []})
            seen["versions"].append(version)
            seen["container"] = images.get(harness)
            if (harness, task) in defs:
                seen["container_task"] = defs[(harness, task)]["task"]
    for entry in gone.values():
        for harness, seen in entry["harnesses"].items():
            inner = seen.pop("container_task", None)
            successors: dict[str, list[str]] = {}
            for (h, t), d in sorted(now.items()):
                if h == harness and inner and d["task"] == inner:
                    for kind in d["types"]:
                        successors.setdefault(kind, []).append(f"{h}.{t}")
            seen["successors"] = successors
    by_task: dict[str, dict[str, list[str]]] = {}
    for (h, t), d in sorted(now.items()):
        by_task.setdefault(t, {})[f"{h}.{t}"] = d["types"]
    ambiguous = {t: c for t, c in by_task.items() if len(c) > 1}
    return {"gone": dict(sorted(gone.items())), "endpoint_types": ambiguous}


def ambiguous_now() -> dict[str, list[str]]:
    """Bare names 0.2.6 stops on, with its candidates."""
    raw = yaml.safe_load(CATALOG.read_text(encoding="utf-8"))["harnesses"]
    by_task: dict[str, list[str]] = {}
    for harness, entry in raw.items():
        for task in entry["tasks"]:
            by_task.setdefault(task, []).append(f"{harness}.{task}")
    return {task: sorted(c) for task, c in by_task.items() if len(c) > 1}


def resolutions(wheels: dict[str, Path]) -> dict[str, dict]:
    now = ambiguous_now()
    seen: dict[str, dict[str, list[str]]] = {}  # task -> qualified -> versions
    for version, wheel in wheels.items():
        pairs = registry(wheel)
        for task in now:
            owners = [h for h, t in pairs if t == task]
            if len(owners) == 1:
                seen.setdefault(task, {}).setdefault(f"{owners[0]}.{task}", []).append(version)
    out = {}
    for task, choices in sorted(seen.items()):
        if len(choices) == 1:
            ((qualified, versions),) = choices.items()
            if qualified in now[task]:
                out[task] = {"qualified": qualified, "versions": versions}
    return out


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--wheels", type=Path, help="folder with the wheels already downloaded")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.wheels or Path(tmp)
        get = (lambda v: wheel_of(v, folder)) if args.wheels else (lambda v: download(v, folder))
        found = resolutions({v: get(v) for v in VERSIONS})
        past = history({v: get(v) for v in VERSIONS + LATER}, get(CURRENT))
    header = (
        "# The harness each bare task name resolved to under nemo-evaluator-launcher 0.1.x,\n"
        '# for the names 0.2.6 finds ambiguous ("there are multiple tasks named ...").\n'
        "# Read from the task registries of the 0.1.x wheels listed (resources/\n"
        "# all_tasks_irs.yaml or resources/mapping.toml); a name is here only when every\n"
        "# listed version that resolved it chose the same harness. Generated by\n"
        "# tools/dev/gen_task_history.py; do not edit.\n"
    )
    body = {"sampled_versions": list(VERSIONS), "names": found}
    OUT.write_text(
        header + yaml.safe_dump(body, sort_keys=False, width=100, default_flow_style=None),
        encoding="utf-8",
    )
    header = (
        "# Task names the registries of older nemo-evaluator-launcher releases had and 0.2.6's\n"
        "# has under no harness (`gone`: per harness, the releases that listed it, the image\n"
        "# the last of them ran it in, and the 0.2.6 tasks of that harness running the same\n"
        "# container task, by endpoint type), and the endpoint types each 0.2.6 candidate of\n"
        "# an ambiguous name supports. Read from the wheels' resources/all_tasks_irs.yaml or\n"
        "# mapping.toml by tools/dev/gen_task_history.py; do not edit.\n"
    )
    body = {"sampled_versions": list(VERSIONS + LATER), "current": CURRENT, **past}
    HISTORY.write_text(
        header + yaml.safe_dump(body, sort_keys=False, width=100, default_flow_style=None),
        encoding="utf-8",
    )
    print(f"wrote {OUT.relative_to(REPO)}: {len(found)} names")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
