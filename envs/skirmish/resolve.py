"""Carrying out actions: fire, bursts, throws, melee, anti-tank and HE fire, reloads, work, fire-fighting
(RULES.md §2.2, §4.4, §5, §6, §8). Each function draws what it needs from the acting side's pack (§3.1)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cardwar.envs.skirmish import combat, vehicles
from cardwar.envs.skirmish.cards import QUEEN, card_rank, card_to_str, is_red
from cardwar.envs.skirmish.figures import Stance, halve
from cardwar.envs.skirmish.scenario import label
from cardwar.envs.skirmish.sight import update_sight
from cardwar.envs.skirmish.units import Soldier, Tank
from cardwar.envs.skirmish.weapons import (
    FIREARMS, FULL_AUTO_PENALTY, FULL_AUTO_ROUNDS, HIGH_EXPLOSIVE, THROWN, AntiTank, AntiTankResult, Armour,
)

if TYPE_CHECKING:
    from cardwar.envs.skirmish.state import SkirmishState

SKILL_OF = {"fire": "shoot", "burst": "shoot", "anti_tank": "shoot", "he": "shoot", "clear_jam": "shoot",
            "grenade": "throw", "petrol_bomb": "throw", "knife": "throw", "melee": "melee"}
"""The skill each action draws against (§5)."""


# ---------------------------------------------------------------------------- skills and cover
def base_skill(u: Soldier | Tank, action: str) -> int:
    """The skill number before cover: wounds halve it, running halves Shoot (§2.4, §4.1)."""
    if isinstance(u, Tank):
        return u.shoot
    name = SKILL_OF[action]
    skill = u.fig.skill(name)
    if name == "shoot" and u.ran:
        skill = halve(skill)
    return skill


def target_cover(s: SkirmishState, u: Soldier | Tank, target: Soldier | Tank) -> int:
    """Cover of a fire's target (§5.2), with ``prone_cover`` (§2.1); a vehicle's hex gives its cover too."""
    board = s.scenario.board
    cover = board.cover(target.cell, u.cell, open_doors=s.open_doors)
    if isinstance(target, Tank) and s.riders(target):
        cover = max(cover, 1)  # exposed crew: light cover (§8.2)
    if (s.rules.prone_cover and isinstance(target, Soldier) and target.fig.stance == Stance.PRONE
            and board.distance(u.cell, target.cell) > 2):
        cover = max(cover, 1)
    return cover


def effective(s: SkirmishState, u: Soldier | Tank, action: str, targets: list[int]) -> int:
    """The number the action's card is drawn against, deciding the combat order (§5.7)."""
    skill = base_skill(u, action) if action in SKILL_OF else 0
    if action in ("fire", "burst", "knife", "anti_tank") and targets and targets[0] is not None:
        target = s.unit_at(targets[0])
        if target is not None:
            skill -= target_cover(s, u, target)
    elif action in ("grenade", "petrol_bomb") and targets and s.rules.thrown_cover == "hex":
        skill -= s.scenario.board.hex_cover(targets[0])
    return skill


def succeeds(s: SkirmishState, skill: int, card: int) -> bool | None:
    """Success of a skill draw; ``None`` for Lady Luck's black Queen (a mishap, §3.3)."""
    if card_rank(card) == QUEEN:
        return True if is_red(card) else None
    return combat.succeeds(skill, card)


def reveal_skill(s: SkirmishState, u: Soldier | Tank, action: str, skill: int, card: int) -> None:
    """A draw is public: its card and the number drawn against (§9.2)."""
    if isinstance(u, Soldier) and action in SKILL_OF:
        u.revealed.add(SKILL_OF[action])
    s.log(f"{u.name} {action}: {card_to_str(card)} against {skill}", card=card, side=u.side)


