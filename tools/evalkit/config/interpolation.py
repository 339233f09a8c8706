"""`${...}` interpolations: found and resolved exactly as the launcher's OmegaConf would.

The launcher resolves every string of the composed config before anything else, so a
literal `${HOME}` in a shell comment inside a block scalar aborts the run. Most
interpolations in real configs are plain node references or `${oc.env:VAR}`; those are
checked here directly (cheap), and anything else goes through OmegaConf itself (its
grammar and resolvers, plus the launcher's `select_not_null`), loaded only when needed.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path as FsPath
from typing import Any

from evalkit.config.yamldoc import Path, format_path
from evalkit.errors import InputError
from evalkit.inputs import read_bytes
from evalkit.secrets.known import remember_env

_REF = r"[A-Za-z_][\w-]*(?:\.[\w-]+)*"
_SIMPLE = re.compile(
    r"\$\{(?:(?P<ref>" + _REF + r")"
    r"|oc\.env:(?P<env>[A-Za-z_]\w*)(?:,(?P<default>[^${}\\'\"]*))?"
    r"|select_not_null:(?P<sel>" + _REF + r"),(?P<seldef>[^${}\\'\",]*))\}"
)
MISSING = "???"
MAX_ENV_BYTES = 1024 * 1024  # a dotenv file holds a few dozen lines


@dataclass(frozen=True)
class InterpolationIssue:
    path: Path
    kind: str  # "error" (launch fails) or "env" (an environment variable unset here)
    message: str
    token: str  # the text to locate inside the value


def walk_strings(node: Any, path: Path = ()) -> Iterator[tuple[Path, str]]:
    if isinstance(node, dict):
        for key, value in node.items():
            yield from walk_strings(value, path + (key,))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from walk_strings(value, path + (i,))
    elif isinstance(node, str):
        yield path, node


def lookup(data: Any, dotted: str) -> tuple[bool, Any]:
    node = data
    for part in dotted.split("."):
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return False, None
    return True, node


def launch_environment(cwd: str | None = None, env_file: str | None = None) -> dict[str, str]:
    """The shell environment plus a dotenv file, as nel sees it at submit time.

    nel loads `.env` from the working directory, or the file given with `--env-file`
    (a missing one stops it); values already in the shell win.
    """
    env = dict(os.environ)
    dotenv = FsPath(env_file) if env_file else FsPath(cwd or ".") / ".env"
    if env_file and not dotenv.exists():
        raise InputError("env file not found", dotenv)
    if not env_file and (not dotenv.exists() or dotenv.is_dir()):
        return env  # nel reads ./.env only when there is one (nel 0.2.6, cli/run.py)
    # bounded and regular files only: `.env` -> /dev/zero or a FIFO is refused, not read
    data = read_bytes(dotenv, limit=MAX_ENV_BYTES)
    for line in data.decode("utf-8", errors="replace").splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, _, value = line.removeprefix("export ").partition("=")
        env.setdefault(key.strip(), value.strip().strip("'\""))
    remember_env(env)  # a dotenv secret is redacted in every output
    return env


def _fast_check(value: str, data: dict, env: Mapping[str, str]) -> list[InterpolationIssue] | None:
    """Issues for a string whose interpolations are all simple, or None if it needs OmegaConf."""
    if value.count("${") != len(_SIMPLE.findall(value)) or "\\${" in value or "$${" in value:
        return None
    issues: list[InterpolationIssue] = []
    for m in _SIMPLE.finditer(value):
        if m.group("ref") is not None:
            found, target = lookup(data, m.group("ref"))
            if not found:
                return None  # let OmegaConf word the error exactly
            if target == MISSING:
                return issues  # OmegaConf stops here too; the `???` rule reports it
            if isinstance(target, str) and "${" in target:
                continue  # checked where it is written
        elif m.group("env") is not None:
            name = m.group("env")
            if m.group("default") is None and name not in env:
                # OmegaConf stops at the first failure in a value; so do we
                return [
                    InterpolationIssue(
                        (),
                        "env",
                        f"environment variable '{name}' is not set here; the launcher "
                        "resolves it at submit time and stops if it is unset",
                        m.group(0),
                    )
                ]
    return issues


def _select_not_null(key: str, default: str, *, _root_: object) -> Any:
    from omegaconf import OmegaConf

    value = OmegaConf.select(_root_, key, default=None, throw_on_resolution_failure=False)
    return default if value is None else value


@contextmanager
def _launcher_resolvers() -> Iterator[None]:
    """The launcher's `select_not_null` resolver for the span of one resolution.

    nel 0.2.6 registers it when its config package is imported, and that import fails if
    the name is taken. So it is registered here only while absent, and cleared again: a
    launcher imported later in the same process (the tests run it in-process) still loads.
    """
    from omegaconf import OmegaConf

    ours = not OmegaConf.has_resolver("select_not_null")
    if ours:
        OmegaConf.register_new_resolver("select_not_null", _select_not_null, use_cache=False)
    try:
        yield
    finally:
        if ours:
            OmegaConf.clear_resolver("select_not_null")


class _OmegaChecker:
    """Resolve single values through a real OmegaConf tree built from the config."""

    def __init__(self, data: dict, env: Mapping[str, str]):
        from omegaconf import OmegaConf  # imported lazily: ~0.1 s

        self.OmegaConf = OmegaConf
        self.env = env
        try:
            self.root = OmegaConf.create(data)
        except Exception:  # keys OmegaConf cannot hold: fall back to grammar-only checks
            self.root = None

    def check(self, path: Path, value: str) -> list[InterpolationIssue]:
        from omegaconf import errors as oc_errors
        from omegaconf import grammar_parser

        try:
            grammar_parser.parse(value)
        except oc_errors.GrammarParseError as err:
            msg = str(err).splitlines()[0]
            return [InterpolationIssue(path, "error", f"invalid interpolation: {msg}", "${")]
        if self.root is None:
            return []
        node: Any = self.root
        try:
            for part in path[:-1]:
                node = node._get_node(part)
            saved = dict(os.environ)
            os.environ.update(self.env)
            try:
                with _launcher_resolvers():
                    node[path[-1]]
            finally:
                os.environ.clear()
                os.environ.update(saved)
        except oc_errors.InterpolationToMissingValueError:
            return []  # reported by the `???` rule
        except oc_errors.MissingMandatoryValue:
            return []
        except Exception as err:  # every OmegaConf resolution failure
            msg = str(err).splitlines()[0].strip()
            token = _token_for(msg, value)
            if "Environment variable" in msg and "not found" in msg:
                return [InterpolationIssue(path, "env", msg, token)]
            return [InterpolationIssue(path, "error", msg, token)]
        return []


def _token_for(message: str, value: str) -> str:
    m = re.search(r"(?:key|type) '?([^'\s]+)'?", message)
    if m:
        for candidate in (f"${{{m.group(1)}", m.group(1)):
            if candidate in value:
                return candidate
    return "${"


def find_issues(data: dict, env: Mapping[str, str] | None = None) -> list[InterpolationIssue]:
    """Every interpolation problem in the composed config, one per affected value."""
    env = os.environ if env is None else env
    issues: list[InterpolationIssue] = []
    omega: _OmegaChecker | None = None
    for path, value in walk_strings(data):
        if "${" not in value:
            continue
        fast = _fast_check(value, data, env)
        if fast is not None:
            issues.extend(InterpolationIssue(path, i.kind, i.message, i.token) for i in fast)
            continue
        if omega is None:
            omega = _OmegaChecker(data, env)
        issues.extend(omega.check(path, value))
    return issues


def resolve_text(value: Any, data: dict, depth: int = 0) -> Any:
    """Best-effort expansion of simple references (for reading flags out of commands)."""
    if not isinstance(value, str) or "${" not in value or depth > 8:
        return value

    def repl(m: re.Match) -> str:
        if m.group("ref") is not None:
            found, target = lookup(data, m.group("ref"))
            if not found:
                return m.group(0)
            target = resolve_text(target, data, depth + 1)
            return "" if target is None else str(target)
        if m.group("env") is not None:
            return os.environ.get(m.group("env"), m.group("default") or m.group(0))
        found, target = lookup(data, m.group("sel"))
        target = resolve_text(target, data, depth + 1) if found else None
        return m.group("seldef") if target is None else str(target)

    return _SIMPLE.sub(repl, value)


def resolve_full(data: dict, path: Path, env: Mapping[str, str] | None = None) -> Any:
    """The value at `path` resolved by OmegaConf itself, as the launcher would see it.

    Simple references are expanded without OmegaConf (cheap); anything else (oc.select,
    nested or quoted interpolations) goes through a real OmegaConf tree. A value that
    cannot be resolved is returned with its simple references expanded only.
    """
    found, value = lookup(data, ".".join(str(p) for p in path))
    if not found:
        return None
    quick = resolve_text(value, data)
    if not isinstance(quick, str) or "${" not in quick:
        return quick
    try:
        checker = _OmegaChecker(data, env if env is not None else os.environ)
        if checker.root is None:
            return quick
        node: Any = checker.root
        for part in path[:-1]:
            node = node._get_node(part)
        with _launcher_resolvers():
            resolved = node[path[-1]]
    except Exception:  # unresolvable here (e.g. an env var set only at launch)
        return quick
    return resolved


class _Unresolved:
    """A value that cannot be known before submit (an `oc.env`, a resolver nel lacks)."""

    def __repr__(self) -> str:
        return "UNRESOLVED"


UNRESOLVED = _Unresolved()
# The interpolations static_value answers without OmegaConf: a node reference, an
# `oc.env` (unknown until submit) and the launcher's `select_not_null` with a path-like
# default (an unquoted `/checkpoint` is a string to OmegaConf's grammar; `1` or `null`
# would not be, so those go to OmegaConf).
_STATIC = re.compile(
    r"\$\{(?:(?P<ref>" + _REF + r")"
    r"|(?P<env>oc\.env:(?P<var>[A-Za-z_]\w*)(?P<vardef>,[^${}\\'\"]*)?)"
    r"|select_not_null:(?P<sel>" + _REF + r"),(?P<seldef>/[\w./-]*))\}"
)


_ASK = object()  # only OmegaConf can say
_TEXT_DEFAULT = re.compile(r"[A-Za-z][\w./:@%+-]*")


def static_value(
    value: str, data: dict, depth: int = 0, env: Mapping[str, str] | None = None
) -> Any:
    """What OmegaConf makes of a string whose interpolations `_STATIC` all matches, without
    OmegaConf; None where only OmegaConf can say. UNRESOLVED where its resolution fails (a
    missing key, a `???`, or with `env=None` an `oc.env`, which resolved_view leaves to
    submit time). With `env`, `oc.env:VAR` is VAR's value there (a default, typed by
    OmegaConf's grammar, and an unset VAR are left to OmegaConf).
    tests/preflight/test_resolved_view.py holds this to OmegaConf itself."""
    if "\\${" in value or "$${" in value or depth > 8:
        return None
    tokens = list(_STATIC.finditer(value))
    if value.count("${") != len(tokens):
        return None
    if env is None and any(m.group("env") for m in tokens):
        return UNRESOLVED  # the launcher's environment at submit time decides
    whole = len(tokens) == 1 and tokens[0].group(0) == value
    values = [_static_token(m, data, depth, env) for m in tokens]
    if any(v is _ASK or isinstance(v, (dict, list)) for v in values):
        return None  # a container: whole, it is a config node; inside text, its repr
    if any(v is UNRESOLVED for v in values):
        return UNRESOLVED
    if whole:  # a whole-value interpolation keeps the target's type
        return values[0]
    for m, target in zip(tokens, values, strict=True):
        value = value.replace(m.group(0), str(target), 1)  # None is written "None"
    return value


def _static_token(m: re.Match, data: dict, depth: int, env: Mapping[str, str] | None) -> Any:
    """One `_STATIC` token's value, UNRESOLVED, or _ASK."""
    if m.group("ref") is not None:
        found, target = lookup(data, m.group("ref"))
        if not found or target == MISSING:
            return UNRESOLVED
        if isinstance(target, str) and "${" in target:
            inner = static_value(target, data, depth + 1, env)
            return _ASK if inner is None else inner
        return target
    if m.group("env") is not None:  # only with `env` (without it the value is UNRESOLVED)
        default = m.group("vardef")
        if default is not None:
            # oc.env type-checks its default even when VAR is set: only a default the
            # grammar surely reads as a string (no number, bool, null, inf or nan) is ours.
            default = default[1:]
            low = default.lower()
            if not _TEXT_DEFAULT.fullmatch(default) or low in ("true", "false", "null"):
                return _ASK
            if low.startswith(("inf", "nan")):
                return _ASK
        if env is None or (default is None and m.group("var") not in env):
            return _ASK
        return env.get(m.group("var"), default)
    # select_not_null: OmegaConf.select(key, default=None) without raising, then the
    # default where that gave None; only a plain written target is answered here.
    found, target = lookup(data, m.group("sel"))
    if not found or target is None:
        return m.group("seldef")
    if target == MISSING or (isinstance(target, str) and "${" in target):
        return _ASK
    return target


