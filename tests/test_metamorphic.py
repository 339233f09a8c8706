"""Metamorphic tests of the release gate (issue 47).

The bundled pair (tests/data/suite: an MRCR canary on NeMo Gym and GPQA on simple-evals
per side, see its PROVENANCE.md) passes at a 30-point margin. Each MUTATION below changes
what the candidate measured, the way a real mistake would, and must never give a pass at
that margin; each HONEST transformation changes only where or how the runs are stored and
must leave every verdict as it was. The mutations are made on copies in a temporary folder.
"""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from helpers.suite_edits import (
    BASE_GPQA,
    BASE_MRCR,
    GPQA,
    MRCR,
    RESPONSES,
    STORE,
    copy_sides,
    drop_item_records,
    edit_params,
    edit_text,
    insert_row,
    lengthen_replies,
    map_rollouts,
    rewrite_rows,
    rollouts_of,
    store_rows,
    sub_text,
)

MARGIN = ("--margin", "30", "--bootstrap", "200")


def _compare(run_cli, base: Path, cand: Path, *extra: str) -> tuple[int, dict, str]:
    code, out, err = run_cli("compare", base, cand, "--format", "json", *MARGIN, *extra)
    if code == 2:
        return code, {}, err
    assert code in (0, 1), err
    return code, json.loads(out), err


def _verdicts(doc: dict) -> dict[str, str]:
    return {row["benchmark"]: row["verdict"] for row in doc["tasks"]}


# ---- mutations: (id, the real mistake it stands for, the edit) ---------------------------


def m_gpqa_temperature(base: Path, cand: Path) -> None:
    edit_params(cand / GPQA, "    temperature: 1.0\n", "    temperature: 0.6\n")


def m_gpqa_top_p(base: Path, cand: Path) -> None:
    edit_params(cand / GPQA, "    top_p: 0.95\n", "    top_p: 0.8\n")


def m_gpqa_max_tokens(base: Path, cand: Path) -> None:
    edit_params(cand / GPQA, "    max_new_tokens: 16384\n", "    max_new_tokens: 4096\n")


def m_gpqa_temperature_config_only(base: Path, cand: Path) -> None:
    edit_text(
        cand / GPQA / "artifacts" / "run_config.yml",
        "    temperature: 1.0\n",
        "    temperature: 0.6\n",
    )


def m_gpqa_repeats(base: Path, cand: Path) -> None:
    edit_text(
        cand / GPQA / "artifacts" / "results.yml", "      n_samples: 1\n", "      n_samples: 4\n"
    )


def m_gpqa_limit(base: Path, cand: Path) -> None:
    edit_params(cand / GPQA, "    limit_samples: null\n", "    limit_samples: 150\n")


def m_gpqa_system_prompt_on(base: Path, cand: Path) -> None:
    edit_params(cand / GPQA, "use_system_prompt: false", "use_system_prompt: true")


def m_gpqa_thinking_off(base: Path, cand: Path) -> None:
    edit_params(cand / GPQA, "enable_thinking: true", "enable_thinking: false")


def m_gpqa_reasoning_traces_off(base: Path, cand: Path) -> None:
    edit_params(cand / GPQA, "process_reasoning_traces: true", "process_reasoning_traces: false")


def m_gpqa_vllm_image(base: Path, cand: Path) -> None:
    edit_text(cand / GPQA / "run.sub", "vllm/vllm-openai:v0.26.0", "vllm/vllm-openai:v0.20.1")


def m_gpqa_harness_image(base: Path, cand: Path) -> None:
    edit_text(cand / GPQA / "run.sub", "simple-evals:26.03", "simple-evals:25.11")


def m_gpqa_same_checkpoint(base: Path, cand: Path) -> None:
    sub_text(cand / GPQA / "run.sub", r"model-nvfp4", "model-bf16")
    sub_text(cand / GPQA / "artifacts" / "run_config.yml", r"model-nvfp4", "model-bf16")


def m_gpqa_reused_store(base: Path, cand: Path) -> None:
    """The item store and the scores it made, carried over (the issue's 198 of 198)."""
    lengthen_replies(base / BASE_GPQA, "base")
    shutil.copy(base / BASE_GPQA / STORE, cand / GPQA / STORE)
    shutil.copy(base / BASE_GPQA / "artifacts/results.yml", cand / GPQA / "artifacts/results.yml")


def m_gpqa_reused_adapter_cache(base: Path, cand: Path) -> None:
    shutil.copy(base / BASE_GPQA / RESPONSES, cand / GPQA / RESPONSES)


def m_gpqa_no_response_records(base: Path, cand: Path) -> None:
    for task in (base / BASE_GPQA, cand / GPQA):
        drop_item_records(task)


