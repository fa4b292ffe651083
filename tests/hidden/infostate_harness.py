"""The information-state harness (issue 27): everything a seat is given is a function of its information state.

At sampled decisions of random games, each seat's hidden state is resampled with the game's ``resample_hidden``
registry hook (another full state the seat cannot tell apart: the other hand, the deck order, the dice, hidden
units put on the hexes that matter, undisclosed orders) and every channel the seat is given is compared, bit for
bit, between the true state and each resample:

1. ``view``: the seat's information view (``game.view_dict`` and the view object itself). Equal views are what
   "cannot tell apart" means, so this first check validates the resampler; the others look for leaks.
2. ``current_player``.
3. ``observation`` and ``mask``: ``env.observe(agent)`` on a copy of the env whose ``state`` is swapped (the mask
   only when the seat is to move).
4. ``render_text``: ``game.hook("render_text")(state, seat)``.
5. ``setup``: ``game.setup_of(view)`` (the engine protocol's public map).
6. ``engine_messages``: the engine protocol's ``new_game`` and ``move`` requests, encoded as sent.
7. ``picture``: ``game.hook("render_picture")(state, seat)`` on a subsample (it is slow).

Nothing here names a game: every game of the registry (and a plug-in) is played through ``game.make_env``.
"""

from __future__ import annotations

import dataclasses
import pickle
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from cardwar import games
from cardwar.engine import protocol


class InfostateLeak(AssertionError):
    """A channel differs between two states the seat cannot tell apart."""


@dataclass
class Budget:
    """How much one run checks."""

    decisions: int
    """Decisions at which the seats are checked (over all games of the run)."""
    resamples: int = 2
    """Resamples per seat and decision."""
    check_every: float = 0.35
    """Probability that a decision is checked (the others are only played)."""
    picture_every: int = 20
    """One checked decision in this many also compares the pictures."""
    max_games: int = 100_000


@dataclass
class Report:
    """What a run checked (for the test's own assertions and the log)."""

    decisions: int = 0
    comparisons: int = 0
    pictures: int = 0
    games: int = 0
    terminal: int = 0
    seconds: float = 0.0


