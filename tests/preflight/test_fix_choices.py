"""The unsafe fixes' choices and notes, in the fast tier (issue 52): each fixer's own
output, checked by value. The launcher's proof that the fixed file is accepted lives in
test_history_fixes.py and test_unsafe_fixes.py (marked `launcher`)."""

from __future__ import annotations

import pytest
import yaml

from evalkit.preflight.fixes.engine import _changed_lines, _overlaps, fix_text
from evalkit.preflight.runner import Options

from .conftest import FIXTURE_ENV, FIXTURES
from .test_history_fixes import _fix, _local
from .test_unsafe_fixes import GPQA
from .test_unsafe_fixes import _fix as _fix_file


def _note(outcome, rule: str) -> tuple[str, str]:
    (step,) = [f for f in outcome.fixed if f.rule == rule]
    return step.after, step.note


def test_an_ambiguous_name_takes_the_era_choice_and_lists_only_the_others():
    after, note = _note(_fix_file(GPQA.read_text(), GPQA, unsafe=True), "NEL009")
    assert after.strip() == "- name: simple_evals.gpqa_diamond"
    head, others = note.split("; 0.2.6 also has ")
    assert head.startswith("gpqa_diamond -> simple_evals.gpqa_diamond: ")
    assert "0.1.0 to 0.1.70 (sampled)" in head
    assert others == "codec.gpqa_diamond"


@pytest.mark.parametrize(
    "name, after, note",
    [
        # a task 0.2.6 dropped, with one successor of the endpoint's type: renamed to it
        (
            "mbpp",
            "name: bigcode-evaluation-harness.mbpp-chat",
            "mbpp -> bigcode-evaluation-harness.mbpp-chat: 0.2.6 has no task 'mbpp' (releases "
            "0.1.0 to 0.1.70 listed it under bigcode-evaluation-harness)",
        ),
        # two candidates, one serving chat (the URL's type): that one
        (
            "mmlu_pro",
            "name: simple_evals.mmlu_pro",
            "of 0.2.6's candidates ['lm-evaluation-harness.mmlu_pro', "
            "'simple_evals.mmlu_pro'] only simple_evals.mmlu_pro serves chat",
        ),
        # a dropped task with no successor: the container that last carried it
        (
            "aa_scicode",
            "container: nvcr.io/nvidia/eval-factory/scicode:25.10",
            "0.2.6 has no task 'aa_scicode' (releases 0.1.0 to 0.1.40 listed it under "
            "scicode, the last of them in this image)",
        ),
    ],
)
def test_a_task_name_resolves_through_older_registries(tmp_path, name, after, note):
    text = _local(tmp_path / "out", f"    - name: {name}\n", "    api_key_name: HF_TOKEN\n")
    got_after, got_note = _note(_fix(text, tmp_path / "c.yaml"), "NEL009")
    assert got_after.strip().removeprefix("- ") == after
    assert note in got_note


# --------------------------------------------------------- the engine's own bookkeeping


@pytest.mark.parametrize(
    "old, new, removed, added",
    [
        ("a\nb\nc", "a\nb\nC", "c", "C"),  # the last line
        ("a\nb\nc", "A\nb\nc", "a", "A"),  # the first line
        ("x\ny\nw", "x\nz\nv", "y\nw", "z\nv"),  # two at the end, the first kept
        ("x", "x\ny", "", "y"),  # a line appended
        ("x", "y\nx\ny\nx", "", "y\nx\ny"),  # lines like the kept one, added before it
        ("a\nb\nc", "a\nb\nc", "", ""),  # nothing
    ],
)
def test_a_fix_reports_the_lines_it_changed(old, new, removed, added):
    """What `preflight --fix` shows as a fix's before and after lines."""
    assert _changed_lines(old, new) == (removed, added)


@pytest.mark.parametrize(
    "path, owned, overlaps",
    [
        (("a", "b"), [("a", "b")], True),  # the same key
        (("a", "b", "c"), [("a", "b")], True),  # inside a key another fix owns
        (("a",), [("a", "b")], True),  # around it
        (("a", "c"), [("a", "b")], False),  # a sibling
        (("b",), [("a", "b")], False),
        (("a", "b"), [], False),
    ],
)
def test_two_fixes_overlap_when_one_key_holds_the_other(path, owned, overlaps):
    assert _overlaps([path], owned) is overlaps


# --------------------------------------------------- a flag added to a literal `|` command
# NEL301 passes --gpu-memory-utilization to the one `vllm serve` of deployment.command.
# In a literal block each line is a shell line: the flag can follow the serve line only
# when that line is continued with `\`, or is the block's last line (then the fix adds
# the `\` itself).
FOLDED = FIXTURES / "NEL301" / "fail" / "gpu_util_unused.yaml"


def _with_command(block: str) -> str:
    text = FOLDED.read_text()
    start = text.index("  command: >-\n")
    end = text.index("\nevaluation:")
    return text[:start] + block + text[end:]


