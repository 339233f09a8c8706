"""`--with-launcher`: run the real launcher's dry-run and examine what it renders."""

from __future__ import annotations

import base64
import re
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from evalkit.errors import UsageError
from evalkit.secrets.quote import quote
from evalkit.skillroot import find_skill_file

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
NOISE = (
    "Traceback",
    "File ",
    "During handling",
    "The above exception",
    "Set the environment variable HYDRA_FULL_ERROR",
    "full_key:",
    "object_type=",
    "^",
    "~",
)


@dataclass
class LauncherResult:
    command: list[str]
    returncode: int
    stdout: str
    stderr: str
    rendered: list[RenderedScript] = field(default_factory=list)
    syntax_errors: list[SyntaxFailure] = field(default_factory=list)

    @property
    def scripts(self) -> list[str]:
        return [s.text for s in self.rendered]

    @property
    def error_line(self) -> str:
        return last_error_line(self.stderr + "\n" + self.stdout)


def find_nel(explicit: str | None) -> list[str]:
    if explicit:
        if not Path(explicit).exists() and shutil.which(explicit) is None:
            raise UsageError(f"--nel {explicit}: not found")
        return [explicit]
    wrapper = find_skill_file("scripts/nel-gym.sh")
    if wrapper is not None:
        return ["bash", str(wrapper)]
    nel = shutil.which("nel")
    if nel is None:
        raise UsageError("no launcher found: pass --nel PATH, or install nel 0.2.6")
    return [nel]


# `SomeError: message`: a dotted name whose last part names an error, then `: `. One run
# over the name (anchored, one start), then a substring test for the word; the old single
# pattern backtracked quadratically on a long run of word characters (100 kB took 30 s).
EXCEPTION_NAME = re.compile(r"[A-Za-z_][\w.]*(?=: \S)")
ERROR_WORDS = ("Error", "Exception", "Exit")


def is_exception_line(line: str) -> bool:
    m = EXCEPTION_NAME.match(line)
    if m is None:
        return False
    # the word lies after the first character, in the last dotted part
    tail = m.group(0)[1:].rsplit(".", 1)[-1]
    return any(word in tail for word in ERROR_WORDS)


def last_error_line(text: str) -> str:
    """The launcher's own error message: the last `SomeError: ...` line, else the last
    line that is not traceback scaffolding."""
    lines = ANSI.sub("", text).splitlines()
    for raw in reversed(lines):
        if is_exception_line(raw):
            return quote(raw, 300)  # the launcher's output may hold a secret
    for raw in reversed(lines):
        line = raw.rstrip()
        if not line.strip() or raw[:1].isspace():
            continue
        if line.lstrip().startswith(NOISE):
            continue
        return quote(line, 300)
    return "(no error output)"


# What a 0.2.6 dry-run prints around each rendered file (executors/slurm/executor.py and
# executors/local/executor.py of nemo-evaluator-launcher 0.2.6). Every file is printed whole
# after a header line; the output ends with a "To submit"/"To execute" line.
#   slurm:  "=========== Task 0 =====================" then run.sub, then optionally
#           "----------- Secrets (redacted) | Task 0 / .secrets.env -----------"
#   local:  "=========== Task script | <task>/run.sh =====================" (or
#           "=========== Main script | run_all.sequential.sh ====...") and
#           "=========== Secrets (redacted) | <task>/.secrets.env ====..."
# Fixed-length ends compared as strings, not a lazy `.+?` pattern.
EQ_OPEN, EQ_CLOSE = "=" * 11 + " ", " " + "=" * 21
DASH_OPEN, DASH_CLOSE = "-" * 11 + " ", " " + "-" * 11
SECRETS_HEADER = "Secrets (redacted) "
FOOTER = re.compile(r"^(?:To submit jobs, run the executor|To execute, run without --dry-run)")
# A here-document opener: `<<WORD`, `<<-WORD`, `<< 'WORD'`, `<<"WORD"` (not `<<<`).
HEREDOC = re.compile(r"(?<!<)<<(?P<dash>-?)[ \t]*(?P<q>['\"]?)(?P<word>[A-Za-z_][\w.-]*)(?P=q)")


