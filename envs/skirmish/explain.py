"""Words for a person at the table: why a skirmish answer is refused, and what the step in front asks.

Everything here reads the seat's information view only (RULES.md §9.2): its own units, what it sees of the
enemy, and the public map and rules the view carries (terrain, edges and options are public, §9.2). It never
sees the other side's orders, skills, Kings, unseen figures or mines, so a reason can only say what the seat
could work out itself. The engine's mask decides what is legal; these functions are asked about an answer the
mask refused and say which rule refuses it, citing RULES.md by section.
"""

from __future__ import annotations

from math import ceil
from typing import Any

from cardwar.envs.skirmish.actions import CHOICES, COMBAT_ACTIONS, GRID, MODES, N_ACTIONS, N_CELLS, STANCES, Step, \
    action_name
from cardwar.envs.skirmish.figures import ALL_OUT_RUN_HEXES, MOVE_HEXES, STANCE_MOVE_HEXES, MoveMode, Stance
from cardwar.envs.skirmish.weapons import AT_WEAPONS, FIREARMS, FULL_AUTO_ROUNDS, THROWN

SPEEDS = tuple(f"speed_{k}" for k in range(4))
TEAMS = tuple(f"team_{k}" for k in range(4))
DECK_MOVES = ("move", "all_out_run")

STEP_QUESTIONS: dict[Step, str] = {
    Step.MODE: "its movement mode: stay, crawl, search, walk or run (RULES.md §4.1), or king (§3.4)",
    Step.DESTINATION: "the hex it moves to (RULES.md §4.3)",
    Step.STANCE: "the stance it ends in: prone, kneeling or standing (RULES.md §2.3, §4.1)",
    Step.WATCH: "whether it declares opportunity fire: watch or no_watch (RULES.md §5.5)",
    Step.ACTION: "its combat action, such as fire, grenade, reload or nothing (RULES.md §5.7)",
    Step.TARGET: "a target hex, or done once the action may stop (RULES.md §5, §5.4)",
    Step.INTERRUPT: "the hex of an enemy mover to fire at now, or hold (RULES.md §5.5)",
    Step.ACTIVATE: "the hex of the figure of the activated team to act next, or done (RULES.md §7.2)",
    Step.TEAM: "which fire team the Free Move activates: team_0 .. team_3 (RULES.md §7.2)",
}
"""What each step asks (RULES.md §9.1's table)."""


def _a(mode: str) -> str:
    """``"a walk"``, ``"an all-out run"``: a mode or activity in words."""
    words = {"all_out_run": "all-out run", "move": "move"}.get(mode, mode)
    return ("an " if words[0] in "aeiou" else "a ") + words


def _label(cell: int | None) -> str:
    return "-" if cell is None or cell < 0 else GRID.label(cell)


def _unit(view: Any, uid: int | None) -> Any:
    return next((u for u in view.units if u.uid == uid), None)


def _who(u: Any) -> str:
    return f"{u.name} at {_label(u.cell)}" if u is not None else "the unit"


def _mode(view: Any) -> str | None:
    """The movement this decision is about: the phases' declared mode, or a deck move activity."""
    return view.partial.get("mode") or (view.partial.get("action") if view.partial.get("action") in DECK_MOVES
                                        else None)


def _expected(view: Any, u: Any) -> set[int]:
    """The answers of the right kind for the step (the mask picks among them)."""
    step, deck = view.step, view.sequence == "deck"
    hexes = set(range(N_CELLS))
    named = {
        Step.MODE: (SPEEDS if u is not None and u.vehicle else (*MODES, "king")),
        Step.DESTINATION: (), Step.STANCE: STANCES, Step.WATCH: ("watch", "no_watch"),
        Step.ACTION: (*COMBAT_ACTIONS, *((*DECK_MOVES, "watch", "king") if deck else ())),
        Step.TARGET: ("done",), Step.INTERRUPT: ("hold",), Step.ACTIVATE: ("done",), Step.TEAM: TEAMS,
    }[step]
    out = {N_CELLS + CHOICES.index(n) for n in named}
    if step in (Step.DESTINATION, Step.TARGET, Step.INTERRUPT, Step.ACTIVATE):
        out |= hexes
    return out