# ---------------------------------------------------------------------------- harm
def wound(s: SkirmishState, target: Soldier | Tank, by_side: int, n: int = 1) -> None:
    """Wounds (§2.4); casualty points to the other side (§10); an incapacitated figure lies prone."""
    if isinstance(target, Tank):
        return
    if target.uid in s.courage and target.fig.active:  # held pending until the act ends (§3.4)
        s.courage[target.uid][1] += n
        s.log(f"{target.name} is hit, and fights on")
        return
    before = target.fig.wounds
    target.fig.wound(n)
    added = target.fig.wounds - before
    if added <= 0:
        return
    s.casualty_points[1 - target.side] += added  # to the side that did not lose the figure (§10)
    if not s.seen_by_enemy(target):  # its enemy saw nothing: it counts them when it sees the figure (§9.2)
        s.undisclosed[target.uid] = s.undisclosed.get(target.uid, 0) + added
    status = ("wounded", "incapacitated", "dead")[min(target.fig.wounds, 3) - 1]
    s.log(f"{target.name} is {status}")
    if not target.fig.active:
        target.fig.stance = Stance.PRONE
        target.burning = 0
        update_sight(s)  # it no longer watches for its side (§1.4)


def small_arms_hit(s: SkirmishState, u: Soldier | Tank, target: Soldier | Tank) -> None:
    """A successful fire: a wound, or a damage point off an un-armoured vehicle (§8.2)."""
    if isinstance(target, Tank):
        exposed = [r for r in s.riders(target) if r.fig.active]
        if exposed and target.armour is not Armour.U:  # exposed crew are fired at as figures (§8.2)
            wound(s, exposed[0], u.side)
            return
        if vehicles.small_arms_hit(target.v):
            s.log(f"{target.name} loses a damage point" + (" and is destroyed" if target.v.destroyed else ""))
            vehicle_out(s, target, u.side)
        return
    wound(s, target, u.side)


def end_courage(s: SkirmishState, u: Soldier) -> None:
    """The courageous act is over: a card of the King's colour makes the wounds flesh wounds; the other colour
    applies them, and the figure is mentioned in dispatches (§3.4)."""
    king, pending, _ = s.courage.pop(u.uid)
    card = s.draw(u.side)
    s.packs[u.side].play_retained(king)
    s.log(f"{u.name}'s courageous act ends: {card_to_str(card)}", card=card, side=u.side)
    if is_red(card) == is_red(king):
        if pending:
            s.log(f"{u.name}'s wounds were only flesh wounds")
        return
    if pending:
        s.log(f"{u.name} is mentioned in dispatches")
        wound(s, u, 1 - u.side, pending)


def play_king(s: SkirmishState, u: Soldier, *, hidden: bool) -> None:
    """Play a kept King on ``u`` (§3.4); during hidden declarations only its own side knows until the reveal."""
    king = s.kings[u.side].pop(0)
    s.courage[u.uid] = [king, 0, not hidden]
    s.log(f"{u.name} plays a King for King and Country", card=king, side=u.side, seat=u.side if hidden else None)


def jam(s: SkirmishState, u: Soldier | Tank, *, anti_tank: bool = False) -> None:
    """Lady Luck's black Queen: the weapon used jams until cleared (§3.3)."""
    if isinstance(u, Soldier):
        if anti_tank:
            u.at_jammed = True
        else:
            u.jammed = True
        s.log(f"{u.name}'s weapon jams (Lady Luck)")


# ---------------------------------------------------------------------------- ammunition
def rounds_needed(s: SkirmishState, u: Soldier | Tank, burst: bool) -> int:
    arm = FIREARMS.get(u.fig.weapon if isinstance(u, Soldier) else (u.machine_gun or ""))
    if arm is None:
        return 0
    return arm.rounds_per_turn * (FULL_AUTO_ROUNDS if burst else 1)


def has_rounds(s: SkirmishState, u: Soldier | Tank, burst: bool) -> bool:
    if isinstance(u, Tank) or s.rules.ammunition == "unlimited":
        return True
    return (u.fig.ammo or 0) >= rounds_needed(s, u, burst)


