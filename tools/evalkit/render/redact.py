"""Secrets never leave evalkit: every output line and file passes through `redact_text`.

Two things are redacted (which names are secret: evalkit.secrets, shared with preflight):
- the value of a secret-named variable (`NAME=value`, `NAME: value`, `"NAME": "value"`,
  `export NAME=value`, `-o +deployment.env_vars.NAME=value`, `--api-key value`);
- a string shaped like a credential (`SHAPES`), wherever it stands.
A value is replaced by `<redacted:NAME>` (the variable's name when known, else the shape).
Every pattern starts at a literal or a boundary and has no nested quantifier, so a scan
is linear in the line's length (a 10 MB log line included).
"""

from __future__ import annotations

import re
from typing import Any

# The name test and the harmless-value test are shared with preflight (NEL101, NEL103).
from evalkit.secrets import is_harmless_value as _harmless
from evalkit.secrets import is_secret_name

# Credential shapes: (label, literal it starts with, pattern, where the format is defined).
# Each pattern begins with its literal (a fast search) and checks the boundary behind it.
SHAPES: tuple[tuple[str, str, str, str], ...] = (
    # Hugging Face user access tokens: "hf_" + 34 letters and digits.
    (
        "hf-token",
        "hf_",
        r"hf_(?<![A-Za-z0-9]hf_)[A-Za-z0-9]{30,}",
        "hf.co/docs/hub/security-tokens",
    ),
    # NGC personal and service API keys start "nvapi-".
    ("ngc-api-key", "nvapi-", r"nvapi-(?<![A-Za-z0-9]nvapi-)[\w-]{20,}", "docs.nvidia.com/ngc"),
    # OpenAI secret keys "sk-", "sk-proj-", "sk-svcacct-"; Anthropic's "sk-ant-" too.
    ("openai-key", "sk-", r"sk-(?<![\w-]sk-)[\w-]{20,}", "platform.openai.com/docs/api-reference"),
    # GitHub tokens ghp_ gho_ ghu_ ghs_ ghr_ and fine-grained github_pat_.
    (
        "github-token",
        "gh",
        r"gh[pousr]_(?<![A-Za-z0-9]gh._)[A-Za-z0-9]{30,}",
        "github.blog 2021-04-05",
    ),
    (
        "github-token",
        "github_pat_",
        r"github_pat_(?<![A-Za-z0-9]github_pat_)\w{22,}",
        "github.blog",
    ),
    # AWS access key ids: AKIA (long-term) or ASIA (temporary) + 16; the secret access key
    # has no shape of its own and is caught by its name (AWS_SECRET_ACCESS_KEY).
    (
        "aws-access-key-id",
        "A",
        r"A[KS]IA(?<![A-Z0-9]A.IA)[A-Z0-9]{16}(?![A-Z0-9])",
        "AWS IAM user guide",
    ),
    # Google API keys: "AIza" + 35.
    (
        "google-api-key",
        "AIza",
        r"AIza(?<![A-Za-z0-9]AIza)[\w-]{35}",
        "cloud.google.com/docs/authentication/api-keys",
    ),
    # Slack tokens xoxb- xoxp- xoxa- xoxr- xoxs-.
    (
        "slack-token",
        "xox",
        r"xox[abprs]-(?<![A-Za-z0-9]xox.-)[A-Za-z0-9-]{10,}",
        "api.slack.com/authentication/token-types",
    ),
    # JSON Web Tokens: base64url of '{"' is "eyJ"; header.payload.signature (RFC 7519).
    ("jwt", "eyJ", r"eyJ(?<![\w-]eyJ)[\w-]{8,}\.eyJ[\w-]{8,}\.[\w-]*", "RFC 7519"),
    # HTTP bearer and basic credentials (RFC 6750 section 2.1, RFC 7617).
    ("bearer", "Bearer ", r"(?<=Bearer )[A-Za-z0-9._~+/=-]{8,}", "RFC 6750"),
    ("basic-auth", "Basic ", r"(?<=Basic )[A-Za-z0-9+/=]{8,}", "RFC 7617"),
    # The password in a URL's userinfo, scheme://user:password@host (RFC 3986 section 3.2.1).
    ("url-password", "://", r"(?<=://)[^\s/:@]{1,256}:[^\s/@]{1,256}(?=@)", "RFC 3986"),
)
_SHAPES = tuple((label, literal, re.compile(p)) for label, literal, p, _ in SHAPES)

