"""The agent-effort protocol's scenarios (tests/evals/protocol): laid out, prompted and
graded without any agent.

Every prompt carries the protocol's preamble and last line verbatim, every input exists,
and every checker passes a deliverable known to be right (for the setup paths, the config
`evalkit init` writes from the same inputs and the facts the request states) and fails one
known to be wrong. The review scenarios' planted defects are real: preflight reports errors
or warnings on the config the helper gets.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
import yaml

PROTOCOL = Path(__file__).resolve().parent / "evals" / "protocol"
sys.path.insert(0, str(PROTOCOL))

import check as check_cli  # noqa: E402
import layout as layout_cli  # noqa: E402
from proto_checks import CHECKERS, cancels, check  # noqa: E402
from proto_gen import apply_edits, lay_out, task_dir  # noqa: E402
from proto_manifest import LAST_LINE, PATHS, PREAMBLE, REPO, input_names, load, prompt  # noqa: E402

MANIFESTS = load()
IDS = [m["id"] for m in MANIFESTS]
# Words that name evalkit or its commands; a request in a user's words has none of them.
COMMAND_WORDS = re.compile(r"\b(evalkit|preflight|init|nel|regrade|check-skill|dry-run)\b", re.I)


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("protocol")
    assert layout_cli.main([str(base), "--no-skill"]) == 0
    return base


def test_at_least_three_scenarios_per_path():
    for path in PATHS:
        assert sum(m["path"] == path for m in MANIFESTS) >= 3, path


@pytest.mark.parametrize("manifest", MANIFESTS, ids=IDS)
def test_manifest_names_everything(manifest):
    required = {"id", "path", "note", "request", "deliverables", "checker", "expect", "good", "bad"}
    assert required <= set(manifest), required - set(manifest)
    assert manifest["checker"].split(":")[0] == "proto_checks.py"
    assert manifest["checker"].split(":")[1] in CHECKERS


@pytest.mark.parametrize("manifest", MANIFESTS, ids=IDS)
def test_prompt_is_the_protocols(manifest, root):
    text = (root / "prompts" / f"{manifest['id']}.txt").read_text()
    assert text == prompt(manifest, root)
    assert text.startswith(PREAMBLE.replace("{ROOT}", str(root)))
    assert "{ROOT}" not in text
    assert text.rstrip("\n").splitlines()[-1] == LAST_LINE
    assert f'"{manifest["request"].strip()}"' in text
    for name in manifest["deliverables"]:
        assert name.startswith("out/") and f"{root / manifest['id']}/{name}" in text
        assert name in manifest["request"]  # the request says what to write where
    assert not COMMAND_WORDS.search(manifest["request"]), manifest["request"]


@pytest.mark.parametrize("manifest", MANIFESTS, ids=IDS)
def test_inputs_exist_and_are_small(manifest, root):
    for item in manifest.get("inputs", []):
        source = REPO / item["from"]
        assert source.is_file(), item["from"]
        assert source.stat().st_size < 16_000, item["from"]
    folder = root / manifest["id"]
    for name in input_names(manifest):
        assert (folder / name).exists(), name
    assert (folder / "out").is_dir() and not any((folder / "out").iterdir())


def _good(manifest: dict, folder: Path, run_cli) -> None:
    good, out = manifest["good"], folder / "out"
    if "init" in good:
        facts = folder.parent / f"{manifest['id']}-facts.yaml"
        facts.write_text(yaml.safe_dump(good["facts"]))
        code, _, err = run_cli(
            "init", good["init"], "--checkpoint", folder / good["checkpoint"],
            "--facts", facts, "-o", out / "config.yaml", "--force",
        )  # fmt: skip
        assert code == 0, err
    elif "verdict" in good:
        _write_verdict(folder, good["verdict"])
    else:
        (item,) = [i for i in manifest["inputs"] if i["to"].startswith("review/")]
        if good.get("revert"):  # the source before its defects were planted
            text = (REPO / item["from"]).read_text()
        else:
            text = apply_edits((folder / item["to"]).read_text(), good["edits"], item["to"])
        (out / "config.yaml").write_text(text)


def _bad(manifest: dict, folder: Path) -> None:
    bad, out = manifest["bad"], folder / "out"
    if "verdict" in bad:
        _write_verdict(folder, bad["verdict"])
    elif manifest["path"] == "review":
        (item,) = [i for i in manifest["inputs"] if i["to"].startswith("review/")]
        (out / "config.yaml").write_text((folder / item["to"]).read_text())
    else:
        text = (out / "config.yaml").read_text()
        (out / "config.yaml").write_text(apply_edits(text, bad["edits"], "good config"))


def _write_verdict(folder: Path, doc: dict) -> None:
    doc = dict(doc)
    if isinstance(doc.get("cancel_command"), str):
        invocation = task_dir(folder, "run").parent.name.rsplit("-", 1)[-1]
        doc["cancel_command"] = doc["cancel_command"].format(invocation=invocation)
    (folder / "out" / "verdict.json").write_text(json.dumps(doc))


@pytest.mark.parametrize("manifest", MANIFESTS, ids=IDS)
def test_checker_passes_good_and_fails_bad(manifest, tmp_path, run_cli):
    folder = tmp_path / manifest["id"]
    lay_out(manifest, folder)
    assert not all(ok for _, ok, _ in check(manifest, folder))  # nothing written yet
    _good(manifest, folder, run_cli)
    failed = [c for c in check(manifest, folder) if not c[1]]
    assert failed == [], failed
    _bad(manifest, folder)
    assert [c for c in check(manifest, folder) if not c[1]], "the wrong deliverable passed"


@pytest.mark.parametrize("manifest", [m for m in MANIFESTS if m["path"] == "review"],
                         ids=lambda m: m["id"])  # fmt: skip
def test_planted_defects_are_reported_by_preflight(manifest, tmp_path, run_cli):
    folder = tmp_path / manifest["id"]
    lay_out(manifest, folder)
    (item,) = [i for i in manifest["inputs"] if i["to"].startswith("review/")]
    code, out, _ = run_cli(
        "preflight", folder / item["to"], "--checkpoint", folder / "checkpoint", "--format", "json"
    )
    assert code == 1
    codes = {f["rule"] for f in json.loads(out)["findings"] if f["severity"] != "info"}
    assert len(codes - {"NEL104", "NEL207", "NEL303", "NEL410"}) >= 3, codes


def test_cancel_command_forms():
    inv, job = "251f45f35485995a", "4100011"
    assert cancels("nel kill 251f45f35485995a", inv, job)
    assert cancels("scripts/nel-gym.sh kill 251f45f3.0", inv, job)
    assert cancels("scancel 4100011", inv, job)
    assert not cancels("nel kill 251f45", inv, job)  # too short to be sure
    assert not cancels("nel resume 251f45f35485995a", inv, job)
    assert not cancels("scancel 4100012", inv, job)


def test_check_table_merges_counts(root, tmp_path, capsys):
    counts = tmp_path / "counts.json"
    counts.write_text(json.dumps({"s1": {"calls": 12, "files": 3}, "s2": [{"calls": 8, "files": 1},
                                  {"calls": 10, "files": 2}]}))  # fmt: skip
    code = check_cli.main([str(root), "--scenarios", "s1", "s2", "s3", "--counts", str(counts)])
    out = capsys.readouterr().out
    assert code == 1  # nothing written yet: every deliverable is missing
    assert "| s2 | setup-128k | NO | 8, 10 | 1, 2 |" in out
    assert "| set up MRCR 128k | 0/3 | 10 | 2 |" in out


def test_skill_is_the_committed_tree(tmp_path):
    skill = layout_cli.install_skill(tmp_path)
    assert (skill / "SKILL.md").is_file() and (skill / "scripts" / "evalkit").is_file()
    assert not (skill / ".git").exists()
    for hidden in layout_cli.HIDDEN:  # the checkers' answers are not in the helpers' copy
        assert not (skill / hidden).exists(), hidden
    assert not any(p.name in {".venv", "__pycache__"} for p in skill.rglob("*"))


@pytest.mark.launcher
@pytest.mark.parametrize(
    "manifest", [m for m in MANIFESTS if m["path"] == "review"], ids=lambda m: m["id"]
)
def test_the_real_dry_run_on_each_review_config(manifest, tmp_path):
    """What the manifest says of the planted config holds for nel 0.2.6's own dry-run:
    `accepts` means the defects get past it, so only a review finds them."""
    from helpers.nel import dry_run

    folder = tmp_path / manifest["id"]
    lay_out(manifest, folder)
    (item,) = [i for i in manifest["inputs"] if i["to"].startswith("review/")]
    result = dry_run(folder / item["to"])
    assert (result.returncode == 0) == (manifest["dry_run"] == "accepts"), result.error


def test_verdict_words_are_read_as_the_request_spells_them(tmp_path):
    (manifest,) = load(["s15"])
    folder = tmp_path / "s15"
    lay_out(manifest, folder)
    _write_verdict(folder, {"verdict": " Fail", "cause": "Regression", "reason": "x"})
    assert all(ok for _, ok, _ in check(manifest, folder))
    (manifest,) = load(["s12"])
    folder = tmp_path / "s12"
    lay_out(manifest, folder)
    _write_verdict(
        folder, {"verdict": "let it run", "cancel_command": None, "finishes_in_time": False}
    )
    assert all(ok for _, ok, _ in check(manifest, folder))
