"""`evalkit init`: write a complete, sized nel 0.2.6 config from a checkpoint and facts."""

from __future__ import annotations

import argparse
import sys

SUMMARY = "write a complete, sized config for a task from a checkpoint and a few facts"
DESCRIPTION = """\
Fills the shipped template for TASK (read from the skill at run time, structure and
comments kept) with your facts and with values derived from the checkpoint through the
same code as `evalkit size` and preflight: KV-cache dtype, TP/DP, nodes, --max-num-seqs,
--max-model-len and the long-length override, expert parallel, the MRCR variant. Every
derived value carries a `# init:` comment saying where it came from.

Missing facts: exit 1 and list them (JSON: {"missing": [{"name", "description",
"example"}]}, plus "facts": every fact the task reads with its meaning, unit, default and
what a wrong value costs); ask the user exactly those. `evalkit init TASK --format json`
with no facts prints the full list.

--check (with -o): after writing, runs preflight with the checkpoint and the `context`
fact and the pinned launcher's dry-run (--nel PATH, else scripts/nel-gym.sh, else nel),
and prints one document: the file written, each decision with its value and reason, the
checks, the commands for dry-run, canary, full run, validate and score, and the questions
only the user can answer (walltime, the model card's context, image credentials). Exit 1
when preflight finds an error or the dry-run refuses the file.

--baseline-of CONFIG writes the baseline for a candidate config, changing only the
checkpoint-dependent values (path, served name, KV dtype, sizing).
"""
FORMATS = ("text", "json")


def _examples() -> str:
    from evalkit.init.facts import help_text

    return (
        """\
  evalkit init --list
  evalkit init mrcr-1m --format json                       # which facts are needed
  evalkit init mrcr-128k --checkpoint ./ckpt-meta --facts facts.yaml -o mrcr.yaml
  evalkit init mrcr --checkpoint ./ckpt-meta --facts facts.yaml -o mrcr.yaml --check
  evalkit init aa --checkpoint ./ckpt-meta --facts facts.yaml -o aa-configs/
  evalkit init --baseline-of mrcr.yaml --checkpoint ./bf16-meta \\
      --set checkpoint_path=/models/bf16 --set served_model_name=model-bf16 \\
      --set gpu_mem_gib=80 -o mrcr_bf16.yaml
  evalkit preflight --pair mrcr_bf16.yaml mrcr.yaml

facts (--facts FILE.yaml holds NAME: VALUE lines; --set NAME=VALUE wins):
"""
        + help_text()
        + "\n"
    )


# The facts table comes from evalkit.init.facts: loaded when `init --help` is printed, not
# by every command's parser (preflight runs without init's modules).
EXAMPLES = "(printed by `evalkit init --help`)\n"


def configure(parser: argparse.ArgumentParser) -> None:
    plain = parser.format_help

    def format_help() -> str:
        parser.epilog = "examples:\n" + _examples()
        return plain()

    parser.format_help = format_help  # type: ignore[method-assign]
    parser.add_argument("task", nargs="?", metavar="TASK", help="a task from --list")
    parser.add_argument("--list", action="store_true", help="name the tasks init can write")
    parser.add_argument(
        "--checkpoint",
        metavar="DIR",
        help="local copy of config.json, hf_quant_config.json, model.safetensors.index.json",
    )
    parser.add_argument("--facts", metavar="FILE", help="YAML mapping of fact names to values")
    parser.add_argument(
        "--set",
        dest="sets",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="one fact (wins over --facts)",
    )
    parser.add_argument(
        "-o",
        "--output",
        metavar="PATH",
        help="file to write (a directory for aa); without it the config goes to stdout",
    )
    parser.add_argument("--force", action="store_true", help="overwrite existing output files")
    parser.add_argument(
        "--check",
        action="store_true",
        help="after writing (-o): preflight with the checkpoint and context, the pinned "
        "launcher's dry-run, and one document: decisions, open questions, checks, commands",
    )
    parser.add_argument(
        "--nel",
        metavar="PATH",
        help="launcher for --check's dry-run (default: scripts/nel-gym.sh, else nel on PATH)",
    )
    parser.add_argument(
        "--env-file",
        metavar="PATH",
        help="dotenv file for --check's dry-run and the printed commands (default: ./.env, "
        "which nel reads by itself)",
    )
    parser.add_argument(
        "--baseline-of",
        metavar="CONFIG",
        help="write the baseline config for this candidate config (see above)",
    )


