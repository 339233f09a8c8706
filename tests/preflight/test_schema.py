"""schemas/nel-0.2.6-config.schema.json: valid JSON Schema, and evalkit's fast subset
validator reports exactly the paths `jsonschema` reports."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalkit.config import load_config
from evalkit.config.schema import SUPPORTED_KEYWORDS, load_schema, schema_path, validate
from helpers.tier import examples

from .conftest import FIXTURES


def _keywords(node):
    if isinstance(node, dict):
        for key, value in node.items():
            yield key
            if key in ("properties", "$defs"):
                for sub in value.values():
                    yield from _keywords(sub)
            elif isinstance(value, (dict, list)) and key not in ("enum",):
                yield from _keywords(value)
    elif isinstance(node, list):
        for item in node:
            yield from _keywords(item)


def test_schema_is_valid_draft_2020_12():
    jsonschema.Draft202012Validator.check_schema(load_schema())
    assert schema_path().name == "nel-0.2.6-config.schema.json"


def test_schema_uses_only_supported_keywords():
    used = set(_keywords(load_schema()))
    used -= set(load_schema()["properties"])  # property names are not keywords
    assert {
        k for k in used if k in jsonschema.Draft202012Validator.VALIDATORS
    } <= SUPPORTED_KEYWORDS


def _jsonschema_paths(data):
    validator = jsonschema.Draft202012Validator(load_schema())
    paths = set()
    for err in validator.iter_errors(data):
        path = tuple(err.absolute_path)
        if err.instance == "???" and err.validator != "not":
            continue  # OmegaConf's mandatory blank fits any type (evalkit skips it too)
        if err.validator == "additionalProperties":
            extra = set(err.instance) - set(err.schema.get("properties", {}))
            paths |= {path + (k,) for k in extra}
        else:
            paths.add(path)
    return paths


def _ours(data):
    return {issue.path for issue in validate(data)}


FIXTURE_FILES = sorted(FIXTURES.glob("NEL*/*/*.yaml")) + sorted(FIXTURES.glob("_base/*.yaml"))


@pytest.mark.parametrize("config", FIXTURE_FILES, ids=lambda p: f"{p.parent.parent.name}/{p.stem}")
def test_same_paths_as_jsonschema_on_fixtures(config):
    try:
        data = load_config(str(config)).data
    except Exception:
        pytest.skip("fixture does not compose (covered by its own rule)")
    assert _ours(data) == _jsonschema_paths(data)


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.text(max_size=5),
    st.just("???"),
)
values = st.recursive(
    scalars,
    lambda kids: st.one_of(
        st.lists(kids, max_size=3), st.dictionaries(st.text(max_size=6), kids, max_size=3)
    ),
    max_leaves=10,
)
SECTIONS = ["execution", "deployment", "evaluation", "target", "export", "env_vars", "cluster"]
KEYS = st.sampled_from(
    [
        "walltime",
        "mounts",
        "type",
        "env_vars",
        "tasks",
        "name",
        "gres",
        "mount_home",
        "api_endpoint",
        "mlflow",
        "tags",
        "x",
        "image",
    ]
)
documents = st.dictionaries(
    st.sampled_from(SECTIONS), st.dictionaries(KEYS, values, max_size=4), max_size=4
)


@settings(max_examples=examples(150), deadline=None)
@given(documents)
def test_same_paths_as_jsonschema_on_random_documents(data):
    data = json.loads(json.dumps(data))  # JSON-shaped, as the schema sees it
    assert _ours(data) == _jsonschema_paths(data)


def test_did_you_mean():
    issues = validate({"execution": {"walltim": "04:00:00"}})
    assert [(i.kind, i.suggestion) for i in issues] == [("unknown", "walltime")]


def test_packaged_copy_of_the_schema_is_current():
    """Installed copies (scripts/evalkit, pip) read the schema from evalkit/data/."""
    repo = Path(__file__).resolve().parents[2]
    source = repo / "schemas" / "nel-0.2.6-config.schema.json"
    packaged = repo / "tools" / "evalkit" / "data" / "nel-0.2.6-config.schema.json"
    assert packaged.read_bytes() == source.read_bytes(), (
        "copy schemas/nel-0.2.6-config.schema.json to tools/evalkit/data/"
    )
