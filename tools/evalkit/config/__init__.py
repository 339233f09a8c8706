"""Load a nel 0.2.6 config: file -> YAML with positions -> composed defaults -> overrides.

cfg = load_config("example_mrcr.yaml", overrides=["++execution.hostname=login"])
cfg.topology.tp, cfg.line(("execution", "walltime")), cfg.mrcr.mrcr_variant
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from evalkit.config import overrides as ov
from evalkit.config.groups import compose
from evalkit.config.model import NelConfig
from evalkit.config.yamldoc import MAX_BYTES, YamlDoc, format_path, parse_document
from evalkit.errors import InputError
from evalkit.inputs import read_text


def load_document(path: str) -> YamlDoc:
    try:  # refuse a huge file before reading it
        too_big = os.path.getsize(path) > 4 * MAX_BYTES
    except OSError:
        too_big = False  # missing or unreadable: read_text reports it
    if too_big:
        raise InputError(f"file too large for a nel config (limit {MAX_BYTES} characters)", path)
    return parse_document(read_text(path), str(path))


def sibling_loader(config_path: str):
    """Reads files beside the config, as Hydra's primary config directory (each once, each
    through the bounded reader; a broken one is bad input naming that file)."""
    base = Path(config_path).resolve().parent
    if not Path(config_path).is_file():
        return None  # text with no file behind it: nothing sits beside it
    seen: dict[str, YamlDoc | None] = {}

    def load(rel: str) -> dict | None:
        if rel not in seen:
            path = base / rel
            seen[rel] = load_document(str(path)) if path.is_file() else None
        doc = seen[rel]
        return None if doc is None else doc.data

    load.docs = seen  # type: ignore[attr-defined]  # for positions of sibling values
    return load


def build_config(doc: YamlDoc, overrides: Sequence[str] = ()) -> NelConfig:
    parsed = [ov.parse_override(o) for o in overrides]
    choices, values = ov.split_choices(parsed)
    loader = sibling_loader(doc.path)
    composition = compose(doc.data, choices, loader)
    docs = getattr(loader, "docs", {})
    sibling_docs = [(docs[rel], target) for rel, target in composition.siblings if docs.get(rel)]
    data = composition.data
    overridden = {}
    for item in values:
        path = ov.apply(data, item)
        overridden[path] = item.raw
    return NelConfig(
        doc=doc,
        data=data,
        choices=composition.choices,
        overridden=overridden,
        defaults_problems=composition.problems,
        siblings=sibling_docs,
        missing_siblings=composition.missing,
    )


def load_config(path: str, overrides: Sequence[str] = ()) -> NelConfig:
    return build_config(load_document(path), overrides)


__all__ = ["NelConfig", "YamlDoc", "build_config", "format_path", "load_config", "load_document"]
