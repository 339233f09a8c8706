"""The loaded config: effective values (defaults composed, overrides applied), where each
key is written, and typed views the rules read (topology, sampling, gym, MRCR variant,
env-var maps). Nothing here judges a value; the rules do.
"""

from __future__ import annotations

import math
import shlex
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from evalkit.benchmarks.mrcr.variants import Variant, variant_for_config_path
from evalkit.benchmarks.tau3.facts import CONFIG_PATH_MARK as TAU3_CONFIG_MARK
from evalkit.config.command import ServeFlags, resolved_command
from evalkit.config.groups import merge
from evalkit.config.interpolation import resolved_view
from evalkit.config.yamldoc import Path, YamlDoc, format_path

MISSING = "???"
GYM_PARAM_KEYS = ("data_prep_params", "collect_rollout_params", "common_params")
ENV_SECTIONS: tuple[Path, ...] = (
    ("env_vars",),
    ("deployment", "env_vars"),
    ("evaluation", "env_vars"),
    ("export", "env_vars"),
    ("execution", "env_vars"),
)


def get(data: Any, path: Path, default: Any = None) -> Any:
    node = data
    for part in path:
        in_dict = isinstance(node, dict) and part in node
        in_list = isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node)
        if in_dict or in_list:
            node = node[part]
        else:
            return default
    return node


def as_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


@dataclass
class Topology:
    num_nodes: int | None
    num_instances: int | None
    gpus_per_node: int | None  # from gres (or gpus_per_node)
    tp: int
    pp: int
    dp: int

    @property
    def nodes_per_instance(self) -> int | None:
        if not self.num_nodes or not self.num_instances:
            return None
        if self.num_nodes % self.num_instances:
            return None
        return self.num_nodes // self.num_instances

    @property
    def gpus_per_replica_set(self) -> int:
        return self.tp * self.pp * self.dp


@dataclass
class GymParams:
    """One `nemo_gym` task's parameters (the folded strings split into overrides)."""

    task_index: int
    base: Path  # path of the task's nemo_gym mapping (where new keys belong)
    raw: dict[str, Any]  # top-level nemo_gym params merged with the task's own
    params: dict[str, dict[str, str]] = field(default_factory=dict)  # key -> {override: value}
    top: Path | None = None  # path of the top-level nemo_gym mapping
    task_keys: frozenset = frozenset()  # keys the task itself sets

    def path(self, key: str) -> Path:
        """Where `key` is written: the task's mapping, else the top-level one."""
        if key in self.task_keys or self.top is None:
            return self.base + (key,)
        return self.top + (key,)

    @property
    def bases(self) -> tuple[Path, ...]:
        return (self.base,) if self.top is None else (self.base, self.top)

    def value(self, section: str, override: str) -> str | None:
        """Value of `++override` / `+override` / `override` in a params section."""
        section_params = self.params.get(section, {})
        for prefix in ("++", "+", ""):
            if prefix + override in section_params:
                return section_params[prefix + override]
        return None

    def config_paths(self, section: str) -> list[str]:
        raw = self.value(section, "config_paths")
        if raw is None:
            return []
        return [p.strip() for p in raw.strip("[]").split(",") if p.strip()]

    @property
    def command(self) -> str:
        value = self.raw.get("command")
        return value if isinstance(value, str) else ""

    def mrcr_configs(self) -> dict[str, str | None]:
        """Section -> the `benchmarks/mrcr/...` config it names (None when it names none)."""
        out: dict[str, str | None] = {}
        for section in ("data_prep_params", "collect_rollout_params"):
            found = [p for p in self.config_paths(section) if "benchmarks/mrcr" in p]
            out[section] = found[-1] if found else None
        return out

    @property
    def is_mrcr(self) -> bool:
        return any(v for v in self.mrcr_configs().values())

    @property
    def is_tau3(self) -> bool:
        """Prepares or rolls out a Tau3 banking_knowledge config (Gym's
        benchmarks/tau2/configs/banking_*)."""
        return any(
            TAU3_CONFIG_MARK in path
            for section in ("data_prep_params", "collect_rollout_params")
            for path in self.config_paths(section)
        )

    @property
    def mrcr_variant(self) -> Variant | None:
        names = {v for v in self.mrcr_configs().values() if v}
        if len(names) != 1:
            return None
        return variant_for_config_path(names.pop())


