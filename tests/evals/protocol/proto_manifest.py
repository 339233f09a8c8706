"""The scenarios of the agent-effort protocol: their manifests and the prompt each helper gets.

A manifest (scenarios/sN.yaml) holds the scenario's id, its path (one of PATHS), the user's
request, its inputs (repo files copied in, with edits that plant defects, or run
directories generated at layout time), its deliverables under out/, and what the checker
expects. The protocol's own text (the preamble, the last line) is quoted verbatim here:
a prompt that differs from it measures something else.
"""

from __future__ import annotations

from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
SCENARIOS = HERE / "scenarios"

PATHS = {
    "setup-128k": "set up MRCR 128k",
    "setup-1m": "set up MRCR 1M",
    "review": "review a config",
    "running": "a run in progress",
    "gate": "a finished pair for a release gate",
}

PREAMBLE = (
    "You are acting as an AI coding agent that has an agent skill installed. Work ONLY "
    "inside {ROOT} (read nothing outside {ROOT}, do not use any web/search tools, and do "
    "not look at other scenario folders). The skill is at {ROOT}/skills/evaluation "
    "(SKILL_DIR={ROOT}/skills/evaluation); sibling skills it references, if any, are in "
    "{ROOT}/skills/. Read its SKILL.md first and follow its instructions as a careful agent "
    "would (read what it points you to; run the tools it ships when it says to)."
)
LAST_LINE = (
    "Also state in your final message: how many tool calls you made in total, and the "
    "list of files under the skill directory that you opened."
)


def load(ids: list[str] | None = None) -> list[dict]:
    """Every manifest, in id order (s1, s2, ... s10), or only those named."""
    found = {}
    for path in SCENARIOS.glob("*.yaml"):
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
        if doc["id"] != path.stem:
            raise ValueError(f"{path}: id {doc['id']!r} is not the file name")
        if doc["path"] not in PATHS:
            raise ValueError(f"{path}: unknown path {doc['path']!r}")
        found[doc["id"]] = doc
    if ids:
        unknown = sorted(set(ids) - set(found))
        if unknown:
            raise ValueError(f"unknown scenario(s): {', '.join(unknown)}")
        found = {k: v for k, v in found.items() if k in ids}
    return [found[k] for k in sorted(found, key=lambda s: int(s[1:]))]


def input_names(manifest: dict) -> list[str]:
    """What the scenario folder holds besides out/, as the prompt lists it."""
    names = [item["to"] for item in manifest.get("inputs", [])]
    names += [f"{run['dest']}/" for run in manifest.get("runs", [])]
    return names


def prompt(manifest: dict, root: Path) -> str:
    """The exact prompt: preamble, the request in quotes, the constraints, the last line."""
    folder = root / manifest["id"]
    request = manifest["request"].strip()
    listing = "\n".join(f"- {folder}/{name}" for name in input_names(manifest))
    outs = ", ".join(f"{folder}/{name}" for name in manifest["deliverables"])
    constraints = (
        "Constraints: there is no cluster and no internet access here. Do not launch, "
        "submit or cancel any job; where the answer is a command, write it down instead of "
        f"running it against a cluster. Install Python packages with pip only under "
        f"{folder} (for example a virtual environment in {folder}/.venv), and keep caches "
        f"there too (XDG_CACHE_HOME={folder}/.cache if a tool needs one).\n"
        f"The files the user attached are in {folder}:\n{listing}\n"
        f"Deliverables: {outs} (create {folder}/out/), in exactly the format the request "
        "asks for."
    )
    return (
        PREAMBLE.replace("{ROOT}", str(root))
        + "\n\nThe user's request:\n\""
        + request
        + '"\n\n'
        + constraints
        + "\n\n"
        + LAST_LINE
        + "\n"
    )
