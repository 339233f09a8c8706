"""What counts as a secret: by its name, by its shape, and which values under a secret name
are harmless.

One definition for every reader: preflight's rules (NEL101, NEL103 and the NEL101 fixer)
and the redaction layer (evalkit.render.redact). It imports nothing of evalkit, so
either side can use it without reaching up into the other.
"""

from __future__ import annotations

import re
from typing import Any

# A name is secret when one of its words (split at `_`, `-`, `.`, case-insensitive) is in
# SECRET_WORDS. The launcher 0.2.6 reads API keys from variables it is told the name of
# (`target.api_endpoint.api_key_name`; HF_TOKEN, NGC_API_KEY, INFERENCE_API_KEY,
# TAVILY_API_KEY, WANDB_API_KEY in its examples and exporters): all end in KEY or TOKEN.
# Whole words only: TOKENIZERS_PARALLELISM and max_tokens are not secrets.
SECRET_WORDS = frozenset(
    {
        "TOKEN",
        "KEY",
        "APIKEY",
        "SECRET",
        "SECRETS",
        "PASSWORD",
        "PASSWD",
        "PASSPHRASE",
        "CREDENTIAL",
        "CREDENTIALS",
        "AUTHORIZATION",
        "COOKIE",
    }
)
# ...unless the last word says the value is about the secret, not the secret itself
# (`api_key_name: HF_TOKEN` names a variable; `token_file` is a path).
NOT_SECRET_TAILS = frozenset(
    {"NAME", "NAMES", "FILE", "PATH", "DIR", "ENV", "VAR", "VARS", "ID", "TYPE", "URL"}
)
# Values that are safe to show under a secret name: references and placeholders.
HARMLESS = frozenset(
    {"", "dummy", "none", "null", "empty", "placeholder", "???", "-", "n/a", "true", "false"}
)
# host:/runtime: references, $VAR, an already redacted value, or the name of another
# variable (upper case with an underscore, HF_TOKEN: a bare run of capitals could be a key).
_REFERENCE = re.compile(r"(?:host:|runtime:|\$|<redacted)|[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$")
# A number is a count, not a secret, only under a name with the word TOKEN(S): max_tokens,
# kv_bytes_per_token_per_gpu. PASSWORD=12345678 stays a secret.
_NUMBER = re.compile(r"[-+]?[0-9][0-9_.eE+-]*$")
_COUNT_TAILS = frozenset({"TOKEN", "TOKENS"})
_WORD_SPLIT = re.compile(r"[_.\-]+")


def is_secret_name(name: str) -> bool:
    """True for a variable whose value is a credential (HF_TOKEN, NGC_API_KEY, ...)."""
    last = str(name).rsplit(".", 1)[-1].lstrip("+-")
    words = [w for w in _WORD_SPLIT.split(last.upper()) if w]
    if not words or words[-1] in NOT_SECRET_TAILS:
        return False
    if words in (["KEY"], ["KEYS"]):  # a field naming a metric or a map key, not a credential
        return False
    return any(w in SECRET_WORDS for w in words)


def is_harmless_value(value: str, name: str | None = None) -> bool:
    """True when a value under the secret name `name` is a reference or placeholder, not a
    secret (`host:HF_TOKEN`, `lit:dummy`, `$HF_TOKEN`, `HF_TOKEN`; `4096` under a name
    ending in TOKEN(S), a count)."""
    text = value.strip().rstrip(",;)]}")  # a bare value ends where its JSON or YAML line does
    if text.startswith("lit:"):
        text = text[4:].strip()
    if text.lower() in HARMLESS or _REFERENCE.match(text):
        return True
    if text[:1] in ("[", "{"):  # a JSON/YAML structure opens: its strings are judged one by one
        return True
    if _NUMBER.match(text) and name is not None:
        words = [w for w in _WORD_SPLIT.split(str(name).rsplit(".", 1)[-1].upper()) if w]
        return any(w in _COUNT_TAILS for w in words)  # kv_bytes_per_token_per_gpu: a count
    return False


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
SHAPE_PATTERNS = tuple((label, literal, re.compile(p)) for label, literal, p, _ in SHAPES)


def looks_secret(value: Any) -> bool:
    """True when `value` holds a credential-shaped string."""
    return isinstance(value, str) and any(
        literal in value and pattern.search(value) for _, literal, pattern in SHAPE_PATTERNS
    )
