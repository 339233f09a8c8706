"""Everything that turns evalkit's results into bytes for someone else to read.

`redact` keeps secrets out of every output; `output` is the one way a command writes a
file (redacted, and never onto one of its inputs).
"""
