"""The ``rllib:PATH`` agent: a policy trained by ``cardwar train GAME --backend rllib`` as a cardwar agent.

``PATH`` is a run folder (its ``final/`` is played), or one of its checkpoints (``RUN/final``,
``RUN/checkpoints/step_N``). The policy is the checkpoint's RLModule alone, loaded with RLlib's
``RLModule.from_checkpoint`` (inference only: no ``Algorithm``, no Ray cluster), once, when the agent
is built, so that no clock runs while RLlib is imported (several seconds). It plays the legal move
with the highest logit (``deterministic=true``), or samples the masked policy from its own seeded
generator.

This module stays cheap to import: a spec is checked (:func:`checkpoint_dir`, :func:`check_options`)
without importing Ray; :mod:`cardwar.training.rllib` is imported only to load the policy. Paths are
made absolute before RLlib sees them: it hands them to pyarrow, which reads a relative path as a URI
without a scheme (``ArrowInvalid: URI has empty scheme``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from cardwar.agents.spec import AgentSpecError, Option

POLICY_ID = "shared"
"""The one policy both seats share in an RLlib self-play run (its module id)."""
MODULE_SUBDIR = Path("learner_group", "learner", "rl_module", POLICY_ID)
"""Where ``Algorithm.save_to_path`` keeps that policy's RLModule inside a checkpoint."""

OPTIONS = (Option("path", str, None, "an RLlib run folder (its final/ is played) or a checkpoint folder "
                  "(RUN/final, RUN/checkpoints/step_N)", nullable=True),
           Option("deterministic", bool, True, "play the legal move with the highest logit (false: sample the "
                  "masked policy)"))


def checkpoint_dir(path: str | Path) -> Path:
    """The absolute checkpoint folder ``path`` names (a run folder means its ``final/``); a one-line
    :class:`AgentSpecError` if it holds no cardwar RLlib policy."""
    where = Path(path).expanduser().resolve()
    if (where / "final" / MODULE_SUBDIR).is_dir():
        return where / "final"
    if (where / MODULE_SUBDIR).is_dir():
        return where
    if not where.exists():
        raise AgentSpecError(f"rllib: no such folder {str(path)!r} (give a run folder of `cardwar train GAME "
                             f"--backend rllib`, or its final/ or checkpoints/step_N/)")
    hint = " (the run has no final/ yet: name one of its checkpoints/step_N/, or resume it)" \
        if (where / "settings.json").is_file() else ""
    raise AgentSpecError(f"rllib: {str(path)!r} is not an RLlib checkpoint of cardwar (no {MODULE_SUBDIR}){hint}")


def run_settings(checkpoint: Path) -> dict[str, Any] | None:
    """The ``settings.json`` of the run that holds ``checkpoint`` (``RUN/final`` or ``RUN/checkpoints/step_N``),
    or None for a checkpoint moved out of its run."""
    for run in (checkpoint.parent, checkpoint.parent.parent):
        try:
            return json.loads((run / "settings.json").read_text())
        except (OSError, ValueError):
            continue
    return None


def check_options(options: dict[str, Any], game: str) -> None:
    """The spec's checks that need no model: a checkpoint is named, exists and (when its run says) is of ``game``."""
    if not options.get("path"):
        raise AgentSpecError("rllib needs a checkpoint: rllib:RUN_DIR (or rllib:RUN_DIR/final); train one with "
                             "`cardwar train GAME --backend rllib`")
    checkpoint = checkpoint_dir(options["path"])
    trained = (run_settings(checkpoint) or {}).get("game")
    if trained is not None and trained != game:
        raise AgentSpecError(f"rllib: {options['path']!r} was trained on {trained}, not {game}")


class RLlibAgent:
    """A cardwar agent that plays a trained RLlib module (``MaskedPPOModule``) from the seat's observation."""

    def __init__(self, module: Any, deterministic: bool = True, seed: int | None = None) -> None:
        self.name, self.module, self.deterministic = "rllib", module, deterministic
        self.rng = np.random.default_rng(seed)

    def act(self, observation: dict[str, np.ndarray], view: Any = None) -> int:
        if self.deterministic:
            return self.module.greedy(observation)
        probs = self.module.probabilities(observation)
        return int(self.rng.choice(len(probs), p=probs))


def make_rllib_agent(game: str, seed: int | None = None, path: str | None = None,
                     deterministic: bool = True) -> RLlibAgent:
    """The ``rllib:PATH`` agent of ``game``: the checkpoint's policy, loaded now (before any clock starts)."""
    from cardwar import games

    check_options({"path": path}, game)
    try:
        from cardwar.training.rllib import load_module
    except ImportError as err:
        raise AgentSpecError(f"rllib:{path} needs RLlib: pip install 'cardwar[rllib]' ({err})") from None
    module = load_module(checkpoint_dir(str(path)))
    env = games.get(game).make_env()
    agent_id = env.possible_agents[0]
    want = (tuple(env.observation_space(agent_id)["observation"].shape), int(env.action_space(agent_id).n))
    got = (tuple(module.observation_space["observation"].shape), int(module.action_space.n))
    if want != got:
        raise AgentSpecError(f"rllib: {path!r} was trained on observations {got[0]} and {got[1]} actions; "
                             f"{game} has {want[0]} and {want[1]}")
    return RLlibAgent(module, deterministic=deterministic, seed=seed)
