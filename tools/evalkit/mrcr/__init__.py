"""Old home of the MRCR benchmark, now `evalkit.benchmarks.mrcr`."""
