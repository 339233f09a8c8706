"""`evalkit preflight`: check nel 0.2.6 configs before launch."""

from __future__ import annotations

import argparse
import sys

SUMMARY = "check nel 0.2.6 configs before launch (static; optional launcher dry-run)"
DESCRIPTION = """\
Check one or more nel 0.2.6 configs before launch and report every problem at once,
with its key path, file line, reason and fix. Static: reads the YAML, composes the
launcher's bundled defaults (e.g. slurm/default's gres and mount_home) and applies the
same -o overrides you launch with. Rule reference: references/rules.md.

--template reports `???` blanks as info (for shipped templates). --checkpoint adds the
checks that need the model's config.json / hf_quant_config.json; --context N gives the
context the model card documents (else config.json's max_position_embeddings is used).
--pair compares a baseline and a candidate config. --with-launcher also runs the real
`nel run --dry-run` and checks the scripts it renders.
"""
EXAMPLES = """\
  evalkit preflight recipes/examples/gym/example_mrcr.yaml --template
  evalkit preflight mrcr.yaml -o execution.account=my-team --checkpoint /models/nvfp4
  evalkit preflight mrcr.yaml --checkpoint /models/nano-nvfp4 --context 1048576
  evalkit preflight --pair mrcr_bf16.yaml mrcr_nvfp4.yaml
  evalkit preflight mrcr.yaml --with-launcher --nel scripts/nel-gym.sh
  evalkit preflight mrcr.yaml --format sarif > preflight.sarif
"""
FORMATS = ("text", "json", "sarif")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("configs", nargs="*", metavar="CONFIG", help="nel 0.2.6 YAML config(s)")
    parser.add_argument(
        "-o",
        "--override",
        dest="overrides",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override like `nel run -o` (dotted key; + adds, ++ adds or replaces)",
    )
    parser.add_argument(
        "--template", action="store_true", help="report ??? blanks as info, not errors"
    )
    parser.add_argument(
        "--checkpoint",
        metavar="DIR",
        help="checkpoint dir with config.json (and hf_quant_config.json)",
    )
    parser.add_argument(
        "--context",
        type=int,
        metavar="N",
        help="with --checkpoint: the context length (tokens) the model card documents; "
        "default: config.json max_position_embeddings",
    )
    parser.add_argument(
        "--pair",
        nargs=2,
        metavar=("BASE", "CAND"),
        help="check both configs and report every non-checkpoint difference",
    )
    parser.add_argument(
        "--with-launcher",
        action="store_true",
        help="also run the real `nel run --dry-run` and check the rendered scripts",
    )
    parser.add_argument(
        "--nel",
        metavar="PATH",
        help="launcher for --with-launcher (default: scripts/nel-gym.sh, else nel on PATH)",
    )
    parser.add_argument(
        "--env-file",
        metavar="PATH",
        help="dotenv file the launch will use (default: ./.env, as nel does)",
    )
    parser.add_argument("--strict", action="store_true", help="exit 1 on warnings too")


def run(args: argparse.Namespace) -> int:
    from evalkit.errors import UsageError
    from evalkit.findings import exit_code, findings_document
    from evalkit.preflight.runner import Options, check_file, check_launcher, check_pair
    from evalkit.report import findings_text, write_json

    configs = list(args.configs)
    if args.pair:
        configs += [c for c in args.pair if c not in configs]
    if not configs:
        raise UsageError("give at least one CONFIG (or --pair BASE CAND)")
    if args.nel and not args.with_launcher:
        raise UsageError("--nel only applies with --with-launcher")

    if args.context is not None and (not args.checkpoint or args.context <= 0):
        raise UsageError("--context N needs --checkpoint DIR and a positive N")
    checkpoint = None
    if args.checkpoint:
        from evalkit.checkpoint import load_checkpoint

        checkpoint = load_checkpoint(args.checkpoint, documented_context=args.context)
    from evalkit.config.interpolation import launch_environment

    options = Options(
        overrides=args.overrides,
        template=args.template,
        checkpoint=checkpoint,
        env=launch_environment(env_file=args.env_file),
    )

    findings = []
    for path in configs:
        findings += check_file(path, options)
    if args.pair:
        findings += check_pair(args.pair[0], args.pair[1], options)
    if args.with_launcher:
        from evalkit.preflight import launcher

        for path in configs:
            print(f"evalkit preflight: running the launcher dry-run on {path}", file=sys.stderr)
            result = launcher.dry_run(path, args.overrides, args.nel)
            findings += check_launcher(path, options, result)

    if args.format == "json":
        write_json(findings_document(findings))
    elif args.format == "sarif":
        from evalkit.preflight.registry import all_rules
        from evalkit.report import render_sarif

        write_json(render_sarif(findings, all_rules()))
    else:
        sys.stdout.write(findings_text(findings))
    return exit_code(findings, strict=args.strict)
