"""``cardwar.configs``: the shipped data files, as package data, found by name from any directory.

- ``scenarios/hexwar/*.yaml`` and ``scenarios/skirmish/*.yaml``: each game's named scenarios (listed as
  ``hexwar/meeting_engagement``; a game takes the bare name, ``--scenario meeting_engagement``);
- ``training/*.yaml`` (and ``training/best_response/*.yaml``): training configs;
- ``tournaments/*.yaml``: tournament configs.

A command takes a config as a path or as the name of a shipped one (``cardwar tournament
naval``, ``cardwar train naval --config naval``; ``cardwar configs`` lists them):
:func:`resolve` decides which. Use the helpers rather than paths relative to the working
directory, so that an installed package finds its files from anywhere.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path, PurePath

CONFIG_DIR = Path(__file__).resolve().parent
SCENARIO_DIR = CONFIG_DIR / "scenarios" / "hexwar"
TRAINING_DIR = CONFIG_DIR / "training"
TOURNAMENT_DIR = CONFIG_DIR / "tournaments"

KINDS: dict[str, Path] = {"tournament": TOURNAMENT_DIR, "training": TRAINING_DIR,
                          "scenario": CONFIG_DIR / "scenarios"}
"""Each kind of shipped config and the folder that holds it."""


class ConfigNotFound(ValueError):
    """Neither a file here nor a shipped config's name; the message is one line listing the shipped names."""


@dataclass(frozen=True)
class ShippedConfig:
    """One shipped config: its kind, its name (the file's path under its kind's folder, without ``.yaml``),
    other names it answers to (a tournament's ``name:``), its path and a one-line description."""

    kind: str
    name: str
    aliases: tuple[str, ...]
    path: Path
    description: str


def training_config_path(game: str) -> Path:
    """The packaged default training config of ``game`` (``training/<game>.yaml``)."""
    return TRAINING_DIR / f"{game}.yaml"


def scenario_names() -> list[str]:
    """Names of the shipped hex scenarios."""
    return sorted(p.stem for p in SCENARIO_DIR.glob("*.yaml"))


def _description(text: str) -> str:
    """The first sentence of a YAML file's leading comment, without the commands it shows."""
    import re

    lines = []
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        body = line[1:]
        if body.startswith("  ") or body.strip().startswith(("cardwar ", "`cardwar")):
            break  # an indented command line ends the description
        lines.append(body.strip())
    joined = re.sub(r":?\s*`cardwar [^`]*`", "", " ".join(lines)).replace("`", "")
    first = re.split(r"(?<=[.;])\s", joined, maxsplit=1)[0]
    return first.rstrip(" .;:,")


def _aliases(kind: str, path: Path) -> tuple[str, ...]:
    """A tournament config also answers to its ``name:`` (``naval-ladder``)."""
    if kind != "tournament":
        return ()
    import yaml

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError):
        return ()
    name = data.get("name") if isinstance(data, dict) else None
    return (name,) if isinstance(name, str) and name != path.stem else ()


def shipped_configs(kind: str | None = None) -> list[ShippedConfig]:
    """Every shipped config (of one kind), sorted by kind then name."""
    out = []
    for k, folder in KINDS.items():
        if kind is not None and k != kind:
            continue
        for path in sorted(folder.rglob("*.yaml")):
            name = path.relative_to(folder).with_suffix("").as_posix()
            text = path.read_text(encoding="utf-8")
            out.append(ShippedConfig(k, name, _aliases(k, path), path, _description(text)))
    return out


def _shipped_match(kind: str, text: str) -> ShippedConfig | None:
    """The shipped config that ``text`` names: its name or an alias (``.yaml`` allowed), or its path in a
    checkout (``configs/tournaments/naval.yaml``, which then works from any directory)."""
    configs = shipped_configs(kind)
    plain = text[:-5] if text.endswith(".yaml") else text
    for c in configs:
        if plain == c.name or plain in c.aliases:
            return c
    parts = PurePath(text).parts
    for c in configs:
        rel = ("configs", *c.path.relative_to(CONFIG_DIR).parts)
        if parts[-len(rel):] == rel:
            return c
    return None


def names(kind: str) -> list[str]:
    """Every name a shipped config of ``kind`` answers to, in listing order."""
    return [n for c in shipped_configs(kind) for n in (c.name, *c.aliases)]


def resolve(kind: str, text: str | Path) -> tuple[Path, str | None]:
    """The config file that ``text`` means, and a note for stderr when that choice needs saying.

    A file here wins: a path (or a name that is also a file here, with a note saying the
    file was taken). Otherwise ``text`` names a shipped config of ``kind``. Neither is
    :class:`ConfigNotFound`, one line listing the shipped names with a did-you-mean.
    """
    if kind not in KINDS:
        raise ValueError(f"unknown kind of config {kind!r}; one of {', '.join(KINDS)}")
    text = str(text)
    local = Path(text).expanduser()
    shipped = _shipped_match(kind, text)
    if local.is_file():
        note = None
        if shipped is not None and local.resolve() != shipped.path.resolve():
            note = (f"note: {text} is a file here, so it is used, not the shipped {kind} config "
                    f"{shipped.name!r} ({shipped.path})")
        return local, note
    if shipped is not None:
        return shipped.path, None
    known = names(kind)
    close = difflib.get_close_matches(text, known, n=1, cutoff=0.5)
    why = " (it is a folder)" if local.is_dir() else ""
    raise ConfigNotFound(f"{text}: no such {kind} config{why}: not a file here, nor a shipped name "
                         f"({', '.join(known)})" + (f"; did you mean {close[0]!r}?" if close else "")
                         + " - `cardwar configs` lists them")
