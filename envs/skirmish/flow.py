"""The turn sequence as a machine of stages (RULES.md §7): it runs until a seat must decide, asks one small
step (§9.1), takes the answer, and runs on.

The stages are :class:`pending.Stage` (its docstring gives their order); what a stage has half done is one
typed value in ``state.cursor`` (:mod:`pending`), replaced, never changed in place.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from cardwar.envs.skirmish import moving, options, resolve
from cardwar.envs.skirmish.actions import CHOICE, N_CELLS, TARGETED, Step
from cardwar.envs.skirmish.cards import Suit, card_rank, card_suit
from cardwar.envs.skirmish.figures import Stance
from cardwar.envs.skirmish.pending import (
    ActionDeclaration,
    Activation,
    MoveDeclaration,
    Moving,
    Stage,
)
from cardwar.envs.skirmish.sight import update_sight
from cardwar.envs.skirmish.units import Order, Soldier, Tank
from cardwar.envs.skirmish.vehicles import DECK_FRACTION, SPEED_HEXES
from cardwar.envs.skirmish.weapons import FIREARMS

if TYPE_CHECKING:
    from cardwar.envs.skirmish.state import Decision, SkirmishState

RESERVE = {"pistol": 16, "rifle": 40, "smg1": 120, "smg2": 120, "lmg": 150, "mmg": 250}
"""Rounds carried beside the magazine (RULES.md §2.2)."""


def default_reserve(weapon: str) -> int:
    return RESERVE.get(weapon, 0)


def choice(name: str) -> int:
    return CHOICE[name]


def ask(s: SkirmishState, seat: int, step: Step, unit: int | None, legal: dict[int, Any]) -> None:
    from cardwar.envs.skirmish.state import Decision

    s.decision = Decision(seat=seat, step=step, unit=unit, legal=legal)


# ============================================================================ the loop
def start_game(s: SkirmishState) -> None:
    s.mines = {cell: side for cell, side in (s.scenario.mines or ())}
    s.open_doors = frozenset()
    for u in s.units:  # a figure standing on an objective at the start holds it (§10)
        moving.take_objective(s, u)
    update_sight(s)
    _start_turn(s)


def advance(s: SkirmishState) -> None:
    """Run the automatic part of the game until a decision or the end."""
    guard = 0
    while not s.over and s.decision is None:
        STAGES[s.stage](s)
        guard += 1
        if guard > 100000:
            raise RuntimeError(f"the skirmish made no progress in stage {s.stage}")


def ask_again(s: SkirmishState) -> None:
    """Ask the decision in hand again, from the state as it is now (after a resample of what the seat to
    move cannot see, :mod:`infostate`): every stage asks the same question of the same position."""
    if s.over or s.decision is None:
        return
    s.decision = None
    STAGES[s.stage](s)


def answer(s: SkirmishState, d: Decision, action: int) -> None:
    s.decision = None
    ANSWERS[s.stage](s, d, action)


def _start_turn(s: SkirmishState) -> None:
    s.turn += 1
    s.drawn = [[], []]
    s.orders = {}
    s.moves_revealed = s.combat_revealed = False
    for u in s.units:
        u.moved = u.acted = u.watch_fired = False
        if isinstance(u, Soldier):
            u.ran = u.crawled = False
    s.cursor = None
    if s.rules.sequence == "deck":
        s.deck = _build_deck(s)
        s.stage = Stage.DECK
    else:
        s.queue = [u.uid for side in (0, 1) for u in s.active_units(side)]
        s.stage = Stage.DECLARE_MOVE


# ============================================================================ phases: movement declaration
def _next_declarer(s: SkirmishState, when_all_done: Callable[[SkirmishState], None],
                   start: Callable[[int], MoveDeclaration | ActionDeclaration]) -> bool:
    """Start the next queued unit's declaration (``start(unit)``); when none is left, run ``when_all_done``
    and return False."""
    if s.cursor is None:
        if not s.queue:
            when_all_done(s)
            return False
        s.cursor = start(s.queue.pop(0))
    return True


def _declare_move(s: SkirmishState) -> None:
    if not _next_declarer(s, _reveal_moves, MoveDeclaration):
        return
    c: MoveDeclaration = s.cursor
    u = s.units[c.unit]
    if isinstance(u, Tank):
        if c.step == Step.MODE:
            ask(s, u.side, Step.MODE, u.uid, {choice(f"speed_{k}"): k for k in _vehicle_speeds(u)})
        else:
            s.cursor = c = replace(c, paths=_vehicle_paths(s, u, c.speed))
            ask(s, u.side, Step.DESTINATION, u.uid, {d: d for d in c.paths})
        return
    if c.step == Step.MODE:
        legal = {choice("stay"): "stay"}
        for mode in ("crawl", "search", "walk", "run"):
            if options.mode_open(s, u, mode):
                legal[choice(mode)] = mode
        if _may_play_king(s, u):
            legal[choice("king")] = "king"
        ask(s, u.side, Step.MODE, u.uid, legal)
    elif c.step == Step.DESTINATION:
        s.cursor = c = replace(c, paths=options.move_paths(s, u, c.mode))
        ask(s, u.side, Step.DESTINATION, u.uid, {d: d for d in c.paths})
    elif c.step == Step.STANCE:
        stances = options.stance_options(s, u, c.mode, c.path)
        ask(s, u.side, Step.STANCE, u.uid, {choice(Stance(x).name.lower()): int(x) for x in stances})
    elif c.step == Step.WATCH:
        ask(s, u.side, Step.WATCH, u.uid, {choice("watch"): True, choice("no_watch"): False})


def _answer_declare_move(s: SkirmishState, d: Decision, action: int) -> None:
    c: MoveDeclaration = s.cursor
    u = s.units[c.unit]
    value = d.legal[action]
    if isinstance(u, Tank):
        if d.step == Step.MODE:
            u.v.speed = value
            c = replace(c, speed=value, mode=f"speed_{value}", step=Step.DESTINATION)
            if not _vehicle_paths(s, u, value):
                _finish_declaration(s, c)
            else:
                s.cursor = c
        else:
            _finish_declaration(s, replace(c, destination=value, path=c.paths[value]))
        return
    if d.step == Step.MODE:
        if value == "king":
            resolve.play_king(s, u, hidden=True)
            return
        s.cursor = replace(c, mode=value, step=Step.STANCE if value == "stay" else Step.DESTINATION)
    elif d.step == Step.DESTINATION:
        s.cursor = replace(c, destination=value, path=c.paths[value], step=Step.STANCE)
    elif d.step == Step.STANCE:
        c = replace(c, stance=value, step=Step.WATCH)
        if c.mode == "stay" and options.can_watch(s, u):
            s.cursor = c
        else:
            _finish_declaration(s, c)
    elif d.step == Step.WATCH:
        _finish_declaration(s, replace(c, watch=value))


def _private_unless_seen(s: SkirmishState, u: Soldier | Tank) -> int | None:
    """A declaration is public when the other side sees the unit; otherwise only its own side reads it."""
    return None if u.uid in s.seen[1 - u.side] else u.side


def _finish_declaration(s: SkirmishState, c: MoveDeclaration) -> None:
    s.orders[c.unit] = Order(mode=c.mode, destination=c.destination, stance=c.stance, watch=c.watch, path=c.path)
    s.cursor = None


def _reveal_moves(s: SkirmishState) -> None:
    """Both sides have declared: the orders are revealed together (§9.1) and moves begin (§4.3)."""
    s.moves_revealed = True
    s.schedule = {}
    s.entered = {}
    for uid, entry in s.courage.items():
        if not entry[2]:
            entry[2] = True
            s.log(f"{s.units[uid].name} plays a King for King and Country", card=entry[0], side=s.units[uid].side)
    for uid, order in s.orders.items():
        u = s.units[uid]
        s.log(f"{u.name} declares {order.mode}" + (" and opportunity fire" if order.watch else ""),
              seat=_private_unless_seen(s, u))
        if isinstance(u, Soldier):
            if order.mode == "stay":
                u.fig.stance = Stance(order.stance)
                continue
            u.ran, u.crawled = order.mode == "run", order.mode == "crawl"
            allowance = options.soldier_allowance(s, u, order.mode)
            if order.stance == Stance.PRONE and order.mode != "crawl":
                allowance -= options.quarter(u.move_allowance(order.mode))
            u.fig.stance = options.MODE_STANCE[order.mode]
            s.schedule[uid] = moving.schedule_path(s, u, order.path, allowance, options.MODE_STANCE[order.mode],
                                                   order.mode == "run")
        elif order.path:
            speed = int(order.mode.split("_")[1])
            s.schedule[uid] = moving.schedule_path(s, u, order.path, SPEED_HEXES[max(speed, u.v.last_speed)] or 1,
                                                   Stance.STANDING, False)
    s.tick = 0
    s.interrupts = []
    s.stage = Stage.MOVING
    s.cursor = Moving()


# ============================================================================ movement, tick by tick
def _moving(s: SkirmishState) -> None:
    while True:
        if s.interrupts:
            uid, _ = s.interrupts[0]
            w = s.units[uid]
            cells = moving.could_fire_at_passing(s, w, s.cursor.passed)
            if not w.active or not cells:
                s.interrupts.pop(0)
                continue
            legal: dict[int, Any] = {choice("hold"): None}
            legal.update({c: c for c in cells})
            ask(s, w.side, Step.INTERRUPT, uid, legal)
            return
        if s.tick >= moving.TICKS or not any(s.schedule.values()):
            _end_moves(s)
            return
        s.tick += 1
        before = {uid: len(cells) for uid, cells in s.entered.items()}
        moved = moving.enter(s, s.tick)
        s.cursor = replace(s.cursor, passed={u.uid: tuple(s.entered[u.uid][before.get(u.uid, 0):]) for u in moved})
        for u in moved:
            u.moved = True
        if moved and _interrupting(s):
            s.interrupts = moving.watchers_for(s, s.cursor.passed)
        _check_sudden_end(s)
        if s.over:
            return


def _interrupting(s: SkirmishState) -> bool:
    if s.rules.sequence == "deck":
        return s.rules.deck_opportunity_fire
    return s.rules.opportunity_fire == "interrupt"


def _answer_moving(s: SkirmishState, d: Decision, action: int) -> None:
    uid, _ = s.interrupts.pop(0)
    target = d.legal[action]
    if target is None:
        return
    w = s.units[uid]
    victim = moving.mover_at(s, s.cursor.passed, target, w.side)
    wounds = getattr(getattr(victim, "fig", None), "wounds", 0)
    _fire_at_passing(s, w, victim, target)
    if isinstance(victim, Soldier) and victim.fig.wounds > wounds:
        moving.halve_remaining(s, victim, s.tick)  # a wound halves the rest of its move (§5.5)
    _check_sudden_end(s)


def _fire_at_passing(s: SkirmishState, w: Soldier | Tank, mover: Soldier | Tank, cell: int) -> None:
    """Opportunity fire at ``mover`` as it stood in ``cell``, a hex it entered (§5.5): that hex's cover, its
    stance now. It is back where it is after (or stays, where someone else stands in ``cell`` now)."""
    here = mover.cell
    if s.unit_at(cell) not in (None, mover):
        cell = here
    mover.cell = cell
    try:
        opportunity_fire(s, w, cell)
    finally:
        mover.cell = here


def opportunity_fire(s: SkirmishState, w: Soldier | Tank, target: int) -> None:
    """Resolve an opportunity fire now, as in the combat phase (§5.5)."""
    if isinstance(w, Soldier):
        w.watch_fired = True
    else:
        w.acted = w.watch_fired = True
    skill = resolve.effective(s, w, "fire", [target])
    card = s.draw(w.side, skill=True, unit=w)
    s.log(f"{w.name} opens opportunity fire")
    resolve.do_fire(s, w, target, card, skill)


def _end_moves(s: SkirmishState) -> None:
    """Movers take their declared end stance; then opportunity fire "after_move", then the combat phase."""
    resume = s.cursor.resume
    for uid, order in list(s.orders.items()):
        u = s.units[uid]
        if isinstance(u, Soldier) and order.mode not in ("stay",) and u.fig.active and order.stance is not None:
            u.fig.stance = Stance(order.stance)
        if isinstance(u, Tank):
            u.v.end_turn(moved=u.moved)
    s.schedule = {}
    moving.settle(s)
    s.tick = 0  # how long the moves took would tell of unseen movers
    _check_exits(s)
    update_sight(s)
    _check_sudden_end(s)  # an exit goal met ends the game at once (§10)
    if s.over:
        return
    if resume is None:
        if s.rules.opportunity_fire == "after_move":
            s.queue = [u for u in s.orders if s.orders[u].watch]
            s.stage = Stage.AFTER_MOVE_FIRE
            s.cursor = None
            return
        _begin_combat_declarations(s)
    else:  # a deck move is over: back to the activation
        for uid in [u for u, o in s.orders.items() if o.mode in ("move", "all_out_run")]:
            del s.orders[uid]
            _end_courage(s, [uid])
        s.stage = Stage.ACTIVATE
        s.cursor = resume


def _after_move_fire(s: SkirmishState) -> None:
    while s.queue:
        w = s.units[s.queue[0]]
        cells = moving.could_fire_at_passing(s, w, s.entered)
        if w.active and cells:
            legal: dict[int, Any] = {choice("hold"): None}
            legal.update({c: c for c in cells})
            ask(s, w.side, Step.INTERRUPT, w.uid, legal)
            return
        s.queue.pop(0)
    _begin_combat_declarations(s)


def _answer_after_move_fire(s: SkirmishState, d: Decision, action: int) -> None:
    uid = s.queue.pop(0)
    cell = d.legal[action]
    if cell is None:
        return
    w = s.units[uid]
    _fire_at_passing(s, w, moving.mover_at(s, s.entered, cell, w.side), cell)  # where it stood (§5.5)
    _check_sudden_end(s)


# ============================================================================ phases: combat
def _begin_combat_declarations(s: SkirmishState) -> None:
    s.entered = {}
    s.queue = [u.uid for side in (0, 1) for u in s.active_units(side)
               if not (isinstance(u, Soldier) and u.watch_fired)]
    s.cursor = None
    s.combat_revealed = False
    s.stage = Stage.DECLARE_COMBAT


def _declare_combat(s: SkirmishState) -> None:
    if not _next_declarer(s, _resolve_combat, ActionDeclaration):
        return
    s.orders.setdefault(s.cursor.unit, Order())
    _ask_action_step(s, s.cursor, deck=False)


def _set_activity(s: SkirmishState, a: ActionDeclaration) -> None:
    """Keep ``a`` as the declaration in hand: the combat declaration, or the activation card's activity."""
    s.cursor = replace(s.cursor, activity=a) if isinstance(s.cursor, Activation) else a


