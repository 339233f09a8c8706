"""Which tool a YAML file is written for: nel 0.2.6, nel-next, a wrapper around nel, or
none of them.

A file that is not a plain nel 0.2.6 config gets one finding saying so (NEL011, NEL012)
instead of a page of findings that are all true of the wrong tool; a file that is no nel
config at all (a model's config.json, a CI file) is refused in one line (`not_nel_reason`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from evalkit.config.interpolation import walk_strings

# Top-level sections of a nel-next (nemo-evaluator 0.4) config, and of a nel 0.2.6 one.
NEL_NEXT_SECTIONS = {"services", "benchmarks"}
NEL_026_SECTIONS = {"defaults", "execution", "deployment", "evaluation"}
# Any one of these makes a file a nel config of some kind (perhaps a wrapper's or a partial one).
NEL_KEYS = ("defaults", "execution", "deployment", "evaluation", "target", "export")
# Keys every Hugging Face config.json has one of: the file `--checkpoint DIR` reads.
HF_CONFIG_KEYS = {"architectures", "model_type", "max_position_embeddings"}
# `${name:...}`: a resolver call (not escaped with a backslash)
# (lower case, and not bash's `${VAR:-default}`, which NEL001 reports in a nel file).
RESOLVER = re.compile(r"(?<!\\)\$\{([a-z][\w.]*):(?![-=+?])")
# What the launcher's OmegaConf has: the oc.* built-ins, its own select_not_null, and
# Hydra's. `env` (OmegaConf 1.x) is left to NEL001: in a nel file it is a plain mistake.
NEL_RESOLVERS = {"select_not_null", "env", "hydra"}


def is_nel_next(data: Mapping) -> bool:
    keys = set(data)
    return keys >= NEL_NEXT_SECTIONS and not keys & NEL_026_SECTIONS


def not_nel_reason(data: Mapping) -> str | None:
    """Why this mapping is no nel config at all (no nel section, not nel-next), or None."""
    if not isinstance(data, Mapping) or is_nel_next(data) or any(k in data for k in NEL_KEYS):
        return None
    if foreign_resolvers(data):  # another tool's config carrying a nel one: NEL012 says so
        return None
    reason = f"not a nel config: it has none of nel's top-level keys ({', '.join(NEL_KEYS)})"
    if HF_CONFIG_KEYS & set(data):
        reason += "; it looks like a model's config.json: pass its directory as --checkpoint DIR"
    return reason


def foreign_resolvers(data: Mapping) -> list[str]:
    """Resolver names nel 0.2.6 does not register, in order of first use."""
    found: list[str] = []
    for _, value in walk_strings(dict(data)):
        for name in RESOLVER.findall(value):
            if not name.startswith("oc.") and name not in NEL_RESOLVERS and name not in found:
                found.append(name)
    return found


def wrapper_reason(data: Mapping) -> str | None:
    """Why this file looks like another tool's config carrying a nel one, or None.

    Only another tool's resolvers say so. A file with no `defaults:` list (a
    documentation fragment, a hand-trimmed config) is read by `nel run` as it stands
    and refused for what it lacks; the rules that apply to its sections say what."""
    if not isinstance(data, Mapping) or not data or is_nel_next(data):
        return None
    foreign = foreign_resolvers(data)
    if foreign:
        names = ", ".join(f"${{{n}:...}}" for n in foreign)
        return f"it uses resolvers nel 0.2.6 does not have ({names})"
    return None
