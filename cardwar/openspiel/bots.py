"""OpenSpiel bots as cardwar agents: ``openspiel:ismcts,iterations=200`` and ``openspiel:random``.

An agent gets only its seat's observation and information view, so the bot never sees the
true state: each move, the agent builds an OpenSpiel state from the view (a determinization,
:func:`cardwar.openspiel.games.CardwarState.resample_from_infostate`'s own method) and asks the
bot to move there. OpenSpiel's ISMCTSBot then samples its worlds from that state with
``resample_from_infostate``: every sample is again drawn from the seat's view alone.

Spec strings: ``openspiel:BOT`` then ``KEY=VALUE`` options, comma-separated, typed and
range-checked by cardwar's one option parser (:mod:`cardwar.agents.spec`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts
from open_spiel.python.bots.uniform_random import UniformRandomBot

from cardwar.agents.spec import AgentSpecError, Option, coerce_options, parse_spec
from cardwar.openspiel.games import CardwarGame, CardwarState, load

PREFIX = "openspiel:"

BOT_OPTIONS: dict[str, tuple[Option, ...]] = {
    "ismcts": (
        Option("iterations", int, 100, "simulations per move (each from a fresh sample of the seat's view)",
               minimum=1, maximum=10**6),
        Option("uct_c", float, 2.0, "UCT exploration constant", minimum=0, maximum=100),
        Option("rollout_depth", int, 16, "random moves per play-out before cardwar's evaluation "
               "(0: play out to the end, OpenSpiel's RandomRolloutEvaluator)", minimum=0, maximum=10_000),
        Option("rollouts", int, 1, "play-outs per new leaf", minimum=1, maximum=1000),
        Option("world_samples", int, -1, "distinct samples of the hidden information per move (-1: no limit)",
               minimum=-1, maximum=10**6),
    ),
    "random": (),
}
SUMMARIES = {"ismcts": "OpenSpiel's ISMCTSBot over the bridge, from samples of the seat's view",
             "random": "OpenSpiel's UniformRandomBot over the bridge"}


def is_openspiel_spec(spec: str) -> bool:
    """``openspiel:BOT...`` names an OpenSpiel bot."""
    return isinstance(spec, str) and spec.strip().lower().startswith(PREFIX)


def check_openspiel_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``(bot, typed options)`` of an ``openspiel:`` spec; one-line :class:`AgentSpecError` if wrong."""
    rest = spec.strip()[len(PREFIX):]
    bot, _, options = rest.partition(",")
    bot = bot.strip().lower()
    if bot not in BOT_OPTIONS:
        raise AgentSpecError(f"unknown OpenSpiel bot {bot or '(none)'!r} in {spec!r}; bots: "
                             f"{', '.join(f'openspiel:{b}' for b in BOT_OPTIONS)}")
    given = parse_spec(f"openspiel:{options}")[1] if options.strip() else {}
    return bot, coerce_options(f"openspiel:{bot}", BOT_OPTIONS[bot], given)


class CardwarEvaluator(mcts.Evaluator):
    """ISMCTS leaf values: a short random play-out, then cardwar's evaluation of the position.

    OpenSpiel's own RandomRolloutEvaluator plays to the end: a hexwar play-out is ~150 moves.
    """

    def __init__(self, rollout_depth: int, rollouts: int, rng: np.random.RandomState) -> None:
        self.depth, self.rollouts, self.rng = rollout_depth, rollouts, rng

    def evaluate(self, state: CardwarState) -> np.ndarray:
        """Mean value of ``rollouts`` play-outs for both seats."""
        total = np.zeros(2)
        for _ in range(self.rollouts):
            s = state.clone()
            for _ in range(self.depth):
                if s.is_terminal():
                    break
                legal = s.legal_actions()
                s.apply_action(legal[self.rng.randint(len(legal))])
            if s.is_terminal():
                total += s.returns()
            else:
                v = s.binding.evaluate(s.engine, 0)
                total += (v, -v)
        return total / self.rollouts

    def prior(self, state: CardwarState) -> list[tuple[int, float]]:
        """Uniform over the legal actions."""
        legal = state.legal_actions()
        return [(a, 1.0 / len(legal)) for a in legal]


def make_bot(name: str, game: CardwarGame, player: int, rng: np.random.RandomState, **options: Any) -> Any:
    """The OpenSpiel bot ``name`` for ``game`` (options as :data:`BOT_OPTIONS` declares)."""
    if name == "random":
        return UniformRandomBot(player, rng)
    depth = options.get("rollout_depth", 16)
    evaluator = (mcts.RandomRolloutEvaluator(options.get("rollouts", 1), rng) if depth == 0
                 else CardwarEvaluator(depth, options.get("rollouts", 1), rng))
    bot = ismcts.ISMCTSBot(game, evaluator, options.get("uct_c", 2.0), options.get("iterations", 100),
                           max_world_samples=options.get("world_samples", -1), random_state=rng,
                           allow_inconsistent_action_sets=True)
    # The bot's default sampler is seeded apart from ``rng``; this one keeps a seeded agent reproducible.
    sampler = np.random.default_rng(rng.randint(2**31)).random
    bot.set_resampler(lambda state, player: state.resample_from_infostate(player, sampler))
    return bot


class OpenSpielAgent:
    """A cardwar agent that plays one seat with an OpenSpiel bot, from the seat's view only."""

    def __init__(self, spec: str, game: str, seed: int | None = None) -> None:
        bot, options = check_openspiel_spec(spec)
        self.name = f"openspiel:{bot}"
        self.bot_name, self.options = bot, options
        self.game = load(game)
        self.rng = np.random.default_rng(seed)
        self.bot_rng = np.random.RandomState(int(self.rng.integers(2**31)))
        self.bots: dict[int, Any] = {}

    def root(self, view: Any) -> CardwarState:
        """An OpenSpiel state built from ``view`` alone (the seat's hidden information sampled)."""
        engine = self.game.binding.determinize(view, np.random.default_rng(int(self.rng.integers(2**63))))
        return self.game.state_from_engine(engine)

    def act(self, observation: dict[str, np.ndarray], view: Any) -> int:
        """The bot's move in a state rebuilt from the seat's view; always one the mask allows."""
        legal = np.flatnonzero(observation["action_mask"]).tolist()
        if len(legal) == 1:
            return int(legal[0])
        state = self.root(view)
        player = state.current_player()
        if state.legal_actions() != legal:
            raise RuntimeError(f"{self.name}: the state rebuilt from the view has other legal moves than the mask")
        bot = self.bots.get(player)
        if bot is None:
            bot = self.bots[player] = make_bot(self.bot_name, self.game, player, self.bot_rng, **self.options)
        action = int(bot.step(state))
        if action not in legal or action == pyspiel.INVALID_ACTION:
            raise RuntimeError(f"{self.name} chose {action}, which the mask does not allow")
        return action


def make_agent(spec: str, game: str, seed: int | None = None) -> OpenSpielAgent:
    """The agent an ``openspiel:`` spec names (needs the ``openspiel`` extra)."""
    return OpenSpielAgent(spec, game, seed=seed)


__all__ = ["BOT_OPTIONS", "PREFIX", "CardwarEvaluator", "OpenSpielAgent", "check_openspiel_spec",
           "is_openspiel_spec", "make_agent", "make_bot"]
