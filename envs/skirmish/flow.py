"""The turn sequence as a machine of stages (RULES.md §7): it runs until a seat must decide, asks one small
step (§9.1), takes the answer, and runs on.

Phases (§7.1): ``declare_move`` -> ``moving`` -> ``declare_combat`` -> ``combat`` -> ``end_turn``.
Deck (§7.2): ``deck`` (draw an activation card) -> ``activate`` (a figure, its activity, its parameters,
resolved at once; a move runs through ``moving``) -> ... -> ``end_turn`` when the deck is spent.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from cardwar.envs.skirmish import moving, options, resolve
from cardwar.envs.skirmish.actions import CHOICE, N_CELLS, TARGETED, Step
from cardwar.envs.skirmish.cards import Suit, card_rank, card_suit
from cardwar.envs.skirmish.figures import Stance
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
    if s.rules.sequence == "deck":
        s.deck = _build_deck(s)
        s.stage = "deck"
    else:
        s.queue = [u.uid for side in (0, 1) for u in s.active_units(side)]
        s.cursor = {}
        s.stage = "declare_move"


# ============================================================================ phases: movement declaration
def _next_declarer(s: SkirmishState, when_all_done: Callable[[SkirmishState], None], **start: Any) -> bool:
    """Start the next queued unit's declaration (``start`` seeds its cursor); when none is left, run
    ``when_all_done`` and return False."""
    if not s.cursor:
        if not s.queue:
            when_all_done(s)
            return False
        s.cursor.update(unit=s.queue.pop(0), **{k: v() if callable(v) else v for k, v in start.items()})
    return True


def _declare_move(s: SkirmishState) -> None:
    if not _next_declarer(s, _reveal_moves, order=Order, step=Step.MODE):
        return
    c = s.cursor
    u = s.units[c["unit"]]
    order: Order = c["order"]
    step = c["step"]
    if isinstance(u, Tank):
        if step == Step.MODE:
            speeds = _vehicle_speeds(u)
            ask(s, u.side, Step.MODE, u.uid, {choice(f"speed_{k}"): k for k in speeds})
        else:
            dests = _vehicle_paths(s, u, c["speed"])
            ask(s, u.side, Step.DESTINATION, u.uid, {d: d for d in dests})
        return
    if step == Step.MODE:
        legal = {choice("stay"): "stay"}
        for mode in ("crawl", "search", "walk", "run"):
            if options.mode_open(s, u, mode):
                legal[choice(mode)] = mode
        if _may_play_king(s, u):
            legal[choice("king")] = "king"
        ask(s, u.side, Step.MODE, u.uid, legal)
    elif step == Step.DESTINATION:
        c["paths"] = options.move_paths(s, u, order.mode)
        ask(s, u.side, Step.DESTINATION, u.uid, {d: d for d in c["paths"]})
    elif step == Step.STANCE:
        stances = options.stance_options(s, u, order.mode, order.path)
        ask(s, u.side, Step.STANCE, u.uid, {choice(Stance(x).name.lower()): int(x) for x in stances})
    elif step == Step.WATCH:
        ask(s, u.side, Step.WATCH, u.uid, {choice("watch"): True, choice("no_watch"): False})


def _answer_declare_move(s: SkirmishState, d: Decision, action: int) -> None:
    c = s.cursor
    u = s.units[c["unit"]]
    order: Order = c["order"]
    value = d.legal[action]
    if isinstance(u, Tank):
        if d.step == Step.MODE:
            c["speed"] = value
            order.mode = f"speed_{value}"
            u.v.speed = value
            if not _vehicle_paths(s, u, value):
                _finish_declaration(s)
            else:
                c["step"] = Step.DESTINATION
        else:
            order.destination = value
            order.path = _vehicle_paths(s, u, c["speed"])[value]
            _finish_declaration(s)
        return
    if d.step == Step.MODE:
        if value == "king":
            resolve.play_king(s, u, hidden=True)
            return
        order.mode = value
        c["step"] = Step.STANCE if value == "stay" else Step.DESTINATION
    elif d.step == Step.DESTINATION:
        order.destination = value
        order.path = c["paths"][value]
        c["step"] = Step.STANCE
    elif d.step == Step.STANCE:
        order.stance = value
        if order.mode == "stay" and options.can_watch(s, u):
            c["step"] = Step.WATCH
        else:
            _finish_declaration(s)
    elif d.step == Step.WATCH:
        order.watch = value
        _finish_declaration(s)


def _private_unless_seen(s: SkirmishState, u: Soldier | Tank) -> int | None:
    """A declaration is public when the other side sees the unit; otherwise only its own side reads it."""
    return None if u.uid in s.seen[1 - u.side] else u.side


def _finish_declaration(s: SkirmishState) -> None:
    c = s.cursor
    s.orders[c["unit"]] = c["order"]
    s.cursor = {}


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
    s.stage = "moving"
    s.cursor = {"resume": "after_moves"}


# ============================================================================ movement, tick by tick
def _moving(s: SkirmishState) -> None:
    while True:
        if s.interrupts:
            uid, _ = s.interrupts[0]
            w = s.units[uid]
            cells = moving.could_fire_at_passing(s, w, s.cursor.get("passed", {}))
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
        s.cursor["passed"] = {u.uid: s.entered[u.uid][before.get(u.uid, 0):] for u in moved}
        for u in moved:
            u.moved = True
        if moved and _interrupting(s):
            s.interrupts = moving.watchers_for(s, s.cursor["passed"])
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
    victim = moving.mover_at(s, s.cursor["passed"], target, w.side)
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
    resume = s.cursor.get("resume")
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
    if resume == "after_moves":
        if s.rules.opportunity_fire == "after_move":
            s.queue = [u for u in s.orders if s.orders[u].watch]
            s.stage = "after_move_fire"
            s.cursor = {}
            return
        _begin_combat_declarations(s)
    else:  # a deck move is over: back to the activation
        for uid in [u for u, o in s.orders.items() if o.mode in ("move", "all_out_run")]:
            del s.orders[uid]
            _end_courage(s, [uid])
        s.stage = "activate"
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
    s.cursor = {}
    s.combat_revealed = False
    s.stage = "declare_combat"


def _declare_combat(s: SkirmishState) -> None:
    if not _next_declarer(s, _resolve_combat, step=Step.ACTION, targets=list):
        return
    s.orders.setdefault(s.cursor["unit"], Order())
    _ask_action_step(s, deck=False)


def _ask_action_step(s: SkirmishState, *, deck: bool) -> None:
    c = s.cursor
    u = s.units[c["unit"]]
    if c["step"] == Step.ACTION:
        acts = options.action_options(s, u, deck=deck)
        if deck and s.rules.deck_opportunity_fire and options.can_watch(s, u):
            acts.append("watch")
        if deck and _may_play_king(s, u):
            acts.append("king")
        ask(s, u.side, Step.ACTION, u.uid, {choice(a): a for a in acts})
    elif c["step"] == Step.TARGET:
        cells = options.targets_for(s, u, c["action"], c["targets"])
        legal: dict[int, Any] = {cell: cell for cell in cells}
        if c["action"] == "burst" and c["targets"] and options.burst_complete(s, c["targets"]):
            legal[choice("done")] = None
        if c["action"] == "burst" and c["targets"] and len(c["targets"]) >= 2 and not cells and \
                choice("done") not in legal:
            legal[choice("done")] = None
        if not legal:
            legal[choice("done")] = None
        ask(s, u.side, Step.TARGET, u.uid, legal)
    elif c["step"] == Step.DESTINATION:
        c["paths"] = options.move_paths(s, u, c["action"]) if isinstance(u, Soldier) else \
            _vehicle_paths(s, u, 1, fraction=DECK_FRACTION)
        ask(s, u.side, Step.DESTINATION, u.uid, {d: d for d in c["paths"]})
    elif c["step"] == Step.STANCE:
        stances = options.stance_options(s, u, c["action"], c["path"])
        ask(s, u.side, Step.STANCE, u.uid, {choice(Stance(x).name.lower()): int(x) for x in stances})


def _answer_action_step(s: SkirmishState, d: Decision, action: int) -> bool:
    """Record the answer; True once the unit's action is complete."""
    c = s.cursor
    value = d.legal[action]
    if d.step == Step.ACTION:
        if value == "king":
            resolve.play_king(s, s.units[c["unit"]], hidden=False)
            return False
        c["action"] = value
        if value in ("move", "all_out_run"):
            c["step"] = Step.DESTINATION
            return False
        if value in TARGETED:
            c["step"] = Step.TARGET
            return False
        return True
    if d.step == Step.TARGET:
        if value is None:  # done
            return True
        if c["action"] == "burst":
            if c["targets"] and s.scenario.board.distance(c["targets"][-1], value) == 2:
                c["targets"].append(None)  # the phantom middle target (§5.4)
            c["targets"].append(value)
            return len(c["targets"]) >= 3
        c["targets"].append(value)
        return True
    if d.step == Step.DESTINATION:
        c["path"] = c["paths"][value]
        c["destination"] = value
        if isinstance(s.units[c["unit"]], Tank):
            return True
        c["step"] = Step.STANCE
        return False
    if d.step == Step.STANCE:
        c["stance"] = value
        return True
    return True


