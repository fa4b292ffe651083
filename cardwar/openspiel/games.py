"""Every registered cardwar game as an OpenSpiel Python game: ``python_cardwar_<name>``.

Three objects with one job each, as in OpenSpiel's ``kuhn_poker.py``: a :class:`CardwarGame`
(parameters, factory), a :class:`CardwarState` (wraps one rules-engine state: current player,
legal actions, apply, returns) and a :class:`ViewObserver` (a seat's tensor and string, built
from that seat's information view with the registry's ``encode_observation``, so the bridge's
observation tensor *is* the env's ``observation``).

The bridge names no game: it asks the registry (:mod:`cardwar.games`) for the env (which deals each
game), the action count, the notation, the view's dict, the observation encoder and
``resample_hidden``; the search hooks in a game's ``extra`` (``cardwar.games._search_hooks``: in each
game's search module) give the length bound. A game registered later is bridged by :func:`register`.

Parameters: ``seed`` (-1: fresh entropy), ``scenario`` (games with scenarios: a shipped one) and one
parameter per rule option, named and typed as the game's rules class has them (``hidden_units``,
``mulligan``, ...): ``python_cardwar_hexwar(scenario=hill_and_hedgerows,hidden_units=True)``.

Chance is **sampled-stochastic**: the engine deals and rolls from its own Generator. Each
:meth:`CardwarGame.new_initial_state` takes the next game of the registry env's own stream:
``reset(seed=s)`` for the first, unseeded resets after it, so the bridge with ``seed=s`` deals the
env's games of ``reset(seed=s)``. A game whose registry entry names an ``explicit_chance`` module in its
``extra`` (Tank Attack's dice, ``cardwar.envs.tankattack.chance``) is **explicit-stochastic** instead: after
a decision that rolls, the state is a chance node (``CHANCE``), one per die, whose outcomes (action ``k`` is
the face ``k + 1``) and probabilities are the module's, so OpenSpiel's own MCTS and AlphaZero search the
dice as chance. Such a module gives ``Step(state, action)`` (``needs_die``, ``with_die(face)``, ``after``),
``FACES``, ``FACE_PROBABILITY`` and ``chance_free(state)``. With ``perfect_information`` in ``extra`` too
(nothing hidden but the future, which chance nodes now carry) the game is a perfect-information game.

The information state is the seat's information view: everything the engine lets that seat
know now. It is not a perfect-recall history (hexwar forgets where an enemy it no longer sees
was), so the information-state tensor and string equal the observation's.

:meth:`CardwarState.resample_from_infostate` is the registry's ``resample_hidden``: a full state
the seat cannot tell from this one, everything it may not know (the other hand, the deck order,
future dice, hidden units' hexes, undisclosed orders) redrawn.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pyspiel

from cardwar import games as registry

PREFIX = "python_cardwar_"
GAME_NAMES: dict[str, str] = {}
"""cardwar game name -> OpenSpiel short name, for every bridged game (filled by :func:`register`)."""
NO_LENGTH_BOUND = 100_000
"""``max_game_length`` of a game whose registry entry gives no ``max_game_length`` hook (no proven bound)."""


def _json(d: dict) -> str:
    return json.dumps(d, sort_keys=True, separators=(",", ":"), default=str)


class ViewObserver:
    """OpenSpiel's PyObserver over a seat's information view (the registry's encoder, so tensors match the env).

    A private observer (``private_info`` SINGLE_PLAYER) sees what the seat sees; a public one
    (NONE) sees what a spectator sees (no hand, no hidden unit).
    """

    def __init__(self, game: CardwarGame, iig_obs_type: Any, params: dict | None) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported; passed {params}")
        private = iig_obs_type is None or iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        if iig_obs_type is not None and iig_obs_type.private_info == pyspiel.PrivateInfoType.ALL_PLAYERS:
            raise ValueError("cardwar's bridge has no observer of all players' private information")
        if not private and not game.spectator_tensor:
            raise ValueError(f"the {game.cardwar.name} game's encoder has no spectator's observation: no public observer")
        self.cardwar, self.private = game.cardwar, private
        self.tensor = np.zeros(int(np.prod(game.obs_shape)), np.float32)
        self.dict = {"observation": self.tensor.reshape(game.obs_shape)}

    def _view(self, state: CardwarState, player: int) -> Any:
        return state.engine.information_view(player if self.private else None)

    def set_from(self, state: CardwarState, player: int) -> None:
        """Fill :attr:`tensor` with ``player``'s observation of ``state``."""
        self.tensor[:] = np.asarray(self.cardwar.hook("encode_observation")(self._view(state, player))).reshape(-1)

    def string_from(self, state: CardwarState, player: int) -> str:
        """``player``'s observation of ``state`` as text (the view as canonical JSON)."""
        return _json(self.cardwar.view_dict(self._view(state, player)))


class _EngineBox:
    """Holds a state's engine. OpenSpiel clones a Python state by making a new initial state and
    deep-copying its attributes: this box deep-copies as the engine's own fast ``clone``, and the
    new initial state it replaces never dealt (its engine is made on first use), so cloning draws
    nothing from the game's seed stream."""

    __slots__ = ("game", "engine", "pending")

    def __init__(self, game: CardwarGame, engine: Any = None, pending: Any = None) -> None:
        self.game, self.engine = game, engine
        self.pending = pending
        """An explicit-chance game's decision whose dice are still being chosen (a ``Step``; never mutated,
        so clones share it)."""

    def get(self) -> Any:
        """The engine, dealt now from the game's seed stream if it was not yet."""
        if self.engine is None:
            self.engine = self.game.new_engine()
        return self.engine

    def __deepcopy__(self, memo: dict) -> _EngineBox:
        return _EngineBox(self.game, self.get().clone(), self.pending)


class CardwarState(pyspiel.State):
    """One game in progress: a rules-engine state behind OpenSpiel's State API."""

    def __init__(self, game: CardwarGame, engine: Any = None) -> None:
        super().__init__(game)
        self._box = _EngineBox(game, engine)

    @property
    def engine(self) -> Any:
        """The rules-engine state (NavalState, HexState, SkirmishState, ...)."""
        return self._box.get()

    @property
    def cardwar(self) -> registry.Game:
        """The registry entry of the game."""
        return self._box.game.cardwar

    def current_player(self) -> int:
        """The seat to move, CHANCE while an explicit-chance game's dice are chosen, or TERMINAL (a
        sampled-stochastic game's chance is inside the engine: never CHANCE)."""
        if self._box.pending is not None:
            return pyspiel.PlayerId.CHANCE
        return pyspiel.PlayerId.TERMINAL if self.engine.is_terminal() else int(self.engine.current_player)

    def _legal_actions(self, player: int) -> list[int]:
        """The env's action ids, ascending (the engine's ``legal_actions``); at a chance node its outcomes."""
        if player != self.current_player():
            return []
        if player == pyspiel.PlayerId.CHANCE:
            return list(range(len(self._box.game.chance.FACES)))
        return sorted(int(a) for a in self.engine.legal_actions())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """At a chance node: each face of the die (action ``k`` is ``FACES[k]``) with its probability."""
        chance = self._box.game.chance
        if self._box.pending is None:
            return []
        return [(k, float(chance.FACE_PROBABILITY)) for k in range(len(chance.FACES))]

    def _apply_action(self, action: int) -> None:
        chance, box = self._box.game.chance, self._box
        if chance is None:
            self.engine.apply_action(int(action), validate=True)
            return
        if box.pending is not None:
            step = box.pending.with_die(chance.FACES[int(action)])
        else:
            if int(action) not in self.engine.legal_actions():
                raise ValueError(f"{self.cardwar.to_string(int(action))} is not legal here")
            step = chance.Step(self.engine, int(action))
        if step.needs_die:
            box.pending = step
        else:
            box.engine, box.pending = step.after, None

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"die {self._box.game.chance.FACES[int(action)]}"
        return self.cardwar.to_string(int(action))

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        return self._box.pending is None and bool(self.engine.is_terminal())

    def returns(self) -> list[float]:
        """+1 / -1 to the winner / loser, 0 each for a draw or an unfinished game."""
        return [float(r) for r in self.engine.returns()]

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> CardwarState:
        """A full state ``player_id`` cannot tell from this one: the registry's ``resample_hidden``, everything
        the seat may not know redrawn from a Generator seeded from ``probability_sampler`` (a callable giving
        floats in [0, 1)). This state is not changed."""
        seed = int(probability_sampler() * 2**53) ^ (int(probability_sampler() * 2**53) << 11)
        rng = np.random.default_rng(seed)
        sample = CardwarState(self._box.game, self.cardwar.resample(self.engine, int(player_id), rng))
        sample._box.pending = self._box.pending
        return sample

    def __str__(self) -> str:
        """Debug text: the spectator's view (nothing hidden is printed)."""
        return _json(self.cardwar.view_dict(self.engine.information_view(None)))


class CardwarGame(pyspiel.Game):
    """A cardwar game for OpenSpiel: parameters and a factory of states and observers.

    One subclass per registered game is made by :func:`register` (OpenSpiel registers a class per name).
    """

    cardwar: registry.Game
    game_type: Any = None

    def __init__(self, params: dict | None = None) -> None:
        params = dict(params or {})
        full = {**self.game_type.parameter_specification, **params}
        g = self.cardwar
        scenario = str(full["scenario"]) if g.has_scenarios else None
        if scenario is not None and scenario not in g.scenarios():
            raise ValueError(f"unknown {g.name} scenario {scenario!r}; the bridge plays the shipped scenarios: "
                             f"{', '.join(g.scenarios())}")
        # OpenSpiel fills in every default: an option at the rules' default is left to the game, so a scenario
        # that sets its own rules (the skirmish's do) keeps them, as the env does with no rules given.
        rules = {k: full[k] for k, default in g.default_rules().items() if full[k] != default}
        g.rules_from_dict(rules)  # a ValueError naming the option for a value the rules do not take
        self.env = g.make_env(scenario, rules)
        probe = g.make_env(scenario, rules)
        probe.reset(seed=0)
        hook = g.extra.get("max_game_length")
        length = int(registry.resolve(hook)(probe.game)) if hook else NO_LENGTH_BOUND
        space = self.env.observation_space(self.env.possible_agents[0])["observation"]
        self.spectator_tensor = _encodes_spectators(g, probe.game)
        """Whether the game's encoder takes a spectator's view (seat None): the public observer needs it."""
        self.obs_shape = tuple(space.shape)
        self.chance = _explicit_chance(g)
        """The game's explicit-chance module (see the module docstring), or None: chance sampled inside."""
        info = pyspiel.GameInfo(
            num_distinct_actions=g.actions(),
            max_chance_outcomes=0 if self.chance is None else len(self.chance.FACES), num_players=len(g.seats),
            min_utility=-1.0, max_utility=1.0, utility_sum=0.0, max_game_length=length)
        super().__init__(self.game_type, info, params)
        self.params, self.scenario, self.rules = full, scenario, rules
        seed = int(full["seed"])
        self._next_seed: int | None = None if seed < 0 else seed

    def new_initial_state(self) -> CardwarState:
        """A new game, dealt from this game's seed stream (as the env's resets deal) when first used."""
        return CardwarState(self)

    def new_engine(self) -> Any:
        """The env's next game: ``reset(seed=s)`` the first time, unseeded resets after it."""
        self.env.reset(seed=self._next_seed)
        self._next_seed = None
        return self.env.game if self.chance is None else self.chance.chance_free(self.env.game)

    def state_from_engine(self, engine: Any) -> CardwarState:
        """Wrap an engine state (e.g. a determinization of a seat's view) as an OpenSpiel state."""
        return CardwarState(self, engine)

    def make_py_observer(self, iig_obs_type: Any = None, params: dict | None = None) -> ViewObserver:
        """The observer of a seat's view (see :class:`ViewObserver`)."""
        return ViewObserver(self, iig_obs_type, params)

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        """Pickled as its game string (``python_cardwar_tankattack(scenario=...,seed=...)``): OpenSpiel's
        AlphaZero sends the game to its actor processes (``multiprocessing``, spawn), where the class made by
        :func:`register` is not a module attribute. The copy is loaded afresh from those parameters, so its
        seed stream starts again at ``seed`` (a fixed seed deals each copy the same games; -1, fresh entropy)."""
        return _load_game_string, (str(self),)


def _load_game_string(text: str) -> CardwarGame:
    """A pickled bridge game (:meth:`CardwarGame.__reduce__`): register the games, then load its string."""
    register()
    return pyspiel.load_game(text)


def _explicit_chance(g: registry.Game) -> Any:
    ref = g.extra.get("explicit_chance")
    return None if ref is None else registry.resolve(ref)


def _encodes_spectators(g: registry.Game, engine: Any) -> bool:
    try:
        g.hook("encode_observation")(engine.information_view(None))
    except (TypeError, ValueError, KeyError, IndexError, AttributeError):
        return False
    return True


def _parameters(g: registry.Game) -> dict[str, Any]:
    """OpenSpiel parameters: ``seed``, ``scenario`` where the game has scenarios, and each rule option with
    its default (OpenSpiel parameters are bool, int, float or str, as the rule options are)."""
    params: dict[str, Any] = {"seed": -1}
    if g.has_scenarios:
        params["scenario"] = g.default_scenario
    for key, value in g.default_rules().items():
        if not isinstance(value, (bool, int, float, str)):
            raise TypeError(f"the {g.name} rule option {key} is a {type(value).__name__}: not an OpenSpiel parameter")
        params[key] = value
    return params


def _game_type(g: registry.Game) -> Any:
    explicit = g.extra.get("explicit_chance") is not None
    perfect = explicit and bool(g.extra.get("perfect_information"))
    return pyspiel.GameType(
        short_name=PREFIX + g.name, long_name=f"cardwar: {g.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC if explicit
        else pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC,
        information=pyspiel.GameType.Information.PERFECT_INFORMATION if perfect
        else pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=len(g.seats), min_num_players=len(g.seats),
        provides_information_state_string=True, provides_information_state_tensor=True,
        provides_observation_string=True, provides_observation_tensor=True,
        parameter_specification=_parameters(g))


def register() -> None:
    """Register every game of the registry with OpenSpiel that is not yet (``import cardwar.openspiel`` does it;
    call it again after registering a game)."""
    known = set(pyspiel.registered_names())
    for name in registry.names():
        g = registry.get(name)
        if g.resample_hidden is None:
            continue  # no way to sample what a seat does not know: no resample_from_infostate
        short = PREFIX + name
        GAME_NAMES[name] = short
        if short not in known:
            cls = type(f"CardwarGame_{name}", (CardwarGame,), {"cardwar": g, "game_type": _game_type(g),
                                                                "__doc__": f"``{short}``: {g.title}."})
            pyspiel.register_game(cls.game_type, cls)


def load(game: str, **params: Any) -> CardwarGame:
    """The bridge game of a cardwar game name (``naval``, ``hexwar``, ``skirmish``) with OpenSpiel parameters."""
    register()
    if game not in GAME_NAMES:
        raise registry.UnknownGame(f"the OpenSpiel bridge has no game {game!r}; it plays {', '.join(GAME_NAMES)}")
    return pyspiel.load_game(GAME_NAMES[game], params)


__all__ = ["GAME_NAMES", "NO_LENGTH_BOUND", "PREFIX", "CardwarGame", "CardwarState", "ViewObserver", "load",
           "register"]