def _ask_action_step(s: SkirmishState, a: ActionDeclaration, *, deck: bool) -> None:
    u = s.units[a.unit]
    if a.step == Step.ACTION:
        acts = options.action_options(s, u, deck=deck)
        if deck and s.rules.deck_opportunity_fire and options.can_watch(s, u):
            acts.append("watch")
        if deck and _may_play_king(s, u):
            acts.append("king")
        ask(s, u.side, Step.ACTION, u.uid, {choice(x): x for x in acts})
    elif a.step == Step.TARGET:
        chosen = list(a.targets)
        cells = options.targets_for(s, u, a.action, chosen)
        legal: dict[int, Any] = {cell: cell for cell in cells}
        if a.action == "burst" and chosen and options.burst_complete(s, chosen):
            legal[choice("done")] = None
        if a.action == "burst" and chosen and len(chosen) >= 2 and not cells and choice("done") not in legal:
            legal[choice("done")] = None
        if not legal:
            legal[choice("done")] = None
        ask(s, u.side, Step.TARGET, u.uid, legal)
    elif a.step == Step.DESTINATION:
        paths = options.move_paths(s, u, a.action) if isinstance(u, Soldier) else \
            _vehicle_paths(s, u, 1, fraction=DECK_FRACTION)
        _set_activity(s, replace(a, paths=paths))
        ask(s, u.side, Step.DESTINATION, u.uid, {d: d for d in paths})
    elif a.step == Step.STANCE:
        stances = options.stance_options(s, u, a.action, a.path)
        ask(s, u.side, Step.STANCE, u.uid, {choice(Stance(x).name.lower()): int(x) for x in stances})


