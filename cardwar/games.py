"""The games cardwar knows, one registry entry each: everything above the envs reads it.

The command line, the arena, records, replay, explanations, the engine protocol, tournaments,
the server and its page ask :func:`get` for a game's env, notation, agents, renderers and
codecs instead of naming games. Adding a game is its own folder (a rules engine and an env
under ``envs/``, its agents under ``agents/``) plus one :class:`Game` given to :func:`register`.

Hooks are ``"module:attribute"`` strings, imported on first use (``import cardwar.games`` stays
cheap: no env, no torch); a plug-in may give plain callables instead::

    from cardwar import games
    games.register(games.Game(name="tiny", title="Tiny", seats=("left", "right"),
                              env=make_tiny_env, num_actions=3, ...))
"""

from __future__ import annotations

import difflib
import importlib
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any


class UnknownGame(ValueError):
    """A game name the registry does not hold (the message lists the games)."""


def resolve(ref: Any) -> Any:
    """The object a ``"module:attribute"`` reference names; anything else is returned as it is."""
    if not isinstance(ref, str):
        return ref
    module, _, attr = ref.partition(":")
    obj: Any = importlib.import_module(module)
    for part in attr.split(".") if attr else ():
        obj = getattr(obj, part)
    return obj


@dataclass(frozen=True)
class AgentEntry:
    """One agent of one game: its factory, the spec options it takes and (optionally) its own summary.

    ``factory(seed=..., **options)`` builds it; with ``takes_game`` the game's name comes first
    (``RandomAgent(game, seed=...)``). ``options`` is a tuple of :class:`cardwar.agents.spec.Option`
    or a reference to one.
    """

    factory: Any
    options: Any = ()
    takes_game: bool = False
    summary: str | None = None

    def build(self, game: str, seed: int | None, **options: Any) -> Any:
        make = resolve(self.factory)
        return make(game, seed=seed, **options) if self.takes_game else make(seed=seed, **options)

    def declared(self) -> tuple:
        """The options (:class:`Option` values) its spec may set."""
        return tuple(resolve(self.options))


def _full_notation(before: Any, action: int, after: Any, viewer: int, *, to_str: Callable[[int], str]) -> str:
    return to_str(action)


