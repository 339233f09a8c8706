"""Branches of the fixers and of the fix engine that the other fix tests do not reach
(issue 52, the `fixes` mutation target): each case starts from a golden fail fixture with
one fact changed and checks evalkit's own output by value (the fixed text, the note, what
remains, the error)."""

from __future__ import annotations

import dataclasses
import os

import pytest

from evalkit.errors import InputError
from evalkit.preflight.fixes.engine import _changed_lines, fix_text
from evalkit.preflight.runner import Options

from .conftest import FIXTURE_ENV
from .test_fix_choices import _fixed, _text

# ------------------------------------------------------------------ the engine


def test_two_swapped_lines_are_both_shown_as_changed():
    """Neither end is shared, though the first line of one is the last of the other."""
    assert _changed_lines("a\nb", "b\na") == ("b", "b")


def test_a_second_fixer_for_one_rule_is_refused():
    from evalkit.preflight.fixes import all_fixers, fixer

    registered = all_fixers()["NEL102"]
    with pytest.raises(ValueError, match="^duplicate fixer for NEL102$"):
        fixer("NEL102")(lambda doc, hit, ctx: False)
    assert all_fixers()["NEL102"] == registered


def test_a_fixer_that_claims_a_fix_it_did_not_make_is_not_reported(monkeypatch):
    import evalkit.preflight.fixes as registry

    def claims(doc, hit, ctx):
        return True  # the text is left as it was

    fixer = registry.all_fixers()["NEL102"]
    monkeypatch.setitem(registry._FIXERS, "NEL102", dataclasses.replace(fixer, apply=claims))
    outcome = fix_text(_text("NEL102", "top_level_runtime"), "c.yaml", Options(env=FIXTURE_ENV))
    assert outcome.fixed == []
    assert [f.rule for f in outcome.remaining] == ["NEL102"]


def test_a_hit_waiting_behind_a_refused_fix_gets_its_round(monkeypatch):
    """NEL102's fix (replaced here) claims execution.walltime, so NEL202's hit there waits;
    the proof then refuses NEL102's fix (it changes a value it does not own). Nothing was
    fixed in that round, but a hit was refused: the next round fixes the walltime."""
    import evalkit.preflight.fixes as registry

    def overreaches(doc, hit, ctx):
        doc.replace_text(doc.text.replace("DUMMY_API_KEY: lit:dummy", "DUMMY_API_KEY: lit:x"))
        doc.claim(("execution", "walltime"))
        return True

    fixer = registry.all_fixers()["NEL102"]
    monkeypatch.setitem(registry._FIXERS, "NEL102", dataclasses.replace(fixer, apply=overreaches))
    text = _text("NEL102", "top_level_runtime", ('  walltime: "04:00:00"', "  walltime: 10:00:00"))
    outcome = fix_text(text, "c.yaml", Options(env=FIXTURE_ENV))
    assert [f.rule for f in outcome.fixed] == ["NEL202"]
    assert '  walltime: "10:00:00"' in outcome.text
    assert "DUMMY_API_KEY: lit:dummy" in outcome.text
    assert [f.rule for f in outcome.remaining] == ["NEL102"]


def test_the_proof_sees_another_key_fail_for_another_reason():
    """num_fewshot reads an env var whose reference fails; an edit of the env var changes
    which key is missing, so num_fewshot's failure changes too: a change outside it."""
    from evalkit.preflight.fixes.meaning import changed_outside, meaning

    from .test_fix_meaning import NUM_FEWSHOT
    from .test_fix_meaning import _text as _generic

    before = _generic(
        "    SHOTS: ${evaluation.shots_one}\n",
        "        num_fewshot: ${evaluation.env_vars.SHOTS}\n",
    )
    after = before.replace("shots_one", "shots_two")
    old, new = (meaning(t, "c.yaml", (), FIXTURE_ENV) for t in (before, after))
    assert old[NUM_FEWSHOT][1] == (
        "<unresolvable>",
        "Interpolation key 'evaluation.shots_one' not found",
    )
    assert changed_outside(old, new, [("evaluation", "env_vars", "SHOTS")]) == [NUM_FEWSHOT]


# ------------------------------------------------------------------ reading and writing