def _answer_action_step(s: SkirmishState, a: ActionDeclaration, d: Decision,
                        action: int) -> tuple[ActionDeclaration, bool]:
    """The declaration with the answer taken, and whether the unit's action is now complete."""
    value = d.legal[action]
    if d.step == Step.ACTION:
        if value == "king":
            resolve.play_king(s, s.units[a.unit], hidden=False)
            return a, False
        a = replace(a, action=value)
        if value in ("move", "all_out_run"):
            return replace(a, step=Step.DESTINATION), False
        if value in TARGETED:
            return replace(a, step=Step.TARGET), False
        return a, True
    if d.step == Step.TARGET:
        if value is None:  # done
            return a, True
        targets = a.targets
        if a.action == "burst":
            if targets and s.scenario.board.distance(targets[-1], value) == 2:
                targets += (None,)  # the phantom middle target (§5.4)
            targets += (value,)
            return replace(a, targets=targets), len(targets) >= 3
        return replace(a, targets=targets + (value,)), True
    if d.step == Step.DESTINATION:
        a = replace(a, path=a.paths[value], destination=value)
        if isinstance(s.units[a.unit], Tank):
            return a, True
        return replace(a, step=Step.STANCE), False
    if d.step == Step.STANCE:
        return replace(a, stance=value), True
    return a, True


