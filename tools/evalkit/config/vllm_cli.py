"""A `vllm serve` command read the way vLLM's argument parser reads it.

The argument tables (`data/vllm-<version>-serve.json`) are generated from the vLLM
wheels by `tools/dev/gen_vllm_args.py`. This module finds the `vllm serve` invocation
in a shell command, splits its words into flags and values as argparse would (exact
names, aliases, `--no-` forms, unique abbreviations, `--flag=value`, underscores for
dashes, `--json-flag.key value`) and reports what the server would refuse.
"""

from __future__ import annotations

import difflib
import json
import re
import shlex
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path

from evalkit.inputs import read_text

SEPARATORS = set(";&|()<>")
NEGATIVE_NUMBER = re.compile(r"-\d+(\.\d+)?")
VERSION_TAG = re.compile(r"v?(\d+)\.(\d+)(?:\.(\d+))?(?:\.(\d+))?(?=$|[-+._])")
REASONING, REASONING_PLUGIN = "--reasoning-parser", "--reasoning-parser-plugin"
TOOL, TOOL_PLUGIN = "--tool-call-parser", "--tool-parser-plugin"


# -- tables -----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Table:
    version: str
    flags: dict
    aliases: dict
    values: dict
    reasoning_parsers: frozenset
    tool_parsers: frozenset

    @property
    def long_names(self) -> list[str]:
        return sorted(n for n in (*self.flags, *self.aliases) if n.startswith("--"))

    def canonical(self, name: str) -> str | None:
        if name in self.flags:
            return name
        return self.aliases.get(name)


