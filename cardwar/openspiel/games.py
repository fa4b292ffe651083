"""Both games as OpenSpiel Python games: ``python_cardwar_naval`` and ``python_cardwar_hexwar``.

Three objects with one job each, as in OpenSpiel's ``kuhn_poker.py``: a :class:`CardwarGame`
(parameters, factory), a :class:`CardwarState` (wraps one rules-engine state: current player,
legal actions, apply, returns) and a :class:`ViewObserver` (a seat's tensor and string, built
from that seat's information view with the PettingZoo env's own encoder, so the bridge's
observation tensor *is* the env's ``observation``).

Chance is **sampled-stochastic**: the engine deals and rolls from its own Generator, seeded from
the game's ``seed`` parameter, so no chance node is ever the current player. Each
:meth:`CardwarGame.new_initial_state` draws its game seed from one stream, exactly as the env's
``reset(seed=...)`` followed by unseeded resets does: the bridge with ``seed=s`` deals the env's
games of ``reset(seed=s)``.

The information state is the seat's information view: everything the engine lets that seat
know now. It is not a perfect-recall history (hexwar forgets where an enemy it no longer sees
was), so the information-state tensor and string equal the observation's.

:meth:`CardwarState.resample_from_infostate` is the determinization of cardwar's own ISMCTS
(``cardwar.agents.naval_search.determinize``, ``cardwar.agents.hexwar_search.determinize``): a
full state built from the seat's view alone, unseen cards dealt at random, dice from a fresh
Generator. Hexwar's hidden enemy units are left out of it, as in cardwar's search.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import pyspiel

from cardwar.agents import hexwar_search, naval_search
from cardwar.envs.hexwar import actions as hex_actions
from cardwar.envs.hexwar.observation import OBS_SHAPE as HEX_OBS_SHAPE, encode_observation as hex_encode
from cardwar.envs.hexwar.scenario import available_scenarios, load_scenario
from cardwar.envs.hexwar.state import HexState
from cardwar.envs.hexwar.view import HexView
from cardwar.envs.naval import actions as naval_actions
from cardwar.envs.naval.config import NavalConfig
from cardwar.envs.naval.observation import OBS_SIZE as NAVAL_OBS_SIZE, encode_observation as naval_encode
from cardwar.envs.naval.state import NavalState, Phase, max_game_steps

NAVAL = "python_cardwar_naval"
HEXWAR = "python_cardwar_hexwar"
GAME_NAMES = {"naval": NAVAL, "hexwar": HEXWAR}


@dataclass(frozen=True)
class GameBinding:
    """What the bridge needs of one cardwar game; everything else is shared."""

    name: str
    num_actions: int
    obs_shape: tuple[int, ...]
    new_engine: Callable[[dict[str, Any], int], Any]
    """``(params, seed)`` -> a new engine state."""
    encode: Callable[[Any, Any], np.ndarray]
    """``(view, engine)`` -> the env's observation tensor of the view's seat."""
    view_text: Callable[[Any], str]
    """A canonical string of a view (what the seat knows)."""
    determinize: Callable[[Any, np.random.Generator], Any]
    action_to_string: Callable[[int], str]
    evaluate: Callable[[Any, int], float]
    """cardwar's search evaluation of an unfinished engine state, in [-1, 1] for a seat."""
    max_length: Callable[[dict[str, Any]], int]


def _json(d: dict) -> str:
    return json.dumps(d, sort_keys=True, separators=(",", ":"), default=str)


# ------------------------------------------------------------------ naval
def _naval_determinize(view: Any, rng: np.random.Generator) -> NavalState:
    """cardwar's determinization, plus the one thing it leaves open: during the mulligans the second
    captain cannot see the first one's choice, which was made: a fair coin stands in for it."""
    s = naval_search.determinize(view, rng)
    if s.phase == Phase.MULLIGAN and view.seat == 1 and s.mulligan_choices[0] is None:
        s.mulligan_choices[0] = bool(rng.integers(2))
    return s


NAVAL_BINDING = GameBinding(
    name="naval", num_actions=naval_actions.NUM_ACTIONS, obs_shape=(NAVAL_OBS_SIZE,),
    new_engine=lambda params, seed: NavalState.new_game(NavalConfig(), seed),
    encode=lambda view, engine: naval_encode(view),
    view_text=lambda view: _json(view.to_dict()),
    determinize=_naval_determinize,
    action_to_string=naval_actions.action_to_string,
    evaluate=naval_search.evaluate,
    max_length=lambda params: max_game_steps(NavalConfig()),
)


# ------------------------------------------------------------------ hexwar
def _hex_determinize(view: HexView, rng: np.random.Generator) -> HexState:
    """cardwar's determinization, keeping the view's public unit ids so the seat's view of the sample
    names its units as the view did (cardwar's search renumbers them, which it need not keep)."""
    s = hexwar_search.determinize(view, rng)
    s.public_id = [u.uid for u in view.units]
    return s


