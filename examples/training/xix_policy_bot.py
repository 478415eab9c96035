"""The trained XIX policy as a bot, unchanged: `croupier match xix --bot "python THIS"`, then
`croupier doctor` and `croupier submit` as any bot (docs/training.md). It plays the most likely
legal action of the weights that examples/training/train_xix.py wrote (its argument, default
xix_policy.npz beside this file)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np

import croupier
from croupier.env import PolicyBot

DEFAULT_WEIGHTS = Path(__file__).with_name("xix_policy.npz")


def greedy(weights: np.ndarray[Any, np.dtype[np.float64]]) -> croupier.env.Policy:
    def policy(observation: dict[str, Any]) -> int:
        features = np.append(observation["observation"], 1.0)
        logits = np.where(observation["action_mask"].astype(bool), weights @ features, -np.inf)
        return int(np.argmax(logits))

    return policy


def make_bot() -> PolicyBot:
    """A fresh bot per session (the SDK may play several at once)."""
    weights = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_WEIGHTS
    bot = PolicyBot(greedy(np.load(weights)["weights"]), name="xix-numpy")
    bot.games = ("xix",)
    return bot


if __name__ == "__main__":
    croupier.run(make_bot)