def spend(s: SkirmishState, u: Soldier | Tank, burst: bool) -> None:
    if isinstance(u, Soldier) and s.rules.ammunition == "tracked":
        u.fig.ammo = max(0, (u.fig.ammo or 0) - rounds_needed(s, u, burst))


# ---------------------------------------------------------------------------- actions
def do_fire(s: SkirmishState, u: Soldier | Tank, target_cell: int, card: int, skill: int) -> None:
    """Single fire at one target: one card (``rounds="draws"``: one per round) (§2.2, §5.1)."""
    spend(s, u, False)
    target = s.unit_at(target_cell)
    reveal_skill(s, u, "fire", skill, card)
    if target is None or not target.active:
        return
    draws = 1
    if s.rules.rounds == "draws":
        draws = rounds_needed(s, u, False) or 1
    for i in range(draws):
        if i:
            card = s.draw(u.side, skill=True, unit=u)
            reveal_skill(s, u, "fire", skill, card)
        ok = succeeds(s, skill, card)
        if ok is None:
            jam(s, u)
            return
        if ok and target.active:
            small_arms_hit(s, u, target)


def do_burst(s: SkirmishState, u: Soldier | Tank, targets: list[int | None], card: int) -> None:
    """Full-automatic fire (§5.4): a card per target in order at 0, -1, -2, less each target's cover; the
    phantom middle slot (None) draws nothing; three times the rounds."""
    spend(s, u, True)
    skill0 = base_skill(u, "burst")
    slots = list(targets)
    if len(slots) == 1 and s.rules.auto_one_target:
        slots = slots * 3
    for i, cell in enumerate(slots[:3]):
        if cell is None:
            continue
        if i:
            card = s.draw(u.side, skill=True, unit=u)
        target = s.unit_at(cell)
        if target is None or not target.active:
            continue
        skill = skill0 - FULL_AUTO_PENALTY[i] - target_cover(s, u, target)
        reveal_skill(s, u, "burst", skill, card)
        ok = succeeds(s, skill, card)
        if ok is None:
            jam(s, u)
            return
        if ok:
            small_arms_hit(s, u, target)


def blast(s: SkirmishState, side: int, landing: int | None, radius: int, effect: str) -> None:
    """Every figure in the radius and in sight of the burst draws a colour: red wounds or sets on fire;
    an un-armoured vehicle loses a point on red (§6.3)."""
    if landing is None:
        s.log("it lands off the table")
        return
    board = s.scenario.board
    cells = set(board.blast(landing, radius, open_doors=s.open_doors))
    for t in list(s.units):
        if not t.on_table or t.cell not in cells:
            continue
        if isinstance(t, Tank):
            if t.armour is not Armour.U or not t.active:
                continue
        secret = not s.seen_by_enemy(t)  # its enemy does not see it: the umpire draws, and tells its side (§9.2)
        card = s.draw_for(t, side=side)
        s.private_to = t.side if secret else None
        try:
            s.log(f"blast on {t.name}: {card_to_str(card)}", card=None if secret else card, side=side)
            if is_red(card):
                _blast_effect(s, t, side, card, effect)
        finally:
            s.private_to = None


def _blast_effect(s: SkirmishState, t: Soldier | Tank, side: int, card: int, effect: str) -> None:
    """A red effect card (§6.3): an un-armoured vehicle loses a point, a figure is set on fire or wounded."""
    if isinstance(t, Tank):
        vehicles.blast_hit(t.v, card)
        vehicle_out(s, t, side)
    elif effect == "on_fire":
        if t.fig.active and not t.burning:
            t.burning = 1
            s.log(f"{t.name} is on fire")
    else:
        wound(s, t, side)


def land(s: SkirmishState, u: Soldier | Tank, aim: int, ok: bool) -> int | None:
    """Where a thrown weapon or HE round lands: the aim, or where it scatters (§6.2)."""
    if ok:
        return aim
    result = combat.scatter(s.scenario.board, aim, lambda: s.draw(u.side), open_doors=s.open_doors)
    s.log(f"it scatters to {'off the table' if result.landing is None else label(result.landing)}")
    return result.landing


