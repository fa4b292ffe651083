"""The rules of Hit the Deck! as a state machine (OpenSpiel-style State).

One :class:`NavalState` holds a whole game: deck, hands, Seemap, discards and
whose decision is next. ``legal_actions``/``apply_action`` drive it; chance (the
shuffle, the first player) comes from the seeded ``numpy`` Generator it holds.
The seed's turn (Turn Structure): draw (not on the game's first turn), two
actions of which at most one Deploy and one Attack, draw.
"""

from __future__ import annotations

import copy
from enum import IntEnum
from typing import NamedTuple

import numpy as np

from cardwar.envs.naval.actions import (
    ATTACK_LINE_BASE, DECODED, DEFEND_BASE, KEEP, MULLIGAN, NODEFEND, NUM_ACTIONS, PASS, SINK_BASE, ActionKind,
    AttackStyle, action_to_string,
)
from cardwar.envs.naval.battle import BattleReport, attack_ships, defence_support, special_attack_allowed
from cardwar.envs.naval.cards import NUM_CARDS
from cardwar.envs.naval.config import NavalConfig
from cardwar.envs.naval.hands import HandCategory, fast_category, hand_strength
from cardwar.envs.naval.royal_flush import first_sink_candidates, next_sink_candidates
from cardwar.envs.naval.scoring import DeckOutResult, score_deck_out
from cardwar.envs.naval.seemap import (
    CAPTAIN_NAMES, NEIGHBOURS, NUM_ZONES, depth, is_horizontal, seaports, zone_at, zone_lane,
)


class Phase(IntEnum):
    """Whose decision of which kind the game waits for."""

    MULLIGAN = 0
    ACTION = 1
    DEFEND = 2
    ROYAL_FLUSH = 3
    GAME_OVER = 4


class IllegalActionError(ValueError):
    """An action that the rules do not allow in this state."""


class PendingAttack(NamedTuple):
    """An attack declared and waiting for the defender's answer (immutable)."""

    attacker: int
    src: int
    dst: int
    style: AttackStyle
    attack_card: int
    """Face-down, from the attacker's hand."""
    deck_card: int
    """Face-down Broadside draw, -1 if none."""


_LANE_ZONES = tuple(tuple(tuple(zone_at(c, lane, d) for d in range(3)) for lane in range(3)) for c in range(2))
"""``[captain][lane]``: the Sealane's Seazones from the captain's Seaport forward (tabled for the hot paths)."""
_ATTACK_LINES = tuple(tuple((dst, ATTACK_LINE_BASE[src][dst * 2], ATTACK_LINE_BASE[src][dst * 2 + 1],
                             is_horizontal(src, dst)) for dst in NEIGHBOURS[src]) for src in range(NUM_ZONES))
"""``[src]``: (dst, first id of the normal attack, of the Broadside / Ramming, whether the line is a Row) for
every line from ``src``, in increasing id order."""


