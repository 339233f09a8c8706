"""Load a nel 0.2.6 config: file -> YAML with positions -> composed defaults -> overrides.

cfg = load_config("example_mrcr.yaml", overrides=["++execution.hostname=login"])
cfg.topology.tp, cfg.line(("execution", "walltime")), cfg.mrcr.mrcr_variant
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from evalkit.config import overrides as ov
from evalkit.config.expansion import check_expansion
from evalkit.config.groups import compose
from evalkit.config.model import NelConfig
from evalkit.config.yamldoc import MAX_BYTES, YamlDoc, format_path, parse_document
from evalkit.errors import InputError
from evalkit.inputs import read_text
from evalkit.secrets.quote import remember_config


def load_document(path: str) -> YamlDoc:
    try:  # refuse a huge file before reading it
        too_big = os.path.getsize(path) > 4 * MAX_BYTES
    except OSError:
        too_big = False  # missing or unreadable: read_text reports it
    if too_big:
        raise InputError(f"file too large for a nel config (limit {MAX_BYTES} characters)", path)
    return parse_document(read_text(path), str(path))


class SiblingFiles:
    """Files beside the config, read as Hydra reads its primary config directory: each
    once, each through the bounded reader (a broken one is bad input naming that file).
    Called with a path relative to that directory: its mapping, or None when absent."""

    def __init__(self, config_path: str):
        self.base = Path(config_path).resolve().parent
        self.docs: dict[str, YamlDoc | None] = {}

    def __call__(self, rel: str) -> dict | None:
        if Path(rel).is_absolute() or ".." in Path(rel).parts:
            return None  # only the config's own directory (groups.py reports such a name)
        if rel not in self.docs:
            path = self.base / rel
            self.docs[rel] = load_document(str(path)) if path.is_file() else None
        doc = self.docs[rel]
        return None if doc is None else doc.data


def build_config(doc: YamlDoc, overrides: Sequence[str] = ()) -> NelConfig:
    parsed = [ov.parse_override(o) for o in overrides]
    choices, values = ov.split_choices(parsed)
    # text with no file behind it has nothing beside it
    files = SiblingFiles(doc.path) if Path(doc.path).is_file() else None
    composition = compose(doc.data, choices, files)
    docs = files.docs if files else {}
    sibling_docs = [(docs[rel], target) for rel, target in composition.siblings if docs.get(rel)]
    data = composition.data
    overridden = {}
    for item in values:
        path = ov.apply(data, item)
        overridden[path] = item.raw
    check_expansion(data, doc)  # before anything resolves an interpolation
    remember_config(data)  # its secrets (overrides included) are redacted in every output
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
