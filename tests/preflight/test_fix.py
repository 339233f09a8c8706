"""`preflight --fix` / `--diff`: each fixer, idempotence, layout kept, nothing written by
--diff, bad input. The launcher differential is in test_fix_differential.py."""

from __future__ import annotations

import difflib
import json
import os
import stat

import pytest

from evalkit.preflight.fixes import all_fixers
from evalkit.preflight.fixes.engine import fix_text
from evalkit.preflight.runner import Options

from .conftest import FIXTURE_ENV, FIXTURES

BASE = FIXTURES / "_base" / "generic.yaml"
OPTIONS = Options(env=FIXTURE_ENV)

# Golden fail fixtures (tests/preflight/fixtures/<CODE>/fail) a fixer must repair ...
FIXABLE = {
    "NEL001": ["brace_in_block_comment", "bash_default_syntax"],
    "NEL005": ["execution_env_vars"],
    "NEL101": ["bare_name", "task_env"],
    "NEL102": ["top_level_runtime"],
    "NEL202": ["unquoted_ten_hours"],
    "NEL301": ["gpu_util_unused"],
    "NEL306": ["hash_in_folded_command"],
    "NEL402": ["hash_in_folded"],
    "NEL313": ["nano_v3_reasoning_parser"],
    "NEL404": ["max_new_tokens", "max_output_tokens"],
    "NEL406": ["short_sha"],
    "NEL501": ["mrcr_max_new_tokens_tag", "stale_temperature"],
}
# ... and those it must leave alone, with why.
REFUSED = {
    ("NEL001", "missing_node"): "a lower-case key reference: which key was meant is unsure",
    ("NEL005", "cluster_block"): "where sbatch_comment belongs depends on intent",
    ("NEL009", "ambiguous_gpqa"): "nothing in the file says which harness",
    ("NEL009", "unknown_task"): "no candidate to choose",
    ("NEL202", "bad_format"): "a wrong string: what was meant is not certain",
    ("NEL301", "tp_unused"): "a dead TP changes the topology: the user's call",
    ("NEL313", "unknown_tool_parser"): "no known built-in equivalent",
    ("NEL406", "branch"): "a branch is not a prefix of a known pin",
}
CASES = [(code, name) for code, names in FIXABLE.items() for name in names]


def fixture(code: str, name: str):
    return FIXTURES / code / "fail" / f"{name}.yaml"


def fix(text: str, name: str = "config.yaml"):
    return fix_text(text, name, OPTIONS)


def errors(findings, code=None):
    return [f for f in findings if f.severity == "error" and code in (None, f.rule)]


def test_every_fixer_has_a_docstring_and_a_rule():
    from evalkit.preflight.registry import all_rules

    fixers = all_fixers()
    assert set(fixers) >= {c for c, _ in CASES} | {c for c, _ in REFUSED}
    for code, fixer in fixers.items():
        assert code in all_rules()
        assert "Refuses" in fixer.doc, code  # each says when it declines


@pytest.mark.parametrize("code,name", CASES)
def test_fixer_repairs_its_fixture(code, name):
    path = fixture(code, name)
    before = fix_text(path.read_text(), str(path), Options(env=FIXTURE_ENV))
    assert before.fixed and {f.rule for f in before.fixed} >= {code}
    assert not [f for f in before.remaining if f.rule == code and f.severity != "info"]
    original = {f.rule for f in _check(path.read_text())}
    assert {f.rule for f in errors(before.remaining)} <= original  # no new error


def _check(text: str):
    from evalkit.config.textedit import Doc
    from evalkit.preflight.fixes.engine import remaining

    return errors(remaining(Doc(text, "config.yaml"), OPTIONS))


@pytest.mark.parametrize("code,name", sorted(REFUSED))
def test_fixer_refuses_what_is_not_certain(code, name):
    path = fixture(code, name)
    outcome = fix(path.read_text(), str(path))
    assert code not in {f.rule for f in outcome.fixed}, REFUSED[(code, name)]
    assert [f for f in outcome.remaining if f.rule == code]


