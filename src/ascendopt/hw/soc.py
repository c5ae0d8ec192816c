"""SoC descriptions for the simulator: one TOML file per SoC under ``socs/``."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

SOC_DIR = Path(__file__).resolve().parent / "socs"
DEFAULT_SOC = "Ascend910B2"


class SocError(ValueError):
    """Unknown SoC name or malformed SoC file."""


@dataclass(frozen=True)
class Soc:
    """A SoC's figures (sizes, rates, latencies) as the timing model and PlatformAscendC see them."""

    name: str
    family: str
    params: dict[str, float] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)

    def get(self, key: str, default: float | None = None) -> float:
        if key in self.params:
            return self.params[key]
        if default is None:
            raise SocError(f"SoC {self.name} has no parameter {key!r}")
        return default


def available_socs() -> list[str]:
    return sorted(p.stem for p in SOC_DIR.glob("*.toml"))


def load_soc(name: str = DEFAULT_SOC) -> Soc:
    """Loads ``socs/<name>.toml`` (case-insensitive name)."""
    for p in SOC_DIR.glob("*.toml"):
        if p.stem.lower() == name.lower():
            data = tomllib.loads(p.read_text())
            params = {k: float(v) for k, v in data.get("params", {}).items()}
            return Soc(data.get("name", p.stem), data.get("family", p.stem), params,
                       {k: str(v) for k, v in data.get("sources", {}).items()})
    raise SocError(f"unknown SoC {name!r}; available: {', '.join(available_socs())}")
