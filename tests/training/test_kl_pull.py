"""The KL pull towards the imitation policy (``ppo.imitation_kl``, issue 31; training/kl_pull.py).

Checked on one real rollout of the naval env: with weight 0 the update is plain MaskablePPO's, bit for
bit; the KL term is the one a numpy computation over the legal actions gives; its gradient moves the
policy towards the reference; a run saves the reference once and a resumed run pulls towards the same one.
"""

from __future__ import annotations

import copy
import hashlib

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.logger import configure
from stable_baselines3.common.vec_env import DummyVecEnv

from cardwar.training.kl_pull import REFERENCE, KLPullPPO, masked_kl
from cardwar.training.selfplay_env import SelfPlayEnv

ARGS = {"n_steps": 32, "batch_size": 16, "n_epochs": 2, "seed": 4, "verbose": 0,
        "policy_kwargs": {"net_arch": [32]}}


def _pair(ent_coef: float = 0.01) -> tuple[MaskablePPO, KLPullPPO]:
    """A plain and a KL model with the same weights, the same rollout in their buffers and the same RNGs."""
    env = DummyVecEnv([lambda: SelfPlayEnv("naval")] * 2)
    plain = MaskablePPO("MlpPolicy", env, ent_coef=ent_coef, **ARGS)
    plain.set_logger(configure(None, []))
    _, callback = plain._setup_learn(64, None)
    callback.on_training_start(locals(), globals())
    assert plain.collect_rollouts(plain.env, callback, plain.rollout_buffer, n_rollout_steps=plain.n_steps)
    pulled = KLPullPPO("MlpPolicy", DummyVecEnv([lambda: SelfPlayEnv("naval")] * 2), ent_coef=ent_coef, **ARGS)
    pulled.set_logger(configure(None, []))
    pulled.policy.load_state_dict(plain.policy.state_dict())
    pulled.policy.optimizer.load_state_dict(plain.policy.optimizer.state_dict())
    pulled.rollout_buffer = copy.deepcopy(plain.rollout_buffer)
    return plain, pulled


def _train(model: MaskablePPO) -> None:
    np.random.seed(11)  # the buffer's minibatch order
    torch.manual_seed(11)
    model.train()


def _state(model: MaskablePPO) -> dict[str, torch.Tensor]:
    return {k: v.clone() for k, v in model.policy.state_dict().items()}


def test_with_weight_zero_the_update_is_plain_maskable_ppos(tmp_path):
    plain, pulled = _pair()
    pulled.set_kl_pull(copy.deepcopy(plain.policy), 0.0)
    _train(plain)
    _train(pulled)
    a, b = _state(plain), _state(pulled)
    assert a.keys() == b.keys()
    for key in a:
        assert torch.equal(a[key], b[key]), key