@pytest.mark.parametrize("code,name", CASES)
def test_second_fix_is_a_no_op(code, name):
    first = fix(fixture(code, name).read_text())
    second = fix(first.text)
    assert second.fixed == [] and second.text == first.text


@pytest.mark.parametrize("code,name", CASES)
def test_only_the_lines_a_fix_owns_change(code, name):
    original = fixture(code, name).read_text()
    outcome = fix(original)
    owned = [line for f in outcome.fixed for line in f.before.split("\n") if line]
    kept = [line for line in original.split("\n") if line not in owned]
    new = outcome.text.split("\n")
    # every other line survives, in order (a subsequence of the new text)
    matcher = difflib.SequenceMatcher(None, kept, new, autojunk=False)
    assert sum(b.size for b in matcher.get_matching_blocks()) == len(kept)
    for line in original.split("\n"):
        if line.strip().startswith("#") and line not in owned:
            assert line in new  # comments kept


def _generic(replace: dict[str, str]) -> str:
    text = BASE.read_text()
    for old, new in replace.items():
        assert old in text
        text = text.replace(old, new, 1)
    return text


def test_nel009_takes_the_harness_the_other_tasks_use():
    text = _generic(
        {
            "    - name: ns_gpqa\n      container: nvcr.io/nvidia/eval-factory/nemo-skills:26.03": (
                "    - name: simple_evals.mmlu_pro\n    - name: gpqa_diamond"
            )
        }
    )
    outcome = fix(text)
    assert "    - name: simple_evals.gpqa_diamond" in outcome.text.split("\n")
    assert not errors(outcome.remaining, "NEL009")


def test_nel009_takes_the_harness_of_a_container_image():
    image = "      container: nvcr.io/nvidia/eval-factory/nemo-skills:26.03\n"
    other = "    - name: my_eval\n      container: nvcr.io/nvidia/eval-factory/simple-evals:25.09\n"
    text = _generic({image: image + other + "    - name: gpqa_diamond\n"})
    outcome = fix(text)  # another task runs the simple-evals image
    assert "    - name: simple_evals.gpqa_diamond" in outcome.text.split("\n")


def test_nel009_lists_candidates_when_nothing_decides():
    task = "    - name: ns_gpqa\n      container: nvcr.io/nvidia/eval-factory/nemo-skills:26.03"
    text = _generic({task: "    - name: gpqa_diamond"})
    outcome = fix(text)
    assert outcome.text == text
    (finding,) = errors(outcome.remaining, "NEL009")
    assert "simple_evals.gpqa_diamond" in finding.fix


# The launcher's own 0.1.46 example with a chat URL and bare task names (restated in
# corpus_history from NVIDIA-NeMo/Evaluator, tag nemo-evaluator-launcher-v0.1.46).
CHAT_EXAMPLE = FIXTURES.parent / "corpus_history" / "v0_1_46_local_llama_3_1_8b_instruct.yaml"


def _chat_example(first: str, extra: str) -> str:
    text = CHAT_EXAMPLE.read_text()
    assert "url: https://integrate.api.nvidia.com/v1/chat/completions" in text
    assert "  - name: ifeval\n" in text
    return text.replace("  - name: ifeval\n", f"  - name: {first}\n  - name: {extra}\n", 1)


def _names(text: str) -> list[str]:
    return [
        line.split(":", 1)[1].strip() for line in text.split("\n") if line.startswith("  - name:")
    ]


def test_nel009_safe_fix_keeps_the_chat_endpoint_of_the_example():
    """lm-evaluation-harness.mmlu_pro serves completions only: beside the chat URL the
    other task's harness is no evidence, and the choice is left with its candidates."""
    text = _chat_example("lm-evaluation-harness.ifeval", "mmlu_pro")
    outcome = fix(text)
    assert "mmlu_pro" in _names(outcome.text)
    assert "lm-evaluation-harness.mmlu_pro" not in outcome.text
    left = [f for f in errors(outcome.remaining, "NEL009") if "mmlu_pro" in f.message]
    assert left and "simple_evals.mmlu_pro (chat)" in left[0].fix
    assert "lm-evaluation-harness.mmlu_pro (completions)" in left[0].fix
    unsafe = fix_text(text, "config.yaml", Options(env=FIXTURE_ENV, unsafe=True))
    assert "simple_evals.mmlu_pro" in _names(unsafe.text)  # the unsafe fix picks by type