def _answer_declare_combat(s: SkirmishState, d: Decision, action: int) -> None:
    if _answer_action_step(s, d, action):
        c = s.cursor
        order = s.orders.setdefault(c["unit"], Order())
        order.action, order.targets = c["action"], list(c["targets"])
        s.cursor = {}


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
    s.stage = "end_turn"


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
        s.stage = "end_turn"
        return
    s.card = card = tuple(s.deck.pop())
    s.log(f"activation card: {_card_name(s, card)}")
    kind = card[0]
    if kind == "team":
        units = _team_units(s, card[1], card[2])
        s.cursor = {"side": card[1], "eligible": [u.uid for u in units], "single": False}
    elif kind == "free":
        side = card[1]
        if s.rules.free_move == "team":
            teams = sorted({u.team for u in s.active_units(side) if isinstance(u, Soldier)})[:4]
            if not teams:
                return
            s.cursor = {"side": side, "teams": teams}
            s.stage = "activate"
            return
        s.cursor = {"side": side, "eligible": [u.uid for u in s.active_units(side)], "single": True}
    elif kind == "figure":
        u = s.units[card[1]]
        s.cursor = {"side": u.side, "eligible": [u.uid] if u.active else [], "single": True}
    else:  # vehicle
        u = s.units[card[1]]
        s.cursor = {"side": u.side, "eligible": [u.uid] if u.active else [], "single": True}
    s.stage = "activate"


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
    c = s.cursor
    if "teams" in c:
        side, teams = c["side"], c["teams"]
        ask(s, side, Step.TEAM, None, {choice(f"team_{i}"): t for i, t in enumerate(teams)})
        return
    if "unit" in c:
        _ask_action_step(s, deck=True)
        return
    eligible = [uid for uid in c["eligible"] if s.units[uid].active]
    c["eligible"] = eligible
    if not eligible:
        s.stage = "deck"
        s.cursor = {}
        _check_sudden_end(s)
        return
    legal: dict[int, Any] = {s.units[uid].cell: uid for uid in eligible}
    if not c.get("single") or len(eligible) > 1:
        legal[choice("done")] = None
    ask(s, c["side"], Step.ACTIVATE, None, legal)