def _answer_declare_combat(s: SkirmishState, d: Decision, action: int) -> None:
    a, done = _answer_action_step(s, s.cursor, d, action)
    if done:
        order = s.orders.setdefault(a.unit, Order())
        order.action, order.targets = a.action, list(a.targets)
        s.cursor = None
    else:
        s.cursor = a


def _resolve_combat(s: SkirmishState) -> None:
    """Reveal, draw, and resolve in skill order: highest first, ties by the lower card; same skill and card at
    the same instant; actions without a draw last (§5.7)."""
    s.combat_revealed = True
    drawn = []
    for side in (0, 1):
        for uid, order in s.orders.items():
            u = s.units[uid]
            if u.side != side or order.action == "nothing" or not u.active:
                continue
            s.log(f"{u.name} declares {order.action}", seat=_private_unless_seen(s, u))
            if order.action in resolve.SKILL_OF:
                skill = resolve.effective(s, u, order.action, order.targets)
                card = s.draw(side, skill=True, unit=u)
                drawn.append((skill, card_rank(card), uid, card))
            else:
                drawn.append((None, None, uid, None))
    with_draw = sorted((d for d in drawn if d[0] is not None), key=lambda d: (-d[0], d[1], d[2]))
    groups: list[list[tuple]] = []
    for d in with_draw:
        if groups and (groups[-1][0][0], groups[-1][0][1]) == (d[0], d[1]):
            groups[-1].append(d)
        else:
            groups.append([d])
    groups += [[d] for d in drawn if d[0] is None]
    for group in groups:
        able = [d for d in group if s.units[d[2]].active]
        for skill, _, uid, card in able:
            u = s.units[uid]
            order = s.orders[uid]
            if isinstance(u, Soldier) and u.fig.wounds == 1 and skill is not None:
                skill = resolve.effective(s, u, order.action, order.targets)  # acts at its halved skill (§5.7)
            resolve.perform(s, u, order.action, order.targets, card, skill if skill is not None else 0)
        _check_sudden_end(s)
        if s.over:
            return
    s.stage = Stage.END_TURN


