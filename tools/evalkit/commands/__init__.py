"""One module per subcommand; see evalkit.cli for the contract they follow."""
