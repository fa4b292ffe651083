"""OpenSpiel bots and trained policies as cardwar agents: ``openspiel:ismcts,iterations=200``,
``openspiel:random`` and ``openspiel:policy=PATH`` (a policy trained in OpenSpiel, :mod:`cardwar.openspiel.train`).

An agent gets only its seat's observation and information view, so nothing here sees the true
state. ``ismcts`` builds an OpenSpiel state from the view each move (the registry's
``state_from_view`` hook, in the game's search module) and asks OpenSpiel's ISMCTSBot to move
there; the bot samples its worlds from that state with ``resample_from_infostate`` (the registry's
``resample_hidden``). ``random`` and ``policy`` read the observation and the mask only, so they
play every bridged game.

Spec strings: ``openspiel:BOT`` then ``KEY=VALUE`` options, comma-separated, typed and
range-checked by cardwar's one option parser (:mod:`cardwar.agents.spec`); the policy's file
comes first: ``openspiel:policy=runs/nfsp.pt,greedy=true``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts
from open_spiel.python.bots.uniform_random import UniformRandomBot

from cardwar import games as registry
from cardwar.agents.spec import AgentSpecError, Option, coerce_options, parse_spec
from cardwar.openspiel.games import GAME_NAMES, CardwarGame, CardwarState, load
from cardwar.openspiel.policy import PolicyFileError, SavedPolicy, read_policy

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
    "policy": (
        Option("greedy", bool, False, "play the policy's most likely legal move (default: sample the policy)"),
    ),
}
SUMMARIES = {"ismcts": "OpenSpiel's ISMCTSBot over the bridge, from samples of the seat's view",
             "random": "OpenSpiel's UniformRandomBot over the bridge",
             "policy": "a policy trained in OpenSpiel (NFSP's average policy; python -m cardwar.openspiel.train "
                       "makes one)"}
SPEC_FORMS = {"ismcts": "openspiel:ismcts", "random": "openspiel:random", "policy": "openspiel:policy=PATH"}


def is_openspiel_spec(spec: str) -> bool:
    """``openspiel:BOT...`` names an OpenSpiel bot."""
    return isinstance(spec, str) and spec.strip().lower().startswith(PREFIX)


def _split(spec: str) -> tuple[str, str, str]:
    """``(bot, its argument, the options text)``: ``openspiel:policy=PATH,greedy=true`` -> policy, PATH, greedy=true."""
    head, _, options = spec.strip()[len(PREFIX):].partition(",")
    bot, _, arg = head.partition("=")
    return bot.strip().lower(), arg.strip(), options


def playable(bot: str, game: str) -> bool:
    """Whether ``bot`` can play ``game``: ``ismcts`` needs the registry's ``state_from_view`` hook."""
    return game in GAME_NAMES and (bot != "ismcts" or "state_from_view" in registry.get(game).extra)


def check_openspiel_spec(spec: str, game: str | None = None) -> tuple[str, dict[str, Any]]:
    """``(bot, typed options)`` of an ``openspiel:`` spec (a policy's is read and checked against ``game``);
    one-line :class:`AgentSpecError` if wrong."""
    bot, arg, options = _split(spec)
    if bot not in BOT_OPTIONS:
        raise AgentSpecError(f"unknown OpenSpiel bot {bot or '(none)'!r} in {spec.strip()!r}; bots: "
                             f"{', '.join(SPEC_FORMS.values())}")
    if bot == "policy" and not arg:
        raise AgentSpecError(f"{spec.strip()!r}: name the policy's file: openspiel:policy=PATH")
    if bot != "policy" and arg:
        raise AgentSpecError(f"{spec.strip()!r}: openspiel:{bot} takes no '={arg}'; options go after a comma")
    if game is not None and not playable(bot, game):
        raise AgentSpecError(f"{spec.strip()!r}: openspiel:{bot} cannot play {game}: its registry entry gives no "
                             f"state_from_view hook to search from a view (openspiel:random and "
                             f"openspiel:policy=PATH play it)")
    given = parse_spec(f"openspiel:{options}")[1] if options.strip() else {}
    typed = {o.name: o.default for o in BOT_OPTIONS[bot]} | coerce_options(f"openspiel:{bot}", BOT_OPTIONS[bot], given)
    if bot == "policy":
        try:
            policy = read_policy(Path(arg).expanduser())
        except PolicyFileError as err:
            raise AgentSpecError(f"{spec.strip()!r}: {err}") from None
        if game is not None and policy.game != game:
            raise AgentSpecError(f"{spec.strip()!r}: the policy was trained on {policy.game}, not {game}")
        typed["policy"] = policy
    return bot, typed


class CardwarEvaluator(mcts.Evaluator):
    """ISMCTS leaf values: a short random play-out, then cardwar's evaluation of the position (the registry's
    ``evaluate`` hook). OpenSpiel's own RandomRolloutEvaluator plays to the end: a hexwar play-out is ~150 moves.
    """

    def __init__(self, rollout_depth: int, rollouts: int, rng: np.random.RandomState) -> None:
        self.depth, self.rollouts, self.rng = rollout_depth, rollouts, rng

    def evaluate(self, state: CardwarState) -> np.ndarray:
        """Mean value of ``rollouts`` play-outs for both seats."""
        total = np.zeros(2)
        value = registry.resolve(state.cardwar.extra["evaluate"])
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
                v = value(s.engine, 0)
                total += (v, -v)
        return total / self.rollouts

    def prior(self, state: CardwarState) -> list[tuple[int, float]]:
        """Uniform over the legal actions."""
        legal = state.legal_actions()
        return [(a, 1.0 / len(legal)) for a in legal]


