"""Check a config against schemas/nel-0.2.6-config.schema.json.

The schema is ordinary JSON Schema (2020-12) so editors and `jsonschema` can use it.
Preflight runs on every keystroke-sized edit and must start fast, and importing the
`jsonschema` package alone costs about 0.1 s; so this module evaluates the small
keyword subset the schema uses (type, enum, properties, additionalProperties, items,
required, not, $ref). tests/preflight/test_schema.py checks that it reports the same
failing paths as `jsonschema` itself and that the schema uses no other keyword.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path as FsPath
from typing import Any

from evalkit.config.interpolation import UNRESOLVED
from evalkit.config.yamldoc import Path
from evalkit.errors import InputError
from evalkit.inputs import read_text

SCHEMA_NAME = "nel-0.2.6-config.schema.json"
MISSING = "???"
SUPPORTED_KEYWORDS = frozenset(
    {"$schema", "$id", "$defs", "$ref", "title", "description", "type", "enum", "properties",
     "additionalProperties", "items", "required", "not"}
)  # fmt: skip
_TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    # As in JSON Schema: 3.0 is an integer too.
    "integer": lambda v: (
        (isinstance(v, int) and not isinstance(v, bool))
        or (isinstance(v, float) and v.is_integer())
    ),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def schema_path() -> FsPath:
    here = FsPath(__file__).resolve()
    for candidate in (
        here.parents[3] / "schemas" / SCHEMA_NAME,
        here.parents[1] / "data" / SCHEMA_NAME,
    ):
        if candidate.is_file():
            return candidate
    raise InputError(f"{SCHEMA_NAME} not found beside the evalkit package")


@lru_cache(maxsize=1)
def load_schema() -> dict:
    return json.loads(read_text(schema_path()))


@dataclass(frozen=True)
class SchemaIssue:
    path: Path
    kind: str  # unknown | rejected | type | enum | required
    message: str
    suggestion: str | None = None


def _type_name(value: Any) -> str:
    for name in ("null", "boolean", "integer", "number", "string", "array", "object"):
        if _TYPES[name](value):
            return name
    return type(value).__name__


class _Validator:
    def __init__(self, root: dict):
        self.root = root
        self.issues: list[SchemaIssue] = []

    def deref(self, schema: Any) -> Any:
        while isinstance(schema, dict) and "$ref" in schema:
            ref = schema["$ref"]
            node: Any = self.root
            for part in ref.lstrip("#/").split("/"):
                node = node[part]
            schema = node
        return schema

    def check(self, value: Any, schema: Any, path: Path) -> None:
        schema = self.deref(schema)
        if schema is True or schema is None:
            return
        if schema is False:
            self.issues.append(SchemaIssue(path, "rejected", "this key is not allowed here"))
            return
        if (value is UNRESOLVED or value == MISSING) and "not" not in schema:
            return  # a blank (NEL002) or a value known only at submit fits any type
        if "not" in schema:
            self.issues.append(
                SchemaIssue(path, "rejected", schema.get("description", "key not allowed"))
            )
            return
        types = schema.get("type")
        if types is not None:
            allowed = [types] if isinstance(types, str) else types
            if not any(_TYPES[t](value) for t in allowed):
                want = " or ".join(allowed)
                self.issues.append(
                    SchemaIssue(path, "type", f"expected {want}, found {_type_name(value)}")
                )
                return
        if "enum" in schema and value not in schema["enum"]:
            options = ", ".join(repr(v) for v in schema["enum"] if v is not None)
            close = difflib.get_close_matches(str(value), [str(v) for v in schema["enum"]], 1)
            self.issues.append(
                SchemaIssue(
                    path, "enum", f"{value!r} is not one of {options}", close[0] if close else None
                )
            )
            return
        if isinstance(value, dict):
            self.check_object(value, schema, path)
        elif isinstance(value, list) and "items" in schema:
            for i, item in enumerate(value):
                self.check(item, schema["items"], path + (i,))

    def check_object(self, value: dict, schema: dict, path: Path) -> None:
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for name in schema.get("required", ()):
            if name not in value:
                self.issues.append(SchemaIssue(path, "required", f"missing required key '{name}'"))
        for key, item in value.items():
            if key in props:
                self.check(item, props[key], path + (key,))
            elif extra is False:
                known = [k for k, s in props.items() if not (isinstance(s, dict) and "not" in s)]
                close = difflib.get_close_matches(str(key), known, n=1, cutoff=0.6)
                self.issues.append(
                    SchemaIssue(
                        path + (key,),
                        "unknown",
                        f"unknown key '{key}' (nel 0.2.6 does not read it)",
                        close[0] if close else None,
                    )
                )
            elif isinstance(extra, dict):
                self.check(item, extra, path + (key,))


def validate(data: dict, schema: dict | None = None) -> list[SchemaIssue]:
    root = schema or load_schema()
    validator = _Validator(root)
    validator.check(data, root, ())
    return validator.issues
