"""Preflight against the real nel 0.2.6 dry-run on the config classes of issue 26.

Each class of preflight mistake found on configs people write (interpolated values,
executor-specific refusals, the first task's env, export references, lowercase
placeholders, `limit_samples`, wrapper configs) has a pair in
tests/preflight/corpus_classes/: one the launcher accepts and one it refuses (or one it
accepts that is defective). Both go through the real dry-run (one batch, nel_batch.py)
and through preflight; the verdicts must agree, and the finding must carry the rule
that names the class.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from evalkit.preflight.runner import Options, check_file

from .nel_batch import launch_env, run_batch

pytestmark = [pytest.mark.launcher, pytest.mark.slow]

CLASSES = Path(__file__).resolve().parent / "corpus_classes"

# stem -> (launcher verdict, preflight's expected error/warning codes, exactly).
# "accepted" gets no error; "refused" gets an error; "defective" is accepted by the
# launcher but broken on every cluster (a rule proves it), so preflight errs.
EXPECTED = {
    "c1_walltime_interp_ok": ("accepted", set()),
    "c1_walltime_interp_bad": ("refused", {"NEL202"}),
    "c1_walltime_env_ok": ("accepted", set()),
    "c1_executor_interp_ok": ("accepted", set()),
    "c1_executor_interp_bad": ("refused", {"NEL006"}),
    "c2_multiple_instances_local_ok": ("accepted", {"NEL005"}),  # a warning
    "c2_multiple_instances_slurm_bad": ("refused", {"NEL005"}),
    "c3_proxy_null_one_instance_ok": ("accepted", set()),
    "c3_proxy_null_two_instances_bad": ("defective", {"NEL006"}),
    "c4_first_task_env_ok": ("accepted", set()),
    "c4_first_task_no_env_bad": ("refused", {"NEL010"}),
    "c5_parallel_without_deployment_ok": ("accepted", set()),
    "c5_parallel_with_deployment_bad": ("refused", {"NEL010"}),
    "c6_export_inside_ref_ok": ("accepted", set()),
    "c6_export_outside_ref_bad": ("refused", {"NEL502"}),
    "c7_angle_brackets_real_ok": ("accepted", {"NEL301"}),  # a warning, not NEL003
    "c7_lowercase_placeholder_bad": ("defective", {"NEL003"}),
    "c8_full_run_ok": ("accepted", set()),
    "c8_limit_samples_warn": ("accepted", {"NEL013"}),  # a warning
    "c9_wrapper_art_resolver": ("refused", {"NEL012"}),
    "r1_training_wrapper_as_written": ("refused", {"NEL012"}),
    "r2_training_wrapper_resolved_bad": ("refused", {"NEL207", "NEL502"}),
    "r3_training_wrapper_resolved_ok": ("accepted", {"NEL207"}),
}
# Refused, yet preflight only warns: the file is another tool's input (a wrapper that
# its framework resolves into a nel config), so one warning says so (NEL012).
NOT_A_NEL_CONFIG = {"c9_wrapper_art_resolver", "r1_training_wrapper_as_written"}


def _overrides(work: Path) -> list[str]:
    return [f"execution.output_dir={work}/out"]  # the local dry-run creates it


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory):
    work = tmp_path_factory.mktemp("classes")
    stems = sorted(EXPECTED)
    jobs = [{"config": str(CLASSES / f"{s}.yaml"), "overrides": _overrides(work)} for s in stems]
    env = launch_env()
    launcher = run_batch(jobs, work, 0, env)
    out = {}
    for stem, verdict in zip(stems, launcher, strict=True):
        findings = check_file(
            str(CLASSES / f"{stem}.yaml"), Options(overrides=_overrides(work), env=env)
        )
        out[stem] = (verdict, [f for f in findings if f.severity != "info"])
    return out


def test_every_corpus_file_has_an_expectation():
    assert sorted(p.stem for p in CLASSES.glob("*.yaml")) == sorted(EXPECTED)


@pytest.mark.parametrize("stem", sorted(EXPECTED))
def test_launcher_verdict_is_the_expected_one(verdicts, stem):
    verdict, _ = verdicts[stem]
    refused = EXPECTED[stem][0] == "refused"
    assert verdict["ok"] is not refused, verdict["error"]


@pytest.mark.parametrize("stem", sorted(EXPECTED))
def test_preflight_agrees_with_the_launcher(verdicts, stem):
    verdict, findings = verdicts[stem]
    errors = {f.rule for f in findings if f.severity == "error"}
    kind, codes = EXPECTED[stem]
    assert {f.rule for f in findings} == codes, [f.message for f in findings]
    if stem in NOT_A_NEL_CONFIG:
        assert [f.severity for f in findings] == ["warning"]
    elif kind in ("refused", "defective"):
        assert errors, f"{stem}: the launcher says {verdict['error']!r}, preflight no error"
    else:
        assert not errors, f"{stem}: accepted by the launcher, preflight errs: {errors}"


def test_wrapper_gets_one_finding_not_a_page(verdicts):
    for stem in NOT_A_NEL_CONFIG:
        _, findings = verdicts[stem]
        assert len(findings) == 1 and "not a plain nel 0.2.6 config" in findings[0].message


def test_first_task_env_message_names_the_launcher_crash(verdicts):
    verdict, findings = verdicts["c4_first_task_no_env_bad"]
    assert "export_reexport_cmd" in verdict["error"]
    assert any("export_reexport_cmd" in f.message for f in findings)