def max_game_steps(config: NavalConfig) -> int:
    """Upper bound on decisions in one game.

    After setup the deck holds 52 - 14 cards; turn 1 draws one card, every later
    turn two, so at most ``1 + ceil((38 - 1) / 2)`` turns. A turn has at most five
    decisions: a Deploy or Pass, an attack, its defence and two sinks; plus the
    two mulligan decisions.
    """
    after_setup = NUM_CARDS - 2 * config.hand_size
    turns = 1 + -(-(after_setup - 1) // 2)
    return 2 + turns * 5


class NavalState:
    """A complete game of Hit the Deck!; captain 0 is A (top), 1 is B (bottom)."""

    __slots__ = (
        "config", "rng", "deck", "hands", "owner", "ship", "discards", "phase", "active",
        "current", "first_player", "turn", "actions_taken", "deployed", "attacked", "pending",
        "mulligan_choices", "mulligan_shown", "rf_candidates", "rf_picks_left", "rf_cut", "rf_loser",
        "rf_winner_zone",
        "last_battle", "winner", "result", "move_number",
    )

    # ----------------------------------------------------------------- setup
    @classmethod
    def new_game(cls, config: NavalConfig | None = None, seed: int | None = None) -> NavalState:
        """Setup steps 1-4: shuffle, deal 7 cards each, mulligans, choose the first captain."""
        s = cls.__new__(cls)
        s.config = config or NavalConfig()
        s.rng = np.random.default_rng(seed)
        s.deck = s.rng.permutation(NUM_CARDS).tolist()
        s.hands = [[s.deck.pop() for _ in range(s.config.hand_size)] for _ in range(2)]
        s.owner, s.ship = [-1] * NUM_ZONES, [-1] * NUM_ZONES
        s.discards = []
        s.first_player = -1  # Setup 4 chooses it after the mulligans
        s.active = s.current = 0  # mulligan decisions: Captain A, then Captain B
        s.turn, s.actions_taken, s.deployed, s.attacked = 1, 0, False, False
        s.pending, s.last_battle, s.winner, s.result = None, None, None, None
        s.mulligan_choices = [None, None]
        s.mulligan_shown = []
        s.rf_candidates, s.rf_picks_left, s.rf_cut, s.rf_loser, s.rf_winner_zone = [], 0, False, -1, -1
        s.move_number = 0
        s.phase = Phase.MULLIGAN
        if not s.config.mulligan:
            s._start_play()
        return s

    def _start_play(self) -> None:
        """Setup 4: choose the first captain; the first turn begins (without its opening draw)."""
        fp = self.config.first_player
        self.first_player = int(self.rng.integers(2)) if fp == "random" else CAPTAIN_NAMES.index(fp)
        self.phase, self.active, self.current = Phase.ACTION, self.first_player, self.first_player

    def clone(self) -> NavalState:
        """A copy that shares nothing mutable: lists copied, immutable records (pending attack,
        battle report, config) shared, the Generator copied while it can still be used."""
        c = NavalState.__new__(NavalState)
        c.config, c.phase, c.active, c.current = self.config, self.phase, self.active, self.current
        c.first_player, c.turn, c.actions_taken = self.first_player, self.turn, self.actions_taken
        c.deployed, c.attacked, c.pending = self.deployed, self.attacked, self.pending  # pending is never mutated
        c.deck, c.hands = self.deck[:], [self.hands[0][:], self.hands[1][:]]
        c.owner, c.ship, c.discards = self.owner[:], self.ship[:], self.discards[:]
        c.mulligan_choices, c.mulligan_shown = self.mulligan_choices[:], self.mulligan_shown[:]
        c.rf_candidates, c.rf_picks_left, c.rf_cut = self.rf_candidates[:], self.rf_picks_left, self.rf_cut
        c.rf_loser, c.rf_winner_zone = self.rf_loser, self.rf_winner_zone
        c.last_battle, c.winner, c.move_number = self.last_battle, self.winner, self.move_number
        c.result = copy.deepcopy(self.result) if self.result is not None else None
        if self.phase == Phase.MULLIGAN:  # the only later uses of chance: the reshuffle, the first captain
            bg = type(self.rng.bit_generator)()
            bg.state = self.rng.bit_generator.state
            c.rng = np.random.Generator(bg)
        else:
            c.rng = self.rng
        return c

    # ------------------------------------------------------------ queries
    @property
    def current_player(self) -> int:
        """The captain who decides next (the defender while an attack is pending)."""
        return self.current

    def is_terminal(self) -> bool:
        """Whether the game is over."""
        return self.phase == Phase.GAME_OVER

    def returns(self) -> list[float]:
        """+1 / -1 for the winner / loser, 0 each for a draw or an unfinished game."""
        if self.winner is None:
            return [0.0, 0.0]
        return [1.0, -1.0] if self.winner == 0 else [-1.0, 1.0]

    def deployable_zones(self, captain: int) -> list[int]:
        """Deploy Action: the first Card of a Sealane goes in the Seaport, later ones
        in "the next Seazone towards the Opponent" along an unbroken chain of own ships."""
        out = []
        owner = self.owner
        for lane in _LANE_ZONES[captain]:
            for z in lane:
                if owner[z] != captain:
                    if owner[z] == -1:
                        out.append(z)
                    break
        return out

    def action_parts(self) -> tuple[list[int], list[int], list[int]]:
        """The ACTION phase's legal moves of :attr:`current_player` in parts: (the hand, sorted; the Seazones
        a Deploy may use, ascending, empty once a ship was deployed this turn; the first ids of the attack
        lines that may be declared, :data:`ATTACK_LINE_BASE` entries in increasing order, empty once attacked).

        :meth:`legal_actions` is every deploy (card, zone), every attack (line + card) and ``pass``;
        naval-v1's steps read the parts directly (a card then a zone, a line then a card).
        """
        p = self.current
        hand = sorted(self.hands[p])
        if not hand:
            return hand, [], []
        zones = [] if self.deployed else sorted(self.deployable_zones(p))
        lines: list[int] = []
        if not self.attacked:
            owner, enemy = self.owner, 1 - p
            deck_count, empty_deck = len(self.deck), self.config.broadside_empty_deck
            for src in range(NUM_ZONES):
                if owner[src] != p:
                    continue
                for dst, normal, special, horizontal in _ATTACK_LINES[src]:
                    if owner[dst] != enemy:
                        continue
                    lines.append(normal)
                    if special_attack_allowed(owner, p, src, dst, horizontal, deck_count, empty_deck):
                        lines.append(special)
        return hand, zones, lines

    def legal_actions(self) -> list[int]:
        """Sorted ids of every legal action for :attr:`current_player`."""
        phase, p = self.phase, self.current
        if phase == Phase.ACTION:
            # Generated in increasing id order: cards sorted, zones and lines ascending.
            hand, zones, lines = self.action_parts()
            acts = [c * NUM_ZONES + z for c in hand for z in zones]
            for base in lines:
                acts += [base + c for c in hand]
            acts.append(PASS)
            return acts
        if phase == Phase.DEFEND:
            return sorted(DEFEND_BASE + c for c in self.hands[p]) + [NODEFEND]
        if phase == Phase.ROYAL_FLUSH:
            return [PASS] + [SINK_BASE + z for z in sorted(self.rf_candidates)]
        if phase == Phase.MULLIGAN:
            return [KEEP, MULLIGAN]
        return []

    def legal_action_mask(self) -> np.ndarray:
        """int8 vector over all actions: 1 exactly where the action is legal."""
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        mask[self.legal_actions()] = 1
        return mask

    def is_legal(self, action: int) -> bool:
        """Check one action against the rules directly (independently of :meth:`legal_actions`)."""
        if not isinstance(action, (int, np.integer)) or not 0 <= action < NUM_ACTIONS:
            return False
        a, p, phase = DECODED[action], self.current, self.phase
        if phase == Phase.MULLIGAN:
            return a.kind in (ActionKind.KEEP, ActionKind.MULLIGAN)
        if phase == Phase.DEFEND:
            return a.kind == ActionKind.NODEFEND or (a.kind == ActionKind.DEFEND and a.card in self.hands[p])
        if phase == Phase.ROYAL_FLUSH:
            return a.kind == ActionKind.PASS or (a.kind == ActionKind.SINK and a.zone in self.rf_candidates)
        if phase != Phase.ACTION:
            return False
        if a.kind == ActionKind.PASS:
            return True
        if a.kind == ActionKind.DEPLOY:
            if self.deployed or a.card not in self.hands[p] or self.owner[a.zone] != -1:
                return False
            lane, d = zone_lane(a.zone), depth(p, a.zone)
            return all(self.owner[zone_at(p, lane, k)] == p for k in range(d))  # supply route
        if a.kind == ActionKind.ATTACK:
            if self.attacked or a.card not in self.hands[p]:
                return False
            if self.owner[a.src] != p or self.owner[a.dst] != 1 - p:
                return False
            if a.style == AttackStyle.NORMAL:
                return True
            return special_attack_allowed(self.owner, p, a.src, a.dst, a.style == AttackStyle.BROADSIDE,
                                          len(self.deck), self.config.broadside_empty_deck)
        return False

    # ------------------------------------------------------------ transitions
    def apply_action(self, action: int, validate: bool = True) -> None:
        """Play ``action`` for :attr:`current_player`; :class:`IllegalActionError` if it is not legal.

        ``validate=False`` skips the check, for callers that took the action from
        :meth:`legal_actions` of this very state (the env's mask).
        """
        if isinstance(action, (int, np.integer)):
            action = int(action)
        if validate and not self.is_legal(action):
            raise IllegalActionError(self._illegal_message(action))
        a = DECODED[action]
        self.move_number += 1
        kind = a.kind
        if kind == ActionKind.DEPLOY:
            self._deploy(a.card, a.zone)
        elif kind == ActionKind.ATTACK:
            self._declare_attack(a.src, a.dst, a.style, a.card)
        elif kind == ActionKind.DEFEND:
            self.hands[self.current].remove(a.card)
            self._resolve_battle(a.card)
        elif kind == ActionKind.NODEFEND:
            self._resolve_battle(-1)
        elif kind == ActionKind.SINK:
            self._sink(a.zone)
        elif kind == ActionKind.PASS:
            if self.phase == Phase.ROYAL_FLUSH:
                self._decline_sink()
            else:
                self._finish_action()
        else:
            self._choose_mulligan(kind == ActionKind.MULLIGAN)

    def _illegal_message(self, action: int) -> str:
        who = f"Captain {CAPTAIN_NAMES[self.current]}"
        if not isinstance(action, int) or not 0 <= action < NUM_ACTIONS:
            return f"action id {action} is outside 0..{NUM_ACTIONS - 1}"
        if self.phase == Phase.GAME_OVER:
            return f"the game is over; {action_to_string(action)!r} cannot be played"
        return (f"{action_to_string(action)!r} is not legal for {who} now ({self.phase.name.lower()} phase); "
                f"{len(self.legal_actions())} legal actions, e.g. "
                + ", ".join(action_to_string(x) for x in self.legal_actions()[:5]))

    def _draw(self, captain: int) -> None:
        if self.deck:
            self.hands[captain].append(self.deck.pop())

    def _choose_mulligan(self, redraw: bool) -> None:
        """Setup 3: both choose; then redraw, show the discarded cards and reshuffle them in."""
        self.mulligan_choices[self.current] = redraw
        other = 1 - self.current
        if self.mulligan_choices[other] is None:
            self.current = other
            return
        shown: list[int] = []
        for p in (0, 1):
            if self.mulligan_choices[p]:
                shown += self.hands[p]
                self.hands[p] = [self.deck.pop() for _ in range(self.config.hand_size)]
        if shown:
            self.deck += shown
            self.rng.shuffle(self.deck)
        self.mulligan_shown = shown
        self._start_play()

    def _deploy(self, card: int, zone: int) -> None:
        p = self.current
        self.hands[p].remove(card)
        self.owner[zone], self.ship[zone] = p, card
        self.deployed = True
        held = seaports(1 - p) if self.config.blockade == "seaports" else range(NUM_ZONES)
        if all(self.owner[z] == p for z in held):  # Blockade Victory
            self._game_over(p, {"reason": "blockade"})
        else:
            self._finish_action()

    def _declare_attack(self, src: int, dst: int, style: AttackStyle, card: int) -> None:
        p = self.current
        self.hands[p].remove(card)
        deck_card = self.deck.pop() if style == AttackStyle.BROADSIDE and self.deck else -1
        self.pending = PendingAttack(p, src, dst, style, card, deck_card)
        self.attacked = True
        self.phase, self.current = Phase.DEFEND, 1 - p

    def _defence_hand(self, pa: PendingAttack, defend_card: int) -> list[int]:
        """The target plus the best supporting ship (if any) plus the defending card."""
        base = [self.ship[pa.dst]] + ([defend_card] if defend_card >= 0 else [])
        support = defence_support(self.owner, self.ship, pa.src, pa.dst, pa.style, self.config.bastion)
        options = [base + [s] for s in support]
        return max(options, key=hand_strength) if options else base

    def _resolve_battle(self, defend_card: int) -> None:
        """Reveal, compare the Poker Hands, apply the Results of Combat, discard the battle cards."""
        pa = self.pending
        att, dfn = pa.attacker, 1 - pa.attacker
        attack_hand = attack_ships(self.owner, self.ship, att, pa.src, pa.dst, pa.style) + [pa.attack_card]
        if pa.deck_card >= 0:
            attack_hand.append(pa.deck_card)
        defence_hand = self._defence_hand(pa, defend_card)
        won = hand_strength(attack_hand) > hand_strength(defence_hand)
        a_cat, d_cat = fast_category(attack_hand), fast_category(defence_hand)
        winner = att if won else dfn
        # Post-Battle Cleanup: the cards added during the battle are discarded.
        self.discards += [c for c in (pa.attack_card, pa.deck_card, defend_card) if c >= 0]
        self.pending, self.phase, self.current = None, Phase.ACTION, self.active
        cfg = self.config
        royal = ((a_cat if won else d_cat) == HandCategory.HIGH_ROYAL_FLUSH and cfg.royal_flush != "off"
                 and (won or cfg.royal_flush_defender))
        # Supply cut: after a successful Broadside, or after every loss with supply_cut="always".
        self.rf_cut = cut = cfg.supply_cut == "always" or (won and pa.style == AttackStyle.BROADSIDE)
        loser = pa.dst if won else pa.src
        self.rf_winner_zone = pa.src if won else pa.dst
        self.rf_candidates, self.rf_picks_left, self.rf_loser = [], 0, -1
        replacing = royal and cfg.royal_flush in ("any_pair", "winner_adjacent")
        if replacing:  # the winner's picks replace the normal result
            self.rf_candidates = first_sink_candidates(cfg.royal_flush, self.owner, winner, self.rf_winner_zone)
            self.rf_picks_left, self.rf_loser = 2, loser
        destroyed: list[tuple[int, int]] = []
        if not self.rf_candidates:
            if won or royal:  # a High Royal Flush defender also sinks the attacking ship
                destroyed += self._destroy(loser, cut)
            if royal and not replacing:  # loser_and_adjacent: one more enemy ship next to the loser
                self.rf_candidates = [z for z in NEIGHBOURS[loser] if self.owner[z] == 1 - winner]
                self.rf_picks_left = 1
        self.last_battle = BattleReport(att, pa.src, pa.dst, pa.style, tuple(attack_hand), tuple(defence_hand),
                                        a_cat, d_cat, won, royal, tuple(destroyed))
        if self.rf_candidates:
            self.phase, self.current = Phase.ROYAL_FLUSH, winner
        else:
            self.rf_picks_left, self.rf_loser = 0, -1
            self._finish_action()

    def _destroy(self, zone: int, cut: bool) -> list[tuple[int, int]]:
        """Remove the ship at ``zone``; with ``cut`` also its owner's ships further forward in the Sealane."""
        o = self.owner[zone]
        zones = [zone]
        if cut:
            lane = zone_lane(zone)
            zones += [z for d in range(depth(o, zone) + 1, 3) if self.owner[z := zone_at(o, lane, d)] == o]
        out = []
        for z in zones:
            out.append((z, self.ship[z]))
            self.discards.append(self.ship[z])
            self.owner[z], self.ship[z] = -1, -1
        return out

    def _sink(self, zone: int) -> None:
        """High Royal Flush: the winner destroys a ship of their choice."""
        enemy = self.owner[zone]
        self._record_sunk(self._destroy(zone, self.rf_cut))
        self.rf_loser = -1  # a pick was made: it replaces the normal result
        self.rf_picks_left -= 1
        self.rf_candidates = (next_sink_candidates(self.config.royal_flush, self.owner, enemy, zone,
                                                   self.rf_winner_zone) if self.rf_picks_left > 0 else [])
        if not self.rf_candidates:
            self._end_royal_flush()

    def _decline_sink(self) -> None:
        """``pass`` during the High Royal Flush: with no pick made yet, the normal result stands."""
        if self.rf_loser >= 0:
            self._record_sunk(self._destroy(self.rf_loser, self.rf_cut))
        self._end_royal_flush()

    def _end_royal_flush(self) -> None:
        self.rf_candidates, self.rf_picks_left, self.rf_loser = [], 0, -1
        self._finish_action()

    def _record_sunk(self, gone: list[tuple[int, int]]) -> None:
        self.last_battle = self.last_battle._replace(destroyed=self.last_battle.destroyed + tuple(gone))

    def _finish_action(self) -> None:
        """One of the turn's two actions is done; the turn ends after the second."""
        self.phase, self.current = Phase.ACTION, self.active
        self.actions_taken += 1
        if self.config.deck_out == "immediate" and not self.deck:
            self._deck_out()
        elif self.actions_taken >= 2:
            self._end_turn()

    def _end_turn(self) -> None:
        """End of Turn: draw, pass the Compass; Start of Turn: the next captain draws."""
        self._draw(self.active)
        if not self.deck:
            self._deck_out()
            return
        self.active = self.current = 1 - self.active
        self.turn += 1
        self.actions_taken, self.deployed, self.attacked = 0, False, False
        self._draw(self.active)
        if self.config.deck_out == "immediate" and not self.deck:
            self._deck_out()

    def _deck_out(self) -> None:
        res: DeckOutResult = score_deck_out(self.owner, self.hands, self.config)
        self._game_over(res.winner, res.to_dict())

    def _game_over(self, winner: int | None, result: dict) -> None:
        self.phase, self.winner, self.result = Phase.GAME_OVER, winner, result
        self.pending, self.rf_candidates = None, []

    # ------------------------------------------------------------ views
    def information_view(self, seat: int | None):
        """What ``seat`` may know (``None``: a spectator who sees no hand)."""
        from cardwar.envs.naval.view import NavalView  # local: view imports this module's types

        return NavalView.of(self, seat)

    def to_dict(self) -> dict:
        """The full state (hidden information included) as JSON-friendly data."""
        from cardwar.envs.naval.serialize import state_to_dict

        return state_to_dict(self)

    @classmethod
    def from_dict(cls, data: dict) -> NavalState:
        """Inverse of :meth:`to_dict`."""
        from cardwar.envs.naval.serialize import state_from_dict

        return state_from_dict(data)

    def __repr__(self) -> str:
        return (f"NavalState(turn={self.turn}, phase={self.phase.name}, active={CAPTAIN_NAMES[self.active]}, "
                f"current={CAPTAIN_NAMES[self.current]}, deck={len(self.deck)})")
