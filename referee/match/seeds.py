"""Match seeds: every chance outcome of a match is drawn from its seed, which fixes the deal."""

from __future__ import annotations

import hashlib


def derive_seed(seed: int, index: int) -> int:
    """The seed of match `index` in a series: anyone can recompute it from the series seed."""
    digest = hashlib.sha256(f"croupier/{seed}/{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1
