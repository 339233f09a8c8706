"""Issue 30 item 1: redaction by where a value comes from, not by a filter over every line.

Each case of the issue (reproduced through scripts/evalkit before the change) is a test
here: a written config holds exactly what was given, a question or a path that merely
looks like `name: value` is printed whole, a JSON or HTML document stays valid around a
quoted cookie, a token past the 200-character cut of a log quote is hidden whole, and the
shapes the old filter missed are caught. The generated table below crosses every secret
shape and name with every command and format that can show it. All values are made up.
"""

from __future__ import annotations

import json
import shutil
import string

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers.facts import FP8_MOE, FP8_MOE_FACTS
from helpers.tier import examples

from .conftest import CANARY, MRCR_EXAMPLE

FAST = ("--bootstrap", "200")
FACTS = FP8_MOE_FACTS
HF = "hf_ABCDEFGHIJKLMNOPQRSTUVWXYZ123456"
PEM_BODY = "MIIEpAIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB"

# (what it is, the log line, the secret inside it). Shapes first, then names.
TABLE = [
    ("hf-token", f"loading with {HF}", HF),
    (
        "ngc",
        "key nvapi-Zq8xW3vB7nM2kL5pR9tY1uI4oE6aS0dF used",
        "nvapi-Zq8xW3vB7nM2kL5pR9tY1uI4oE6aS0dF",
    ),
    (
        "openai",
        "client sk-proj-q1w2e3r4t5y6u7i8o9p0a1s2d3 rejected",
        "sk-proj-q1w2e3r4t5y6u7i8o9p0a1s2d3",
    ),
    ("anthropic", "sk-ant-api03-Q1w2E3r4T5y6U7i8O9p0A1s2 failed", "Q1w2E3r4T5y6U7i8O9p0A1s2"),
    ("stripe", "charge with sk_live_4eC39HqLyjWDarjtT1zdp7dc", "4eC39HqLyjWDarjtT1zdp7dc"),
    (
        "github",
        "ghp_0123456789abcdefghijABCDEFGHIJ012345 expired",
        "0123456789abcdefghijABCDEFGHIJ",
    ),
    ("github-pat", "github_pat_11ABCDEFG0123456789_abcdefghijklmnop bad", "0123456789_abcdefghij"),
    ("gitlab", "glpat-xYz0123456789AbCdEfGh denied", "xYz0123456789AbCdEfGh"),
    ("aws", "id AKIAQWERTYUIOPASDFGH in use", "AKIAQWERTYUIOPASDFGH"),
    (
        "google",
        "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q bad",
        "SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q",
    ),
    ("slack-bot", "xoxb-123456789012-abcdefghijkl posted", "123456789012-abcdefghijkl"),
    ("slack-xoxc", "xoxc-123456789012-qwertyuiopas cookie token", "123456789012-qwertyuiopas"),
    ("slack-app", "xapp-1-A0123456789-zxcvbnmasdfg", "A0123456789-zxcvbnmasdfg"),
    (
        "jwt",
        "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NSJ9.c2lnbmF0dXJlX2hlcmU",
        "c2lnbmF0dXJlX2hlcmU",
    ),
    ("bearer", "header Bearer abcDEF123456ghiJKL sent", "abcDEF123456ghiJKL"),
    ("basic", "header Basic dXNlcjpodW50ZXIyLXBhc3M= sent", "dXNlcjpodW50ZXIyLXBhc3M="),
    ("url-password", "fetch https://alice:hunter2pw9@host.example/x", "hunter2pw9"),
    ("redis-no-user", "connect redis://:r3d1sPassw0rd@cache:6379/0 refused", "r3d1sPassw0rd"),
    ("query-key", "GET https://api.example/v1/m?key=AbCdEf123456xyz&alt=json", "AbCdEf123456xyz"),
    ("query-token", "GET /v1?x=1&access_token=Zz9Yy8Xx7Ww6Vv5 failed", "Zz9Yy8Xx7Ww6Vv5"),
    ("curl-u", "+ curl -sf -u admin:curlPassw0rd1 https://host.example", "curlPassw0rd1"),
    ("curl-user", "+ curl --user=admin:curlPassw0rd2 https://host.example", "curlPassw0rd2"),
    ("pem-inline", f"-----BEGIN RSA PRIVATE KEY-----\\n{PEM_BODY}\\n-----END", PEM_BODY),
    ("pem-body", PEM_BODY + "AAAA", PEM_BODY),
    (
        "json-escaped",
        '{"data": "\\u0068f_ABCDEFGHIJKLMNOPQRSTUVWXYZ654321"}',
        "ABCDEFGHIJKLMNOPQRSTUVWXYZ654321",
    ),
    ("env-assign", "env HF_TOKEN=plainValue001 set", "plainValue001"),
    ("export", "+ export WANDB_API_KEY=plainValue002", "plainValue002"),
    ("yaml", "  NGC_API_KEY: plainValue003", "plainValue003"),
    ("json", '{"MY_SECRET": "plainValue004", "n": 1}', "plainValue004"),
    ("db-pass", "DB_PASS=plainValue005 psql failed", "plainValue005"),
    ("wandb-api", "WANDB_API=plainValue006 login failed", "plainValue006"),
    ("auth", "AUTH=plainValue007 rejected", "plainValue007"),
    ("password", "mysql --password plainValue008", "plainValue008"),
    ("api-key-flag", "serve --api-key plainValue009 --port 8000", "plainValue009"),
    ("cookie", 'Killed; Cookie: "session=plainValue010"', "plainValue010"),
    ("authorization", "Authorization: Token plainValue011 expired", "plainValue011"),
    ("override", "-o +deployment.env_vars.X_TOKEN=plainValue012", "plainValue012"),
]
# Three per log bucket are quoted (evalkit.runs.logscan.MAX_HITS): each line of a chunk
# is made an error, a retry and a pre_cmd failure in turn, nine quoted per run.
BUCKETS = ("Traceback (most recent call last): ", "ClientResponseError: ", "ModuleNotFoundError: ")
CHUNK = 9


