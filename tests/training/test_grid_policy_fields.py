"""Tank Attack's distance fields (``policy.distance_fields`` with ``grid_fcn``): checked against the heuristic's own
Bunker distance (``agents/tankattack_heuristic.bunker_distance``, a breadth-first search over the engine's board)
and a brute-force king's-move distance to the elements each seat sees, on positions of random play."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from cardwar.agents.tankattack_heuristic import bunker_distance
from cardwar.envs import make_raw_env
from cardwar.envs.tankattack.board import NUM_CELLS, STRIDE
from cardwar.envs.tankattack.observation import OBS_SHAPE, P
from cardwar.training.config import TrainConfigError, config_from_dict
from cardwar.training.grid_policy import (ENEMY_PLANES, FIELD_SCALE, FIELDS, OWN_PLANES, GridDistanceFields,
                                          GridPolicy, on_map_plane, standalone)
from cardwar.training.trainer import policy_kwargs


def positions(scenario: str, count: int, seed: int) -> list[tuple[np.ndarray, list[int]]]:
    """(observation of the seat to decide, the heuristic's Bunker distance) at ``count`` positions of random play."""
    env = make_raw_env("tankattack", scenario)
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    out = []
    while len(out) < count:
        if env.game.is_terminal():
            env.reset(seed=int(rng.integers(2**31)))
        obs = env.observe(env.agent_selection)
        out.append((obs["observation"], list(bunker_distance(env.game))))
        for _ in range(int(rng.integers(1, 30))):
            if env.game.is_terminal():
                break
            o = env.observe(env.agent_selection)
            env.step(int(rng.choice(np.flatnonzero(o["action_mask"]))))
    return out


def fields_of(batch: np.ndarray) -> np.ndarray:
    """[B, cells, N_FIELDS] of channels-last observations."""
    obs = torch.as_tensor(batch).permute(0, 3, 1, 2)
    with torch.no_grad():
        out = GridDistanceFields()(obs, on_map_plane(obs))
    return out.permute(0, 2, 3, 1).reshape(len(batch), NUM_CELLS, len(FIELDS)).numpy()


def king_steps(targets: np.ndarray) -> np.ndarray:
    """Brute force: each cell's max(|drow|, |dcol|) to the nearest target cell; inf with none."""
    cells = np.arange(NUM_CELLS)
    rows, cols = cells // STRIDE, cells % STRIDE
    where = np.flatnonzero(targets)
    if len(where) == 0:
        return np.full(NUM_CELLS, np.inf)
    return np.maximum(np.abs(rows[:, None] - rows[where][None]), np.abs(cols[:, None] - cols[where][None])).min(axis=1)


@pytest.mark.parametrize("scenario", ["random:train", "random:test", "trench_raid", "cambrai"])
def test_fields_are_the_heuristics_bunker_steps_the_progress_and_the_nearest_elements(scenario):
    found = positions(scenario, 12, seed=7)
    batch = np.stack([o for o, _ in found])
    fields = fields_of(batch)
    k = {name: i for i, name in enumerate(FIELDS)}
    for (obs, dist), f in zip(found, fields):
        flat = obs.reshape(NUM_CELLS, -1)
        on_map = flat[:, P["off_map"]] == 0
        dist = np.array(dist, dtype=float)
        if flat[:, P["bunker"]].any():  # the heuristic's board has its Bunker; the view shows it while it stands
            reach = on_map & (dist < 99)
            assert np.array_equal(f[:, k["bunker_reachable"]] > 0, reach)
            assert np.allclose(f[reach, k["bunker_steps"]], dist[reach] / FIELD_SCALE, atol=1e-6)
            assert np.allclose(f[on_map & ~reach, k["bunker_steps"]], 2.0)
            steps = f[:, k["bunker_steps"]]
            element = flat[:, P["pending_element"]] > 0
            expected = (steps[element].mean() - steps) if element.any() else np.zeros(NUM_CELLS)
            assert np.allclose(f[on_map, k["bunker_progress"]], expected[on_map], atol=1e-5)
        for name, planes in (("enemy_steps", ENEMY_PLANES), ("own_steps", OWN_PLANES)):
            there = (flat[:, list(planes)].sum(axis=1) > 0) & on_map
            want = np.minimum(king_steps(there) / FIELD_SCALE, 2.0)
            assert np.allclose(f[on_map, k[name]], want[on_map], atol=1e-6), name


def test_a_pending_move_shows_its_progress_towards_the_bunker():
    """At least one decision of random play has a pending element; there, moving to its own cell is no progress."""
    found = [o for o, _ in positions("random:train", 60, seed=3)]
    pending = [o for o in found if o[..., P["pending_element"]].sum() == 1 and o[..., P["bunker"]].any()]
    assert pending
    fields = fields_of(np.stack(pending))
    for obs, f in zip(pending, fields):
        at = int(np.flatnonzero(obs.reshape(NUM_CELLS, -1)[:, P["pending_element"]])[0])
        assert f[at, FIELDS.index("bunker_progress")] == pytest.approx(0.0, abs=1e-6)


def test_the_config_key_builds_a_policy_with_the_fields_that_saves_and_loads_them(tmp_path):
    config = config_from_dict({"game": "tankattack", "policy": {"features": "grid_fcn", "conv_channels": 8,
                                                                "conv_blocks": 1, "distance_fields": True}})
    assert policy_kwargs(config) == {"channels": 8, "blocks": 1, "fields": True}
    policy = standalone(8, 1, fields=True)
    assert policy.features_extractor.fields is not None
    assert policy.features_extractor.mix.in_channels == OBS_SHAPE[2] + 1 + len(FIELDS)
    data = policy._get_constructor_parameters()
    again = GridPolicy(**{**data, "lr_schedule": lambda _: 1e-4})
    again.load_state_dict(policy.state_dict())
    obs = torch.as_tensor(np.stack([o for o, _ in positions("cambrai", 3, seed=1)]))
    with torch.no_grad():
        assert torch.allclose(policy.extract_features(obs), again.extract_features(obs))
    with pytest.raises(TrainConfigError, match="policy.distance_fields"):
        config_from_dict({"game": "naval", "policy": {"features": "mlp", "distance_fields": True}})
