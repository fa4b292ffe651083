"""The hex-convolutional policy: hex kernels reach exactly a hex's neighbours, the network is fully convolutional
(a board moved on the grid moves its logits with it), logits land on the right action ids, every map size gets a
finite masked distribution, and MaskablePPO trains it, saves it and loads it back."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from gymnasium import spaces

from cardwar.envs import make_raw_env
from cardwar.envs.hexwar.actions import (
    EVADE, JOINT_MOVE_BASE, JOINT_SHOOT_BASE, MOVE_BASE, NO_EVADE, NUM_ACTIONS, PASS, SHOOT_BASE, SMOKE_BASE,
)
from cardwar.envs.hexwar.generator import generate_scenario
from cardwar.envs.hexwar.hexgrid import DIRECTIONS, from_offset, neighbours, to_offset
from cardwar.envs.hexwar.observation import OBS_SHAPE, P
from cardwar.training.hex_policy import HexConv2d, HexConvPolicy, hex_kernel_mask, scatter_logits

ROWS, COLS = OBS_SHAPE[1:]


def grid_neighbours(row: int, col: int) -> set[tuple[int, int]]:
    """(row, col) of the in-grid neighbours of a cell, by hexgrid's axial geometry."""
    out = set()
    for n in neighbours(from_offset(col, row)):
        c, r = to_offset(n)
        if 0 <= r < ROWS and 0 <= c < COLS:
            out.add((r, c))
    return out


def impulses() -> torch.Tensor:
    """One board per cell, 1 on that cell only: [cells, 1, rows, cols]."""
    return torch.eye(ROWS * COLS).view(ROWS * COLS, 1, ROWS, COLS)


def make_policy(channels: int = 8, blocks: int = 2, randomise: bool = True, **kwargs) -> HexConvPolicy:
    torch.manual_seed(0)
    policy = HexConvPolicy(spaces.Box(0.0, 1.0, OBS_SHAPE, dtype=np.float32), spaces.Discrete(NUM_ACTIONS),
                           lambda _: 3e-4, channels=channels, blocks=blocks, **kwargs)
    if randomise:  # fresh residual branches start at zero and logits near zero: give every weight a say
        with torch.no_grad():
            for p in policy.parameters():
                p.normal_(0.0, 0.3)
    return policy.eval()