@dataclass
class RenderedScript:
    name: str  # as the launcher labels it, e.g. "Task 0 run.sub" or "mrcr-0/run.sh"
    text: str


def header_text(line: str) -> str | None:
    """The text of a launcher header line (`Task 0`, `Task script | x/run.sh`), else None."""
    if len(line) > len(EQ_OPEN) + len(EQ_CLOSE) and line.startswith(EQ_OPEN):
        return line[len(EQ_OPEN) : -len(EQ_CLOSE)] if line.endswith(EQ_CLOSE) else None
    if line.startswith(DASH_OPEN) and line.endswith(DASH_CLOSE):
        text = line[len(DASH_OPEN) : -len(DASH_CLOSE)]
        if text.startswith(SECRETS_HEADER) and len(text) > len(SECRETS_HEADER):
            return text
    return None


def script_name(header: str) -> str | None:
    """The file a header introduces, or None for the sections that are not bash."""
    if "Secrets (redacted)" in header:
        return None
    if header.startswith(("Task script | ", "Main script | ")):
        return header.split(" | ", 1)[1]
    m = re.fullmatch(r"Task (\d+)", header)
    return f"Task {m.group(1)} run.sub" if m else None


def heredoc_closers(line: str) -> list[tuple[str, bool]]:
    """Delimiters opened on this line, with whether leading tabs are stripped (`<<-`)."""
    if line.lstrip().startswith("#"):
        return []
    return [(m.group("word"), bool(m.group("dash"))) for m in HEREDOC.finditer(line)]


def rendered_scripts(stdout: str) -> list[RenderedScript]:
    """The files a dry-run prints, cut at the launcher's own header and footer lines.

    A header-looking line inside an open here-document is content, not a cut: the
    export job's sbatch file and config.yml travel inside here-documents of run.sub.
    """
    scripts: list[RenderedScript] = []
    current: RenderedScript | None = None
    body: list[str] = []
    pending: list[tuple[str, bool]] = []  # here-documents open at this line

    def close() -> None:
        if current is not None:
            current.text = "\n".join(body).strip("\n") + "\n"
            scripts.append(current)

    lines = ANSI.sub("", stdout).splitlines()
    # Last line index of each text (tabs stripped too), to open only here-documents that
    # close: a `<<WORD` inside a quoted string must not swallow the rest of the output.
    last_at: dict[str, int] = {}
    for number, line in enumerate(lines):
        last_at[line] = last_at[line.lstrip("\t")] = number
    for number, line in enumerate(lines):
        if pending:
            word, strip_tabs = pending[0]
            if (line.lstrip("\t") if strip_tabs else line) == word:
                pending.pop(0)
            body.append(line)
            continue
        header = header_text(line)
        if header is not None or FOOTER.match(line):
            close()
            current, body = None, []
            name = script_name(header) if header is not None else None
            if name is not None:
                current = RenderedScript(name, "")
            continue
        if current is not None:
            body.append(line)
            pending = [(w, t) for w, t in heredoc_closers(line) if last_at.get(w, -1) > number]
    close()
    return [s for s in scripts if s.text.strip()]


# The launcher ships pre_cmd/post_cmd into the job as `echo "<base64>" | base64 -d > X.sh`.
EMBEDDED = re.compile(r'echo "([A-Za-z0-9+/=]+)" \| base64 -d > ([\w.-]+\.sh)')


def embedded_scripts(script: str) -> list[tuple[str, str]]:
    out = []
    for m in EMBEDDED.finditer(script):
        try:
            out.append((m.group(2), base64.b64decode(m.group(1)).decode("utf-8", "replace")))
        except ValueError:
            continue
    return out


@dataclass
class SyntaxFailure:
    script: str  # e.g. "Task 0 run.sub" or "Task 0 run.sub > pre_cmd.sh"
    line: int | None  # line within that script, as bash counts it
    message: str  # bash's own words, without the file prefix
    source: str  # the offending line as rendered ("" when bash names no line)


