"""Match seeds: every chance outcome of a match is drawn from its seed, which fixes the deal.

A run (a series, a ladder, a contest, a doctor's check) has one secret master seed. Each match's
seed is HMAC-SHA-256 keyed by the master seed over the match's index, so a bot that knows its
match id and index (both in MatchStart) learns nothing of the deal; anyone can recompute every
seed once the master seed is revealed, and check it against the SHA-256 published at the start.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets


def new_master_seed() -> str:
    """A fresh master seed from the OS: 128 random bits as hex, secret until the run ends."""
    return secrets.token_hex(16)


def commitment(master: str | int) -> str:
    """What is published before the first deal: the SHA-256 of the master seed's UTF-8 text."""
    return hashlib.sha256(str(master).encode()).hexdigest()


def derive_seed(master: str | int, index: int) -> int:
    """Match `index`'s seed: the first 8 bytes of HMAC-SHA-256(key=master, msg=str(index)),
    big-endian, shifted right once (a non-negative 63-bit number). Keyed, so that without the
    master seed the index says nothing of the deal."""
    digest = hmac.new(str(master).encode(), str(index).encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") >> 1
