"""``mcts`` for Tank Attack: Monte Carlo tree search with explicit chance nodes (expectimax-style UCT), guided by
the heuristic.

Nothing is hidden in Tank Attack but the future dice (RULES.md 18), so the search does not determinise a
hidden state: it rebuilds the exact position from the seat's view and treats every die as a chance node
(:mod:`cardwar.envs.tankattack.chance`). A decision node chooses by UCT from its player's side; a chance
node draws one face, 1/6 each, and keeps a child per face met, so the values below it average over the
dice as they fall. Leaves are valued by :func:`evaluate` (the game's end when it has one), which the
OpenSpiel bridge can use too.

Where the heuristic guides it (``guide``: by default the attacker, where the search alone is weakest, and the
defender too on maps larger than ``trench_raid``'s, see :data:`GUIDED`):

- **prior and fallback**: the heuristic's move gets prior ``prior`` at the root (PUCT; the rest share the
  remainder), and it is played unless the search's best move, seen at least ``min_visits`` times, beats its
  mean value by ``margin`` (the search refines the heuristic, as the hex and skirmish searches do);
- **whole moves**: a decision is a micro-step (an element, then its destination, then its facing, 19), so a
  leaf in the middle of a move is first completed by the heuristic's one-ply choices (:func:`complete_move`)
  and valued where the move ends, not half made;
- **value**: leaves are valued by the heuristic's own rating of a position (AP lost each way, each
  attacker's progress to the Bunker by type), as a change from the root's (:class:`HeuristicValue`).
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from cardwar.agents.spec import AgentSpecError, Option
from cardwar.agents.tankattack_heuristic import TankHeuristic
from cardwar.envs.tankattack.board import gap
from cardwar.envs.tankattack.chance import FACES, Step, chance_free
from cardwar.envs.tankattack.elements import is_aerial
from cardwar.envs.tankattack import infostate
from cardwar.envs.tankattack.scenario import ATTACKER, DEFENDER
from cardwar.envs.tankattack.state import Stage, TankState
from cardwar.envs.tankattack.view import TankView

OPTIONS: tuple[Option, ...] = (
    Option("seconds", float, 0.2, "thinking time per decision", minimum=0, min_exclusive=True, maximum=3600,
           nullable=True),
    Option("iterations", int, None, "search iterations per decision (alone: reproducible)", minimum=1,
           maximum=10**7, nullable=True),
    Option("exploration", float, 0.8, "UCT exploration constant", minimum=0, maximum=100),
    Option("max_depth", int, 60, "most decisions below the root before the evaluation", minimum=1, maximum=10_000),
    Option("guide", str, "auto", "seats the heuristic guides: auto (the attacker; the defender too on maps larger "
           "than trench_raid's), attacker, both or none"),
    Option("prior", float, 0.5, "PUCT prior on the heuristic's move at the root", minimum=0, maximum=1),
    Option("margin", float, 0.3, "how much better than the heuristic's move a move must be", minimum=0, maximum=2),
    Option("min_visits", int, 10, "visits a move needs before it may replace the heuristic's", minimum=1,
           maximum=10**6),
    Option("scale", float, 0.25, "tanh scale of the heuristic's rating as a leaf value", minimum=0,
           min_exclusive=True, maximum=100),
)

NEAR_BUNKER = 1200
"""Paces from the Bunker beyond which an attacker counts as not yet threatening it (the progress term)."""


def evaluate(state: TankState, seat: int) -> float:
    """The search's value of a position for ``seat``, in [-1, 1]: the result when the game is over, else
    losses against the break point (17.2, half the army's AP), the attacker's nearest approach to the
    Bunker (16.4) and the time left before the turn limit gives the game to the defender (17.3)."""
    if state.is_terminal():
        return float(state.returns()[seat])
    loss = [state.lost_ap(sd) / max(1.0, state.army_ap(sd) / 2) for sd in (DEFENDER, ATTACKER)]
    bunker = state.board.bunker
    near = NEAR_BUNKER
    if bunker is not None and state.bunker_alive:
        for e, c in enumerate(state.cell):
            if c >= 0 and state.side[e] == ATTACKER and not is_aerial(state.etype[e]):
                near = min(near, gap(c, bunker))
    threat = 1.0 - near / NEAR_BUNKER
    time_left = max(0.0, 1.0 - state.bound / max(1, 2 * state.scenario.turn_limit))
    for_defender = 0.6 * (loss[ATTACKER] - loss[DEFENDER]) - 0.5 * threat * (0.5 + 0.5 * time_left) + \
        0.2 * (1.0 - time_left)
    v = math.tanh(for_defender)
    return v if seat == DEFENDER else -v


MID_MOVE = frozenset({Stage.MOVE_DEST, Stage.MOVE_FACE, Stage.GROUP_ADD, Stage.GROUP_MOVE, Stage.ENTER_CELL,
                      Stage.ENTER_FACE, Stage.SPEND_TARGET, Stage.SHOOT_TARGET, Stage.SHOOT_AID})
"""The stages inside one move of the player to decide (19): a destination, a facing, a group's members and
its move, an entry's cell and facing, a spend's target, a shot's target and aids. A leaf in one of them is
a move half made."""
COMPLETE_STEPS = 12
"""Most decisions :func:`complete_move` takes (a group of 8 elements is 8 adds, an END and its move)."""


def complete_move(state: TankState, policy: Any, rng: np.random.Generator) -> TankState:
    """``state`` with the move in progress finished by ``policy._choose`` (the heuristic's one-ply choices),
    its dice drawn from ``rng``: the position the search values, not the move half made (19). ``state``
    itself is not changed; a state between moves is returned as it is."""
    s = state
    for _ in range(COMPLETE_STEPS):
        if s.stage not in MID_MOVE:
            break
        legal = s.legal_actions()
        me = s.current_player
        policy._plan = None
        a = legal[0] if len(legal) == 1 else int(policy._choose(s, me, legal))
        if a not in legal:
            a = legal[int(rng.integers(len(legal)))]
        step = Step(s, a)
        while step.needs_die:
            step = step.with_die(FACES[int(rng.integers(len(FACES)))])
        s = step.after
    return s


class HeuristicValue:
    """A leaf's value for the defender: ``tanh(scale * (h(leaf) - h(root)))`` with ``h`` the heuristic's rating
    of a position for the defender (AP lost each way, 17.1; each attacker's progress to the Bunker, 16.4),
    after the move in progress is completed (:func:`complete_move`); the game's result at its end (17.3)."""

    def __init__(self, policy: Any, root: TankState, rng: np.random.Generator, scale: float = 0.25) -> None:
        self.policy, self.rng, self.scale = policy, rng, scale
        self.base = policy._value(root, DEFENDER)

    def __call__(self, state: TankState) -> float:
        s = complete_move(state, self.policy, self.rng)
        if s.is_terminal():
            return float(s.returns()[DEFENDER])
        return math.tanh(self.scale * (self.policy._value(s, DEFENDER) - self.base))


class _Decision:
    __slots__ = ("state", "player", "actions", "children", "n", "w", "visits", "prior")

    def __init__(self, state: TankState) -> None:
        self.state = state
        self.player = state.current_player
        self.actions: list[int] = [] if state.is_terminal() else list(state.legal_actions())
        self.children: dict[int, Any] = {}
        self.n = np.zeros(len(self.actions))
        self.w = np.zeros(len(self.actions))  # sum of values for self.player
        self.visits = 0
        self.prior: np.ndarray | None = None  # PUCT's prior over self.actions, where a guide gave one


class _Chance:
    __slots__ = ("step", "children")

    def __init__(self, step: Step) -> None:
        self.step = step
        self.children: dict[int, Any] = {}


def _node(step: Step) -> _Decision | _Chance:
    return _Chance(step) if step.needs_die else _Decision(step.after)


def heuristic_prior(actions: list[int], guess: int, weight: float) -> np.ndarray:
    """PUCT's prior at the root: ``weight`` on the heuristic's move, the rest shared evenly by the others."""
    p = np.full(len(actions), (1.0 - weight) / max(1, len(actions) - 1))
    if guess in actions:
        p[actions.index(guess)] = weight if len(actions) > 1 else 1.0
    else:
        p[:] = 1.0 / len(actions)
    return p


class ChanceMCTS:
    """UCT over decisions with chance nodes for the dice; values are the defender's, in [-1, 1]."""

    def __init__(self, rng: np.random.Generator, iterations: int | None = None, seconds: float | None = 0.2,
                 exploration: float = 0.8, max_depth: int = 60) -> None:
        if iterations is None and seconds is None:
            raise ValueError("give mcts a budget: iterations=N or seconds=S")
        self.rng, self.iterations, self.seconds = rng, iterations, seconds
        self.c, self.max_depth = exploration, max_depth
        self.last_iterations = 0
        self.last_visits: dict[int, int] = {}
        self.last_means: dict[int, float] = {}
        self.leaf: Any = None  # a leaf's value for the defender; None: evaluate

    def search(self, state: TankState, default: int | None = None, prior: float | None = None,
               margin: float = 0.0, min_visits: int = 10, leaf: Any = None, started: float | None = None) -> int:
        """The most visited action at ``state`` (a chance-free state: see :func:`chance_free`).

        With a ``default`` (the heuristic's move): PUCT at the root with ``prior`` on it, and it is kept unless
        a move seen ``min_visits`` times beats its mean value by ``margin``. ``leaf`` values new leaves for the
        defender (default :func:`evaluate`). ``started`` (``time.perf_counter()``) is when the decision's clock
        began, if before the search (the heuristic's own move counts against ``seconds`` too)."""
        root = _Decision(state)
        if len(root.actions) == 1:
            return root.actions[0]
        if default is not None and prior is not None:
            root.prior = heuristic_prior(root.actions, default, prior)
        self.leaf = leaf
        deadline = None if self.seconds is None else (started or time.perf_counter()) + self.seconds
        done = 0
        while (self.iterations is None or done < self.iterations) and \
                (deadline is None or time.perf_counter() < deadline or done == 0):
            self._simulate(root, 0)
            done += 1
        self.leaf = None
        self.last_iterations = done
        self.last_visits = {a: int(n) for a, n in zip(root.actions, root.n)}
        self.last_means = {a: float(w / n) for a, w, n in zip(root.actions, root.w, root.n) if n > 0}
        if default is not None and default in root.actions:
            return self._refine(root, default, margin, min_visits)
        best = np.flatnonzero(root.n == root.n.max())
        return root.actions[int(best[self.rng.integers(best.size)])]

    @staticmethod
    def _refine(root: _Decision, default: int, margin: float, min_visits: int) -> int:
        """``default`` unless a move seen ``min_visits`` times has a mean ``margin`` above its mean."""
        means = np.where(root.n > 0, root.w / np.maximum(root.n, 1), -2.0)
        ok = np.flatnonzero(root.n >= min_visits)
        if ok.size == 0:
            return default
        i = int(ok[np.argmax(means[ok])])
        return root.actions[i] if means[i] > means[root.actions.index(default)] + margin else default

    def _simulate(self, node: _Decision | _Chance, depth: int) -> float:
        while isinstance(node, _Chance):  # the dice fall as they fall
            face = FACES[int(self.rng.integers(len(FACES)))]
            child = node.children.get(face)
            if child is None:
                child = node.children[face] = _node(node.step.with_die(face))
            node = child
        s = node.state
        if not node.actions:
            return float(s.returns()[DEFENDER])
        if node.visits == 0 or depth >= self.max_depth:
            node.visits += 1
            return evaluate(s, DEFENDER) if self.leaf is None else float(self.leaf(s))
        node.visits += 1
        i = self._select(node)
        a = node.actions[i]
        child = node.children.get(a)
        if child is None:
            child = node.children[a] = _node(Step(s, a))
        v = self._simulate(child, depth + 1)
        node.n[i] += 1
        node.w[i] += v if node.player == DEFENDER else -v
        return v

    def _select(self, node: _Decision) -> int:
        if node.prior is not None:  # PUCT (AlphaZero): the prior leads, the values take over with visits
            q = np.where(node.n > 0, node.w / np.maximum(node.n, 1), 0.0)
            score = q + self.c * node.prior * math.sqrt(node.visits) / (1.0 + node.n)
            best = np.flatnonzero(score == score.max())
            return int(best[self.rng.integers(best.size)])
        untried = np.flatnonzero(node.n == 0)
        if untried.size:
            return int(untried[self.rng.integers(untried.size)])
        log_n = math.log(node.visits)
        ucb = node.w / node.n + self.c * np.sqrt(log_n / node.n)
        best = np.flatnonzero(ucb == ucb.max())
        return int(best[self.rng.integers(best.size)])


GUIDED = {"auto": None, "attacker": (ATTACKER,), "both": (DEFENDER, ATTACKER), "none": ()}
"""Which seats the heuristic guides (``guide``). ``auto``: the attacker always; the defender on maps larger than
``SMALL_MAP`` cells. Measured (docs/strength.md): on ``trench_raid`` the unguided search defends better than the
heuristic (it beat the heuristic's attack in 18 of 20 games), on 16 x 24 maps worse (1 of 6, the heuristic 2 of
6 on the same maps); unguided, it attacked worse than the heuristic on ``trench_raid`` (0 of 5, the heuristic 3 of
5). Few games: a lean, not a finding."""
SMALL_MAP = 8 * 12
"""The most cells of a map on which ``guide=auto`` leaves the defender's search unguided (``trench_raid``'s 8 x 12,
RULES.md 20.2)."""


def guided_seats(guide: str, state: TankState) -> tuple[int, ...]:
    """The seats the heuristic guides in ``state``'s game under ``guide`` (see :data:`GUIDED`)."""
    seats = GUIDED[guide]
    if seats is not None:
        return seats
    small = state.board.width * state.board.height <= SMALL_MAP
    return (ATTACKER,) if small else (DEFENDER, ATTACKER)


class TankSearch:
    """``mcts`` for Tank Attack within ``seconds`` (default 0.2) or ``iterations`` (alone: reproducible)."""

    def __init__(self, seed: int | None = None, iterations: int | None = None, seconds: float | None = 0.2,
                 exploration: float = 0.8, max_depth: int = 60, guide: str = "auto", prior: float = 0.5,
                 margin: float = 0.3, min_visits: int = 10, scale: float = 0.25) -> None:
        if guide not in GUIDED:
            raise AgentSpecError(f"mcts option guide={guide!r}: expected one of {', '.join(GUIDED)}")
        self.name = "mcts"
        self.rng = np.random.default_rng(seed)
        if iterations is not None and seconds == 0.2:
            seconds = None
        self.search = ChanceMCTS(self.rng, iterations, seconds, exploration, max_depth)
        self.guide = guide
        self.prior, self.margin, self.min_visits, self.scale = prior, margin, min_visits, scale
        self.fallback = TankHeuristic(seed=None if seed is None else seed + 7919)
        self.playout = TankHeuristic(seed=None if seed is None else seed + 104729)  # completes moves in the tree
        self.last_guess: int | None = None

    def reset(self) -> None:
        self.fallback.reset()

    def act(self, observation: dict[str, np.ndarray], view: TankView) -> int:
        started = time.perf_counter()
        legal = np.flatnonzero(observation["action_mask"]).tolist()
        self.last_guess = None
        if len(legal) == 1:
            return legal[0]
        state = chance_free(infostate.state_from_view(view, self.rng))
        if state.current_player not in guided_seats(self.guide, state):
            return self.search.search(state)
        # the heuristic sees every decision of its seat, so its plan for a move (a group's members) stays whole
        guess = self.last_guess = int(self.fallback.act(observation, view))
        leaf = HeuristicValue(self.playout, state, self.rng, self.scale)
        return self.search.search(state, default=guess, prior=self.prior, margin=self.margin,
                                  min_visits=self.min_visits, leaf=leaf, started=started)


# ---------------------------------------------------------------- hooks for searches outside cardwar's agents
def state_from_view(observation: object, view: TankView, rng: np.random.Generator) -> TankState:
    """The registry's ``state_from_view``: the exact position (nothing is hidden), its dice from ``rng``."""
    return infostate.state_from_view(view, rng)


# ---------------------------------------------------------------- calibration (docs/strength.md)
def calibrate(scenario: str, games: int = 2, iterations: int = 200, every: int = 3,
              most: int = 400) -> dict[int, list[float]]:
    """Iterations per 0.2 s of CPU time (``time.process_time``: one core's work, whatever the load on the others),
    by seat: heuristic-vs-heuristic games on ``scenario`` (``random:test`` draws held-out maps), the search run
    with ``iterations`` at every ``every``-th decision with a choice, the first ``most`` decisions of a game."""
    from cardwar.envs.tankattack.actions import NUM_ACTIONS
    from cardwar.envs.tankattack.generator import resolve_random
    from cardwar.envs.tankattack.scenario import load_scenario

    rate: dict[int, list[float]] = {DEFENDER: [], ATTACKER: []}
    for g in range(games):
        scn = resolve_random(f"{scenario}:{g}") if scenario.startswith("random") else load_scenario(scenario)
        s = TankState.new_game(scn, seed=g)
        players = [TankHeuristic(seed=2 * g), TankHeuristic(seed=2 * g + 1)]
        searches = [TankSearch(seed=g, iterations=iterations), TankSearch(seed=g + 1, iterations=iterations)]
        for k in range(most):
            if s.is_terminal():
                break
            p, legal = s.current_player, s.legal_actions()
            mask = np.zeros(NUM_ACTIONS, np.int8)
            mask[legal] = 1
            obs, view = {"action_mask": mask}, s.information_view(p)
            if len(legal) > 1 and k % every == 0:
                t0 = time.process_time()
                searches[p].act(obs, view)
                rate[p].append(searches[p].search.last_iterations / max(1e-9, time.process_time() - t0) * 0.2)
            s.apply_action(players[p].act(obs, view))
    return rate


if __name__ == "__main__":  # python -m cardwar.agents.tankattack_search trench_raid random:test
    import sys

    for name in sys.argv[1:] or ["trench_raid"]:
        for seat, r in calibrate(name).items():
            if r:
                print(f"{name} {('defender', 'attacker')[seat]}: {np.median(r):.0f} iterations per 0.2 s of CPU at "
                      f"the median (10th-90th percentile {np.percentile(r, 10):.0f}-{np.percentile(r, 90):.0f}, "
                      f"{len(r)} decisions)")