# After the `PATH: line ` prefix (compared as a string): `N: message`.
BASH_ERROR = re.compile(r"(?P<line>\d+): (?P<msg>.*)")


def first_error(stderr: str, path: str) -> tuple[int | None, str]:
    """bash -n's first real error (warnings such as an open here-document are skipped)."""
    found = []
    prefix = f"{path}: line "
    for raw in stderr.splitlines():
        m = BASH_ERROR.fullmatch(raw, len(prefix)) if raw.startswith(prefix) else None
        if m:
            found.append((int(m.group("line")), m.group("msg")))
    for number, msg in found:
        if not msg.startswith(("warning:", "`")):
            return number, msg
    if found:
        return found[0]
    lines = stderr.strip().splitlines()
    return None, (lines[0].replace(path, "script") if lines else "syntax error")


def bash_syntax_errors(scripts: Sequence[RenderedScript]) -> list[SyntaxFailure]:
    """`bash -n` on each rendered script as a whole, and on the shell files it embeds."""
    failures: list[SyntaxFailure] = []
    bash = shutil.which("bash")
    if bash is None:
        return failures
    with tempfile.TemporaryDirectory(prefix="evalkit-render-") as tmp:
        path = Path(tmp) / "check.sh"
        for script in scripts:
            parts = [(script.name, script.text)]
            parts += [(f"{script.name} > {n}", b) for n, b in embedded_scripts(script.text)]
            for label, body in parts:
                path.write_text(body, encoding="utf-8")
                proc = subprocess.run([bash, "-n", str(path)], capture_output=True, text=True)
                if proc.returncode == 0:
                    continue
                number, message = first_error(proc.stderr, str(path))
                lines = body.splitlines()
                source = ""
                if number is not None and lines:
                    source = lines[min(number, len(lines)) - 1].strip()
                failures.append(SyntaxFailure(label, number, message, source))
    return failures


def dry_run(
    config: str,
    overrides: Sequence[str],
    nel: str | None,
    timeout: float = 600,
    env_file: str | None = None,
) -> LauncherResult:
    command = find_nel(nel) + ["run", "--config", str(Path(config).resolve()), "--dry-run"]
    if env_file:  # else nel reads ./.env by itself, as a launch would
        command += ["--env-file", str(Path(env_file).resolve())]
    for item in overrides:
        command += ["-o", item]
    try:
        proc = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return LauncherResult(command, 124, "", f"launcher dry-run timed out after {timeout:.0f} s")
    except OSError as err:
        raise UsageError(f"cannot run the launcher: {err}") from None
    result = LauncherResult(command, proc.returncode, proc.stdout, proc.stderr)
    if proc.returncode == 0:
        result.rendered = rendered_scripts(proc.stdout)
        result.syntax_errors = bash_syntax_errors(result.rendered)
    return result


def nel_next_dry_run(
    config: str, env: dict[str, str] | None = None, timeout: float = 900
) -> LauncherResult | None:
    """nel-next's own dry-run through scripts/nel-next.sh, or None when its environment is
    not set up (the wrapper's --which never installs). nel-next expands `${VAR}` from the
    shell, so `env` (the shell plus the dotenv file, as preflight reads them) is its
    environment."""
    script = find_skill_file("scripts/nel-next.sh")
    if script is None:
        return None
    wrapper = ["bash", str(script)]
    try:
        ready = subprocess.run([*wrapper, "--which"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if ready.returncode != 0:
        return None
    command = [*wrapper, "eval", "run", str(Path(config).resolve()), "--dry-run"]
    try:
        proc = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return LauncherResult(command, 124, "", f"nel-next dry-run timed out after {timeout:.0f} s")
    except OSError as err:
        raise UsageError(f"cannot run scripts/nel-next.sh: {err}") from None
    return LauncherResult(command, proc.returncode, proc.stdout, proc.stderr)
