"""A rules-of-thumb captain for Hit the Deck! that sees only its own information view.

- Attacks are judged by the chance of winning the sea battle, estimated by
  sampling the cards it cannot see (the other hand, the Broadside deck card)
  from the unseen pool, consistently with the view; the same samples serve every
  candidate attack (common random numbers).
- It builds supply routes forward towards the enemy Seaports (blockade and
  deck-exhaustion Sealanes), spending cheap cards and keeping court cards for
  battles, and stops spending cards late in the game when cards in hand decide.
- It defends with a card when that card turns a likely loss into a likely win.
- It mulligans a hand with no court card and no pair.
"""

from __future__ import annotations

import numpy as np

from cardwar.envs.naval.actions import DECODED, KEEP, MULLIGAN, NODEFEND, PASS, ActionKind, AttackStyle
from cardwar.envs.naval.battle import attack_ships, defence_support
from cardwar.envs.naval.cards import card_rank
from cardwar.envs.naval.hands import hand_strength, prepare_tables
from cardwar.envs.naval.seemap import NEIGHBOURS, depth, seaports
from cardwar.envs.naval.state import Phase
from cardwar.envs.naval.view import NavalView


def _keep_value(card: int) -> int:
    """How much a card is worth keeping for battles (aces count for A-K-Q)."""
    r = card_rank(card)
    return 12 if r == 1 else r