_KEYWORDS = (
    "TOKEN",
    "KEY",
    "SECRET",
    "PASSW",
    "PASSPHRASE",
    "CREDENTIAL",
    "AUTHORIZATION",
    "COOKIE",
)
# NAME then a separator then the value. The name starts at a boundary and is at most 160
# characters (possessive: no backtracking), so each start costs a bounded number of steps.
_ASSIGN = re.compile(
    r"(?<![\w.+-])(?P<name>[\w.+-]{1,160}+)(?P<sep>[\"']?[ \t]{0,8}[:=][ \t]{0,8})"
    r"(?:\"(?P<dq>(?:[^\"\\\n]|\\.)*+)\"?|'(?P<sq>[^'\n]*+)'?|(?P<bare>[^\s\"'\\<>&]++))"
)
# `--api-key VALUE` / `--hf-token VALUE`: a flag, a space, the value.
_FLAG = re.compile(
    r"(?<![\w.+-])(?P<name>--?[\w-]{1,160}+)(?P<sep>[ \t]{1,8})"
    r"(?P<bare>[^\s\"'\\<>&-][^\s\"'\\<>&]*+)"
)


# A header whose whole value is the credential (`Authorization: Token abc`, a cookie): the
# value runs to the end of the line, scheme word included.
_HEADER = re.compile(
    r"(?i)(?<![\w-])(?P<name>(?:proxy-)?authorization|(?:set-)?cookie)"
    r"(?P<sep>[ \t]{0,8}[:=][ \t]{0,8})"
    # A quoted value (JSON, YAML) is left to _ASSIGN, which keeps the quotes.
    r"(?P<value>(?!<redacted)[^\s\"'][^\n]*)"
)


def placeholder(label: str) -> str:
    return f"<redacted:{label}>"


def looks_secret(value: Any) -> bool:
    """True when `value` holds a credential-shaped string."""
    return isinstance(value, str) and any(
        literal in value and pattern.search(value) for _, literal, pattern in _SHAPES
    )


def _assign_sub(match: re.Match[str]) -> str:
    name = match.group("name")
    groups = match.groupdict()
    for kind in ("dq", "sq", "bare"):
        value = groups.get(kind)
        if value is not None:
            break
    if not is_secret_name(name) or _harmless(value, name):
        return match.group(0)
    label = name.rsplit(".", 1)[-1].lstrip("+-")
    shown = placeholder(label)
    if value.startswith("lit:"):
        shown = "lit:" + shown
    start, end = match.span(kind)
    whole, offset = match.group(0), match.start()
    return whole[: start - offset] + shown + whole[end - offset :]


def redact_text(text: str) -> str:
    """`text` with every secret value replaced; lines and everything else unchanged."""
    if not text:
        return text
    for label, literal, pattern in _SHAPES:
        if literal in text:
            text = pattern.sub(placeholder(label), text)
    upper = text.upper()
    if not any(word in upper for word in _KEYWORDS):
        return text
    text = _HEADER.sub(
        lambda m: m.group("name") + m.group("sep") + placeholder(m.group("name")), text
    )
    text = _ASSIGN.sub(_assign_sub, text)
    return _FLAG.sub(_assign_sub, text)


def redact_data(value: Any, name: str | None = None) -> Any:
    """A JSON-like document with secret values replaced, keys and shape kept."""
    if isinstance(value, dict):
        return {k: redact_data(v, k if isinstance(k, str) else None) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact_data(v, name) for v in value]
    if isinstance(value, str):
        if name and is_secret_name(name) and not _harmless(value, name):
            return placeholder(name)
        return redact_text(value)
    return value