def m_gpqa_renamed_metric(base: Path, cand: Path) -> None:
    for task in (base / BASE_GPQA, cand / GPQA):
        drop_item_records(task)
    sub_text(
        cand / GPQA / "artifacts" / "results.yml", r"\n        score:\n", "\n        score_at_10:\n"
    )


def m_gpqa_headline_edited(base: Path, cand: Path) -> None:
    sub_text(
        cand / GPQA / "artifacts" / "results.yml", r"value: 0\.7121212121212122", "value: 0.80"
    )


def m_gpqa_dataset_changed(base: Path, cand: Path) -> None:
    def other_question(_key: str, row: dict) -> dict:
        row["convo"][0]["content"] = row["convo"][0]["content"].replace(
            "Synthetic item", "Other item"
        )
        return row

    rewrite_rows(cand / GPQA / STORE, other_question)


def m_gpqa_items_missing(base: Path, cand: Path) -> None:
    dropped = iter(range(40))
    rewrite_rows(cand / GPQA / STORE, lambda k, r: None if next(dropped, None) is not None else r)


def m_gpqa_duplicated_items(base: Path, cand: Path) -> None:
    rows = store_rows(cand / GPQA / STORE)
    with sqlite3.connect(cand / GPQA / STORE) as con:
        for n, (_key, value) in enumerate(rows[:30]):
            insert_row(con, str(1000 + n), value)


def m_gpqa_scored_zero_against_its_record(base: Path, cand: Path) -> None:
    def zero(_key: str, row: dict) -> dict:
        if row["score"] == 1.0:
            row["score"] = 0.0
        return row

    rewrite_rows(cand / GPQA / STORE, zero)


def m_gpqa_unknown_scale(base: Path, cand: Path) -> None:
    for task in (base / BASE_GPQA, cand / GPQA):
        drop_item_records(task)
        sub_text(
            task / "artifacts" / "results.yml", r"\n        score:\n", "\n        house_metric:\n"
        )
    sub_text(
        cand / GPQA / "artifacts" / "results.yml", r"value: 0\.7121212121212122", "value: 0.40"
    )


def m_mrcr_temperature(base: Path, cand: Path) -> None:
    def hotter(_i: int, rec: dict) -> dict:
        rec["responses_create_params"]["temperature"] = 0.6
        return rec

    map_rollouts(cand / MRCR, hotter)


def m_mrcr_mixed_temperature(base: Path, cand: Path) -> None:
    def half(i: int, rec: dict) -> dict:
        rec["responses_create_params"]["temperature"] = 1.0 if i % 2 else 0.0
        return rec

    map_rollouts(cand / MRCR, half)


def m_mrcr_top_p(base: Path, cand: Path) -> None:
    def narrower(_i: int, rec: dict) -> dict:
        rec["responses_create_params"]["top_p"] = 0.5
        return rec

    map_rollouts(cand / MRCR, narrower)


def m_mrcr_reused_rollouts(base: Path, cand: Path) -> None:
    shutil.copy(rollouts_of(base / BASE_MRCR), rollouts_of(cand / MRCR))


def m_mrcr_gym_version(base: Path, cand: Path) -> None:
    (client,) = (cand / MRCR / "logs").glob("client-*.log")
    text = client.read_text(encoding="utf-8")
    client.write_text(re.sub(r"\b[0-9a-f]{40}\b", "dd41196f620f2af99947d776cbe5da9439d2a08d", text))


def m_mrcr_vllm_image(base: Path, cand: Path) -> None:
    edit_text(cand / MRCR / "run.sub", "vllm/vllm-openai:v0.26.0", "vllm/vllm-openai:v0.20.1")


def m_mrcr_limit(base: Path, cand: Path) -> None:
    sub_text(
        cand / MRCR / "artifacts" / "run_config.yml", r"limit_samples: 90", "limit_samples: 60"
    )


def m_mrcr_items_dropped(base: Path, cand: Path) -> None:
    lines = rollouts_of(cand / MRCR).read_text(encoding="utf-8").splitlines()
    rollouts_of(cand / MRCR).write_text("\n".join(lines[:60]) + "\n", encoding="utf-8")


def m_mrcr_rewards_edited(base: Path, cand: Path) -> None:
    def generous(_i: int, rec: dict) -> dict:
        rec["reward"] = 1.0
        return rec

    map_rollouts(cand / MRCR, generous)


def m_same_run_twice(base: Path, cand: Path) -> None:
    shutil.rmtree(cand)
    shutil.copytree(base, cand)


