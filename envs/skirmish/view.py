"""What one side may know (RULES.md §9.2): the information view every observation, render, log line and
message for a seat is built from. Never in it: the enemy's undeclared or unrevealed orders, its skills,
its Kings, unseen figures, unspotted mines, the order of any pack or of the activation deck."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

from cardwar.envs.skirmish.actions import Step
from cardwar.envs.skirmish.pending import declaring
from cardwar.envs.skirmish.units import Soldier, Tank

if TYPE_CHECKING:
    from cardwar.envs.skirmish.state import SkirmishState


class UnitView(NamedTuple):
    """A unit as a side sees it; ``None`` in a field the side may not know (a named tuple: a view is
    built at every step, for every unit)."""

    uid: int
    name: str
    side: int
    team: int
    vehicle: bool
    cell: int
    seen: bool
    """Seen now (own units always); otherwise ``cell`` is where it was last seen."""
    stance: int
    wounds: int
    weapon: str
    burning: bool
    active: bool
    skills: dict[str, int] | None = None
    ammo: int | None = None
    reserve: int | None = None
    grenades: int | None = None
    petrol_bombs: int | None = None
    knives: int | None = None
    at_weapon: str | None = None
    at_ammo: int | None = None
    jammed: bool | None = None
    deployed: bool = False
    moved: bool = False
    ran: bool = False
    watching: bool | None = None
    armour: str | None = None
    facing: int | None = None
    damage: tuple[str, ...] = ()
    order: dict[str, Any] | None = None
    at_jammed: bool | None = None
    """Its anti-tank weapon is jammed (own units only)."""


@dataclass(frozen=True)
class SkirmishView:
    """Everything ``seat`` may know now."""

    seat: int
    turn: int
    turn_limit: int
    sequence: str
    stage: str
    to_move: int | None
    step: Step | None
    unit: int | None
    """The own unit the current decision is about (the seat's own decision only)."""
    partial: dict[str, Any] = field(default_factory=dict)
    units: tuple[UnitView, ...] = ()
    drawn: tuple[tuple[int, ...], tuple[int, ...]] = ((), ())
    pack_sizes: tuple[int, int] = (0, 0)
    discard_sizes: tuple[int, int] = (0, 0)
    kings: tuple[int, ...] = ()
    enemy_kings: int = 0
    activation: tuple | None = None
    deck_left: int = 0
    objectives: dict[int, int] = field(default_factory=dict)
    objective_owner: dict[int, int] = field(default_factory=dict)
    casualty_points: tuple[int, int] = (0, 0)
    open_doors: frozenset = frozenset()
    mines: tuple[int, ...] = ()
    tick: int = 0
    events: tuple[str, ...] = ()
    """This turn's log lines this seat may read."""
    over: bool = False
    winner: int | None = None
    scenario: Any = field(default=None, compare=False, repr=False)
    """The public map played on: a :class:`Scenario` with no figure (board, objectives, victory terms; RULES.md
    §9.2: both sides know the map). Not in :meth:`to_dict`; a served agent gets it from ``new_game``."""
    rules: Any = field(default=None, compare=False, repr=False)
    """The rules in force (:class:`SkirmishRules`, public). Not in :meth:`to_dict`: ``new_game`` carries them."""

    def to_dict(self) -> dict[str, Any]:
        """The view as JSON-safe data (RULES.md §9.2: exactly what the seat may know, nothing added): the
        step by name, each unit as a dict of its fields, dicts with hex keys and the open doors as lists of
        pairs. :meth:`from_dict` gives back an equal view."""
        out: dict[str, Any] = {name: getattr(self, name) for name in _PLAIN_FIELDS}
        out.update(
            step=None if self.step is None else self.step.name.lower(),
            partial=_copy_json(self.partial),
            units=[_unit_to_dict(u) for u in self.units],
            drawn=[list(self.drawn[0]), list(self.drawn[1])],
            pack_sizes=list(self.pack_sizes), discard_sizes=list(self.discard_sizes),
            kings=list(self.kings), casualty_points=list(self.casualty_points), mines=list(self.mines),
            activation=None if self.activation is None else list(self.activation),
            objectives=[[c, p] for c, p in self.objectives.items()],
            objective_owner=[[c, side] for c, side in self.objective_owner.items()],
            open_doors=sorted([a, b] for a, b in self.open_doors),
            events=list(self.events))
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> SkirmishView:
        """The inverse of :meth:`to_dict`; :class:`ViewDataError` (a ValueError) names what is wrong."""
        try:
            step = d["step"]
            return cls(
                **{name: d[name] for name in _PLAIN_FIELDS},
                step=None if step is None else Step[str(step).upper()],
                partial=_copy_json(d["partial"]),
                units=tuple(_unit_from_dict(u) for u in d["units"]),
                drawn=(tuple(d["drawn"][0]), tuple(d["drawn"][1])),
                pack_sizes=(d["pack_sizes"][0], d["pack_sizes"][1]),
                discard_sizes=(d["discard_sizes"][0], d["discard_sizes"][1]),
                kings=tuple(d["kings"]), casualty_points=(d["casualty_points"][0], d["casualty_points"][1]),
                mines=tuple(d["mines"]),
                activation=None if d["activation"] is None else tuple(d["activation"]),
                objectives={c: p for c, p in d["objectives"]},
                objective_owner={c: side for c, side in d["objective_owner"]},
                open_doors=frozenset((a, b) for a, b in d["open_doors"]),
                events=tuple(d["events"]))
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            raise ViewDataError(f"not a skirmish view: {type(exc).__name__} {exc}") from None


class ViewDataError(ValueError):
    """A dict that is not a skirmish view's :meth:`SkirmishView.to_dict`."""


_PLAIN_FIELDS = ("seat", "turn", "turn_limit", "sequence", "stage", "to_move", "unit", "enemy_kings", "deck_left",
                 "tick", "over", "winner")
"""Fields JSON keeps as they are (ints, strings, booleans, None)."""


def _copy_json(value: Any) -> Any:
    """A deep copy of the plain data in a partial decision or an order (dicts, lists, scalars)."""
    if isinstance(value, dict):
        return {k: _copy_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_copy_json(v) for v in value]
    return value


def _unit_to_dict(u: UnitView) -> dict[str, Any]:
    out = u._asdict()
    out["damage"] = list(u.damage)
    out["skills"] = None if u.skills is None else dict(u.skills)
    out["order"] = _copy_json(u.order)
    return out


def _unit_from_dict(d: dict[str, Any]) -> UnitView:
    unknown = set(d) - set(UnitView._fields)
    if unknown:
        raise KeyError(f"unit fields {sorted(unknown)}")
    fields = dict(d)
    fields["damage"] = tuple(d.get("damage", ()))
    if fields.get("skills") is not None:
        fields["skills"] = dict(fields["skills"])
    fields["order"] = _copy_json(d.get("order"))
    return UnitView(**fields)


def _order_view(s: SkirmishState, uid: int, own: bool) -> dict[str, Any] | None:
    """A unit's orders as the seat knows them: its own in full; a seen enemy's once revealed (§9.1), the move's
    mode and watch but not its destination (HtD declares the "Movement Mode"), unless ``reveal_destinations``."""
    order = s.orders.get(uid)
    if order is None:
        return None
    out: dict[str, Any] = {}
    if own or s.moves_revealed or s.rules.sequence == "deck":
        out.update(mode=order.mode, watch=order.watch)
        if own or s.rules.reveal_destinations:
            out["destination"] = order.destination
    if own or s.combat_revealed:
        out.update(action=order.action, targets=list(order.targets))
    return out or None


def _unit_view(s: SkirmishState, u: Soldier | Tank, seat: int) -> UnitView | None:
    own = u.side == seat
    seen = own or u.uid in s.seen[seat]
    if not seen and u.uid not in s.last_seen[seat]:
        return None
    cell = u.cell if seen else s.last_seen[seat][u.uid]
    order = _order_view(s, u.uid, own) if seen or own else None
    if isinstance(u, Tank):
        v = u.v
        damage = tuple(k for k, on in (("tracks", v.immobilised), ("turret", v.turret_jammed),
                                       ("abandoned", v.abandoned), ("destroyed", v.destroyed)) if on)
        return UnitView(uid=u.uid, name=u.name, side=u.side, team=-1, vehicle=True, cell=cell, seen=seen, stance=2,
                        wounds=0, weapon=",".join(v.weapons), burning=False,
                        active=u.active if seen else s.last_look[seat].get(u.uid, (2, 0, False, True))[3],
                        armour=v.armour.value, facing=v.facing if seen else None, damage=damage if seen else (),
                        at_ammo=u.gun_ammo if own else None, moved=u.moved if seen else False, order=order,
                        skills={"shoot": u.shoot} if own else None)
    f = u.fig
    orders = s.orders.get(u.uid)
    if own:
        sk = f.skills
        return UnitView(u.uid, u.name, u.side, u.team, False, cell, True, int(f.stance), f.wounds, f.weapon,
                        bool(u.burning), u.active,
                        {"shoot": sk.shoot, "throw": sk.throw, "melee": sk.melee, "field_craft": sk.field_craft},
                        f.ammo, u.reserve, f.grenades, u.petrol_bombs, u.knives, u.at_weapon, u.at_ammo, u.jammed,
                        u.deployed, u.moved, u.ran, bool(orders and orders.watch), None, None, (), order,
                        u.at_jammed)
    if seen:
        watching = (bool(orders and orders.watch and not u.watch_fired)
                    if s.rules.sequence == "deck" or s.moves_revealed else None)
        return UnitView(u.uid, u.name, u.side, u.team, False, cell, True, int(f.stance), f.wounds, f.weapon,
                        bool(u.burning), u.active, deployed=u.deployed, moved=u.moved, ran=u.ran, watching=watching,
                        order=order)
    stance, wounds, burning, active = s.last_look[seat].get(u.uid, (2, 0, False, True))  # as last seen
    return UnitView(u.uid, u.name, u.side, u.team, False, cell, False, stance, wounds, f.weapon, burning, active)


def _this_turn(events: list, turn: int) -> list:
    """The events of the turn in play (the whole record stays in ``state.events``)."""
    i = len(events)
    while i and events[i - 1].turn == turn:
        i -= 1
    return events[i:]


def information_view(s: SkirmishState, seat: int) -> SkirmishView:
    """The view of ``seat`` (RULES.md §9.2)."""
    d = s.decision
    mine = d is not None and d.seat == seat and not s.over
    units = tuple(v for v in (_unit_view(s, u, seat) for u in s.units) if v is not None)
    partial: dict[str, Any] = {}
    declaration = declaring(s.cursor) if mine else None
    if declaration is not None:
        partial = declaration.partial()
    events = tuple(e.text for e in _this_turn(s.events, s.turn) if e.seat is None or e.seat == seat)
    own_mines = tuple(sorted(c for c, side in (*s.mines.items(), *s.lifted_unseen.items()) if side == seat))
    return SkirmishView(
        seat=seat, turn=s.turn, turn_limit=s.scenario.turn_limit, sequence=s.rules.sequence, stage=str(s.stage),
        to_move=None if s.over or d is None else d.seat, step=d.step if mine else None,
        unit=d.unit if mine else None, partial=partial, units=units,
        drawn=(tuple(s.drawn[0]), tuple(s.drawn[1])),
        pack_sizes=(len(s.packs[0].draw_pile), len(s.packs[1].draw_pile)),
        discard_sizes=(len(s.packs[0].discards), len(s.packs[1].discards)),
        kings=tuple(s.kings[seat]), enemy_kings=len(s.kings[1 - seat]) + sum(
            1 for uid, entry in s.courage.items() if s.units[uid].side != seat and not entry[2]),
        activation=s.card if s.rules.sequence == "deck" else None, deck_left=len(s.deck),
        objectives=dict(s.scenario.victory.objectives or {}), objective_owner=dict(s.objective_owner),
        casualty_points=_known_casualty_points(s, seat), open_doors=s.open_doors, mines=own_mines,
        tick=s.tick, events=events, over=s.over, winner=s.winner, scenario=public_scenario(s.scenario),
        rules=s.rules)


_PUBLIC: dict[int, tuple[Any, Any]] = {}


def public_scenario(scenario: Any) -> Any:
    """``scenario`` without its figures, vehicles and mines (the public map; cached per scenario)."""
    hit = _PUBLIC.get(id(scenario))
    if hit is not None and hit[0] is scenario:
        return hit[1]
    from dataclasses import replace

    from cardwar.envs.skirmish.public_map import public_map

    shown = public_map(scenario)  # a generated map's name and story lose the seed that would rebuild its figures
    public = replace(scenario, figures=(), vehicles=(), mines=(), deck=None, name=shown["name"],
                     title=shown["title"], description=shown["description"])
    if len(_PUBLIC) > 256:
        _PUBLIC.clear()
    _PUBLIC[id(scenario)] = (scenario, public)
    return public


def _known_casualty_points(s: SkirmishState, seat: int) -> tuple[int, int]:
    """The casualty points as ``seat`` knows them: its own less those scored on enemies it has not seen since
    they were hit (§9.2, §10); the enemy's in full (its own figures' wounds are no secret to it)."""
    points = [s.casualty_points[0], s.casualty_points[1]]
    points[seat] -= sum(n for uid, n in s.undisclosed.items() if s.units[uid].side != seat)
    return points[0], points[1]
