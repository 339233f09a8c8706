"""Humanity's Last Exam (nvidia-hle 26.3 under nemo-evaluator 0.2.8): one outcome per question.

What the harness writes in its output directory (`hle_eval/run_model_predictions.py` and
`run_judge_results.py` in nvidia-hle 26.3):

- `hle_<model>.json`: question id -> {model_name, response, usage}, only for questions
  the model answered (a failed call, or a reply whose `content` is None, is left out);
- `judged_hle_<model>.json`: the same plus `judge_response` {correct_answer,
  model_answer, reasoning, correct ("yes"/"no"), confidence, api_error}; a judge call
  that failed is written as correct "no" with `api_error: true`;
- `results_hle_<model>.json`: accuracy over every question asked (unanswered ones count
  as wrong) and the `api_error_fraction`.

Outcomes: judge_error (api_error, or no judgement), truncated (the response's
finish_reason in the adapter cache is "length"), unparsed (an empty response), scored;
questions asked but absent are reasoning_only (the cache holds that many responses with
empty content and reasoning) or endpoint_error (the rest).
"""

from evalkit.benchmarks.hle.reader import read_outcomes, recognises

__all__ = ["read_outcomes", "recognises"]
