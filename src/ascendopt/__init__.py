"""AscendOptimizer: execution-driven optimization of AscendC operators."""

__version__ = "0.1.0"