def _list(args) -> int:
    from evalkit.init.catalog import tasks
    from evalkit.render.report import write_json

    known = tasks()
    if args.format == "json":
        write_json(
            {
                "tasks": [
                    {
                        "name": t.name,
                        "kind": t.kind,
                        "summary": t.summary,
                        "files": [o.file_name for o in t.outputs],
                        "templates": [o.template for o in t.outputs],
                    }
                    for t in known.values()
                ]
            }
        )
    else:
        for t in known.values():
            print(f"{t.name:<16} {t.summary}")
    return 0


def _targets(result, output: str | None, force: bool):
    from pathlib import Path

    from evalkit.errors import UsageError

    if output is None:
        if len(result.configs) > 1:
            raise UsageError(f"{result.task} writes {len(result.configs)} configs: give -o DIR")
        return [None]
    out = Path(output)
    if len(result.configs) > 1:
        if out.exists() and not out.is_dir():
            raise UsageError(f"-o {output} must be a directory for {result.task}")
        paths = [out / r.output.file_name for r in result.configs]
    else:
        if out.is_dir():
            out = out / result.configs[0].output.file_name
        if out.suffix != ".yaml":
            raise UsageError(f"-o {output}: nel 0.2.6 loads only .yaml config files")
        paths = [out]
    for path in paths:
        if path.exists() and not force:
            raise UsageError(f"{path} exists (pass --force to overwrite)")
    return paths


def _recipes():
    """The skill's templates and recipes: an input of every init, never its output."""
    from evalkit.errors import InputError
    from evalkit.init.catalog import skill_dir

    try:
        return skill_dir() / "recipes"
    except InputError:  # --baseline-of needs no template
        return None


def _write(result, args) -> list[str]:
    paths = _targets(result, args.output, args.force)
    written = []
    for rendered, path in zip(result.configs, paths, strict=True):
        # Written as given, never filtered: a secret in it is said, not silently edited.
        result.warnings += _secret_warnings(path or rendered.output.file_name, rendered.text)
        if path is None:
            if args.format == "text":
                from evalkit.render.output import write_structured

                write_structured(rendered.text)
            continue
        from evalkit.render.output import write_output

        path.parent.mkdir(parents=True, exist_ok=True)
        inputs = (args.facts, args.checkpoint, getattr(args, "baseline_of", None), _recipes())
        write_output(path, rendered.text, inputs, args.force)
        written.append(str(path))
    return written


def _secret_warnings(path, text: str) -> list[str]:
    from evalkit.secrets.quote import secrets_in_file

    return [
        f"{path}:{line}: holds a secret ({label}), written as given: keep the file private "
        "or pass the value from the environment (host:VAR)"
        for line, label in secrets_in_file(text)
    ]


def _derived(rendered) -> dict:
    """The checkpoint-derived values of one config, each with its source."""
    der = rendered.derivation
    p = der.plan
    out = {
        "file": rendered.output.file_name,
        "kv_cache_dtype": {"value": der.kv_cache_dtype.value, "source": der.kv_cache_dtype.source},
        "max_model_len": {"value": der.max_model_len.value, "source": der.max_model_len.source},
        "tensor_parallel_size": {"value": p.tensor_parallel_size, "source": der.topology_note()},
        "data_parallel_size": {"value": p.data_parallel_size, "source": der.topology_note()},
        "max_num_seqs": {"value": p.max_num_seqs, "source": der.seqs_note()},
        "num_nodes": {"value": der.num_nodes, "source": "fact max_nodes (1 unless MRCR)"},
    }
    if der.variant is not None:
        out["mrcr_variant"] = {"value": der.variant.config, "source": der.variant_source}
    for name, item in (
        ("expert_parallel", der.expert_parallel),
        ("trust_remote_code", der.trust_remote_code),
        ("long_max_model_len_override", der.long_override),
    ):
        out[name] = {"value": bool(item), "source": item.source if item else "not needed"}
    return out


def _report(result, written, fmt) -> int:
    from evalkit.render.report import write_json

    if fmt == "json":
        doc = {
            "task": result.task,
            "missing": [f.as_json() for f in result.missing],
            "problems": result.problems,
            "warnings": result.warnings,
            "written": written,
            "derived": [_derived(r) for r in result.configs],
        }
        if result.missing:
            from evalkit.init.facts import FACTS, documentation, kinds_json

            doc["fact_kinds"] = kinds_json()  # what each missing fact's "kind" allows
            # Every fact this task reads, optional ones (context, walltime) included.
            doc["facts"] = [
                documentation(f)
                for f in FACTS.values()
                if not f.required_for or result.kind in f.required_for
            ]
        if result.ok and not written:
            doc["configs"] = [{"file": r.output.file_name, "text": r.text} for r in result.configs]
        write_json(doc)
    else:
        if result.missing:
            print(
                f"evalkit init {result.task}: missing facts (ask the user for these):",
                file=sys.stderr,
            )
            for f in result.missing:
                print(f"  {f.name}: {f.description} (e.g. {f.example})", file=sys.stderr)
        for p in result.problems:
            print(f"error: {p}", file=sys.stderr)
        for w in result.warnings:
            print(f"warning: {w}", file=sys.stderr)
        for path in written:
            print(f"wrote {path}", file=sys.stderr)
    return 0 if result.ok else 1


