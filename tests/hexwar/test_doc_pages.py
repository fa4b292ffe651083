"""hexwar-v0's and hexwar-v1's pages: every plane and id range, read from the page, is what the code does."""

from __future__ import annotations

import numpy as np
import pytest

from cardwar.envs import hexwar_v0, hexwar_v1
from cardwar.envs.hexwar.actions import action_to_string, string_to_action
from cardwar.envs.hexwar.units import UnitType
from tests.naval.pages import id_span, run_page_code, table_with

PAGES = {"hexwar_v0": hexwar_v0, "hexwar_v1": hexwar_v1}
VALUE_SETS = {"0/1": (0.0, 1.0), "0, 0.5, 1": (0.0, 0.5, 1.0)}
SETUPS = [{"scenario": "artillery_barrage"}, {"scenario": "random", "rules": {"hidden_units": True}},
          {"scenario": "hill_and_hedgerows", "rules": {"hidden_units": True, "joint_activation": True}}]


def cell(label: str) -> int:
    """The page's cell numbering, ``row * 12 + col`` with columns A.. and rows 1.., computed here."""
    return (int(label[1:]) - 1) * 12 + "ABCDEFGHIJKL".index(label[0])


def variables(notation: str) -> dict[str, int]:
    where = notation.split()[-1]
    if where in ("pass", "evade"):
        return {}
    label, _, slot = where.partition("/")
    return {"c": cell(label), "s": int(slot == "2")}


@pytest.mark.parametrize("name", PAGES)
def test_every_code_line_of_the_page_runs(name, capsys):
    run_page_code(name, PAGES[name].__doc__)


@pytest.mark.parametrize("name", PAGES)
def test_the_pages_action_table_covers_every_id_with_its_formula_and_notation(name):
    rows = table_with(PAGES[name].__doc__, "notation (first .. last id)")
    ids = [a for row in rows for a in id_span(row["ids"])]
    assert ids == list(range(PAGES[name].raw_env().action_space("blue").n))
    for row in rows:
        span = id_span(row["ids"])
        first, _, last = row["notation (first .. last id)"].partition(" .. ")
        assert action_to_string(span[0]) == first and action_to_string(span[-1]) == (last or first)
        for a in span:
            notation = action_to_string(a)
            assert string_to_action(notation) == a and notation.replace(" ", "_").startswith(row["kind"])
            if row["id"] != "-":
                assert eval(row["id"], {}, variables(notation)) == a, (row, notation)


def _observations(module, seed: int):
    """Both sides' observations, views and scenario at every step of random games in several setups."""
    rng = np.random.default_rng(seed)
    for k, kwargs in enumerate(SETUPS):
        env = module.env(**kwargs)
        env.reset(seed=seed + k)
        for n, agent in enumerate(env.agent_iter(max_iter=400)):
            if n % 3 == 0 or env.unwrapped.view(agent).pending is not None:  # every evasion decision
                for side in env.possible_agents:
                    yield env.observe(side)["observation"], env.unwrapped.view(side), env.unwrapped.scenario
            obs, _, term, trunc, _ = env.last()
            env.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))


@pytest.mark.parametrize("name", PAGES)
def test_the_pages_plane_table_is_what_the_encoder_writes(name):
    module = PAGES[name]
    rows = table_with(module.__doc__, "plane")
    assert [int(r["plane"]) for r in rows] == list(range(len(rows)))
    shape = module.raw_env().observation_space("blue")["observation"].shape
    assert len(rows) == (shape[0] if name == "hexwar_v0" else shape[2]) == 59
    at = {r["name"]: int(r["plane"]) for r in rows}
    lit = np.zeros(len(rows), dtype=bool)
    for obs, view, scenario in _observations(module, 3):
        planes = obs if name == "hexwar_v0" else obs.transpose(2, 0, 1)  # the page's channel p, as a plane
        flat = planes.reshape(len(rows), -1)
        for r in rows:
            p, values = int(r["plane"]), r["values"]
            if values.startswith("constant "):
                values = values.removeprefix("constant ")
                assert (flat[p] == flat[p][0]).all(), r["name"]
            allowed = VALUE_SETS.get(values)
            ok = np.isin(flat[p], allowed).all() if allowed else ((flat[p] >= 0) & (flat[p] <= 1)).all()
            assert ok, (r["name"], np.unique(flat[p]))
        lit |= flat.any(axis=1)
        # The meanings of a few planes, checked against the view and the map, computed here
        for c in range(120):
            on = scenario.on_map[c]
            assert flat[at["off_map"], c] == (not on)
            if on:
                assert flat[at[f"terrain_{scenario.terrain[c].name.lower()}"], c] == 1
        for t in UnitType:
            for who, mine in (("own", True), ("enemy", False)):
                expected = np.zeros(120)
                for u in view.units:
                    if u.cell >= 0 and u.type == t and (u.side == view.side) == mine:
                        expected[u.cell] += 0.5
                np.testing.assert_array_equal(flat[at[f"{who}_{t.name.lower()}"]], expected)
        assert flat[at["i_am_blue"], 0] == (view.side == 0)
        assert flat[at["turn_fraction"], 0] == pytest.approx(view.turn / view.turns)
    assert lit[at["own_hits"]] and lit[at["smoke"]] and lit[at["own_hidden"]] and lit[at["evade_decision"]]
