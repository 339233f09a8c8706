"""The three MRCR benchmark configs at the pinned NeMo Gym commit, and the pin itself.

Figures: NeMo Gym `benchmarks/mrcr/*` at GYM_PIN, and the reference ("golden") run of
`config_n3_1m.yaml` on nel 0.2.6 (2363/2363 rollouts, --max-model-len 1100000).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

GYM_REPO_URL = "https://github.com/NVIDIA-NeMo/Gym"
# Tip of branch chsieh/add-mrcr-config; the golden run installed Gym at this commit.
GYM_PIN = "a431501aa294f3237d472aaf58dd1e5026156ea8"

# Rows per needle count (2, 4, 8) in openai/mrcr before any length cap: 8 bins x 100.
ROWS_PER_NEEDLE_COUNT = 800
NEEDLE_COUNTS = (2, 4, 8)

# Room above the prompt cap for the (uncapped) answer: the golden served the 1M variant
# at --max-model-len 1100000, i.e. 1100000 - 1048576 tokens above its cap.
GOLDEN_MAX_MODEL_LEN_1M = 1_100_000
ANSWER_ROOM_TOKENS = GOLDEN_MAX_MODEL_LEN_1M - 1_048_576  # 51424


@dataclass(frozen=True)
class Variant:
    config: str  # file name under benchmarks/mrcr/ in the Gym repo
    agent: str  # agent name = metric prefix in the aggregate file
    dataset: str
    tokenizer: str
    cap_tokens: int | None  # prompts with more content tokens are dropped at prepare
    expected_rows: int  # prepared rows at GYM_PIN (one rollout each at repeats 1)
    declared_repeats: int  # num_repeats in the config at GYM_PIN
    mlflow_benchmark_tag: str

    @property
    def config_path(self) -> str:
        return f"benchmarks/mrcr/{self.config}"

    def expected_rollouts(self, repeats: int = 1) -> int:
        return self.expected_rows * repeats

    def min_max_model_len(self) -> int | None:
        """Smallest --max-model-len that serves every kept prompt plus answer room."""
        return None if self.cap_tokens is None else self.cap_tokens + ANSWER_ROOM_TOKENS


N3_TOKENIZER = "nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-BF16"

VARIANTS: dict[str, Variant] = {
    v.config: v
    for v in (
        Variant(
            config="config_n3_1m.yaml",
            agent="mrcr_n3_1m_benchmark_simple_agent",
            dataset="mrcr_n3_1m",
            tokenizer=N3_TOKENIZER,
            cap_tokens=1_048_576,
            expected_rows=2363,  # 2400 minus 37 top-bin rows above the cap (golden run)
            declared_repeats=1,
            mlflow_benchmark_tag="nemo_gym.mrcr_n3_1m",
        ),
        Variant(
            config="config_n3_128k.yaml",
            agent="mrcr_n3_128k_benchmark_simple_agent",
            dataset="mrcr_n3_128k",
            tokenizer=N3_TOKENIZER,
            cap_tokens=131_072,
            expected_rows=1470,  # Gym commit ea23500 (#1437), N3 tokenizer
            declared_repeats=1,
            mlflow_benchmark_tag="nemo_gym.mrcr_n3_128k",
        ),
        Variant(
            config="config.yaml",
            agent="mrcr_benchmark_simple_agent",
            dataset="mrcr",
            tokenizer="tiktoken o200k_base",
            cap_tokens=None,
            expected_rows=2400,
            declared_repeats=1,  # Gym main and nemo-gym 0.7.0 declare 4 here
            mlflow_benchmark_tag="nemo_gym.mrcr",
        ),
    )
}

AGENTS: dict[str, Variant] = {v.agent: v for v in VARIANTS.values()}

# Golden reference (BF16 Nemotron Nano 3.5, 1M variant): a sanity shape, not a bar.
GOLDEN_1M = {
    "pass_at_1": 26.91,
    "strata": {"2": 36.81, "4": 27.12, "8": 16.74},
    "rollouts": 2363,
    "prefix_matched": 0.55,
    "parallelism": 256,
    "topology": "4 nodes x (TP2 x DP2), 4-GPU nodes, --max-num-seqs 32",
    "length_capped_fraction": 0.024,
}


def agent_of(settings: Any) -> str | None:
    """The agent a run's settings (runs.settings.RunSettings) name through their variant."""
    spec = VARIANTS.get(settings.variant) if settings.variant else None
    return spec.agent if spec else None


def variant_for_config_path(path: str) -> Variant | None:
    """Map `benchmarks/mrcr/<file>` (or the bare file name) to its Variant."""
    name = path.rstrip("/").rsplit("/", 1)[-1]
    return VARIANTS.get(name)


# --- Choosing a variant for a checkpoint --------------------------------------------------
# One rule, shared by preflight (NEL603), `evalkit size` and `evalkit init`: take the largest
# N3 variant whose cap is within the model's context (the documented one when known, see
# evalkit.checkpoint.context_source). The uncapped `config.yaml` is never chosen by default:
# it is run only on request, for comparison with o200k-based tables.

CHOOSABLE = ("config_n3_1m.yaml", "config_n3_128k.yaml")  # largest first


@dataclass(frozen=True)
class VariantChoice:
    """A variant and how to serve it on a checkpoint."""

    variant: Variant
    max_model_len: int
    needs_long_override: bool  # VLLM_ALLOW_LONG_MAX_MODEL_LEN=1: above max_position_embeddings
    reason: str


def fits(variant: Variant, context: int) -> bool:
    """True when every prompt the variant keeps is within `context` tokens."""
    return variant.cap_tokens is not None and variant.cap_tokens <= context


def largest_fitting(context: int | None) -> Variant | None:
    if context is None:
        return None
    return next((VARIANTS[name] for name in CHOOSABLE if fits(VARIANTS[name], context)), None)


def serving_length(variant: Variant, max_position_embeddings: int | None) -> int | None:
    """The --max-model-len a variant is served at (the golden envelope and its 128k analogue).

    1M: 1,100,000, the golden value. 128k: the model's own max_position_embeddings, as it
    ships, but never less than the cap plus the golden's answer room (182,496).
    """
    if variant.cap_tokens is None:
        return None
    if variant.config == "config_n3_1m.yaml":
        return GOLDEN_MAX_MODEL_LEN_1M
    floor = variant.min_max_model_len()
    return max(max_position_embeddings or 0, floor)


def choose_variant(
    documented_context: int | None, max_position_embeddings: int | None = None
) -> VariantChoice | None:
    """The largest variant within the context, served as the golden envelope serves it.

    `documented_context` is the model card's context when known, else pass
    max_position_embeddings for both (context_source(...).tokens does this). None when no
    variant fits or nothing is known.
    """
    context = documented_context if documented_context is not None else max_position_embeddings
    variant = largest_fitting(context)
    if variant is None:
        return None
    length = serving_length(variant, max_position_embeddings)
    override = max_position_embeddings is None or length > max_position_embeddings
    reason = (
        f"the largest variant whose cap {variant.cap_tokens} is within the {context}-token context"
    )
    if override:
        above = (
            f"max_position_embeddings {max_position_embeddings}"
            if max_position_embeddings is not None
            else "an unknown max_position_embeddings"
        )
        reason += (
            f"; --max-model-len {length} is above {above}, so vLLM needs "
            "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1"
        )
    return VariantChoice(variant, length, override, reason)