def _wrong_kind(view: Any, u: Any, action: int) -> str:
    name = action_name(action)
    step = view.step
    if step == Step.ACTION and name in DECK_MOVES:
        return (f"{name} is an activity of the deck sequence (RULES.md §4.2, §7.2); in the phases sequence a "
                "figure moves at its movement declaration (§4.1) and now declares its combat action")
    if step == Step.MODE and name in DECK_MOVES:
        return f"{name} is a deck activity (RULES.md §4.2); in the phases sequence a figure declares crawl, " \
               "search, walk or run (§4.1)"
    if step == Step.MODE and u is not None and u.vehicle and name in MODES:
        return f"{_who(u)} is a vehicle: it declares a speed, speed_0 .. speed_3 (RULES.md §8.1)"
    if step == Step.MODE and name in SPEEDS:
        return f"speeds are for vehicles (RULES.md §8.1); {_who(u)} is a figure"
    kind = "a hex" if action < N_CELLS else f"'{name}'"
    about = f" for {_who(u)}" if u is not None else ""
    return f"the {step.name.lower()} step{about} asks {STEP_QUESTIONS[step]}; {kind} answers another question"


def _option(view: Any, name: str) -> Any:
    """A rule option in force (RULES.md §12), or None when the view does not carry the rules."""
    return getattr(getattr(view, "rules", None), name, None)


def why_illegal(view: Any, action: int, board: Any = None) -> str | None:
    """The rule that refuses ``action`` for the seat of ``view`` (the mask refused it), from the view only:
    ``board`` is the public map, by default the one the view carries. None when the view shows nothing
    against it."""
    if board is None and getattr(view, "scenario", None) is not None:
        board = view.scenario.board
    if view.over:
        return "the game is over (RULES.md §10)"
    if not isinstance(action, int) or not 0 <= action < N_ACTIONS:
        return f"no action {action!r}: ids run 0..{N_ACTIONS - 1}"
    if view.step is None:
        return "it is not your decision now: the other side is deciding (RULES.md §9.1)"
    u = _unit(view, view.unit)
    if action not in _expected(view, u):
        return _wrong_kind(view, u, action)
    name = action_name(action)
    step = view.step
    if step == Step.MODE:
        return _mode_reason(view, u, name)
    if step == Step.DESTINATION:
        return _destination_reason(view, u, action, board)
    if step == Step.STANCE:
        return _stance_reason(view, u, name)
    if step == Step.ACTION:
        return _action_reason(view, u, name)
    if step == Step.TARGET:
        return _target_reason(view, u, action)
    if step == Step.INTERRUPT:
        return _interrupt_reason(view, u, action)
    if step == Step.ACTIVATE:
        return _activate_reason(view, action)
    if step == Step.TEAM:
        k = TEAMS.index(name)
        return (f"{name}: you have no fire team {k} with an active figure (a Free Move activates a team that still "
                "has one, RULES.md §7.2)")
    return None


# ---------------------------------------------------------------------------- movement (§4, §8.1)
def _riding(view: Any, u: Any) -> bool:
    return u is not None and not u.vehicle and any(
        o.vehicle and o.side == u.side and o.cell == u.cell for o in view.units)


def _allowance(u: Any, mode: str) -> int:
    """The mode's hexes after a wound, less the quarter for rising from prone (RULES.md §2.4, §4.1, §4.2)."""
    if mode == "move":
        base = STANCE_MOVE_HEXES[Stance(u.stance)]
    elif mode == "all_out_run":
        base = ALL_OUT_RUN_HEXES if u.stance == Stance.STANDING else 0
    else:
        base = MOVE_HEXES[MoveMode[mode.upper()]]
    full = ceil(base / 2) if u.wounds == 1 else base
    if mode in ("search", "walk", "run") and u.stance == Stance.PRONE:
        return full - ceil(full / 4)
    return full