# ---------------------------------------------------------------- the hex kernel
def test_the_kernel_masks_are_the_hex_neighbourhoods_of_even_and_odd_rows():
    # Row 4 is even, row 5 odd; the 3 x 3 square around (r, c) holds r +- 1, c +- 1.
    for row in (4, 5):
        expected = {(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1)
                    if (row + dr, 5 + dc) in grid_neighbours(row, 5) | {(row, 5)}}
        mask = hex_kernel_mask(odd=row % 2 == 1)
        assert {(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if mask[1 + dr, 1 + dc]} == expected


def test_every_cell_is_influenced_by_exactly_itself_and_its_hexgrid_neighbours():
    conv = HexConv2d(1, 1, bias=False)
    with torch.no_grad():
        conv.weight.fill_(1.0)
        out = conv(impulses()).view(ROWS * COLS, ROWS * COLS)  # [source cell, output cell]
    for cell in range(ROWS * COLS):
        row, col = divmod(cell, COLS)
        sources = {divmod(int(s), COLS) for s in torch.nonzero(out[:, cell]).flatten()}
        assert sources == grid_neighbours(row, col) | {(row, col)}, (row, col)


def test_each_tap_reads_the_same_hex_direction_on_even_and_odd_rows():
    # Tap 1 + i reads the neighbour in hexgrid.DIRECTIONS[i], whatever the row's parity.
    conv = HexConv2d(1, 1, bias=False)
    for i, direction in enumerate(DIRECTIONS):
        with torch.no_grad():
            conv.weight.zero_()
            conv.weight[0, 0, 1 + i] = 1.0
            out = conv(impulses()).view(ROWS * COLS, ROWS * COLS)
        for cell in range(ROWS * COLS):
            row, col = divmod(cell, COLS)
            sources = {divmod(int(s), COLS) for s in torch.nonzero(out[:, cell]).flatten()}
            c, r = to_offset(from_offset(col, row) + direction)
            assert sources == ({(r, c)} if 0 <= r < ROWS and 0 <= c < COLS else set()), (row, col, i)


@pytest.mark.parametrize("row", [4, 5])
def test_only_neighbours_in_the_3x3_square_change_a_convolution_at_its_centre(row):
    torch.manual_seed(1)
    conv = HexConv2d(3, 4)
    x = torch.randn(1, 3, ROWS, COLS)
    col = 6
    with torch.no_grad():
        base = conv(x)[0, :, row, col]
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                y = x.clone()
                y[0, :, row + dr, col + dc] += 1.0
                changed = not torch.allclose(conv(y)[0, :, row, col], base)
                assert changed == ((row + dr, col + dc) in grid_neighbours(row, col) | {(row, col)}), (dr, dc)


# ---------------------------------------------------------------- fully convolutional
def observation(scenario, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    env = make_raw_env("hexwar", scenario)
    env.reset(seed=seed)
    seen = env.observe(env.agent_selection)
    return seen["observation"], seen["action_mask"].astype(bool)


def moved(obs: np.ndarray, where) -> tuple[np.ndarray, dict[int, int]]:
    """The board with each cell (r, c) put at ``where(r, c)``; cells nothing lands on are off the map.

    Returns the new observation and old cell -> new cell for the on-map cells."""
    out = np.zeros_like(obs)
    out[P["off_map"]] = 1.0
    cells = {}
    for r in range(ROWS):
        for c in range(COLS):
            nr, nc = where(r, c)
            if 0 <= nr < ROWS and 0 <= nc < COLS:
                out[:, nr, nc] = obs[:, r, c]
                if not obs[P["off_map"], r, c]:
                    cells[r * COLS + c] = nr * COLS + nc
    return out, cells


def outputs(policy: HexConvPolicy, obs: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
    with torch.no_grad():
        t = torch.as_tensor(obs)[None]
        latent_pi, latent_vf = policy.mlp_extractor(policy.extract_features(t))
        return latent_pi[0], policy.value_net(latent_vf)[0]


@pytest.mark.parametrize("name,where", [
    ("2 rows down, 1 column right", lambda r, c: (r + 2, c + 1)),
    # One step south-east: odd rows move a column right too (a translation of the hex grid that flips row parity).
    ("one hex south-east", lambda r, c: (r + 1, c + (r & 1))),
])
def test_moving_a_small_map_on_the_grid_moves_its_cell_logits_and_keeps_the_rest(name, where):
    policy = make_policy()
    obs, _ = observation(generate_scenario(0, width=6, height=6))
    assert obs[P["off_map"], :6, :6].sum() == 0 and obs[P["off_map"]].sum() == ROWS * COLS - 36
    new_obs, cells = moved(obs, where)
    assert len(cells) == 36
    logits, value = outputs(policy, obs)
    new_logits, new_value = outputs(policy, new_obs)
    for base, slots in ((MOVE_BASE, 1), (SHOOT_BASE, 2), (SMOKE_BASE, 1), (JOINT_MOVE_BASE, 1),
                        (JOINT_SHOOT_BASE, 2)):
        for slot in range(slots):
            old_ids = [base + c * slots + slot for c in cells]
            new_ids = [base + cells[c] * slots + slot for c in cells]
            torch.testing.assert_close(new_logits[new_ids], logits[old_ids], rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(new_logits[[PASS, EVADE, NO_EVADE]], logits[[PASS, EVADE, NO_EVADE]],
                               rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(new_value, value, rtol=1e-4, atol=1e-4)
    # and the board is read: another map gives other logits
    other, _ = observation(generate_scenario(2, width=6, height=6))
    assert not torch.allclose(outputs(policy, other)[0], logits)


# ---------------------------------------------------------------- the action layout
def test_scatter_puts_each_channel_and_cell_at_its_action_id():
    cells = ROWS * COLS
    code = torch.arange(7)[:, None] * 1000 + torch.arange(cells)[None, :]  # channel * 1000 + cell
    out = scatter_logits(code.view(1, 7, ROWS, COLS).float(), torch.tensor([[-1.0, -2.0, -3.0]]))[0]
    assert out.shape == (NUM_ACTIONS,)
    for c in range(cells):
        assert out[MOVE_BASE + c] == c
        assert out[SHOOT_BASE + c * 2] == 1000 + c and out[SHOOT_BASE + c * 2 + 1] == 2000 + c
        assert out[SMOKE_BASE + c] == 3000 + c
        assert out[JOINT_MOVE_BASE + c] == 4000 + c
        assert out[JOINT_SHOOT_BASE + c * 2] == 5000 + c and out[JOINT_SHOOT_BASE + c * 2 + 1] == 6000 + c
    assert (out[PASS], out[EVADE], out[NO_EVADE]) == (-1, -2, -3)


def test_a_large_head_bias_makes_its_action_the_choice():
    policy = make_policy(randomise=False)
    heads = policy.mlp_extractor
    obs, _ = observation("meeting_engagement")
    t = torch.as_tensor(obs)[None]
    mask = np.zeros(NUM_ACTIONS, dtype=bool)
    mask[[MOVE_BASE + 30, SHOOT_BASE + 2 * 41 + 1, SMOKE_BASE + 41, PASS]] = True
    with torch.no_grad():
        heads.cell_logits.weight.zero_()
        heads.cell_logits.bias.copy_(torch.tensor([0.0, 0.0, 9.0, 0.0, 0.0, 0.0, 0.0]))  # shoot, second slot
        heads.global_logits.weight.zero_()
        heads.global_logits.bias.zero_()
        assert policy.get_distribution(t, action_masks=mask[None]).get_actions(deterministic=True) == \
            SHOOT_BASE + 2 * 41 + 1
        heads.global_logits.bias.copy_(torch.tensor([0.0, 20.0, 0.0]))
        assert policy.get_distribution(t).get_actions(deterministic=True) == EVADE


# ---------------------------------------------------------------- every map size
@pytest.mark.parametrize("scenario", [generate_scenario(4, width=6, height=6), generate_scenario(6, 8, 7),
                                      "random:train", "river_crossing"], ids=["6x6", "8x7", "12x10 random", "river"])
def test_one_network_gives_a_finite_masked_distribution_on_every_map_size(scenario):
    policy = make_policy(channels=16, blocks=2, randomise=False)
    obs, mask = observation(scenario, seed=5)
    t = torch.as_tensor(obs)[None]
    with torch.no_grad():
        probs = policy.get_distribution(t, action_masks=mask[None]).distribution.probs[0].numpy()
        value = policy.predict_values(t)
    assert np.isfinite(probs).all() and np.isfinite(value.numpy()).all()
    assert probs.sum() == pytest.approx(1.0, abs=1e-5)
    assert (probs[~mask] == 0).all() and (probs[mask] > 0).all()
    action, _ = policy.predict(obs, action_masks=mask)
    assert mask[int(action)]


# ---------------------------------------------------------------- with MaskablePPO
def test_maskable_ppo_trains_saves_loads_and_survives_half_precision(tmp_path):
    from sb3_contrib import MaskablePPO

    from cardwar.training import SelfPlayEnv

    env = SelfPlayEnv("hexwar", "random:train", opponent="random")
    model = MaskablePPO(HexConvPolicy, env, policy_kwargs={"channels": 32, "blocks": 2}, n_steps=128,
                        batch_size=64, n_epochs=1, seed=0, device="cpu")
    before = [p.detach().clone() for p in model.policy.parameters()]
    model.learn(256)
    assert any(not torch.equal(a, p) for a, p in zip(before, model.policy.parameters()))

    boards = [(env.reset(seed=s)[0], env.action_masks().copy()) for s in range(4)]
    obs, masks = np.stack([b[0] for b in boards]), np.stack([b[1] for b in boards])
    t = torch.as_tensor(obs)

    def run(policy):
        with torch.no_grad():
            return (policy.get_distribution(t, action_masks=masks).distribution.probs, policy.predict_values(t))

    probs, values = run(model.policy)
    model.save(tmp_path / "hex.zip")
    loaded = MaskablePPO.load(tmp_path / "hex.zip", device="cpu")
    assert isinstance(loaded.policy, HexConvPolicy) and loaded.policy.channels == 32 and loaded.policy.blocks == 2
    for a, b in zip(run(loaded.policy), (probs, values)):
        assert torch.equal(a, b)

    model.policy.half()  # as export_for_play stores weights, then loading casts them back to float32
    model.save(tmp_path / "half.zip")
    model.policy.float()
    for policy in (model.policy, MaskablePPO.load(tmp_path / "half.zip", device="cpu").policy):
        p, v = run(policy)
        assert torch.isfinite(p).all() and torch.isfinite(v).all()
        torch.testing.assert_close(p, probs, atol=2e-3, rtol=0)
        torch.testing.assert_close(v, values, atol=2e-2, rtol=2e-2)
    model.learn(64, reset_num_timesteps=False)  # and training goes on after the round trip through float16
