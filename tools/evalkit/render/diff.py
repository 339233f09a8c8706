"""A fix's unified diff on its way out (preflight --diff): printed exactly as it is, since
`patch` must apply it, or not at all, with the reason."""

from __future__ import annotations

from evalkit.render.redact import redact_text
from evalkit.shellword import UNSAFE

_LINE_ENDS = "\t\r\n"  # a diff's own layout (and a CRLF file's line ends), not controls


def refusal(diff: str, text: str, terminal: bool) -> tuple[str, int | None] | None:
    """Why DIFF (of the config whose fixed text is TEXT) is not printed, and the config
    line to name; None to print it. A secret would be rewritten on the way out and the
    diff would no longer apply. On a TERMINAL a bidi control (YAML refuses C0 ones) would
    reorder what the reader sees; piped, to `patch` or a file, the diff goes out exact."""
    if redact_text(diff) != diff:
        return (
            "the diff holds text the output filter rewrites (a secret), so it would not "
            "apply as printed: no diff printed; --fix writes the fixes",
            None,
        )
    if not terminal:
        return None
    hit = next((m for m in UNSAFE.finditer(diff) if m.group(0) not in _LINE_ENDS), None)
    if hit is None:
        return None
    char = hit.group(0)
    at = text.find(char)
    return (
        f"the diff holds U+{ord(char):04X}, a control or bidi character, which a terminal "
        "would act on: no diff printed here; pipe it (`| patch -p0`) or redirect it to a file",
        text.count("\n", 0, at) + 1 if at >= 0 else None,
    )
