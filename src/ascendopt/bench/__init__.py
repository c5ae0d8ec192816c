"""The benchmark: methods as plug-ins of one budgeted loop, metrics as the reference method
defines them, a resumable parallel runner and a self-contained report."""
