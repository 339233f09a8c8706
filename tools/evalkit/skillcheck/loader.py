"""Read a skill directory from disk into a SkillTree.

Markdown is parsed with markdown-it-py (CommonMark plus tables), so links, code spans and
fenced blocks come from the token stream, not from guessing with regexes over raw text.
"""

from __future__ import annotations

import os
import re
from pathlib import Path, PurePosixPath

import yaml
from markdown_it import MarkdownIt

from evalkit.errors import InputError
from evalkit.inputs import decode_text, parse_yaml, read_bytes, special_kind
from evalkit.skillcheck.config import Settings
from evalkit.skillcheck.model import (
    CodeSpan,
    Fence,
    Frontmatter,
    Link,
    MarkdownDoc,
    SkillTree,
    TextFile,
)
from evalkit.skillcheck.paths import skill_roots

# Directories that are not part of the skill: tool state, caches, and the fixture trees
# (which are broken on purpose).
SKIPPED_DIRS = frozenset(
    {
        ".git",
        ".venv",
        "venv",
        "node_modules",
        "__pycache__",
        ".pytest_cache",
        ".ruff_cache",
        ".mypy_cache",
        ".hypothesis",
        "build",
        "dist",
    }
)
SKIPPED_PATHS = frozenset({PurePosixPath("tests/fixtures")})
# Larger files are data, not prose; scanning them would only cost time.
MAX_TEXT_BYTES = 2_000_000

_MARKDOWN = MarkdownIt("commonmark").enable("table")
# Codes separated by commas and spaces, each piece unambiguous: a lazy `[..., ]+?\s*`
# backtracks quadratically on a long run of spaces.
_DISABLE = re.compile(r"<!--\s*evalkit:\s*disable=([A-Za-z0-9_,]+(?: +[A-Za-z0-9_,]+)*)\s*-->")


def load_skill(root: str | Path, settings: Settings | None = None) -> SkillTree:
    root = Path(root)
    if not root.is_dir():
        raise InputError("not a directory" if root.exists() else "no such directory", root)
    skill_path = root / "SKILL.md"
    if not skill_path.is_file():
        raise InputError("no SKILL.md here: not a skill directory", root)

    docs: list[MarkdownDoc] = []
    text_files: list[TextFile] = []
    skill_md: MarkdownDoc | None = None
    frontmatter = Frontmatter(data=None)
    inside = _real(root, root)
    for rel in _walk(root):
        _confined(root / rel, inside)
        text = _read_text(root / rel, strict=rel.suffix == ".md")
        if text is None:
            continue
        text_files.append(TextFile(rel, text))
        if rel.suffix != ".md":
            continue
        doc_frontmatter, body = split_frontmatter(text)
        doc = parse_markdown(rel, text, body)
        docs.append(doc)
        if rel == PurePosixPath("SKILL.md"):
            skill_md, frontmatter = doc, doc_frontmatter
    assert skill_md is not None  # checked above; the walk always visits it
    return SkillTree(
        root,
        skill_md,
        frontmatter,
        docs,
        text_files,
        settings or Settings(),
        skill_roots(root, SKIPPED_DIRS),
    )


def _walk(root: Path):
    """Every file under root (relative POSIX paths, sorted), minus the skipped trees."""
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = PurePosixPath(Path(dirpath).relative_to(root).as_posix())
        dirnames[:] = sorted(
            d
            for d in dirnames
            if d not in SKIPPED_DIRS
            and not d.endswith(".egg-info")
            and (rel_dir / d) not in SKIPPED_PATHS
        )
        for name in sorted(filenames):
            yield rel_dir / name


def _real(path: Path, shown: Path) -> Path:
    try:
        return path.resolve(strict=True)
    except (OSError, RuntimeError) as err:  # RuntimeError: a loop, on Python < 3.13
        loop = isinstance(err, RuntimeError) or "loop" in str(err).lower()
        problem = "symbolic link loop" if loop else "dangling symbolic link"
        raise InputError(problem, shown) from None


def _confined(path: Path, inside: Path) -> None:
    """A symlink may point elsewhere in the skill; one that leaves it (`b.md -> /etc/shadow`)
    is refused, so check-skill never reads, or quotes, a file outside the skill."""
    if not path.is_symlink():
        return
    target = _real(path, path)
    if target != inside and inside not in target.parents:
        raise InputError(
            f"symbolic link leaves the skill directory (-> {target}); not followed", path
        )