def _poisoned(tmp_path, name, cases):
    run = tmp_path / name
    shutil.copytree(CANARY, run)
    (log,) = (run / "nemo_gym.0" / "logs").glob("client-*.log")
    with log.open("a") as handle:
        for i, (_, line, _) in enumerate(cases):
            handle.write(BUCKETS[i // 3] + line + "\n")
    return run


def _chunks():
    return [TABLE[i : i + CHUNK] for i in range(0, len(TABLE), CHUNK)]


def assert_hidden(cases, *texts):
    for what, _, secret in cases:
        for text in texts:
            assert secret not in text, f"{what}: {secret} printed"


def test_the_table_is_large_enough():
    assert len(TABLE) >= 25 and len({w for w, _, _ in TABLE}) == len(TABLE)


@pytest.mark.parametrize("chunk", range(len(_chunks())))
def test_log_secrets_reach_no_command_or_format(run_cli, tmp_path, chunk):
    cases = _chunks()[chunk]
    other = _chunks()[(chunk + 1) % len(_chunks())]
    base, cand = _poisoned(tmp_path, "base", cases), _poisoned(tmp_path, "cand", other)
    task = base / "nemo_gym.0"
    seen = []
    code, out, err = run_cli("validate", task)
    assert out.count("<redacted:") >= len(cases), out  # each line is quoted, its secret not
    seen += [out, err]
    for argv in (
        ("validate", task, "--format", "json"),
        ("status", base),
        ("status", base, "--format", "json"),
        ("compare", base, cand, *FAST),
        ("compare", base, cand, *FAST, "--format", "json"),
        ("report", base, cand, *FAST, "--format", "markdown"),
        ("report", base, cand, *FAST, "--format", "html"),
        ("report", base, cand, *FAST, "--format", "json"),
    ):
        code, out, err = run_cli(*argv)
        assert code in (0, 1), (argv, err)
        if "json" in argv:
            json.loads(out)  # redacted as data: the document stays JSON
        seen += [out, err]
    html = tmp_path / "r.html"
    run_cli("report", base, cand, *FAST, "-o", html)
    seen.append(html.read_text())
    assert_hidden(cases + other, *seen)


# -- the cases of the issue, each failing before the change --------------------------------


def _init(run_cli, tmp_path, *extra, facts=FACTS):
    facts_file = tmp_path / "facts.yaml"
    facts_file.write_text(yaml.safe_dump(facts))
    out = tmp_path / "out.yaml"
    argv = ("init", "mrcr-128k", "--checkpoint", FP8_MOE, "--facts", facts_file, "-o", out)
    code, stdout, stderr = run_cli(*argv, "--force", *extra)
    return code, out, stdout, stderr


def test_init_writes_the_path_it_was_given(run_cli, tmp_path):
    path = "/lustre/models/sk-llama-3-70b-instruct-fp8"
    code, out, _, err = _init(run_cli, tmp_path, "--set", f"checkpoint_path={path}")
    assert code == 0, err
    assert yaml.safe_load(out.read_text())["deployment"]["checkpoint_path"] == path


def test_init_refuses_to_write_a_secret_and_never_echoes_it(run_cli, tmp_path):
    # init writes only what its own preflight accepts: a secret in the file is NEL103
    code, out, stdout, err = _init(run_cli, tmp_path, "--set", f"served_model_name={HF}")
    assert code == 1 and not out.exists(), err
    assert "NEL103" in err and "a secret (hf-token)" in err
    assert HF not in stdout + err


@pytest.mark.launcher  # --check runs the real launcher's dry-run
def test_init_check_prints_its_questions_whole(run_cli, tmp_path):
    _, _, stdout, err = _init(run_cli, tmp_path, "--check")
    assert "image_credentials: Does SLURM need credentials" in stdout, stdout
    assert "<redacted:" not in stdout + err


def test_a_quoted_cookie_keeps_validate_and_status_json(run_cli, canary):
    (log,) = (canary / "nemo_gym.0" / "logs").glob("client-*.log")
    with log.open("a") as handle:
        handle.write('Killed; Cookie: "session=abc123"\n')
    for argv in (("validate", canary / "nemo_gym.0"), ("status", canary)):
        code, out, err = run_cli(*argv, "--format", "json")
        assert code in (0, 1), err
        assert "abc123" not in json.dumps(json.loads(out))


def test_a_mount_path_with_cookie_keeps_the_report_whole(run_cli, canary, tmp_path):
    run_sub = canary / "nemo_gym.0" / "run.sub"
    mount = "srun --container-mounts /lustre/models/cookie=v2/Qwen3:/checkpoint:ro true\n"
    run_sub.write_text(mount + run_sub.read_text())
    cand = tmp_path / "cand"
    shutil.copytree(canary, cand)
    out = tmp_path / "r.html"
    code, _, err = run_cli("report", canary, cand, *FAST, "-o", out)
    assert code in (0, 1), err
    assert "<td><code>/lustre/models/cookie=v2/Qwen3</code></td>" in out.read_text()


def test_a_token_past_the_cut_is_hidden_whole(run_cli, canary):
    line = "Traceback (most recent call last): " + "x" * 144 + " " + HF + " tail"
    assert line.index(HF) == 180
    (log,) = (canary / "nemo_gym.0" / "logs").glob("client-*.log")
    with log.open("a") as handle:
        handle.write(line + "\n")
    for fmt in ("text", "json"):
        _, out, _ = run_cli("validate", canary / "nemo_gym.0", "--format", fmt)
        assert HF[:8] not in out


def test_an_environment_secret_is_hidden_wherever_it_appears(run_cli, canary, monkeypatch):
    monkeypatch.setenv("SERVICE_TOKEN", "envOnlyValue42")
    (log,) = (canary / "nemo_gym.0" / "logs").glob("client-*.log")
    with log.open("a") as handle:
        handle.write("Killed while talking to envOnlyValue42\n")  # no name, no shape
    for argv in (("validate", canary / "nemo_gym.0"), ("status", canary)):
        for fmt in ("text", "json"):
            _, out, err = run_cli(*argv, "--format", fmt)
            assert "envOnlyValue42" not in out + err
            assert "<redacted:SERVICE_TOKEN>" in out


# -- config provenance: every config secret, every preflight format -----------------------

ANCHOR = "    HF_TOKEN: host:HF_TOKEN\n"
NAMED = {
    "DB_PASS": "cfgValue001",
    "WANDB_API": "cfgValue002",
    "AUTH": "cfgValue003",
    "MY_PASSWORD": "cfgValue004",
    "COOKIE": "cfgValue005",
    "NGC_API_KEY": "lit:cfgValue006",
}


def _config(tmp_path, env: dict[str, str]):
    text = MRCR_EXAMPLE.read_text()
    extra = "".join(f"    {k}: {json.dumps(v)}\n" for k, v in env.items())
    path = tmp_path / "cfg.yaml"
    path.write_text(text.replace(ANCHOR, ANCHOR + extra, 1))
    return path


# Whole tokens, for `-o` (an override's value is one word).
TOKENS = [
    HF,
    "nvapi-Zq8xW3vB7nM2kL5pR9tY1uI4oE6aS0dF",
    "sk-proj-q1w2e3r4t5y6u7i8o9p0a1s2d3",
    "ghp_0123456789abcdefghijABCDEFGHIJ012345",
    "AKIAQWERTYUIOPASDFGH",
    "xoxc-123456789012-qwertyuiopas",
    "glpat-xYz0123456789AbCdEfGh",
]


@pytest.mark.parametrize("how", ["file", "override"])
def test_config_secrets_reach_no_preflight_format(run_cli, tmp_path, how):
    # Shaped values under innocent names, plain values under secret names.
    if how == "file":  # whole log lines as values: shapes inside a longer string
        shaped = [(f"VALUE_{i}", line, s) for i, (_, line, s) in enumerate(TABLE) if i < 25]
    else:
        shaped = [(f"VALUE_{i}", token, token) for i, token in enumerate(TOKENS)]
    env = {name: value for name, value, _ in shaped} | NAMED
    hidden = shaped + [(k, v, v.removeprefix("lit:")) for k, v in NAMED.items()]
    if how == "file":
        cfg, argv = _config(tmp_path, env), []
    else:
        cfg = _config(tmp_path, {})
        argv = [x for k, v in env.items() for x in ("-o", f"+deployment.env_vars.{k}={v}")]
    for fmt in ("text", "json", "sarif"):
        code, out, err = run_cli("preflight", cfg, *argv, "--format", fmt)
        assert code in (0, 1), err
        if fmt != "text":
            json.loads(out)
        assert_hidden(hidden, out, err)


# -- properties: structured output parses, a written config holds what was given ----------

_LOG_TEXT = st.text(
    alphabet=string.ascii_letters + string.digits + " \t\"'\\:=;,{}[]<>&/_-.",
    max_size=120,
)
_NOISE = st.sampled_from(
    ["Cookie: ", "Authorization: ", "HF_TOKEN=", '"api_key": "', "--api-key ", "?key=", ""]
)


@settings(
    max_examples=examples(20),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(head=_NOISE, body=_LOG_TEXT, tail=_LOG_TEXT)
def test_quoted_log_lines_keep_every_json_output_valid(run_cli, tmp_path_factory, head, body, tail):
    run = tmp_path_factory.mktemp("run") / "run"
    shutil.copytree(CANARY, run)
    (log,) = (run / "nemo_gym.0" / "logs").glob("client-*.log")
    with log.open("a") as handle:
        handle.write(f"Killed; {head}{body} {HF}{tail}\n")
    for argv in (("validate", run / "nemo_gym.0"), ("status", run)):
        code, out, err = run_cli(*argv, "--format", "json")
        assert code in (0, 1), err
        assert HF not in json.dumps(json.loads(out))


_VALUE = st.text(
    alphabet=string.ascii_letters + string.digits + " \"'\\:=;,#&*!%@/_-.", min_size=1, max_size=60
)


@settings(
    max_examples=examples(15),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(name=st.sampled_from(["OTHER", "MY_TOKEN", "DB_PASS", "AUTH", "Cookie"]), value=_VALUE)
def test_preflight_json_and_sarif_parse_around_any_value(run_cli, tmp_path_factory, name, value):
    cfg = _config(tmp_path_factory.mktemp("cfg"), {name: value})
    for fmt in ("json", "sarif"):
        code, out, err = run_cli("preflight", cfg, "--format", fmt)
        assert code in (0, 1, 2), err
        if code != 2:
            json.loads(out)


_SEGMENT = st.text(
    alphabet=string.ascii_letters + string.digits + "._+=@%~-", min_size=1, max_size=32
)
_FRAGMENT = st.sampled_from(["sk-", "hf_", "cookie=", "key=", "token=", "AKIA", "nvapi-", "xoxc-"])


@settings(
    max_examples=examples(10),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(parts=st.lists(st.tuples(_FRAGMENT, _SEGMENT), min_size=1, max_size=4), name=_SEGMENT)
def test_a_written_config_holds_exactly_the_given_values(run_cli, tmp_path_factory, parts, name):
    path = "/lustre/" + "/".join(frag + seg for frag, seg in parts)
    served = "m-" + name.replace("=", "").replace("%", "").replace("~", "")
    tmp = tmp_path_factory.mktemp("init")
    facts = {**FACTS, "checkpoint_path": path, "served_model_name": served}
    code, out, _, err = _init(run_cli, tmp, facts=facts)
    if code != 0:  # a fact init refuses (its own rules) is not a redaction case
        assert code in (1, 2) and not out.exists(), err
        return
    deployment = yaml.safe_load(out.read_text())["deployment"]
    assert deployment["checkpoint_path"] == path
    assert deployment["served_model_name"] == served


def test_the_working_directory_is_no_secret(run_cli, tmp_path, monkeypatch):
    # PWD ends in a word that marks a password elsewhere (DB_PWD); the shell's own is a path.
    monkeypatch.setenv("PWD", str(tmp_path))
    cfg = _config(tmp_path, {})
    _, out, _ = run_cli("preflight", cfg)
    assert str(cfg) in out


def test_a_secret_anywhere_in_a_config_is_a_finding(run_cli, tmp_path):
    # NEL103 extended: the config keeps it, preflight says where, the value is never shown.
    text = MRCR_EXAMPLE.read_text()
    marker = "  pre_cmd: uv pip install"
    assert marker in text
    text = text.replace(marker, "  pre_cmd: export WANDB_API_KEY=plainValue013 && uv pip install")
    cfg = tmp_path / "cfg.yaml"
    cfg.write_text(text + f"notes: {HF}\n")
    _, out, err = run_cli("preflight", cfg, "--format", "json")
    found = {f["path"]: f["message"] for f in json.loads(out)["findings"] if f["rule"] == "NEL103"}
    assert found.get("notes", "").startswith("a secret (hf-token)"), found
    assert any(p.endswith("pre_cmd") and "WANDB_API_KEY" in m for p, m in found.items()), found
    assert HF not in out + err and "plainValue013" not in out + err
