"""The observation tensor of one captain, built from their :class:`NavalView` only.

Because the encoder reads nothing but the view, an observation can never hold
what the view does not. The float32 vector of :data:`OBS_SIZE` features, all in
[0, 1], feature by feature (built by :func:`feature_table` from the names below;
card ``c`` is ``suit * 13 + rank - 1``, Ace = 1 .. King = 13, suits C D H S; Seazones
A..I are 0..8):

{{FEATURE_TABLE}}
"""

from __future__ import annotations

import numpy as np

from cardwar.envs.doc_pages import fill, markdown_table
from cardwar.envs.naval.cards import NUM_CARDS, RANK_NAMES, SUITS
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


def _ship_features(mine: bool, z: int, c: int) -> tuple[int, int, int, int]:
    """The four ones a ship writes: its card in my / the enemy's ship plane, then its Seazone's owner,
    rank and suit features."""
    base = ZONES_OFFSET + z * ZONE_FEATURES
    return (NUM_CARDS if mine else 2 * NUM_CARDS) + c, base + (0 if mine else 1), base + 2 + c % 13, base + 15 + c // 13


_SHIP = tuple(tuple(tuple(_ship_features(mine, z, c) for c in range(NUM_CARDS)) for z in range(9))
              for mine in (False, True))  # [mine][zone][card], tabled: the encoder runs every step
_UNSEEN = tuple(UNSEEN_OFFSET + c for c in range(NUM_CARDS))
_DISCARD = tuple(3 * NUM_CARDS + c for c in range(NUM_CARDS))
_SHOWN = tuple(4 * NUM_CARDS + c for c in range(NUM_CARDS))
_ALL_UNSEEN = np.zeros(OBS_SIZE, dtype=np.float32)
_ALL_UNSEEN[UNSEEN_OFFSET:UNSEEN_OFFSET + NUM_CARDS] = 1.0  # every card unseen: seen ones are cleared
_TEMPLATES = {OBS_SIZE: _ALL_UNSEEN}  # size -> _ALL_UNSEEN and zeros after it


def encode_observation(v: NavalView, size: int = OBS_SIZE) -> np.ndarray:
    """The float32 observation of ``v.seat`` (a spectator view encodes as seat-less); a ``size`` above
    :data:`OBS_SIZE` leaves zeros after it, for the features an env adds (naval-v1's pending step).

    It starts from every card unseen and clears the cards the seat sees (its hand, the ships, the
    discards, its face-down attack card); every other feature is set by one index list, from tables
    (tests/naval/test_env_speed_equivalence.py checks it against a feature-by-feature encoder).
    """
    template = _TEMPLATES.get(size)
    if template is None:
        template = _TEMPLATES[size] = np.zeros(size, dtype=np.float32)
        template[:OBS_SIZE] = _ALL_UNSEEN
    obs = template.copy()
    me = v.seat
    hand = v.hand
    idx = [*hand]
    seen = [*map(_UNSEEN.__getitem__, hand)]
    owner, cards = v.board_owner, v.board_card
    for z in range(9):
        o = owner[z]
        if o >= 0:
            idx += _SHIP[o == me][z][cards[z]]
            seen.append(_UNSEEN[cards[z]])
    discards = v.discards
    if discards:
        idx += map(_DISCARD.__getitem__, discards)
        seen += map(_UNSEEN.__getitem__, discards)
    if v.mulligan_shown:
        idx += map(_SHOWN.__getitem__, v.mulligan_shown)
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
            seen.append(_UNSEEN[pa.own_card])
        idx.append(g + 17)
        if pa.attacker == me:
            idx.append(g + 18)
        idx += (g + 19 + pa.src, g + 28 + pa.dst, g + 37 + int(pa.style))
        if pa.deck_card_drawn:
            idx.append(g + 40)
    if v.royal_flush_candidates:
        idx += [g + 41 + z for z in v.royal_flush_candidates]
    if me is not None and v.mulligan_choices[me] is not None:
        idx.append(g + 50)
        if v.mulligan_choices[me]:
            idx.append(g + 51)
    obs[np.fromiter(idx, np.intp, len(idx))] = 1.0  # an array first: numpy indexes with a list more slowly
    if seen:
        obs[np.fromiter(seen, np.intp, len(seen))] = 0.0
    other = 0 if me is None else 1 - me
    obs[g + 9:g + 17] = (v.actions_taken / 2, v.deployed, v.attacked, v.turn == 1, min(v.turn / 20, 1.0),
                         min(v.deck_count / 38, 1.0), min(len(hand) / 26, 1.0),
                         min(v.hand_counts[other] / 26, 1.0))  # 26: the most one captain can hold
    return obs