def resolved_view(data: dict) -> Any:
    """A copy of `data` with every interpolated string replaced by what the launcher's
    OmegaConf makes of it, or by UNRESOLVED when that depends on the submit-time
    environment (`oc.env`), a resolver nel does not register, or a `???`.

    Type and format checks read this view, so `walltime: ${run.time}` is checked as the
    string it resolves to, and nothing is said about a value known only at submit.
    """
    pending: list[tuple[Path, str]] = []
    out = _copy_with(data, (), pending)
    omega = None
    for path, value in pending:
        resolved = static_value(value, data)
        if resolved is None:
            if omega is None:
                omega = _OmegaChecker(_without_env(data), {})
            resolved = _omega_value(omega, path)
        _store(out, path, resolved)
    return out


def _copy_with(node: Any, path: Path, pending: list) -> Any:
    if isinstance(node, dict):
        return {k: _copy_with(v, path + (k,), pending) for k, v in node.items()}
    if isinstance(node, list):
        return [_copy_with(v, path + (i,), pending) for i, v in enumerate(node)]
    if isinstance(node, str) and "${" in node:
        pending.append((path, node))
    return node


def _without_env(node: Any) -> Any:
    """`oc.env` renamed to a resolver nobody registers: its value is unknown until submit."""
    if isinstance(node, dict):
        return {k: _without_env(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_without_env(v) for v in node]
    if isinstance(node, str):
        return node.replace("oc.env:", "evalkit_submit_env:")
    return node


def _omega_value(omega: _OmegaChecker, path: Path) -> Any:
    if omega.root is None:
        return UNRESOLVED
    try:
        node: Any = omega.root
        for part in path[:-1]:
            node = node._get_node(part)
        with _launcher_resolvers():
            value = node[path[-1]]
            if omega.OmegaConf.is_config(value):
                value = omega.OmegaConf.to_container(value, resolve=False)
    except Exception:  # any resolution failure: unknown here; NEL001 words real errors
        return UNRESOLVED
    return value


def _store(root: Any, path: Path, value: Any) -> None:
    node = root
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value


__all__ = [
    "UNRESOLVED",
    "InterpolationIssue",
    "find_issues",
    "format_path",
    "launch_environment",
    "resolve_full",
    "resolve_text",
    "resolved_view",
    "static_value",
]
