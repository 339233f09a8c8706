"""Every comment `evalkit init` writes is true of the file it is in.

Each init task is rendered for several topologies, and every YAML comment of the result
(block-scalar content is a value, not a comment) is read for claims a reader would act
on: a variant, a topology (nodes, TP, DP, GPUs per node), a --max-num-seqs computation,
a flag value, a large number, a `???` blank. Each claim must match the file's own values.
The oracle is the file itself, parsed with PyYAML; nothing here calls evalkit's sizing.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from evalkit.init import build
from evalkit.init.catalog import tasks
from helpers.tier import grid

FIXTURES = Path(__file__).parent / "fixtures" / "init"
FP8_MOE = FIXTURES / "qwen3-235b-a22b-fp8"
NVFP4_HYBRID = FIXTURES / "nemotron3-nano-nvfp4"
CMD = ("deployment", "command")
PARAMS = ("evaluation", "nemo_evaluator_config", "config", "params")

BASE = {
    "hostname": "login.cluster.example",
    "account": "my-team",
    "partition": "batch",
    "cpu_partition": "cpu",
    "output_dir": "/lustre/my-team/evals",
    "walltime": "06:00:00",
    "gym_image": "registry.example/my-team/nemo-gym-git:26.05",
    "thinking": True,
    "reasoning_parser": "qwen3",
    "checkpoint_path": "/lustre/models/m",
    "served_model_name": "m",
    "tool_call_parser": "qwen3_coder",
    "judge_url": "https://inference.example/v1",
    "tau2_url": "https://inference.example/v1/chat/completions",
    "gdpval_sif_dir": "/lustre/my-team/gdpval/sif",
    "gdpval_ref_dir": "/lustre/my-team/gdpval/ref",
}
# (checkpoint, GPUs per node, GiB per GPU, max_nodes, documented context)
TOPOLOGIES = {
    "fp8-moe-1x8xH100": (FP8_MOE, 8, 80, 1, None),
    "fp8-moe-2x8xH100": (FP8_MOE, 8, 80, 2, None),
    "fp8-moe-1x8xH200": (FP8_MOE, 8, 141, 1, None),
    "nvfp4-4x4xH100-1M": (NVFP4_HYBRID, 4, 80, 4, 1048576),
    "nvfp4-2x8xH200": (NVFP4_HYBRID, 8, 141, 2, None),
}
TASKS = [
    "mrcr-1m", "mrcr-128k", "mrcr", "gdpval", "aa", "tau3-banking", "tau2", "aime_2025", "mmlu_pro",
]  # fmt: skip


def comments(text: str) -> list[tuple[int, str]]:
    """(line number, comment text) for every YAML comment; block scalar lines skipped."""
    inside: set[int] = set()
    stack = [yaml.compose(text)]
    while stack:
        node = stack.pop()
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                stack += [k, v]
        elif isinstance(node, yaml.SequenceNode):
            stack += node.value
        elif node.style in ("|", ">"):
            inside.update(range(node.start_mark.line + 1, node.end_mark.line + 1))
    out = []
    for number, line in enumerate(text.split("\n")):
        if number in inside:
            continue
        quote = None
        for i, ch in enumerate(line):
            if quote:
                quote = None if ch == quote else quote
            elif ch in "'\"":
                quote = ch
            elif ch == "#" and (i == 0 or line[i - 1] in " \t"):
                out.append((number + 1, line[i + 1 :].strip()))
                break
    return out


def values_text(text: str) -> str:
    """The file without its comments: where a claimed number must occur."""
    drop = {n for n, _ in comments(text)}
    kept = []
    for number, line in enumerate(text.split("\n"), 1):
        if number in drop:
            line = line.split(" #")[0] if not line.lstrip().startswith("#") else ""
        kept.append(line)
    return "\n".join(kept)


def flag(command: str, name: str) -> int | None:
    found = re.search(rf"{name}[ =](\d+)", command)
    return int(found.group(1)) if found else None


def facts_of(data: dict, text: str) -> dict:
    """The values a comment may speak about, read from the parsed file."""
    ex = data.get("execution", {})
    cmd = data["deployment"]["command"]
    gym = str(
        data["evaluation"]
        .get("nemo_evaluator_config", {})
        .get("config", {})
        .get("params", {})
        .get("extra", {})
        .get("nemo_gym", {})
        .get("data_prep_params", "")
    )
    for task in data["evaluation"].get("tasks", []):
        extra = task.get("nemo_evaluator_config", {}).get("config", {}).get("params", {})
        gym += str(extra.get("extra", {}).get("nemo_gym", {}))
    variant = re.search(r"config_n3_(1m|128k)\.yaml", gym)
    params = data["evaluation"].get("nemo_evaluator_config", {}).get("config", {})
    return {
        "nodes": int(ex.get("num_nodes", 1)),
        "instances": int(ex.get("num_instances", 1)),
        "gpus": int(str(ex.get("gres", "gpu:8")).split(":")[1]),
        "tp": flag(cmd, "--tensor-parallel-size") or 1,
        "dp": flag(cmd, "--data-parallel-size") or 1,
        "seqs": flag(cmd, "--max-num-seqs"),
        "parallelism": params.get("params", {}).get("parallelism"),
        "variant": variant.group(1).lower() if variant else None,
        "blanks": "???" in values_text(text),
        "command": cmd,
        "numbers": set(re.findall(r"\d+", values_text(text))),
    }


# Numbers that are names, not quantities of this file: versions, SHAs, YAML 1.1, times,
# HTTP status codes, prompt sizes in general ("~120k-token"), bounds ("at most 512").
NOT_QUANTITY = re.compile(
    r"v?\d+\.\d+(\.\d+)*|[0-9a-f]{7,40}|\d\d:\d\d:\d\d|sm_\d+|python-\d+\.\d+"
    r"|[A-Za-z]+\d+\w*|\d+k\b|(?:HTTP|opaque) \d{3}\b|at most \d+"
)


def stale(comment: str, f: dict, is_init_note: bool) -> list[str]:
    """Claims in one comment that the file contradicts."""
    bad = []
    if not f["blanks"] and ("???" in comment or re.search(r"fill every|Copy this file", comment)):
        bad.append("names a blank the file does not have")
    for v in re.findall(r"config_n3_(1m|128k)\.yaml|\b(1M|128k) variant", comment):
        name = (v[0] or v[1]).lower()
        if name != f["variant"]:
            bad.append(f"names the {name} variant, the file runs {f['variant']}")
    checks = [
        (r"(\d+) nodes?\b", "nodes"),
        (r"\bTP ?(\d+)\b", "tp"),
        (r"\bDP ?(\d+)\b", "dp"),
        (r"gpu:(\d+)", "gpus"),
        (r"(\d+)-GPU node", "gpus"),
    ]
    for pattern, key in checks:
        for number in re.findall(pattern, comment):
            if int(number) != f[key]:
                bad.append(f"says {key} {number}, the file has {f[key]}")
    for a, b, c, d in re.findall(r"(\d+) / \((\d+) x (\d+)\)\)? = (\d+)", comment):
        if (int(b), int(c), int(d)) != (f["instances"], f["dp"], f["seqs"]):
            bad.append(f"computes {a}/({b}x{c})={d}; file: {f['instances']} x DP {f['dp']}")
        if f["parallelism"] is not None and int(a) != f["parallelism"]:
            bad.append(f"computes from parallelism {a}, the file has {f['parallelism']}")
    for name, number in re.findall(r"(--[a-z-]+) (\d+)\b", comment):
        have = flag(f["command"], name)
        if have is not None and have != int(number):
            bad.append(f"says {name} {number}, the command has {have}")
    if not is_init_note:  # init notes also cite their inputs (config.json, GPU size)
        for number in re.findall(r"\d{3,}", NOT_QUANTITY.sub(" ", comment)):
            if number not in f["numbers"]:
                bad.append(f"names {number}, which the file does not have")
    return bad


def rendered(task: str, topology: str) -> list[str]:
    ckpt, gpus, mem, nodes, context = TOPOLOGIES[topology]
    facts = {**BASE, "gpus_per_node": gpus, "gpu_mem_gib": mem, "max_nodes": nodes}
    if context:
        facts["context"] = context
    result = build(task, facts, str(ckpt))
    if result.problems:
        pytest.skip(f"init refuses this combination: {result.problems[0]}")
    return [r.text for r in result.configs]


# The fast tier runs the checkerboard half of task x topology (tests/helpers/tier.py).
PAIRS = grid(TASKS, sorted(TOPOLOGIES))


@pytest.mark.parametrize("task,topology", PAIRS, ids=["-".join(p) for p in PAIRS])
def test_every_comment_is_true_of_its_file(task, topology):
    for text in rendered(task, topology):
        data = yaml.safe_load(text)
        f = facts_of(data, text)
        problems = []
        for number, comment in comments(text):
            for why in stale(comment, f, comment.startswith("init:")):
                problems.append(f"line {number}: {why}: # {comment}")
        assert not problems, "\n".join(problems)


def test_the_checker_catches_the_stale_template_prose():
    """The shipped MRCR template rendered as 128k on 2 nodes: its own prose is 1M/4-node."""
    template = Path(__file__).parents[1] / "recipes/examples/gym/example_mrcr.yaml"
    text = template.read_text().replace("config_n3_1m.yaml", "config_n3_128k.yaml")
    text = text.replace("num_nodes: 4", "num_nodes: 2").replace(
        "num_instances: 4", "num_instances: 2"
    )
    data = yaml.safe_load(text)
    f = facts_of(data, text)
    found = [why for _, c in comments(text) for why in stale(c, f, False)]
    assert any("1m variant" in w for w in found)
    assert any("says nodes 4" in w for w in found)
    assert any("computes 256/(4x2)=32" in w for w in found)


def test_tasks_cover_the_catalog_kinds():
    kinds = {tasks()[t].kind for t in TASKS}
    assert kinds == {"mrcr", "gdpval", "aa", "single", "tau3", "tau2"}