def version_key(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", version)[:4])


@cache
def known_versions() -> tuple[str, ...]:
    names = [p.name for p in resources.files("evalkit.data").iterdir()]
    found = [m.group(1) for n in names if (m := re.fullmatch(r"vllm-(.+)-serve\.json", n))]
    return tuple(sorted(found, key=version_key))


@cache
def load_table(version: str) -> Table:
    text = read_text(Path(__file__).resolve().parents[1] / "data" / f"vllm-{version}-serve.json")
    raw = json.loads(text)
    return Table(
        version=raw["vllm"],
        flags=raw["flags"],
        aliases=raw["aliases"],
        values=raw.get("values", {}),
        reasoning_parsers=frozenset(raw["reasoning_parsers"]),
        tool_parsers=frozenset(raw["tool_parsers"]),
    )


def version_from_image(image: object) -> str | None:
    """'0.26.0' from vllm/vllm-openai:v0.26.0, registry.example.org/x/vllm:0.26.0-cu130.

    Calendar tags (NGC's 25.09-py3) and dates are not vLLM versions: None.
    """
    if not isinstance(image, str) or ":" not in image.rsplit("/", 1)[-1]:
        return None
    tag = image.split("@", 1)[0].rsplit("/", 1)[-1].split(":", 1)[1]
    m = VERSION_TAG.match(tag)
    if not m or int(m.group(1)) >= 20:
        return None
    parts = [p for p in m.groups() if p is not None]
    return ".".join(parts + ["0"] * (3 - len(parts)))


@dataclass(frozen=True)
class TableChoice:
    table: Table
    exact: bool  # the image's own version; else a stand-in (findings become warnings)
    image_version: str | None


def choose_table(image: object) -> TableChoice:
    """The image's version when a table exists for it, else the nearest known one."""
    versions = known_versions()
    wanted = version_from_image(image)
    if wanted in versions:
        return TableChoice(load_table(wanted), True, wanted)
    if wanted is None:
        return TableChoice(load_table(versions[-1]), False, None)
    key = version_key(wanted)

    def distance(v: str) -> tuple:
        other = version_key(v)
        width = max(len(key), len(other))
        a, b = key + (0,) * (width - len(key)), other + (0,) * (width - len(other))
        return tuple(abs(x - y) for x, y in zip(a, b, strict=False)), other < key

    return TableChoice(load_table(min(versions, key=distance)), False, wanted)


PLACEHOLDER = re.compile(r"<([A-Z][A-Z0-9_]*)>")  # as NEL003 finds them


# -- finding the invocation --------------------------------------------------------------------
def shell_words(text: str) -> list[str]:
    """Words of a shell script; operators (`&&`, `;`, `|`, redirections) stay as words,
    a word starting with `#` ends its line, and each unjoined newline ends a command."""
    text = re.sub(r"(?<!\\)\\\n", " ", text)  # a line continuation
    # A template's `<PARSER>` is a blank (NEL003 reports it), not two redirections: keep
    # it one word through the lexer, which would split at `<` and `>`.
    text = PLACEHOLDER.sub(lambda m: f"\x01{m.group(1)}\x02", text)
    words: list[str] = []
    for line in text.splitlines():
        lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|()<>")
        lexer.whitespace_split = True
        lexer.commenters = ""
        try:
            line_words = list(lexer)
        except ValueError:  # unbalanced quotes: whitespace words
            line_words = line.split()
        for word in line_words:
            if word.startswith("#"):
                break
            words.append(word.replace("\x01", "<").replace("\x02", ">"))
        words.append(";")
    return words


def serve_invocations(text: object) -> list[list[str]]:
    """The argument words of each `vllm serve` (or OpenAI api_server module) call."""
    if not isinstance(text, str):
        return []
    words = shell_words(text)
    found = []
    for i, word in enumerate(words):
        start = None
        if (
            word.rsplit("/", 1)[-1] == "vllm"
            and words[i + 1 : i + 2] == ["serve"]
            or words[i : i + 1] == ["-m"]
            and words[i + 1 : i + 2] == ["vllm.entrypoints.openai.api_server"]
        ):
            start = i + 2
        if start is None:
            continue
        end = start
        while end < len(words) and not set(words[end]) <= SEPARATORS:
            end += 1
        found.append(words[start:end])
    return found


# -- reading the arguments ---------------------------------------------------------------------
@dataclass
class Problem:
    kind: str  # unknown abbreviation ambiguous missing-value unexpected-value choice
    # unregistered-parser plugin-parser repeated
    flag: str  # the word as written
    message: str
    fix: str | None = None


@dataclass
class Use:
    written: str
    canonical: str
    values: tuple[str, ...]


@dataclass
class Reading:
    uses: list[Use] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    def values_of(self, canonical: str) -> list[tuple[str, ...]]:
        return [u.values for u in self.uses if u.canonical == canonical]


def unresolved(word: str) -> bool:
    """A word the config leaves open: a shell variable, a `???` blank, a substitution."""
    return "$" in word or "???" in word or "`" in word or word.startswith("<")


def option_like(word: str) -> bool:
    return (
        word.startswith("-")
        and word != "-"
        and not NEGATIVE_NUMBER.fullmatch(word)
        and " " not in word
        and not unresolved(word)
    )


def _normalise(name: str) -> str:
    """vLLM's parser turns `_` into `-` in a long flag's name, up to the first `.`."""
    if not name.startswith("--"):
        return name
    head, dot, tail = name[2:].partition(".")
    return "--" + head.replace("_", "-") + dot + tail


def read_args(args: list[str], table: Table) -> Reading:
    out = Reading()
    i = 0
    while i < len(args):
        word = args[i]
        i += 1
        if word == "--":
            break
        if unresolved(word) or not option_like(word):
            continue  # a positional (the model) or a value we cannot see
        if word == "-O" or (word.startswith("-O") and not word.startswith("--")):
            if word == "-O" and i < len(args) and not option_like(args[i]):
                i += 1
            continue  # -O3: vLLM's own shorthand for --optimization-level
        name, eq, inline = word.partition("=")
        name = _normalise(name)
        base, dotted, _ = name.partition(".")
        canonical = _resolve(base, word, table, out)
        if canonical is None:
            continue  # its value, if any, is skipped as a positional word
        entry = table.flags[canonical]
        if dotted:  # --compilation-config.mode 3: one JSON key, merged by vLLM
            if not eq and i < len(args):
                i += 1
            continue
        nargs = entry.get("nargs", 1)
        if nargs == 0:
            if eq:
                out.problems.append(
                    Problem(
                        "unexpected-value",
                        word,
                        f"{base} takes no value; vLLM {table.version} stops at "
                        f"'{word}' (ignored explicit argument)",
                        fix=f"write {base} alone (or its --no- form)",
                    )
                )
            negated = base.startswith("--no-") and canonical != base
            out.uses.append(Use(word, canonical, ("false",) if negated else ("true",)))
            continue
        values: list[str] = []
        if eq:
            values.append(inline)
        else:
            want = nargs if isinstance(nargs, int) else (1 if nargs == "+" else 0)
            many = nargs in ("+", "*")
            while i < len(args) and not option_like(args[i]) and not set(args[i]) <= SEPARATORS:
                if not many and len(values) >= max(want, 1):
                    break
                if nargs == "?" and values:
                    break
                values.append(args[i])
                i += 1
            if len(values) < want:
                out.problems.append(
                    Problem(
                        "missing-value",
                        word,
                        f"{word} expects {_count(nargs)} and got "
                        + (f"'{args[i]}' next" if i < len(args) else "nothing"),
                        fix=f"give {word} its value",
                    )
                )
                continue
        out.uses.append(Use(word, canonical, tuple(values)))
        _check_choices(word, canonical, values, table, out)
    _check_parsers(table, out)
    _check_repeats(table, out)
    return out


def _count(nargs) -> str:
    if nargs == "+":
        return "at least one value"
    return "one value" if nargs == 1 else f"{nargs} values"


def _resolve(base: str, word: str, table: Table, out: Reading) -> str | None:
    canonical = table.canonical(base)
    if canonical is not None:
        return canonical
    if base.startswith("--"):
        matches = sorted({table.canonical(n) for n in table.long_names if n.startswith(base)})
        spelled = [n for n in table.long_names if n.startswith(base)]
        if len(matches) == 1:
            out.problems.append(
                Problem(
                    "abbreviation",
                    word,
                    f"{base} is accepted only as an abbreviation of {spelled[0]}; a later "
                    "vLLM that adds a flag with the same start refuses it",
                    fix=f"spell it out: {spelled[0]}",
                )
            )
            return matches[0]
        if len(matches) > 1:
            out.problems.append(
                Problem(
                    "ambiguous",
                    word,
                    f"ambiguous option {base}: vLLM {table.version} could match "
                    + ", ".join(spelled[:4]),
                    fix="spell the flag out in full",
                )
            )
            return None
    else:  # -tp2: a short alias with its value attached
        for alias in sorted(table.aliases, key=len, reverse=True):
            if not alias.startswith("--") and base.startswith(alias) and len(base) > len(alias):
                return None
    close = difflib.get_close_matches(base, table.long_names, n=1, cutoff=0.75)
    hint = f"; did you mean {close[0]}?" if close else ""
    out.problems.append(
        Problem(
            "unknown",
            word,
            f"vLLM {table.version} has no flag {base}{hint}",
            fix=f"use {close[0]}" if close else "delete it, or check `vllm serve --help=all`",
        )
    )
    return None


def _check_choices(word, canonical, values, table: Table, out: Reading):
    entry = table.flags[canonical]
    choices = entry.get("choices") or table.values.get(canonical)
    if not choices:
        return
    for value in values:
        if unresolved(value) or value in ("", "None") or value in choices:
            continue
        close = difflib.get_close_matches(value, choices, n=1, cutoff=0.6)
        shown = ", ".join(c for c in choices if c != "None")
        out.problems.append(
            Problem(
                "choice",
                word,
                f"{canonical} {value!r} is not a value vLLM {table.version} accepts ({shown})",
                fix=f"use {close[0]}" if close else f"choose one of: {shown}",
            )
        )


def _check_parsers(table: Table, out: Reading):
    for flag, plugin, known, what in (
        (REASONING, REASONING_PLUGIN, table.reasoning_parsers, "reasoning parser"),
        (TOOL, TOOL_PLUGIN, table.tool_parsers, "tool-call parser"),
    ):
        with_plugin = bool(out.values_of(plugin))
        for use in (u for u in out.uses if u.canonical == flag):
            name = use.values[0] if use.values else ""
            if not name or unresolved(name) or name in known:
                continue
            close = difflib.get_close_matches(name, sorted(known), n=1, cutoff=0.5)
            if with_plugin:
                out.problems.append(
                    Problem(
                        "plugin-parser",
                        use.written,
                        f"{what} {name!r} is not built into vLLM {table.version}; it must be "
                        f"registered by the {plugin} file, which must exist in the image or a "
                        "mount",
                    )
                )
                continue
            hint = f" (built-in: {close[0]})" if close else ""
            out.problems.append(
                Problem(
                    "unregistered-parser",
                    use.written,
                    f"vLLM {table.version} registers no {what} {name!r}{hint}; the server "
                    "exits at startup",
                    fix=(f"use {flag} {close[0]}, or " if close else "")
                    + f"pass the model card's plugin file with {plugin}",
                )
            )


def _check_repeats(table: Table, out: Reading):
    seen: dict[str, Use] = {}
    for use in out.uses:
        if table.flags[use.canonical].get("append"):
            continue
        first = seen.setdefault(use.canonical, use)
        if first is not use and first.values != use.values:
            out.problems.append(
                Problem(
                    "repeated",
                    use.written,
                    f"{use.canonical} is given twice with different values "
                    f"({' '.join(first.values)!r} at '{first.written}', then "
                    f"{' '.join(use.values)!r}); vLLM keeps the last",
                    fix="keep one of them",
                )
            )


@cache
def check_command(command: str, image: object) -> tuple[TableChoice, tuple[Problem, ...]]:
    """Every problem of every `vllm serve` call in a (resolved) deployment command."""
    choice = choose_table(image)
    problems: list[Problem] = []
    for args in serve_invocations(command):
        problems.extend(read_args(args, choice.table).problems)
    return choice, tuple(problems)
