"""The single `evalkit` entry point: argv in, exit code out.

Exit codes (every subcommand):
  0  clean / valid
  1  findings with an error, or a failed verdict
  2  usage error or unreadable input (one line on stderr, no traceback)

Each subcommand lives in `evalkit.commands.<name>` and provides SUMMARY, EXAMPLES,
FORMATS, `configure(parser)` and `run(args) -> int`. Those modules import their heavy
dependencies inside `run`, so `--help` and argument errors stay fast.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from evalkit import VALIDATED_LAUNCHER, __version__
from evalkit.errors import EvalkitError

# Order here is the order in `evalkit --help`: before launch, after the run, the skill.
COMMANDS = {
    "init": "evalkit.commands.init",
    "preflight": "evalkit.commands.preflight",
    "size": "evalkit.commands.size",
    "score": "evalkit.commands.score",
    "regrade": "evalkit.commands.regrade",
    "status": "evalkit.commands.status",
    "validate": "evalkit.commands.validate",
    "compare": "evalkit.commands.compare",
    "report": "evalkit.commands.report",
    "check-skill": "evalkit.commands.check_skill",
}

TOP_EXAMPLES = """\
examples:
  evalkit preflight recipes/examples/gym/example_mrcr.yaml
  evalkit size --model-config config.json --gpu-mem-gib 180 --gpus-per-node 4 \\
      --max-model-len 1100000 --parallelism 256 --num-instances 4
  evalkit validate runs/20261130_101500-0123456789abcdef/nemo_gym.0
  evalkit score runs/20261130_101500-0123456789abcdef --format json
  evalkit compare runs/bf16/nemo_gym.0 runs/nvfp4/nemo_gym.0 --margin 1.0
  evalkit check-skill .

exit codes: 0 clean or valid; 1 findings or failed verdict; 2 usage or unreadable input.
"""


class _Parser(argparse.ArgumentParser):
    """argparse whose usage errors quote the argument with its secrets hidden (a value in
    a credential's shape or under a secret name is redacted even if no file declared it)."""

    def error(self, message: str):  # type: ignore[override]
        from evalkit.secrets.quote import redact_quoted

        super().error(redact_quoted(message))


def _usage_line(name: str, err: Exception) -> str:
    from evalkit.secrets.quote import redact_quoted

    # `init --set judge_url=https://user:PW@host/v1` is refused by quoting the value.
    return redact_quoted(f"evalkit {name}: error: {err}")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="evalkit",
        description=(
            "Checks and scores for NeMo Evaluator Launcher "
            f"{VALIDATED_LAUNCHER} runs, with MRCR as the sharpest case."
        ),
        epilog=TOP_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"evalkit {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name, module_name in COMMANDS.items():
        module = importlib.import_module(module_name)
        cmd = sub.add_parser(
            name,
            help=module.SUMMARY,
            description=getattr(module, "DESCRIPTION", module.SUMMARY),
            epilog="examples:\n" + module.EXAMPLES,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        formats = getattr(module, "FORMATS", ("text", "json"))
        cmd.add_argument(
            "--format",
            choices=formats,
            default="text",
            help="output format (default: text); json goes to stdout, diagnostics to stderr",
        )
        module.configure(cmd)
        cmd.set_defaults(_run=module.run, _name=name)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from evalkit.render.output import redacting_streams
    from evalkit.secrets.known import KNOWN, remember_env

    # Every byte a command prints (usage errors included) passes the redaction layer; the
    # environment's secret values are known from the start (docs/ARCHITECTURE.md, Secrets).
    KNOWN.clear()
    remember_env(os.environ)
    with redacting_streams():
        return _main(argv)


def _main(argv: Sequence[str] | None) -> int:
    from evalkit.render.inert import one_line  # an error names a path from the run: one line

    parser = build_parser()
    try:
        args = parser.parse_args(list(argv) if argv is not None else None)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0) if not isinstance(exc.code, str) else 2
    try:
        return int(args._run(args))
    except EvalkitError as err:
        print(one_line(_usage_line(args._name, err)), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"evalkit {args._name}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (e.g. `| head`); nothing useful is left to say.
        sys.stderr.close()
        return 1
    except Exception as err:  # a bug in evalkit, not bad input: still one line by default
        if os.environ.get("EVALKIT_DEBUG"):
            raise
        print(
            f"evalkit {args._name}: internal error: {type(err).__name__}: {one_line(err)} "
            "(set EVALKIT_DEBUG=1 for a traceback and please report it)",
            file=sys.stderr,
        )
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