# ============================================================================ deck sequence
def _may_play_king(s: SkirmishState, u: Soldier | Tank) -> bool:
    return (s.rules.king_and_country and isinstance(u, Soldier) and bool(s.kings[u.side])
            and u.uid not in s.courage)


def _end_courage(s: SkirmishState, uids: list[int] | None = None) -> None:
    for uid in list(s.courage):
        if uids is None or uid in uids:
            resolve.end_courage(s, s.units[uid])


def _build_deck(s: SkirmishState) -> list[tuple]:
    """The activation deck (§7.2): per fire team 3 cards and a Free Move; or 2 per figure (3 for leaders);
    3 per vehicle. Shuffled together. A scenario's ``deck:`` replaces the teams deck, not deck_cards="figures"."""
    own = s.scenario.deck if s.rules.deck_cards == "teams" else None
    if own:
        by_name = {u.name: u.uid for u in s.units}
        cards = [(c[0], by_name[c[1]]) if c[0] in ("figure", "vehicle") else tuple(c) for c in own]
    elif s.rules.deck_cards == "figures":
        cards = [("figure", u.uid) for u in s.soldiers() for _ in range(3 if u.role in ("sergeant", "officer") else 2)]
    else:
        cards = []
        for side in (0, 1):
            teams = sorted({u.team for u in s.soldiers(side)})
            for t in teams:
                cards += [("team", side, t)] * 3 + [("free", side)]
    if not own:
        cards += [("vehicle", u.uid) for u in s.units if isinstance(u, Tank) for _ in range(3)]
    order = s.rng.permutation(len(cards))
    return [cards[i] for i in order]


