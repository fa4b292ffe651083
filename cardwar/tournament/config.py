"""Tournament configs (``configs/tournaments/*.yaml``): every key known, typed and checked before a game starts.

::

    name: naval-ladder
    game: naval
    rules: {}                      # rule options of the game
    scenarios: [meeting_engagement] # hexwar: names, paths, random, random:test (cycled over the pairs)
    entrants:                      # display name -> spec (ours, or engine:CMD)
      random: random
      heuristic: heuristic
      mybot: engine:python mybot.py
    format: round_robin            # or gauntlet (`gauntlet:` names the entrant against the field)
    pairs: 20                      # game pairs per pairing: the same seed twice, seats swapped
    seed: 0                        # pair k of every pairing plays seed + k
    time: {move_ms: 2000, game_ms: null}
    sprt: null                     # gauntlet only: {elo0: 0, elo1: 20, alpha: 0.05, beta: 0.05}
    anchor: random                 # the entrant rated 0 (default: the first whose spec is random)
    engines: {grace_ms: 200, start_timeout_s: 10, stderr_cap: 1048576}   # engine entrants' tolerances
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import yaml

FORMATS = ("round_robin", "gauntlet")


class TournamentConfigError(ValueError):
    """A config that cannot run; the message names the file and the key."""


@dataclass(frozen=True)
class Sprt:
    """Stop a gauntlet pairing early once the pentanomial SPRT crosses a bound (fishtest's test)."""

    elo0: float = 0.0
    elo1: float = 20.0
    alpha: float = 0.05
    beta: float = 0.05


@dataclass(frozen=True)
class TournamentConfig:
    """A tournament: who plays whom, how often, on what, under which clock."""

    name: str
    game: str
    entrants: dict[str, str]
    format: str = "round_robin"
    gauntlet: str | None = None
    pairs: int = 10
    seed: int = 0
    scenarios: tuple[str, ...] = ()
    rules: dict[str, Any] = field(default_factory=dict)
    move_ms: int | None = 2000
    game_ms: int | None = None
    sprt: Sprt | None = None
    anchor: str | None = None  # the entrant rated 0 in the reports (see cardwar.tournament.report.choose_anchor)
    engines: dict[str, Any] = field(default_factory=dict)  # EngineAgent options of every engine entrant

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["scenarios"] = list(self.scenarios)
        return d

    def digest(self) -> str:
        """What makes two runs the same tournament (a changed config is refused on resume)."""
        return hashlib.sha256(json.dumps(self.to_dict(), sort_keys=True).encode()).hexdigest()[:16]

    def pairings(self) -> list[tuple[str, str]]:
        """(a, b) entrant pairs, in schedule order: all pairs for a round robin, the gauntlet's against the field."""
        names = list(self.entrants)
        if self.format == "gauntlet":
            hero = self.gauntlet or names[0]  # configs from config_from_dict always name it
            return [(hero, other) for other in names if other != hero]
        return [(names[i], names[j]) for i in range(len(names)) for j in range(i + 1, len(names))]


def describe_changes(old: dict[str, Any], new: dict[str, Any]) -> list[tuple[str, str]]:
    """What differs between two configs (as ``to_dict`` gives them): ``(kind, one-line text)`` pairs.

    ``kind`` is ``spec`` (an entrant kept its name but not its spec), ``added``, ``removed``
    or ``key`` (any other key). The order of the entrants is no change: a game is known by
    who played it, never by where the schedule put it.
    """
    def show(v: Any) -> str:
        return v if isinstance(v, str) else json.dumps(v, sort_keys=True)

    out: list[tuple[str, str]] = []
    before, after = old.get("entrants") or {}, new.get("entrants") or {}
    for name, spec in after.items():
        if name not in before:
            out.append(("added", f"entrant {name!r} added ({spec})"))
        elif before[name] != spec:
            out.append(("spec", f"entrant {name!r} changed its spec: {before[name]} -> {spec}"))
    out += [("removed", f"entrant {name!r} removed") for name in before if name not in after]
    # the anchor only chooses the reports' zero, and the engines' tolerances (grace, start-up time, the size
    # of their stderr files) are how the dealer waits, not what is played: neither is a change of games
    for key in sorted(set(old) | set(new)):
        if key not in ("entrants", "name", "anchor", "engines") and old.get(key) != new.get(key):
            out.append(("key", f"{key}: {show(old.get(key))} -> {show(new.get(key))}"))
    return out


def check_name(name: str, where: str = "name") -> str:
    """A tournament name that is a plain file name: it names ``tournaments/NAME.sqlite`` and ``tournaments/NAME/``."""
    bad = next((c for c in name if c in "/\\" or ord(c) < 32), None)
    if bad is not None or name in (".", "..") or name.startswith(".") or len(name) > 100:
        why = (f"it holds {bad!r}" if bad is not None else "it starts with a dot" if name.startswith(".")
               else "it is over 100 characters")
        _fail(where, f"a tournament name names its database and report folder, so it must be a plain file name; "
                     f"{name!r} is not ({why})")
    return name


def _fail(where: str, msg: str) -> None:
    raise TournamentConfigError(f"{where}: {msg}")


def _int(data: dict, key: str, default: Any, minimum: int, where: str, nullable: bool = False) -> Any:
    value = data.get(key, default)
    if value is None and nullable:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
        _fail(f"{where}{key}", f"expected an integer >= {minimum}" + (" or null" if nullable else "") +
              f", got {value!r}")
    return value


def config_from_dict(data: Any, where: str = "") -> TournamentConfig:
    """A checked config from plain data; unknown keys and bad values are one-line errors."""
    from cardwar.players import check_player_spec

    if not isinstance(data, dict):
        _fail(where or "config", "expected a mapping of keys")
    known = {"name", "game", "entrants", "format", "gauntlet", "pairs", "seed", "scenarios", "rules", "time", "sprt",
             "anchor", "engines"}
    for key in data:
        if key not in known:
            import difflib

            close = difflib.get_close_matches(str(key), sorted(known), n=1)
            _fail(f"{where}{key}", "unknown key" + (f" (did you mean {close[0]!r}?)" if close else "")
                  + f"; known keys: {', '.join(sorted(known))}")
    game = data.get("game")
    from cardwar import games

    if not games.known(game):
        _fail(f"{where}game", f"expected one of {', '.join(games.names())}, got {game!r}")
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        _fail(f"{where}name", "give the tournament a name (it keys its games in the database)")
    check_name(name.strip(), f"{where}name")
    entrants = data.get("entrants")
    if isinstance(entrants, list):  # a list of specs: each its own display name
        entrants = {str(s): str(s) for s in entrants}
    if not isinstance(entrants, dict) or len(entrants) < 2:
        _fail(f"{where}entrants", "name at least two entrants (display name: agent spec)")
    for shown, spec in entrants.items():
        if not isinstance(spec, str):
            _fail(f"{where}entrants.{shown}", f"expected an agent spec, got {spec!r}")
        try:
            check_player_spec(spec, game)
        except ValueError as err:
            _fail(f"{where}entrants.{shown}", str(err))
    fmt = data.get("format", "round_robin")
    if fmt not in FORMATS:
        _fail(f"{where}format", f"expected one of {', '.join(FORMATS)}, got {fmt!r}")
    gauntlet = data.get("gauntlet")
    if gauntlet is not None and gauntlet not in entrants:
        _fail(f"{where}gauntlet", f"{gauntlet!r} is not an entrant; entrants: {', '.join(entrants)}")
    if fmt == "gauntlet" and gauntlet is None:  # never "the first entrant": the order of entrants means nothing
        _fail(f"{where}gauntlet", f"format gauntlet plays one entrant against the field; name it with gauntlet: "
                                  f"NAME (--gauntlet NAME), one of {', '.join(entrants)}")
    anchor = data.get("anchor")
    if anchor is not None and anchor not in entrants:
        _fail(f"{where}anchor", f"{anchor!r} is not an entrant; entrants: {', '.join(entrants)}")
    scenarios = data.get("scenarios") or []
    if isinstance(scenarios, str):
        scenarios = [scenarios]
    if not games.get(game).has_scenarios and scenarios:
        _fail(f"{where}scenarios", f"the {game} game has no scenarios")
    rules = data.get("rules") or {}
    try:
        for sc in scenarios or [None]:
            games.get(game).make_env(sc, rules)
    except ValueError as err:
        _fail(f"{where}scenarios/rules", str(err).splitlines()[0])
    time_ = data.get("time") or {}
    if not isinstance(time_, dict) or set(time_) - {"move_ms", "game_ms"}:
        _fail(f"{where}time", "expected {move_ms: N, game_ms: N} (either may be null)")
    sprt = data.get("sprt")
    if sprt is not None:
        if fmt != "gauntlet":
            _fail(f"{where}sprt", "SPRT stops gauntlet pairings early; set format: gauntlet")
        if not isinstance(sprt, dict) or set(sprt) - {"elo0", "elo1", "alpha", "beta"}:
            _fail(f"{where}sprt", "expected {elo0, elo1, alpha, beta}")
        sprt = Sprt(**{k: float(v) for k, v in sprt.items()})
        if not sprt.elo1 > sprt.elo0 or not (0 < sprt.alpha < 0.5 and 0 < sprt.beta < 0.5):
            _fail(f"{where}sprt", "needs elo1 > elo0 and alpha, beta in (0, 0.5)")
    return TournamentConfig(
        name=name.strip(), game=game, entrants={str(k): v for k, v in entrants.items()}, format=fmt,
        gauntlet=gauntlet, pairs=_int(data, "pairs", 10, 1, where), seed=_int(data, "seed", 0, 0, where),
        scenarios=tuple(str(s) for s in scenarios), rules=dict(rules),
        move_ms=_int(time_, "move_ms", 2000, 1, f"{where}time.", nullable=True),
        game_ms=_int(time_, "game_ms", None, 1, f"{where}time.", nullable=True), sprt=sprt, anchor=anchor,
        engines=_engine_options(data.get("engines"), where))


ENGINE_KEYS = {"grace_ms": (0, 60_000), "start_timeout_s": (0.1, 600), "stderr_cap": (1024, 2**30)}
"""The ``engines:`` keys and their ranges: the grace beyond the move clock before a timeout forfeit, the
seconds an engine may take to say hello, and the bytes of each entrant's stderr file before it is rotated."""


def _engine_options(value: Any, where: str) -> dict[str, Any]:
    """The checked ``engines:`` mapping (every engine entrant's tolerances)."""
    if value is None:
        return {}
    if not isinstance(value, dict) or set(value) - set(ENGINE_KEYS):
        _fail(f"{where}engines", f"expected a mapping of {', '.join(ENGINE_KEYS)}")
    out = {}
    for key, (low, high) in ENGINE_KEYS.items():
        v = value.get(key)
        if v is None:
            continue
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not low <= v <= high:
            _fail(f"{where}engines.{key}", f"expected a number from {low} to {high}, got {v!r}")
        out[key] = v if key == "start_timeout_s" else int(v)
    return out


class _UniqueKeyLoader(yaml.SafeLoader):
    """YAML's safe loader, but a key given twice in one mapping (an entrant named twice) is an error."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
        seen: set = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            try:
                dup = key in seen
            except TypeError:
                continue
            if dup:
                raise yaml.constructor.ConstructorError(
                    None, None, f"{key!r} is given twice in one mapping (a duplicate entrant name?)",
                    key_node.start_mark)
            seen.add(key)
        return super().construct_mapping(node, deep=deep)


def find_config(path: str | Path) -> Path:
    """The file a config argument means: a path, or a shipped config's name (``naval``, ``naval-ladder``).

    A file here wins over a shipped name (a note on stderr says so); neither is one line
    listing the shipped names (:func:`cardwar.configs.resolve`).
    """
    import sys

    from cardwar.configs import ConfigNotFound, resolve

    try:
        found, note = resolve("tournament", path)
    except ConfigNotFound as err:
        raise TournamentConfigError(str(err)) from None
    if note:
        print(note, file=sys.stderr)
    return found


def load_config(path: str | Path, overrides: dict[str, Any] | None = None) -> TournamentConfig:
    """Read and check a YAML config (a path or a shipped name); ``overrides`` (from flags) replace its keys."""
    p = find_config(path)
    try:
        data = yaml.load(p.read_text(encoding="utf-8"), Loader=_UniqueKeyLoader)  # noqa: S506 - a SafeLoader
    except (yaml.YAMLError, UnicodeDecodeError) as err:
        mark = getattr(err, "problem_mark", None)
        at = f" at line {mark.line + 1} column {mark.column + 1}" if mark else ""
        raise TournamentConfigError(f"{path}: not valid YAML{at}: {getattr(err, 'problem', None) or err}") from None
    if isinstance(data, dict):
        data = {**data, **{k: v for k, v in (overrides or {}).items() if v is not None}}
    return config_from_dict(data, where=f"{path}: ")