def split_gym_params(text: Any) -> dict[str, str]:
    """`++a=1 "+b=[x,y]" c` -> {"++a": "1", "+b": "[x,y]", "c": ""}."""
    if not isinstance(text, str):
        return {}
    try:
        words = shlex.split(text, comments=False)
    except ValueError:
        words = text.split()
    out: dict[str, str] = {}
    for word in words:
        key, _, value = word.partition("=")
        out[key] = value
    return out


@dataclass
class NelConfig:
    doc: YamlDoc  # the user's file as written
    data: dict  # effective config
    choices: dict[str, str] = field(default_factory=dict)
    overridden: dict[Path, str] = field(default_factory=dict)  # path -> the -o text
    defaults_problems: list[tuple[int | None, str]] = field(default_factory=list)
    # files beside it that its defaults merged, each with the key path its values went under
    siblings: list[tuple[YamlDoc, Path]] = field(default_factory=list)
    missing_siblings: list[tuple[int, str]] = field(default_factory=list)  # (index, file)

    # -- positions -------------------------------------------------------------------
    @property
    def file(self) -> str:
        return self.doc.path

    def line(self, path: Path) -> int | None:
        return self.doc.line_of(tuple(path)) or self.doc.line_of(("defaults",))

    def origin(self, path: Path) -> tuple[str, int] | None:
        """File and line of a value a sibling file (`- _endpoints`) wrote, else None. The
        last sibling that writes it is the one whose value stands (merge order)."""
        path = tuple(path)
        for doc, target in reversed(self.siblings):
            if path[: len(target)] == tuple(target) and path[len(target) :] in doc.spans:
                return doc.path, doc.line_of(path[len(target) :]) or 1
        return None

    def written(self, path: Path) -> bool:
        """True when the user file (not a bundled default) sets this key."""
        return tuple(path) in self.doc.spans

    def get(self, path: Path, default: Any = None) -> Any:
        return get(self.data, tuple(path), default)

    @cached_property
    def resolved_data(self) -> dict:
        """The effective config with interpolations resolved as the launcher would
        (UNRESOLVED where only the submit-time environment knows the value)."""
        return resolved_view(self.data)

    def resolved(self, path: Path, default: Any = None) -> Any:
        """The value at `path` after interpolation; UNRESOLVED when unknowable here."""
        return get(self.resolved_data, tuple(path), default)

    @staticmethod
    def fmt(path: Path) -> str:
        return format_path(tuple(path))

    # -- sections ----------------------------------------------------------------------
    @property
    def execution_type(self) -> str | None:
        value = self.resolved(("execution", "type"))
        return value if isinstance(value, str) else None

    @property
    def deployment_type(self) -> str | None:
        value = self.resolved(("deployment", "type"))
        return value if isinstance(value, str) else None

    @property
    def tasks(self) -> list[tuple[int, dict]]:
        tasks = self.get(("evaluation", "tasks"))
        if not isinstance(tasks, list):
            return []
        return [(i, t) for i, t in enumerate(tasks) if isinstance(t, dict)]

    # -- serving command ------------------------------------------------------------------
    @cached_property
    def serve_command(self) -> str:
        return resolved_command(self)

    @cached_property
    def flags(self) -> ServeFlags:
        return ServeFlags.parse(self.serve_command)

    @cached_property
    def topology(self) -> Topology:
        gpus = as_int(self.get(("execution", "gpus_per_node")))
        gres = self.get(("execution", "gres"))
        if isinstance(gres, str) and gres.startswith("gpu"):
            gpus = as_int(gres.rsplit(":", 1)[-1]) or gpus
        return Topology(
            num_nodes=as_int(self.get(("execution", "num_nodes"))),
            num_instances=as_int(self.get(("execution", "num_instances"))),
            gpus_per_node=gpus,
            tp=self.flags.integer("tp") or 1,
            pp=self.flags.integer("pp") or 1,
            dp=self.flags.integer("dp") or 1,
        )

    # -- sampling ---------------------------------------------------------------------------
    @property
    def params_path(self) -> Path:
        return ("evaluation", "nemo_evaluator_config", "config", "params")

    def task_params_path(self, index: int) -> Path:
        return ("evaluation", "tasks", index, "nemo_evaluator_config", "config", "params")

    def sampling(self, index: int | None = None) -> dict[str, Any]:
        """Effective params for a task (top level, then the task's own override)."""
        params = dict(self.get(self.params_path) or {})
        if index is not None:
            own = self.get(self.task_params_path(index))
            if isinstance(own, dict):
                params.update(own)
        return params

    def max_parallelism(self) -> tuple[int | None, Path | None]:
        """Largest concrete `parallelism` across the config (None if any is `???`)."""
        best: tuple[int | None, Path | None] = (None, None)
        candidates = [self.params_path + ("parallelism",)]
        candidates += [self.task_params_path(i) + ("parallelism",) for i, _ in self.tasks]
        for path in candidates:
            value = self.get(path)
            if value == MISSING:
                return None, path
            number = as_int(value)
            if number is not None and (best[0] is None or number > best[0]):
                best = (number, path)
        for gym in self.gym_tasks:  # GDPVal: agent concurrency stands in for parallelism
            raw = gym.value("collect_rollout_params", "stirrup_agent.concurrency")
            number = as_int(raw)
            if number is not None and (best[0] is None or number > best[0]):
                best = (number, gym.path("collect_rollout_params"))
        return best

    # -- gym ------------------------------------------------------------------------------------
    @cached_property
    def gym_tasks(self) -> list[GymParams]:
        out: list[GymParams] = []
        for i, task in self.tasks:
            name = str(task.get("name", ""))
            if name != "nemo_gym" and not name.endswith(".nemo_gym"):
                continue
            base = (*self.task_params_path(i), "extra", "nemo_gym")
            top = (*self.params_path, "extra", "nemo_gym")
            own = self.get(base)
            own = own if isinstance(own, dict) else {}
            shared = self.get(top)
            shared = shared if isinstance(shared, dict) else {}
            gym = GymParams(
                task_index=i,
                base=base,
                raw=merge(shared, own),
                top=top if shared else None,
                task_keys=frozenset(own),
            )
            for key in GYM_PARAM_KEYS:
                gym.params[key] = split_gym_params(gym.raw.get(key))
            out.append(gym)
        return out

    @property
    def mrcr(self) -> GymParams | None:
        return next((g for g in self.gym_tasks if g.is_mrcr), None)

    @property
    def tau3(self) -> GymParams | None:
        return next((g for g in self.gym_tasks if g.is_tau3), None)

    # -- env vars ----------------------------------------------------------------------------
    def env_maps(self) -> list[tuple[Path, dict]]:
        maps: list[tuple[Path, dict]] = []
        for path in ENV_SECTIONS:
            value = self.get(path)
            if isinstance(value, dict):
                maps.append((path, value))
        for i, _ in self.tasks:
            path = ("evaluation", "tasks", i, "env_vars")
            value = self.get(path)
            if isinstance(value, dict):
                maps.append((path, value))
        return maps

    def env_value(self, group: str, name: str) -> Any:
        """Effective value of env var `name` for "deployment" or "evaluation" (precedence)."""
        value = get(self.data, ("env_vars", name))
        section = get(self.data, (group, "env_vars", name))
        return section if section is not None else value

    def images(self) -> list[tuple[Path, str]]:
        out = []
        image = self.get(("deployment", "image"))
        if isinstance(image, str):
            out.append((("deployment", "image"), image))
        for i, task in self.tasks:
            if isinstance(task.get("container"), str):
                out.append((("evaluation", "tasks", i, "container"), task["container"]))
        return out


def ceil_div(a: int, b: int) -> int:
    return math.ceil(a / b)
