"""One decision of a MaskablePPO policy, cheaply and with SB3's own numbers (issue 31, item 5).

``PPOAgent.act`` used to ask SB3 for the whole masked distribution (``policy.get_distribution``): autograd's
bookkeeping (``no_grad``), a ``MaskableCategorical`` built twice with its argument checks, and, in the
skirmish policy, the hex kernels rebuilt from their seven taps by two ``einsum`` per layer and every module
called from Python, every decision. :class:`FastActor` gives the same raw logits bit for bit:

- the same modules in the same order (``extract_features``, ``mlp_extractor.forward_actor``,
  ``action_net``), under ``torch.inference_mode``;
- for a policy that says its actor can be traced (``trace_actor = True``: the skirmish's, whose forward
  has no branch on the data), a ``torch.jit.trace`` of a frozen copy run by the plain interpreter
  (``optimized_execution(False)``: no profiling runs, no graph rewrites, the ops as recorded), in which
  each hex convolution's two 3 x 3 kernels are computed once (the same ``einsum``, so the same bits)
  instead of every pass. The copy remembers the version counters of the policy's parameters and is traced
  again when any changed (a learner after an update, a weight set by hand), so it never plays stale weights.

:func:`masked_probs` then does what ``MaskableCategorical`` does (normalise, put illegal ids at ``-1e8``,
normalise, softmax), op for op, so the probabilities, and so the chosen action, are SB3's exactly.

:func:`one_thread` runs a decision on one torch thread: on two busy cores torch's two threads stalled a
skirmish decision for seconds (wall p99 1.7 s against 0.06 s at load 6; docs/benchmarks.md, *A ppo decision*).
"""

from __future__ import annotations

import copy
import threading
import warnings
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import torch

HUGE_NEG = -1e8
"""The logit of an illegal id (sb3_contrib's ``MaskableCategorical.apply_masking``)."""


def masked_probs(logits: torch.Tensor, mask: np.ndarray) -> torch.Tensor:
    """Probabilities [B, n] of raw ``logits`` [B, n] under ``mask``, computed as ``MaskableCategorical`` does:
    ``Categorical(logits=...)`` normalises (``logits - logsumexp``), the mask sets illegal ids to -1e8, the
    distribution is built again (normalised again) and ``probs`` is their softmax."""
    normed = logits - logits.logsumexp(dim=-1, keepdim=True)
    masks = torch.as_tensor(mask, dtype=torch.bool).reshape(normed.shape)
    masked = torch.where(masks, normed, torch.tensor(HUGE_NEG, dtype=normed.dtype))
    masked = masked - masked.logsumexp(dim=-1, keepdim=True)
    return torch.softmax(masked, dim=-1)


_THREADS = threading.Lock()
_inside = 0
_saved = 0


@contextmanager
def one_thread() -> Iterator[None]:
    """Torch with one intra-op thread inside, the process's count restored when the last caller leaves (threads
    of one process may decide at once; setting the count costs about 0.1 us)."""
    global _inside, _saved
    with _THREADS:
        if _inside == 0:
            _saved = torch.get_num_threads()
            if _saved != 1:
                torch.set_num_threads(1)
        _inside += 1
    try:
        yield
    finally:
        with _THREADS:
            _inside -= 1
            if _inside == 0 and _saved != 1:
                torch.set_num_threads(_saved)


class _Actor(torch.nn.Module):
    """The actor path of an SB3 policy: features, heads, ``action_net`` -> raw logits."""

    def __init__(self, policy: Any) -> None:
        super().__init__()
        self.features, self.heads, self.action_net = (policy.pi_features_extractor, policy.mlp_extractor,
                                                      policy.action_net)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return self.action_net(self.heads.forward_actor(self.features(obs)))


def _freeze_hex_kernels(module: torch.nn.Module) -> None:
    """Make every hex convolution in ``module`` (a private copy) return the kernels of its weights as they
    are now, computed once by its own ``kernels()``."""
    from cardwar.training.hex_policy import HexConv2d

    for layer in module.modules():
        if isinstance(layer, HexConv2d):
            with torch.inference_mode():
                kernels = layer.kernels()
            layer.kernels = lambda kernels=kernels: kernels  # type: ignore[method-assign]


def _versions(policy: Any) -> tuple[int, ...]:
    return tuple(p._version for p in policy.parameters())


class FastActor:
    """Raw logits of one observation from ``policy`` (an SB3 ``MaskableActorCriticPolicy``), as
    ``policy.get_distribution`` computes them (see the module docstring)."""

    def __init__(self, policy: Any) -> None:
        self._policy = weakref.ref(policy)  # not a strong one: :data:`_ACTORS` is keyed weakly by the policy
        self.trace = bool(getattr(policy, "trace_actor", False))
        self._traced: Any = None
        self._versions: tuple[int, ...] = ()
        self._lock = threading.Lock()

    @property
    def policy(self) -> Any:
        return self._policy()

    def _build(self, obs: torch.Tensor) -> Any:
        """The traced frozen copy of the actor for the policy's current weights (traced on ``obs``)."""
        frozen = copy.deepcopy(_Actor(self.policy)).eval()
        for p in frozen.parameters():
            p.requires_grad_(False)
        _freeze_hex_kernels(frozen)
        with warnings.catch_warnings(), torch.inference_mode():
            warnings.simplefilter("ignore", torch.jit.TracerWarning)  # shape arithmetic (the grid's fixed size)
            warnings.simplefilter("ignore", DeprecationWarning)  # torch 2.13 deprecates jit; it still works
            try:
                traced = torch.jit.trace(frozen, obs, check_trace=False)
            except Exception:  # a torch without jit: the frozen copy, eagerly (the same numbers, a little slower)
                return frozen
            with torch.jit.optimized_execution(False):
                traced(obs)  # its first run sets the interpreter up (tens of ms): here, not on a decision's clock
            return traced

    def _traced_actor(self, obs: torch.Tensor) -> Any:
        versions = _versions(self.policy)
        with self._lock:
            if self._traced is None or versions != self._versions:
                self._traced, self._versions = self._build(obs), versions
            return self._traced

    def logits(self, obs: np.ndarray) -> torch.Tensor:
        """[1, n] raw logits of one observation ``obs`` (the observation space's shape)."""
        tensor = torch.as_tensor(obs, dtype=torch.float32).unsqueeze(0)
        with torch.inference_mode():
            if self.trace and tuple(tensor.shape[1:]) == tuple(self.policy.observation_space.shape):
                # The graph as traced, run by the plain interpreter: the profiling executor's optimising runs
                # cost 100 to 900 ms each on the 2nd and 3rd decisions, for no gain here (1.0 ms either way).
                with torch.jit.optimized_execution(False):
                    return self._traced_actor(tensor)(tensor)
            policy = self.policy
            features = policy.extract_features(tensor, policy.pi_features_extractor)
            return policy.action_net(policy.mlp_extractor.forward_actor(features))

    def probs(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """[n] float64: the masked probabilities of one observation, SB3's exactly."""
        with torch.inference_mode():
            return masked_probs(self.logits(obs), mask[None])[0].numpy().astype(np.float64)


_ACTORS: weakref.WeakKeyDictionary[Any, FastActor] = weakref.WeakKeyDictionary()
_ACTORS_LOCK = threading.Lock()


def fast_actor(policy: Any) -> FastActor:
    """The one :class:`FastActor` of ``policy`` (models are shared by all agents of a process)."""
    with _ACTORS_LOCK:
        actor = _ACTORS.get(policy)
        if actor is None:
            actor = _ACTORS[policy] = FastActor(policy)
        return actor