@dataclass(frozen=True)
class Game:
    """One game's registry entry (the hooks every layer above the envs uses).

    ``env(scenario=..., rules=...)`` (or ``env(rules=...)`` for a game without scenarios) makes the
    raw AEC env, whose ``state`` is the engine and ``config`` the rules in force.
    """

    name: str
    title: str
    seats: tuple[str, str]
    env: Any
    num_actions: Any
    action_to_string: Any
    string_to_action: Any
    rules: Any
    """The rules class: ``from_dict(d)`` (a ValueError subclass for a bad option) and ``to_dict()``."""
    narrate: Any
    """``narrate(before, action, after) -> list[str]``: the public log lines of one move."""
    render_text: Any
    """``render_text(state, viewer) -> str``; viewer 0, 1, None (a spectator) or "omniscient"."""
    summary: str = ""
    default_scenario: str | None = None
    """None: the game has no scenarios."""
    scenario_names: Any = None
    """``() -> list[str]``: the shipped scenarios."""
    random_scenarios: tuple[str, ...] = ()
    scenario_from_data: Any = None
    """``(dict) -> scenario``: the map a record carries (``scenario_data``), for a generated one."""
    scenario_data: Any = None
    """``(state) -> dict | None``: the map to keep in a record (None: the name is enough)."""
    before_move: Any = None
    """``(state) -> snapshot``: what ``narrate`` and ``seen_notation`` read as ``before`` (default: a whole
    ``state.clone()``; a game whose hooks read a few fields gives a cheap snapshot)."""
    seen_notation: Any = None
    """``(before, action, after, viewer) -> str | None``: the move as ``viewer`` may know it (None: not
    told at all); default: every move is public in full notation."""
    why_illegal: Any = None
    """``(view, action) -> str | None``: the rule that forbids a move, from the seat's view only."""
    decision_note: Any = None
    """``(view) -> str | None``: a few lines on the decision in front of the seat."""
    render_picture: Any = None
    """``(state, viewer) -> uint8[H, W, 3]``, or None: the game has no picture."""
    seat_field: str = "seat"
    """The view's attribute that holds its seat."""
    view_to_dict: Any = None
    """``(view) -> dict``; default ``view.to_dict()``."""
    public_setup: Any = None
    """``(view) -> dict | None``: new_game's public map (never a unit); None: the game has none."""
    read_setup: Any = None
    """``(setup) -> object``: new_game's public map read once a game (default: the dict as it is)."""
    view_from_dict: Any = None
    """``(d, read setup, rules) -> view``: the inverse of view_to_dict, for an agent served as an engine."""
    encode_observation: Any = None
    """``(view) -> ndarray``: the env's observation from a view, for an agent served as an engine."""
    prepare: Any = None
    """``() -> None``: one-off work (tables) done before a clock runs."""
    resample_hidden: Any = None
    """``(state, seat: int, rng: numpy.random.Generator) -> state``: another full engine state that ``seat`` cannot
    tell from ``state`` (its information state, the view, is the same), with everything the seat may not know
    redrawn from ``rng``: the other hand, the deck order, the future chance (the state's random generator
    reseeded), hidden units' positions (targeted: preferring the hexes the seat could move to, fire at or see
    next), undisclosed orders. It must not mutate ``state``. The information-state harness
    (tests/hidden/test_infostate.py) checks with it that everything a seat is given - observation, mask, view,
    text, picture, setup - is a function of that seat's information state alone. None: not written yet."""
    agents: Mapping[str, AgentEntry] = field(default_factory=dict)
    page: str | None = None
    """The web page's module for this game, a file in ``cardwar/serve/static/`` (None: no page)."""
    extra: Mapping[str, Any] = field(default_factory=dict)

    # ------------------------------------------------------------ hooks, resolved
    def hook(self, name: str) -> Any:
        """The hook ``name`` resolved (imported on first use; cached)."""
        cache = _CACHE.setdefault(id(self), {})
        if name not in cache:
            cache[name] = resolve(getattr(self, name))
        return cache[name]

    @property
    def has_scenarios(self) -> bool:
        return self.default_scenario is not None

    def actions(self) -> int:
        """The size of the action space (the mask's length)."""
        return int(self.hook("num_actions"))

    def action_spaces(self) -> tuple[str, ...]:
        """The action spaces its env comes in: ``moves`` (the ``env`` hook) first, then the variants that
        ``extra["action_spaces"]`` names (naval's ``steps``: naval-v1, a move made in steps)."""
        return ("moves", *self.extra.get("action_spaces", {}))

    def make_env(self, scenario: Any = None, rules: dict | None = None, actions: str = "moves") -> Any:
        """The game's raw AEC env, not yet reset, in the action space ``actions`` (:meth:`action_spaces`);
        ValueError for a scenario given to a game without any, or an action space it does not have."""
        if actions == "moves":
            make = self.hook("env")
        elif actions in self.extra.get("action_spaces", {}):
            make = resolve(self.extra["action_spaces"][actions])
        else:
            raise ValueError(f"actions {actions!r}: the {self.name} game has {', '.join(self.action_spaces())}")
        if not self.has_scenarios:
            if scenario is not None:
                raise ValueError(f"the {self.name} game has no scenarios; leave the scenario out")
            return make(rules=rules)
        return make(scenario=scenario or self.default_scenario, rules=rules)

    def scenarios(self) -> list[str]:
        """The shipped scenario names ([] for a game without scenarios)."""
        return list(self.hook("scenario_names")()) if self.scenario_names is not None else []

    def rules_from_dict(self, d: dict | None) -> Any:
        return self.hook("rules").from_dict(d)

    def default_rules(self) -> dict[str, Any]:
        return self.hook("rules")().to_dict()

    def to_string(self, action: int) -> str:
        return self.hook("action_to_string")(int(action))

    def parse(self, text: str) -> int:
        """The action id of a move in notation; a ValueError subclass if it is none."""
        return int(self.hook("string_to_action")(text))

    def seen(self, before: Any, action: int, after: Any, viewer: int) -> str | None:
        if self.seen_notation is None:
            return self.to_string(action)
        return self.hook("seen_notation")(before, action, after, viewer)

    def snapshot(self, state: Any) -> Any:
        """``before`` for the notation hooks: the game's ``before_move`` hook, else a clone of ``state``."""
        return state.clone() if self.before_move is None else self.hook("before_move")(state)

    def seat_of(self, view: Any) -> int:
        return int(getattr(view, self.seat_field))

    def view_dict(self, view: Any) -> dict[str, Any]:
        return view.to_dict() if self.view_to_dict is None else self.hook("view_to_dict")(view)

    def setup_of(self, view: Any) -> dict | None:
        return None if self.public_setup is None else self.hook("public_setup")(view)

    def read(self, setup: Any) -> Any:
        return setup if self.read_setup is None else self.hook("read_setup")(setup)

    def resample(self, state: Any, seat: int, rng: Any) -> Any:
        """The ``resample_hidden`` hook: a state ``seat`` cannot tell from ``state``, its secrets redrawn from
        ``rng`` (a ``numpy.random.Generator``); NotImplementedError if the game has no such hook."""
        if self.resample_hidden is None:
            raise NotImplementedError(f"the {self.name} game has no resample_hidden hook")
        return self.hook("resample_hidden")(state, seat, rng)

    def warm(self) -> None:
        if self.prepare is not None:
            self.hook("prepare")()

    def agent_names(self) -> list[str]:
        return sorted(self.agents)


