"""The bundled group data must equal the installed launcher 0.2.6's own configs/ files."""

from __future__ import annotations

from importlib import resources

import pytest
import yaml

from evalkit.config.groups import GROUPS_RESOURCE, bundled_groups

launcher = pytest.importorskip("nemo_evaluator_launcher")


def _launcher_configs():
    root = resources.files("nemo_evaluator_launcher") / "configs"
    out = {}
    for group in ("execution", "deployment"):
        base = root / group
        for path in sorted(base.rglob("*.yaml")):  # type: ignore[attr-defined]
            option = str(path.relative_to(base))[: -len(".yaml")]
            out[(group, option)] = yaml.safe_load(path.read_text())
    return out


def _raw_data():
    text = resources.files("evalkit").joinpath("data", GROUPS_RESOURCE).read_text()
    return yaml.safe_load(text)


def test_launcher_version_matches():
    from importlib.metadata import version

    assert _raw_data()["launcher_version"] == version("nemo-evaluator-launcher") == "0.2.6"


def test_every_launcher_option_is_bundled():
    ours = {(g, o) for g, opts in bundled_groups().items() for o in opts}
    assert set(_launcher_configs()) == ours


@pytest.mark.parametrize("key", sorted(_launcher_configs()), ids=lambda k: "/".join(k))
def test_group_values_equal_launcher(key):
    group, option = key
    theirs = _launcher_configs()[key]
    ours = dict(bundled_groups()[group][option])
    summarised = ours.pop("summarised", [])
    for name in summarised:
        assert name in theirs, f"{name} is summarised but the launcher has no such key"
        theirs.pop(name)
        ours.pop(name)
    assert ours == theirs
