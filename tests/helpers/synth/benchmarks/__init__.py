"""One module or package per benchmark family, as in tools/evalkit/benchmarks/."""
