"""Apply fixers to one config's text until no fixable finding is left.

Each round parses the text once, runs the rules that have a fixer, and applies every
fixable hit as a batch (evalkit.config.textedit.Doc keeps every line a fix does not own).
A hit on a key an earlier fix of the batch changed waits for the next round. Then the
batch is proved: the config composed and resolved before and after (meaning.py) may
differ only in the keys the fixes own (the hit's key and what the fixer claims). A batch
that fails is split until each fix that changes anything else stands alone, and that fix
is refused. A refused hit is not offered again, so the rounds end. The remaining
findings are those of the final text, every rule included.
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
from evalkit.preflight.fixes.meaning import changed_outside, meaning
from evalkit.preflight.registry import all_rules
from evalkit.preflight.runner import (
    Options,
    is_nel_next,
    require_nel,
    run_rules,
    scopes_for,
    to_finding,
)
from evalkit.preflight.schema_kind import wrapper_reason

# Each round fixes every hit it can at once; a new round only for what a fix uncovered
# (NEL005 moves a value, then NEL101 prefixes it) or for a second fix of one key.
MAX_ROUNDS = 50


@dataclass(frozen=True)
class Fixed:
    rule: str
    path: str
    line: int | None  # in the text at the start of its round (the file, in round one)
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
    owned: list[tuple] = field(default_factory=list)  # the keys the fixes may change

    @property
    def changed(self) -> bool:
        return self.text != self.original

    def diff(self, newline: str = "\n") -> str:
        """A unified diff `patch -p0` applies byte for byte, in the file's line ending."""
        out = []
        for line in difflib.unified_diff(
            _lines(self.original.replace("\n", newline)),
            _lines(self.text.replace("\n", newline)),
            fromfile=self.file,
            tofile=self.file,
        ):
            out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
        return "".join(out)


