"""Hex-grid geometry for hexwar: moved to the shared ``cardwar.envs.hexmap.grid``; this module re-exports it."""

from cardwar.envs.hexmap.grid import *  # noqa: F401,F403
from cardwar.envs.hexmap.grid import __all__  # noqa: F401
