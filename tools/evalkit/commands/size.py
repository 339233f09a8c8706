"""`evalkit size`: choose TP/DP and --max-num-seqs from the checkpoint, and check the fit."""

from __future__ import annotations

import argparse

from evalkit.commands.argtypes import positive_float, positive_int
from evalkit.errors import UsageError

SUMMARY = "choose the topology and --max-num-seqs from a checkpoint; say whether L tokens fit"
DESCRIPTION = """\
Reads the checkpoint's config.json (and hf_quant_config.json / the safetensors index when
given), computes KV-cache bytes per token (dense, GQA, MLA, hybrid), the weights, the
smallest power-of-two tensor parallelism that holds the weights plus one sequence of
--max-model-len tokens, the data parallelism that fills the node, and
--max-num-seqs = ceil(parallelism / (num_instances x DP)). Exit 1 when one sequence does
not fit at any TP within a node.

--context N is the context length the model card documents. config.json's
max_position_embeddings is a runtime default that a card may exceed (Nemotron 3 Nano:
262144 in config.json, 1M on the card); without --context it is the floor used. The
output names the context used and its source, the MRCR variant it allows, and whether
--max-model-len needs VLLM_ALLOW_LONG_MAX_MODEL_LEN=1.
"""
EXAMPLES = """\
  evalkit size --checkpoint /models/Nano-NVFP4 --gpu-mem-gib 180 --gpus-per-node 4 \\
      --max-model-len 1100000 --parallelism 256 --num-instances 4 --num-nodes 4
  evalkit size --model-config config.json --quant-config hf_quant_config.json \\
      --gpu-mem-gib 80 --gpus-per-node 8 --max-model-len 131072 --parallelism 512
  evalkit size --model-config config.json --gpu-mem-gib 180 --gpus-per-node 4 \\
      --max-model-len 1100000 --parallelism 256 --num-instances 4 \\
      --tensor-parallel-size 2 --format json
  evalkit size --checkpoint /models/Nano-NVFP4 --context 1048576 --gpu-mem-gib 141 \\
      --gpus-per-node 8 --max-model-len 1100000 --parallelism 256
"""
FORMATS = ("text", "json")


def configure(parser: argparse.ArgumentParser) -> None:
    src = parser.add_argument_group("checkpoint (config.json is required, directly or via DIR)")
    src.add_argument("--model-config", metavar="FILE", help="the checkpoint's config.json")
    src.add_argument("--quant-config", metavar="FILE", help="hf_quant_config.json (ModelOpt)")
    src.add_argument(
        "--checkpoint",
        metavar="DIR",
        help="checkpoint directory: config.json, hf_quant_config.json and "
        "model.safetensors.index.json (exact weight size) are read from it",
    )
    src.add_argument(
        "--context",
        type=positive_int,
        metavar="N",
        help="context length (tokens) documented on the model card; default: config.json "
        "max_position_embeddings",
    )
    hw = parser.add_argument_group("hardware and load")
    hw.add_argument("--gpu-mem-gib", type=positive_float, required=True, metavar="G")
    hw.add_argument("--gpus-per-node", type=positive_int, required=True, metavar="N")
    hw.add_argument("--max-model-len", type=positive_int, required=True, metavar="L")
    hw.add_argument(
        "--parallelism",
        type=positive_int,
        required=True,
        metavar="P",
        help="total client concurrency across instances (config.params.parallelism)",
    )
    hw.add_argument("--num-instances", type=positive_int, default=1, metavar="I")
    hw.add_argument(
        "--num-nodes", type=positive_int, metavar="M", help="default: one node per instance"
    )
    hw.add_argument(
        "--kv-cache-dtype",
        choices=("auto", "fp8", "bf16", "fp16"),
        default="auto",
        help="auto follows the checkpoint's calibrated KV quantization, else its dtype",
    )
    hw.add_argument(
        "--gpu-memory-utilization",
        type=positive_float,
        default=0.9,
        metavar="U",
        help="fraction of GPU memory vLLM may use (default 0.9; the MRCR 1M envelope uses 0.95)",
    )
    hw.add_argument(
        "--overhead-gib",
        type=positive_float,
        default=None,
        metavar="GIB",
        help="per-GPU reserve for activations and CUDA graphs (default 4)",
    )
    hw.add_argument(
        "--tensor-parallel-size",
        type=positive_int,
        metavar="T",
        help="evaluate this TP instead of choosing the smallest that fits",
    )
    hw.add_argument(
        "--weights-gib",
        type=positive_float,
        metavar="GIB",
        help="weights size, when neither an index nor a good estimate is available",
    )