def test_nel009_safe_fix_does_not_follow_a_codec_task_to_a_chat_url():
    """codec.* (contamination detection) serves completions only: one codec task in a chat
    config must not pull ifeval and gpqa_diamond into it."""
    text = _chat_example("ifeval", "codec.hle")
    outcome = fix(text)
    names = _names(outcome.text)
    assert "ifeval" in names and "gpqa_diamond" in names
    assert not [n for n in names if n.startswith("codec.") and n != "codec.hle"]
    fixes = " ".join(f.fix for f in errors(outcome.remaining, "NEL009"))
    assert "codec.ifeval (completions)" in fixes and "lm-evaluation-harness.ifeval (chat)" in fixes
    assert "simple_evals.gpqa_diamond (chat)" in fixes


def test_nel009_safe_fix_qualifies_when_the_harness_serves_the_stated_type():
    text = _chat_example("simple_evals.mmlu_pro", "simple_evals.mgsm")
    outcome = fix(text)  # gpqa_diamond: simple_evals serves chat
    assert "simple_evals.gpqa_diamond" in _names(outcome.text)
    text = _chat_example("lm-evaluation-harness.ifeval", "mmlu_pro\n    endpoint_type: completions")
    assert "lm-evaluation-harness.mmlu_pro" in _names(fix(text).text)  # the task says so


def test_nel101_secret_literal_is_left_and_plain_values_get_lit():
    text = _generic(
        {
            "    HF_TOKEN: host:HF_TOKEN": "    HF_TOKEN: hf_abcdefghijkl\n    VLLM_LOGGING: 1",
            "    DUMMY_API_KEY: lit:dummy": "    DUMMY_API_KEY: $DUMMY_API_KEY",
        }
    )
    outcome = fix(text)
    lines = outcome.text.split("\n")
    assert "    HF_TOKEN: hf_abcdefghijkl" in lines  # never written as lit: or guessed host:
    assert "    VLLM_LOGGING: lit:1" in lines
    assert "    DUMMY_API_KEY: host:DUMMY_API_KEY" in lines


def test_nel301_literal_block_with_continuations():
    text = _generic(
        {
            "  command: >-\n    vllm serve /checkpoint\n": (
                "  gpu_memory_utilization: 0.8\n  command: |\n    vllm serve /checkpoint \\\n"
            ),
            "    --host 0.0.0.0\n": "    --host 0.0.0.0 \\\n",
        }
    )
    text = text.replace("    --served-model-name ${deployment.served_model_name}\n",
                        "    --served-model-name ${deployment.served_model_name} \\\n")  # fmt: skip
    for flag in ("--port ${deployment.port}", "--tensor-parallel-size 1",
                 "--data-parallel-size 8", "--max-model-len 131072"):  # fmt: skip
        text = text.replace(f"    {flag}\n", f"    {flag} \\\n")
    outcome = fix(text)
    assert [f.rule for f in outcome.fixed] == ["NEL301"]
    assert "    --gpu-memory-utilization ${deployment.gpu_memory_utilization} \\" in outcome.text


def test_nel303_adds_the_switches_and_leaves_the_memory_fraction():
    outcome = fix(fixture("NEL303", "bare_envelope").read_text())
    assert [f.rule for f in outcome.fixed] == ["NEL303"] * 3
    lines = outcome.text.split("\n")
    for flag in ("--enable-chunked-prefill", "--enable-prefix-caching",
                 "--max-num-batched-tokens 131072"):  # fmt: skip
        assert lines.count(f"    {flag}") == 1
    (left,) = [f for f in outcome.remaining if f.rule == "NEL303"]
    assert "0.85" in left.message  # the fraction the GPUs can hold is the user's call