def run(args: argparse.Namespace) -> int:
    from evalkit.errors import UsageError
    from evalkit.init.facts import read_facts

    if args.list:
        return _list(args)
    given = read_facts(args.facts, args.sets)
    if args.baseline_of:
        if args.task:
            raise UsageError("--baseline-of takes no TASK: the candidate config names it")
        from evalkit.init.baseline import build_baseline

        result = build_baseline(args.baseline_of, given, args.checkpoint)
    else:
        if not args.task:
            raise UsageError("give a TASK (see --list) or --baseline-of CONFIG")
        from evalkit.init import build

        result = build(args.task, given, args.checkpoint)
    if args.check and not args.output:
        raise UsageError("--check checks the written file: give -o PATH")
    if (args.nel or args.env_file) and not args.check:
        raise UsageError("--nel and --env-file only apply with --check")
    written = _write(result, args) if result.ok else []
    if args.check and result.ok:
        return _check(result, written, args, given)
    return _report(result, written, args.format)


def _check(result, written, args, given) -> int:
    from evalkit.init import check
    from evalkit.render.report import write_json

    gym = result.kind in ("mrcr", "gdpval", "tau3")
    context = int(given["context"]) if given.get("context") else None
    images = [given[k] for k in ("gym_image", "vllm_image") if given.get(k)]
    doc = {
        "task": result.task,
        "written": written,
        "decisions": {},
        "questions": [
            q.to_json() for q in check.questions(result.kind, given, result.defaulted, images)
        ],  # fmt: skip
        # A defaulted walltime is a question above, not a warning.
        "warnings": [w for w in result.warnings if not w.startswith("walltime defaulted")],
        "checks": {},
        "commands": {},
    }
    failed = False
    for rendered, path in zip(result.configs, written, strict=True):
        doc["decisions"][path] = check.decisions(rendered)
        found = check.preflight(path, args.checkpoint, context)
        run = check.dry_run(path, args.nel, args.env_file, check.unset_variables(found))
        doc["checks"][path] = {"preflight": found, "dry_run": run}
        failed |= any(f["severity"] == "error" for f in found) or run.get("accepted") is False
        canary = rendered.output.role != "gdpval"  # limit_samples never reaches GDPVal's gym
        doc["commands"][path] = check.commands(
            path, gym or rendered.output.role in ("gdpval", "tau3"), canary, args.env_file
        )
    if args.format == "json":
        write_json(doc)
    else:
        _print_check(doc)
    return 1 if failed else 0


def _print_check(doc: dict) -> None:
    from evalkit.render.inert import inert_data

    doc = inert_data(doc)  # values from the config and the launcher: one line each
    print(f"evalkit init {doc['task']} --check")
    for path in doc["written"]:
        print(f"\nwrote {path}\n  decisions:")
        for d in doc["decisions"][path]:
            print(f"    {d['name']} = {d['value']}: {d['reason']}")
        checks = doc["checks"][path]
        print("  preflight:" + ("" if checks["preflight"] else " no errors or warnings"))
        for f in checks["preflight"]:
            print(f"    {f['severity']} {f['rule']} {f['path'] or ''}: {f['message']} "
                  f"(read {f['read']})")  # fmt: skip
        run = checks["dry_run"]
        if not run["ran"]:
            print(f"  dry-run: not run here ({run['why']}); to get one: {run['get_one']}")
        elif run["accepted"]:
            print(f"  dry-run: accepted ({run['command']})")
        else:
            print(f"  dry-run: REFUSED: {run.get('error', '')} (read {run.get('read', '')})")
            for line in run.get("syntax_errors", []):
                print(f"    bash -n: {line}")
        if run.get("placeholders"):
            names = ", ".join(run["placeholders"])
            print(
                f"    ran with stand-in values for {names}, unset in this shell: the file "
                "is checked; set them (or put them in .env) before the real launch"
            )
        print("  commands:")
        for name, command in doc["commands"][path].items():
            print(f"    {name + ':':<10} {command}")
    if doc["warnings"]:
        print("\nwarnings:")
        for w in doc["warnings"]:
            print(f"  {w}")
    print("\nopen questions for the user:" + ("" if doc["questions"] else " none"))
    for q in doc["questions"]:
        print(f"  {q['name']}: {q['question']} "
              f"(assumed: {q['assumed']}; background in {q['read']})")  # fmt: skip