def test_a_literal_command_ending_in_its_serve_line_gets_the_flag():
    text = _with_command(
        "  command: |\n"
        "    export VLLM_LOGGING_LEVEL=INFO\n"
        "    vllm serve /checkpoint --served-model-name ${deployment.served_model_name} "
        "--port ${deployment.port}\n"
    )
    outcome = fix_text(text, str(FOLDED), Options(env=FIXTURE_ENV))
    assert "NEL301" in {f.rule for f in outcome.fixed}
    added = "    --gpu-memory-utilization ${deployment.gpu_memory_utilization}\n"
    assert "--port ${deployment.port} \\\n" + added in outcome.text


def test_a_literal_command_with_a_shell_line_after_serve_is_left_alone():
    text = _with_command(
        "  command: |\n"
        "    vllm serve /checkpoint --served-model-name ${deployment.served_model_name} "
        "--port ${deployment.port} &\n"
        "    wait\n"
    )
    outcome = fix_text(text, str(FOLDED), Options(env=FIXTURE_ENV))
    assert "NEL301" not in {f.rule for f in outcome.fixed}
    assert "--gpu-memory-utilization" not in outcome.text


# ------------------------------------------- the unsafe fixes' edits, without the launcher
# test_history_fixes.py proves each with the real nel 0.2.6 (refused before, accepted
# after); here the edit and its note are checked by value in the fast tier.


def test_the_unsafe_fixers_are_exactly_these():
    """Each chooses behaviour the file does not state (references/rules.md, "Unsafe fix"):
    registered as safe, it would run under a plain --fix."""
    from evalkit.preflight.fixes import unsafe_fixers

    assert sorted(unsafe_fixers()) == ["NEL005", "NEL007", "NEL009", "NEL010", "NEL101", "NEL104"]


def test_a_group_directory_becomes_its_one_option(tmp_path):
    from .test_history_fixes import SLURM_GROUP

    after, note = _note(_fix(SLURM_GROUP, tmp_path / "c.yaml"), "NEL007")
    assert after.strip() == "- execution: slurm/default"
    assert note.startswith("defaults execution: slurm -> slurm/default: the one option ")
    assert "NEL007" not in {f.rule for f in _fix(SLURM_GROUP, tmp_path / "c.yaml", False).fixed}


def test_the_local_executor_workaround_and_sequential_mode(tmp_path):
    from .test_history_fixes import VLLM_PARALLEL

    outcome = _fix(_local(tmp_path / "out"), tmp_path / "c.yaml")
    assert "  env_vars:\n    NEL026_LOCAL_ENV_WORKAROUND: lit:1" in outcome.text
    assert "# workaround: nel 0.2.6's local executor needs an env var" in outcome.text
    outcome = _fix(VLLM_PARALLEL.format(out=tmp_path / "o"), tmp_path / "c.yaml")
    after, note = _note(outcome, "NEL010")
    assert after.strip() == "mode: sequential"
    assert note.startswith("execution.mode: parallel -> sequential: ")


def test_placeholder_secrets_are_read_from_the_shell(tmp_path):
    extra = "env_vars:\n  TOKENIZERS_PARALLELISM: 'false'\n  HF_TOKEN: hf_your_token\n"
    outcome = _fix(_local(tmp_path / "out", extra=extra), tmp_path / "c.yaml")
    assert "  HF_TOKEN: host:HF_TOKEN\n" in outcome.text
    assert "  TOKENIZERS_PARALLELISM: lit:false\n" in outcome.text
    (note,) = [f.note for f in outcome.fixed if f.rule == "NEL101" and f.note]
    assert note.startswith("HF_TOKEN: a placeholder (value not shown) -> host:HF_TOKEN")
    assert "hf_your_token" not in note


def test_a_placeholder_in_a_tasks_env_vars_is_read_from_the_shell(tmp_path):
    tasks = "    - name: simple_evals.mmlu\n      env_vars:\n        HF_TOKEN: <YOUR_TOKEN>\n"
    outcome = _fix(_local(tmp_path / "out", tasks), tmp_path / "c.yaml")
    assert "        HF_TOKEN: host:HF_TOKEN\n" in outcome.text
    assert any(
        f.rule == "NEL101" and f.note and "-> host:HF_TOKEN" in f.note for f in outcome.fixed
    )


def _text(code: str, name: str, *edits: tuple[str, str]) -> str:
    """The golden fail fixture CODE/NAME with each (old, new) edit made once."""
    text = (FIXTURES / code / "fail" / f"{name}.yaml").read_text()
    for old, new in edits:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    return text


def _fixed(code: str, name: str, *edits: tuple[str, str]):
    """Fix the edited fixture (`_text`); the outcome, after checking CODE's fixer made a
    change."""
    outcome = fix_text(_text(code, name, *edits), "c.yaml", Options(env=FIXTURE_ENV))
    assert code in {f.rule for f in outcome.fixed}, outcome.remaining
    return outcome


