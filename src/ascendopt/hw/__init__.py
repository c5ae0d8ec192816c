"""The hardware model every backend shares: SoC descriptions (``socs/*.toml``) and their loader
(:mod:`ascendopt.hw.soc`)."""
