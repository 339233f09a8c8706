"""Apply fixers to one config's text until no fixable finding is left.

Each round re-parses the current text, runs the rules that have a fixer, and lets the
first fixer that accepts a hit edit the text (evalkit.config.textedit.Doc keeps every line
the fix does not own). A hit a fixer refused is not offered again, so the loop ends; a
fix whose result no longer parses is undone. The remaining findings are those of the
final text, every rule included.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass, field

from evalkit.config import build_config
from evalkit.config.interpolation import launch_environment
from evalkit.config.textedit import Doc
from evalkit.config.yamldoc import format_path
from evalkit.errors import EvalkitError
from evalkit.findings import Finding
from evalkit.preflight import suppress
from evalkit.preflight.context import Context
from evalkit.preflight.fixes import all_fixers, unsafe_fixers
from evalkit.preflight.registry import all_rules
from evalkit.preflight.runner import (
    Options,
    is_nel_next,
    require_nel,
    run_rules,
    scopes_for,
    to_finding,
)

MAX_ROUNDS = 200  # far above the fixable hits of any real config


@dataclass(frozen=True)
class Fixed:
    rule: str
    path: str
    line: int | None  # in the text as it was just before this fix
    before: str  # the lines the fix removed
    after: str  # the lines it wrote
    note: str | None = None  # an unsafe fix's choice and reason

    def to_json(self) -> dict:
        keys = ("rule", "path", "line", "before", "after") + (("note",) if self.note else ())
        return {k: getattr(self, k) for k in keys}


@dataclass
class Outcome:
    file: str
    original: str
    text: str
    fixed: list[Fixed] = field(default_factory=list)
    remaining: list[Finding] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return self.text != self.original

    def diff(self) -> str:
        return "".join(
            difflib.unified_diff(
                self.original.splitlines(keepends=True),
                self.text.splitlines(keepends=True),
                fromfile=self.file,
                tofile=self.file,
            )
        )


def _context(doc: Doc, options: Options) -> Context:
    require_nel(doc.doc)
    cfg = build_config(doc.doc, options.overrides)
    env = options.env if options.env is not None else launch_environment()
    return Context(
        cfg=cfg,
        template=options.template,
        env=env,
        checkpoint=options.checkpoint,
        documented_context=options.context,
    )


def _scopes(options: Options) -> list[str]:
    return scopes_for(options)


def _changed_lines(old: str, new: str) -> tuple[str, str]:
    a, b = old.split("\n"), new.split("\n")
    removed, added = [], []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag != "equal":
            removed += a[i1:i2]
            added += b[j1:j2]
    return "\n".join(removed), "\n".join(added)


def _one_fix(doc: Doc, options: Options, tried: set, wanted) -> Fixed | None:
    ctx = _context(doc, options)
    if is_nel_next(ctx.cfg.doc.data):
        return None
    rules = all_rules()
    fixers = list(all_fixers().items())
    if options.unsafe:  # after the safe ones: a safe fix of the same hit comes first
        fixers += list(unsafe_fixers().items())
    for code, fix in fixers:
        rule = rules[code]
        if rule.scope not in _scopes(options):
            continue
        for hit in rule.check(ctx):
            key = (code, tuple(hit.path), hit.message, fix.unsafe)
            finding = to_finding(rule, hit, ctx.cfg)
            if key in tried or finding.severity == "info" or not wanted(finding):
                continue
            tried.add(key)
            if tuple(hit.path) in ctx.cfg.overridden:
                continue  # set by -o, not by the file
            before = doc.text
            try:
                result = fix.apply(doc, hit, ctx)
                applied = bool(result) and doc.text != before
                if applied:
                    _context(doc, options)  # the result must still load
            except EvalkitError:
                applied = False
            if not applied:
                doc.replace_text(before)
                continue
            removed, added = _changed_lines(before, doc.text)
            note = result if isinstance(result, str) else None
            return Fixed(code, format_path(tuple(hit.path)), finding.line, removed, added, note)
    return None


def _wanted(doc: Doc, select: Sequence[str], ignore: Sequence[str]):
    def wanted(finding: Finding) -> bool:
        directives = {finding.file or "": suppress.parse_directives(doc.text)}
        return bool(suppress.apply([finding], directives, select, ignore).shown)

    return wanted


def remaining(doc: Doc, options: Options) -> list[Finding]:
    """Every finding of the text as it stands (what `preflight` would report)."""
    ctx = _context(doc, options)
    if is_nel_next(ctx.cfg.doc.data):
        return run_rules(ctx, ["other-schema"])
    return run_rules(ctx, _scopes(options))


def fix_text(
    text: str,
    name: str,
    options: Options,
    select: Sequence[str] = (),
    ignore: Sequence[str] = (),
) -> Outcome:
    """Fix what can be fixed in `text` (the content of file `name`); nothing is written."""
    doc = Doc(text, name)
    outcome = Outcome(file=name, original=text, text=text)
    tried: set = set()
    wanted = _wanted(doc, select, ignore)
    for _ in range(MAX_ROUNDS):
        step = _one_fix(doc, options, tried, wanted)
        if step is None:
            break
        outcome.fixed.append(step)
    outcome.text = doc.text
    outcome.remaining = remaining(doc, options)
    return outcome
