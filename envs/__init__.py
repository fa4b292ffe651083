"""cardwar environments: rules engines (``cardwar.envs.naval``) and PettingZoo AEC envs (``cardwar.envs.naval_v0``).

Importing this package registers ``cardwar/naval-v0``, ``cardwar/naval-v1`` (factored actions),
``cardwar/hexwar-v0``, ``cardwar/hexwar-v1`` (channels-last observation), ``cardwar/skirmish-v0`` and
``cardwar/tankattack-v0`` (the WW1 trench game) with PettingZoo, so that
``pettingzoo.make("aec", "cardwar/naval-v0")`` works. Each env's module docstring is its page
(``help(cardwar.envs.naval_v0)``), its tables built from the encoders. The engines themselves
import neither gymnasium nor pettingzoo; registration is skipped when pettingzoo is not installed.
"""

try:
    from pettingzoo import register as _register
except ImportError:  # engine-only installs
    _register = None

if _register is not None:
    from pettingzoo import aec_registry as _aec_registry

    for _id, _entry in (("cardwar/naval-v0", "cardwar.envs.naval_v0:env"),
                        ("cardwar/naval-v1", "cardwar.envs.naval_v1:env"),
                        ("cardwar/hexwar-v0", "cardwar.envs.hexwar_v0:env"),
                        ("cardwar/hexwar-v1", "cardwar.envs.hexwar_v1:env"),
                        ("cardwar/skirmish-v0", "cardwar.envs.skirmish_v0:env"),
                        ("cardwar/tankattack-v0", "cardwar.envs.tankattack_v0:env")):
        if _id not in _aec_registry:
            _register("aec", _id, entry_point=_entry)
    from pettingzoo import parallel_registry as _parallel_registry

    if "cardwar/skirmish-v0" not in _parallel_registry:  # one agent per figure
        _register("parallel", "cardwar/skirmish-v0", entry_point="cardwar.envs.skirmish_v0:parallel_env")


ACTION_SPACES = ("moves", "steps")
"""``moves``: one action a move (naval-v0, hexwar-v0); ``steps``: naval-v1's factored steps (naval only)."""


def make_raw_env(game: str, scenario: str | None = None, rules: dict | None = None, actions: str = "moves"):
    """The raw AEC env of ``game`` (any game of the registry, ``cardwar.games``; ``scenario`` for a game that
    has scenarios).

    ``actions="steps"`` gives naval-v1 (a move made in steps) instead of naval-v0."""
    if actions not in ACTION_SPACES or (actions == "steps" and game != "naval"):
        raise ValueError(f"actions {actions!r}: use 'moves', or 'steps' for naval (naval-v1)")
    if game == "naval":
        if actions == "steps":
            from cardwar.envs import naval_v1

            return naval_v1.raw_env(rules=rules)
        from cardwar.envs import naval_v0

        return naval_v0.raw_env(rules=rules)
    if game == "hexwar":
        from cardwar.envs import hexwar_v0

        return hexwar_v0.raw_env(scenario=scenario or hexwar_v0.DEFAULT_SCENARIO, rules=rules)
    if game == "skirmish":
        from cardwar.envs import skirmish_v0

        return skirmish_v0.raw_env(scenario=scenario or skirmish_v0.DEFAULT_SCENARIO, rules=rules)
    from cardwar import games

    return games.get(game).make_env(scenario, rules)  # any other registered game; UnknownGame names them
