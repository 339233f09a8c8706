"""lm-evaluation-harness tasks (nvidia-lm-eval 26.3 under nemo-evaluator 0.2.8): one outcome
per logged sample.

Under the launcher every lm-eval task logs its samples: the framework's command line
(`core_evals/lm_evaluation_harness/framework.yml` in nvidia-lm-eval 26.3) always passes
`--log_samples --output_path {{config.output_dir}}`, and the harness writes
`<output_path>/<model name, sanitized>/samples_<task>_<date>.jsonl`
(`lm_eval/loggers/evaluation_tracker.py: save_results_samples`), one line per document
and filter with `doc_id`, `doc_hash`, `prompt_hash` (sha256 of the prompt text),
`resps` (the raw answer texts), `filtered_resps` (what the filter extracted), `filter`,
`metrics` (the metric names) and each metric's value (`lm_eval/evaluator.py`).
"""

from evalkit.benchmarks.lm_eval.reader import read_outcomes, recognises, samples_files

__all__ = ["read_outcomes", "recognises", "samples_files"]