def test_the_invocation_id_moves_onto_an_equal_evaluation_entry():
    """evaluation.env_vars already says the same: the top-level copy just goes."""
    outcome = _fixed(
        "NEL102",
        "top_level_runtime",
        (
            "    DUMMY_API_KEY: lit:dummy\n",
            "    DUMMY_API_KEY: lit:dummy\n    NEL_INVOCATION_ID: runtime:NEL_INVOCATION_ID\n",
        ),
    )
    assert outcome.text.count("NEL_INVOCATION_ID: runtime:NEL_INVOCATION_ID") == 1
    assert "\nenv_vars:" not in outcome.text


def test_a_renamed_reasoning_parser_is_fixed_through_its_key():
    """`--reasoning-parser ${deployment.reasoning_parser}`: the key's value changes, the
    command keeps reading it."""
    outcome = _fixed(
        "NEL313",
        "nano_v3_reasoning_parser",
        (
            "    --reasoning-parser nano_v3\n",
            "    --reasoning-parser ${deployment.reasoning_parser}\n",
        ),
        (
            "  served_model_name: model-fp8\n",
            "  served_model_name: model-fp8\n  reasoning_parser: nano_v3\n",
        ),
    )
    assert "--reasoning-parser ${deployment.reasoning_parser}\n" in outcome.text
    assert "  reasoning_parser: nemotron_v3\n" in outcome.text


def test_a_comment_above_the_moved_execution_env_vars_stays():
    outcome = _fixed(
        "NEL005",
        "execution_env_vars",
        ("  env_vars:\n    HF_HOME", "  # the cluster's cache\n  env_vars:\n    HF_HOME"),
    )
    assert "# the cluster's cache" in outcome.text


def test_execution_env_vars_already_at_the_top_level_just_go():
    outcome = _fixed(
        "NEL005",
        "execution_env_vars",
        ("\ndeployment:\n", "\nenv_vars:\n  HF_HOME: lit:/hf-cache\n\ndeployment:\n"),
    )
    assert outcome.text.count("HF_HOME: lit:/hf-cache") == 1
    assert "\nenv_vars:\n  HF_HOME: lit:/hf-cache\n" in outcome.text


def test_a_comment_above_the_emptied_top_level_env_vars_stays():
    outcome = _fixed(
        "NEL102", "top_level_runtime", ("\nenv_vars:\n", "\n# ids for the export job\nenv_vars:\n")
    )
    assert "# ids for the export job" in outcome.text and "\nenv_vars:" not in outcome.text


@pytest.mark.parametrize(
    "text, block",
    [
        ("x:\n  a: 1\n  b: 2\n", True),
        ("x: {a: 1}\n", False),  # flow: one line, no line to add a key on
        ("x: {}\n", False),
        ("x: 3\n", False),
        ("y: 1\n", False),  # absent
    ],
)
def test_a_block_mapping_is_written_one_key_per_line(text, block):
    from evalkit.config.textedit import Doc
    from evalkit.preflight.fixes.blocks import block_mapping

    assert block_mapping(Doc(text, "c.yaml"), ("x",)) is block


@pytest.mark.parametrize(
    "written, quoted",
    [
        ("10:00:00", "10:00:00"),
        ("1:30:00", "01:30:00"),
        ("7200", "02:00:00"),  # seconds, as the launcher would pass them
        ("0", "00:00:00"),  # Slurm reads a zero time limit as none; so does 00:00:00
        ("0:30:00", None),  # YAML 1.1's base-60 form needs a non-zero first digit: a string
    ],
)
def test_an_integer_walltime_is_quoted_as_the_same_duration(written, quoted):
    text = (FIXTURES / "NEL202" / "fail" / "unquoted_ten_hours.yaml").read_text()
    assert text.count("\n  walltime: 10:00:00\n") == 1
    text = text.replace("\n  walltime: 10:00:00\n", f"\n  walltime: {written}\n")
    outcome = fix_text(text, "c.yaml", Options(env=FIXTURE_ENV))
    if quoted is None:
        assert outcome.text == text and not outcome.fixed
    else:
        assert f'\n  walltime: "{quoted}"\n' in outcome.text


def test_a_multi_line_entry_moves_without_a_comment_read_from_inside_its_quotes():
    outcome = _fixed(
        "NEL005",
        "execution_env_vars",
        (
            "    HF_HOME: lit:/hf-cache\n",
            '    HF_HOME: lit:/hf-cache\n    NOTE: "lit:a # not\n      a comment"\n',
        ),
    )
    moved = yaml.safe_load(outcome.text)["env_vars"]
    assert moved == {"HF_HOME": "lit:/hf-cache", "NOTE": "lit:a # not a comment"}
    assert not [line for line in outcome.text.splitlines() if line.rstrip().endswith("# not")]