# ---------------------------------------------------------------------------- first differences
def first_difference(a: Any, b: Any, path: str = "") -> str | None:
    """Where ``a`` and ``b`` first differ (a field path and both values), or None if they are equal.

    Walks dicts, lists, tuples, named tuples, dataclasses (fields that take part in ``==``) and numpy
    arrays (the first differing index); anything else is compared with ``==``.
    """
    if not path:  # the whole value first, bit for bit: most comparisons are equal
        try:
            if pickle.dumps(a) == pickle.dumps(b):
                return None
        except Exception:  # noqa: BLE001 - something that does not pickle: walk it
            pass
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape or a.dtype != b.dtype:
            return f"{path or '<array>'}: shape/dtype {a.shape} {a.dtype} != {b.shape} {b.dtype}"
        if a.tobytes() == b.tobytes():
            return None
        if not (a != b).any():
            return f"{path}: the same values in other bits (NaN or -0.0)"
        idx = tuple(int(i) for i in np.argwhere(a != b)[0])
        return f"{path}[{idx}]: {a[idx]} != {b[idx]}"
    if type(a) is not type(b):
        return f"{path or '<value>'}: {type(a).__name__} {_short(a)} != {type(b).__name__} {_short(b)}"
    if isinstance(a, dict):
        for k in list(a) + [k for k in b if k not in a]:
            if k not in a or k not in b:
                x, y = ("missing" if k not in a else _short(a[k])), ("missing" if k not in b else _short(b[k]))
                return f"{path}.{k}: {x} != {y}"
            d = first_difference(a[k], b[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(a, tuple) and hasattr(a, "_fields"):
        for name, x, y in zip(a._fields, a, b):
            d = first_difference(x, y, f"{path}.{name}")
            if d:
                return d
        return None
    if isinstance(a, (list, tuple)):
        if len(a) != len(b):
            return f"{path}: length {len(a)} != {len(b)} ({_short(a)} != {_short(b)})"
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, f"{path}[{i}]")
            if d:
                return d
        return None
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        for f in dataclasses.fields(a):
            if f.compare:
                d = first_difference(getattr(a, f.name), getattr(b, f.name), f"{path}.{f.name}")
                if d:
                    return d
        return None
    try:
        same = bool(a == b)
    except Exception:  # noqa: BLE001 - an object without a truthy ==: compare its pickle
        same = pickle.dumps(a) == pickle.dumps(b)
    return None if same else f"{path or '<value>'}: {_short(a)} != {_short(b)}"


def _short(x: Any, size: int = 160) -> str:
    r = repr(x)
    return r if len(r) <= size else r[:size] + "..."


def _text_difference(a: str, b: str) -> str:
    la, lb = a.splitlines(), b.splitlines()
    for i, (x, y) in enumerate(zip(la, lb)):
        if x != y:
            return f"line {i + 1}: {x!r} != {y!r}"
    return f"{len(la)} lines != {len(lb)} lines"


def _array_difference(a: np.ndarray, b: np.ndarray, what: str) -> str | None:
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return f"shape/dtype {a.shape} {a.dtype} != {b.shape} {b.dtype}"
    if a.tobytes() == b.tobytes():
        return None
    idx = np.argwhere(a != b)
    first = tuple(int(i) for i in idx[0])
    lead = f"{what} {first[0]}" if a.ndim > 1 else f"index {first[0]}"
    return f"first at {lead} (index {first}): {a[first]} != {b[first]}; {len(idx)} entries differ"


# ---------------------------------------------------------------------------- the channels
class Probe:
    """A copy of one game's env whose state is swapped to read what a seat is given."""

    def __init__(self, game: games.Game, env: Any) -> None:
        self.game = game
        self.env = object.__new__(type(env))  # a shallow copy (copy.copy would rebuild the env through EzPickle)
        self.env.__dict__.update(env.__dict__)

    def shown(self, state: Any, seat: int, picture: bool) -> dict[str, Any]:
        """Every channel of ``seat`` in ``state``, by name (each a plain value compared bit for bit)."""
        g = self.game
        agent = self.env.possible_agents[seat]
        probe = self.env
        probe.game = state
        probe._mask_cache = None
        view = state.information_view(seat)
        to_move = (not state.is_terminal()) and int(state.current_player) == seat
        obs = probe.observe(agent)
        out: dict[str, Any] = {
            "view": g.view_dict(view), "view_object": view,
            "current_player": None if state.is_terminal() else int(state.current_player),
            "observation": np.asarray(obs["observation"]),
            "render_text": g.hook("render_text")(state, seat),
            "setup": g.setup_of(view),
        }
        legal = [int(a) for a in np.flatnonzero(obs["action_mask"])] if to_move else []
        if to_move:
            out["mask"] = np.asarray(obs["action_mask"])
        out["engine_messages"] = protocol.encode(protocol.new_game(g.name, view, None)) + (
            protocol.encode(protocol.move_request(g.name, view, [], legal, None, request=0)) if to_move else b"")
        if picture and g.render_picture is not None:
            out["picture"] = np.asarray(g.hook("render_picture")(state, seat))
        return out


CHANNEL_ORDER = ("view", "view_object", "current_player", "observation", "mask", "render_text", "setup",
                 "engine_messages", "picture")


def compare(a: dict[str, Any], b: dict[str, Any]) -> tuple[str, str] | None:
    """(channel, first difference) of the first channel that differs, or None."""
    for ch in CHANNEL_ORDER:
        if ch not in a and ch not in b:
            continue
        if (ch in a) != (ch in b):
            return ch, f"present in {'the original' if ch in a else 'the resample'} only"
        x, y = a[ch], b[ch]
        if ch in ("observation", "mask", "picture"):
            d = _array_difference(x, y, "plane" if ch == "observation" else "row")
        elif ch == "render_text":
            d = None if x == y else _text_difference(x, y)
        elif ch == "engine_messages":
            d = None if x == y else _text_difference(x.decode(), y.decode())
        else:
            d = first_difference(x, y)
        if d:
            return ch, d
    return None


def _fingerprint(state: Any) -> bytes:
    """The whole state, for the check that resampling does not change it."""
    to_dict = getattr(state, "to_dict", None)
    if callable(to_dict):
        return pickle.dumps(to_dict())
    return pickle.dumps(state)


# ---------------------------------------------------------------------------- the run
def variants(game: games.Game, slow: bool = False) -> list[tuple[Any, dict | None, str]]:
    """(scenario, rules, label) to play: the default scenario and a ``random:test`` one for scenario games
    (every shipped scenario and ``random:train`` too when ``slow``), each under the default rules and with every
    boolean rule option on (optional rules such as hidden units are switched on that way)."""
    scenarios: list[Any] = [None]
    if game.has_scenarios:
        scenarios = [game.default_scenario]
        if "random:test" in game.random_scenarios:
            scenarios.append("random:test")
        if slow:
            scenarios += [s for s in game.scenarios() if s not in scenarios]
            scenarios += [s for s in ("random:train",) if s in game.random_scenarios]
    defaults = game.default_rules()
    on = {k: True for k, v in defaults.items() if isinstance(v, bool)}
    rule_sets: list[tuple[dict | None, str]] = [(None, "default rules")]
    if any(not defaults[k] for k in on):
        rule_sets.append((on, "+".join(sorted(k for k in on if not defaults[k]))))
    return [(sc, rules, f"{sc or 'no scenario'}, {label}") for sc in scenarios for rules, label in rule_sets]


def check_game(game: games.Game, budget: Budget, seed: int = 0, slow: bool = False) -> Report:
    """Play games of ``game`` over :func:`variants`, checking at sampled decisions; raises
    :class:`InfostateLeak` naming the channel, the game, the move and the first difference.

    Every other game is played by the game's ``heuristic`` agents (when it has them) with one move in five
    random, the others at random: the heuristic brings the sides into contact, where hidden units matter."""
    if game.resample_hidden is None:
        raise InfostateLeak(f"{game.name}: no resample_hidden hook in its registry entry (cardwar.games.Game."
                            "resample_hidden): the information-state harness cannot resample its hidden state")
    start = time.perf_counter()
    rep = Report()
    rng = np.random.default_rng(seed)
    runs = variants(game, slow)
    per_variant = -(-budget.decisions // len(runs))
    for k, (scenario, rules, label) in enumerate(runs):
        goal = min(budget.decisions, (k + 1) * per_variant)
        games_here = 0
        while rep.decisions < goal and games_here < budget.max_games:
            game_seed = int(rng.integers(2**31))
            env = game.make_env(scenario, rules)
            env.reset(seed=game_seed)
            players = None
            if games_here % 2 and "heuristic" in game.agents:
                players = [game.agents["heuristic"].build(game.name, seed=game_seed + i) for i in range(2)]
            where = f"{game.name} ({label}) game seed {game_seed}, {'heuristic' if players else 'random'} play"
            _play_one(game, env, where, budget, rng, rep, goal, players)
            games_here += 1
            rep.games += 1
    rep.seconds = time.perf_counter() - start
    return rep


def _play_one(game: games.Game, env: Any, where: str, budget: Budget, rng: np.random.Generator, rep: Report,
              goal: int, players: list[Any] | None) -> None:
    probe = Probe(game, env)
    while True:
        state = env.game
        terminal = state.is_terminal()
        if terminal or (rep.decisions < goal and rng.random() < budget.check_every):
            picture = rep.decisions % budget.picture_every == 0
            check_decision(game, probe, state, where, budget.resamples, rng, picture, rep)
            if terminal:
                rep.terminal += 1
                return
            rep.decisions += 1
        agent = env.agent_selection
        obs = env.observe(agent)
        if players is not None and rng.random() < 0.8:
            action = players[env.possible_agents.index(agent)].act(obs, env.view(agent))
        else:
            legal = np.flatnonzero(obs["action_mask"])
            action = legal[int(rng.integers(legal.size))]
        env.step(int(action))


def check_decision(game: games.Game, probe: Probe, state: Any, where: str, resamples: int,
                   rng: np.random.Generator, picture: bool, rep: Report) -> None:
    """Both seats, ``resamples`` resamples each: every channel equal, and ``state`` left as it was."""
    move = getattr(state, "move_number", "?")
    for seat in range(len(game.seats)):
        before = _fingerprint(state)
        truth = probe.shown(state, seat, picture)
        for j in range(resamples):
            twin = game.resample(state, seat, rng)
            if twin is state:
                raise InfostateLeak(f"{where}, move {move}: resample_hidden returned the state itself")
            if _fingerprint(state) != before:
                raise InfostateLeak(f"{where}, move {move}: resample_hidden changed the state it resampled")
            diff = compare(truth, probe.shown(twin, seat, picture))
            rep.comparisons += 1
            if diff is not None:
                channel, what = diff
                hint = (" (the resampler gave a state the seat CAN tell apart: fix resample_hidden)"
                        if channel in ("view", "view_object") else " (a leak: the channel reads hidden state)")
                raise InfostateLeak(f"channel {channel!r} differs for seat {seat} ({game.seats[seat]}) in {where}, "
                                    f"move {move}, resample {j}{hint}: {what}")
        if picture and game.render_picture is not None:
            rep.pictures += 1


def check_from(game: games.Game, env: Any, where: str, moves: int, resamples: int, rng: np.random.Generator,
               picture_every: int = 0) -> Report:
    """Check every decision of ``env`` from its current state on, for ``moves`` random moves (or to the end)."""
    rep = Report()
    probe = Probe(game, env)
    for k in range(moves + 1):
        state = env.game
        check_decision(game, probe, state, where, resamples, rng, bool(picture_every) and k % picture_every == 0, rep)
        if state.is_terminal():
            rep.terminal += 1
            break
        rep.decisions += 1
        legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
        env.step(int(legal[int(rng.integers(legal.size))]))
    return rep