CARD_PLANE_MEANINGS = {
    "own_hand": "1 if card c is in my hand",
    "own_ships": "1 if card c is one of my ships on the Seemap",
    "enemy_ships": "1 if card c is one of the enemy's ships on the Seemap",
    "discards": "1 if card c is in the discard pile",
    "mulligan_shown": "1 if card c was shown at a mulligan",
    "own_facedown": "1 if card c is my face-down card of the pending attack",
    "unseen": "1 if I have not seen card c (in the deck, the other hand or face down): the cards still to be met",
}
"""What each card plane says of card ``c`` (every plane is 0/1, 52 wide)."""

_GLOBAL_MEANINGS = {
    "seat_is_A": ("0/1", "I am Captain A"), "seat_is_B": ("0/1", "I am Captain B"),
    "to_decide": ("0/1", "the decision now is mine"), "my_turn": ("0/1", "it is my turn (I am the active captain)"),
    "actions_taken/2": ("[0, 1]", "actions taken this turn / 2"),
    "deployed": ("0/1", "a ship was deployed this turn"), "attacked": ("0/1", "an attack was made this turn"),
    "first_turn": ("0/1", "it is the game's first turn"),
    "turn/20": ("[0, 1]", "turn number / 20, at most 1"),
    "deck/38": ("[0, 1]", "cards left in the deck / 38, at most 1"),
    "own_hand/26": ("[0, 1]", "cards in my hand / 26 (the most one captain can hold)"),
    "other_hand/26": ("[0, 1]", "cards in the other captain's hand / 26"),
    "attack_pending": ("0/1", "an attack waits for its defence"),
    "i_attack": ("0/1", "the pending attack is mine"),
    "deck_card_drawn": ("0/1", "the pending Broadside drew a face-down card from the deck"),
    "mulligan_decided": ("0/1", "I have made my mulligan decision"),
    "mulliganed": ("0/1", "I took a mulligan"),
}
_GLOBAL_FAMILIES = {
    "phase_": "the phase is {} (one-hot)",
    "attack_from_": "the pending attack comes from Seazone {}",
    "attack_to_": "the pending attack is on Seazone {}",
    "style_": "the pending attack is a {} attack (one-hot)",
    "sink_candidate_": "a High Royal Flush may sink the ship in Seazone {}",
}


def global_meaning(name: str) -> tuple[str, str]:
    """(values, meaning) of the global feature ``name``; KeyError for a name nobody described."""
    if name in _GLOBAL_MEANINGS:
        return _GLOBAL_MEANINGS[name]
    for prefix, text in _GLOBAL_FAMILIES.items():
        if name.startswith(prefix):
            return "0/1", text.format(name[len(prefix):].replace("_", " "))
    raise KeyError(f"global feature {name!r} has no meaning in the observation's table")


def feature_table() -> list[tuple[str, int, str, str, str]]:
    """Every feature of the observation: (offset, size, name, values, meaning), in order."""
    rows = [(str(k * NUM_CARDS), NUM_CARDS, f"{plane}[c]", "0/1", CARD_PLANE_MEANINGS[plane])
            for k, plane in enumerate(CARD_PLANES)]
    zone = (f"1 if mine, 1 if the enemy's, then its rank {' '.join(RANK_NAMES)} (one-hot), "
            f"suit {' '.join(SUITS)} (one-hot); all 0 when empty")
    rows += [(str(ZONES_OFFSET + z * ZONE_FEATURES), ZONE_FEATURES, f"seazone_{'ABCDEFGHI'[z]}", "0/1",
              f"the ship in Seazone {'ABCDEFGHI'[z]}: " + (zone if z == 0 else "as in Seazone A"))
             for z in range(9)]
    rows += [(str(GLOBAL_OFFSET + k), 1, name, *global_meaning(name)) for k, name in enumerate(GLOBAL_FEATURES)]
    return rows


FEATURE_TABLE = markdown_table(("offset", "size", "feature", "values", "meaning"), feature_table())
"""The table of :func:`feature_table` in Markdown (what the env pages show)."""

__doc__ = fill(__doc__, FEATURE_TABLE=FEATURE_TABLE)
