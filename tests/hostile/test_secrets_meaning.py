"""Issue 38 item 4: secrets by meaning, not by spelling. A shell comment assigns nothing
(NEL103, NEL305), a reasoning-token key is no secret name, a usage error hides the
credential it quotes, and NEL306 reads shell quoting before it blames a `#`. Bash itself
is the oracle for where a comment starts."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from evalkit.preflight.runner import Options, check_file
from evalkit.secrets.names import is_secret_name
from evalkit.secrets.shell import comment_spans, without_comments

from .conftest import MRCR_EXAMPLE, ROOT, SECRETS

FIXTURE = ROOT / "tests" / "preflight" / "fixtures" / "NEL101" / "pass" / "all_prefixed.yaml"
SIMPLE = FIXTURE.parents[1] / "fail" / "bare_name.yaml"  # one simple task
PREPARE = (
    "              # 3. Prepare. Tracing stays off for this call: its arguments carry HF_TOKEN.\n"  # noqa: E501
)
# Our own words in the shape of the upstream golden's comment above its prepare step
# (NVIDIA/Model-Optimizer, plugins/modelopt/skills/evaluation/recipes/examples/gym/
# example_mrcr.yaml: a `# SECRETS: ...` line inside the Gym command).
GOLDEN_COMMENT = (
    "              # SECRETS: `set -x` prints each line after expansion, so the params'\n"
    "              # $HF_TOKEN would reach the log. KEY: shown # TOKEN=notavalue\n"
)

# (command, the comments bash reads in it)
SHELL_CASES = [
    ("printf '[%s]' a 'b # c' # d e", ["# d e"]),
    ('printf "[%s]" "x # y" #z', ["#z"]),
    ("printf '[%s]' a#b ${#HOME} $# # tail", ["# tail"]),
    ("printf '[%s]' $'it\\'s # no' # yes", ["# yes"]),
    ("printf '[%s]' \"$(printf '%s' ') # q')\" # real", ["# real"]),
    ("printf '[%s]' \\# x # real", ["# real"]),
    ("printf '[%s]' a;# c\nprintf '[%s]' b # c2", ["# c", "# c2"]),
    ("bash -s <<'E'\nprintf '[%s]' it # said\nE\nprintf '[%s]' z # after", ["# said", "# after"]),
    ("printf '[%s]' `printf '%s' '#in'` # out", ["# out"]),
    ("x=1#2; printf '[%s]' $x #c", ["#c"]),
    ("printf '[%s]' '--cfg' '{\"a\": \"#1\"}'", []),
]


@pytest.mark.parametrize(("command", "comments"), SHELL_CASES)
def test_comments_are_where_bash_reads_them(command, comments):
    assert [command[a:b] for a, b in comment_spans(command)] == comments
    bash = shutil.which("bash")
    assert bash
    run = [
        subprocess.run([bash, "-c", c], capture_output=True, text=True, timeout=10)
        for c in (
            command,
            without_comments(command),
        )
    ]
    assert run[0].stdout == run[1].stdout  # blanking what we call a comment changes nothing
    assert len(without_comments(command)) == len(command)


def test_deep_heredocs_and_long_text_are_bounded():
    nested = "".join(f"bash -s <<'E{i}'\n" for i in range(50)) + "# c\n"
    assert comment_spans(nested) == []  # deeper than the cap: data
    long = "echo " + "'a' " * 200_000 + "# end"
    assert [long[a:b] for a, b in comment_spans(long)] == ["# end"]


def _errors(path: Path, template: bool = True) -> list[str]:
    findings = check_file(str(path), Options(template=template, env={"USER": "ci"}))
    return [f"{f.rule} {f.path} {f.message}" for f in findings if f.severity == "error"]


def _derived(tmp_path: Path, extra: str = "") -> Path:
    text = MRCR_EXAMPLE.read_text()
    assert PREPARE in text
    path = tmp_path / "derived.yaml"
    path.write_text(text.replace(PREPARE, PREPARE + GOLDEN_COMMENT + extra, 1))
    return path


def test_a_comment_in_the_gym_command_is_no_secret(tmp_path):
    assert _errors(_derived(tmp_path)) == []


def test_an_assignment_beside_the_comment_still_is(tmp_path):
    line = f"              export WANDB_API_KEY={SECRETS['plain']}  # SECRETS: ok\n"
    errors = _errors(_derived(tmp_path, line))
    assert [e for e in errors if e.startswith("NEL103")], errors


def test_a_credential_shape_in_a_comment_still_is(tmp_path):
    line = f"              # old key, do not use: {SECRETS['hf']}\n"
    errors = _errors(_derived(tmp_path, line))
    assert [e for e in errors if e.startswith("NEL103")], errors


def _traced(tmp_path: Path, line: str) -> list[str]:
    text = FIXTURE.read_text()
    anchor = "  tasks:\n"
    pre = f"  pre_cmd: |\n    set -ex\n    {line}\n    echo done\n"
    path = tmp_path / "traced.yaml"
    path.write_text(text.replace(anchor, pre + anchor, 1))
    return [e for e in _errors(path, template=False) if e.startswith("NEL305")]


def test_nel305_reads_no_comment_as_a_traced_expansion(tmp_path):
    assert _traced(tmp_path, "echo start  # then $HF_TOKEN is read") == []
    assert _traced(tmp_path, "echo '#' $HF_TOKEN") != []
    assert _traced(tmp_path, "echo $HF_TOKEN  # a note") != []


def _folded(tmp_path: Path, words: str) -> list[str]:
    text = FIXTURE.read_text()
    anchor = "    --max-num-seqs 32\n"
    path = tmp_path / "folded.yaml"
    path.write_text(text.replace(anchor, anchor + f"    {words}\n", 1))
    return [e for e in _errors(path, template=False) if e.startswith("NEL306")]


def test_nel306_reads_quotes_before_it_blames_a_hash(tmp_path):
    assert _folded(tmp_path, """--model-loader-extra-config '{"tag": "#1"}'""") == []
    assert _folded(tmp_path, '--served-model-name "a#b" --seed 1') == []
    assert _folded(tmp_path, "--seed 1 # note --enforce-eager") != []


def test_no_key_of_the_schema_is_a_secret_name():
    schema = json.loads((ROOT / "schemas" / "nel-0.2.6-config.schema.json").read_text())
    keys: set[str] = set()

    def walk(node):
        if isinstance(node, dict):
            keys.update(node.get("properties", {}))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(schema)
    assert {"end_reasoning_token", "start_reasoning_token"} <= keys
    assert sorted(k for k in keys if is_secret_name(k)) == []
    # the credential names around them are still secrets
    for name in ("HF_TOKEN", "reasoning_token_api_key", "REASONING_TOKEN_PASS", "api_key"):
        assert is_secret_name(name), name


def test_fix_diff_prints_beside_a_reasoning_token(run_cli, tmp_path):
    text = SIMPLE.read_text()
    anchor = "      container: nvcr.io/nvidia/eval-factory/nemo-skills:26.03\n"
    assert anchor in text
    task = (
        "      nemo_evaluator_config:\n        target:\n          api_endpoint:\n"
        "            adapter_config:\n"
        '              end_reasoning_token: "</think>"\n'
        '              start_reasoning_token: "<think>"\n'
        "      env_vars:\n        SEED: '1'\n"
    )
    path = tmp_path / "reasoning.yaml"
    path.write_text(text.replace(anchor, anchor + task, 1))
    before = path.read_bytes()
    code, out, err = run_cli("preflight", str(path), "--fix", "--diff")
    assert code == 1, err
    assert "+        SEED: lit:1" in out and "</think>" in out
    assert path.read_bytes() == before


def test_usage_error_hides_the_password_it_quotes(run_cli):
    code, out, err = run_cli(
        "init", "mrcr", "--set", "judge_url=https://user:Pw5ecretValue@host/v1"
    )
    assert code == 2
    assert "Pw5ecretValue" not in out + err
    assert len(err.strip().splitlines()) == 1 and "judge_url" in err


def test_argparse_error_hides_a_credential_shape(run_cli):
    code, out, err = run_cli("compare", "--margin", SECRETS["hf"], "a", "b")
    assert code == 2
    assert SECRETS["hf"] not in out + err and "--margin" in err
