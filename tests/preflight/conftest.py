from __future__ import annotations

from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent / "fixtures"

# A fixed launch environment, so findings never depend on the machine's variables.
FIXTURE_ENV = {
    "USER": "evalkit-ci",
    "HF_TOKEN": "hf_fixture_token",
    "MLFLOW_TRACKING_URI": "http://127.0.0.1:5000",
}


@pytest.fixture
def fixtures_dir() -> Path:
    return FIXTURES