def _mode_reason(view: Any, u: Any, name: str) -> str:
    if name == "king":
        if _option(view, "king_and_country") is False:
            return ("For King and Country is an optional rule, off in this game (king_and_country=true turns it "
                    "on, RULES.md §3.4)")
        if not view.kings:
            return "you hold no King: a King is kept when drawn, and played for King and Country (RULES.md §3.4)"
        return ("a King is played once, on a figure about to act, with the rule option king_and_country "
                "(RULES.md §3.4)")
    if name in SPEEDS:
        if "tracks" in u.damage or "destroyed" in u.damage or "abandoned" in u.damage:
            return f"{_who(u)} cannot move: {', '.join(u.damage)} (RULES.md §8.2, §8.3)"
        return ("a vehicle may go up one speed step a turn and down any amount (RULES.md §8.1); "
                f"{name} is not within that from its speed now")
    if u.deployed:
        return f"{_who(u)} has set up its MMG on its tripod: it cannot move (RULES.md §2.2)"
    if _riding(view, u):
        return ("a rider only gets down, as a walk to a free hex next to its vehicle, and only while the vehicle "
                "is at rest (RULES.md §8.1)")
    hexes = _allowance(u, name)
    if hexes <= 0:
        return f"rising from prone costs a quarter of the move (RULES.md §4.1), which uses up {_a(name)}'s allowance"
    return (f"no hex is open to {_a(name)} of {_who(u)} ({hexes} hex{'es' if hexes > 1 else ''}): every step out "
            "costs more than that, or is held by another unit (RULES.md §1.2 terrain, §1.3 edges, §4.3; a runner "
            "avoids rough ground, woods and obstacles)")


def _destination_reason(view: Any, u: Any, cell: int, board: Any) -> str:
    mode = _mode(view)
    where = GRID.label(cell)
    if board is not None and not board.on_map(cell):
        return f"{where} is off the map (RULES.md §1.1)"
    if u is None:
        return f"{where} cannot be reached now (RULES.md §4.3)"
    if u.vehicle:
        return (f"{where} is not reachable by {_who(u)} at the declared speed: one hex and one facing a step, "
                "within the speed's distance and the terrain's limits (RULES.md §8.1)")
    if _riding(view, u):
        return ("a rider gets down to a free hex next to its vehicle, only while the vehicle is at rest "
                "(RULES.md §8.1)")
    if cell == u.cell and mode != "move":
        return f"{_who(u)} is already at {where}; to stay there, declare stay (RULES.md §4.1)"
    other = next((o for o in view.units if o.cell == cell and o.uid != u.uid and o.seen and (o.active or o.vehicle)),
                 None)
    if other is not None:
        whose = "your" if other.side == u.side else "an enemy"
        return (f"{where} is held by {whose} {'vehicle' if other.vehicle else 'figure'} {other.name}: a move may "
                "pass a friend's hex but ends only in a free one, and goes round the enemy it knows of "
                "(RULES.md §4.3)")
    if mode is None:
        return f"{where} cannot be reached now (RULES.md §4.3)"
    hexes = _allowance(u, mode)
    d = GRID.distance(u.cell, cell)
    if d > max(hexes, 1):
        rule = "§4.2" if mode in DECK_MOVES else "§4.1"
        return f"{where} is {d} hexes from {_who(u)}; {_a(mode)} takes it at most {max(hexes, 1)} (RULES.md {rule})"
    if mode == "all_out_run" and not _in_line(u.cell, cell):
        return "an all-out run goes in a straight line along one hex row, over smooth ground (RULES.md §4.2)"
    ground = ""
    if board is not None:
        ground = f" ({board.ground[cell].name.lower().replace('_', ' ')})"
    return (f"no path to {where}{ground} within {max(hexes, 1)} movement points for {_a(mode)}: rough ground and "
            "woods cost 2, walls and hedges +1 or the whole move, buildings are entered by doors and windows, "
            "a runner crosses no obstacle (RULES.md §1.2, §1.3, §1.5)")


