"""resolved_view answers simple interpolations itself; it must say what OmegaConf says.

The type and format rules read `resolved_view`: each interpolated string replaced by what
the launcher's OmegaConf 2.3 makes of it (with nel's `select_not_null`), or UNRESOLVED
where that fails or waits for the submit-time environment. Most strings are answered
without building an OmegaConf tree; here every answer is compared with OmegaConf's own.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evalkit.config.interpolation import (
    UNRESOLVED,
    _omega_value,
    _OmegaChecker,
    _without_env,
    resolved_view,
)
from helpers.tier import examples

DATA = {
    "deployment": {
        "port": 8000,
        "none": None,
        "flag": True,
        "rate": 1e-05,
        "name": "served",
        "missing": "???",
        "env": "${oc.env:USER}",
        "chain": "${deployment.port}",
        "text": "x${deployment.none}",
        "map": {"a": 1},
        "list": [1, "two"],
    },
}
PIECES = [
    "${deployment.port}", "${deployment.none}", "${deployment.flag}", "${deployment.rate}",
    "${deployment.name}", "${deployment.missing}", "${deployment.env}", "${deployment.chain}",
    "${deployment.text}", "${deployment.map}", "${deployment.list}", "${deployment.list.1}",
    "${deployment.absent}", "${oc.env:HOME}", "${oc.env:HOME,dflt}",
    "${select_not_null:deployment.name,/checkpoint}", "${select_not_null:deployment.none,/c}",
    "${select_not_null:deployment.absent,/checkpoint}", "${select_not_null:deployment.port,/x}",
    "${select_not_null:deployment.chain,/x}", "${select_not_null:deployment.missing,/x}",
    "${select_not_null:deployment.none,1}", "${select_not_null:deployment.map,/x}",
    "--flag=", " ", "text", "$", "}", "\\${x}", "$${x}",
]  # fmt: skip


def _by_omegaconf(data: dict, path: tuple) -> object:
    return _omega_value(_OmegaChecker(_without_env(data), {}), path)


def _same(fast, slow) -> bool:
    if fast is UNRESOLVED or slow is UNRESOLVED:
        return fast is slow
    return type(fast) is type(slow) and fast == slow


@settings(max_examples=examples(600), deadline=None)
@given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=4))
def test_every_answer_is_omegaconfs(parts):
    value = "".join(parts)
    data = {**DATA, "probe": value}
    fast = resolved_view(data)["probe"]
    slow = _by_omegaconf(data, ("probe",))
    assert _same(fast, slow), (value, fast, slow)


def test_none_inside_text_is_written_none_as_omegaconf_writes_it():
    data = {**DATA, "probe": "--x=${deployment.none}"}
    assert resolved_view(data)["probe"] == "--x=None" == _by_omegaconf(data, ("probe",))


def test_the_bundled_vllm_command_needs_no_omegaconf_tree(monkeypatch):
    from evalkit.config import build_config, interpolation
    from evalkit.config.yamldoc import parse_document

    text = "defaults:\n  - execution: slurm/default\n  - deployment: vllm\n  - _self_\n"
    cfg = build_config(parse_document(text, "t.yaml"))
    path = ("deployment", "command")  # ${deployment.base_command}, launcher 0.2.6 vllm.yaml
    assert "select_not_null:" in cfg.get(("deployment", "base_command"))
    slow = _by_omegaconf(cfg.data, path)

    def refuse(*_):
        raise AssertionError("an OmegaConf tree was built")

    monkeypatch.setattr(interpolation, "_OmegaChecker", refuse)
    assert _same(resolved_view(cfg.data)["deployment"]["command"], slow)


# -- the fixer's proof: every leaf resolved with the launch environment ------------------

ENV = {"EVALKIT_T_SET": "set-value", "EVALKIT_T_EMPTY": ""}
ENV_PIECES = PIECES + [
    "${oc.env:EVALKIT_T_SET}", "${oc.env:EVALKIT_T_EMPTY}", "${oc.env:EVALKIT_T_UNSET}",
    "${oc.env:EVALKIT_T_SET,1}", "${oc.env:EVALKIT_T_UNSET,dflt}",
    "${oc.env:EVALKIT_T_SET,http://127.0.0.1:5000}", "${oc.env:EVALKIT_T_UNSET,http://h:5000}",
    "${oc.env:EVALKIT_T_UNSET,nan}", "${oc.env:EVALKIT_T_UNSET,Null}",
    "${oc.env:EVALKIT_T_UNSET,info}", "${oc.env:EVALKIT_T_UNSET,a,b}",
    "${oc.env:EVALKIT_T_UNSET, x}", "${oc.env:EVALKIT_T_SET,True}", "${oc.env:EVALKIT_T_UNSET,}",
]  # fmt: skip


def _proof_both_ways(data: dict):
    """The fixer's resolved leaves without OmegaConf (None: left to it) and with it."""
    import os

    from evalkit.preflight.fixes.meaning import _leaves, _resolved, _resolved_without_omegaconf

    written = dict(_leaves(data))
    fast = _resolved_without_omegaconf(data, written, {**os.environ, **ENV})
    saved = dict(os.environ)
    os.environ.update(ENV)
    try:
        slow = _resolved(data, list(written))
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return fast, slow


def _typed(leaves: dict) -> dict:
    return {p: (type(v), v) for p, v in leaves.items()}


@pytest.mark.filterwarnings("ignore:In the sequence")  # OmegaConf on `${oc.env:X,}`
@settings(max_examples=examples(600), deadline=None)
@given(st.lists(st.lists(st.sampled_from(ENV_PIECES), min_size=1, max_size=3), max_size=3))
def test_the_proof_without_omegaconf_is_the_proof_with_it(values):
    data = {**DATA, "probe": {f"k{i}": "".join(parts) for i, parts in enumerate(values)}}
    fast, slow = _proof_both_ways(data)
    if fast is not None:  # else left to OmegaConf
        assert _typed(fast) == _typed(slow)


@pytest.mark.filterwarnings("ignore:In the sequence")  # OmegaConf on `${oc.env:X,}`
@pytest.mark.parametrize("piece", ENV_PIECES)
def test_each_piece_alone_in_the_proof(piece):
    fast, slow = _proof_both_ways({"deployment": {"port": 8000, "name": "served"}, "probe": piece})
    if fast is not None:
        assert _typed(fast) == _typed(slow)
    if piece in ("${oc.env:EVALKIT_T_UNSET,http://h:5000}", "${oc.env:EVALKIT_T_SET}"):
        assert fast is not None  # the launcher's own mlflow default is answered here
