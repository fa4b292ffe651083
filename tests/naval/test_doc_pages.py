"""naval-v0's and naval-v1's pages: the whole observation and action encoding, read from the page, is the code's."""

from __future__ import annotations

import numpy as np
import pytest

from cardwar.envs import naval_v0, naval_v1
from cardwar.envs.naval.actions import action_to_string, string_to_action
from cardwar.envs.naval.seemap import EDGES
from cardwar.envs.naval.steps import step_to_string, string_to_step
from tests.naval.pages import id_span, run_page_code, table_with

PAGES = {"naval_v0": naval_v0, "naval_v1": naval_v1}
RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]


def card(text: str) -> int:
    """The page's card numbering, ``suit * 13 + rank - 1`` with suits C D H S, computed here."""
    return "CDHS".index(text[-1]) * 13 + RANKS.index(text[:-1])


def zone(letter: str) -> int:
    return "ABCDEFGHI".index(letter)


def variables(notation: str) -> dict[str, int]:
    """The page's formula variables (c, z, e, s) of one move or step, read from its notation."""
    w = notation.split()
    if w[0] in ("deploy",):
        return {"c": card(w[1]), "z": zone(w[2])}
    if w[0] == "attack":
        src, dst = (zone(x) for x in w[1].split(">"))
        found = {"e": EDGES.index((src, dst)), "s": int(w[2] != "normal")}
        return found | ({"c": card(w[3])} if len(w) == 4 else {})
    if w[0] in ("defend", "card"):
        return {"c": card(w[1])}
    if w[0] in ("sink", "zone"):
        return {"z": zone(w[1])}
    return {}


@pytest.mark.parametrize("name", PAGES)
def test_every_code_line_of_the_page_runs(name, capsys):
    run_page_code(name, PAGES[name].__doc__)


@pytest.mark.parametrize("name, to_string, from_string", [
    ("naval_v0", action_to_string, string_to_action), ("naval_v1", step_to_string, string_to_step)])
def test_the_pages_action_table_covers_every_id_with_its_formula_and_notation(name, to_string, from_string):
    module = PAGES[name]
    rows = table_with(module.__doc__, "notation (first .. last id)")
    ids = [a for row in rows for a in id_span(row.get("ids") or row["step ids"])]
    assert ids == list(range(module.raw_env().action_space("captain_a").n))  # a partition, in order
    for row in rows:
        span = id_span(row.get("ids") or row["step ids"])
        first, _, last = row["notation (first .. last id)"].partition(" .. ")
        assert to_string(span[0]) == first and to_string(span[-1]) == (last or first)
        for a in span:
            notation = to_string(a)
            assert from_string(notation) == a
            if row["id"] != "-":  # the page's formula, with variables read from the notation here
                assert eval(row["id"], {}, variables(notation)) == a, (row, notation)


def _play(env, seed: int, games: int):
    """Every seat's observation and view at every step of random games."""
    rng = np.random.default_rng(seed)
    for g in range(games):
        env.reset(seed=seed + g)
        for agent in env.agent_iter():
            for other in env.possible_agents:
                yield env.observe(other)["observation"], env.unwrapped.view(other)
            obs, _, term, trunc, _ = env.last()
            env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))


@pytest.mark.parametrize("name", PAGES)
def test_the_pages_observation_table_is_what_the_encoder_writes(name):
    module = PAGES[name]
    rows = table_with(module.__doc__, "offset")
    offsets = [int(r["offset"]) for r in rows]
    sizes = [int(r["size"]) for r in rows]
    assert offsets == list(np.cumsum([0] + sizes[:-1]))  # contiguous, from 0
    assert sum(sizes) == module.raw_env().observation_space("captain_a")["observation"].shape[0]
    at = {r["feature"]: (int(r["offset"]), int(r["size"]), r["values"]) for r in rows}
    seen = np.zeros(sum(sizes), dtype=bool)
    for obs, view in _play(module.env(), 11, 4):
        for off, size, values in at.values():
            part = obs[off:off + size]
            assert values in ("0/1", "[0, 1]")
            assert np.isin(part, (0.0, 1.0)).all() if values == "0/1" else ((part >= 0) & (part <= 1)).all()
        seen |= obs != 0
        # The meanings of a few rows, checked against the view (the page's numbering, computed here)
        off, _, _ = at["own_hand[c]"]
        assert sorted(np.flatnonzero(obs[off:off + 52])) == sorted(view.hand)
        off, _, _ = at["discards[c]"]
        assert sorted(np.flatnonzero(obs[off:off + 52])) == sorted(view.discards)
        assert obs[at["turn/20"][0]] == pytest.approx(min(view.turn / 20, 1.0))
        assert obs[at["deck/38"][0]] == pytest.approx(min(view.deck_count / 38, 1.0))
        for z, letter in enumerate("ABCDEFGHI"):
            off = at[f"seazone_{letter}"][0]
            mine, theirs = view.board_owner[z] == view.seat, view.board_owner[z] not in (-1, view.seat)
            assert (obs[off], obs[off + 1]) == (float(mine), float(theirs))
    assert seen[:at["seazone_A"][0]].any()
