"""PPO that keeps what imitation taught: a KL pull towards the frozen imitation policy (issue 31).

``ppo.imitation_kl: c`` (default 0: plain MaskablePPO, bit for bit) adds to every minibatch's PPO loss

    c * mean over the batch of KL(pi_ref(.|s) || pi_theta(.|s)),
    KL(p || q) = sum over the legal actions a of p(a) (log p(a) - log q(a)),

where ``pi_ref`` is the policy the warm start (imitation, or ``init``) ended with, frozen, and both
distributions are masked as sb3-contrib's MaskablePPO masks them (``MaskableCategorical.apply_masking``:
illegal actions get no probability). Why this direction: the KL from the teacher's imitation to the
learner is the imitation's own cross entropy less a constant, so the pull is "keep fitting the
imitated moves" weighted against the PPO gradient - the kickstarting loss of Schmitt et al. 2018,
with a frozen teacher. It stops PPO from eroding the imitated policy (issue 22: 0.40 against the
heuristic after imitation, 0.28-0.37 after PPO) while the advantage still moves it where play pays.

The reference is saved once, when the warm start ends, as ``kl_reference.zip`` in the run folder
(:func:`save_reference`); every session of the run, resumes included, loads it from there
(:func:`load_reference`), so a resumed run pulls towards the same policy. Checkpoints stay plain
MaskablePPO files (the reference and the coefficient are not saved in them): ``ppo`` agents, exports
and ``MaskablePPO.load`` read them as before.

:class:`KLPullPPO` overrides ``train`` with sb3-contrib 2.x's ``MaskablePPO.train`` (ppo_mask.py), the
KL term added to its loss; with ``kl_coef = 0`` its update is plain MaskablePPO's
(tests/training/test_kl_pull.py checks that on one batch, and the KL against a numpy computation).
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import numpy as np
import torch as th
from gymnasium import spaces
from sb3_contrib import MaskablePPO
from stable_baselines3.common.utils import explained_variance
from torch.nn import functional as F

REFERENCE = "kl_reference.zip"
"""The frozen imitation policy of a run, in its folder."""

COPIED_FROM = "2.9"
"""The sb3-contrib release whose ``MaskablePPO.train`` :meth:`KLPullPPO.train` copies (with the pull added)."""


def masked_kl(ref_logits: th.Tensor, logits: th.Tensor, masks: th.Tensor) -> th.Tensor:
    """KL(p_ref || p) per row over the legal actions (``masks`` true), from masked logits (illegal ones are
    sb3-contrib's large negative number, so their probabilities are 0 and they are left out of the sum)."""
    ref_logp = th.log_softmax(ref_logits, dim=1)
    logp = th.log_softmax(logits, dim=1)
    ref_p = th.exp(ref_logp)
    # where the reference gives a legal action no probability at all (a -inf logit), its term is 0, not 0 * inf
    terms = th.where(ref_p > 0, ref_p * (ref_logp - logp), th.zeros_like(ref_p))
    return th.where(masks, terms, th.zeros_like(terms)).sum(dim=1)


class KLPullPPO(MaskablePPO):
    """MaskablePPO whose loss adds ``kl_coef`` * KL(reference || policy) (the module docstring)."""

    kl_coef: float = 0.0
    kl_reference: Any = None

    def set_kl_pull(self, reference: Any, coef: float) -> None:
        """Pull towards ``reference`` (a policy of the same network, frozen here) with weight ``coef``."""
        if coef < 0:
            raise ValueError(f"the KL pull's weight must be 0 or more, not {coef}")
        import sb3_contrib

        if coef > 0 and not sb3_contrib.__version__.startswith(COPIED_FROM + "."):
            warnings.warn(f"ppo.imitation_kl: the pulled update copies sb3-contrib {COPIED_FROM}'s MaskablePPO.train; "
                          f"{sb3_contrib.__version__} is installed, whose own update may differ", stacklevel=2)
        reference = reference.to(self.device)
        reference.set_training_mode(False)
        for p in reference.parameters():
            p.requires_grad_(False)
        self.kl_reference, self.kl_coef = reference, float(coef)

    def _excluded_save_params(self) -> list[str]:
        # the reference lives in the run folder (kl_reference.zip), not in every checkpoint
        return [*super()._excluded_save_params(), "kl_reference", "kl_coef"]

    def _evaluate(self, obs: Any, actions: th.Tensor, masks: th.Tensor) -> tuple[th.Tensor, ...]:
        """``policy.evaluate_actions``'s computation, step for step, also giving the masked logits."""
        policy = self.policy
        features = policy.extract_features(obs)
        if policy.share_features_extractor:
            latent_pi, latent_vf = policy.mlp_extractor(features)
        else:
            pi_features, vf_features = features
            latent_pi = policy.mlp_extractor.forward_actor(pi_features)
            latent_vf = policy.mlp_extractor.forward_critic(vf_features)
        distribution = policy._get_action_dist_from_latent(latent_pi)
        if masks is not None:
            distribution.apply_masking(masks)
        log_prob = distribution.log_prob(actions)
        values = policy.value_net(latent_vf)
        return values, log_prob, distribution.entropy(), distribution.distribution.logits

    def kl_to_reference(self, obs: Any, logits: th.Tensor, masks: th.Tensor) -> th.Tensor:
        """Mean KL(reference || policy) over a batch, the policy's masked ``logits`` given."""
        with th.no_grad():
            ref = self.kl_reference.get_distribution(obs, action_masks=masks).distribution.logits
        legal = th.as_tensor(masks, device=logits.device).reshape(logits.shape).bool()
        return masked_kl(ref, logits, legal).mean()

    def train(self) -> None:  # sb3-contrib 2.x MaskablePPO.train, with the KL term (marked below)
        self.policy.set_training_mode(True)
        self._update_learning_rate(self.policy.optimizer)
        clip_range = self.clip_range(self._current_progress_remaining)  # type: ignore[operator]
        if self.clip_range_vf is not None:
            clip_range_vf = self.clip_range_vf(self._current_progress_remaining)  # type: ignore[operator]
        if self.kl_coef > 0 and self.kl_reference is None:
            raise RuntimeError("KLPullPPO: kl_coef > 0 with no reference policy: call set_kl_pull(reference, coef)")
        pull = self.kl_coef > 0
        entropy_losses, pg_losses, value_losses, clip_fractions, kl_pulls = [], [], [], [], []
        continue_training = True
        for epoch in range(self.n_epochs):
            approx_kl_divs = []
            for rollout_data in self.rollout_buffer.get(self.batch_size):
                actions = rollout_data.actions
                if isinstance(self.action_space, spaces.Discrete):
                    actions = rollout_data.actions.long().flatten()
                values, log_prob, entropy, logits = self._evaluate(rollout_data.observations, actions,
                                                                   rollout_data.action_masks)
                values = values.flatten()
                advantages = rollout_data.advantages
                if self.normalize_advantage:
                    advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
                ratio = th.exp(log_prob - rollout_data.old_log_prob)
                policy_loss_1 = advantages * ratio
                policy_loss_2 = advantages * th.clamp(ratio, 1 - clip_range, 1 + clip_range)
                policy_loss = -th.min(policy_loss_1, policy_loss_2).mean()
                pg_losses.append(policy_loss.item())
                clip_fractions.append(th.mean((th.abs(ratio - 1) > clip_range).float()).item())
                if self.clip_range_vf is None:
                    values_pred = values
                else:
                    values_pred = rollout_data.old_values + th.clamp(values - rollout_data.old_values,
                                                                     -clip_range_vf, clip_range_vf)
                value_loss = F.mse_loss(rollout_data.returns, values_pred)
                value_losses.append(value_loss.item())
                entropy_loss = -th.mean(-log_prob) if entropy is None else -th.mean(entropy)
                entropy_losses.append(entropy_loss.item())
                loss = policy_loss + self.ent_coef * entropy_loss + self.vf_coef * value_loss
                if pull:  # the KL pull towards the imitation policy (the only change to sb3-contrib's loss)
                    kl = self.kl_to_reference(rollout_data.observations, logits, rollout_data.action_masks)
                    kl_pulls.append(kl.item())
                    loss = loss + self.kl_coef * kl
                with th.no_grad():
                    log_ratio = log_prob - rollout_data.old_log_prob
                    approx_kl_div = th.mean((th.exp(log_ratio) - 1) - log_ratio).cpu().numpy()
                    approx_kl_divs.append(approx_kl_div)
                if self.target_kl is not None and approx_kl_div > 1.5 * self.target_kl:
                    continue_training = False
                    break
                self.policy.optimizer.zero_grad()
                loss.backward()
                th.nn.utils.clip_grad_norm_(self.policy.parameters(), self.max_grad_norm)
                self.policy.optimizer.step()
            self._n_updates += 1
            if not continue_training:
                break
        explained_var = explained_variance(self.rollout_buffer.values.flatten(), self.rollout_buffer.returns.flatten())
        self.logger.record("train/entropy_loss", np.mean(entropy_losses))
        self.logger.record("train/policy_gradient_loss", np.mean(pg_losses))
        self.logger.record("train/value_loss", np.mean(value_losses))
        self.logger.record("train/approx_kl", np.mean(approx_kl_divs))
        self.logger.record("train/clip_fraction", np.mean(clip_fractions))
        self.logger.record("train/loss", loss.item())
        self.logger.record("train/explained_variance", explained_var)
        self.logger.record("train/n_updates", self._n_updates, exclude="tensorboard")
        self.logger.record("train/clip_range", clip_range)
        if kl_pulls:
            self.logger.record("train/kl_to_imitation", np.mean(kl_pulls))
        if self.clip_range_vf is not None:
            self.logger.record("train/clip_range_vf", clip_range_vf)


def save_reference(model: Any, run_dir: Path) -> Path:
    """The warm-started policy as the run's KL reference (written once, atomically)."""
    path = Path(run_dir) / REFERENCE
    tmp = path.with_suffix(".partial")
    with tmp.open("wb") as f:
        model.save(f)
    tmp.replace(path)
    return path


def load_reference(run_dir: Path, device: Any = "cpu") -> Any:
    """The run's frozen KL reference policy (:func:`save_reference`)."""
    path = Path(run_dir) / REFERENCE
    if not path.is_file():
        raise FileNotFoundError(f"{path}: the run's KL reference (ppo.imitation_kl) is missing")
    return MaskablePPO.load(path, device=device).policy
