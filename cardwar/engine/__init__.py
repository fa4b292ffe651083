"""The JSON-lines engine protocol (``docs/engine-protocol.md``): programs as players, our agents as programs.

- :mod:`cardwar.engine.protocol`: the messages;
- :mod:`cardwar.engine.client`: :class:`EngineAgent`, the dealer's side (``engine:CMD`` player specs);
- :mod:`cardwar.engine.server`: ``cardwar engine``, one of our agents served over the protocol;
- :mod:`cardwar.engine.bench`: the per-move overhead of the protocol.
"""

from cardwar.engine.protocol import PROTOCOL_VERSION, ProtocolError

__all__ = ["PROTOCOL_VERSION", "ProtocolError"]
