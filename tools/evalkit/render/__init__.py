"""Everything that turns evalkit's results into bytes for someone else to read.

`redact` keeps secrets out of every output (documents as data, known values in text);
`output` is the one way a command writes a file (exactly as given, never onto one of its
inputs) and writes a redacted document untouched.
"""
