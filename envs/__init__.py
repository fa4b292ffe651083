"""cardwar environments: rules engines (``envs.naval``) and PettingZoo AEC envs (``envs.naval_v0``).

Importing this package registers ``cardwar/naval-v0`` and ``cardwar/hexwar-v0`` with
PettingZoo, so that ``pettingzoo.make("aec", "cardwar/naval-v0")`` works. The engines themselves
import neither gymnasium nor pettingzoo; registration is skipped when
pettingzoo is not installed.
"""

try:
    from pettingzoo import register as _register
except ImportError:  # engine-only installs
    _register = None

if _register is not None:
    from pettingzoo import aec_registry as _aec_registry

    for _id, _entry in (("cardwar/naval-v0", "envs.naval_v0:env"), ("cardwar/hexwar-v0", "envs.hexwar_v0:env")):
        if _id not in _aec_registry:
            _register("aec", _id, entry_point=_entry)
