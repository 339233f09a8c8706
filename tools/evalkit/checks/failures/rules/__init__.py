"""The failure signatures, one module a cause; RULES in the order the docs list them."""

from __future__ import annotations

from evalkit.checks.failures.model import FailureRule
from evalkit.checks.failures.rules import (
    chain_ended,
    chain_max_walltime,
    disk_full,
    enroot_mount,
    enroot_registry_auth,
    gym_prepare,
    gym_rollouts_exited,
    health_check_timeout,
    health_wait_near_timeout,
    hf_gated,
    hf_offline,
    model_not_found,
    mrcr_bootstrap,
    pyxis_image_import,
    rate_limited,
    server_died,
    slurm_cancelled,
    slurm_host_oom,
    slurm_node_failure,
    slurm_preempted,
    slurm_time_limit,
    slurm_time_limit_starting,
    vllm_cuda_oom,
    vllm_invalid_choice,
    vllm_kv_cache,
    vllm_reasoning_parser,
)

RULES: tuple[FailureRule, ...] = tuple(
    m.RULE
    for m in (
        vllm_kv_cache,
        vllm_reasoning_parser,
        vllm_invalid_choice,
        vllm_cuda_oom,
        server_died,
        health_check_timeout,
        health_wait_near_timeout,
        model_not_found,
        hf_gated,
        hf_offline,
        pyxis_image_import,
        enroot_registry_auth,
        disk_full,
        enroot_mount,
        gym_prepare,
        gym_rollouts_exited,
        mrcr_bootstrap,
        slurm_time_limit,
        slurm_time_limit_starting,
        slurm_node_failure,
        slurm_preempted,
        slurm_cancelled,
        slurm_host_oom,
        rate_limited,
        chain_max_walltime,
        chain_ended,
    )
)
BY_ID = {r.id: r for r in RULES}
assert len(BY_ID) == len(RULES), "two failure rules share an id"
