"""Secret names, and the values under them that are harmless (references, placeholders,
counts). The lowest piece of evalkit.secrets: shapes, known and quote build on it."""

from __future__ import annotations

import re

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
# Words that make a name secret only as its last word: DB_PASS, WANDB_API, BASIC_AUTH
# (OPENAI_API_BASE and auth_method are not secrets).
SECRET_TAILS = frozenset({"PASS", "PWD", "PW", "API", "AUTH"})
# ...unless the last word says the value is about the secret, not the secret itself
# (`api_key_name: HF_TOKEN` names a variable; `token_file` is a path).
NOT_SECRET_TAILS = frozenset(
    {"NAME", "NAMES", "FILE", "PATH", "DIR", "ENV", "VAR", "VARS", "ID", "TYPE", "URL"}
)
# A TOKEN right after one of these words is a piece of model text, not a credential: the
# 0.2.6 adapter's `start_reasoning_token` / `end_reasoning_token` ("<think>", "</think>";
# nemo_evaluator 0.2.8 adapters/adapter_config.py, the schema's only such keys), and the
# tokenizer's special tokens (eos_token, pad_token).
TEXT_TOKEN_WORDS = frozenset(
    {"REASONING", "THINK", "THINKING", "EOS", "BOS", "PAD", "UNK", "SEP", "CLS", "MASK", "STOP"}
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
    # A metric or map key, an API kind, the shell's working directory: no credential.
    if words in (["KEY"], ["KEYS"], ["API"], ["PASS"], ["PWD"]):
        return False
    secret = [i for i, w in enumerate(words) if w in SECRET_WORDS]
    if secret and all(_text_token(words, i) for i in secret) and words[-1] not in SECRET_TAILS:
        return False
    return words[-1] in SECRET_TAILS or bool(secret)


def _text_token(words: list[str], i: int) -> bool:
    return words[i] in ("TOKEN", "TOKENS") and i > 0 and words[i - 1] in TEXT_TOKEN_WORDS


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
