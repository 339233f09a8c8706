"""YAML for every file evalkit reads from a user or a run, loaded within fixed bounds.

PyYAML's safe loader shares aliased nodes, so an alias bomb of 1 KB loads quickly into a
small graph that explodes later, when anything walks or copies it; libyaml's composer
recurses in C, so a deeply nested document can crash the interpreter. Here the text is
size-checked, its nesting measured on the event stream (libyaml's parser keeps its own
stack, it does not recurse), and the composed graph counted as if every alias were
expanded, before one value is constructed. Same bounds as preflight's config reader
(evalkit.config.yamldoc) in spirit; the numbers are in the README's "Limits" table.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from evalkit.errors import InputError
from evalkit.inputs import yaml_error

_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

MAX_YAML_CHARS = 8 * 1024 * 1024  # a run_config.yml is a few kB; results.yml, tens of kB
MAX_YAML_DEPTH = 100  # collections inside collections; real files nest fewer than 15
MAX_YAML_NODES = 200_000  # values after alias expansion ("billion laughs" makes 10**9)


def _check_depth(text: str, path: str | Path) -> None:
    depth = 0
    for event in yaml.parse(text, Loader=_Loader):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_YAML_DEPTH:
                line = event.start_mark.line + 1 if event.start_mark else None
                raise InputError(
                    f"YAML nested deeper than {MAX_YAML_DEPTH} levels; not read", path, line
                )
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


def _check_expansion(root: yaml.Node, path: str | Path) -> None:
    """Count nodes as a consumer walking the loaded data would meet them (aliases and
    merge keys expanded); iterative, and it stops at the bound, so it is cheap either way."""
    count = 0
    stack = [root]
    while stack:
        node = stack.pop()
        count += 1
        if count > MAX_YAML_NODES:
            raise InputError(
                f"YAML expands to more than {MAX_YAML_NODES} values (an alias bomb?); not read",
                path,
                node.start_mark.line + 1 if node.start_mark else None,
            )
        if isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
        elif isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                stack.append(key)
                stack.append(value)


def compose_bounded(text: str, path: str | Path) -> yaml.Node | None:
    """The node graph of one YAML document (scalars keep their own text), within the
    bounds; for readers that need a value's spelling, not YAML's guess at its type."""
    if len(text) > MAX_YAML_CHARS:
        raise InputError(f"YAML larger than {MAX_YAML_CHARS} characters; not read", path)
    try:
        _check_depth(text, path)
        root = yaml.compose(text, Loader=_Loader)
        if root is not None:
            _check_expansion(root, path)
        return root
    except yaml.YAMLError as err:
        raise yaml_error(err, path) from None
    except RecursionError:
        raise InputError("YAML nested too deeply; not read", path) from None


def load_bounded(text: str, path: str | Path) -> Any:
    """Safe-load one YAML document; any violation is one InputError naming the file."""
    root = compose_bounded(text, path)
    if root is None:
        return None
    try:
        return yaml.constructor.SafeConstructor().construct_document(root)
    except yaml.YAMLError as err:
        raise yaml_error(err, path) from None
    except RecursionError:
        raise InputError("YAML nested too deeply; not read", path) from None
    except (ValueError, TypeError, OverflowError) as err:  # a value the constructor rejects
        raise InputError(f"bad YAML value: {err}", path) from None
