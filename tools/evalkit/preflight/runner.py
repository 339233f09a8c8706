"""Run the registered rules over loaded configs and turn their hits into findings."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from evalkit.config import NelConfig, build_config, format_path, load_document
from evalkit.config.interpolation import launch_environment
from evalkit.config.yamldoc import YamlDoc
from evalkit.findings import Finding
from evalkit.preflight.context import Context
from evalkit.preflight.registry import Hit, Rule, all_rules
from evalkit.preflight.schema_kind import is_nel_next, not_nel_reason, wrapper_reason


@dataclass
class Options:
    overrides: Sequence[str] = ()
    template: bool = False
    checkpoint: object = None  # a loaded evalkit.checkpoint.Checkpoint
    context: int | None = None  # --context N (the model card's context), with or without it
    env: Mapping[str, str] | None = None
    unsafe: bool = False  # --unsafe-fixes: fixes that choose behaviour run too


def directives_for(path: str):
    """The file's `# evalkit: disable=` comments."""
    from evalkit.inputs import read_text
    from evalkit.preflight.suppress import parse_directives

    return parse_directives(read_text(path))


def require_nel(doc: YamlDoc) -> None:
    """A file that is no nel config at all is bad input (exit 2, one line), as a YAML list
    or scalar at the top is: every rule would only restate that its sections are missing."""
    reason = not_nel_reason(doc.data)
    if reason:
        from evalkit.errors import InputError

        raise InputError(reason, doc.path)


def load(path: str, options: Options) -> NelConfig:
    doc = load_document(path)
    require_nel(doc)
    return build_config(doc, options.overrides)


def to_finding(rule: Rule, hit: Hit, cfg: NelConfig) -> Finding:
    path = tuple(hit.path)
    line, file = hit.line, cfg.file
    beside = path and not cfg.written(path) and path not in cfg.overridden
    origin = cfg.origin(path) if beside else None
    if origin is not None and line is None:  # written in a file beside it (`- _endpoints`)
        file, line = origin
    elif line is None and path:
        line = cfg.doc.line_in_value(path, hit.token) if hit.token else cfg.line(path)
    message = hit.message
    if path in cfg.overridden:
        message += f" (value set by -o {cfg.overridden[path]})"
    return Finding(
        rule=rule.code,
        severity=hit.severity or rule.severity,
        message=message,
        path=format_path(path) if path else None,
        file=file,
        line=line,
        fix=hit.fix,
    )


def run_rules(ctx: Context, scopes: Iterable[str]) -> list[Finding]:
    wanted = set(scopes)
    findings: list[Finding] = []
    # a file its defaults name is not there: Hydra stops before anything else is read,
    # so the one finding is that (NEL007); the rest would be consequences of the gap
    only = "NEL007" if ctx.cfg.missing_siblings and "config" in wanted else None
    for rule in all_rules().values():
        if rule.scope not in wanted or (only and rule.code != only):
            continue
        for hit in rule.check(ctx):
            findings.append(to_finding(rule, hit, ctx.cfg))
    return findings


def scopes_for(options: Options) -> list[str]:
    """The rule scopes this invocation's inputs allow."""
    scopes = ["config"]
    if options.checkpoint is not None:
        scopes.append("checkpoint")
    if options.checkpoint is not None or options.context is not None:
        scopes.append("context")
    return scopes


def check_file(path: str, options: Options) -> list[Finding]:
    cfg = load(path, options)
    ctx = Context(
        cfg=cfg,
        template=options.template,
        env=options.env if options.env is not None else launch_environment(),
        checkpoint=options.checkpoint,
        documented_context=options.context,
    )
    # another tool's file: the 0.2.6 rules would only list schema differences
    if is_nel_next(cfg.doc.data) or wrapper_reason(cfg.doc.data):
        return run_rules(ctx, ["other-schema"])
    return run_rules(ctx, scopes_for(options))


def check_pair(base_path: str, cand_path: str, options: Options) -> list[Finding]:
    base = load(base_path, options)
    cand = load(cand_path, options)
    ctx = Context(cfg=cand, base=base, template=options.template, env=options.env or {})
    return run_rules(ctx, ["pair"])


def check_launcher(path: str, options: Options, result: object) -> list[Finding]:
    cfg = load(path, options)
    ctx = Context(cfg=cfg, launcher=result, env=options.env or {})
    return run_rules(ctx, ["launcher"])
