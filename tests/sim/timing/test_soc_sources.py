"""Every SoC parameter names its public source (or says it is an estimate) in [sources]."""

from __future__ import annotations

import tomllib

import pytest

from ascendopt.hw.soc import SOC_DIR


@pytest.mark.parametrize("path", sorted(SOC_DIR.glob("*.toml")), ids=lambda p: p.stem)
def test_every_parameter_has_a_source(path):
    data = tomllib.loads(path.read_text())
    missing = [k for k in data["params"] if not str(data.get("sources", {}).get(k, "")).strip()]
    assert not missing, f"{path.name}: no source for {missing}"