def _in_line(a: int, b: int) -> bool:
    """Whether ``b`` lies along one of the six hex rows from ``a`` (RULES.md §4.2's straight line)."""
    for direction in range(6):
        c = a
        for _ in range(GRID.distance(a, b)):
            c = GRID.steps(c)[direction]
            if c < 0:
                break
        if c == b:
            return True
    return False


def _stance_reason(view: Any, u: Any, name: str) -> str:
    mode = _mode(view) or view.partial.get("mode")
    if mode == "crawl":
        return "a crawl ends prone (RULES.md §4.1)"
    if mode == "all_out_run":
        return f"{_a(mode)} ends standing (RULES.md §4.2)"
    if name == "prone":
        return ("going prone costs a quarter of the move (RULES.md §4.1), and this path leaves no room for it; "
                "end kneeling or standing, or declare a shorter move")
    return f"{name} is not open after this move (RULES.md §4.1)"


# ---------------------------------------------------------------------------- actions (§5, §6, §8)
def _enemies(view: Any, u: Any, vehicles: bool | None = None) -> list[Any]:
    return [o for o in view.units if o.side != u.side and o.seen and o.active
            and (vehicles is None or o.vehicle == vehicles)]


def _firearm_reason(u: Any, rounds: int) -> str | None:
    """What stops ``u`` firing a fire of ``rounds`` rounds, or None."""
    arm = FIREARMS.get(u.weapon)
    if arm is None:
        return f"{_who(u)} carries no firearm ({u.weapon}) (RULES.md §2.2)"
    if u.jammed:
        return f"{_who(u)}'s {arm.name} is jammed: clear_jam first (RULES.md §3.3)"
    if arm.key == "mmg" and not u.deployed:
        return "an MMG fires only once set up on its tripod: 4 cards of work (RULES.md §2.2, §4.4)"
    if u.ammo is not None and u.ammo < rounds:
        return (f"{_who(u)}'s magazine holds {u.ammo} rounds and this fire needs {rounds}: reload first "
                "(RULES.md §2.2)")
    return None


def _range_text(u: Any) -> str:
    arm = FIREARMS.get(u.weapon)
    if arm is None:
        return ""
    if arm.key == "mmg":
        return "any hex in sight"
    near, far = arm.range_for(False), arm.range_for(True)
    return f"{near} hexes" + (f" ({far} prone and unmoved, on its bipod)" if far != near else "")