MUTATIONS: list[tuple[str, str, Callable[[Path, Path], None]]] = [
    ("gpqa-temperature", "the candidate config kept another temperature", m_gpqa_temperature),
    ("gpqa-top_p", "top_p changed in the candidate's task params", m_gpqa_top_p),
    ("gpqa-max-tokens", "a lower max_new_tokens cuts reasoning short", m_gpqa_max_tokens),
    (
        "gpqa-temperature-one-record",
        "run_config.yml edited after the harness ran",
        m_gpqa_temperature_config_only,
    ),
    ("gpqa-repeats", "n_samples raised on one side", m_gpqa_repeats),
    ("gpqa-limit", "a limit_samples canary compared with a full run", m_gpqa_limit),
    (
        "gpqa-system-prompt",
        "use_system_prompt switched on for the candidate",
        m_gpqa_system_prompt_on,
    ),
    (
        "gpqa-thinking-off",
        "enable_thinking false in the candidate's chat template",
        m_gpqa_thinking_off,
    ),
    ("gpqa-reasoning-traces", "reasoning stripping off on one side", m_gpqa_reasoning_traces_off),
    ("gpqa-vllm-image", "the candidate served from an older vLLM image", m_gpqa_vllm_image),
    ("gpqa-harness-image", "another simple-evals release on one side", m_gpqa_harness_image),
    (
        "gpqa-same-checkpoint",
        "the candidate's deployment still points at the baseline",
        m_gpqa_same_checkpoint,
    ),
    (
        "gpqa-reused-store",
        "the baseline's item store copied into the candidate",
        m_gpqa_reused_store,
    ),
    (
        "gpqa-reused-cache",
        "a shared adapter response cache replays the baseline",
        m_gpqa_reused_adapter_cache,
    ),
    (
        "gpqa-no-records",
        "use_caching off and the item store deleted on both sides",
        m_gpqa_no_response_records,
    ),
    ("gpqa-renamed-metric", "one side reports another metric", m_gpqa_renamed_metric),
    ("gpqa-headline-edited", "results.yml edited away from its items", m_gpqa_headline_edited),
    ("gpqa-dataset", "another dataset version on the candidate", m_gpqa_dataset_changed),
    (
        "gpqa-items-missing",
        "the candidate stopped early, 40 items never written",
        m_gpqa_items_missing,
    ),
    ("gpqa-duplicated-items", "rows written twice by a resumed run", m_gpqa_duplicated_items),
    (
        "gpqa-zeroed-scores",
        "scores that disagree with the harness's own grading record",
        m_gpqa_scored_zero_against_its_record,
    ),
    ("gpqa-unknown-scale", "a house metric whose scale nobody declared", m_gpqa_unknown_scale),
    ("mrcr-temperature", "the Gym command sent another temperature", m_mrcr_temperature),
    (
        "mrcr-mixed-temperature",
        "a resumed run sent half its rollouts greedily",
        m_mrcr_mixed_temperature,
    ),
    ("mrcr-top_p", "the Gym command sent another top_p", m_mrcr_top_p),
    (
        "mrcr-reused-rollouts",
        "the baseline's rollouts copied into the candidate",
        m_mrcr_reused_rollouts,
    ),
    ("mrcr-gym-version", "the candidate graded by another NeMo Gym commit", m_mrcr_gym_version),
    ("mrcr-vllm-image", "the candidate's MRCR served from an older vLLM image", m_mrcr_vllm_image),
    ("mrcr-limit", "a shorter canary on the candidate", m_mrcr_limit),
    ("mrcr-items-dropped", "a third of the candidate's rollouts lost", m_mrcr_items_dropped),
    ("mrcr-rewards-edited", "rewards rewritten after grading", m_mrcr_rewards_edited),
    ("same-run-twice", "the baseline folder passed as the candidate", m_same_run_twice),
]


def test_the_untouched_pair_passes_at_the_margin(run_cli, tmp_path):
    base, cand = copy_sides(tmp_path)
    code, doc, _ = _compare(run_cli, base, cand)
    assert doc["gate"] == "pass" and code == 0, doc["reasons"]


@pytest.mark.parametrize("name, mistake, mutate", MUTATIONS, ids=[m[0] for m in MUTATIONS])
def test_a_mutation_never_passes(run_cli, tmp_path, name, mistake, mutate):
    base, cand = copy_sides(tmp_path)
    mutate(base, cand)
    code, doc, err = _compare(run_cli, base, cand)
    assert code != 0, f"{name} ({mistake}) passed"
    if code == 2:  # refused as bad input: never a pass either, and says why in a line
        assert err.strip() and "Traceback" not in err
        return
    assert doc["gate"] != "pass", (name, mistake)


# ---- honest transformations: where the runs are kept, not what they measured ------------