def _lines(text: str) -> list[str]:
    """Lines split at LF only (str.splitlines also splits at form feeds and U+2028)."""
    parts = text.split("\n")
    return [p + "\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def _context(doc: Doc, options: Options, exact: bool = False) -> Context:
    """Rules' view of the text; a round's (not exact) is proved by `meaning` before use."""
    read = doc.exact() if exact else doc.doc
    require_nel(read)
    cfg = build_config(read, options.overrides)
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
    # the lines both share at either end first: matching a whole large file per fix is
    # quadratic in its repeated lines
    head = 0
    while head < min(len(a), len(b)) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    a, b = a[head : len(a) - tail], b[head : len(b) - tail]
    removed, added = [], []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag != "equal":
            removed += a[i1:i2]
            added += b[j1:j2]
    return "\n".join(removed), "\n".join(added)


@dataclass
class _Item:
    """One fixable hit of a round."""

    code: str
    hit: object
    finding: Finding
    ctx: Context
    fix: object  # the fixes.Fixer that repairs it (safe, or unsafe under --unsafe-fixes)

    @property
    def key(self) -> tuple:
        return (self.code, tuple(self.hit.path), self.hit.message, self.fix.unsafe)


def _items(doc: Doc, options: Options, tried: set, wanted) -> list[_Item]:
    """The hits a fixer may repair, every rule run once on the text as it stands."""
    ctx = _context(doc, options)
    if is_nel_next(ctx.cfg.doc.data) or wrapper_reason(ctx.cfg.doc.data):
        return []  # another tool's file: its one finding says so, nothing to fix
    rules, out = all_rules(), []
    fixers = list(all_fixers().values())
    if options.unsafe:  # after the safe ones: a safe fix of the same hit comes first
        fixers += list(unsafe_fixers().values())
    for fix in fixers:
        code = fix.code
        rule = rules[code]
        if rule.scope not in _scopes(options) or not wanted.rule_on(code):
            continue  # --select/--ignore turn off every hit of it: not worth checking
        for hit in rule.check(ctx):
            finding = to_finding(rule, hit, ctx.cfg)
            item = _Item(code, hit, finding, ctx, fix)
            if item.key in tried or finding.severity == "info" or not wanted(finding):
                continue
            if tuple(hit.path) in ctx.cfg.overridden:
                continue  # set by -o, not by the file
            out.append(item)
    return out


def _overlaps(paths, owned) -> bool:
    return any(p[: len(o)] == o or o[: len(p)] == p for p in paths for o in owned)


@dataclass
class _Batch:
    """Fixes applied one after the other to a text, each owning the keys it may change."""

    text: str
    fixed: list[tuple[_Item, Fixed, list]] = field(default_factory=list)
    deferred: list[_Item] = field(default_factory=list)

    @property
    def owned(self) -> list:
        return [path for _, _, paths in self.fixed for path in paths]


def _apply(doc: Doc, items: list[_Item], tried: set) -> _Batch:
    batch = _Batch(doc.text)
    for item in items:
        path = tuple(item.hit.path)
        if _overlaps([path], batch.owned):
            batch.deferred.append(item)  # the round's view of this key is stale now
            continue
        before = doc.text
        doc.claimed = []
        try:
            result = item.fix.apply(doc, item.hit, item.ctx)
            applied = bool(result) and doc.text != before
        except EvalkitError:
            result, applied = None, False
        owned = [path] + doc.claimed
        if applied and _overlaps(owned, batch.owned):
            doc.replace_text(before)
            batch.deferred.append(item)
            continue
        tried.add(item.key)
        if not applied:
            doc.replace_text(before)
            continue
        removed, added = _changed_lines(before, doc.text)
        note = result if isinstance(result, str) else None  # an unsafe fix's choice, reason
        fixed = Fixed(item.code, format_path(path), item.finding.line, removed, added, note)
        batch.fixed.append((item, fixed, owned))
    return batch


def _settle(doc: Doc, items: list[_Item], proof, before: dict | None, tried: set) -> list:
    """Apply `items` and keep what the proof accepts; a batch that fails is split in two
    until each fix that changes a key it does not own stands alone and is refused.
    Returns (Fixed, the keys it owns) pairs."""
    start = doc.text
    batch = _apply(doc, items, tried)
    if not batch.fixed:
        return []
    after = proof(doc.text)
    if before is not None and after is not None and not changed_outside(before, after, batch.owned):
        return [(fixed, owned) for _, fixed, owned in batch.fixed]
    doc.replace_text(start)
    applied = [item for item, _, _ in batch.fixed]
    if len(applied) == 1:
        return []  # refused: it stays in `tried`, so it is not offered again
    for item in applied:
        tried.discard(item.key)
    half = len(applied) // 2
    first = _settle(doc, applied[:half], proof, before, tried)
    middle = proof(doc.text) if first else before
    return first + _settle(doc, applied[half:], proof, middle, tried)


def _wanted(doc: Doc, select: Sequence[str], ignore: Sequence[str]):
    parsed: dict[str, object] = {}  # the directives of the text as it stands, read once

    def wanted(finding: Finding) -> bool:
        if doc.text not in parsed:
            parsed.clear()
            parsed[doc.text] = suppress.parse_directives(doc.text)
        directives = {finding.file or "": parsed[doc.text]}
        return bool(suppress.apply([finding], directives, select, ignore).shown)

    def rule_on(code: str) -> bool:  # the selectors' own test in suppress.apply
        return not (
            (select and not suppress.matches(code, select)) or suppress.matches(code, ignore)
        )

    wanted.rule_on = rule_on
    return wanted


def remaining(doc: Doc, options: Options) -> list[Finding]:
    """Every finding of the text as it stands (what `preflight` would report)."""
    ctx = _context(doc, options, exact=True)
    if is_nel_next(ctx.cfg.doc.data) or wrapper_reason(ctx.cfg.doc.data):
        return run_rules(ctx, ["other-schema"])
    return run_rules(ctx, _scopes(options))


def fix_text(
    text: str,
    name: str,
    options: Options,
    select: Sequence[str] = (),
    ignore: Sequence[str] = (),
    check_after: bool = True,
) -> Outcome:
    """Fix what can be fixed in `text` (the content of file `name`); nothing is written.
    `check_after=False` leaves `remaining` empty (a caller that only wants the fixes)."""
    doc = Doc(text, name)
    doc.exact()  # what the launcher refuses is refused here, before any round
    outcome = Outcome(file=name, original=text, text=text)
    tried: set = set()
    wanted = _wanted(doc, select, ignore)
    env = options.env if options.env is not None else launch_environment()

    proved: dict[str, dict | None] = {}  # a round's last text is the next round's first

    def proof(candidate: str) -> dict | None:
        if candidate not in proved:
            proved[candidate] = meaning(candidate, name, options.overrides, env)
        return proved[candidate]

    for _ in range(MAX_ROUNDS):
        items = _items(doc, options, tried, wanted)
        if not items:
            break
        known = len(tried)
        fixed = _settle(doc, items, proof, proof(doc.text), tried)
        if not fixed and len(tried) == known:
            break  # nothing fixed and nothing newly refused: another round would repeat
        outcome.fixed += [one for one, _ in fixed]
        outcome.owned += [path for _, owned in fixed for path in owned]
    outcome.text = doc.text
    outcome.remaining = remaining(doc, options) if check_after else []
    return outcome
