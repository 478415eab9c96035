"""Train a small XIX agent with numpy alone: a linear softmax policy over the environment's
encoding, by REINFORCE against the random bot (docs/training.md). It writes the weights to
WEIGHTS (default xix_policy.npz beside this file); examples/training/xix_policy_bot.py plays them.

Run: python examples/training/train_xix.py --episodes 3000 [--weights PATH] [--seed N]
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

import croupier.env
from croupier.bots.random_bot import RandomBot

Weights = npt.NDArray[np.float64]


def probabilities(weights: Weights, observation: dict[str, Any]) -> npt.NDArray[np.float64]:
    """The policy's distribution over the legal positions (zero elsewhere)."""
    features = np.append(observation["observation"], 1.0)
    logits = weights @ features
    mask = observation["action_mask"].astype(bool)
    logits = np.where(mask, logits, -np.inf)
    exp = np.exp(logits - logits[mask].max())
    return exp / exp.sum()


def train(episodes: int, seed: int, rate: float = 0.01) -> Weights:
    env = croupier.env.gym("xix", [RandomBot(seed)])
    space = env.observation_space["observation"].shape[0]
    weights = np.zeros((env.action_space.n, space + 1))
    rng = np.random.default_rng(seed)
    baseline = 0.0
    for episode in range(episodes):
        observation, _ = env.reset(seed=seed * 1_000_003 + episode)
        grads = []
        done = False
        reward = 0.0
        while not done:
            p = probabilities(weights, observation)
            action = int(rng.choice(len(p), p=p))
            features = np.append(observation["observation"], 1.0)
            grad = -np.outer(p, features)
            grad[action] += features
            grads.append(grad)
            observation, reward, done, _, _ = env.step(action)
        outcome = float(np.sign(reward))  # a win, a draw or a loss
        baseline += 0.01 * (outcome - baseline)
        weights += rate * (outcome - baseline) * np.sum(grads, axis=0) / len(grads)
    return weights


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--weights", type=Path, default=Path(__file__).with_name("xix_policy.npz"))
    args = parser.parse_args()
    weights = train(args.episodes, args.seed)
    np.savez(args.weights, weights=weights)
    print(f"weights written to {args.weights}")


if __name__ == "__main__":
    main()