def h_rename_invocations(base: Path, cand: Path) -> None:
    for side in (base, cand):
        for inv in sorted(side.iterdir()):
            inv.rename(inv.with_name("copied-" + inv.name))


def h_task_index(base: Path, cand: Path) -> None:
    (cand / GPQA).rename((cand / GPQA).with_name("simple_evals.gpqa_diamond.1"))
    (cand / MRCR).rename((cand / MRCR).with_name("nemo_gym.3"))


def h_move_between_invocations(base: Path, cand: Path) -> None:
    shutil.move(str(cand / GPQA), str(cand / MRCR.split("/")[0] / "simple_evals.gpqa_diamond.1"))
    shutil.rmtree(cand / GPQA.split("/")[0])


def h_reorder_store(base: Path, cand: Path) -> None:
    db = cand / GPQA / STORE
    rows = store_rows(db)
    with sqlite3.connect(db) as con:
        con.execute("DELETE FROM Cache")
        for key, value in reversed(rows):
            insert_row(con, key, value)


def h_reorder_rollouts(base: Path, cand: Path) -> None:
    lines = rollouts_of(cand / MRCR).read_text(encoding="utf-8").splitlines()
    rollouts_of(cand / MRCR).write_text("\n".join(reversed(lines)) + "\n", encoding="utf-8")


def h_other_task_in_metadata(base: Path, cand: Path) -> None:
    """The invocation also ran AIME at temperature 0.6 and 64 samples: its settings sit in
    the launcher's resolved config, which is metadata of the whole invocation."""
    for task in (base / BASE_GPQA, cand / GPQA):
        edit_text(
            task / "artifacts" / "run_config.yml",
            "      tasks:\n      - name: simple_evals.gpqa_diamond\n",
            "      tasks:\n      - name: simple_evals.gpqa_diamond\n"
            "      - name: simple_evals.aime_2025\n        nemo_evaluator_config:\n"
            "          config:\n            params:\n              temperature: 0.6\n"
            "              limit_samples: 4\n              extra:\n                n_samples: 64\n",
        )


def h_longer_replies_both(base: Path, cand: Path) -> None:
    lengthen_replies(base / BASE_GPQA, "base")
    lengthen_replies(cand / GPQA, "cand")


def h_extra_file(base: Path, cand: Path) -> None:
    (cand / GPQA / "artifacts" / "notes.txt").write_text("copied from the cluster\n")


def h_swap_side_folder_names(base: Path, cand: Path) -> None:
    """Other folder names for the sides themselves (users name them by model)."""
    base.rename(base.with_name("bf16-runs"))
    cand.rename(cand.with_name("nvfp4-runs"))


def h_copy_deeper(base: Path, cand: Path) -> None:
    deep = cand.parent / "archive" / "2026" / "candidate"
    deep.parent.mkdir(parents=True)
    shutil.move(str(cand), str(deep))


HONEST: list[tuple[str, Callable[[Path, Path], None]]] = [
    ("rename-invocations", h_rename_invocations),
    ("other-task-index", h_task_index),
    ("tasks-moved-between-invocations", h_move_between_invocations),
    ("store-rows-reordered", h_reorder_store),
    ("rollouts-reordered", h_reorder_rollouts),
    ("another-task-in-the-metadata", h_other_task_in_metadata),
    ("longer-independent-replies", h_longer_replies_both),
    ("an-extra-file", h_extra_file),
    ("side-folders-renamed", h_swap_side_folder_names),
    ("copied-to-another-path", h_copy_deeper),
]


def _resolve(path: Path) -> Path:
    """Where a side is after a transformation that renamed or moved it."""
    for name in (path.name, "bf16-runs" if path.name == "baseline" else "nvfp4-runs"):
        if (path.parent / name).is_dir():
            return path.parent / name
    return path.parent / "archive" / "2026" / path.name


@pytest.fixture(scope="module")
def untouched(tmp_path_factory) -> dict[str, str]:
    from evalkit.comparison.suite import compare_suite

    base, cand = copy_sides(tmp_path_factory.mktemp("untouched"))
    doc = compare_suite(base, cand, default_margin=30.0, bootstrap=200)
    return _verdicts(doc)


@pytest.mark.parametrize("name, transform", HONEST, ids=[h[0] for h in HONEST])
def test_an_honest_transformation_keeps_every_verdict(
    run_cli, tmp_path, untouched, name, transform
):
    base, cand = copy_sides(tmp_path)
    transform(base, cand)
    code, doc, err = _compare(run_cli, _resolve(base), _resolve(cand))
    assert code == 0, err or doc["reasons"]
    assert _verdicts(doc) == untouched, name