def test_nel303_keeps_a_switch_turned_off_on_purpose():
    text = fixture("NEL303", "bare_envelope").read_text()
    text = text.replace(
        "    --max-num-seqs 32\n", "    --max-num-seqs 32\n    --no-enable-prefix-caching\n"
    )
    outcome = fix(text)
    assert "    --enable-prefix-caching" not in outcome.text.split("\n")
    assert any("prefix-caching" in f.message for f in outcome.remaining if f.rule == "NEL303")


def test_nel404_adds_a_missing_output_cap_override():
    text = fixture("NEL404", "max_output_tokens").read_text()
    old = "                  ++responses_create_params.max_output_tokens=32768\n"
    assert old in text
    outcome = fix(text.replace(old, ""))
    assert [f.rule for f in outcome.fixed] == ["NEL404"]
    block = outcome.text.split("common_params:")[0].split("collect_rollout_params: >-\n")[1]
    assert block.rstrip(" ").endswith("  ++responses_create_params.max_output_tokens=null\n")


def _with_pre_cmd(value: str) -> str:
    return _generic(
        {"  nemo_evaluator_config:\n": f"  pre_cmd: {value}\n  nemo_evaluator_config:\n"}
    )


@pytest.mark.parametrize(
    "written,why",
    [
        ('"echo ${HOME}"', "double-quoted YAML: \\$ is not an escape there"),
        ("echo $${HOME}", "$${X}: another escape attempt, meaning unsure"),
        ("echo ${home_dir}", "lower case: a missing config key, not a shell variable"),
    ],
)
def test_nel001_refuses_what_is_not_a_plain_shell_variable(written, why):
    text = _with_pre_cmd(written)
    outcome = fix(text)
    assert "NEL001" not in {f.rule for f in outcome.fixed}, why
    assert errors(outcome.remaining, "NEL001")


def test_nel001_escape_resolves_to_the_text_written_with_real_omegaconf():
    from omegaconf import OmegaConf

    text = fixture("NEL001", "bash_default_syntax").read_text()
    line = "    export CACHE=${CACHE_DIR:-cache}\n"
    text = text.replace(line, line + "    cd ${HOME} && ls ${HOME}/x\n")
    outcome = fix(text)
    assert [f.rule for f in outcome.fixed] == ["NEL001", "NEL001"]
    assert not errors(outcome.remaining, "NEL001")
    import yaml

    pre_cmd = OmegaConf.create(yaml.safe_load(outcome.text)).evaluation.pre_cmd  # resolved
    assert pre_cmd == "export CACHE=${CACHE_DIR:-cache}\ncd ${HOME} && ls ${HOME}/x\n"


def test_nel402_moves_the_comment_above_and_keeps_every_override():
    text = fixture("NEL402", "hash_in_folded").read_text()
    text = text.replace(
        "  ++split=benchmark\n", "  ++split=benchmark  # the scored split ++limit=5\n"
    )
    outcome = fix(text)
    assert [f.rule for f in outcome.fixed] == ["NEL402"]
    assert not [f for f in outcome.remaining if f.rule == "NEL402"]
    lines = outcome.text.split("\n")
    at = next(i for i, line in enumerate(lines) if line.endswith("collect_rollout_params: >-"))
    assert lines[at - 2 : at] == [
        "                # the scored split ++limit=5",  # not turned on: bash never ran it
        "                # canary ++limit=10",
    ]
    import yaml

    def params(t):
        gym = yaml.safe_load(t)["evaluation"]["tasks"][0]["nemo_evaluator_config"]
        return gym["config"]["params"]["extra"]["nemo_gym"]["collect_rollout_params"]

    block = text.split("collect_rollout_params: >-\n")[1].split("common_params:")[0]
    kept = [line.split("#")[0].split() for line in block.splitlines()]
    assert params(outcome.text).split() == [word for words in kept for word in words]
    assert "++limit" not in params(outcome.text)


