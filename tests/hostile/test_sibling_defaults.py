"""Sibling `defaults:` bounded by the files present (issue 38, item 3): each file composed
once, a cycle one finding, a name outside the config's directory reported as the launcher
treats it. The oracle is the launcher's own composition (nel 0.2.6
`RunConfig.from_hydra`, api/types.py, on Hydra 1.3.8), run in this process.

The config is tests/preflight/corpus_wild/w1_sibling_defaults_ok.yaml (made up for issue
33 after the layout of the launcher repository's examples/nemotron/.../v0.2/); the
sibling files written here are made up.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from evalkit.cli import main
from evalkit.config import load_config
from helpers.tier import FAST

WILD = Path(__file__).resolve().parents[1] / "preflight" / "corpus_wild"
QUICK = 20  # seconds; before the fix k=6 took 16 s and k=10 did not finish in 100 s
TARGET = "target:\n  api_endpoint:\n    url: https://inference.example.com/v1\n    model_id: m\n"


def _config(tmp_path: Path, entry: str = "_endpoints") -> Path:
    text = (WILD / "w1_sibling_defaults_ok.yaml").read_text()
    config = tmp_path / "cfg" / "main.yaml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(text.replace("  - _endpoints\n", f"  - {entry}\n", 1))
    return config


def _launcher_compose(config: Path) -> dict:
    from nemo_evaluator_launcher.api.types import RunConfig
    from omegaconf import OmegaConf

    return OmegaConf.to_container(RunConfig.from_hydra(config=str(config)), resolve=False)


def _preflight(config: Path, capsys, monkeypatch) -> tuple[int, str]:
    monkeypatch.chdir(config.parent)
    monkeypatch.setenv("HF_TOKEN", "unused-here")
    capsys.readouterr()
    code = main(["preflight", str(config)])
    return code, capsys.readouterr().out


def test_a_sibling_naming_itself_ten_times_is_one_finding_in_linear_time(
    tmp_path, capsys, monkeypatch
):
    # Before: exponential (k=2: 256 "not beside the config" claims; k=6: 16 s, 368 MB and
    # 1.7 million claims; k=10: over 100 s).
    config = _config(tmp_path)
    (config.parent / "_endpoints.yaml").write_text("defaults:\n" + "  - _endpoints\n" * 10 + TARGET)
    start = time.monotonic()
    code, out = _preflight(config, capsys, monkeypatch)
    assert time.monotonic() - start < QUICK
    assert code == 1 and out.count("NEL007") == 2  # the finding and its `next:` line
    assert "not beside the config" not in out
    assert out.count("defaults lead back to _endpoints.yaml") == 1
    assert "_endpoints.yaml -> _endpoints.yaml" in out


def test_hydra_itself_fails_on_that_cycle_as_the_finding_says(tmp_path):
    config = _config(tmp_path)
    (config.parent / "_endpoints.yaml").write_text("defaults:\n  - _endpoints\n" + TARGET)
    with pytest.raises(RecursionError):
        _launcher_compose(config)
    [(_, message)] = load_config(str(config)).defaults_problems
    assert "RecursionError" in message


def test_a_longer_cycle_is_named_with_its_chain(tmp_path):
    config = _config(tmp_path, "_a")
    (config.parent / "_a.yaml").write_text("defaults:\n  - _b\n" + TARGET)
    (config.parent / "_b.yaml").write_text("defaults:\n  - _a\nextra: 1\n")
    [(index, message)] = load_config(str(config)).defaults_problems
    assert index == 2 and "_a.yaml -> _b.yaml -> _a.yaml" in message
    with pytest.raises(RecursionError):
        _launcher_compose(config)


def test_a_layered_sibling_graph_composes_each_file_once_as_hydra_does(tmp_path, monkeypatch):
    # Six layers of four files, each file listing every file of the next layer: 4**6
    # paths through the graph, 24 files. Composed once each, and to Hydra's result. The
    # fast tier takes four layers (4**4 paths, 16 files): Hydra's side is most of the cost.
    config = _config(tmp_path, "_l0_0")
    layers, width = (4 if FAST else 6), 4
    for layer in range(layers):
        for n in range(width):
            below = [f"  - _l{layer + 1}_{m}\n" for m in range(width)] if layer < layers - 1 else []
            body = f"defaults:\n{''.join(below)}  - _self_\n" if below else ""
            body += f"from_l{layer}: {n}\nlast: l{layer}_{n}\n"
            if layer == layers - 1 and n == 0:
                body += TARGET
            (config.parent / f"_l{layer}_{n}.yaml").write_text(body)
    from evalkit.config import groups

    composed: list[int] = []
    real = groups._compose_list
    monkeypatch.setattr(
        groups, "_compose_list", lambda *a, **k: composed.append(1) or real(*a, **k)
    )
    start = time.monotonic()
    ours = load_config(str(config))
    assert time.monotonic() - start < QUICK
    assert ours.defaults_problems == [] and ours.missing_siblings == []
    # the config itself, then each file it reaches once (_l0_1.. are named by no one)
    assert len(composed) == 1 + layers * width - (width - 1)
    theirs = _launcher_compose(config)
    for key in ("from_l0", "from_l3", f"from_l{layers - 1}", "last", "target"):
        assert ours.data[key] == theirs[key]


def test_a_missing_sibling_named_many_times_is_named_once(tmp_path, capsys, monkeypatch):
    config = _config(tmp_path, "_b")
    (config.parent / "_b.yaml").write_text("defaults:\n" + "  - _gone\n" * 50 + TARGET)
    code, out = _preflight(config, capsys, monkeypatch)
    assert code == 1 and out.count("_gone.yaml") == 1


def test_a_name_outside_the_config_directory_is_reported_not_read(tmp_path, monkeypatch):
    config = _config(tmp_path, "../shared/_endpoints")
    shared = tmp_path / "shared" / "_endpoints.yaml"
    shared.parent.mkdir()
    shared.write_text((WILD / "_endpoints.yaml").read_text())
    # The launcher reads the file but files its values under the key path of its name.
    theirs = _launcher_compose(config)
    assert "target" in theirs[""][""][""]["shared"] and "target" not in theirs
    import evalkit.config as loader

    opened: list[str] = []
    real = loader.load_document
    monkeypatch.setattr(loader, "load_document", lambda p: opened.append(p) or real(p))
    cfg = load_config(str(config))
    [(index, message)] = cfg.defaults_problems
    assert index == 2 and "outside the config's directory" in message
    assert "'...shared'" in message and str(shared) not in opened


def test_a_leading_slash_is_the_config_root_as_in_hydra(tmp_path):
    config = _config(tmp_path, "/_endpoints")
    (config.parent / "_endpoints.yaml").write_text((WILD / "_endpoints.yaml").read_text())
    ours, theirs = load_config(str(config)), _launcher_compose(config)
    assert ours.defaults_problems == [] and ours.data["target"] == theirs["target"]


@pytest.mark.launcher
def test_nel_dry_run_fails_on_both_as_the_findings_say(tmp_path):
    from helpers.nel import dry_run

    config = _config(tmp_path / "cycle")
    (config.parent / "_endpoints.yaml").write_text("defaults:\n  - _endpoints\n" + TARGET)
    result = dry_run(config)
    assert result.returncode == 1 and "RecursionError" in result.stderr
    config = _config(tmp_path / "outside", "../shared/_endpoints")
    (config.parent.parent / "shared").mkdir()
    (config.parent.parent / "shared" / "_endpoints.yaml").write_text(TARGET)
    result = dry_run(config)
    # values filed under '', '', '', 'shared'; then no `target` at the root
    assert result.returncode == 1 and "Key 'target' is not in struct" in result.stdout