def _hex_text(view: HexView) -> str:
    """The view as JSON, less the reports of past shots (they name units that may be gone; a sample
    cannot rebuild them, and what they changed is in the units, ``lost`` and ``holders``)."""
    d = view.to_dict()
    d.pop("last_shots")
    return _json(d)


@functools.lru_cache(maxsize=16)
def _load_scenario(name: str) -> Any:
    return load_scenario(name)


def _hex_scenario(params: dict[str, Any]) -> Any:
    """The shipped scenario the ``scenario`` parameter names (read once: scenarios are immutable)."""
    return _load_scenario(str(params["scenario"]))


HEXWAR_BINDING = GameBinding(
    name="hexwar", num_actions=hex_actions.NUM_ACTIONS, obs_shape=HEX_OBS_SHAPE,
    new_engine=lambda params, seed: HexState.new_game(_hex_scenario(params), None, seed),
    encode=lambda view, engine: hex_encode(view, engine.scenario),
    view_text=_hex_text,
    determinize=_hex_determinize,
    action_to_string=hex_actions.action_to_string,
    evaluate=hexwar_search.evaluate,
    # A turn deals one card per unit; an activation is one decision and perhaps the target's evasion.
    max_length=lambda params: 2 * len(_hex_scenario(params).units) * _hex_scenario(params).turns,
)


# ------------------------------------------------------------------ the OpenSpiel objects
class ViewObserver:
    """OpenSpiel's PyObserver over a seat's information view (the env's encoder, so tensors match it).

    A private observer (``private_info`` SINGLE_PLAYER) sees what the seat sees; a public one
    (NONE) sees what a spectator sees (no hand, no hidden unit).
    """

    def __init__(self, binding: GameBinding, iig_obs_type: Any, params: dict | None) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported; passed {params}")
        private = iig_obs_type is None or iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        if iig_obs_type is not None and iig_obs_type.private_info == pyspiel.PrivateInfoType.ALL_PLAYERS:
            raise ValueError("cardwar's bridge has no observer of all players' private information")
        self.binding, self.private = binding, private
        self.tensor = np.zeros(int(np.prod(binding.obs_shape)), np.float32)
        self.dict = {"observation": self.tensor.reshape(binding.obs_shape)}

    def _view(self, state: CardwarState, player: int) -> Any:
        return state.engine.information_view(player if self.private else None)

    def set_from(self, state: CardwarState, player: int) -> None:
        """Fill :attr:`tensor` with ``player``'s observation of ``state``."""
        self.tensor[:] = self.binding.encode(self._view(state, player), state.engine).reshape(-1)

    def string_from(self, state: CardwarState, player: int) -> str:
        """``player``'s observation of ``state`` as text (the view as canonical JSON)."""
        return self.binding.view_text(self._view(state, player))


class _EngineBox:
    """Holds a state's engine. OpenSpiel clones a Python state by making a new initial state and
    deep-copying its attributes: this box deep-copies as the engine's own fast ``clone``, and the
    new initial state it replaces never dealt (its engine is made on first use), so cloning draws
    nothing from the game's seed stream."""

    __slots__ = ("game", "engine")

    def __init__(self, game: CardwarGame, engine: Any = None) -> None:
        self.game, self.engine = game, engine

    def get(self) -> Any:
        """The engine, dealt now from the game's seed stream if it was not yet."""
        if self.engine is None:
            self.engine = self.game.new_engine()
        return self.engine

    def __deepcopy__(self, memo: dict) -> _EngineBox:
        return _EngineBox(self.game, self.get().clone())