def test_mixed_line_endings_name_the_first_lf_only_line(tmp_path):
    from evalkit.preflight.fixes.files import read_config

    cfg = tmp_path / "c.yaml"
    cfg.write_bytes(b"a: 1\r\nb: 2\r\nc: 3\nd: 4\r\n")
    with pytest.raises(InputError) as err:
        read_config(str(cfg))
    assert (err.value.line, err.value.message) == (
        3,
        "mixes CRLF and LF line endings: --fix would not keep them",
    )


def test_a_file_that_grew_after_it_was_read_is_not_written(tmp_path):
    from evalkit.preflight.fixes.files import read_config, write_in_place

    cfg = tmp_path / "c.yaml"
    cfg.write_text("a: 1\n")
    source = read_config(str(cfg))
    cfg.write_text("a: 1\nb: 2\n")  # another editor appended a line
    with pytest.raises(InputError, match="changed while it was being fixed: not written"):
        write_in_place(str(cfg), source, "a: 2\n")
    assert cfg.read_text() == "a: 1\nb: 2\n"


def test_a_file_that_cannot_be_opened_for_writing_is_one_line(tmp_path):
    from evalkit.preflight.fixes.files import read_config, write_in_place

    cfg = tmp_path / "c.yaml"
    cfg.write_text("a: 1\n")
    source = read_config(str(cfg))
    os.remove(cfg)  # gone between reading and writing
    with pytest.raises(InputError) as err:
        write_in_place(str(cfg), source, "a: 2\n")
    assert err.value.message == "cannot write the fixed file (No such file or directory)"
    assert not cfg.exists()


# ------------------------------------------------------------------ the safe fixers


def test_a_tasks_config_key_becomes_its_nemo_evaluator_config():
    """0.2.3 read a task's `config` as its nemo_evaluator_config (nel004_task_overrides.py)."""
    outcome = _fixed(
        "NEL004",
        "walltime_typo",
        (
            "      container: nvcr.io/nvidia/eval-factory/nemo-skills:26.03\n",
            "      container: nvcr.io/nvidia/eval-factory/nemo-skills:26.03\n"
            "      config:\n        params:\n          temperature: 0.5\n",
        ),
    )
    (step,) = [f for f in outcome.fixed if f.rule == "NEL004"]
    assert (step.path, step.before, step.after) == (
        "evaluation.tasks[0].config",
        "      config:",
        "      nemo_evaluator_config:",
    )
    assert "        params:\n          temperature: 0.5\n" in outcome.text
    assert "NEL004" not in {f.rule for f in outcome.remaining if "config" in f.message}


def test_a_missing_export_tag_is_added_under_the_block_tags():
    outcome = _fixed("NEL501", "stale_temperature", ("      top_p: '0.95'\n", ""))
    tags = "    tags:\n      temperature: \"0.6\"\n      max_new_tokens: '65536'\n"
    assert outcome.text.endswith(tags + '      top_p: "0.95"\n')
    assert not [f for f in outcome.remaining if f.rule == "NEL501"]


def test_a_more_indented_folded_serve_line_gets_no_flag():
    """In a folded `>` block a more-indented line keeps its newline: a flag on the next
    line would be a new shell line (serve.py)."""
    from .test_fix_choices import _with_command

    text = _with_command(
        "  command: >-\n"
        "    echo serving\n"
        "      vllm serve /checkpoint --served-model-name ${deployment.served_model_name}\n"
        "      --port ${deployment.port}\n"
    )
    outcome = fix_text(text, "c.yaml", Options(env=FIXTURE_ENV))
    assert outcome.text == text and outcome.fixed == []
    assert "NEL301" in {f.rule for f in outcome.remaining}


def test_a_parser_key_that_reads_another_key_is_not_overwritten():
    """`deployment.reasoning_parser: ${deployment.parser}`: the key does not say nano_v3
    itself, so the fix through it is refused (nel313_parser_rename.py)."""
    text = _text(
        "NEL313",
        "nano_v3_reasoning_parser",
        (
            "    --reasoning-parser nano_v3\n",
            "    --reasoning-parser ${deployment.reasoning_parser}\n",
        ),
        (
            "  served_model_name: model-fp8\n",
            "  served_model_name: model-fp8\n  reasoning_parser: ${deployment.parser}\n"
            "  parser: nano_v3\n",
        ),
    )
    outcome = fix_text(text, "c.yaml", Options(env=FIXTURE_ENV))
    assert outcome.text == text and outcome.fixed == []
    assert "NEL313" in {f.rule for f in outcome.remaining}


