"""What a fact of each kind may hold: one table, checked before init writes anything.

Facts end up in the launcher's sbatch script (paths in --container-mounts, names in the
vllm command and #SBATCH lines), so every string kind is a conservative character class:
a value that fails names the first character that is not allowed. A value that passes
holds no whitespace, quote, `$`, backtick, `;`, `&`, `|`, `<`, `>` or newline.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from evalkit.preflight.helpers import walltime_seconds

_NAMED = {
    "\n": "newline",
    "\r": "carriage return",
    "\t": "tab",
    " ": "space",
    "\x00": "NUL",
}


def char_name(ch: str) -> str:
    """A character as the error line shows it: `newline`, `';'`, `U+200B`."""
    if ch in _NAMED:
        return _NAMED[ch]
    if ch.isprintable() and ch.isascii():
        return repr(ch)
    return f"U+{ord(ch):04X}"


# Characters each string kind may hold (anything else is named in the error).
# No ',' or ':' in a path: every path fact becomes a mount, and srun's
# --container-mounts=SRC:DST[,SRC:DST] would read `/a,/home/u/.ssh` as two mounts.
PATH_CHARS = re.compile(r"[A-Za-z0-9._/+@=%~-]")
NAME_CHARS = re.compile(r"[A-Za-z0-9._/:+@-]")
URL_CHARS = re.compile(r"[A-Za-z0-9._~:/?=%+@,-]")
IMAGE_CHARS = re.compile(r"[A-Za-z0-9._/:@#+-]")

# Hostnames: RFC 1123 labels.
_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
HOSTNAME = re.compile(rf"{_LABEL}(?:\.{_LABEL})*")
# Image references (the distribution reference grammar): [registry[:port]/]path[:tag][@digest];
# pyxis also takes `registry#path`.
_COMPONENT = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
_DOMAIN = rf"(?:{_LABEL}(?:\.{_LABEL})*(?::[0-9]+)?)"
IMAGE = re.compile(
    rf"(?:{_DOMAIN}[/#])?{_COMPONENT}(?:/{_COMPONENT})*"
    r"(?::[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?"
    r"(?:@[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,})?"
)
URL = re.compile(rf"https?://{_DOMAIN}(?:/\S*)?")
NAME_START = re.compile(r"[A-Za-z0-9_]")


class FactError(ValueError):
    """A fact value its kind does not allow; the message says why in a few words."""


def _first_bad(value: str, allowed: re.Pattern) -> str | None:
    for ch in value:
        if not allowed.fullmatch(ch):
            return ch
    return None


def _chars(value: str, allowed: re.Pattern, what: str) -> None:
    bad = _first_bad(value, allowed)
    if bad is not None:
        raise FactError(f"{char_name(bad)} not allowed in {what}")


def check_path(value: str) -> str:
    for sep in ",:":
        if sep in value:
            raise FactError(f"{sep!r} not allowed in a path (it splits --container-mounts)")
    _chars(value, PATH_CHARS, "a path")
    if not value.startswith("/"):
        raise FactError(f"a path must be absolute (start with /), got {value!r}")
    if any(part == ".." for part in value.split("/")):
        raise FactError("'..' not allowed in a path")
    return value


def check_name(value: str) -> str:
    _chars(value, NAME_CHARS, "a name")
    if not NAME_START.match(value):
        raise FactError(f"a name starts with a letter, digit or '_', got {value!r}")
    return value


def check_hostname(value: str) -> str:
    _chars(value, re.compile(r"[A-Za-z0-9.-]"), "a hostname")
    if len(value) > 253 or not HOSTNAME.fullmatch(value):
        raise FactError(f"{value!r} is not a hostname (dot-separated labels of a-z, 0-9, '-')")
    return value


def check_image(value: str) -> str:
    if value.startswith("/"):  # a squashfs file on the cluster
        return check_path(value)
    _chars(value, IMAGE_CHARS, "an image reference")
    if not IMAGE.fullmatch(value):
        raise FactError(f"{value!r} is not an image reference (registry/repo:tag[@digest])")
    return value


def check_url(value: str) -> str:
    _chars(value, URL_CHARS, "a URL")
    if not URL.fullmatch(value):
        raise FactError(f"{value!r} is not an http(s) URL")
    return value


def check_walltime(value: str) -> str:
    _chars(value, re.compile(r"[0-9:-]"), "a walltime")
    if walltime_seconds(value) is None:
        raise FactError(f"{value!r} is not HH:MM:SS or D-HH:MM:SS")
    return value


def check_key(value: str) -> str:
    _chars(value, re.compile(r"[A-Za-z0-9_]"), "a key")
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", value):
        raise FactError(f"{value!r} is not an identifier")
    return value


@dataclass(frozen=True)
class Kind:
    name: str
    type: type  # what the value is after checking: str, int, float or bool
    rule: str  # one line for --help and --format json
    check: Callable[[str], str] | None = None  # string kinds only


STRING_KINDS = {
    k.name: k
    for k in (
        Kind("path", str, "absolute; letters, digits and . _ / + @ = % ~ -", check_path),
        Kind("name", str, "letters, digits and . _ / : + @ - (no leading punctuation)", check_name),
        Kind("hostname", str, "RFC 1123 host name", check_hostname),
        Kind("image", str, "registry/repo:tag[@digest], or an absolute .sqsh path", check_image),
        Kind("url", str, "http(s)://host[:port]/path, no quotes, spaces or & ; $", check_url),
        Kind("walltime", str, "HH:MM:SS or D-HH:MM:SS", check_walltime),
        Kind("key", str, "an identifier (letters, digits, _)", check_key),
    )
}
KINDS = {
    **STRING_KINDS,
    "int": Kind("int", int, "a positive integer (decimal digits)"),
    "number": Kind("number", float, "a positive number"),
    "bool": Kind("bool", bool, "true or false"),
}

INT_TEXT = re.compile(r"[0-9]+")
NUMBER_TEXT = re.compile(r"[0-9]+(?:\.[0-9]+)?")


def check_int(value: object, low: float, high: float) -> int:
    if isinstance(value, str) and INT_TEXT.fullmatch(value.strip()):
        value = int(value.strip())
    if not isinstance(value, int) or isinstance(value, bool):
        raise FactError(f"must be a positive integer, found {value!r}")
    if not low <= value <= high:
        raise FactError(f"{value} is outside {low:g}..{high:g}")
    return value


def check_number(value: object, low: float, high: float) -> float:
    if isinstance(value, str) and NUMBER_TEXT.fullmatch(value.strip()):
        value = float(value.strip())
    if not isinstance(value, (int, float)) or isinstance(value, bool) or value != value:
        raise FactError(f"must be a positive number, found {value!r}")
    if not low <= value <= high:
        raise FactError(f"{value:g} is outside {low:g}..{high:g}")
    return float(value)


def check_bool(value: object) -> bool:
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        value = value.strip().lower() == "true"
    if not isinstance(value, bool):
        raise FactError(f"must be true or false, found {value!r}")
    return value
