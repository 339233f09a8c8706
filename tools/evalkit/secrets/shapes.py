"""Credential shapes: strings that are a secret by their form alone.

Each shape is searched only where a secret may stand unannounced: text quoted from logs,
rollouts and rendered scripts, and the values of a config (evalkit.secrets.known). Each
pattern begins at its literal (a fast `in` test first) and has no nested quantifier, so a
search is linear in the text's length. A pattern with a group `s` hides only that group
(the password of `curl -u user:pw`, not the user); `check`, when given, rejects a match
that has the prefix but not the randomness of a key (`sk-llama-3-70b-instruct-fp8`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Shape:
    label: str
    literal: str
    pattern: re.Pattern[str]
    source: str  # where the format is defined
    check: Callable[[re.Match[str]], bool] | None = None


_RANDOM_RUN = re.compile(r"[A-Za-z0-9]{16}")
# Query parameters that carry a credential under a short name (`?key=`, a signed URL's
# `sig=`); any secret name (`access_token`, `api_key`) counts too.
QUERY_NAMES = frozenset({"key", "sig", "signature", "code", "token", "auth", "pass", "pwd"})


def _random(match: re.Match[str]) -> bool:
    """A key's body holds a long run of letters and digits; a model name does not."""
    return _RANDOM_RUN.search(match.group(0)) is not None


def _query_name(match: re.Match[str]) -> bool:
    from evalkit.secrets.names import is_harmless_value, is_secret_name

    name = match.group("name")
    secret = name.lower() in QUERY_NAMES or is_secret_name(name)
    return secret and not is_harmless_value(match.group("s"), name)


def _shape(label, literal, pattern, source, check=None) -> Shape:
    return Shape(label, literal, re.compile(pattern), source, check)


