"""Every unreadable input becomes one InputError naming the file and, where known, the line."""

from __future__ import annotations

import pytest

from evalkit.errors import InputError
from evalkit.inputs import expect_mapping, load_json, load_yaml, read_text


def error_of(fn, path) -> InputError:
    with pytest.raises(InputError) as info:
        fn(path)
    return info.value


def test_missing_file_and_directory(tmp_path):
    assert (
        str(error_of(read_text, tmp_path / "nope.yaml"))
        == f"{tmp_path / 'nope.yaml'}: no such file"
    )
    assert "is a directory" in str(error_of(read_text, tmp_path))


def test_binary_and_bad_utf8_name_the_line(tmp_path):
    binary = tmp_path / "b.json"
    binary.write_bytes(b'{\n"a": 1,\n\x00}')
    assert error_of(read_text, binary).line == 3
    latin = tmp_path / "l.yaml"
    latin.write_bytes(b"a: 1\nb: caf\xe9\n")
    err = error_of(read_text, latin)
    assert err.line == 2 and "UTF-8" in err.message


def test_malformed_and_truncated_json(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{\n  "a": 1,\n  "b": \n')
    err = error_of(load_json, bad)
    assert err.path == str(bad) and err.line == 4 and "malformed JSON" in err.message


def test_malformed_yaml_names_the_line(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("a: 1\nb: [1, 2\nc: 3\n")
    err = error_of(load_yaml, bad)
    assert err.line is not None and err.line >= 2 and "malformed YAML" in err.message


def test_wrong_top_level_type(tmp_path):
    with pytest.raises(InputError, match="must be a mapping, found list"):
        expect_mapping([1, 2], tmp_path / "x.yaml")
    with pytest.raises(InputError, match="found empty"):
        expect_mapping(None, tmp_path / "x.yaml")


def test_reading_never_modifies_the_input(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_text("a: 1\n")
    before = path.stat().st_mtime_ns, path.read_bytes()
    load_yaml(path)
    assert (path.stat().st_mtime_ns, path.read_bytes()) == before


def test_a_folder_holding_one_invocation_is_read_as_that_invocation(tmp_path):
    # Agents under the protocol passed runs/baseline (the copied output_dir) and got
    # "no task runs found"; one invocation below is unambiguous, several are named.
    import shutil

    from evalkit.runs.layout import resolve_task_runs
    from helpers.bundled import MRCR, task_dir

    shutil.copytree(task_dir("baseline", MRCR).parent, tmp_path / "one" / "inv")
    assert [t.name for t in resolve_task_runs(tmp_path / "one")] == [MRCR]


def test_invocations_of_distinct_tasks_are_one_side_and_reruns_are_named(tmp_path):
    # The bundled sides: MRCR standalone in one invocation, GPQA in another (issue 42).
    import shutil

    from evalkit.runs.layout import resolve_task_runs
    from helpers.bundled import GPQA, MRCR, SUITE

    found = resolve_task_runs(SUITE / "baseline")
    assert sorted(t.name for t in found) == [MRCR, GPQA]
    assert len({t.task_dir.parent for t in found}) == 2
    shutil.copytree(SUITE / "baseline", tmp_path / "out")
    for inv in (SUITE / "candidate").iterdir():  # a second run of each task: ambiguous
        shutil.copytree(inv, tmp_path / "out" / inv.name)
    with pytest.raises(InputError, match="several invocation directories here, pass one: "):
        resolve_task_runs(tmp_path / "out")
