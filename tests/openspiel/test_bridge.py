"""The OpenSpiel bridge: every registered game passes OpenSpiel's own checks and matches its PettingZoo env."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="the openspiel extra is not installed")

from cardwar import games as registry  # noqa: E402
from cardwar.openspiel import games  # noqa: E402

GAMES = [pytest.param(g, marks=pytest.mark.slow) if g == "skirmish" else g for g in games.GAME_NAMES]
"""Every bridged game (the skirmish's games are long: its whole-game checks are slow tests)."""


class Sampler:
    """A seeded stand-in for OpenSpiel's UniformProbabilitySampler."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def __call__(self) -> float:
        return float(self.rng.random())


def test_every_registered_game_is_bridged_with_its_type() -> None:
    assert set(games.GAME_NAMES) == {g for g in registry.names() if registry.get(g).resample_hidden is not None}
    assert {"naval", "hexwar", "skirmish"} <= set(games.GAME_NAMES)
    for game, name in games.GAME_NAMES.items():
        env = registry.get(game).make_env()
        g = pyspiel.load_game(name, {"seed": 1})
        t = g.get_type()
        assert t.short_name == name
        explicit = "explicit_chance" in registry.get(game).extra  # Tank Attack's dice
        assert t.chance_mode == (pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC if explicit
                                 else pyspiel.GameType.ChanceMode.SAMPLED_STOCHASTIC)
        assert t.information == (pyspiel.GameType.Information.PERFECT_INFORMATION
                                 if explicit and registry.get(game).extra.get("perfect_information")
                                 else pyspiel.GameType.Information.IMPERFECT_INFORMATION)
        assert t.utility == pyspiel.GameType.Utility.ZERO_SUM
        assert g.num_distinct_actions() == env.action_space(env.possible_agents[0]).n
        assert tuple(g.observation_tensor_shape()) == env.observation_space(env.possible_agents[0])["observation"].shape


@pytest.mark.parametrize("game", GAMES)
def test_pyspiel_random_simulation(game: str) -> None:
    pyspiel.random_sim_test(pyspiel.load_game(games.GAME_NAMES[game], {"seed": 3}), num_sims=2 if game != "skirmish"
                            else 1, serialize=False, verbose=False)


@pytest.mark.parametrize("game", GAMES)
def test_observations_equal_the_envs_for_the_same_play(game: str) -> None:
    """Same seed, same moves: the bridge's tensors, legal actions and returns are the env's. Where the bridge
    has explicit chance nodes (Tank Attack's dice), each is given the die the env's engine is about to roll."""
    env = registry.get(game).make_env()
    env.reset(seed=11)
    state = games.load(game, seed=11).new_initial_state()
    rng = np.random.default_rng(0)
    steps = 0
    while not state.is_terminal():
        agent = env.agent_selection
        assert state.current_player() == env.possible_agents.index(agent)
        for p, a in enumerate(env.possible_agents):
            obs = env.observe(a)
            np.testing.assert_array_equal(np.asarray(state.observation_tensor(p)), obs["observation"].ravel())
            np.testing.assert_array_equal(np.asarray(state.information_state_tensor(p)),
                                          obs["observation"].ravel())
        legal = state.legal_actions()
        assert legal == np.flatnonzero(env.observe(agent)["action_mask"]).tolist()
        action = int(rng.choice(legal))
        peek = np.random.Generator(type(env.game.rng.bit_generator)())  # the env's next dice, in order
        peek.bit_generator.state = env.game.rng.bit_generator.state
        state.apply_action(action)
        while state.is_chance_node():
            face = int(peek.integers(1, 7))
            outcomes = dict(state.chance_outcomes())
            assert len(outcomes) == 6 and abs(sum(outcomes.values()) - 1) < 1e-12
            state.apply_action(face - 1)
        env.step(action)
        steps += 1
    assert all(env.terminations.values())
    assert state.returns() == [env.rewards[a] for a in env.possible_agents]
    assert steps <= state.get_game().max_game_length()


@pytest.mark.parametrize("game", GAMES)
def test_resample_keeps_what_the_seat_knows_and_redeals_the_rest(game: str) -> None:
    state = games.load(game, seed=5).new_initial_state()
    rng = np.random.default_rng(1)
    checked = 0
    while not state.is_terminal() and checked < 6:
        for p in (0, 1):
            samples = [state.resample_from_infostate(p, Sampler(k)) for k in range(4)]
            for s in samples:
                assert s.information_state_string(p) == state.information_state_string(p)
                assert s.observation_tensor(p) == state.observation_tensor(p)
                assert s.current_player() == state.current_player()
                if p == state.current_player():  # the mover's options are its own knowledge
                    assert s.legal_actions() == state.legal_actions()
            if game == "naval":  # the other captain's hand is dealt anew
                other = [tuple(sorted(s.engine.hands[1 - p])) for s in samples]
                assert len(set(other)) > 1
        checked += 1
        for _ in range(7):
            if not state.is_terminal():
                state.apply_action(int(rng.choice(state.legal_actions())))


def test_resample_is_the_registrys_resample_hidden(monkeypatch: pytest.MonkeyPatch) -> None:
    """resample_from_infostate asks the registry (the same Generator draws give the same sample), and leaves
    the state it is asked of unchanged."""
    state = games.load("naval", seed=8).new_initial_state()
    rng = np.random.default_rng(2)
    for _ in range(12):
        state.apply_action(int(rng.choice(state.legal_actions())))
    p = state.current_player()
    before = state.engine.to_dict()
    sample = state.resample_from_infostate(p, Sampler(4))
    assert state.engine.to_dict() == before
    s = Sampler(4)
    seed = int(s() * 2**53) ^ (int(s() * 2**53) << 11)
    expected = registry.get("naval").resample(state.engine, p, np.random.default_rng(seed))
    assert sample.engine.to_dict() == expected.to_dict()
    assert sample.engine.hands[1 - p] != state.engine.hands[1 - p] or sample.engine.deck != state.engine.deck


def test_cloning_does_not_draw_from_the_seed_stream() -> None:
    """OpenSpiel clones through new_initial_state: the clone copies, and the next deal is unchanged."""
    g1, g2 = games.load("naval", seed=21), games.load("naval", seed=21)
    s1 = g1.new_initial_state()
    s1.apply_action(s1.legal_actions()[0])
    c = s1.clone()
    assert c.information_state_string(0) == s1.information_state_string(0)
    assert c.engine.to_dict() == s1.engine.to_dict()
    c.apply_action(c.legal_actions()[0])
    assert c.history() != s1.history()
    g2.new_initial_state().engine  # noqa: B018 - the first deal of the twin game
    assert g1.new_initial_state().engine.to_dict() == g2.new_initial_state().engine.to_dict()


def test_unknown_scenario_is_refused() -> None:
    with pytest.raises(Exception, match="unknown hexwar scenario"):
        pyspiel.load_game(games.GAME_NAMES["hexwar"], {"scenario": "atlantis"})


def test_a_public_observer_is_refused_where_the_encoder_has_no_spectator() -> None:
    """The skirmish's encoder encodes a seat's view only (its planes are 'mine' and 'the enemy's')."""
    from open_spiel.python.observation import make_observation

    with pytest.raises(ValueError, match="no public observer"):
        make_observation(games.load("skirmish", seed=1), pyspiel.IIGObservationType(
            perfect_recall=False, public_info=True, private_info=pyspiel.PrivateInfoType.NONE))


@pytest.mark.parametrize("game", ["naval", "hexwar"])
def test_a_public_observer_sees_the_spectators_view(game: str) -> None:
    """private_info=NONE: both seats get the same observation, the env's spectator encoding."""
    from open_spiel.python.observation import make_observation

    g = games.load(game, seed=1)
    state = g.new_initial_state()
    for _ in range(5):
        state.apply_action(state.legal_actions()[0])
    public = make_observation(g, pyspiel.IIGObservationType(
        perfect_recall=False, public_info=True, private_info=pyspiel.PrivateInfoType.NONE))
    public.set_from(state, 0)
    first = public.tensor.copy()
    public.set_from(state, 1)
    np.testing.assert_array_equal(first, public.tensor)
    encode = registry.get(game).hook("encode_observation")
    np.testing.assert_array_equal(first, np.asarray(encode(state.engine.information_view(None))).ravel())
    assert public.string_from(state, 0) == public.string_from(state, 1) != state.observation_string(0)
