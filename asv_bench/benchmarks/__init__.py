"""asv benchmark suites for numgrad, each beside NumPy and PyTorch."""
