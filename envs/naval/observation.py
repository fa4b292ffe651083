"""The observation tensor of one captain, built from their :class:`NavalView` only.

Because the encoder reads nothing but the view, an observation can never hold
what the view does not. Layout of the float32 vector (all values in [0, 1]):

| offset | size   | meaning                                                         |
|--------|--------|-----------------------------------------------------------------|
| 0      | 7 x 52 | card planes: own hand, own ships, enemy ships, discards,        |
|        |        | shown at the mulligan, own face-down card of a pending attack,  |
|        |        | unseen (in the deck, the other hand or face down: the cards     |
|        |        | still to be met)                                                |
| 364    | 9 x 19 | per Seazone A..I: own ship, enemy ship, rank A..K, suit C D H S |
| 535    | 52     | globals (see :data:`GLOBAL_FEATURES`)                           |
"""

from __future__ import annotations

import numpy as np

from cardwar.envs.naval.cards import NUM_CARDS
from cardwar.envs.naval.view import NavalView

CARD_PLANES = ("own_hand", "own_ships", "enemy_ships", "discards", "mulligan_shown", "own_facedown", "unseen")
ZONE_FEATURES = 19
ZONES_OFFSET = len(CARD_PLANES) * NUM_CARDS  # 364
UNSEEN_OFFSET = 6 * NUM_CARDS
GLOBAL_OFFSET = ZONES_OFFSET + 9 * ZONE_FEATURES  # 535
GLOBAL_FEATURES = (
    ["seat_is_A", "seat_is_B", "to_decide", "my_turn"]
    + [f"phase_{p}" for p in ("mulligan", "action", "defend", "royal_flush", "game_over")]
    + ["actions_taken/2", "deployed", "attacked", "first_turn", "turn/20", "deck/38", "own_hand/26",
       "other_hand/26", "attack_pending", "i_attack"]
    + [f"attack_from_{z}" for z in "ABCDEFGHI"] + [f"attack_to_{z}" for z in "ABCDEFGHI"]
    + ["style_normal", "style_ram", "style_broadside", "deck_card_drawn"]
    + [f"sink_candidate_{z}" for z in "ABCDEFGHI"] + ["mulligan_decided", "mulliganed"]
)
_ALL_CARDS = range(NUM_CARDS)
OBS_SIZE = GLOBAL_OFFSET + len(GLOBAL_FEATURES)  # 587


def encode_observation(v: NavalView) -> np.ndarray:
    """The float32 observation of ``v.seat`` (a spectator view encodes as seat-less)."""
    obs = np.zeros(OBS_SIZE, dtype=np.float32)
    me = v.seat
    idx = list(v.hand)
    for z in range(9):
        o = v.board_owner[z]
        if o < 0:
            continue
        c = v.board_card[z]
        mine = o == me
        idx.append((NUM_CARDS if mine else 2 * NUM_CARDS) + c)
        base = ZONES_OFFSET + z * ZONE_FEATURES
        idx += [base + (0 if mine else 1), base + 2 + c % 13, base + 15 + c // 13]
    idx += [3 * NUM_CARDS + c for c in v.discards]
    idx += [4 * NUM_CARDS + c for c in v.mulligan_shown]
    g = GLOBAL_OFFSET
    if me is not None:
        idx.append(g + me)
        if v.current == me:
            idx.append(g + 2)
        if v.active == me:
            idx.append(g + 3)
    idx.append(g + 4 + int(v.phase))
    pa = v.pending
    if pa is not None:
        if pa.own_card >= 0:
            idx.append(5 * NUM_CARDS + pa.own_card)
        idx.append(g + 17)
        if pa.attacker == me:
            idx.append(g + 18)
        idx += [g + 19 + pa.src, g + 28 + pa.dst, g + 37 + int(pa.style)]
        if pa.deck_card_drawn:
            idx.append(g + 40)
    idx += [g + 41 + z for z in v.royal_flush_candidates]
    if me is not None and v.mulligan_choices[me] is not None:
        idx.append(g + 50)
        if v.mulligan_choices[me]:
            idx.append(g + 51)
    seen = set(v.hand)
    seen.update(v.board_card)
    seen.update(v.discards)
    if pa is not None:
        seen.add(pa.own_card)
    idx += [UNSEEN_OFFSET + c for c in _ALL_CARDS if c not in seen]
    obs[idx] = 1.0
    other = 0 if me is None else 1 - me
    obs[g + 9:g + 17] = (v.actions_taken / 2, v.deployed, v.attacked, v.turn == 1, min(v.turn / 20, 1.0),
                         min(v.deck_count / 38, 1.0), min(len(v.hand) / 26, 1.0),
                         min(v.hand_counts[other] / 26, 1.0))  # 26: the most one captain can hold
    return obs