def _numpy_kl(ref_logits: np.ndarray, logits: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """KL(p_ref || p) over the legal actions only, each distribution a softmax over them."""
    out = []
    for r, q, m in zip(ref_logits.astype(np.float64), logits.astype(np.float64), masks.astype(bool)):
        r, q = r[m], q[m]
        pr = np.exp(r - r.max()) / np.exp(r - r.max()).sum()
        pq = np.exp(q - q.max()) / np.exp(q - q.max()).sum()
        out.append(float(np.sum(pr * (np.log(pr) - np.log(pq)))))
    return np.array(out)


def test_the_kl_term_is_the_legal_actions_kl_and_its_gradient_pulls_towards_the_reference():
    plain, pulled = _pair(ent_coef=0.0)
    reference = MaskablePPO("MlpPolicy", DummyVecEnv([lambda: SelfPlayEnv("naval")]), seed=99,
                            policy_kwargs={"net_arch": [32]}).policy
    with torch.no_grad():  # SB3 starts the action layer near uniform (gain 0.01): spread it, a KL well above 0
        reference.action_net.weight.normal_(0.0, 0.3, generator=torch.Generator().manual_seed(5))
    pulled.set_kl_pull(reference, 5.0)
    batch = next(pulled.rollout_buffer.get(64))
    obs, masks = batch.observations, batch.action_masks
    with torch.no_grad():
        raw = pulled.policy.get_distribution(obs).distribution.logits.numpy()  # unmasked
        raw_ref = reference.get_distribution(obs).distribution.logits.numpy()
        masked = pulled.policy.get_distribution(obs, action_masks=masks).distribution.logits
        expected = _numpy_kl(raw_ref, raw, masks.numpy())
        got = pulled.kl_to_reference(obs, masked, masks).item()
    assert masks.numpy().sum(axis=1).min() >= 1 and (masks.numpy() == 0).any()  # some actions are illegal
    assert expected.mean() > 0.01
    np.testing.assert_allclose(got, expected.mean(), rtol=1e-4)

    def kl_now(model: MaskablePPO) -> float:
        with torch.no_grad():
            logits = model.policy.get_distribution(obs).distribution.logits.numpy()
        return float(_numpy_kl(raw_ref, logits, masks.numpy()).mean())

    _train(plain)
    _train(pulled)
    assert kl_now(pulled) < expected.mean() - 0.005  # the pull moved it towards the reference
    assert kl_now(pulled) < kl_now(plain)  # and further than plain PPO's own update on the same batch


def test_a_run_saves_its_reference_once_and_a_resume_pulls_towards_it(tiny, tmp_path, monkeypatch):
    from cardwar.training.kl_pull import KLPullPPO, load_reference
    from cardwar.training.trainer import checkpoints, resume, train

    config = tiny("naval", total_steps=128, ppo={"n_steps": 64, "batch_size": 64, "n_epochs": 1,
                                                 "imitation_kl": 0.5},
                  imitation={"games": 2, "teacher": "heuristic:samples=4", "opponents": ["random"], "epochs": 1})
    run = train(config, runs_root=tmp_path, progress=False)
    reference = run / REFERENCE
    digest = hashlib.sha256(reference.read_bytes()).hexdigest()
    step0 = [p for p, state in checkpoints(run) if state["num_timesteps"] == 0][0]
    warm = MaskablePPO.load(step0, device="cpu").policy.state_dict()  # the warm-started policy
    for key, value in load_reference(run).state_dict().items():
        assert torch.equal(value, warm[key]), key
    latest = checkpoints(run)[0][0]
    MaskablePPO.load(latest, device="cpu")  # checkpoints stay plain MaskablePPO files
    pulls = []
    set_pull = KLPullPPO.set_kl_pull

    def spy(self, reference, coef):
        pulls.append((reference, coef))
        set_pull(self, reference, coef)

    monkeypatch.setattr(KLPullPPO, "set_kl_pull", spy)
    resume(run, total_steps=256, progress=False)
    assert checkpoints(run)[0][1]["num_timesteps"] == 256
    assert [coef for _, coef in pulls] == [0.5]  # the resumed session pulls, with the config's weight
    for key, value in pulls[0][0].state_dict().items():  # towards the warm-started policy, not its own state
        assert torch.equal(value.cpu(), warm[key]), key
    assert hashlib.sha256(reference.read_bytes()).hexdigest() == digest  # the same reference after the resume


def test_a_negative_weight_is_a_config_error(tiny):
    import pytest

    from cardwar.training.config import TrainConfigError

    with pytest.raises(TrainConfigError, match="ppo.imitation_kl"):
        tiny("naval", ppo={"n_steps": 64, "batch_size": 64, "imitation_kl": -0.1})


def test_no_warm_start_no_pull(tiny):
    """The pull is towards the warm start's policy: with neither a fit nor an init, a config error."""
    import pytest

    from cardwar.training.config import TrainConfigError

    with pytest.raises(TrainConfigError, match="ppo.imitation_kl.*has none"):
        tiny("naval", ppo={"imitation_kl": 0.5}, imitation={"games": 0})


def test_a_reference_that_rules_out_a_legal_move_gives_a_finite_pull():
    """A -inf logit in the reference on a legal action: its term is 0 (not 0 * inf), and the gradient is finite."""
    ref = torch.tensor([[0.0, float("-inf"), -1e8, 1.0]])
    logits = torch.tensor([[0.5, 0.1, -1e8, 0.2]], requires_grad=True)
    masks = torch.tensor([[True, True, False, True]])
    kl = masked_kl(ref, logits, masks)
    kl.sum().backward()
    p_ref = torch.softmax(torch.tensor([0.0, 1.0]), 0)
    p = torch.softmax(torch.tensor([0.5, 0.1, 0.2]), 0)
    expected = float((p_ref * (p_ref.log() - p[[0, 2]].log())).sum())
    assert torch.isfinite(kl).all() and abs(float(kl.detach()) - expected) < 1e-6
    assert torch.isfinite(logits.grad).all()
