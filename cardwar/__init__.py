"""cardwar: card-driven tabletop wargames as PettingZoo environments, with agents, training and tournaments.

One namespace: ``cardwar.envs`` (rules engines and AEC envs), ``cardwar.agents``,
``cardwar.training``, ``cardwar.configs`` (packaged scenarios and configs) and the
command line. In the repository these live in the top-level folders ``envs/``,
``agents/``, ``training/`` and ``configs/``; the wheel maps them into this package
(``pyproject.toml``'s ``package-dir``). Run from a source checkout, the same names
resolve to those folders, so both behave the same.
"""

from __future__ import annotations

import os as _os

try:
    from importlib.metadata import PackageNotFoundError as _NotFound
    from importlib.metadata import version as _version

    __version__: str = _version("cardwar")
except _NotFound:  # a source checkout that is not installed
    __version__ = "0.2.0+source"

_here = _os.path.dirname(_os.path.abspath(__file__))
_root = _os.path.dirname(_here)
if not _os.path.isdir(_os.path.join(_here, "envs")) and _os.path.isfile(_os.path.join(_root, "pyproject.toml")):
    # Source checkout: let ``cardwar.envs`` & co. resolve to the repository's top-level folders.
    __path__.append(_root)  # type: ignore[name-defined]  # noqa: F821

SUBPACKAGES = ("envs", "agents", "training", "configs")
"""The sub-packages that the build maps from the repository's top-level folders."""
