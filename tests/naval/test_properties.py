"""Properties over many seeded random games of the naval engine."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cardwar.envs.naval import NUM_ACTIONS, IllegalActionError, NavalConfig, NavalState, max_game_steps
from cardwar.envs.naval.cards import NUM_CARDS, card_to_str
from cardwar.envs.naval.serialize import state_from_json, state_to_json
from tests.naval.helpers import all_cards_accounted, hidden_from

GAMES = 10_000
RULE_VARIANTS = [
    NavalConfig(),
    NavalConfig(supply_cut="always", sealane_control="majority", royal_flush="any_pair", alternate_win=True),
    NavalConfig(deck_out="immediate", broadside_empty_deck="two_cards", royal_flush_defender=False,
                first_player="B", mulligan=False),
    NavalConfig(royal_flush="winner_adjacent", bastion="any_attack", blockade="all_zones", first_player="A"),
]


def _view_card_ints(v) -> set[int]:
    """Cards whose place the view states (the mulligan-shown cards are public knowledge of
    cards that went back into the deck, so they are checked separately)."""
    cards = set(v.hand) | set(v.discards) | {c for c in v.board_card if c >= 0}
    if v.pending is not None and v.pending.own_card >= 0:
        cards.add(v.pending.own_card)
    return cards


def _strings(obj) -> set[str]:
    if isinstance(obj, str):
        return {obj}
    if isinstance(obj, dict):
        return set().union(*(_strings(k) | _strings(v) for k, v in obj.items())) if obj else set()
    if isinstance(obj, (list, tuple)):
        return set().union(*(_strings(x) for x in obj)) if obj else set()
    return set()


@pytest.mark.parametrize("chunk", range(4))
def test_ten_thousand_random_games_keep_every_invariant(chunk: int):
    """All 52 cards in exactly one place at every step, games end within the bound,
    serialisation round-trips, and views never hold a card hidden from their seat."""
    bound = max_game_steps(NavalConfig())
    per_chunk = GAMES // 4
    for g in range(chunk * per_chunk, (chunk + 1) * per_chunk):
        cfg = RULE_VARIANTS[g % len(RULE_VARIANTS)]
        rng = np.random.default_rng(g)
        s = NavalState.new_game(cfg, seed=g)
        steps, snapshot_at = 0, int(rng.integers(0, 40))
        snapshot = None
        trail: list[int] = []
        while not s.is_terminal():
            places = all_cards_accounted(s)
            assert len(places) == NUM_CARDS and set(places) == set(range(NUM_CARDS)), f"game {g} step {steps}"
            for seat in (0, 1):
                v = s.information_view(seat)
                leaked = _view_card_ints(v) & hidden_from(s, seat)
                assert not leaked, f"game {g}: seat {seat} sees {leaked}"
                assert list(v.mulligan_shown) == s.mulligan_shown  # shown to both captains (Setup 3)
                # the view's unseen cards are exactly what is hidden from it
                assert set(v.unseen_cards()) == hidden_from(s, seat)
            if steps == snapshot_at:
                snapshot = state_to_json(s)
            legal = s.legal_actions()
            a = legal[int(rng.integers(len(legal)))]
            s.apply_action(a)
            if snapshot is not None:
                trail.append(a)
            steps += 1
            assert steps <= bound, f"game {g} exceeded {bound} steps"
        if snapshot is not None:  # replaying the rest from the saved state gives the same end
            r = state_from_json(snapshot)
            for a in trail:
                r.apply_action(a)
            assert state_to_json(r) == state_to_json(s)


def test_views_as_sent_never_name_a_hidden_card():
    """The JSON form of every view (what a seat would be sent) names no hidden card."""
    for g in range(150):
        rng = np.random.default_rng(g)
        s = NavalState.new_game(seed=g)
        while not s.is_terminal():
            for seat in (0, 1):
                sent = s.information_view(seat).to_dict()
                assert sent.pop("mulligan_shown") == [card_to_str(c) for c in s.mulligan_shown]
                text = _strings(sent)
                hidden = {card_to_str(c) for c in hidden_from(s, seat)}
                assert not text & hidden, f"game {g}: {text & hidden}"
            legal = s.legal_actions()
            s.apply_action(legal[int(rng.integers(len(legal)))])


def test_mask_equals_brute_force_legality_at_random_states():
    """Every action id tried on a clone: it applies without error exactly where the mask says 1."""
    checked = 0
    for g in range(120):
        rng = np.random.default_rng(g)
        cfg = RULE_VARIANTS[g % len(RULE_VARIANTS)]
        s = NavalState.new_game(cfg, seed=g)
        stop = int(rng.integers(0, 60))
        for _ in range(stop):
            if s.is_terminal():
                break
            legal = s.legal_actions()
            s.apply_action(legal[int(rng.integers(len(legal)))])
        if s.is_terminal():
            continue
        mask = s.legal_action_mask()
        for a in range(NUM_ACTIONS):
            c = s.clone()
            try:
                c.apply_action(a)
                ok = True
            except IllegalActionError:
                ok = False
            assert ok == bool(mask[a]) == s.is_legal(a), f"game {g} action {a}"
        assert s.legal_actions() == np.flatnonzero(mask).tolist()  # sorted, no duplicates
        checked += 1
    assert checked >= 80


def test_clone_is_independent_and_equal():
    s = NavalState.new_game(seed=5)
    rng = np.random.default_rng(5)
    for _ in range(30):
        c = s.clone()
        assert state_to_json(c) == state_to_json(s)
        legal = c.legal_actions()
        c.apply_action(legal[-1])
        assert state_to_json(c) != state_to_json(s)
        legal = s.legal_actions()
        s.apply_action(legal[int(rng.integers(len(legal)))])
        if s.is_terminal():
            break


def test_same_seed_same_game_and_json_is_plain_data():
    a, b = NavalState.new_game(seed=42), NavalState.new_game(seed=42)
    assert state_to_json(a) == state_to_json(b)
    assert NavalState.new_game(seed=43).deck != a.deck
    json.loads(state_to_json(a))  # valid JSON
    assert NavalState.from_dict(a.to_dict()).to_dict() == a.to_dict()


def test_move_log_and_spectator_board_never_name_a_hidden_card():
    """The public narration of each move and the spectator's picture name only public cards."""
    import re

    from cardwar.envs.naval.render import narrate, render_state

    card_re = re.compile(r"\b(?:10|[2-9AJQK])[CDHS]\b")
    for g in range(150):
        rng = np.random.default_rng(g)
        s = NavalState.new_game(seed=g)
        while not s.is_terminal():
            legal = s.legal_actions()
            a = legal[int(rng.integers(len(legal)))]
            before = s.clone()
            s.apply_action(a)
            # secret: hidden from at least one captain, and not among the cards shown at the mulligan
            hidden = {card_to_str(c) for c in (hidden_from(s, 0) | hidden_from(s, 1)) - set(s.mulligan_shown)}
            text = "\n".join(narrate(before, a, s)) + "\n" + render_state(s, None)
            named = set(card_re.findall(text))
            assert not named & hidden, f"game {g}: {named & hidden} in\n{text}"
