"""`evalkit preflight`: static checks of a nel 0.2.6 config before launch.

file -> evalkit.config (loader, model) -> rules (one per file, in rules/) -> findings.
"""