def _deck(s: SkirmishState) -> None:
    if not s.deck:
        s.stage = Stage.END_TURN
        return
    s.card = card = tuple(s.deck.pop())
    s.log(f"activation card: {_card_name(s, card)}")
    kind = card[0]
    if kind == "team":
        units = _team_units(s, card[1], card[2])
        s.cursor = Activation(side=card[1], eligible=tuple(u.uid for u in units))
    elif kind == "free":
        side = card[1]
        if s.rules.free_move == "team":
            teams = sorted({u.team for u in s.active_units(side) if isinstance(u, Soldier)})[:4]
            if not teams:
                return
            s.cursor = Activation(side=side, teams=tuple(teams))
            s.stage = Stage.ACTIVATE
            return
        s.cursor = Activation(side=side, eligible=tuple(u.uid for u in s.active_units(side)), single=True)
    else:  # a figure's or a vehicle's own card
        u = s.units[card[1]]
        s.cursor = Activation(side=u.side, eligible=(u.uid,) if u.active else (), single=True)
    s.stage = Stage.ACTIVATE


def _card_name(s: SkirmishState, card: tuple) -> str:
    if card[0] == "team":
        names = s.scenario.teams.get(card[1]) if isinstance(s.scenario.teams, dict) else None
        team = names[card[2]] if names and card[2] < len(names) else f"fire team {card[2] + 1}"
        return f"{s.scenario.sides[card[1]]} {team}"
    if card[0] == "free":
        return f"{s.scenario.sides[card[1]]} free move"
    return s.units[card[1]].name


def _team_units(s: SkirmishState, side: int, team: int) -> list[Soldier]:
    return [u for u in s.soldiers(side) if u.team == team and u.active]


def _activate(s: SkirmishState) -> None:
    c: Activation = s.cursor
    if c.teams is not None:
        ask(s, c.side, Step.TEAM, None, {choice(f"team_{i}"): t for i, t in enumerate(c.teams)})
        return
    if c.activity is not None:
        _ask_action_step(s, c.activity, deck=True)
        return
    eligible = tuple(uid for uid in c.eligible if s.units[uid].active)
    s.cursor = c = replace(c, eligible=eligible)
    if not eligible:
        s.stage = Stage.DECK
        s.cursor = None
        _check_sudden_end(s)
        return
    legal: dict[int, Any] = {s.units[uid].cell: uid for uid in eligible}
    if not c.single or len(eligible) > 1:
        legal[choice("done")] = None
    ask(s, c.side, Step.ACTIVATE, None, legal)


def _answer_activate(s: SkirmishState, d: Decision, action: int) -> None:
    c: Activation = s.cursor
    value = d.legal[action]
    if d.step == Step.TEAM:
        s.cursor = Activation(side=c.side, eligible=tuple(u.uid for u in _team_units(s, c.side, value)))
        return
    if d.step == Step.ACTIVATE:
        if value is None:
            s.stage, s.cursor = Stage.DECK, None
            return
        rest = () if c.single else tuple(u for u in c.eligible if u != value)
        s.cursor = replace(c, eligible=rest, activity=ActionDeclaration(unit=value))
        return
    a, done = _answer_action_step(s, c.activity, d, action)
    s.cursor = replace(c, activity=a)
    if done:
        _deck_activity(s)


