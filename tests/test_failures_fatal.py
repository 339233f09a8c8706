"""The fatal line of a log no signature names (issue 48, checks/failures/fatal.py): the
exception that ends the first traceback, through the prefixes loggers and runtimes put
before each line. Lines from the corpus's threads (tests/data/failures_corpus/)."""

from __future__ import annotations

from evalkit.checks.failures.fatal import FatalReader


def _fatal(lines: list[str]):
    reader = FatalReader()
    for n, line in enumerate(lines, start=1):
        reader.feed(n, line)
    return reader.best()


def test_the_first_traceback_ends_at_its_exception_through_vllm_prefixes():
    tag = "(EngineCore pid=263) ERROR 12-03 10:20:01 [core.py:1100] "
    found = _fatal(
        [
            f"{tag}Traceback (most recent call last):",
            f'{tag}  File "core.py", line 1090, in run_engine_core',
            f"{tag}AssertionError: Unsupported head size 80",
            "(APIServer pid=1) Traceback (most recent call last):",
            "(APIServer pid=1) RuntimeError: Engine core initialization failed.",
        ]
    )
    assert (found.line, found.how) == (3, "traceback")


def test_container_timestamps_and_ray_colour_codes_are_prefixes():
    # https://github.com/OpenRLHF/OpenRLHF/issues/336 (timestamps from the container
    # runtime), https://github.com/vllm-project/vllm/issues/2734 (Ray's colour codes)
    stamp = (
        "2024-06-28T06:11:52.685304690Z (LLMRayActor pid=20770) ERROR 06-28 06:11:45 "
        "worker_base.py:145] "
    )
    found = _fatal(
        [
            f"{stamp}Traceback (most recent call last):",
            f'{stamp}  File "/usr/local/lib/python3.10/dist-packages/vllm/worker/x.py", line 1',
            f"{stamp}ValueError: The model's max seq len (8192) is larger than the maximum",
        ]
    )
    assert (found.line, found.how) == (3, "traceback")
    ray = "\x1b[36m(RayWorkerVllm pid=5085)\x1b[0m Traceback (most recent call last):"
    found = _fatal(
        [
            ray,
            '\x1b[36m(RayWorkerVllm pid=5085)\x1b[0m   File "x.py", line 1',
            "\x1b[36m(RayWorkerVllm pid=5085)\x1b[0m RuntimeError: NCCL error",
        ]
    )
    assert (found.line, found.how) == (3, "traceback")


def test_without_a_traceback_the_last_error_line_not_srun_s_echo():
    found = _fatal(
        [
            "slurmstepd: error: execve(): bash: No such file or directory",
            "srun: error: node-017: task 0: Exited with exit code 2",
        ]
    )
    assert (found.line, found.how) == (1, "error")