def test_the_local_workaround_goes_into_an_empty_evaluation_env_vars(tmp_path):
    from .test_history_fixes import _fix, _local

    text = _local(tmp_path / "out").replace("evaluation:\n", "evaluation:\n  env_vars: {}\n", 1)
    outcome = _fix(text, tmp_path / "c.yaml")
    (step,) = [f for f in outcome.fixed if f.rule == "NEL010"]
    assert step.note.startswith("added evaluation.env_vars.NEL026_LOCAL_ENV_WORKAROUND: lit:1")
    assert "NEL026_LOCAL_ENV_WORKAROUND: lit:1" in outcome.text
    assert "env_vars: {}" not in outcome.text


def test_a_comment_above_execution_env_vars_is_not_copied_onto_a_moved_entry():
    """The comment line above the block is outside it: it stays, once."""
    outcome = _fixed(
        "NEL005",
        "execution_env_vars",
        ("  env_vars:\n    HF_HOME", "  # the cluster's cache\n  env_vars:\n    HF_HOME"),
    )
    assert outcome.text.count("# the cluster's cache") == 1
    assert outcome.text.endswith("\nenv_vars:\n  HF_HOME: lit:/hf-cache\n")


def test_the_comment_of_an_empty_group_goes_with_the_last_moved_entry():
    outcome = _fixed(
        "NEL005",
        "execution_env_vars",
        (
            "  env_vars:\n    HF_HOME: lit:/hf-cache\n",
            "  env_vars:\n    deployment:\n      HF_HOME: lit:/hf-cache\n"
            "    export:  # none yet\n      {}\n",
        ),
    )
    (step,) = outcome.fixed
    assert step.after == "    HF_HOME: lit:/hf-cache  # none yet"
    assert "  env_vars:\n    HF_TOKEN: host:HF_TOKEN\n    HF_HOME: lit:/hf-cache  # none yet\n" in (
        outcome.text
    )


def test_execution_env_vars_are_kept_when_the_top_level_gives_a_name_another_value():
    text = _text(
        "NEL005",
        "execution_env_vars",
        ("\ndeployment:\n", "\nenv_vars:\n  HF_HOME: lit:/other-cache\n\ndeployment:\n"),
    )
    outcome = fix_text(text, "c.yaml", Options(env=FIXTURE_ENV))
    assert outcome.text == text and outcome.fixed == []
    assert [(f.rule, f.path) for f in outcome.remaining] == [("NEL005", "execution.env_vars")]


def test_a_reference_that_names_no_shell_variable_is_not_escaped():
    """`${None}` is a key OmegaConf cannot find, not an upper-case shell variable: which
    one was meant is not certain (nel001_escape_shell_var.py)."""
    text = _text("NEL001", "bash_default_syntax", ("${CACHE_DIR:-cache}", "${None}"))
    outcome = fix_text(text, "c.yaml", Options(env=FIXTURE_ENV))
    assert outcome.text == text and outcome.fixed == []
    assert ("NEL001", "evaluation.pre_cmd") in {(f.rule, f.path) for f in outcome.remaining}


# ------------------------------------------------------------------ the unsafe fixers


def test_the_era_choice_lists_the_other_candidates_whatever_their_order(tmp_path):
    """The other candidate here sorts after the chosen one."""
    from .test_fix_choices import _note
    from .test_history_fixes import _fix, _local

    text = _local(
        tmp_path / "out", "    - name: humaneval_instruct\n", "    api_key_name: HF_TOKEN\n"
    )
    after, note = _note(_fix(text, tmp_path / "c.yaml"), "NEL009")
    assert after.strip() == "- name: bigcode-evaluation-harness.humaneval_instruct"
    assert note.startswith("humaneval_instruct -> bigcode-evaluation-harness.humaneval_instruct: ")
    assert note.endswith("; 0.2.6 also has lm-evaluation-harness.humaneval_instruct")


def test_an_api_key_name_that_looks_like_a_host_value_is_not_made_literal(tmp_path):
    """NEL104's literal-word fix is for env var values; api_key_name names a variable."""
    from .test_history_fixes import _fix, _local

    text = _local(tmp_path / "out", key="    api_key_name: host:mykey\n")
    outcome = _fix(text, tmp_path / "c.yaml")
    assert "NEL104" not in {f.rule for f in outcome.fixed}
    assert "    api_key_name: host:mykey\n" in outcome.text
    assert ("NEL104", "target.api_endpoint.api_key_name") in {
        (f.rule, f.path) for f in outcome.remaining
    }