def _answer_activate(s: SkirmishState, d: Decision, action: int) -> None:
    c = s.cursor
    value = d.legal[action]
    if d.step == Step.TEAM:
        side = c["side"]
        s.cursor = {"side": side, "eligible": [u.uid for u in _team_units(s, side, value)], "single": False}
        return
    if d.step == Step.ACTIVATE:
        if value is None:
            s.stage, s.cursor = "deck", {}
            return
        c["unit"], c["step"], c["targets"] = value, Step.ACTION, []
        c["eligible"] = [] if c.get("single") else [u for u in c["eligible"] if u != value]
        return
    if not _answer_action_step(s, d, action):
        return
    _deck_activity(s)


def _deck_activity(s: SkirmishState) -> None:
    """Carry out a deck activity at once (§7.2)."""
    c = s.cursor
    u = s.units[c.pop("unit")]
    act, targets = c.pop("action"), c.pop("targets")
    c.pop("step", None)
    u.acted = True
    if act in ("move", "all_out_run"):
        path, stance = c.pop("path"), c.pop("stance", None)
        c.pop("paths", None)
        c.pop("destination", None)
        s.orders[u.uid] = Order(mode=act, path=path, stance=stance)
        s.schedule = {u.uid: moving.schedule_path(s, u, path, len(path), Stance.STANDING, False, one_per_tick=True)}
        s.entered = {}
        if isinstance(u, Soldier):
            u.ran = act == "all_out_run"
        s.tick = 0
        s.interrupts = []
        s.stage = "moving"
        s.cursor = {"resume": c}
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
        _finish(s, v.exit_side)
    elif v.kind == "destroy" and _target_gone(s):
        _finish(s, 1 - _target_side(s))
    elif not alive[0] or not alive[1]:
        _finish(s, None if alive[0] == alive[1] else (0 if alive[0] else 1))


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
        _finish(s, None if points[0] == points[1] else int(points[1] > points[0]))
    elif v.kind == "casualties":
        a, b = s.casualty_points
        _finish(s, None if a == b else int(b > a))
    elif v.kind == "exit":
        _finish(s, 1 - v.exit_side)
    else:  # destroy, not done in time
        _finish(s, _target_side(s))


def _finish(s: SkirmishState, winner: int | None) -> None:
    s.over, s.winner, s.decision = True, winner, None
    s.undisclosed = {}  # the result tells every casualty point (§10)
    s.log("the game is over: " + ("a draw" if winner is None else f"{s.scenario.sides[winner]} win"))


STAGES = {
    "declare_move": _declare_move,
    "moving": _moving,
    "after_move_fire": _after_move_fire,
    "declare_combat": _declare_combat,
    "end_turn": _end_turn,
    "deck": _deck,
    "activate": _activate,
}
ANSWERS = {
    "declare_move": _answer_declare_move,
    "moving": _answer_moving,
    "after_move_fire": _answer_after_move_fire,
    "declare_combat": _answer_declare_combat,
    "activate": _answer_activate,
}

