"""init resolves a reference load that would preempt at full length: cases computed by hand.

The checkpoint is tests/fixtures/init/qwen3-235b-a22b-fp8 (94 layers, 4 KV heads of 128,
calibrated FP8 KV, safetensors total_size 236e9 bytes = 219.79 GiB). The MRCR template
serves at gpu_memory_utilization 0.95 with a reference load of 256 concurrent requests;
mrcr-128k serves --max-model-len 262144 (the checkpoint's max_position_embeddings).
evalkit's sizing assumes 4 GiB of overhead per GPU.

KV per token per GPU: 2 (K, V) x 94 layers x 1 KV head x 128 x 1 byte = 24064 bytes at
TP 4 and at TP 8 (4 heads over 4 GPUs; over 8 they are replicated, still one per GPU).
One 262144-token sequence: 24064 x 262144 / 2^30 = 5.875 GiB per GPU.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from evalkit.init import build

FP8_MOE = str(Path(__file__).parent / "fixtures" / "init" / "qwen3-235b-a22b-fp8")
FACTS = {
    "hostname": "login.cluster.example",
    "account": "my-team",
    "partition": "batch",
    "output_dir": "/lustre/my-team/evals",
    "walltime": "04:00:00",
    "gym_image": "registry.example/my-team/nemo-gym-git:26.05",
    "thinking": True,
    "reasoning_parser": "qwen3",
    "checkpoint_path": "/lustre/models/m",
    "served_model_name": "m",
    "gpus_per_node": 8,
    "max_nodes": 2,
}


def written(gpu_mem_gib: float) -> tuple[dict, str, list[str]]:
    result = build("mrcr-128k", {**FACTS, "gpu_mem_gib": gpu_mem_gib}, FP8_MOE)
    assert result.ok, result.problems
    (config,) = result.configs
    return yaml.safe_load(config.text), config.text, result.warnings


def flag(command: str, name: str) -> int:
    words = command.split()
    return int(words[words.index(name) + 1])


def test_h100_raises_tp_and_lowers_the_load_to_what_fits():
    # 80 GiB x 0.95 = 76 GiB usable per GPU.
    # TP 2: 76 - 219.79/2 - 4 < 0, no room: TP 4 is the smallest that holds a sequence.
    # TP 4: 76 - 54.95 - 4 = 17.05 GiB -> floor(17.05 / 5.875) = 2 per replica;
    #       DP 2 per node x 2 nodes = 4 replicas -> 8 full-length sequences.
    # TP 8: 76 - 27.47 - 4 = 44.53 GiB -> floor(44.53 / 5.875) = 7 per replica;
    #       DP 1 x 2 nodes = 2 replicas -> 14. TP 8 holds more: load 14, seqs 7.
    # Cost: 256 / 14 = 18.3x the reference's wall time.
    data, text, warnings = written(80)
    cmd = data["deployment"]["command"]
    assert flag(cmd, "--tensor-parallel-size") == 8
    assert flag(cmd, "--data-parallel-size") == 1
    assert flag(cmd, "--max-num-seqs") == 7
    params = data["evaluation"]["nemo_evaluator_config"]["config"]["params"]
    assert params["parallelism"] == 14
    assert "18.3x the reference's wall time" in text
    assert not [w for w in warnings if "preemption" in w]


def test_h200_keeps_tp_and_lowers_the_load():
    # 141 GiB x 0.95 = 133.95 GiB usable per GPU.
    # TP 4: 133.95 - 54.95 - 4 = 75.00 GiB -> floor(75.00 / 5.875) = 12 per replica;
    #       4 replicas -> 48.
    # TP 8: 133.95 - 27.47 - 4 = 102.48 GiB -> floor(102.48 / 5.875) = 17; 2 replicas -> 34.
    # TP 4 holds more: load 48, --max-num-seqs ceil(48 / (2 x 2)) = 12; 256 / 48 = 5.3x.
    data, text, _ = written(141)
    cmd = data["deployment"]["command"]
    assert (flag(cmd, "--tensor-parallel-size"), flag(cmd, "--data-parallel-size")) == (4, 2)
    assert flag(cmd, "--max-num-seqs") == 12
    params = data["evaluation"]["nemo_evaluator_config"]["config"]["params"]
    assert params["parallelism"] == 48
    assert "5.3x the reference's wall time" in text


def test_the_decision_is_reported_with_its_cost():
    result = build("mrcr-128k", {**FACTS, "gpu_mem_gib": 80}, FP8_MOE)
    resolved = result.configs[0].derivation.resolved
    assert resolved.value == 14
    assert "256" in resolved.source and "18.3x" in resolved.source
