"""What a config means to the launcher, as a flat map the fix engine compares.

A fix may change only its finding's own keys. To prove that, the engine composes the
text the way preflight does (bundled defaults, then the `-o` overrides), resolves every
interpolation with OmegaConf (`resolve=True`, the launcher's `select_not_null` and the
launch environment) and compares the leaves before and after. Each leaf keeps the value
as written and as resolved, so a fix that edits another line and a fix that changes
what another key's `${...}` resolves to (`num_fewshot: ${evaluation.env_vars.N}`, or a
YAML alias of the edited value) are both caught.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any

from evalkit.config import build_config
from evalkit.config.interpolation import UNRESOLVED, _launcher_resolvers, static_value
from evalkit.config.yamldoc import Path, parse_document
from evalkit.errors import EvalkitError

EMPTY_DICT, EMPTY_LIST = "<empty mapping>", "<empty list>"


def _leaves(node: Any, path: Path = ()) -> Iterable[tuple[Path, Any]]:
    if isinstance(node, dict):
        if not node:
            yield path, EMPTY_DICT
        for key, value in node.items():
            yield from _leaves(value, path + (key,))
    elif isinstance(node, list):
        if not node:
            yield path, EMPTY_LIST
        for index, value in enumerate(node):
            yield from _leaves(value, path + (index,))
    else:
        yield path, node


def _failure(err: Exception) -> tuple[str, str]:
    return ("<unresolvable>", str(err).splitlines()[0] if str(err) else type(err).__name__)


def _resolved(data: dict, paths: list[Path]) -> dict[Path, Any]:
    """Each leaf resolved by OmegaConf; a leaf that fails keeps its error as its value."""
    from omegaconf import OmegaConf

    try:
        root = OmegaConf.create(data)
    except Exception as err:  # keys OmegaConf cannot hold: compare as written only
        return {path: _failure(err) for path in paths}
    try:  # the common case: the whole tree resolves at once
        with _launcher_resolvers():
            return dict(_leaves(OmegaConf.to_container(root, resolve=True)))
    except Exception:
        pass
    out = {}
    with _launcher_resolvers():
        for path in paths:  # one failing value must not hide the others
            try:
                node: Any = root
                for part in path[:-1]:
                    node = node._get_node(part)
                value = node[path[-1]] if path else root
                if OmegaConf.is_config(value):  # leaves as the whole-tree pass gives them
                    out.update(_leaves(OmegaConf.to_container(value, resolve=True), path))
                else:
                    out[path] = value
            except Exception as err:
                out[path] = _failure(err)
    return out


def _resolved_without_omegaconf(
    data: dict, written: dict[Path, Any], env: Mapping[str, str]
) -> dict[Path, Any] | None:
    """What `_resolved` gives, where every interpolation is one interpolation.static_value
    answers (most configs: node references, `oc.env`, nel's `select_not_null`); None
    otherwise. Building the OmegaConf tree is most of a proof's cost."""
    out = {}
    for path, value in written.items():
        if isinstance(value, str) and "${" in value:
            value = static_value(value, data, env=env)
            if value is None or value is UNRESOLVED:
                return None  # a failure is worded by OmegaConf
        out[path] = value
    return out


def meaning(text: str, name: str, overrides, env: Mapping[str, str]) -> dict | None:
    """{leaf path: (value as written, value resolved)}; None when the text does not load."""
    try:
        cfg = build_config(parse_document(text, name), overrides)
    except EvalkitError:
        return None
    written = dict(_leaves(cfg.data))
    resolved = _resolved_without_omegaconf(cfg.data, written, {**os.environ, **env})
    if resolved is None:
        saved = dict(os.environ)
        os.environ.update(env)
        try:
            resolved = _resolved(cfg.data, list(written))
        finally:
            os.environ.clear()
            os.environ.update(saved)
    out = {}
    for path, value in written.items():
        out[path] = (value, resolved.get(path, value))
    for path, value in resolved.items():  # a reference to a mapping expands into leaves
        out.setdefault(path, (None, value))
    return out


def _owned(path: Path, owned: list[Path]) -> bool:
    return any(path[: len(o)] == tuple(o) for o in owned)


def changed_outside(before: dict, after: dict, owned: list[Path]) -> list[Path]:
    """Leaves whose value differs and that no owned key covers.

    An empty mapping that gains owned children (or loses its last owned child) is not a
    change of its own: `deployment.env_vars: {}` from the bundled defaults, for example.
    """
    owned = [tuple(o) for o in owned]
    out = []
    for path in before.keys() | after.keys():
        if before.get(path) == after.get(path) or _owned(path, owned):
            continue
        values = {before.get(path, (None, None))[0], after.get(path, (None, None))[0]}
        if values & {EMPTY_DICT, EMPTY_LIST} and any(o[: len(path)] == path for o in owned):
            continue
        out.append(path)
    return sorted(out, key=repr)