SHAPES: tuple[Shape, ...] = (
    # Hugging Face user access tokens: "hf_" + 34 letters and digits.
    _shape(
        "hf-token",
        "hf_",
        r"hf_(?<![A-Za-z0-9]hf_)[A-Za-z0-9]{30,}",
        "hf.co/docs/hub/security-tokens",
    ),
    # NGC personal and service API keys start "nvapi-".
    _shape(
        "ngc-api-key", "nvapi-", r"nvapi-(?<![A-Za-z0-9]nvapi-)[\w-]{20,}", "docs.nvidia.com/ngc"
    ),
    # OpenAI secret keys "sk-", "sk-proj-", "sk-svcacct-"; Anthropic's "sk-ant-" too.
    _shape(
        "openai-key",
        "sk-",
        r"sk-(?<![\w-]sk-)[\w-]{20,}",
        "platform.openai.com/docs/api-reference",
        _random,
    ),
    # Stripe secret and restricted keys.
    _shape(
        "stripe-key",
        "k_live_",
        r"[sr]k_live_(?<![\w-].k_live_)[A-Za-z0-9]{20,}",
        "docs.stripe.com/keys",
    ),
    # GitHub tokens ghp_ gho_ ghu_ ghs_ ghr_ and fine-grained github_pat_.
    _shape(
        "github-token",
        "gh",
        r"gh[pousr]_(?<![A-Za-z0-9]gh._)[A-Za-z0-9]{30,}",
        "github.blog 2021-04-05",
    ),
    _shape(
        "github-token",
        "github_pat_",
        r"github_pat_(?<![A-Za-z0-9]github_pat_)\w{22,}",
        "github.blog",
    ),
    # GitLab personal access tokens.
    _shape(
        "gitlab-token",
        "glpat-",
        r"glpat-(?<![\w-]glpat-)[\w-]{20,}",
        "docs.gitlab.com/ee/security/tokens",
    ),
    # AWS access key ids: AKIA (long-term) or ASIA (temporary) + 16; the secret access key
    # has no shape of its own and is caught by its name (AWS_SECRET_ACCESS_KEY).
    _shape(
        "aws-access-key-id",
        "A",
        r"A[KS]IA(?<![A-Z0-9]A.IA)[A-Z0-9]{16}(?![A-Z0-9])",
        "AWS IAM user guide",
    ),
    # Google API keys: "AIza" + 35.
    _shape(
        "google-api-key",
        "AIza",
        r"AIza(?<![A-Za-z0-9]AIza)[\w-]{35}",
        "cloud.google.com/docs/authentication/api-keys",
    ),
    # Slack tokens xoxb- xoxp- xoxa- xoxr- xoxs-, browser xoxc-, refresh xoxe-; app xapp-.
    _shape(
        "slack-token",
        "xox",
        r"xox[abceprs]-(?<![A-Za-z0-9]xox.-)[A-Za-z0-9-]{10,}",
        "api.slack.com/authentication/token-types",
    ),
    _shape(
        "slack-token",
        "xapp-",
        r"xapp-(?<![A-Za-z0-9]xapp-)[A-Za-z0-9-]{10,}",
        "api.slack.com/authentication/token-types",
    ),
    # JSON Web Tokens: base64url of '{"' is "eyJ"; header.payload.signature (RFC 7519).
    _shape("jwt", "eyJ", r"eyJ(?<![\w-]eyJ)[\w-]{8,}\.eyJ[\w-]{8,}\.[\w-]*", "RFC 7519"),
    # HTTP bearer and basic credentials (RFC 6750 section 2.1, RFC 7617).
    _shape("bearer", "Bearer ", r"(?<=Bearer )[A-Za-z0-9._~+/=-]{8,}", "RFC 6750"),
    _shape("basic-auth", "Basic ", r"(?<=Basic )[A-Za-z0-9+/=]{8,}", "RFC 7617"),
    # The password in a URL's userinfo, scheme://user:password@host, the user possibly
    # empty (redis://:pw@host) (RFC 3986 section 3.2.1).
    _shape(
        "url-password", "://", r"(?<=://)[^\s/:@]{0,256}:(?P<s>[^\s/@]{1,256})(?=@)", "RFC 3986"
    ),
    # A credential in a URL's query: ?key=..., &access_token=..., a signed URL's sig=.
    _shape(
        "url-query",
        "?",
        r"[?&](?P<name>[A-Za-z_][\w.-]{0,63}+)=(?P<s>[^&#\s\"'<>]{1,2048})",
        "RFC 3986",
        _query_name,
    ),
    # `curl -u user:password`, `--user user:password` (curl(1), option -u).
    _shape(
        "user-password",
        "-u",
        r"(?<![\w-])(?:-u|--user)(?:[ \t]{1,4}|=)[\"']?[^\s:\"']{1,256}:(?P<s>[^\s\"']{1,256})",
        "curl(1)",
    ),
    # A PEM private key (RFC 7468): its body up to the END line, on one line or many
    # (base64 and line breaks hold no '-').
    _shape("private-key", "PRIVATE KEY-----", r"(?<=PRIVATE KEY-----)[^-]{16,}", "RFC 7468"),
    # One body line of a key quoted alone: DER in base64 starts "MI" (SEQUENCE, RFC 7468
    # section 10); an OpenSSH key's body starts with base64 of "openssh-key-v1".
    _shape("private-key", "MI", r"(?<![A-Za-z0-9+/])MI[A-Za-z0-9+/]{60,}={0,2}", "RFC 7468"),
    _shape(
        "private-key",
        "b3BlbnNzaC1rZXktdjE",
        r"b3BlbnNzaC1rZXktdjE[A-Za-z0-9+/=]{8,}",
        "OpenSSH PROTOCOL.key",
    ),
)
# (label, literal, compiled pattern), as NEL101 and older callers read them.
SHAPE_PATTERNS = tuple((s.label, s.literal, s.pattern) for s in SHAPES)


def find_shapes(text: str) -> Iterator[tuple[str, int, int]]:
    """(label, start, end) of each credential-shaped span in `text` (the part to hide)."""
    for shape in SHAPES:
        if shape.literal not in text:
            continue
        for match in shape.pattern.finditer(text):
            if shape.check is None or shape.check(match):
                group = "s" if "s" in shape.pattern.groupindex else 0
                yield shape.label, match.start(group), match.end(group)


def looks_secret(value: Any) -> bool:
    """True when `value` holds a credential-shaped string."""
    return isinstance(value, str) and next(find_shapes(value), None) is not None
