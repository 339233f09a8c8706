"""Humanity's Last Exam (nvidia-hle 26.3 under nemo-evaluator 0.2.8): one outcome per question.

What the harness writes in its output directory (`hle_eval/run_model_predictions.py` and
`run_judge_results.py` in nvidia-hle 26.3; checked by a run, tools/dev/hle_outcomes.py):

- `hle_<model>.json`: question id -> {model_name, response, usage}, for every question
  whose request succeeded (a failed one is left out). A reply with `content: null` is
  kept as "": nemo-evaluator 0.2.8's endpoint interceptor replaces the null
  (`adapters/interceptors/endpoint_interceptor.py`) before the harness sees it;
- `judged_hle_<model>.json`: the same plus `judge_response` {correct_answer,
  model_answer, reasoning, correct ("yes"/"no"), confidence, api_error}; a judge call
  that failed is written as correct "no" with `api_error: true`;
- `results_hle_<model>.json`: accuracy over every question asked (unanswered ones count
  as wrong) and the `api_error_fraction`.

Outcomes: judge_error (api_error, or no judgement), truncated (finish_reason "length"
in the adapter cache, or an unfinished <think>), reasoning_only (an empty response whose
cached reply carried reasoning_content), unparsed (another empty response), scored;
questions asked but absent are endpoint_error (their request failed).
"""

from evalkit.benchmarks.hle.reader import read_outcomes, recognises

__all__ = ["read_outcomes", "recognises"]