def _deck_activity(s: SkirmishState) -> None:
    """Carry out a deck activity at once (§7.2)."""
    c: Activation = s.cursor
    a = c.activity
    s.cursor = c = replace(c, activity=None)
    u = s.units[a.unit]
    act, targets = a.action, list(a.targets)
    u.acted = True
    if act in ("move", "all_out_run"):
        s.orders[u.uid] = Order(mode=act, path=a.path, stance=a.stance)
        s.schedule = {u.uid: moving.schedule_path(s, u, a.path, len(a.path), Stance.STANDING, False,
                                                  one_per_tick=True)}
        s.entered = {}
        if isinstance(u, Soldier):
            u.ran = act == "all_out_run"
        s.tick = 0
        s.interrupts = []
        s.stage = Stage.MOVING
        s.cursor = Moving(resume=c)
        return
    if act == "watch":
        s.orders[u.uid] = Order(watch=True)
        u.watch_fired = False
        return
    if isinstance(u, Soldier):
        u.ran = False
    if act in resolve.SKILL_OF:
        skill = resolve.effective(s, u, act, targets)
        card = s.draw(u.side, skill=True, unit=u)
        resolve.perform(s, u, act, targets, card, skill)
    else:
        resolve.perform(s, u, act, targets, None, 0)
    s.orders.pop(u.uid, None)
    _end_courage(s, [u.uid])
    _check_sudden_end(s)


# ============================================================================ vehicles
def _vehicle_speeds(v: Tank) -> list[int]:
    """A vehicle changes speed one step a turn; slowing is an emergency stop; track damage: at rest (§8.1)."""
    return list(v.v.legal_speeds())


def _vehicle_paths(s: SkirmishState, v: Tank, speed: int, fraction: Fraction | int = 1) -> dict[int, tuple[int, ...]]:
    """Destinations at a speed (an emergency stop included) -> path (§8.1)."""
    from cardwar.envs.skirmish import vehicles

    if not v.v.can_move:
        return {}
    occupied = options.known_taken(s, v.side, but=v)  # never a hex its side cannot know is taken (§9.2)
    return vehicles.vehicle_moves(s.scenario.board, v.v, speed, occupied=occupied, fraction=fraction,
                                  open_doors=s.open_doors)


# ============================================================================ picture cards
def knave_event(s: SkirmishState, side: int, card: int, unit: Any) -> None:
    """A Jack's default event by suit (§3.2)."""
    suit = card_suit(card)
    if suit == Suit.SPADES:
        board = s.scenario.board
        cells = [c for c in range(N_CELLS) if board.ground[c].name != "OFF"]
        aim = cells[int(s.rng.integers(len(cells)))]
        s.log(f"a stray shell lands on {aim}")
        resolve.blast(s, side, aim, 2, "wound")
    elif isinstance(unit, Soldier):
        if suit == Suit.CLUBS and unit.fig.weapon in FIREARMS:
            unit.jammed = True
            s.log(f"{unit.name}'s weapon jams")
        elif suit == Suit.DIAMONDS:
            unit.reserve = unit.starting_reserve
            s.log(f"{unit.name} is resupplied")
        elif suit == Suit.HEARTS and unit.fig.wounds == 1:
            unit.fig.wounds = 0
            s.log(f"{unit.name}'s wound was only a flesh wound")


# ============================================================================ end of turn and victory
def _end_turn(s: SkirmishState) -> None:
    """Courageous acts end (§3.4), fires burn (§6.4), victory and the turn limit (§10)."""
    _end_courage(s)
    for u in s.soldiers():
        if u.burning and u.fig.active:
            u.burning += 1
            if u.burning % 2 == 1:  # the second end of turn after it caught fire, then every second
                s.log(f"{u.name} burns")
                resolve.wound(s, u, 1 - u.side)
    for u in s.units:
        if isinstance(u, Tank) and s.orders.get(u.uid) is None:
            u.v.end_turn(moved=False)
    _check_sudden_end(s)
    if s.over:
        return
    if s.turn >= s.scenario.turn_limit:
        _final_result(s)
        return
    _start_turn(s)


def _check_exits(s: SkirmishState) -> None:
    """``exit`` victory: figures of the exiting side on the named edge leave the table (§10)."""
    v = s.scenario.victory
    if v.kind != "exit":
        return
    for u in s.soldiers(v.exit_side):
        if u.active and _on_edge(u.cell, v.exit_edge, s.scenario.width, s.scenario.height):
            u.exited = True
            s.exited[u.side] += 1
            s.log(f"{u.name} leaves the table")


