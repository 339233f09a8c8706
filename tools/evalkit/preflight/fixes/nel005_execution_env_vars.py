"""NEL005: `execution.env_vars`, which 0.2.6 refuses, moves where 0.2.6 reads it.

Follows the launcher's own refusal message: variables meant for one job group go to that
group's map (`execution.env_vars.deployment` -> `deployment.env_vars`,
`execution.env_vars.evaluation` -> `evaluation.env_vars`, `execution.env_vars.export` ->
`export.env_vars`), and a flat map, meant for every job, goes to the top-level
`env_vars`. The values move as written (NEL101 then adds any missing prefix) and the
`execution.env_vars` block is removed. Every comment in the block moves with the value it
sits above (or beside). Refuses when a target map
already gives one of the names another value, when a target section is not in the file
or not a block mapping, and for the other rejected keys (`cluster:`,
`deployment.multiple_instances`, ...), whose right place depends on intent.
`evaluation.overrides` moves to `evaluation.nemo_evaluator_config` (overrides_move.py).
"""

from evalkit.preflight.fixes import fixer
from evalkit.preflight.fixes.blocks import addable, block_mapping
from evalkit.preflight.fixes.overrides_move import move

SOURCE = ("execution", "env_vars")
# 0.1.x's job groups; 0.2.6 reads export.env_vars for the exporters
# (common/env_vars.py:433-437, collect_exporters_env_vars)
GROUPS = ("deployment", "evaluation", "export")


def _moves(value: dict) -> list[tuple[tuple, dict]] | None:
    """(target map path, entries) pairs; None when the shape is not one we know."""
    if set(value) <= set(GROUPS) and all(isinstance(v, dict) for v in value.values()):
        return [((group, "env_vars"), entries) for group, entries in value.items() if entries]
    if any(isinstance(v, (dict, list)) for v in value.values()):
        return None
    return [(("env_vars",), value)]


def _tail(line: str, column: int) -> str | None:
    """The trailing `# comment` after `column`, if the rest of the line is one."""
    rest = line[column:].strip()
    return rest[1:].strip() if rest.startswith("#") else None


def _comments(doc, sources: list[tuple]) -> dict[tuple, tuple[list[str], str | None]]:
    """For each moved entry: the comment lines above it inside the block (a group line's
    own comment included) and its trailing comment. Comments after the last entry go with
    the last one."""
    first, last = doc.extent(SOURCE)
    lines, text = doc.lines, doc.text
    at = {(doc.doc.spans[p].key_line or doc.doc.spans[p].line) - 1: p for p in sources}
    out, pending = {}, []
    for index in range(first + 1, last + 1):
        stripped = lines[index].strip()
        if stripped.startswith("#"):
            pending.append(stripped[1:].strip())
        elif index in at:
            span = doc.doc.spans[at[index]]
            column = span.end - (text.rfind("\n", 0, span.end) + 1)
            tail = _tail(lines[index], column) if span.line == span.end_line else None
            out[at[index]], pending = (pending, tail), []
        elif ":" in stripped:  # a group key (`deployment:  # note`)
            tail = _tail(stripped, stripped.index(":") + 1)
            pending += [tail] if tail else []
    if pending and sources:
        above, tail = out.get(sources[-1], ([], None))
        out[sources[-1]] = (above, " ".join(filter(None, [tail, *pending])) or None)
    return out


def _add_entries(doc, target: tuple, entries: dict, notes: dict) -> bool:
    existing = doc.value(target)
    if existing is not None and not isinstance(existing, dict):
        return False
    new = {k: v for k, v in entries.items() if not (existing and k in existing)}
    if existing and any(existing[k] != v for k, v in entries.items() if k in existing):
        return False
    for name in entries:
        doc.claim(target + (name,))
    if not new:
        return True
    if doc.has(target):
        if not addable(doc, target):
            return False
    elif len(target) == 1:  # a new top-level map, at the end of the file
        doc.replace_text(doc.text.rstrip("\n") + f"\n{target[0]}: {{}}\n")
    elif block_mapping(doc, target[:1]):
        doc.add(target[:1], target[-1], {})
    else:
        return False
    for name, value in new.items():
        above, tail = notes.get(name, ([], None))
        doc.add(target, name, value, comment=tail)
        for text in above:
            doc.comment_above(target + (name,), text)
    return True


@fixer("NEL005")
def fix(doc, hit, ctx):
    if tuple(hit.path) == ("evaluation", "overrides"):
        return move(doc, ("evaluation", "overrides"))
    if tuple(hit.path) != SOURCE or not doc.has(SOURCE) or not block_mapping(doc, SOURCE):
        return False
    if not block_mapping(doc, ("execution",)):
        return False
    moves = _moves(doc.value(SOURCE))
    if moves is None:
        return False
    grouped = len(moves) and moves[0][0] != ("env_vars",)
    sources = [
        SOURCE + ((target[0],) if grouped else ()) + (name,)
        for target, entries in moves
        for name in entries
    ]
    comments = _comments(doc, sources)
    doc.delete(SOURCE, with_comments=False)
    # on False the engine restores the text
    for target, entries in moves:
        prefix = SOURCE + ((target[0],) if grouped else ())
        notes = {name: comments.get(prefix + (name,), ([], None)) for name in entries}
        if not _add_entries(doc, target, entries, notes):
            return False
    return True
