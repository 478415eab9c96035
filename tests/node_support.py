"""Finding Node.js and the Node SDK's dependencies for the tests that need them.

Without `node` on the machine those tests skip. With `node` but without `npm ci` having run in
sdk/node, they skip too, except in CI (CI=true), where `make test` must have installed them.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SDK = ROOT / "sdk" / "node"
NODE_RANDOM = ROOT / "examples" / "node" / "random_bot.js"


def node_or_skip() -> str:
    """The path of `node`, or a skip (a failure in CI) saying what is missing."""
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the Node SDK is not tested on this machine")
    if not (SDK / "node_modules" / "@grpc" / "grpc-js").is_dir():
        message = "the Node SDK's dependencies are not installed: run `make node-deps`"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return node


def node_random_command() -> str:
    return f"{node_or_skip()} {NODE_RANDOM}"