def _action_reason(view: Any, u: Any, name: str) -> str:
    deck = view.sequence == "deck"
    if name == "king":
        return _mode_reason(view, u, "king")
    if name == "watch":
        if _option(view, "deck_opportunity_fire") is False:
            return ("opportunity fire in the deck sequence is an optional rule, off in this game "
                    "(deck_opportunity_fire=true turns it on, RULES.md §7.2)")
        return ("watching is the deck's opportunity fire, an option (deck_opportunity_fire, RULES.md §7.2), and "
                "needs a firearm that can fire now (§5.5)")
    if name == "move":
        return f"{_who(u)} cannot move: riding a vehicle that is moving, or behind a set-up MMG (RULES.md §4.2, §8.1)"
    if name == "all_out_run":
        if u.stance != Stance.STANDING:
            return "only a standing figure makes an all-out run (RULES.md §4.2)"
        return ("an all-out run needs a straight line along one hex row over smooth ground with no obstacle "
                "(RULES.md §4.2), and there is none from here")
    if u.vehicle:
        return _vehicle_action_reason(view, u, name)
    arm = FIREARMS.get(u.weapon)
    enemies = _enemies(view, u)
    if name in ("fire", "burst"):
        rounds = (arm.rounds_per_turn if arm else 0) * (FULL_AUTO_ROUNDS if name == "burst" else 1)
        why = _firearm_reason(u, rounds)
        if why:
            return why
        if name == "burst" and not arm.full_auto:
            return f"a {arm.name} fires single shots only: full auto is for SMGs, LMGs and MMGs (RULES.md §2.2, §5.4)"
        if not enemies:
            return "your side sees no active enemy to fire at (RULES.md §1.4, §5.1)"
        if name == "burst":
            one = " (one target is enough only with the option auto_one_target=true)" \
                if not _option(view, "auto_one_target") else ""
            return ("a burst needs two enemy targets within 2 hexes of each other, both in range and sight"
                    f"{one} (RULES.md §5.4)")
        return f"no enemy your side sees is in range ({_range_text(u)}) and in {u.name}'s own sight (RULES.md §5.1)"
    if name in ("grenade", "petrol_bomb"):
        left = u.grenades if name == "grenade" else u.petrol_bombs
        if not left:
            return f"{_who(u)} has no {name.replace('_', ' ')}s left (RULES.md §6.1)"
        return (f"no hex within {THROWN[name].range_hexes} hexes (2 when prone or crawling) that {u.name} sees "
                "(RULES.md §6.1)")
    if name == "knife":
        if not u.knives:
            return f"{_who(u)} has no knives (RULES.md §5.3)"
        return "a knife is thrown at an enemy figure in sight within 2 hexes, 1 when prone or crawling (RULES.md §5.3)"
    if name == "melee":
        return ("melee strikes an enemy figure your side sees in an adjacent hex, across an edge a standing man "
                "could cross (RULES.md §5.6)")
    if name == "reload":
        if arm is None:
            return f"{_who(u)} has no firearm to reload (RULES.md §2.2)"
        if _option(view, "ammunition") == "unlimited":
            return "ammunition is unlimited in this game: nothing to reload (ammunition=unlimited, RULES.md §2.2)"
        if u.ammo is not None and u.ammo >= arm.magazine:
            return f"{_who(u)}'s magazine is full ({u.ammo} rounds) (RULES.md §2.2)"
        if not u.reserve:
            return f"{_who(u)} has no rounds left in reserve (RULES.md §2.2)"
        return ("reloading counts rounds, and ammunition is unlimited in this game "
                "(ammunition=unlimited, RULES.md §2.2)")
    if name == "clear_jam":
        return f"nothing of {_who(u)}'s is jammed (RULES.md §3.3)"
    if name == "work":
        if u.weapon != "mmg":
            return "the one task of work is setting up an MMG, by the figure carrying it (RULES.md §4.4)"
        return f"{_who(u)}'s MMG is set up already (RULES.md §2.2, §4.4)"
    if name == "extinguish":
        return ("no figure of yours is burning here or in an adjacent hex: a fire is put out by the burning figure "
                "or an adjacent friend (RULES.md §6.4)")
    if name in ("anti_tank", "he"):
        if u.at_weapon is None or u.at_weapon not in AT_WEAPONS:
            return f"{_who(u)} carries no anti-tank weapon (RULES.md §8.3)"
        if u.at_jammed:
            return f"{_who(u)}'s anti-tank weapon is jammed: clear_jam first (RULES.md §3.3)"
        if not u.at_ammo:
            return f"{_who(u)} has no anti-tank rounds left (RULES.md §8.3)"
        if name == "anti_tank":
            return "no enemy vehicle is in sight (RULES.md §8.3)"
        return "HE is fired at a hex in sight at least 2 hexes away (RULES.md §8.4), and there is none"
    if name == "nothing":
        return "nothing is always open; this step asks something else (RULES.md §5.7)"
    return f"{name} is not open to {_who(u)} now (RULES.md §{'7.2' if deck else '5.7'})"


def _vehicle_action_reason(view: Any, u: Any, name: str) -> str:
    weapons = u.weapon.split(",") if u.weapon else []
    if name in ("fire", "burst"):
        if not any(w in FIREARMS for w in weapons):
            return f"{_who(u)} has no machine gun (RULES.md §8.3)"
        return ("no enemy in range and sight of its machine gun" + (" within 2 hexes of another (a burst, §5.4)"
                if name == "burst" else "") + "; a turret that cannot traverse fires only ahead (RULES.md §8.3)")
    if name in ("anti_tank", "he"):
        if not any(w in AT_WEAPONS for w in weapons):
            return f"{_who(u)} has no gun (RULES.md §8.3)"
        if not u.at_ammo:
            return f"{_who(u)}'s gun has no rounds left (RULES.md §8.3)"
        return "no enemy vehicle in sight of the gun (RULES.md §8.3)" if name == "anti_tank" else \
            "HE is fired at a hex in sight at least 2 hexes away (RULES.md §8.4)"
    return f"a vehicle fires its machine gun or gun, or moves (deck); {name} is for figures (RULES.md §8)"


