"""Visual abductive and causal reasoning benchmarks as lmms-eval tasks."""

__version__ = "0.1.30"
