"""The skirmish's rules engine: a state that asks one small decision at a time (RULES.md §7, §9.1).

Pure Python, no framework. ``SkirmishState(scenario, rules, seed)``; :attr:`seat` is the seat to decide
(``None`` once the game is over), :meth:`legal` its legal action ids, :meth:`apply` plays one. Everything
between two decisions (moves tick by tick, draws, resolution, end of turn) happens inside :meth:`apply`.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cardwar.envs.skirmish import flow
from cardwar.envs.skirmish.actions import N_ACTIONS, Step
from cardwar.envs.skirmish.cards import JACK, KING, QUEEN, Pack, Quality, card_rank, draw_core_skills, make_card
from cardwar.envs.skirmish.figures import Figure, Skills, Stance
from cardwar.envs.skirmish.pending import Pending, Stage
from cardwar.envs.skirmish.rules import SkirmishRules
from cardwar.envs.skirmish.scenario import Scenario
from cardwar.envs.skirmish.units import Order, Soldier, Tank
from cardwar.envs.skirmish.vehicles import Vehicle
from cardwar.envs.skirmish.weapons import FIREARMS

GENERIC_SKILL = {Quality.POOR: 4, Quality.REGULAR: 5, Quality.VETERAN: 6, Quality.ELITE: 7}
"""``skills="generic"``: the upper middle of each range (RULES.md §2.1)."""


TERMINAL = -4
"""``current_player`` once the game is over (OpenSpiel's ``pyspiel.PlayerId.TERMINAL``)."""


class SkirmishIllegalActionError(ValueError):
    """An action that is not legal now, with the reason."""


@dataclass
class Decision:
    """The question the seat to move is asked: its step, for which unit, and the legal answers."""

    seat: int
    step: Step
    unit: int | None
    legal: dict[int, Any]
    """Action id -> what it means (a hex, a choice)."""


@dataclass
class Event:
    """One line of the public record: a draw, a reveal, a wound. ``seat`` set: only that seat sees it."""

    turn: int
    text: str
    seat: int | None = None
    card: int | None = None
    side: int | None = None


@dataclass
class SkirmishState:
    """A skirmish in progress. Build it with :func:`new_state`."""

    scenario: Scenario
    rules: SkirmishRules
    rng: np.random.Generator
    units: list[Soldier | Tank]
    packs: list[Pack]
    turn: int = 0
    stage: Stage = Stage.SETUP
    decision: Decision | None = None
    orders: dict[int, Order] = field(default_factory=dict)
    moves_revealed: bool = False
    combat_revealed: bool = False
    queue: list[Any] = field(default_factory=list)
    """Pending work of the current stage (units still to declare, interrupts to ask, cards...)."""
    cursor: Pending = None
    """What the stage has half done (:mod:`pending`): a declaration and its answers so far, an activation
    card's choices, the moves in play; None between them."""
    tick: int = 0
    schedule: dict[int, list[tuple[int, int]]] = field(default_factory=dict)
    open_doors: frozenset = frozenset()
    seen: list[set[int]] = field(default_factory=lambda: [set(), set()])
    last_seen: list[dict[int, int]] = field(default_factory=lambda: [{}, {}])
    last_look: list[dict[int, tuple]] = field(default_factory=lambda: [{}, {}])
    """How each enemy unit looked when last seen: (stance, wounds, burning, active) (§9.2)."""
    held: list[dict[int, int]] = field(default_factory=lambda: [{}, {}])
    """Objective hexes each side holds (§10): cell -> points."""
    objective_owner: dict[int, int] = field(default_factory=dict)
    casualty_points: list[int] = field(default_factory=lambda: [0, 0])
    """Points each side has inflicted (§10)."""
    exited: list[int] = field(default_factory=lambda: [0, 0])
    deck: list[tuple] = field(default_factory=list)
    card: tuple | None = None
    kings: list[list[int]] = field(default_factory=lambda: [[], []])
    events: list[Event] = field(default_factory=list)
    winner: int | None = None
    over: bool = False
    end_reason: str | None = None
    """Why the game ended (:data:`flow.END_REASONS`, RULES.md §10); None while it goes on."""
    objective_points: list[int] | None = None
    """The points each side held at the turn limit, in an objectives scenario that reached it (§10)."""
    drawn: list[list[int]] = field(default_factory=lambda: [[], []])
    """Cards each side drew this turn (face up, §3.1)."""
    moves_made: int = 0
    mines: dict[int, int] = field(default_factory=dict)
    """Hidden mined hexes -> the side that laid them (§1.2)."""
    path_cache: dict = field(default_factory=dict, repr=False)
    vehicles_out: set[int] = field(default_factory=set)
    """Vehicles already counted out of action (§10)."""
    courage: dict[int, list[int]] = field(default_factory=dict)
    """Figures on a courageous act (§3.4): uid -> [the King played, wounds held pending]."""
    interrupts: list[tuple[int, list[int]]] = field(default_factory=list)
    trail: dict[int, list[int]] = field(default_factory=dict)
    """The hexes each mover has left during the moves in play (to step back from a friend's hex, §4.3)."""
    entered: dict[int, list[int]] = field(default_factory=dict)
    """Every hex each mover has entered during the moves in play, in order (opportunity fire meets it at each
    of them, never where it did not go, §5.5)."""
    lifted_unseen: dict[int, int] = field(default_factory=dict)
    """Mines lifted by a figure their layer did not see -> the layer, who still believes them there (§1.2)."""
    undisclosed: dict[int, int] = field(default_factory=dict)
    """Casualty points scored on a figure its enemy did not see wounded -> points; the enemy's view counts them
    once it sees the figure, or at the end (§9.2, §10)."""
    private_to: int | None = field(default=None, repr=False)
    """While set, every log line goes to that seat alone (the results of a draw made in secret, §9.2)."""

    # ------------------------------------------------------------------ the decision interface
    @property
    def seat(self) -> int | None:
        return None if self.over or self.decision is None else self.decision.seat

    def legal(self) -> list[int]:
        """The legal action ids now (empty once the game is over)."""
        return [] if self.seat is None else sorted(self.decision.legal)

    def mask(self) -> np.ndarray:
        out = np.zeros(N_ACTIONS, dtype=np.int8)
        out[self.legal()] = 1
        return out

    def apply(self, action: int) -> None:
        """Answer the current decision, then run the game on to the next one."""
        if self.over or self.decision is None:
            raise ValueError("the game is over")
        if action not in self.decision.legal:
            raise ValueError(self._illegal_reason(action))
        self.moves_made += 1
        flow.answer(self, self.decision, int(action))
        flow.advance(self)

    def _illegal_reason(self, action: int) -> str:
        """Why ``action`` is not legal now, naming what is asked and what would do."""
        from cardwar.envs.skirmish.actions import action_name

        d = self.decision
        if not (isinstance(action, (int, np.integer)) and 0 <= action < N_ACTIONS):
            return f"action id {action!r} is out of range: ids run 0..{N_ACTIONS - 1}"
        who = f"{self.units[d.unit].name}'s " if d.unit is not None else ""
        names = [action_name(a) for a in sorted(d.legal)]
        shown = ", ".join(names[:12]) + (f" and {len(names) - 12} more" if len(names) > 12 else "")
        return (f"{action_name(action)} (id {action}) is not legal now: the {who}{d.step.name.lower()} step "
                f"is asked; legal: {shown}")

    def is_terminal(self) -> bool:
        return self.over

    def returns(self) -> list[float]:
        if not self.over or self.winner is None:
            return [0.0, 0.0]
        return [1.0, -1.0] if self.winner == 0 else [-1.0, 1.0]

    def clone(self) -> SkirmishState:
        """A copy of everything, the coming cards included (see :meth:`clone_for`); the scenario and rules, frozen,
        are shared (so the caches kept on them, the public map's among them, serve the copy too)."""
        return copy.deepcopy(self, {id(self.scenario): self.scenario, id(self.rules): self.rules})

    # ------------------------------------------------------------------ the arena's engine contract
    @property
    def current_player(self) -> int:
        """The seat to decide; :data:`TERMINAL` once the game is over (OpenSpiel's ``PlayerId.TERMINAL``)."""
        return self.seat if self.seat is not None else TERMINAL

    @property
    def move_number(self) -> int:
        return self.moves_made

    def legal_actions(self) -> list[int]:
        return self.legal()

    def apply_action(self, action: int, validate: bool = True) -> None:
        """Play ``action``; with ``validate`` False the caller vouches that it is one of :meth:`legal_actions`
        (the env's mask), and only the decision's own table is consulted."""
        action = int(action)
        if not validate and self.decision is not None and action in self.decision.legal:
            self.moves_made += 1
            flow.answer(self, self.decision, action)
            flow.advance(self)
            return
        try:
            self.apply(action)
        except ValueError as err:
            raise SkirmishIllegalActionError(str(err)) from None

    @property
    def result(self) -> dict[str, Any]:
        """The game's outcome, for records."""
        out = {"winner": self.winner, "reason": self.end_reason, "turns": self.turn,
               "casualty_points": list(self.casualty_points),
               "objective_owner": {str(k): v for k, v in self.objective_owner.items()}}
        if self.objective_points is not None:
            out["objective_points"] = list(self.objective_points)
        return out

    def information_view(self, seat: int | None) -> Any:
        """What ``seat`` may know (RULES.md §9.2); None: a spectator (each side as its enemy knows it)."""
        if seat is None:
            from cardwar.envs.skirmish.public_map import spectator_view

            return spectator_view(self)
        from cardwar.envs.skirmish.view import information_view

        return information_view(self, seat)

    # ------------------------------------------------------------------ helpers used across modules
    def soldiers(self, side: int | None = None) -> list[Soldier]:
        return [u for u in self.units if isinstance(u, Soldier) and (side is None or u.side == side)]

    def active_units(self, side: int) -> list[Soldier | Tank]:
        return [u for u in self.units if u.side == side and u.active]

    def unit_at(self, cell: int) -> Soldier | Tank | None:
        for u in self.units:
            if u.holds_hex and u.cell == cell:
                return u
        return None

    def occupied(self) -> dict[int, Soldier | Tank]:
        return {u.cell: u for u in self.units if u.holds_hex}

    def riders(self, v: Tank) -> list[Soldier]:
        """Figures riding ``v`` (§8.1)."""
        return [u for u in self.units if isinstance(u, Soldier) and u.aboard == v.uid and u.on_table]

    def vehicle_cells(self) -> frozenset[int]:
        if not self.has_vehicles:
            return frozenset()
        return frozenset(u.cell for u in self.units if isinstance(u, Tank))

    @property
    def has_vehicles(self) -> bool:
        return bool(self.scenario.vehicles)

    def log(self, text: str, *, seat: int | None = None, card: int | None = None, side: int | None = None) -> None:
        """Record a line for both seats (or only ``seat``). A seat reads the name of an enemy unit it does not
        see now as "an unseen figure" (or vehicle): a log line never tells a hidden unit's doings (§9.2)."""
        if seat is None:
            seat = self.private_to
        if seat is not None:
            self.events.append(Event(self.turn, text, seat, card, side))
            return
        texts = [self._for_seat(text, k) for k in (0, 1)]
        if texts[0] == texts[1] == text:
            self.events.append(Event(self.turn, text, None, card, side))
        else:
            for k in (0, 1):
                self.events.append(Event(self.turn, texts[k], k, card, side))

    def units_by_name_length(self) -> list[Soldier | Tank]:
        """Named units, longest name first (so "Sgt. Stevens Jr." is replaced before "Sgt. Stevens")."""
        cached = self.path_cache.get("names")
        if cached is None:
            cached = sorted((u for u in self.units if u.name), key=lambda x: -len(x.name))
            self.path_cache["names"] = cached
        return cached

    def _for_seat(self, text: str, seat: int) -> str:
        seen = self.seen[seat]
        for u in self.units_by_name_length():
            if u.side != seat and u.uid not in seen and u.name in text:
                text = text.replace(u.name, "an unseen vehicle" if isinstance(u, Tank) else "an unseen figure")
        return text

    def seen_by_enemy(self, u: Soldier | Tank) -> bool:
        """Whether the other side sees ``u`` now (§1.4)."""
        return u.uid in self.seen[1 - u.side]

    def clone_for(self, seat: int, rng: np.random.Generator) -> SkirmishState:
        """A copy for ``seat``'s search: what it cannot know of the future (the generator, the order of the packs
        and of the activation deck) drawn anew (:func:`infostate.clone_for`). :meth:`clone` copies all, the
        coming cards included: use it only where the whole truth is meant (a referee, a record)."""
        from cardwar.envs.skirmish.infostate import clone_for

        return clone_for(self, seat, rng)

    def umpire_card(self) -> int:
        """A number card, Ace to 10 of any suit, drawn by the umpire in secret from a full deck of them (§9.2):
        for a draw about a unit the other side does not see, so no face-up card or pack count tells of it."""
        return make_card(int(self.rng.integers(1, 11)), int(self.rng.integers(4)))

    def draw_for(self, u: Soldier | Tank, *, side: int | None = None) -> int:
        """A card for a draw that concerns ``u`` alone (a tie over a hex, Field Craft against a mine, a blast's
        effect on it): from ``side``'s pack (``u``'s own by default), face up, when the other side sees ``u``;
        otherwise the umpire's, in secret (:meth:`umpire_card`, RULES.md §9.2)."""
        if self.seen_by_enemy(u):
            return self.draw(u.side if side is None else side, unit=u)
        return self.umpire_card()

    def draw(self, side: int, *, skill: bool = False, unit: Soldier | Tank | None = None) -> int:
        """One card from ``side``'s pack (§3.1). Picture cards: a Jack's event, a King kept, a Queen (on a
        skill draw) returned as is for the caller's Lady Luck; in other draws redrawn (§3.2-3.4)."""
        pack = self.packs[side]
        while True:
            card = pack.draw(self.rng)
            rank = card_rank(card)
            if rank != KING:
                self.drawn[side].append(card)
            if rank == JACK:
                self.log("Jack: the Knave's event", card=card, side=side)
                flow.knave_event(self, side, card, unit)
                continue
            if rank == KING:
                pack.retain(card)
                self.kings[side].append(card)
                self.log("a King is kept for King and Country", seat=side, card=card, side=side)
                continue
            if rank == QUEEN and not skill:
                continue
            return card


def _soldier(uid: int, spec: Any, rules: SkirmishRules, rng: np.random.Generator) -> Soldier:
    """A scenario's figure with its skills: fixed ones as given, the rest drawn (§2.1) or generic."""
    quality = Quality(spec.quality)
    if rules.skills == "generic":
        skills = dict.fromkeys(("shoot", "throw", "melee", "field_craft"), GENERIC_SKILL[quality])
    else:
        skills = draw_core_skills(quality, rng)
    skills.update({k: v for k, v in (spec.skills or {}).items() if k in skills})  # special skills: §11
    arm = FIREARMS.get(spec.weapon)
    ammo = spec.ammo if spec.ammo is not None else (arm.magazine if arm else 0)
    reserve = spec.reserve if spec.reserve is not None else flow.default_reserve(spec.weapon)
    fig = Figure(side=spec.side, team=spec.team, quality=quality, skills=Skills(**skills), weapon=spec.weapon,
                 position=spec.cell, stance=Stance(spec.stance), name=spec.name,
                 other_weapons=tuple(spec.other_weapons), grenades=spec.grenades, ammo=ammo)
    at = next((w for w in spec.other_weapons if w.startswith("at_")), None)
    if spec.weapon.startswith("at_"):
        at = spec.weapon
    at_ammo = spec.at_ammo if spec.at_ammo is not None else ((1 if at == "at_light" else 6) if at else 0)
    return Soldier(uid=uid, fig=fig, reserve=reserve, starting_reserve=reserve, petrol_bombs=spec.petrol_bombs,
                   knives=spec.knives, at_weapon=at, at_ammo=at_ammo, role=spec.role)


def new_state(scenario: Scenario | str, rules: SkirmishRules | dict | None = None, seed: int = 0) -> SkirmishState:
    """A game at its first decision: skills drawn, packs shuffled (RULES.md §2.1, §3.1). ``scenario`` may be
    a shipped name or a YAML path, ``rules`` a dict of options (as the envs take them)."""
    if not isinstance(scenario, Scenario):
        from cardwar.envs.skirmish.scenario import load_scenario

        scenario = load_scenario(scenario)
    rules = rules if isinstance(rules, SkirmishRules) else SkirmishRules.from_dict(rules)
    rng = np.random.default_rng(seed)
    units: list[Soldier | Tank] = [_soldier(i, spec, rules, rng) for i, spec in enumerate(scenario.figures)]
    for spec in scenario.vehicles:
        vehicle = Vehicle(side=spec.side, name=spec.name, kind=spec.kind, armour=spec.armour, cell=spec.cell,
                          facing=spec.facing, damage_points=spec.damage_points, turret=spec.turret,
                          weapons=tuple(spec.weapons))
        crew = GENERIC_SKILL[Quality(spec.quality)] if rules.skills == "generic" else \
            draw_core_skills(Quality(spec.quality), rng)["shoot"]
        units.append(Tank(uid=len(units), v=vehicle, shoot=spec.skills.get("shoot", crew),
                          gun_ammo=spec.gun_ammo if spec.gun_ammo is not None else 6))
    by_name = {u.name: u for u in units}
    for spec, u in zip(scenario.figures, units):
        if spec.crew_of is not None:
            u.aboard = by_name[spec.crew_of].uid
    packs = [Pack.new(rng, knave=rules.knave_events, lady_luck=rules.lady_luck,
                      king_and_country=rules.king_and_country) for _ in range(2)]
    state = SkirmishState(scenario=scenario, rules=rules, rng=rng, units=units, packs=packs)
    state.open_doors = frozenset()
    flow.start_game(state)
    flow.advance(state)
    return state


__all__ = ["Decision", "Event", "SkirmishIllegalActionError", "SkirmishState", "new_state"]


_PREPARED: list[bool] = []


def prepare_tables() -> None:
    """Build the engine's lazy tables now (the board's sight and movement tables: about 2 s the first time in a
    process), on the default scenario, so that no request or clock pays for them (issue 28). Once a process."""
    if not _PREPARED:
        new_state("ww2_squads", None, seed=0)
        _PREPARED.append(True)
