"""What older launchers' task registries say about a name 0.2.6 refuses (data only).

tools/evalkit/data/nel-task-history.yaml is generated from the launcher wheels by
tools/dev/gen_task_history.py: the names 0.2.6's registry no longer has, with the image
the last release that listed each ran it in and the 0.2.6 tasks running the same
container task; and the endpoint types of 0.2.6's candidates for each ambiguous name.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import yaml

RESOURCE = "nel-task-history.yaml"


@lru_cache(maxsize=1)
def history() -> dict:
    text = (Path(__file__).resolve().parents[1] / "data" / RESOURCE).read_text("utf-8")
    return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def gone(name: str) -> dict | None:
    """{harness: {versions, container, successors}} for a name 0.2.6 no longer lists."""
    entry = history()["gone"].get(name)
    return entry["harnesses"] if entry else None


def endpoint_types(name: str) -> dict[str, list[str]]:
    """0.2.6 candidate -> the endpoint types it supports, for an ambiguous name."""
    return history()["endpoint_types"].get(name, {})


def endpoint_type(cfg, task: dict) -> tuple[str | None, str]:
    """The endpoint type the config states for `task`, and where it says so."""
    kind = task.get("endpoint_type")
    if kind in ("chat", "completions"):
        return kind, "its endpoint_type"
    url = cfg.get(("target", "api_endpoint", "url"))
    if cfg.deployment_type == "none" and isinstance(url, str):
        path = url.split("?", 1)[0].rstrip("/")
        if path.endswith("/chat/completions"):
            return "chat", "the target URL"
        if path.endswith("/completions"):
            return "completions", "the target URL"
    return None, ""


def span(versions: list[str]) -> str:
    return versions[0] if len(versions) == 1 else f"{versions[0]} to {versions[-1]}"