def make_bot(name: str, game: CardwarGame, player: int, rng: np.random.RandomState, **options: Any) -> Any:
    """The OpenSpiel bot ``name`` (``ismcts``, ``random``) for ``game`` (options as :data:`BOT_OPTIONS` declares)."""
    if name == "random":
        return UniformRandomBot(player, rng)
    depth = options.get("rollout_depth", 16)
    if depth == 0 or "evaluate" not in game.cardwar.extra:
        evaluator: mcts.Evaluator = mcts.RandomRolloutEvaluator(options.get("rollouts", 1), rng)
    else:
        evaluator = CardwarEvaluator(depth, options.get("rollouts", 1), rng)
    bot = ismcts.ISMCTSBot(game, evaluator, options.get("uct_c", 2.0), options.get("iterations", 100),
                           max_world_samples=options.get("world_samples", -1), random_state=rng,
                           allow_inconsistent_action_sets=True)
    # The bot's default sampler is seeded apart from ``rng``; this one keeps a seeded agent reproducible.
    sampler = np.random.default_rng(rng.randint(2**31)).random
    bot.set_resampler(lambda state, player: state.resample_from_infostate(player, sampler))
    return bot


class _MaskState:
    """What OpenSpiel's UniformRandomBot reads of a state: the legal moves (the seat's mask)."""

    def __init__(self, legal: list[int]) -> None:
        self.legal = legal

    def legal_actions(self, player: int | None = None) -> list[int]:
        return self.legal


class OpenSpielAgent:
    """A cardwar agent that plays one seat with an OpenSpiel bot or policy, from the seat's view only."""

    def __init__(self, spec: str, game: str, seed: int | None = None) -> None:
        bot, options = check_openspiel_spec(spec, game)
        self.name = f"openspiel:{bot}"
        self.bot_name, self.game_name = bot, game
        self.policy: SavedPolicy | None = options.pop("policy", None)
        self.options = options
        self.rng = np.random.default_rng(seed)
        self.bot_rng = np.random.RandomState(int(self.rng.integers(2**31)))
        self.bots: dict[int, Any] = {}
        self.game: CardwarGame | None = load(game) if bot == "ismcts" else None

    def root(self, observation: dict[str, np.ndarray], view: Any) -> CardwarState:
        """An OpenSpiel state built from ``view`` alone (the seat's hidden information sampled)."""
        assert self.game is not None
        rebuild = registry.resolve(self.game.cardwar.extra["state_from_view"])
        engine = rebuild(observation, view, np.random.default_rng(int(self.rng.integers(2**63))))
        return self.game.state_from_engine(engine)

    def act(self, observation: dict[str, np.ndarray], view: Any) -> int:
        """The bot's move; always one the mask allows."""
        legal = np.flatnonzero(observation["action_mask"]).tolist()
        if len(legal) == 1:
            return int(legal[0])
        if self.policy is not None:
            seat = int(registry.get(self.game_name).seat_of(view))
            return self.policy.act(seat, observation, self.rng, greedy=self.options["greedy"])
        if self.bot_name == "random":
            action = int(UniformRandomBot(0, self.bot_rng).step(_MaskState(legal)))
        else:
            action = self._search(observation, view, legal)
        if action not in legal or action == pyspiel.INVALID_ACTION:
            raise RuntimeError(f"{self.name} chose {action}, which the mask does not allow")
        return action

    def _search(self, observation: dict[str, np.ndarray], view: Any, legal: list[int]) -> int:
        state = self.root(observation, view)
        player = state.current_player()
        if state.legal_actions() != legal:
            raise RuntimeError(f"{self.name}: the state rebuilt from the view has other legal moves than the mask")
        bot = self.bots.get(player)
        if bot is None:
            assert self.game is not None
            bot = self.bots[player] = make_bot(self.bot_name, self.game, player, self.bot_rng, **self.options)
        return int(bot.step(state))


def make_agent(spec: str, game: str, seed: int | None = None) -> OpenSpielAgent:
    """The agent an ``openspiel:`` spec names (needs the ``openspiel`` extra)."""
    return OpenSpielAgent(spec, game, seed=seed)


def listing(game: str) -> list[dict[str, Any]]:
    """The ``openspiel:`` specs that play ``game``, as ``cardwar agents`` lists them: spec, summary, options."""
    return [{"name": SPEC_FORMS[bot], "summary": SUMMARIES[bot], "options": list(BOT_OPTIONS[bot])}
            for bot in BOT_OPTIONS if playable(bot, game)]


__all__ = ["BOT_OPTIONS", "PREFIX", "SPEC_FORMS", "CardwarEvaluator", "OpenSpielAgent", "check_openspiel_spec",
           "is_openspiel_spec", "listing", "make_agent", "make_bot", "playable"]
