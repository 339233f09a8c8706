"""The shipped 0.2.6 templates give zero errors with --template (warnings allowed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalkit.config import load_config
from evalkit.preflight.runner import Options, check_file

from .conftest import FIXTURE_ENV

REPO = Path(__file__).resolve().parents[2]
TEMPLATES = sorted(
    p for p in (REPO / "recipes" / "examples").rglob("*.yaml") if "next" not in p.name
)


@pytest.mark.skipif(not TEMPLATES, reason="no shipped templates yet")
@pytest.mark.parametrize("template", TEMPLATES, ids=lambda p: str(p.relative_to(REPO)))
def test_template_has_no_errors(template):
    findings = check_file(str(template), Options(template=True, env=dict(FIXTURE_ENV)))
    errors = [f"{f.line}: {f.rule} {f.path} {f.message}" for f in findings if f.severity == "error"]
    assert not errors, "\n".join(errors)


def test_mrcr_template_is_read_as_mrcr():
    path = REPO / "recipes" / "examples" / "gym" / "example_mrcr.yaml"
    if not path.exists():
        pytest.skip("MRCR template not shipped yet")
    cfg = load_config(str(path))
    assert cfg.mrcr is not None and cfg.mrcr.mrcr_variant.config == "config_n3_1m.yaml"
    assert cfg.flags.integer("max_model_len") == 1_100_000


@pytest.mark.skipif(not TEMPLATES, reason="no shipped templates yet")
@pytest.mark.parametrize("template", TEMPLATES, ids=lambda p: str(p.relative_to(REPO)))
def test_template_schema_line_resolves(template):
    first = [x for x in template.read_text().splitlines()[:5] if "yaml-language-server" in x]
    assert first, "templates start with `# yaml-language-server: $schema=...`"
    target = (template.parent / first[0].split("$schema=", 1)[1].strip()).resolve()
    assert target == REPO / "schemas" / "nel-0.2.6-config.schema.json"
