"""What a rule sees: the loaded config plus the optional inputs of this invocation."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from evalkit.checkpoint import ContextSource, context_source
from evalkit.config.interpolation import InterpolationIssue, find_issues, walk_strings
from evalkit.config.model import NelConfig
from evalkit.config.schema import SchemaIssue, validate


@dataclass
class Context:
    cfg: NelConfig
    template: bool = False
    env: Mapping[str, str] = field(default_factory=dict)
    checkpoint: Any = None  # evalkit.checkpoint.Checkpoint
    documented_context: int | None = None  # --context N, also without --checkpoint
    base: NelConfig | None = None  # --pair baseline (cfg is the candidate)
    launcher: Any = None  # evalkit.preflight.launcher.LauncherResult

    @cached_property
    def interpolation_issues(self) -> list[InterpolationIssue]:
        return find_issues(self.cfg.data, self.env)

    @cached_property
    def schema_issues(self) -> list[SchemaIssue]:
        # on the resolved view: the launcher checks values after OmegaConf resolves them
        return validate(self.cfg.resolved_data)

    def strings(self) -> Iterator[tuple[tuple, str]]:
        """Every string value of the effective config with its key path."""
        return walk_strings(self.cfg.data)

    def user_strings(self) -> Iterator[tuple[tuple, str]]:
        """String values written in the user's file (or set by -o), not bundled defaults."""
        for path, value in walk_strings(self.cfg.data):
            if self.cfg.written(path) or path in self.cfg.overridden:
                yield path, value

    @property
    def model_context(self) -> ContextSource | None:
        """The model's context: the checkpoint's (with --context if given), else --context
        alone, else None."""
        if self.checkpoint is not None:
            return self.checkpoint.context
        if self.documented_context is not None:
            return context_source(None, self.documented_context)
        return None

    @property
    def deploys(self) -> bool:
        return self.cfg.deployment_type not in (None, "none")
