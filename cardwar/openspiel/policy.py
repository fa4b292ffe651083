"""A policy trained in OpenSpiel, saved to one file and played as a cardwar agent (``openspiel:policy=PATH``).

The file is a ``torch.save`` of plain data (read back with ``weights_only=True``: no pickled code runs):

- ``format`` ``"cardwar-openspiel-policy"``, ``version`` 1, ``algorithm`` (``"nfsp"``), ``game`` (the cardwar
  game), ``params`` (the bridge game's OpenSpiel parameters it was trained on), ``obs_size``, ``num_actions``;
- ``seats``: for each seat, the state dict of its network (OpenSpiel's ``dqn.MLP``: ReLU hidden layers, then a
  linear layer of action logits), which reads the seat's information-state tensor: the env's observation,
  flattened.

The agent masks the logits to the legal moves and samples the softmax (NFSP's average policy is a mixed
strategy), or takes the most likely legal move with ``greedy=true``. It runs the layers in numpy: no torch
call while it plays, and no global seed touched when it loads.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

FORMAT = "cardwar-openspiel-policy"
VERSION = 1


class PolicyFileError(ValueError):
    """A policy file that is missing, unreadable or not one this version writes (one line)."""


@dataclass(frozen=True)
class SavedPolicy:
    """A trained policy: one network per seat, as (weight, bias) layers."""

    game: str
    algorithm: str
    params: dict[str, Any]
    obs_size: int
    num_actions: int
    seats: tuple[tuple[tuple[np.ndarray, np.ndarray], ...], ...]

    def probabilities(self, seat: int, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The seat's policy over its legal moves: the network's softmax, illegal moves at 0."""
        x = np.asarray(observation, np.float64).reshape(-1)
        layers = self.seats[seat]
        for i, (w, b) in enumerate(layers):
            x = w @ x + b
            if i < len(layers) - 1:
                x = np.maximum(x, 0.0)
        legal = np.asarray(mask).astype(bool)
        logits = np.where(legal, x, -np.inf)
        p = np.exp(logits - logits[legal].max())
        return p / p.sum()

    def act(self, seat: int, observation: dict[str, np.ndarray], rng: np.random.Generator, greedy: bool) -> int:
        """A legal move for ``seat`` from its observation and mask (sampled, or the most likely with ``greedy``)."""
        p = self.probabilities(seat, observation["observation"], observation["action_mask"])
        return int(np.argmax(p)) if greedy else int(rng.choice(len(p), p=p))


def write_policy(path: Path, *, game: str, algorithm: str, params: dict[str, Any], obs_size: int,
                 num_actions: int, networks: list[Any]) -> None:
    """Save the seats' networks (torch modules or state dicts) as a policy file, atomically."""
    import torch

    data = {"format": FORMAT, "version": VERSION, "algorithm": algorithm, "game": game, "params": dict(params),
            "obs_size": int(obs_size), "num_actions": int(num_actions),
            "seats": [{k: v.detach().cpu().clone() for k, v in
                       (n.state_dict() if hasattr(n, "state_dict") else n).items()} for n in networks]}
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    torch.save(data, tmp)
    tmp.replace(path)


def read_policy(path: Path) -> SavedPolicy:
    """The policy saved at ``path``; :class:`PolicyFileError` (one line) if it is not one."""
    import torch

    path = Path(path)
    if not path.is_file():
        raise PolicyFileError(f"no policy file at {path}")
    try:
        data = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as err:  # noqa: BLE001 - any unreadable file is the user's one-line mistake
        raise PolicyFileError(f"{path} is not a policy file ({type(err).__name__})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("version") != VERSION:
        raise PolicyFileError(f"{path} is not a {FORMAT} file of version {VERSION}")
    seats = []
    for state in data["seats"]:
        tensors = list(state.values())
        if len(tensors) % 2:
            raise PolicyFileError(f"{path}: a network's layers are not (weight, bias) pairs")
        seats.append(tuple((tensors[i].double().numpy(), tensors[i + 1].double().numpy())
                           for i in range(0, len(tensors), 2)))
    policy = SavedPolicy(game=str(data["game"]), algorithm=str(data["algorithm"]), params=dict(data["params"]),
                         obs_size=int(data["obs_size"]), num_actions=int(data["num_actions"]), seats=tuple(seats))
    for layers in policy.seats:
        if layers[0][0].shape[1] != policy.obs_size or layers[-1][0].shape[0] != policy.num_actions:
            raise PolicyFileError(f"{path}: a network's shape does not match its observation and action sizes")
    return policy


__all__ = ["FORMAT", "VERSION", "PolicyFileError", "SavedPolicy", "read_policy", "write_policy"]
