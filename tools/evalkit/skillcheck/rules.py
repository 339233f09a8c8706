"""The check-skill rules: one function per rule id, each documented as what / why / fix.

A rule takes the loaded SkillTree and yields Findings. Ids are stable: a rule that is
retired keeps its id unused. `RULES` lists them in id order. Severities follow the
preflight contract: an error is what breaks the skill for an agent (invalid frontmatter,
a path found nowhere, a code block that cannot parse as written); style and house
conventions are warnings; notes are info. House conventions read `tree.settings`.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import PurePosixPath

import yaml

from evalkit.findings import Finding
from evalkit.skillcheck.config import Settings
from evalkit.skillcheck.model import MarkdownDoc, SkillTree
from evalkit.skillcheck.paths import code_paths, find_elsewhere, link_path


@dataclass(frozen=True)
class Rule:
    id: str
    name: str
    check: Callable[[SkillTree], Iterator[Finding]]
    # The severities it reports by default, e.g. "error|warning".
    levels: str = "error"
    # The settings this rule reads (table keys), shown by `check-skill --rules`.
    settings: tuple[str, ...] = ()
    # Whether the rule runs under the given settings (house conventions start off).
    switch: Callable[[Settings], bool] | None = None

    def enabled(self, settings: Settings) -> bool:
        if self.id in settings.disable:
            return False
        return self.switch(settings) if self.switch else True

    @property
    def doc(self) -> str:
        return (self.check.__doc__ or "").strip()

    @property
    def summary(self) -> str:
        return self.doc.splitlines()[0] if self.doc else self.name


RULES: list[Rule] = []


def rule(rule_id: str, name: str, levels: str, settings: tuple[str, ...] = (), switch=None):
    def register(func: Callable[[SkillTree], Iterator[Finding]]):
        RULES.append(Rule(rule_id, name, func, levels, settings, switch))
        return func

    return register


def _finding(rule_id, severity, message, file, line=None, fix=None, path=None) -> Finding:
    return Finding(rule_id, severity, message, path, str(file), line, fix)


SKILL_MD = PurePosixPath("SKILL.md")
NAME_MAX = 64
DESCRIPTION_MAX = 1024
COMPATIBILITY_MAX = 500
ALLOWED_FIELDS = ("name", "description", "license", "compatibility", "metadata", "allowed-tools")


def _valid_name(name: str) -> bool:
    """The reference validator's test: lowercase letters (any script), digits, single
    inner hyphens, at most 64 characters after NFKC normalization."""
    name = unicodedata.normalize("NFKC", name.strip())
    return (
        1 <= len(name) <= NAME_MAX
        and name == name.lower()
        and not name.startswith("-")
        and not name.endswith("-")
        and "--" not in name
        and all(c.isalnum() or c == "-" for c in name)
    )


_WHEN = re.compile(r"\bwhen\b", re.IGNORECASE)


def _frontmatter_value(tree: SkillTree, key: str):
    data = tree.frontmatter.data or {}
    return data.get(key), tree.frontmatter.key_lines.get(key, 1)


# --- SKILL.md frontmatter -------------------------------------------------------------


@rule("SK001", "frontmatter", "error")
def check_frontmatter(tree: SkillTree) -> Iterator[Finding]:
    """SKILL.md starts with a YAML frontmatter mapping between two `---` lines.

    Why: agents read only the frontmatter to decide whether to load the skill; without it
    the skill is never picked.
    Fix: put `---`, then `name:` and `description:` lines, then `---` at the top of SKILL.md.
    """
    fm = tree.frontmatter
    if fm.data is None:
        fix = (
            "fix the YAML at this line (quote values that contain ': ' or start with a quote)"
            if fm.end_line
            else "start SKILL.md with a '---' line, the YAML fields, and a closing '---' line"
        )
        yield _finding(
            "SK001", "error", fm.error or "missing frontmatter", SKILL_MD, fm.error_line or 1, fix
        )


@rule("SK002", "name-format", "error")
def check_name(tree: SkillTree) -> Iterator[Finding]:
    """`name` is present: 1-64 lowercase letters (any script), digits and single hyphens.

    Why: the Agent Skills spec uses the name as the install directory and identifier; no
    leading, trailing or doubled hyphen.
    Fix: e.g. `name: evaluation`.
    """
    if tree.frontmatter.data is None:
        return
    name, line = _frontmatter_value(tree, "name")
    fix = "use 1-64 characters from a-z, 0-9 and '-', e.g. 'name: evaluation'"
    if "name" not in tree.frontmatter.data:
        yield _finding("SK002", "error", "frontmatter has no 'name'", SKILL_MD, line, fix, "name")
    elif not isinstance(name, str):
        yield _finding("SK002", "error", "'name' must be a string", SKILL_MD, line, fix, "name")
    elif not _valid_name(name):
        yield _finding(
            "SK002", "error", f"invalid skill name {name!r}", SKILL_MD, line, fix, "name"
        )


@rule("SK003", "name-directory", "warning")
def check_name_matches_directory(tree: SkillTree) -> Iterator[Finding]:
    """`name` differs from the directory name (warning).

    Why: installers (`npx skills add`) put the skill under a directory named after `name`,
    and the spec's validator insists they match there; a checkout may be named anything, so
    this is only a warning.
    Fix: none needed for a checkout; for an installed copy rename the directory.
    """
    name, line = _frontmatter_value(tree, "name")
    if isinstance(name, str) and _valid_name(name) and tree.root.resolve().name != name:
        yield _finding(
            "SK003",
            "warning",
            f"skill name {name!r} differs from the directory name {tree.root.resolve().name!r}",
            SKILL_MD,
            line,
            f"installed copies must live in a directory named {name!r}",
            "name",
        )


@rule("SK004", "description-format", "error")
def check_description(tree: SkillTree) -> Iterator[Finding]:
    """`description` is present: a non-empty string of at most 1024 characters.

    Why: the description is all an agent sees before it loads the skill.
    Fix: one paragraph saying what the skill does and when to use it.
    """
    if tree.frontmatter.data is None:
        return
    text, line = _frontmatter_value(tree, "description")
    fix = "write what the skill does and when to use it, at most 1024 characters"
    if "description" not in tree.frontmatter.data:
        message = "frontmatter has no 'description'"
    elif not isinstance(text, str) or not text.strip():
        message = "'description' must be a non-empty string"
    elif len(text) > DESCRIPTION_MAX:
        message = f"'description' has {len(text)} characters, more than {DESCRIPTION_MAX}"
    else:
        return
    yield _finding("SK004", "error", message, SKILL_MD, line, fix, "description")


@rule("SK005", "description-when", "warning", ("require-when",), lambda s: s.require_when)
def check_description_says_when(tree: SkillTree) -> Iterator[Finding]:
    """`description` says when to use the skill (house convention, `require-when`).

    On with `require-when = true`: the description contains the word "when". A warning
    unless the settings raise its severity.

    Why: agents match the user's request against the description; a "Use when ..."
    clause carries the trigger phrases. The heuristic is deliberately simple: the word
    "when" anywhere, any case.
    Fix: add a sentence such as `Use when asked to "evaluate a model" ...`.
    """
    text, line = _frontmatter_value(tree, "description")
    if isinstance(text, str) and text.strip() and not _WHEN.search(text):
        yield _finding(
            "SK005",
            "warning",
            "'description' does not say when to use the skill (no 'when')",
            SKILL_MD,
            line,
            "add a 'Use when ...' sentence with the requests that should trigger the skill",
            "description",
        )


@rule("SK006", "frontmatter-fields", "error|warning")
def check_frontmatter_fields(tree: SkillTree) -> Iterator[Finding]:
    """Only the spec's fields appear, with the spec's types.

    Allowed: name, description, license, compatibility (string, <= 500 characters),
    metadata (mapping of string to string), allowed-tools. Unknown fields and a bad
    `compatibility` are errors, as in the reference validator; a `metadata` value that is
    not a string or an `allowed-tools` list is a warning (the validator reads them as
    strings).
    Why: other fields are rejected by the spec's validator and ignored by agents.
    Fix: remove the field or move it under `metadata:`.
    """
    data = tree.frontmatter.data
    if data is None:
        return
    lines = tree.frontmatter.key_lines
    for key in data:
        if key not in ALLOWED_FIELDS:
            yield _finding(
                "SK006",
                "error",
                f"unknown frontmatter field {key!r}",
                SKILL_MD,
                lines.get(str(key), 1),
                f"allowed fields: {', '.join(ALLOWED_FIELDS)}; put extras under 'metadata:'",
                str(key),
            )
    if "compatibility" in data:
        value = data["compatibility"]
        if not isinstance(value, str) or len(value) > COMPATIBILITY_MAX:
            yield _finding(
                "SK006",
                "error",
                f"'compatibility' must be a string of at most {COMPATIBILITY_MAX} characters",
                SKILL_MD,
                lines.get("compatibility", 1),
                "shorten it to the environment requirements that matter",
                "compatibility",
            )
    if "metadata" in data:
        value = data["metadata"]
        if not isinstance(value, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in value.items()
        ):
            yield _finding(
                "SK006",
                "warning",
                "'metadata' must map strings to strings",
                SKILL_MD,
                lines.get("metadata", 1),
                'quote values, e.g. version: "1.0"',
                "metadata",
            )
    if "allowed-tools" in data and not isinstance(data["allowed-tools"], str):
        yield _finding(
            "SK006",
            "warning",
            "'allowed-tools' must be a space-separated string",
            SKILL_MD,
            lines.get("allowed-tools", 1),
            "e.g. allowed-tools: Bash(scripts/evalkit:*) Read",
            "allowed-tools",
        )


# --- SKILL.md size ---------------------------------------------------------------------


@rule("SK007", "skill-md-length", "warning", ("max-lines",))
def check_skill_md_length(tree: SkillTree) -> Iterator[Finding]:
    """SKILL.md has at most `max-lines` lines (default 500, the spec's recommendation).

    Why: SKILL.md is loaded whole whenever the skill triggers; detail belongs in
    references/ files that are read on demand (progressive disclosure).
    Fix: move detail into a references/ file and link it from SKILL.md.
    """
    count, limit = tree.skill_md.line_count, tree.settings.max_lines
    if count > limit:
        yield _finding(
            "SK007",
            "warning",
            f"SKILL.md has {count} lines, more than {limit}",
            SKILL_MD,
            limit + 1,
            "move detail into references/ and link to it",
        )


# --- paths -----------------------------------------------------------------------------


def _elsewhere(tree: SkillTree, rel: PurePosixPath) -> tuple[str, str] | None:
    """Where outside the skill `rel` exists (repository, then siblings), or None."""
    return find_elsewhere(tree.root, rel)


@rule("SK008", "link-target", "error|warning|info")
def check_link_targets(tree: SkillTree) -> Iterator[Finding]:
    """Every relative link target in a markdown file resolves.

    Targets resolve relative to the file holding the link (anchors and queries dropped);
    URLs, bare `#anchors` and absolute paths are not checked. A target found nowhere is an
    error. One that resolves from the file but lies outside the skill is a note (info):
    it works in this repository, not in a copy of the skill alone. One that does not
    resolve from the file but exists in the repository or a sibling folder is a warning
    with the path that does resolve.
    Why: a broken link sends the agent to a file that is not there.
    Fix: correct the path, or add the missing file.
    """
    for doc in tree.docs:
        for link in doc.links:
            target = link_path(link.target)
            if target is None:
                continue
            rel = doc.rel.parent / target
            if tree.exists(rel):
                if not tree.inside(rel):
                    yield _finding(
                        "SK008",
                        "info",
                        f"link {link.target!r} resolves outside the skill directory",
                        doc.rel,
                        link.line,
                        "fine inside this repository; a copy of the skill alone lacks it",
                    )
                continue
            found = _elsewhere(tree, _normalize(rel)) if tree.inside(rel) else None
            if found:
                yield _finding(
                    "SK008",
                    "warning",
                    f"link target {link.target!r} does not resolve from this file; "
                    f"found in {found[0]} at {found[1]}",
                    doc.rel,
                    link.line,
                    "make the link relative to this file",
                )
            else:
                yield _finding(
                    "SK008",
                    "error",
                    f"link target {link.target!r} does not exist",
                    doc.rel,
                    link.line,
                    "fix the path (relative to this file) or add the file",
                )


def _code_path_mentions(doc: MarkdownDoc, roots: tuple[str, ...]) -> Iterator[tuple[str, int]]:
    for span in doc.code_spans:
        for path, _ in code_paths(span.text, roots):
            yield path, span.line
    for fence in doc.fences:
        for path, offset in code_paths(fence.body, roots):
            yield path, fence.body_line + offset


_DIR_WORD = re.compile(r"^\.?/?[\w.-]+(?:/[\w.-]+)+/?$")


def _under_nearby_dir(tree: SkillTree, doc: MarkdownDoc, line: int, rel: PurePosixPath):
    """(label, path) when `rel` exists under a folder named in another code span on the
    same line, as in "`examples/x` (`scripts/run.sh`)"; else None."""
    for span in doc.code_spans:
        word = span.text.strip()
        if span.line != line or not _DIR_WORD.match(word):
            continue
        joined = _normalize(PurePosixPath(word) / rel)
        if tree.inside(joined) and tree.exists(joined):
            return f"the folder `{word}` named on the same line", str(joined)
        found = _elsewhere(tree, joined)
        if found:
            return f"the folder `{word}` named on the same line, in {found[0]}", found[1]
    return None


@rule("SK009", "code-path", "error|info")
def check_code_paths(tree: SkillTree) -> Iterator[Finding]:
    """Every path named in code resolves: in the skill, the repository, or a sibling.

    Counts words in inline code spans and fenced blocks (any language) that start with one
    of the skill's own top-level folders or the spec's scripts/, references/, assets/ (or
    `./` and one of those); trailing punctuation, `:line` suffixes and `#anchors` are
    dropped, `{a,b}` lists are expanded, and words with `<...>` placeholders, globs (`*`,
    `?`) or `$` variables are skipped. A path not in the skill is looked up in each folder
    from the skill's parent up to the repository root (the nearest `.git`), then in the
    skill's sibling folders, then under a folder named in another code span on the same
    line. Found there: a note (info) saying where. Found nowhere: error.
    Why: commands and file names in code are copied verbatim by agents.
    Fix: correct the path, or add the missing file.
    """
    for doc in tree.docs:
        for path, line in _code_path_mentions(doc, tree.path_roots):
            rel = PurePosixPath(path)
            if tree.inside(rel) and tree.exists(rel):
                continue
            found = _elsewhere(tree, _normalize(rel)) if tree.inside(rel) else None
            found = found or _under_nearby_dir(tree, doc, line, rel)
            if found:
                yield _finding(
                    "SK009",
                    "info",
                    f"path {path!r} is not in the skill; found in {found[0]} at {found[1]}",
                    doc.rel,
                    line,
                    "fine where the skill runs from this repository",
                )
            else:
                yield _finding(
                    "SK009",
                    "error",
                    f"path {path!r} does not exist in the skill, the repository or a sibling",
                    doc.rel,
                    line,
                    "paths in code are relative to the skill root: fix it or add the file",
                )


REFERENCES = PurePosixPath("references")


def _mentions(doc: MarkdownDoc, roots: tuple[str, ...]) -> set[PurePosixPath]:
    """Skill-root-relative paths a document names, by link or in code."""
    named = {PurePosixPath(p) for p, _ in _code_path_mentions(doc, roots)}
    for link in doc.links:
        target = link_path(link.target)
        if target is not None:
            named.add(_normalize(doc.rel.parent / target))
    return named


def _normalize(rel: PurePosixPath) -> PurePosixPath:
    parts: list[str] = []
    for part in rel.parts:
        if part == "..":
            if parts:
                parts.pop()
        elif part != ".":
            parts.append(part)
    return PurePosixPath(*parts) if parts else PurePosixPath(".")


@rule("SK010", "references-depth", "warning")
def check_reference_depth(tree: SkillTree) -> Iterator[Finding]:
    """References are one level deep from SKILL.md.

    Three parts, all warnings (the spec recommends, it does not require): (1) markdown
    files under references/ sit directly in it, with no subfolders; (2) a references/
    file does not link to a markdown file in a subfolder of references/; (3) every
    references/*.md file is named by SKILL.md, as a link or a path in code, so no
    reference is reachable only through another one.
    Why: agents read SKILL.md whole but often only skim a file it points to; a fact two
    hops away is easily missed.
    Fix: flatten the folder and link each reference from SKILL.md.
    """
    named_by_skill = _mentions(tree.skill_md, tree.path_roots)
    for doc in tree.docs:
        if doc.rel.parts[0:1] != ("references",) or doc.rel.suffix != ".md":
            continue
        if doc.rel.parent != REFERENCES:
            yield _finding(
                "SK010",
                "warning",
                "reference file is in a subfolder of references/",
                doc.rel,
                1,
                "move it directly under references/ and link it from SKILL.md",
            )
            continue
        for link in doc.links:
            target = link_path(link.target)
            if target is None:
                continue
            rel = _normalize(doc.rel.parent / target)
            if (
                rel.suffix == ".md"
                and rel.parts[:1] == ("references",)
                and rel.parent != REFERENCES
            ):
                yield _finding(
                    "SK010",
                    "warning",
                    f"links to {str(rel)!r}, a reference two levels deep",
                    doc.rel,
                    link.line,
                    "keep reference files directly under references/",
                )
        if doc.rel not in named_by_skill:
            yield _finding(
                "SK010",
                "warning",
                "reference file is not named in SKILL.md",
                doc.rel,
                1,
                "link it from SKILL.md so an agent can reach it in one hop",
            )


# --- retired names ---------------------------------------------------------------------


@rule("SK011", "retired-name", "warning", ("retired-names",), lambda s: bool(s.retired_names))
def check_stale_names(tree: SkillTree) -> Iterator[Finding]:
    """No text file uses a retired name (house convention, `retired-names`).

    Off while the `retired-names` list is empty, as it is by default. Matched as whole
    tokens, so longer identifiers that contain one are fine. The file
    that lists the names is not scanned.
    Why: the old files are gone; an agent following an old name finds nothing, or an
    outdated copy elsewhere.
    Fix: use the current name.
    """
    names = tree.settings.retired_names
    pattern = re.compile(
        r"(?<![A-Za-z0-9_-])(" + "|".join(re.escape(n) for n in names) + r")(?![A-Za-z0-9_-])"
    )
    listing = tree.settings.config_file
    for text_file in tree.text_files:
        if listing is not None and (tree.root / text_file.rel).resolve() == listing.resolve():
            continue
        if pattern.search(text_file.text) is None:
            continue
        for number, line in enumerate(text_file.text.splitlines(), start=1):
            for match in pattern.finditer(line):
                yield _finding(
                    "SK011",
                    "warning",
                    f"retired name {match.group(1)!r}",
                    text_file.rel,
                    number,
                    "use the current file or folder name",
                )


# --- fenced blocks ---------------------------------------------------------------------

YAML_LANGUAGES = {"yaml", "yml"}
SHELL_LANGUAGES = {"bash", "sh", "shell"}
PYTHON_LANGUAGES = {"python", "py", "python3"}
JSON_LANGUAGES = {"json"}


def _last_offset(text: str, offset: int) -> int:
    """Parsers report end-of-input one line past the text; keep the line inside it."""
    return max(0, min(offset, len(text.splitlines()) - 1))


def _yaml_problem(text: str) -> tuple[str, int] | None:
    """(problem, 0-based line offset) for text that does not parse as YAML, else None."""
    try:
        for _ in yaml.safe_load_all(text):
            pass
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None) or getattr(err, "context_mark", None)
        problem = getattr(err, "problem", None) or str(err).splitlines()[0]
        return problem, _last_offset(text, mark.line if mark is not None else 0)
    return None


# Documentation elides with `...` and annotates JSON with `//`: such a block is a sketch,
# not broken code. Each `_without_*` removes only those marks, so a block that still
# fails to parse afterwards has a real error.
_ELLIPSIS_LINE = re.compile(r"^[ \t]*(?:\.\.\.|\u2026)[ \t]*(?:#.*)?$", re.M)
_ELLIPSIS_ITEM = re.compile(r",\s*(?:\.\.\.|\u2026)(?=\s*[,)\]}])")
_ELLIPSIS_ONLY = re.compile(r"([\[{(])\s*(?:\.\.\.|\u2026)\s*([\]})])")
_JSON_COMMENT = re.compile(r"(?:(?<=[\s,\[{])|^)//[^\n]*", re.M)


def _without_elisions(text: str) -> str:
    text = _ELLIPSIS_LINE.sub("", text)
    text = _ELLIPSIS_ITEM.sub("", text)
    return _ELLIPSIS_ONLY.sub(r"\1\2", text)


def _json_sketch_parses(text: str) -> str | None:
    """What makes a JSON block a sketch ("comments", "elisions", "a fragment") when it
    parses once that is removed, else None."""
    marks = []
    cleaned = _JSON_COMMENT.sub("", text)
    if cleaned != text:
        marks.append("comments")
    elided = _without_elisions(cleaned)
    if elided != cleaned:
        marks.append("elisions")
    elided = re.sub(r",(\s*[\]}])", r"\1", elided)  # the comma before a removed item
    for candidate, extra in ((elided, None), ("{" + elided + "}", "a fragment")):
        try:
            json.loads(candidate)
        except json.JSONDecodeError:
            continue
        marks += [extra] if extra else []
        return " and ".join(marks) if marks else None
    lines = [line for line in elided.splitlines() if line.strip()]
    try:
        for line in lines:
            json.loads(line)
    except json.JSONDecodeError:
        return None
    return " and ".join([*marks, "one value per line (JSON Lines)"]) if len(lines) > 1 else None


@rule("SK012", "yaml-block", "error|warning")
def check_yaml_blocks(tree: SkillTree) -> Iterator[Finding]:
    """Fenced `yaml`/`yml` blocks parse (all documents; a pasteable fragment must parse too).

    A block that parses once its `...` elision lines are removed is a sketch: a warning.

    Why: agents paste these blocks into configs; a block that does not parse makes a
    config that does not load.
    Fix: correct the indentation or quoting at the reported line.
    """
    for doc in tree.docs:
        for fence in doc.fences:
            if fence.language in YAML_LANGUAGES:
                problem = _yaml_problem(fence.body)
                if problem and _yaml_problem(_without_elisions(fence.body)) is None:
                    yield _finding(
                        "SK012",
                        "warning",
                        "yaml block does not parse as written: it elides with `...`",
                        doc.rel,
                        fence.body_line + problem[1],
                        "write the full YAML, or mark the block `text`",
                    )
                elif problem:
                    yield _finding(
                        "SK012",
                        "error",
                        f"yaml block does not parse: {problem[0]}",
                        doc.rel,
                        fence.body_line + problem[1],
                        "fix the YAML, or mark the block `text` if it is not YAML",
                    )


_BASH_LINE = re.compile(r"line (\d+): (.*)")
# `<name>` as written in documentation: a word in angle brackets, not `<<`, `<(` or `< file`.
_PLACEHOLDER = re.compile(r"(?<![<\w])<([A-Za-z_][\w.:/-]*)>(?!>)")


def _bash_n(text: str) -> tuple[int, str] | None:
    """(0-based line offset, message) of bash's first syntax error, or None when it parses."""
    proc = subprocess.run(["bash", "-n"], input=text, capture_output=True, text=True, check=False)
    if proc.returncode == 0:
        return None
    first = next((ln for ln in proc.stderr.splitlines() if ln.strip()), "syntax error")
    match = _BASH_LINE.search(first)
    offset = _last_offset(text, int(match.group(1)) - 1 if match else 0)
    return offset, match.group(2) if match else first


def _unquoted_placeholders(text: str) -> list[tuple[str, int]]:
    """`<name>` words outside quotes and comments, with their 0-based line offset; bash
    reads those as redirections. (Here-document bodies are not told apart.)"""
    found: list[tuple[str, int]] = []
    for offset, line in enumerate(text.splitlines()):
        quote, i = "", 0
        while i < len(line):
            ch = line[i]
            if quote:
                if ch == quote:
                    quote = ""
                elif ch == "\\" and quote == '"':
                    i += 1
            elif ch in "'\"":
                quote = ch
            elif ch == "\\":
                i += 1
            elif ch == "#" and (i == 0 or line[i - 1].isspace()):
                break
            elif ch == "<":
                match = _PLACEHOLDER.match(line, i)
                if match and (i == 0 or line[i - 1] != "<"):
                    found.append((match.group(1), offset))
                    i = match.end()
                    continue
            i += 1
    return found


@rule("SK013", "shell-block", "error|warning")
def check_shell_blocks(tree: SkillTree) -> Iterator[Finding]:
    """Fenced `bash`/`sh`/`shell` blocks pass `bash -n` (syntax only, nothing runs).

    With every `<placeholder>` filled in, a block that still fails is an error. A block
    with `<placeholder>` words outside quotes gets one warning: bash reads them as
    redirections, so the block does not run as written even when it parses.
    Why: a command with an unbalanced quote or `if` fails on the user's machine, often
    after a long setup; `--yaml <config.yaml> --yes` redirects instead of passing a file.
    Fix: correct the syntax at the reported line; write placeholders as `$VAR` (or
    `"<value>"` in quotes), or mark the block `console` for a template or transcript.
    """
    for doc in tree.docs:
        for fence in doc.fences:
            if fence.language not in SHELL_LANGUAGES:
                continue
            placeholders = _unquoted_placeholders(fence.body)
            filled = _PLACEHOLDER.sub(
                lambda m: "PLACEHOLDER_" + re.sub(r"\W", "_", m.group(1)), fence.body
            )
            problem = _bash_n(filled)
            if problem is not None:
                yield _finding(
                    "SK013",
                    "error",
                    f"shell block fails bash -n: {problem[1]}",
                    doc.rel,
                    fence.body_line + problem[0],
                    "fix the shell syntax, or mark the block `console`/`text`",
                )
            elif placeholders:
                names = list(dict.fromkeys(f"<{name}>" for name, _ in placeholders))
                listed = ", ".join(names[:3]) + (" ..." if len(names) > 3 else "")
                yield _finding(
                    "SK013",
                    "warning",
                    f"shell block does not run as written: bash reads {listed} as redirection",
                    doc.rel,
                    fence.body_line + placeholders[0][1],
                    "write placeholders as $VAR (e.g. $MODEL) or mark the block `console`",
                )


# Top-level `await` is how asyncio REPLs and notebooks run async examples.
_PY_FLAGS = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT


def _compiles(text: str) -> bool:
    try:
        compile(text, "<block>", "exec", flags=_PY_FLAGS, dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True


@rule("SK014", "python-block", "error|warning")
def check_python_blocks(tree: SkillTree) -> Iterator[Finding]:
    """Fenced `python`/`py` blocks compile.

    A block that compiles once `...` elisions (`f(a, ...)`, a `...` line) and
    `<placeholder>` words are taken out is a sketch: a warning.

    Why: snippets are run as written; a syntax error wastes a round trip.
    Fix: correct the syntax at the reported line.
    """
    for doc in tree.docs:
        for fence in doc.fences:
            if fence.language not in PYTHON_LANGUAGES:
                continue
            try:
                compile(fence.body, str(doc.rel), "exec", flags=_PY_FLAGS, dont_inherit=True)
            except SyntaxError as err:
                sketch = _PLACEHOLDER.sub(lambda m: m.group(1).replace(".", "_"), fence.body)
                sketch_ok = _compiles(_without_elisions(sketch))
                yield _finding(
                    "SK014",
                    "warning" if sketch_ok else "error",
                    "python block does not compile as written: it elides with `...` or "
                    "`<placeholder>`"
                    if sketch_ok
                    else f"python block does not compile: {err.msg}",
                    doc.rel,
                    fence.body_line + _last_offset(fence.body, (err.lineno or 1) - 1),
                    "fix the Python syntax, or mark the block `text`",
                )


@rule("SK015", "json-block", "error|warning")
def check_json_blocks(tree: SkillTree) -> Iterator[Finding]:
    """Fenced `json` blocks parse as strict JSON (no comments, no trailing commas).

    A block that parses once `//` comments and `...` elisions are removed, or once wrapped
    in braces (a `"key": {...}` fragment), is a sketch: a warning.

    Why: JSON shown in the docs is copied into files that strict parsers read.
    Fix: correct the JSON, or mark the block `jsonc`/`text` if it is annotated.
    """
    for doc in tree.docs:
        for fence in doc.fences:
            if fence.language not in JSON_LANGUAGES:
                continue
            try:
                json.loads(fence.body)
            except json.JSONDecodeError as err:
                sketch = _json_sketch_parses(fence.body)
                yield _finding(
                    "SK015",
                    "warning" if sketch else "error",
                    f"json block does not parse as written: it has {sketch}"
                    if sketch
                    else f"json block does not parse: {err.msg}",
                    doc.rel,
                    fence.body_line + _last_offset(fence.body, err.lineno - 1),
                    "fix the JSON, or mark the block `jsonc` if it carries comments",
                )


# --- example configs -------------------------------------------------------------------

EXAMPLES = PurePosixPath("recipes/examples")


@rule("SK016", "example-yaml", "error")
def check_example_configs(tree: SkillTree) -> Iterator[Finding]:
    """Every YAML file under recipes/examples/ parses.

    Why: these are the configs users copy; a file that does not parse fails at launch.
    Fix: correct the YAML at the reported line.
    """
    for text_file in tree.text_files:
        rel = text_file.rel
        if rel.suffix not in (".yaml", ".yml") or rel.parts[:2] != EXAMPLES.parts:
            continue
        problem = _yaml_problem(text_file.text)
        if problem:
            yield _finding(
                "SK016",
                "error",
                f"example config does not parse: {problem[0]}",
                rel,
                problem[1] + 1,
                "fix the YAML at this line",
            )