class CardwarState(pyspiel.State):
    """One game in progress: a rules-engine state behind OpenSpiel's State API."""

    def __init__(self, game: CardwarGame, engine: Any = None) -> None:
        super().__init__(game)
        self._box = _EngineBox(game, engine)

    @property
    def engine(self) -> Any:
        """The rules-engine state (NavalState, HexState)."""
        return self._box.get()

    @property
    def binding(self) -> GameBinding:
        """The game's binding (encoder, determinization, evaluation)."""
        return self._box.game.binding

    def current_player(self) -> int:
        """The seat to move, or TERMINAL (chance is sampled inside the engine: never CHANCE)."""
        return pyspiel.PlayerId.TERMINAL if self.engine.is_terminal() else int(self.engine.current_player)

    def _legal_actions(self, player: int) -> list[int]:
        """The env's action ids, ascending (the engine's ``legal_actions``)."""
        if player != self.current_player():
            return []
        return list(self.engine.legal_actions())

    def _apply_action(self, action: int) -> None:
        self.engine.apply_action(int(action), validate=True)

    def _action_to_string(self, player: int, action: int) -> str:
        return self.binding.action_to_string(int(action))

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        return bool(self.engine.is_terminal())

    def returns(self) -> list[float]:
        """+1 / -1 to the winner / loser, 0 each for a draw or an unfinished game."""
        return [float(r) for r in self.engine.returns()]

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> CardwarState:
        """A full state consistent with what ``player_id`` knows: its view, determinized.

        Built from the seat's information view only (never from the hidden part of this state),
        with a Generator seeded from ``probability_sampler`` (a callable giving floats in [0, 1)).
        """
        seed = int(probability_sampler() * 2**53) ^ (int(probability_sampler() * 2**53) << 11)
        rng = np.random.default_rng(seed)
        view = self.engine.information_view(player_id)
        return CardwarState(self._box.game, self.binding.determinize(view, rng))

    def __str__(self) -> str:
        """Debug text: the spectator's view (nothing hidden is printed)."""
        return self.binding.view_text(self.engine.information_view(None))


class CardwarGame(pyspiel.Game):
    """A cardwar game for OpenSpiel: parameters and a factory of states and observers."""

    binding: GameBinding = NAVAL_BINDING
    game_type: Any = None

    def __init__(self, params: dict | None = None) -> None:
        params = dict(params or {})
        full = {**self.game_type.parameter_specification, **params}
        info = pyspiel.GameInfo(
            num_distinct_actions=self.binding.num_actions, max_chance_outcomes=0, num_players=2,
            min_utility=-1.0, max_utility=1.0, utility_sum=0.0, max_game_length=self.binding.max_length(full))
        super().__init__(self.game_type, info, params)
        self.params = full
        seed = int(full["seed"])
        self._seeder = np.random.default_rng(None if seed < 0 else seed)

    def new_initial_state(self) -> CardwarState:
        """A new game, its deal drawn from this game's seed stream (as the env's resets draw theirs)
        when the state is first used."""
        return CardwarState(self)

    def new_engine(self) -> Any:
        """A new engine state with the next game seed of this game's stream."""
        return self.binding.new_engine(self.params, int(self._seeder.integers(2**63)))

    def state_from_engine(self, engine: Any) -> CardwarState:
        """Wrap an engine state (e.g. a determinization of a seat's view) as an OpenSpiel state."""
        return CardwarState(self, engine)

    def make_py_observer(self, iig_obs_type: Any = None, params: dict | None = None) -> ViewObserver:
        """The observer of a seat's view (see :class:`ViewObserver`)."""
        return ViewObserver(self.binding, iig_obs_type, params)


def _game_type(short_name: str, long_name: str, parameters: dict[str, Any]) -> Any:
    return pyspiel.GameType(
        short_name=short_name, long_name=long_name,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=2, min_num_players=2,
        provides_information_state_string=True, provides_information_state_tensor=True,
        provides_observation_string=True, provides_observation_tensor=True,
        parameter_specification=parameters)


class NavalGame(CardwarGame):
    """``python_cardwar_naval``: Hit the Deck! with the default rules. Parameter: ``seed`` (-1: fresh)."""

    binding = NAVAL_BINDING
    game_type = _game_type(NAVAL, "cardwar: Hit the Deck! (naval)", {"seed": -1})


class HexwarGame(CardwarGame):
    """``python_cardwar_hexwar``: the hex game on a shipped scenario. Parameters: ``seed``, ``scenario``."""

    binding = HEXWAR_BINDING
    game_type = _game_type(HEXWAR, "cardwar: hex WW2 card activation (hexwar)",
                           {"seed": -1, "scenario": "meeting_engagement"})

    def __init__(self, params: dict | None = None) -> None:
        scenario = str((params or {}).get("scenario", "meeting_engagement"))
        if scenario not in available_scenarios():
            raise ValueError(f"unknown scenario {scenario!r}; the bridge plays the shipped scenarios: "
                             f"{', '.join(available_scenarios())}")
        super().__init__(params)


def register() -> None:
    """Register both games with OpenSpiel (idempotent; importing :mod:`cardwar.openspiel` does it)."""
    known = set(pyspiel.registered_names())
    for cls in (NavalGame, HexwarGame):
        if cls.game_type.short_name not in known:
            pyspiel.register_game(cls.game_type, cls)


def load(game: str, **params: Any) -> CardwarGame:
    """The bridge game of a cardwar game name (``naval``, ``hexwar``) with OpenSpiel parameters."""
    register()
    return pyspiel.load_game(GAME_NAMES[game], params)


__all__ = ["GAME_NAMES", "HEXWAR", "NAVAL", "CardwarGame", "CardwarState", "HexwarGame", "NavalGame",
           "ViewObserver", "load", "register"]
