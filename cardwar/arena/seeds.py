"""The dealer's seeds: what a game is dealt from, and what each seat is told, kept apart by a secret.

As the ACPC dealer does, a game's numbered seed (``--seed``, a tournament's pair seed)
never reaches a seat. The deal (deck order, hidden units, dice) comes from a keyed hash
of that number with a secret only the dealer holds, and each seat's own seed (for its
own randomness, sent to an engine in ``new_game``) is another keyed hash of it:

    deal seed   = HMAC-SHA256(secret, "deal:<game seed>")
    seat seed   = HMAC-SHA256(secret, "seat<i>:<game seed>")        (52 bits: exact in JSON numbers)

So a seat's seed says nothing about the game's seed, the deal or the other seat's seed,
and the game seed (a small, guessable number) tells nobody the deal without the secret.

A dealer may also have a ``context``, a string naming whose games it deals (a tournament's
pairing: :func:`cardwar.tournament.schedule.deal_context`); the labels then carry it,

    deal seed   = HMAC-SHA256(secret, "deal:" + JSON [context, game seed])
    seat seed   = HMAC-SHA256(secret, "seat<i>:" + JSON [context, game seed])

so two pairings that play the same numbered seed are dealt unrelated games: an engine that
meets a second opponent is never dealt a game it has seen against the first.

A tournament stores its secret, so a resume or a rerun deals the same games; ``match`` and
``play`` draw a fresh one unless ``--secret`` is given, and print it once the games are over.

``--reproducible-seeds`` (secret ``None``) is the research mode of old: the deal seed is the
game seed and the seats get ``2 * seed + 1`` and ``2 * seed + 2``. Any seat can then rebuild
the whole game; use it only among agents you trust (our own), never with engines. It ignores
the context: every opponent gets the plain seed's deal, as before.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets as _secrets
from dataclasses import dataclass

SECRET_BYTES = 16
SEAT_SEED_BITS = 52  # below 2**53: a JavaScript engine reads it exactly
_HEX = re.compile(r"[0-9a-f]{8,128}")


def new_secret() -> str:
    """A fresh dealer's secret, as hex."""
    return _secrets.token_hex(SECRET_BYTES)


def check_secret(text: str) -> str:
    """``text`` as a dealer's secret (hex, 8 to 128 digits), or a one-line ``ValueError``."""
    s = str(text).strip().lower()
    if not _HEX.fullmatch(s):
        raise ValueError(f"a secret is 8 to 128 hex digits (as printed after a match), got {text!r}")
    return s


def _keyed(secret: str, label: str, bits: int) -> int:
    digest = hmac.new(bytes.fromhex(secret), label.encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") >> (64 - bits)


@dataclass(frozen=True)
class Dealer:
    """Turns a game's numbered seed into the deal seed and the seats' seeds (see the module docstring)."""

    secret: str | None  # None: reproducible research seeds, which any seat can invert
    context: str | None = None  # whose games (a pairing's key): other contexts, unrelated deals; None: the seed alone

    @classmethod
    def fresh(cls) -> Dealer:
        return cls(new_secret())

    @classmethod
    def from_options(cls, secret: str | None = None, reproducible: bool = False) -> Dealer:
        """The dealer a command's ``--secret`` / ``--reproducible-seeds`` ask for (a fresh secret by default)."""
        if reproducible:
            if secret is not None:
                raise ValueError("--secret and --reproducible-seeds exclude each other")
            return cls(None)
        return cls(check_secret(secret)) if secret is not None else cls.fresh()

    @property
    def reproducible(self) -> bool:
        return self.secret is None

    def _label(self, game_seed: int) -> str:
        if self.context is None:
            return str(int(game_seed))
        return json.dumps([self.context, int(game_seed)], ensure_ascii=True, separators=(",", ":"))

    def deal(self, game_seed: int) -> int:
        """The seed the env is reset with (the record's seed): the deck, the hidden units, the dice."""
        if self.secret is None:
            return int(game_seed)
        return _keyed(self.secret, f"deal:{self._label(game_seed)}", 63)

    def seat(self, game_seed: int, seat: int) -> int:
        """The seed of the player in ``seat`` (0 first, 1 second) for its own randomness."""
        if self.secret is None:
            return 2 * int(game_seed) + 1 + seat
        return _keyed(self.secret, f"seat{seat}:{self._label(game_seed)}", SEAT_SEED_BITS)