def do_throw(s: SkirmishState, u: Soldier, weapon: str, aim: int, card: int, skill: int) -> None:
    """A grenade or petrol bomb at a hex (§6.1-6.3); Lady Luck's black Queen drops it at his feet (§3.3)."""
    if weapon == "grenade":
        u.fig.grenades -= 1
    else:
        u.petrol_bombs -= 1
    reveal_skill(s, u, weapon, skill, card)
    ok = succeeds(s, skill, card)
    landing = u.cell if ok is None else land(s, u, aim, bool(ok))
    spec = THROWN[weapon]
    blast(s, u.side, landing, spec.radius_hexes, spec.effect)


def do_knife(s: SkirmishState, u: Soldier, target_cell: int, card: int, skill: int) -> None:
    """A thrown knife hits or misses (§5.3)."""
    u.knives -= 1
    reveal_skill(s, u, "knife", skill, card)
    target = s.unit_at(target_cell)
    if target is not None and target.active and succeeds(s, skill, card):
        small_arms_hit(s, u, target)


def do_melee(s: SkirmishState, u: Soldier, target_cell: int, card: int, skill: int) -> None:
    """Melee (§5.6): ``strike`` one draw; ``opposed`` both draw."""
    target = s.unit_at(target_cell)
    reveal_skill(s, u, "melee", skill, card)
    if target is None or not target.active or not isinstance(target, Soldier):
        return
    ok = succeeds(s, skill, card)
    if ok is None:  # Lady Luck's mishap: a wound from his target
        wound(s, u, target.side)
        return
    if s.rules.melee == "strike":
        if ok:
            wound(s, target, u.side)
        return
    other = s.draw(target.side, skill=True, unit=target)
    target_skill = target.fig.skill("melee")
    reveal_skill(s, target, "melee", target_skill, other)
    hurt_attacker, hurt_defender = combat.melee_opposed(skill, target_skill, card, other)
    if hurt_defender:
        wound(s, target, u.side)
    if hurt_attacker:
        wound(s, u, target.side)


def _at_category(u: Soldier | Tank) -> AntiTank | None:
    return u.gun if isinstance(u, Tank) else u.at_category()


def do_anti_tank(s: SkirmishState, u: Soldier | Tank, target_cell: int, card: int, skill: int) -> None:
    """Anti-tank fire (§8.3): the successful card's suit picks the table's cell, a new card odd or even."""
    _spend_round(u)
    reveal_skill(s, u, "anti_tank", skill, card)
    target = s.unit_at(target_cell)
    ok = succeeds(s, skill, card)
    if ok is None:
        jam(s, u, anti_tank=True)
        return
    if not ok or not isinstance(target, Tank) or not target.active:
        return
    weapon = _at_category(u)
    result = vehicles.table_result(target.armour, weapon, card)
    follow = None if result is AntiTankResult.NO_EFFECT else s.draw(u.side)
    out = vehicles.anti_tank_hit(target.v, weapon, card, follow)
    s.log(f"{target.name}: {out.effect.value}", card=follow, side=u.side)
    vehicle_out(s, target, u.side)


def vehicle_out(s: SkirmishState, v: Tank, by_side: int) -> None:
    """A vehicle just put out of action (abandoned or destroyed): its occupants get out (§8.2), and the
    scenario's casualty points for it go to the other side (§10). Once only."""
    if v.active or v.uid in s.vehicles_out:
        return
    s.vehicles_out.add(v.uid)
    update_sight(s)
    s.casualty_points[1 - v.side] += s.scenario.victory.vehicle_points
    dismount_all(s, v, hurt=v.v.destroyed, by_side=by_side)