def _on_edge(cell: int, edge: str, width: int, height: int) -> bool:
    """On the scenario map's own edge (the map as drawn, not the padded 24 x 16 grid)."""
    from cardwar.envs.skirmish.actions import WIDTH

    col, row = cell % WIDTH, cell // WIDTH
    return {"east": col == width - 1, "west": col == 0, "north": row == 0, "south": row == height - 1}[edge]


def _check_sudden_end(s: SkirmishState) -> None:
    """A side with no active figure loses at once; an exit or destroy goal met ends the game (§10)."""
    if s.over:
        return
    alive = [bool(s.active_units(side)) for side in (0, 1)]
    v = s.scenario.victory
    if v.kind == "exit" and s.exited[v.exit_side] >= v.exit_count:
        _finish(s, v.exit_side, END_REASONS["exit"])
    elif v.kind == "destroy" and _target_gone(s):
        _finish(s, 1 - _target_side(s), END_REASONS["destroyed"])
    elif not alive[0] or not alive[1]:
        _finish(s, None if alive[0] == alive[1] else (0 if alive[0] else 1), END_REASONS["no_unit"])


def _target_side(s: SkirmishState) -> int:
    for u in s.units:
        if u.name == s.scenario.victory.target:
            return u.side
    return 1


def _target_gone(s: SkirmishState) -> bool:
    for u in s.units:
        if u.name == s.scenario.victory.target:
            return not u.active
    return False


def _final_result(s: SkirmishState) -> None:
    v = s.scenario.victory
    if v.kind == "objectives":
        points = [0, 0]
        for cell, p in (v.objectives or {}).items():
            owner = s.objective_owner.get(cell)
            if owner is not None:
                points[owner] += p
        s.objective_points = points
        _finish(s, None if points[0] == points[1] else int(points[1] > points[0]), END_REASONS["objectives"])
    elif v.kind == "casualties":
        a, b = s.casualty_points
        _finish(s, None if a == b else int(b > a), END_REASONS["casualties"])
    elif v.kind == "exit":
        _finish(s, 1 - v.exit_side, END_REASONS["no_exit"])
    else:  # destroy, not done in time
        _finish(s, _target_side(s), END_REASONS["survived"])


END_REASONS = {
    "exit": "figures left the table",
    "destroyed": "target destroyed",
    "no_unit": "no active unit left",
    "objectives": "objective points at the turn limit",
    "casualties": "casualty points at the turn limit",
    "no_exit": "no exit by the turn limit",
    "survived": "target survived the turn limit",
}
"""Why a skirmish ended (the result's ``reason``), one for each end of RULES.md §10: an exit made, the target
destroyed, a side with no active unit (at once); the objectives' or casualty points, an exit not made or a target
not destroyed (at the turn limit)."""


def _finish(s: SkirmishState, winner: int | None, reason: str) -> None:
    s.over, s.winner, s.decision, s.end_reason = True, winner, None, reason
    s.undisclosed = {}  # the result tells every casualty point (§10)
    s.log("the game is over: " + ("a draw" if winner is None else f"{s.scenario.sides[winner]} win"))


STAGES: dict[Stage, Callable[[SkirmishState], None]] = {
    Stage.DECLARE_MOVE: _declare_move,
    Stage.MOVING: _moving,
    Stage.AFTER_MOVE_FIRE: _after_move_fire,
    Stage.DECLARE_COMBAT: _declare_combat,
    Stage.END_TURN: _end_turn,
    Stage.DECK: _deck,
    Stage.ACTIVATE: _activate,
}
"""What each stage does when the machine runs it (setup has no step: :func:`start_game` leaves it)."""
ANSWERS: dict[Stage, Callable[[SkirmishState, Decision, int], None]] = {
    Stage.DECLARE_MOVE: _answer_declare_move,
    Stage.MOVING: _answer_moving,
    Stage.AFTER_MOVE_FIRE: _answer_after_move_fire,
    Stage.DECLARE_COMBAT: _answer_declare_combat,
    Stage.ACTIVATE: _answer_activate,
}