def _target_reason(view: Any, u: Any, action: int) -> str:
    act = view.partial.get("action")
    chosen = [t for t in view.partial.get("targets") or [] if t is not None]
    if action >= N_CELLS:  # done
        if act == "burst":
            return ("a burst stops after two targets (a phantom middle counts) or one with auto_one_target "
                    "(RULES.md §5.4)")
        return f"{act or 'the action'} needs its target first (RULES.md §5)"
    where = GRID.label(action)
    if u is None:
        return f"{where} is not a target now (RULES.md §5)"
    d = GRID.distance(u.cell, action)
    here = [o for o in view.units if o.cell == action and o.seen and (o.active or o.vehicle)]
    if act in ("grenade", "petrol_bomb"):
        if action == u.cell:
            return "a thrower does not aim at its own hex (RULES.md §6.1)"
        reach = THROWN[act].range_for(u.stance == Stance.PRONE)
        if d > reach:
            return f"{where} is {d} hexes away; a {act.replace('_', ' ')} reaches {reach} (RULES.md §6.1)"
        return (f"{u.name} cannot see {where}: a throw goes at a hex in the thrower's own sight, or next to it "
                "(RULES.md §6.1, §1.4)")
    if act == "he":
        return (f"HE goes at a hex {u.name} sees, at least 2 hexes away (RULES.md §8.4)" if d > 1
                else "HE is not fired at an adjacent hex (RULES.md §8.4)")
    if act == "extinguish":
        return "extinguish names a burning figure of yours: itself or an adjacent friend (RULES.md §6.4)"
    if not here:
        return f"your side sees no unit at {where} (RULES.md §1.4, §9.2)"
    target = here[0]
    if target.side == u.side:
        return f"{where} holds your own {target.name}: fire and throws go at the enemy (RULES.md §5.1)"
    if act == "anti_tank" and not target.vehicle:
        return "anti-tank fire is at vehicles (RULES.md §8.3)"
    if act in ("knife", "melee") and target.vehicle:
        return f"a {act} is for enemy figures, not vehicles (RULES.md §5.3, §5.6)"
    if act == "melee":
        return (f"{where} is {d} hexes away; melee is with an adjacent figure (RULES.md §5.6)" if d > 1 else
                "melee crosses only an edge a standing man could cross: not a building wall or embrasure "
                "(RULES.md §5.6)")
    if act == "knife":
        reach = 1 if u.stance == Stance.PRONE else 2
        if d > reach:
            return f"{where} is {d} hexes away; a knife reaches {reach} (RULES.md §5.3)"
    if act == "burst" and chosen:
        gap = GRID.distance(chosen[-1], action)
        if action in chosen:
            return f"{where} is named already; a burst's targets are different units (RULES.md §5.4)"
        if gap > (2 if len(chosen) == 1 else 1):
            return (f"each target of a burst is adjacent to the one before (2 hexes apart only for the second, with a "
                    f"phantom between); {where} is {gap} from {_label(chosen[-1])} (RULES.md §5.4)")
    if act in ("fire", "burst") and not u.vehicle:
        arm = FIREARMS.get(u.weapon)
        reach = arm.range_for(u.stance == Stance.PRONE and not u.moved and arm.key == "lmg") if arm else 0
        if reach is not None and d > reach:
            return f"{where} is {d} hexes from {_who(u)}; its {arm.name} reaches {reach} (RULES.md §2.2, §5.1)"
    return (f"{u.name} has no line of sight to {where}: woods, buildings, head-high walls and hedges, closed doors or "
            "vehicles in between block it, and from a building only its openings see out (RULES.md §1.4)")


