"""Self-play training of MaskablePPO agents (``cardwar train``).

- :mod:`training.selfplay_env`: the single-agent gymnasium view of an AEC env;
- :mod:`training.opponents`: the opponent pool (snapshots, heuristic, random);
- :mod:`training.config`: checked YAML configs (``configs/training/*.yaml``);
- :mod:`training.imitation`: the optional warm start from the heuristic's moves;
- :mod:`training.trainer`, :mod:`training.callbacks`: runs, checkpoints, resume;
- :mod:`training.evaluate`: seat-swapped evaluation and the training curve;
- :mod:`training.features`: the hex CNN.

Tournaments follow.
"""