def dismount_all(s: SkirmishState, v: Tank, *, hurt: bool, by_side: int) -> None:
    """Occupants of a destroyed vehicle each draw, red wounds; survivors (and an abandoning crew, unhurt)
    get down into free adjacent hexes, or stay on the wreck's hex if none is free (§8.2)."""
    board = s.scenario.board
    for r in s.riders(v):
        if hurt:
            card = s.draw(by_side)
            s.log(f"{r.name} in the wreck: {card_to_str(card)}", card=card, side=by_side)
            if is_red(card):
                wound(s, r, by_side)
        free = [c for c in board.neighbours(v.cell) if s.unit_at(c) is None]
        r.aboard = None
        if free:
            r.cell = free[0]
        elif r.on_table:
            r.aboard = v.uid  # nowhere to go: stays with the wreck


def _spend_round(u: Soldier | Tank) -> None:
    if isinstance(u, Tank):
        u.gun_ammo -= 1
    else:
        u.at_ammo -= 1


def do_he(s: SkirmishState, u: Soldier | Tank, aim: int, card: int, skill: int) -> None:
    """Anti-personnel HE (§8.4): a point of aim, a Shoot draw, a miss scatters, a blast of the category."""
    _spend_round(u)
    reveal_skill(s, u, "he", skill, card)
    ok = succeeds(s, skill, card)
    if ok is None:
        jam(s, u, anti_tank=True)
        return
    landing = land(s, u, aim, bool(ok))
    blast(s, u.side, landing, HIGH_EXPLOSIVE[_at_category(u)].radius_hexes, "wound")


def do_reload(s: SkirmishState, u: Soldier) -> None:
    """Refill the magazine from the reserve (§2.2)."""
    arm = FIREARMS[u.fig.weapon]
    take = min(arm.magazine - (u.fig.ammo or 0), u.reserve)
    u.fig.ammo = (u.fig.ammo or 0) + take
    u.reserve -= take
    s.log(f"{u.name} reloads")


def do_clear_jam(s: SkirmishState, u: Soldier, card: int, skill: int) -> None:
    reveal_skill(s, u, "clear_jam", skill, card)
    if succeeds(s, skill, card):
        u.jammed = u.at_jammed = False
        s.log(f"{u.name} clears the jam")


def do_work(s: SkirmishState, u: Soldier) -> None:
    """A card of work on setting up the MMG (§4.4): 4 cards."""
    u.work += 1
    if u.work >= FIREARMS["mmg"].setup_cards:
        u.deployed = True
        s.log(f"{u.name}'s MMG is set up")


def do_extinguish(s: SkirmishState, u: Soldier, target_cell: int) -> None:
    """One attempt to put out a burning figure: black puts it out (§6.4)."""
    target = s.unit_at(target_cell)
    card = s.draw(u.side)
    s.log(f"{u.name} fights the fire on {getattr(target, 'name', '?')}: {card_to_str(card)}", card=card, side=u.side)
    if isinstance(target, Soldier) and not is_red(card):
        target.burning = 0
        s.log(f"{target.name}'s fire is out")


def perform(s: SkirmishState, u: Soldier | Tank, action: str, targets: list, card: int | None, skill: int) -> None:
    """Carry out one declared action (the card already drawn for skill draws)."""
    if action == "fire":
        do_fire(s, u, targets[0], card, skill)
    elif action == "burst":
        do_burst(s, u, targets, card)
    elif action in ("grenade", "petrol_bomb"):
        do_throw(s, u, action, targets[0], card, skill)
    elif action == "knife":
        do_knife(s, u, targets[0], card, skill)
    elif action == "melee":
        do_melee(s, u, targets[0], card, skill)
    elif action == "anti_tank":
        do_anti_tank(s, u, targets[0], card, skill)
    elif action == "he":
        do_he(s, u, targets[0], card, skill)
    elif action == "reload":
        do_reload(s, u)
    elif action == "clear_jam":
        do_clear_jam(s, u, card, skill)
    elif action == "work":
        do_work(s, u)
    elif action == "extinguish":
        do_extinguish(s, u, targets[0])


__all__ = ["SKILL_OF", "effective", "perform", "wound"]
