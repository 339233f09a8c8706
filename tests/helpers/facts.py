"""The facts of the FP8 MoE MRCR 128k setup the init tests share: the checkpoint is
tests/fixtures/init/qwen3-235b-a22b-fp8 (see its README), 2 nodes of 8 x 80 GB."""

from pathlib import Path

FP8_MOE = Path(__file__).resolve().parents[1] / "fixtures" / "init" / "qwen3-235b-a22b-fp8"
FP8_MOE_FACTS = {
    "hostname": "login.cluster.example",
    "account": "my-team",
    "partition": "batch",
    "output_dir": "/lustre/my-team/evals",
    "gym_image": "registry.example/my-team/nemo-gym-git:26.05",
    "thinking": True,
    "reasoning_parser": "qwen3",
    "checkpoint_path": "/lustre/models/Qwen3-235B-A22B-FP8",
    "served_model_name": "qwen3-235b-fp8",
    "gpus_per_node": 8,
    "gpu_mem_gib": 80,
    "max_nodes": 2,
}
