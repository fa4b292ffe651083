"""The self-play env's gymnasium conventions: ids that do not warn, exact render modes, autoreset with masks."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from gymnasium.vector import AutoresetMode, SyncVectorEnv

import cardwar.training  # noqa: F401 - registers the ids
from cardwar import games
from cardwar.training.selfplay_env import IDS, RENAMED, SelfPlayEnv

# The render modes of the PettingZoo env each id plays (an independent source: the AEC envs' own metadata).
AEC_MODES = {name: games.get(name).hook("env").metadata["render_modes"] for name in games.names()}
"""Each game's AEC env's render modes, from the game registry."""
TEXT = {name: games.get(name).hook("render_text") for name in games.names()}
"""Each game's own text render (the registry's ``render_text``)."""


@pytest.mark.parametrize("env_id", list(IDS))
def test_making_each_id_emits_no_warning(env_id):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # gymnasium's "out of date" is a DeprecationWarning: it would raise here
        env = gymnasium.make(env_id)
        env.reset(seed=0)
        vec = gymnasium.make_vec(env_id, num_envs=2)
        vec.reset(seed=0)
        vec.close()
    assert env.spec.id == env_id


def test_the_old_steps_id_makes_the_steps_env_and_says_its_new_name():
    (old, new), = RENAMED.items()
    with pytest.warns(DeprecationWarning, match=new):
        env = gymnasium.make(old)
    steps = SelfPlayEnv("naval", actions="steps")
    assert env.action_space == steps.action_space and env.observation_space == steps.observation_space
    assert env.action_space.n == 113


@pytest.mark.parametrize("env_id", list(IDS))
def test_gymnasium_env_checker_passes_with_the_render_check(env_id, capsys):
    env = gymnasium.make(env_id)
    check_env(env.unwrapped, skip_render_check=False)  # makes the env once in each declared render mode


@pytest.mark.parametrize("env_id", list(IDS))
def test_metadata_lists_exactly_the_render_modes_that_work(env_id, capsys):
    game = IDS[env_id]["game"]
    modes = gymnasium.make(env_id).unwrapped.metadata["render_modes"]
    assert sorted(modes) == sorted(AEC_MODES[game])
    for mode in ("ansi", "rgb_array", "human"):
        if mode not in modes:
            with pytest.raises(ValueError, match=mode):
                gymnasium.make(env_id, render_mode=mode)
            continue
        env = gymnasium.make(env_id, render_mode=mode)
        env.reset(seed=1)
        capsys.readouterr()
        frame = env.render()
        inner = env.unwrapped
        text = TEXT[game](inner.aec.game, inner.seat)  # the game's own text, from the learner's seat
        if mode == "ansi":
            assert frame == text
        elif mode == "rgb_array":
            assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
        else:
            assert frame is None and capsys.readouterr().out == text + "\n\n"


def _run_vector(envs, steps: int, rng: np.random.Generator) -> tuple[list[np.ndarray], list[np.ndarray], int]:
    """Random legal play; the masks seen in infos and through action_masks(), and the games ended."""
    _, infos = envs.reset(seed=3)
    info_masks, call_masks, ended = [], [], 0
    for _ in range(steps):
        info_masks.append(infos["action_mask"].copy())
        call_masks.append(np.stack(envs.call("action_masks")))
        actions = [int(rng.choice(np.flatnonzero(m))) if m.any() else 0 for m in infos["action_mask"]]
        _, _, terminations, truncations, infos = envs.step(np.array(actions))
        ended += int(terminations.sum())
    return info_masks, call_masks, ended


def test_same_step_autoreset_every_observed_mask_has_a_legal_action():
    envs = gymnasium.make_vec("cardwar/NavalSelfPlay-v0", num_envs=2)  # our vector entry point: SAME_STEP
    assert isinstance(envs, SyncVectorEnv) and envs.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    info_masks, call_masks, ended = _run_vector(envs, 120, np.random.default_rng(0))
    envs.close()
    assert ended >= 2  # games did end, and were reset within the run
    for from_info, from_call in zip(info_masks, call_masks):
        assert from_info.any(axis=1).all()
        np.testing.assert_array_equal(from_info, from_call)


def test_same_step_autoreset_by_hand_keeps_the_finished_games_last_info():
    envs = SyncVectorEnv([lambda: SelfPlayEnv("naval") for _ in range(2)], autoreset_mode=AutoresetMode.SAME_STEP)
    envs.reset(seed=5)
    rng, finals = np.random.default_rng(5), 0
    for _ in range(150):
        masks = envs.call("action_masks")
        _, rewards, terminations, _, infos = envs.step(np.array([int(rng.choice(np.flatnonzero(m))) for m in masks]))
        for k in np.flatnonzero(terminations):
            finals += 1
            assert infos["final_info"]["result"][k] == rewards[k]  # the ended game's result, kept aside
            assert not infos["final_info"]["action_mask"][k].any()  # its last mask: the game was over
            assert infos["action_mask"][k].any()  # the new game's
    envs.close()
    assert finals >= 2


def test_next_step_autoreset_gives_an_all_false_mask_and_a_minus_inf_softmax_gives_nans():
    """What the module page warns about, checked: gymnasium's default mode."""
    envs = SyncVectorEnv([lambda: SelfPlayEnv("naval") for _ in range(2)], autoreset_mode=AutoresetMode.NEXT_STEP)
    info_masks, call_masks, ended = _run_vector(envs, 120, np.random.default_rng(0))
    envs.close()
    empty = [m for masks in info_masks for m in masks if not m.any()]
    assert ended >= 2 and len(empty) == ended  # one all-False mask after each game's end
    logits = np.where(empty[0], 0.0, -np.inf)
    with np.errstate(invalid="ignore"):
        probs = np.exp(logits - logits.max()) / np.exp(logits - logits.max()).sum()
    assert np.isnan(probs).all()