class NavalHeuristic:
    """Rules-of-thumb captain; ``samples`` sets the battle-estimate accuracy."""

    def __init__(self, seed: int | None = None, samples: int = 32, attack_threshold: float = 0.45) -> None:
        self.name = "heuristic"
        self.rng = np.random.default_rng(seed)
        prepare_tables()  # one-time set-up here, not on the first move's clock
        self.samples = samples
        self.attack_threshold = attack_threshold

    # ------------------------------------------------------------------ entry point
    def act(self, observation: dict[str, np.ndarray], view: NavalView) -> int:
        legal = np.flatnonzero(observation["action_mask"]).tolist()
        if len(legal) == 1:
            return legal[0]
        if view.phase == Phase.MULLIGAN:
            return self._mulligan(view, legal)
        if view.phase == Phase.DEFEND:
            return self._defend(view, legal)
        if view.phase == Phase.ROYAL_FLUSH:
            return self._sink(view, legal)
        return self._action(view, legal)

    # ------------------------------------------------------------------ decisions
    def _mulligan(self, v: NavalView, legal: list[int]) -> int:
        ranks = [card_rank(c) for c in v.hand]
        court = sum(r >= 11 or r == 1 for r in ranks)
        pairs = len(ranks) - len(set(ranks))
        return MULLIGAN if court == 0 and pairs == 0 and MULLIGAN in legal else KEEP

    def _samples(self, v: NavalView, extra: int) -> list[tuple[list[int], list[int]]]:
        """Draws of (the other hand, ``extra`` more unseen cards), consistent with the view."""
        unseen = np.array(v.unseen_cards())
        n = v.hand_counts[1 - v.seat]
        k = min(len(unseen), n + extra)
        out = []
        for _ in range(self.samples):
            draw = self.rng.choice(unseen, size=k, replace=False).tolist() if k else []
            out.append((draw[:n], draw[n:]))
        return out

    def _best_defence(self, owner: list[int], ship: list[int], src: int, dst: int, style: AttackStyle,
                      cards: list[int | None]) -> int:
        """Strength of the best defence the defender can form with one of ``cards`` (or none)."""
        base = [ship[dst]]
        support = defence_support(owner, ship, src, dst, style) or [None]
        best = -1
        for s in support:
            for c in cards:
                h = base + [x for x in (s, c) if x is not None]
                best = max(best, hand_strength(h))
        return best

    def _attack_value(self, v: NavalView, dst: int) -> float:
        """Worth of sinking the enemy ship at ``dst``: more the deeper it threatens us."""
        me = v.seat
        enemy = 1 - me
        value = 1.0 + 0.8 * depth(enemy, dst)
        if dst in seaports(me):
            value += 1.0  # it blockades one of our Seaports
        return value

    def _action(self, v: NavalView, legal: list[int]) -> int:
        owner, ship, me = list(v.board_owner), list(v.board_card), v.seat
        attacks = [a for a in legal if DECODED[a].kind == ActionKind.ATTACK]
        best_attack, best_ev = None, 0.0
        if attacks:
            samples = self._samples(v, extra=1)
            for a in attacks:
                d = DECODED[a]
                fixed = attack_ships(owner, ship, me, d.src, d.dst, d.style) + [d.card]
                wins = 0
                for opp_hand, extra in samples:
                    hand = fixed + (extra[:1] if d.style == AttackStyle.BROADSIDE and v.deck_count > 0 else [])
                    defence = self._best_defence(owner, ship, d.src, d.dst, d.style, [None] + opp_hand)
                    wins += hand_strength(hand) > defence
                p = wins / len(samples)
                ev = p * self._attack_value(v, d.dst) - 0.03 * _keep_value(d.card)
                if d.style == AttackStyle.BROADSIDE:
                    ev += p * 0.5  # a won Broadside also cuts the ships in front
                if ev > best_ev:
                    best_attack, best_ev = a, ev
        if best_attack is not None and best_ev >= self.attack_threshold:
            return best_attack
        deploy = self._deploy(v, legal)
        return deploy if deploy is not None else PASS

    def _deploy(self, v: NavalView, legal: list[int]) -> int | None:
        deploys = [a for a in legal if DECODED[a].kind == ActionKind.DEPLOY]
        if not deploys:
            return None
        me, enemy = v.seat, 1 - v.seat
        late = v.deck_count <= 8  # cards in hand break deck-exhaustion ties: stop spending them
        best, best_score = None, -1e9
        for a in deploys:
            d = DECODED[a]
            dz = depth(me, d.zone)
            threats = sum(v.board_owner[n] == enemy for n in NEIGHBOURS[d.zone])
            score = 1.0 + 0.7 * dz + (2.0 if dz == 2 else 0.0)
            score -= threats * (0.6 - 0.04 * _keep_value(d.card))  # exposed ships want strong cards
            score -= 0.05 * _keep_value(d.card)
            if late and dz < 2:
                score -= 2.0
            if score > best_score:
                best, best_score = a, score
        return best if best_score > 0.3 else None

    def _defend(self, v: NavalView, legal: list[int]) -> int:
        pa = v.pending
        owner, ship = list(v.board_owner), list(v.board_card)
        fixed = attack_ships(owner, ship, pa.attacker, pa.src, pa.dst, pa.style)
        draws = self._samples(v, extra=2)  # the attacker's face-down card (+ the deck card)
        options = [NODEFEND] + [a for a in legal if DECODED[a].kind == ActionKind.DEFEND]
        held: dict[int, float] = {}
        for a in options:
            card = None if a == NODEFEND else DECODED[a].card
            ok = 0
            for _, extra in draws:
                if len(extra) < 1 + pa.deck_card_drawn:
                    continue
                attack = fixed + extra[:1] + (extra[1:2] if pa.deck_card_drawn else [])
                ok += self._best_defence(owner, ship, pa.src, pa.dst, pa.style, [card]) > hand_strength(attack)
            held[a] = ok / max(len(draws), 1)
        worth = 1.0 + 0.8 * depth(1 - pa.attacker, pa.dst)
        best = max(options, key=lambda a: held[a] * worth - (0 if a == NODEFEND
                                                            else 0.35 + 0.02 * _keep_value(DECODED[a].card)))
        return best

    def _sink(self, v: NavalView, legal: list[int]) -> int:
        sinks = [a for a in legal if DECODED[a].kind == ActionKind.SINK]
        if not sinks:
            return PASS
        enemy = 1 - v.seat
        return max(sinks, key=lambda a: depth(enemy, DECODED[a].zone))

    def __repr__(self) -> str:
        return f"NavalHeuristic(samples={self.samples})"
