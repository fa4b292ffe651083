"""A user's mistakes with the skirmish get one clear line naming the problem (the project's rule for bad input)."""

from __future__ import annotations

import numpy as np
import pettingzoo
import pytest

import cardwar.envs  # noqa: F401  (registers the envs)
from cardwar.envs import skirmish_v0
from cardwar.envs.skirmish.rules import SkirmishRulesError
from cardwar.envs.skirmish.scenario import ScenarioError
from cardwar.envs.skirmish.state import new_state


def test_the_engine_takes_a_scenario_name_and_a_rules_dict_as_the_envs_do():
    s = new_state("duel", {"sequence": "deck"}, 0)
    assert s.rules.sequence == "deck" and s.scenario.name == "duel"
    with pytest.raises(SkirmishRulesError, match="unknown skirmish rule option"):
        new_state("duel", {"sequense": "deck"}, 0)
    with pytest.raises(ScenarioError, match="unknown skirmish scenario 'dual'.*random"):
        new_state("dual")


def test_an_illegal_action_names_the_step_the_unit_and_the_legal_answers():
    s = new_state("duel", None, 0)
    legal = set(s.legal())
    bad = next(a for a in range(400) if a not in legal)
    with pytest.raises(ValueError) as err:
        s.apply(bad)
    text = str(err.value)
    assert "is not legal now" in text and "mode step" in text and "stay" in text and "\n" not in text
    assert s.units[s.decision.unit].name in text
    with pytest.raises(ValueError, match="out of range: ids run 0..419"):
        s.apply(10**6)


def test_the_parallel_form_is_registered_and_refuses_unknown_agents_and_random_maps():
    env = pettingzoo.make("parallel", "cardwar/skirmish-v0", scenario="duel")
    env.reset(seed=0)
    with pytest.raises(ValueError, match="no agent 'nobody' in play"):
        env.step({"nobody": 0})
    with pytest.raises(ScenarioError, match="plays one scenario"):
        skirmish_v0.parallel_env(scenario="random")


def test_the_text_render_keeps_a_long_order_whole():
    """A unit's row that would pass 100 columns puts its order on a line of its own instead of cutting it."""
    env = skirmish_v0.raw_env(scenario="duel", render_mode="ansi", render_viewer="player_0")
    rng = np.random.default_rng(2)
    for seed in range(6):
        env.reset(seed=seed)
        while not env.game.is_terminal():
            text = env.render()
            assert all(len(line) <= 100 for line in text.splitlines())
            for line in text.splitlines():
                if "burst>" in line:  # a burst's targets: whole hex labels, comma-separated ("-": §5.4's phantom)
                    targets = line.split("burst>")[1].split()[0].split(",")
                    assert all(t == "-" or (len(t) >= 2 and t[0].isalpha() and t[1:].isdigit()) for t in targets), \
                        line
            mask = env.observe(env.agent_selection)["action_mask"]
            env.step(int(rng.choice(np.flatnonzero(mask))))