_CACHE: dict[int, dict[str, Any]] = {}
_REGISTRY: dict[str, Game] = {}
_LOCK = threading.Lock()


def register(game: Game) -> Game:
    """Add ``game`` (replacing one of the same name); returns it."""
    with _LOCK:
        old = _REGISTRY.get(game.name)
        if old is not None:
            _CACHE.pop(id(old), None)
        _REGISTRY[game.name] = game
    return game


def unregister(name: str) -> None:
    """Remove a plug-in (tests)."""
    with _LOCK:
        old = _REGISTRY.pop(name, None)
        if old is not None:
            _CACHE.pop(id(old), None)


def names() -> tuple[str, ...]:
    """The registered games, in the order they were registered."""
    return tuple(_REGISTRY)


def get(name: Any) -> Game:
    """The game ``name``; :class:`UnknownGame` (one line, the closest name, the list) otherwise. An entry is
    returned as it is, so a layer that resolved the name once passes the entry on to any that takes a name."""
    if isinstance(name, Game):
        return name
    game = _REGISTRY.get(name) if isinstance(name, str) else None
    if game is None:
        close = difflib.get_close_matches(str(name), list(_REGISTRY), n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise UnknownGame(f"unknown game {name!r}{hint}; games: {', '.join(_REGISTRY)}")
    return game


def known(name: Any) -> bool:
    return isinstance(name, str) and name in _REGISTRY


# ---------------------------------------------------------------------------- the built-in games
_MCTS = "cardwar.agents:mcts_options"
_PPO = "cardwar.agents:PPO_OPTIONS"
RLLIB_AGENT = AgentEntry("cardwar.agents.rllib_agent:make_rllib_agent", "cardwar.agents.rllib_agent:OPTIONS",
                         takes_game=True)
"""``rllib:RUN``: a policy of ``cardwar train GAME --backend rllib``, for any game (a plug-in may list it too)."""


def level_agent(game: str) -> AgentEntry:
    """``level:elo=N``: an opponent at a chosen strength on ``game``'s ladder (:mod:`cardwar.agents.levels`;
    the ``elo`` range is read from the game's calibration table, ``agents/level_tables/GAME.json``)."""
    return AgentEntry("cardwar.agents.levels:make_level", f"cardwar.agents.levels:OPTIONS.{game}", takes_game=True)


def _standard_agents(game: str, heuristic: str, heuristic_options: Any, search: str,
                     search_options: Any) -> dict[str, AgentEntry]:
    return {
        "random": AgentEntry("cardwar.agents:RandomAgent", (), takes_game=True),
        "heuristic": AgentEntry(heuristic, heuristic_options),
        "mcts": AgentEntry(search, search_options),
        "ppo": AgentEntry("cardwar.agents:make_ppo", _PPO, takes_game=True),
        "rllib": RLLIB_AGENT,
        "level": level_agent(game),
    }


def _search_hooks(module: str, state_from_view: bool = True, max_game_length: bool = True) -> dict[str, str]:
    """``extra`` hooks, in a game's search module, for searches outside cardwar's agents (the OpenSpiel bridge):

    - ``state_from_view``: ``(observation, view, rng) -> engine state``: a full state built from the seat's
      information view alone (unseen cards dealt at random, the dice from ``rng``), at the decision in hand, so
      its legal moves are the seat's mask. A game without it has no search bot that starts from a view.
    - ``evaluate``: ``(engine state, seat) -> float`` in [-1, 1]: the search's evaluation of an unfinished game.
    - ``max_game_length``: ``(engine state) -> int``: an upper bound on the decisions of a game of that scenario
      and rules (OpenSpiel's ``max_game_length``).
    """
    names = ["evaluate"] + ["state_from_view"] * state_from_view + ["max_game_length"] * max_game_length
    return {name: f"{module}:{name}" for name in names}


register(Game(
    name="naval", title="Hit the Deck! (naval)", seats=("captain_a", "captain_b"),
    summary="two captains on a 3x3 sea grid; ships are playing cards, sea battles are poker hands",
    env="cardwar.envs.naval_v0:raw_env", num_actions="cardwar.envs.naval.actions:NUM_ACTIONS",
    action_to_string="cardwar.envs.naval:action_to_string", string_to_action="cardwar.envs.naval:string_to_action",
    rules="cardwar.envs.naval.config:NavalConfig", narrate="cardwar.envs.naval.render:narrate",
    render_text="cardwar.envs.naval.render:render_state",
    seen_notation="cardwar.envs.naval.codec:seen_notation",
    why_illegal="cardwar.agents.naval_explain:why_illegal", decision_note="cardwar.agents.naval_explain:decision_note",
    seat_field="seat", view_from_dict="cardwar.envs.naval.codec:view_from_message",
    encode_observation="cardwar.envs.naval.observation:encode_observation",
    prepare="cardwar.envs.naval.hands:prepare_tables", resample_hidden="cardwar.envs.naval.infostate:resample_hidden",
    agents=_standard_agents("naval", "cardwar.agents.naval_heuristic:NavalHeuristic", "cardwar.agents:NAVAL_HEURISTIC_OPTIONS",
                            "cardwar.agents.naval_search:NavalSearch", "cardwar.agents:NAVAL_MCTS_OPTIONS"),
    page="naval", extra={"engine_bench_setup": {}, "play_style": "cardwar.envs.naval.play_style:style",
                        "move_steps": "cardwar.envs.naval.page:move_steps", "moves_per_game": 25,
                        "action_spaces": {"steps": "cardwar.envs.naval_v1:raw_env"},
                        **_search_hooks("cardwar.agents.naval_search")}))

register(Game(
    name="hexwar", title="The hex WW2 game (hexwar)", seats=("blue", "red"),
    summary="One-Hour-Wargames on hexes; playing cards order the activations, a D3 decides combat",
    env="cardwar.envs.hexwar_v0:raw_env", num_actions="cardwar.envs.hexwar.actions:NUM_ACTIONS",
    action_to_string="cardwar.envs.hexwar:action_to_string", string_to_action="cardwar.envs.hexwar:string_to_action",
    rules="cardwar.envs.hexwar.config:HexConfig", narrate="cardwar.envs.hexwar.text:narrate",
    render_text="cardwar.envs.hexwar.text:render_state", render_picture="cardwar.envs.hexwar.picture:render_rgb",
    default_scenario="meeting_engagement", scenario_names="cardwar.envs.hexwar.scenario:available_scenarios",
    random_scenarios=("random", "random:train", "random:test"),
    scenario_from_data="cardwar.envs.hexwar.codec:scenario_from_record",
    scenario_data="cardwar.envs.hexwar.codec:scenario_to_record",
    why_illegal="cardwar.agents.hexwar_explain:why_illegal", decision_note="cardwar.agents.hexwar_explain:decision_note",
    seat_field="side", public_setup="cardwar.envs.hexwar.codec:public_setup",
    read_setup="cardwar.envs.hexwar.codec:read_setup",
    view_from_dict="cardwar.envs.hexwar.codec:view_from_message",
    encode_observation="cardwar.envs.hexwar.codec:encode_view",
    resample_hidden="cardwar.envs.hexwar.infostate:resample_hidden",
    agents=_standard_agents("hexwar", "cardwar.agents.hexwar_heuristic:HexHeuristic", (),
                            "cardwar.agents.hexwar_search:HexSearch", "cardwar.agents:HEX_MCTS_OPTIONS"),
    page="hexwar", extra={"engine_bench_setup": {"scenario": "random", "rules": {"hidden_units": True}},
                        "play_style": "cardwar.envs.hexwar.play_style:style", "rllib_network": "hex",
                        "move_steps": "cardwar.envs.hexwar.page:move_steps", "moves_per_game": 64,
                        "page_map": "cardwar.envs.hexwar.page:page_map",
                        **_search_hooks("cardwar.agents.hexwar_search")}))

register(Game(
    name="skirmish", title="The squad skirmish (skirmish)", seats=("player_0", "player_1"),
    summary="Hit the Deck! v1.5 figures on hexes: skills tested by card draws, orders declared hidden",
    env="cardwar.envs.skirmish_v0:raw_env", num_actions="cardwar.envs.skirmish.actions:N_ACTIONS",
    action_to_string="cardwar.envs.skirmish.notation:action_to_string",
    string_to_action="cardwar.envs.skirmish.notation:string_to_action",
    rules="cardwar.envs.skirmish.rules:SkirmishRules", narrate="cardwar.envs.skirmish.notation:narrate",
    render_text="cardwar.envs.skirmish.text:render_text", render_picture="cardwar.envs.skirmish.picture:render_rgb",
    default_scenario="ww2_squads", scenario_names="cardwar.envs.skirmish.scenario:scenario_names",
    random_scenarios=("random", "random:train", "random:test"),
    scenario_from_data="cardwar.envs.skirmish.codec:scenario_from_record",
    scenario_data="cardwar.envs.skirmish.codec:scenario_to_record",
    seen_notation="cardwar.envs.skirmish.notation:seen_notation",
    before_move="cardwar.envs.skirmish.notation:before_move",
    why_illegal="cardwar.envs.skirmish.explain:why_illegal",
    decision_note="cardwar.envs.skirmish.explain:decision_note",
    seat_field="seat", public_setup="cardwar.envs.skirmish.codec:public_setup",
    read_setup="cardwar.envs.skirmish.codec:read_setup",
    view_from_dict="cardwar.envs.skirmish.codec:view_from_message",
    encode_observation="cardwar.envs.skirmish.codec:encode_view",
    resample_hidden="cardwar.envs.skirmish.infostate:resample_hidden",
    prepare="cardwar.envs.skirmish.state:prepare_tables",
    agents=_standard_agents("skirmish", "cardwar.agents.skirmish_heuristic:SkirmishHeuristic",
                            "cardwar.agents.skirmish_heuristic:OPTIONS",
                            "cardwar.agents.skirmish_search:SkirmishSearch", "cardwar.agents.skirmish_search:OPTIONS"),
    page="skirmish", extra={"engine_bench_setup": {"scenario": "duel"},
                          "play_style": "cardwar.envs.skirmish.play_style:style",
                          "move_steps": "cardwar.envs.skirmish.page:move_steps", "moves_per_game": 150,
                          **_search_hooks("cardwar.agents.skirmish_search", state_from_view=False,
                                         max_game_length=False)}))


register(Game(
    name="tankattack", title="Tank Attack (the WW1 trench game)", seats=("defender", "attacker"),
    summary="HitT Tank Attack: tanks, Sturmtruppe, trenches, wire, barrages and gas on a square grid; dice decide",
    env="cardwar.envs.tankattack_v0:raw_env", num_actions="cardwar.envs.tankattack.actions:NUM_ACTIONS",
    action_to_string="cardwar.envs.tankattack.actions:action_to_string",
    string_to_action="cardwar.envs.tankattack.actions:string_to_action",
    rules="cardwar.envs.tankattack.rules:TankAttackRules", narrate="cardwar.envs.tankattack.codec:narrate",
    before_move="cardwar.envs.tankattack.codec:before_move",
    render_text="cardwar.envs.tankattack.text:render_state",
    render_picture="cardwar.envs.tankattack.picture:render_rgb",
    default_scenario="cambrai", scenario_names="cardwar.envs.tankattack.scenario:available_scenarios",
    random_scenarios=("random", "random:train", "random:test"),
    scenario_from_data="cardwar.envs.tankattack.codec:scenario_from_record",
    scenario_data="cardwar.envs.tankattack.codec:scenario_to_record",
    seat_field="seat", view_to_dict="cardwar.envs.tankattack.codec:view_to_dict",
    view_from_dict="cardwar.envs.tankattack.codec:view_from_message",
    public_setup="cardwar.envs.tankattack.codec:public_setup",
    encode_observation="cardwar.envs.tankattack.codec:encode_view",
    resample_hidden="cardwar.envs.tankattack.infostate:resample_hidden",
    why_illegal="cardwar.envs.tankattack.explain:why_illegal",
    decision_note="cardwar.envs.tankattack.explain:decision_note",
    agents={"random": AgentEntry("cardwar.agents:RandomAgent", (), takes_game=True), "rllib": RLLIB_AGENT,
            "level": level_agent("tankattack"),
            "heuristic": AgentEntry("cardwar.agents.tankattack_heuristic:TankHeuristic", ()),
            "ppo": AgentEntry("cardwar.agents:make_ppo", _PPO, takes_game=True),
            "mcts": AgentEntry("cardwar.agents.tankattack_search:TankSearch", "cardwar.agents.tankattack_search:OPTIONS",
                               summary="Monte Carlo tree search with the dice as chance nodes (nothing else is "
                                       "hidden)")},
    page="tankattack",
    extra={"engine_bench_setup": {"scenario": "trench_raid"}, "explicit_chance": "cardwar.envs.tankattack.chance",
           "perfect_information": True, "move_steps": "cardwar.envs.tankattack.page:move_steps",
           "page_map": "cardwar.envs.tankattack.page:page_map",
           **_search_hooks("cardwar.agents.tankattack_search", max_game_length=False)}))

# ---------------------------------------------------------------------------- installed plug-ins
ENTRY_POINT_GROUP = "cardwar.games"
"""A package that ships a game declares ``[project.entry-points."cardwar.games"] mygame = "mypkg.game:GAME"``;
the :class:`Game` it names is registered when this module is imported (every ``cardwar`` command, every
engine or worker process)."""


def _load_installed() -> None:
    import warnings
    from importlib.metadata import entry_points

    for ep in entry_points(group=ENTRY_POINT_GROUP):
        try:
            game = ep.load()
            register(game() if callable(game) and not isinstance(game, Game) else game)
        except Exception as err:  # noqa: BLE001 - a broken plug-in must not stop the shipped games
            warnings.warn(f"cardwar: the game plug-in {ep.name!r} ({ep.value}) did not load: {err}", stacklevel=2)


_load_installed()
