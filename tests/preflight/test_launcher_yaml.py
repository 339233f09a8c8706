"""Preflight reads a config's YAML exactly as the launcher does (issue 30, item 3).

nel 0.2.6 loads a config through Hydra: hydra-core 1.3.8,
hydra/_internal/core_plugins/file_config_source.py opens the file as UTF-8 text and calls
`OmegaConf.load`, which reads with OmegaConf 2.3's pure-Python loader. The test calls that
same FileConfigSource on the same bytes, so whatever the launcher refuses, preflight
refuses with one line naming the file and line, and whatever it accepts, preflight reads
to the same values. Generated documents mix the whitespace and line breaks the two YAML
scanners (libyaml, pure-Python PyYAML) disagree on.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalkit.config import load_document
from evalkit.errors import InputError
from helpers.tier import examples

# Blanks, line breaks (YAML 1.1 counts NEL, LS and PS as breaks; the launcher's text-mode
# read turns a lone CR into LF), a BOM, a no-break space and form feed / vertical tab.
GAPS = [" ", "  ", "\t", "\n", "\r", "\r\n", "\x85", "\u2028", "\u2029", "\ufeff"]
GAPS += ["\xa0", "\x0c", "\x0b", " #c", "\t#c", "#c"]


def launcher_load(path):
    """The launcher's read of one config file (the call Hydra makes for `nel run --config`)."""
    from hydra._internal.core_plugins.file_config_source import FileConfigSource
    from omegaconf import OmegaConf

    source = FileConfigSource(provider="test", path=str(path.parent))
    return OmegaConf.to_container(source.load_config(path.name).config, resolve=False)


def verdicts(tmp_path, data: bytes):
    path = tmp_path / "config.yaml"
    path.write_bytes(data)
    try:
        theirs, their_error = launcher_load(path), None
    except yaml.YAMLError as err:
        theirs, their_error = None, err
    except UnicodeDecodeError as err:
        theirs, their_error = None, err
    try:
        ours, our_error = load_document(str(path)), None
    except InputError as err:
        ours, our_error = None, err
    return theirs, their_error, ours, our_error


def assert_same_reading(tmp_path, data: bytes):
    theirs, their_error, ours, our_error = verdicts(tmp_path, data)
    if their_error is not None:
        assert our_error is not None, f"launcher refuses ({their_error!r}), preflight reads it"
        line = str(our_error)
        assert "\n" not in line and line.startswith(f"{tmp_path / 'config.yaml'}:"), line
        assert our_error.line is not None, line
        return
    if our_error is not None:
        # Preflight also wants a non-empty mapping at the top. OmegaConf.load turns a
        # top-level string into a one-key mapping, so compare with what its loader read.
        from omegaconf._utils import get_yaml_loader

        read = yaml.load(data.decode("utf-8"), Loader=get_yaml_loader())
        assert not isinstance(read, dict) or not read, (data, our_error)
        return
    if ours.duplicates:
        pytest.fail(f"launcher accepted duplicate keys: {data!r}")
    assert ours.data == theirs, data


@pytest.mark.parametrize(
    "text",
    [
        "model_id: m\t\n",
        "a: 1\t# trailing comment after a tab\n",
        "a: b\t\nc: d\n",
        "a:\t1\n",
        "a:\n  b: 1\t\n",
        "a: [1,\t2]\n",
        "a: 1\r\nb: 2\r\n",
        "a: 1\rb: 2\r",
        "\ufeffa: 1\n",
        "a: 1\x85b: 2\n",
        "a: x\u2028b: 2\n",
        "a: x\u2029\u2029b: 2\n",
        "a: 'q\tq'\n",
        "a: |\n  x\t\n  y\n",
        "a: 1\n\ufeffb: 2\n",
        "a: \x01\n",
        "a: 1e-5\nb: 2024-01-02\n",
        'a: "x\ry"\n',
        "a: |\r  x\r  y\rb: 1\r",
        'a: "x\x85y"\n',
        "a: x\ry\n",
        "a: b #c\rd: e\n",
    ],
)
def test_known_differences(tmp_path, text):
    assert_same_reading(tmp_path, text.encode("utf-8"))


def test_a_trailing_tab_is_one_line_naming_file_and_line(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("target:\n  api_endpoint:\n    model_id: m\t\n")
    with pytest.raises(InputError) as err:
        load_document(str(path))
    assert err.value.line == 3 and "\n" not in str(err.value)


def test_values_typed_as_the_launcher_types_them(tmp_path):
    """OmegaConf's loader reads `1e-5` as a float and a date as a string."""
    path = tmp_path / "c.yaml"
    path.write_text("a: 1e-5\nb: 2024-01-02\nc: 10:00:00\n")
    assert load_document(str(path)).data == {"a": 1e-5, "b": "2024-01-02", "c": 36000}


def _document(draw) -> str:
    gap = st.lists(st.sampled_from(GAPS), max_size=3).map("".join)
    scalar = st.sampled_from(["m", "1", "x y", "'q'", '"d"', "1e3", "${a.b}", "[1, 2]"])
    lines = []
    for i in range(draw(st.integers(1, 5))):
        indent = draw(st.sampled_from(["", "  "])) if i else ""
        lines.append(f"{indent}k{i}:{draw(gap)}{draw(scalar)}{draw(gap)}")
        lines.append(draw(st.sampled_from(["\n", "\r\n", "\r", "\x85", "\u2028", "\n\n"])))
    return draw(st.sampled_from(["", "\ufeff"])) + "".join(lines)


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_generated_whitespace_reads_as_the_launcher_reads_it(tmp_path_factory, data):
    tmp_path = tmp_path_factory.mktemp("doc")
    assert_same_reading(tmp_path, data.draw(st.composite(_document)()).encode("utf-8"))


@pytest.mark.launcher
def test_the_real_dry_run_refuses_what_preflight_refuses(tmp_path):
    """End to end: the example config with one trailing tab, through `nel run --dry-run`."""
    from helpers.nel import dry_run

    from .test_property import run_preflight

    example = Path(__file__).resolve().parents[2] / "recipes" / "examples" / "gym"
    text = (example / "example_mrcr.yaml").read_text()
    value = re.search(r"^ *\w+: [\w./-]+$", text, re.M)  # the first plain `key: value`
    tabbed = text[: value.end()] + "\t" + text[value.end() :]
    line = text.count("\n", 0, value.end()) + 1
    config = tmp_path / "config.yaml"
    config.write_text(tabbed)
    assert "ScannerError" in dry_run(config).error
    code, _, err = run_preflight(tabbed)
    assert code == 2 and err.count("\n") == 1 and f"config.yaml:{line}:" in err, err