def _gib(value: float) -> str:
    return f"{value / 1024**3:.2f} GiB"


def _text(plan, req) -> str:
    lines = [
        f"model family          {plan.family}{' (MoE)' if plan.is_moe else ''}",
        f"context               {plan.context['explanation']}",
        f"KV bytes per token    {plan.kv_bytes_per_token:,.0f} (whole model, "
        f"{plan.kv_cache_dtype}); {plan.kv_bytes_per_token_per_gpu:,.0f} per GPU at TP "
        f"{plan.tensor_parallel_size}",
        f"fixed per sequence    {plan.fixed_bytes_per_sequence_per_gpu:,.0f} bytes per GPU "
        "(windowed KV + recurrent state)",
        f"weights               {_gib(plan.weights_bytes)}"
        f" ({'exact, safetensors index' if plan.weights_exact else 'estimated'})",
        f"tensor parallel       {plan.tensor_parallel_size}  (smallest power of two holding "
        "weights/TP + one full-length sequence)"
        if req.tensor_parallel_size is None
        else f"tensor parallel       {plan.tensor_parallel_size}  (as requested)",
        f"data parallel         {plan.data_parallel_size}  (fills the instance's GPUs)",
        f"replicas              {plan.replicas}  (DP x instances)",
        f"--max-num-seqs        {plan.max_num_seqs}  = ceil({req.parallelism} / "
        f"({req.num_instances} x {plan.data_parallel_size}))",
        f"KV pool per GPU       {_gib(max(plan.kv_pool_bytes_per_gpu, 0))}  = "
        f"{req.gpu_mem_gib} GiB x {req.gpu_memory_utilization} - weights/TP - overhead",
        f"seqs at max length    {plan.seqs_per_replica_at_max_len} per replica at "
        f"{req.max_model_len} tokens",
        f"fits                  {'yes' if plan.fits else 'NO'}",
        f"preempts at max len   {'yes' if plan.preempts_at_max_len else 'no'}",
        "",
        "deployment.command flags:",
        "  " + " ".join(plan.flags),
        "execution:",
        *(f"  {k}: {v}" for k, v in plan.execution.items() if k != "gpu_memory_utilization"),
        f"deployment.gpu_memory_utilization: {req.gpu_memory_utilization}",
    ]
    if plan.deployment_env_vars:
        lines.append("deployment.env_vars:")
        lines += [f"  {k}: {v}" for k, v in plan.deployment_env_vars.items()]
    variant = plan.mrcr_variant
    lines.append(
        "MRCR variant:         none fits this context"
        if variant is None
        else f"MRCR variant:         {variant['config']} at --max-model-len "
        f"{variant['max_model_len']} ({variant['reason']})"
    )
    lines += [f"note: {n}" for n in plan.notes]
    if plan.warnings:
        lines.append("")
        lines += [f"warning: {w}" for w in plan.warnings]
    from evalkit.render.inert import one_line  # a checkpoint's strings: one line each

    return "\n".join(one_line(line) for line in lines) + "\n"


def run(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from evalkit.checkpoint import load_checkpoint
    from evalkit.render.report import write_json
    from evalkit.sizing import DEFAULT_OVERHEAD_GIB, SizeRequest, plan

    if not args.model_config and not args.checkpoint:
        raise UsageError("give --model-config FILE or --checkpoint DIR")
    ckpt = load_checkpoint(
        args.checkpoint, args.model_config, args.quant_config, documented_context=args.context
    )
    req = SizeRequest(
        gpu_mem_gib=args.gpu_mem_gib,
        gpus_per_node=args.gpus_per_node,
        max_model_len=args.max_model_len,
        parallelism=args.parallelism,
        num_instances=args.num_instances,
        num_nodes=args.num_nodes,
        kv_cache_dtype=args.kv_cache_dtype,
        gpu_memory_utilization=args.gpu_memory_utilization,
        overhead_gib=args.overhead_gib or DEFAULT_OVERHEAD_GIB,
        tensor_parallel_size=args.tensor_parallel_size,
        weights_gib=args.weights_gib,
    )
    result = plan(ckpt, req)
    if args.format == "json":
        write_json(asdict(result))
    else:
        print(_text(result, req), end="")
    return 0 if result.fits else 1
