"""evalkit resolves the launcher's `${select_not_null:...}` without keeping its resolver.

nel 0.2.6 registers `select_not_null` when its config package is imported, and the import
fails if the name is already taken; Hydra then reports "Could not find 'deployment/vllm'"
for every config. Preflight ran in the same process as the in-process launcher of the
tests, so a preflight before the launcher's first import broke every later dry-run.
"""

from __future__ import annotations

from omegaconf import OmegaConf

from evalkit.config.interpolation import resolve_full


def test_resolution_leaves_the_resolver_registry_as_it_found_it():
    data = {
        "deployment": {
            "hf_model_handle": None,
            "command": "vllm serve ${select_not_null:deployment.hf_model_handle,/checkpoint}",
        },
    }
    before = OmegaConf.has_resolver("select_not_null")
    assert resolve_full(data, ("deployment", "command")) == "vllm serve /checkpoint"
    assert OmegaConf.has_resolver("select_not_null") == before