def _interrupt_reason(view: Any, u: Any, action: int) -> str:
    where = GRID.label(action)
    movers = [o for o in view.units if o.cell == action and o.seen and o.side != (u.side if u else view.seat)]
    if not movers:
        return f"no enemy mover your side sees is at {where}: opportunity fire is at those moving (RULES.md §5.5)"
    return (f"{_who(u)} cannot fire at {where}: out of its range or sight (RULES.md §5.5, §1.4)")


def _activate_reason(view: Any, action: int) -> str:
    if action >= N_CELLS:
        return "this card's one unit must act: done is not offered (RULES.md §7.2)"
    where = GRID.label(action)
    mine = [o for o in view.units if o.cell == action and o.side == view.seat]
    if not mine:
        return f"no unit of yours is at {where}; answer with the hex of a figure of the activated team (RULES.md §7.2)"
    u = mine[0]
    if not u.active:
        return f"{u.name} is out of action (RULES.md §2.4)"
    return (f"{u.name} is not on this activation card, or has acted on it already: each figure of the activated "
            "team acts once (RULES.md §7.2)")


# ---------------------------------------------------------------------------- the question
def decision_note(view: Any) -> str | None:
    """One line on the step in front of the seat: the unit, what is asked and the rule, or None when the seat
    is not deciding."""
    if view.over or view.step is None:
        return None
    u = _unit(view, view.unit)
    step = view.step
    parts = []
    if u is not None:
        kit = []
        if not u.vehicle:
            kit.append(Stance(u.stance).name.lower())
            if u.wounds:
                kit.append("wounded" if u.wounds == 1 else "incapacitated")
            arm = FIREARMS.get(u.weapon)
            if arm is not None:
                kit.append(f"{arm.name} {u.ammo if u.ammo is not None else '?'} rounds, range {_range_text(u)}")
            if u.grenades:
                kit.append(f"{u.grenades} grenade{'s' if u.grenades > 1 else ''}")
        parts.append(f"{u.name} at {_label(u.cell)}" + (f" ({', '.join(kit)})" if kit else ""))
    question = STEP_QUESTIONS[step]
    if step == Step.MODE and u is not None and u.vehicle:
        question = "its speed: speed_0 (stop) .. speed_3, up one step a turn, down any amount (RULES.md §8.1)"
    if step == Step.ACTION and view.sequence == "deck":
        question = "its activity: move, all_out_run, or an action such as fire or reload (RULES.md §7.2)"
    if step == Step.DESTINATION:
        mode = _mode(view)
        if mode and u is not None and not u.vehicle:
            hexes = max(_allowance(u, mode), 1)
            plural = "es" if hexes > 1 else ""
            rules = "§4.2" if mode in DECK_MOVES else "§4.1, §4.3"
            question = f"the hex it moves to, {_a(mode)} of at most {hexes} hex{plural} (RULES.md {rules})"
    lead = f"Decide for {parts[0]}: " if parts else "Decide: "
    card = _card_words(view) if step in (Step.ACTIVATE, Step.TEAM) else ""
    return lead + question + card


def _card_words(view: Any) -> str:
    """The activation card in front of the seat (deck sequence, RULES.md §7.2) and, for a fire team's card, the
    team's active figures."""
    card = view.activation
    if not card:
        return ""
    if card[0] == "team":
        names = ", ".join(_who(u) for u in view.units if u.side == view.seat and not u.vehicle and u.team == card[2]
                          and u.active)
        return f"; the card is your fire team {card[2]} (team_{card[2]})" + (f": {names}" if names else "")
    if card[0] == "free":
        return "; the card is a Free Move"
    who = card[1]
    u = _unit(view, who) if isinstance(who, int) else next((x for x in view.units if x.name == who), None)
    return f"; the card is {_who(u) if u is not None else who}'s own"


__all__ = ["STEP_QUESTIONS", "decision_note", "why_illegal"]
