"""The shipped task-catalog extract equals what the installed launcher 0.2.6 resolves,
and look-ups follow the launcher's own get_task_definition_for_job."""

from __future__ import annotations

import logging
from importlib import resources

import pytest

from evalkit.config.tasks import CATALOG_RESOURCE, catalog, refusal

launcher = pytest.importorskip("nemo_evaluator_launcher")


@pytest.fixture(autouse=True, scope="module")
def _catalog_parsed_once():
    """nel parses its packaged task catalog (~1 MB of pure-Python YAML) on every mapping
    call; once per worker here, with the same data (helpers/launcher.py)."""
    from helpers.launcher import memoise_task_catalog

    memoise_task_catalog()


@pytest.fixture(scope="module")
def mapping():
    from nemo_evaluator_launcher.common.mapping import load_tasks_mapping

    logging.disable(logging.CRITICAL)
    try:
        return load_tasks_mapping()
    finally:
        logging.disable(logging.NOTSET)


@pytest.mark.launcher  # the launcher's own catalog loaders (about 1.5 s of pure-Python YAML)
def test_extract_is_current():
    from .make_task_catalog import render

    shipped = resources.files("evalkit").joinpath("data", CATALOG_RESOURCE).read_text()
    regenerate = "bash tests/run.sh --python tests/preflight/make_task_catalog.py"
    assert shipped == render(), f"regenerate: {regenerate}"


def test_pairs_equal_launcher_mapping(mapping):
    assert catalog().pairs == frozenset(mapping)


@pytest.mark.parametrize(
    "name",
    ["ifeval", "gpqa_diamond", "mmlu_pro", "mgsm", "humaneval_instruct", "no_such_task",
     "no_such_harness.ifeval", "simple_evals.gpqa_diamond", "lm-evaluation-harness.made_up",
     "gsm8k_cot_instruct", "a.b.c"],
)  # fmt: skip
def test_verdict_equals_launcher_lookup(mapping, name):
    """Same accept/refuse as the launcher's own resolver (registry look-ups stubbed out:
    a harness default container is only fetched for unlisted tasks, and offline it falls
    back to a minimal definition, exactly as a dry-run does)."""
    from nemo_evaluator_launcher.common import mapping as launcher_mapping

    real_load = launcher_mapping.load_tasks_mapping

    def offline(*args, from_container=None, **kwargs):
        return {} if from_container else real_load(*args, **kwargs)

    launcher_mapping.load_tasks_mapping = offline
    try:
        launcher_mapping.get_task_definition_for_job(task_query=name, base_mapping=mapping)
        accepted = True
    except ValueError:
        accepted = False
    finally:
        launcher_mapping.load_tasks_mapping = real_load
    assert (refusal(name, None) is None) == accepted


def test_ambiguous_names_suggest_qualified_ones():
    found = refusal("gpqa_diamond", None)
    assert found is not None and "simple_evals.gpqa_diamond" in found.choices


def test_explicit_container_accepts_any_single_dot_name():
    assert refusal("nemo_gym", "registry.example.org/gym:1") is None
    assert refusal("nemo_gym.nemo_gym", None) is not None
