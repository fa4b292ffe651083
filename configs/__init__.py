"""``cardwar.configs``: the shipped data files, as package data.

- ``scenarios/hexwar/*.yaml``: the hex game's named scenarios;
- ``training/*.yaml``: the default training config of each game;
- ``tournaments/*.yaml``: example tournament configs.

Use the helpers rather than paths relative to the working directory, so that an
installed package finds its files from anywhere.
"""

from __future__ import annotations

from pathlib import Path

CONFIG_DIR = Path(__file__).resolve().parent
SCENARIO_DIR = CONFIG_DIR / "scenarios" / "hexwar"
TRAINING_DIR = CONFIG_DIR / "training"


def training_config_path(game: str) -> Path:
    """The packaged default training config of ``game`` (``training/<game>.yaml``)."""
    return TRAINING_DIR / f"{game}.yaml"


def scenario_names() -> list[str]:
    """Names of the shipped hex scenarios."""
    return sorted(p.stem for p in SCENARIO_DIR.glob("*.yaml"))