def _read_text(path: Path, strict: bool) -> str | None:
    """The file's text; None for binary or oversized files (unless strict: markdown must read).
    A FIFO, device or socket is refused (never opened for a blocking or endless read)."""
    try:
        info = path.stat()
    except OSError as err:
        raise InputError(f"cannot read ({err.strerror or err})", path) from None
    kind = special_kind(info.st_mode)
    if kind is not None:
        raise InputError(f"is {kind}, not a file of the skill; not read", path)
    if not strict and info.st_size > MAX_TEXT_BYTES:
        return None
    data = read_bytes(path)
    try:
        return decode_text(data, path)
    except InputError:
        if strict:
            raise
        return None


def split_frontmatter(text: str) -> tuple[Frontmatter, str]:
    """Parse a leading `---` YAML block; return it and the text with that block blanked.

    The block's lines become empty lines so that line numbers in the body stay true.
    """
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip() != "---":
        return Frontmatter(
            data=None, error="does not start with a '---' frontmatter line", error_line=1
        ), text
    end = next((i for i in range(1, len(lines)) if lines[i].rstrip() == "---"), None)
    if end is None:
        return Frontmatter(
            data=None, error="frontmatter has no closing '---' line", error_line=1
        ), text
    block = "".join(lines[1:end])
    body = "\n" * (end + 1) + "".join(lines[end + 1 :])
    return _parse_frontmatter_yaml(block, end + 1), body


def _parse_frontmatter_yaml(block: str, end_line: int) -> Frontmatter:
    try:
        node = yaml.compose(block, Loader=yaml.SafeLoader)  # pure Python: no C recursion
        data = parse_yaml(block, "frontmatter")  # alias, depth and size bounds
    except RecursionError:
        return Frontmatter(
            data=None, error="frontmatter nested too deeply", error_line=2, end_line=end_line
        )
    except InputError as err:
        return Frontmatter(
            data=None,
            error=f"frontmatter: {err.message}",
            error_line=(err.line or 1) + 1,  # block line 1 is file line 2
            end_line=end_line,
        )
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None) or getattr(err, "context_mark", None)
        problem = getattr(err, "problem", None) or str(err).splitlines()[0]
        # Inside the block (end-of-input marks point past it); +2 skips the opening '---'.
        last = max(0, len(block.splitlines()) - 1)
        line = min(mark.line, last) + 2 if mark is not None else 1
        return Frontmatter(
            data=None,
            error=f"frontmatter is not valid YAML: {problem}",
            error_line=line,
            end_line=end_line,
        )
    if not isinstance(data, dict):
        kind = "empty" if data is None else type(data).__name__
        return Frontmatter(
            data=None,
            error=f"frontmatter must be a mapping, found {kind}",
            error_line=2,
            end_line=end_line,
        )
    key_lines = {}
    if isinstance(node, yaml.MappingNode):
        for key_node, _ in node.value:
            key_lines[str(key_node.value)] = key_node.start_mark.line + 2
    return Frontmatter(data=data, key_lines=key_lines, end_line=end_line)


def parse_markdown(rel: PurePosixPath, text: str, body: str | None = None) -> MarkdownDoc:
    """Collect links, code spans and fenced blocks (with their 1-based lines) from `body`."""
    doc = MarkdownDoc(rel=rel, text=text)
    pending: frozenset[str] = frozenset()  # rules a disable comment turns off for the next block
    for token in _MARKDOWN.parse(text if body is None else body):
        if token.level == 0 and token.nesting >= 0 and token.map and token.type != "html_block":
            if pending:
                doc.suppressions.append((token.map[0] + 1, token.map[1], pending))
                pending = frozenset()
        elif token.type == "html_block":
            match = _DISABLE.search(token.content)
            if match:
                pending = frozenset(r.strip().upper() for r in match.group(1).split(","))
        if token.type == "fence" and token.map:
            language = token.info.strip().split(maxsplit=1)[0].lower() if token.info.strip() else ""
            doc.fences.append(Fence(language, token.content, token.map[0] + 2))
        elif token.type == "inline" and token.map:
            line = token.map[0] + 1
            for child in token.children or []:
                if child.type in ("softbreak", "hardbreak"):
                    line += 1
                elif child.type == "link_open":
                    doc.links.append(Link(str(child.attrs.get("href", "")), line))
                elif child.type == "image":
                    doc.links.append(Link(str(child.attrs.get("src", "")), line))
                elif child.type == "code_inline":
                    doc.code_spans.append(CodeSpan(child.content, line))
    return doc