@pytest.mark.parametrize(
    "old,new",
    [
        ("                  # canary ++limit=10\n", '                  "++x=a" # canary\n'),
        ("collect_rollout_params: >-\n", "collect_rollout_params: |-\n"),
    ],
)
def test_nel402_refuses_a_quote_before_the_hash_and_a_literal_block(old, new):
    text = fixture("NEL402", "hash_in_folded").read_text()
    assert old in text
    outcome = fix(text.replace(old, new))
    assert "NEL402" not in {f.rule for f in outcome.fixed}


def test_suppressed_finding_is_not_fixed():
    text = fixture("NEL202", "unquoted_ten_hours").read_text()
    text = text.replace("  walltime: 10:00:00", "  walltime: 10:00:00  # evalkit: disable=NEL202")
    assert fix_text(text, "c.yaml", OPTIONS).fixed == []


# ---- the CLI ---------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def fixed_env(monkeypatch, tmp_path):
    for key, value in FIXTURE_ENV.items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(tmp_path)


def _copy(tmp_path, code, name, mode=0o640):
    target = tmp_path / f"{code}_{name}.yaml"
    target.write_bytes(fixture(code, name).read_bytes())
    os.chmod(target, mode)
    return target


def test_diff_writes_nothing(run_cli, tmp_path):
    cfg = _copy(tmp_path, "NEL202", "unquoted_ten_hours")
    before = cfg.read_bytes()
    code, out, err = run_cli("preflight", cfg, "--fix", "--diff")
    assert code == 1 and cfg.read_bytes() == before
    assert out.startswith(f"--- {cfg}\n+++ {cfg}\n")
    assert '+  walltime: "10:00:00"' in out and "would fix 1" in err


def test_fix_writes_in_place_keeps_mode_and_second_run_is_a_no_op(run_cli, tmp_path):
    a = _copy(tmp_path, "NEL202", "unquoted_ten_hours")
    b = _copy(tmp_path, "NEL406", "short_sha", mode=0o600)
    code, out, _ = run_cli("preflight", a, b, "--fix")
    assert f"{a}: fixed 1" in out and f"{b}: fixed 1" in out
    assert stat.S_IMODE(os.stat(b).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(a).st_mode) == 0o640
    first = (a.read_bytes(), b.read_bytes())
    code, out, _ = run_cli("preflight", a, b, "--fix")
    assert "nothing to fix" in out and (a.read_bytes(), b.read_bytes()) == first
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([a.name, b.name])  # no temp


def test_fix_json_document(run_cli, tmp_path):
    cfg = _copy(tmp_path, "NEL501", "stale_temperature")
    code, out, _ = run_cli("preflight", cfg, "--fix", "--format", "json")
    doc = json.loads(out)
    (fixed,) = doc["fixed"]
    assert set(fixed) == {"file", "rule", "path", "line", "before", "after"}
    assert fixed["rule"] == "NEL501" and fixed["path"] == "export.mlflow.tags.temperature"
    assert doc["written"] is True and doc["summary"]["fixed"] == 1
    assert not [f for f in doc["remaining"] if f["rule"] == "NEL501"]


def test_bad_input_exit_2_one_line_file_untouched(run_cli, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("execution:\n  walltime: 10:00:00\n  - broken\n")
    good = _copy(tmp_path, "NEL202", "unquoted_ten_hours")
    before = (bad.read_bytes(), good.read_bytes())
    code, out, err = run_cli("preflight", good, bad, "--fix")
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "bad.yaml" in err and "Traceback" not in err
    assert (bad.read_bytes(), good.read_bytes()) == before  # nothing written, not even good


def test_fix_refuses_pair_and_launcher(run_cli, tmp_path):
    cfg = _copy(tmp_path, "NEL202", "unquoted_ten_hours")
    code, _, err = run_cli("preflight", cfg, "--fix", "--with-launcher")
    assert code == 2 and "--fix" in err
