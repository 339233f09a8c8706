"""NEL101's fix agrees with the launcher's own migration, nel-migrate-config.

nel-migrate-config ships in nemo-evaluator-launcher 0.2.6 (cli/migrate_config.py, called
here in-process: `migrate(text)`). Every config of the test corpora, the shipped
recipes and the golden fixtures is run twice: as written, and with every env prefix
stripped (the file as an older launcher read it). For each env value both tools leave
at the same key, NEL101's fix must write what the migration writes, except the
differences stated in DIFFERENCES, each with why; the rule's fix line names the same
value as the fixer.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest
import yaml

from evalkit.config.model import ENV_SECTIONS
from evalkit.preflight.fixes.engine import fix_text
from evalkit.preflight.runner import Options
from helpers.tier import subset

from .conftest import FIXTURE_ENV

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
# The fast tier reads every third file of each source and each file where the two tools
# part in the full run (tests/helpers/tier.py); the full run reads them all.
PARTING = {"api_key_literal.yaml", "hf_token_literal.yaml"}
CORPORA = [
    *subset(sorted(HERE.glob("corpus*/*.yaml")), keep=lambda p: p.name in PARTING),
    *subset(sorted((REPO / "recipes").rglob("*.yaml"))),
    *subset(sorted((REPO / "tests/evals/files/configs").glob("*.yaml"))),
    *subset(sorted(HERE.glob("fixtures/*/*/*.yaml")), keep=lambda p: p.name in PARTING),
]
PREFIX = re.compile(r"(?m)^(\s+[A-Za-z_][A-Za-z0-9_]*: )(?:host|lit):(?=\S)")

# Where NEL101's fix and nel-migrate-config part, and why. Each returns the reason when
# it explains the difference for (name, original value, migration's value, ours).
DIFFERENCES = {
    "refused: a secret-named variable holding a word that is not a shell-style name "
    "or placeholder (more likely the secret itself; the migration writes host:<it>)": (
        lambda name, old, theirs, ours: (
            ours == old
            and theirs == f"host:{old}"
            and not re.fullmatch(r"\$?[A-Z_][A-Z0-9_]*", str(old))
        )
    ),
    "refused: a credential-shaped value or a secret-named literal (it would stay in the "
    "file; NEL103 says move it to the shell)": (
        lambda name, old, theirs, ours: ours == old and theirs == f"lit:{old}"
    ),
    "refused: an interpolation other than a bare ${oc.env:VAR} (its old meaning depends "
    "on what it resolves to)": (lambda name, old, theirs, ours: ours == old and "${" in str(old)),
    "refused by the engine's proof: another key interpolates or aliases this value": (
        lambda name, old, theirs, ours: ours == old and name in PROVED
    ),
    "a boolean: the migration's text match looks for `True` and leaves `true` as it was; "
    "lit: keeps the text the file spells": (
        lambda name, old, theirs, ours: isinstance(old, bool) and ours == f"lit:{str(old).lower()}"
    ),
}
PROVED: set[str] = set()  # filled per config from the outcome (names the proof refused)


def _env_values(data) -> dict[tuple, object]:
    out = {}
    if not isinstance(data, dict):
        return out
    maps = [(p, data) for p in ENV_SECTIONS]
    tasks = (
        (data.get("evaluation") or {}).get("tasks")
        if isinstance(data.get("evaluation"), dict)
        else None
    )
    for i, task in enumerate(tasks if isinstance(tasks, list) else []):
        if isinstance(task, dict) and isinstance(task.get("env_vars"), dict):
            out.update(
                {("evaluation", "tasks", i, "env_vars", k): v for k, v in task["env_vars"].items()}
            )
    for path, root in maps:
        node = root
        for part in path:
            node = node.get(part) if isinstance(node, dict) else None
        if isinstance(node, dict) and path != ("execution", "env_vars"):
            out.update({path + (k,): v for k, v in node.items() if not isinstance(v, dict)})
    return out


@functools.lru_cache(maxsize=4096)  # the same text is read up to three times per case
def _load(text):
    try:  # libyaml: the safe loader's types, at a tenth of the pure-Python cost
        return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError:
        return None


def _cases():
    for path in CORPORA:
        text = path.read_text(encoding="utf-8")
        if not isinstance(_load(text), dict):
            continue
        yield path, text
        stripped = PREFIX.sub(r"\1", text)
        if stripped != text:
            yield path, stripped


def _candidate(old) -> bool:
    """An env value both tools may rewrite: neither prefixed already nor a `???` blank."""
    if isinstance(old, str) and old.startswith(("host:", "lit:", "runtime:")):
        return False
    return old != "???"


@pytest.mark.launcher  # the real nel-migrate-config is the oracle
def test_nel101_fix_agrees_with_nel_migrate_config_on_every_corpus_config():
    from nemo_evaluator_launcher.cli.migrate_config import migrate

    compared, explained, unexplained = 0, {}, []
    for path, text in _cases():
        before = _env_values(_load(text))
        if not any(_candidate(value) for value in before.values()):
            continue  # every env value prefixed or blank: nothing below would compare it
        try:
            outcome = fix_text(text, str(path), Options(env=FIXTURE_ENV), select=["NEL101"])
        except Exception:  # not a nel config preflight loads (bad-input fixtures)
            continue
        theirs = _env_values(_load(migrate(text)[0]))
        ours = _env_values(_load(outcome.text))
        PROVED.clear()
        PROVED.update(
            str(f.path).rsplit(".", 1)[-1] for f in outcome.remaining if f.rule == "NEL101"
        )
        for key, old in before.items():
            if not _candidate(old) or key not in theirs or key not in ours:
                continue
            compared += 1
            if theirs[key] == ours[key]:
                continue
            why = next(
                (
                    w
                    for w, test in DIFFERENCES.items()
                    if test(key[-1], old, theirs[key], ours[key])
                ),
                None,
            )
            if why is None:
                unexplained.append(f"{path.name} {key}: {old!r} -> ours {ours[key]!r}, "
                                   f"nel-migrate-config {theirs[key]!r}")  # fmt: skip
            else:
                explained.setdefault(why, []).append(f"{path.name}:{key[-1]}")
    print(f"\n{compared} unprefixed env values compared")
    for why, where in explained.items():
        print(f"{len(where)} x {why}: {where[:4]}")
    assert compared >= 30
    assert not unexplained, "\n".join(unexplained)


@pytest.mark.parametrize(
    "value,expected",
    [
        ("fast", "host:fast"),  # a bare name was a host variable (the hint said so too)
        ("EMPTY", "host:EMPTY"),
        ("$hf_home", "host:hf_home"),
        ("${oc.env:MY_DIR}", "host:MY_DIR"),
        ("5", "lit:5"),
        ("/hf-cache", "lit:/hf-cache"),
        ("0.10", "lit:0.10"),
    ],
)
def test_hint_fix_and_migration_name_the_same_value(value, expected):
    from nemo_evaluator_launcher.cli.migrate_config import migrate

    from evalkit.config.textedit import Doc
    from evalkit.preflight.fixes.engine import remaining

    base = (HERE / "fixtures" / "_base" / "generic.yaml").read_text()
    text = base.replace(
        "    DUMMY_API_KEY: lit:dummy\n", f"    DUMMY_API_KEY: lit:dummy\n    MY_FLAG: {value}\n"
    )
    options = Options(env={**FIXTURE_ENV, "MY_DIR": "/d"})
    (hint,) = [f for f in remaining(Doc(text, "c.yaml"), options) if f.rule == "NEL101"]
    assert hint.fix == f"write it as '{expected}'"
    outcome = fix_text(text, "c.yaml", options)
    assert f"    MY_FLAG: {expected}\n" in outcome.text
    assert f"    MY_FLAG: {expected}\n" in migrate(text)[0]
