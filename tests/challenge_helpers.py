"""Hosted versions for the challenge tests: the XIX heuristic and its noisy copy, or any example
program of examples/python (issue 45.1: the Xeri heuristic and the random bot), put straight
into a real store as qualified, active versions (as tests/hosted_helpers.py does)."""

from __future__ import annotations

from pathlib import Path

from referee.hosted.archive import ArchiveLimits, unpack
from referee.hosted.store import VersionId, VersionStore

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "python"

#: The heuristic that plays a random legal action this often: clearly weaker, never broken.
NOISY = '''"""The XIX heuristic, but a random legal action half the time."""
import random

import croupier
from croupier.bots import XixHeuristicBot


class Noisy(XixHeuristicBot):
    name = "xix-noisy"

    def act(self, request):
        if random.random() < {noise}:
            return random.randrange(len(request.legal_actions))
        return super().act(request)


if __name__ == "__main__":
    croupier.run(Noisy)
'''


#: A bot that crashes at its first decision.
CRASHER = '''"""Connects, then dies at its first decision."""
import os

import croupier
from croupier.bots import XixHeuristicBot


class Crasher(XixHeuristicBot):
    name = "xix-crasher"

    def act(self, request):
        os._exit(3)


if __name__ == "__main__":
    croupier.run(Crasher)
'''


#: The `noise` of a version that crashes at its first decision.
CRASHES = -1.0

#: What a noisy version that `says` something prints at each of its decisions (on stderr, its
#: log): the words and the decision's number among its own.
SAYING = """    def act(self, request):
        self.said = getattr(self, "said", 0) + 1
        print({says!r}, self.said, file=__import__("sys").stderr, flush=True)
"""


def add_bot(
    store: VersionStore,
    account: str,
    noise: float | str | None,
    tag: str,
    says: str = "",
    game: str = "xix",
) -> VersionId:
    """A qualified, active version of `account` for `game` (`bot_folder`'s bot)."""
    into = store.incoming()
    bot_folder(into, noise, tag, says, game)
    version = store.add(account, into)
    store.activate(version.id, "every check passed")
    return version.id


def bot_folder(
    into: Path, noise: float | str | None, tag: str, says: str = "", game: str = "xix"
) -> Path:
    """A bot folder at `into` (which must not exist) for `game`: the heuristic (`noise` None),
    its noisy copy, with CRASHES one that crashes at its first decision, or (`noise` a file
    name) that example program as it is; `tag` makes its contents, so its id, its own. A noisy
    copy that `says` words prints them at each decision."""
    unpack(EXAMPLE, into, ArchiveLimits())
    if isinstance(noise, str):
        run = f"{{python}} {noise}"
    else:
        run = "{python} xix_heuristic.py" if noise is None else "{python} noisy.py"
    if noise is not None and not isinstance(noise, str):
        noisy = NOISY.replace("{noise}", repr(noise))
        if says:
            noisy = noisy.replace("    def act(self, request):\n", SAYING.format(says=says))
        (into / "noisy.py").write_text(noisy)
    if noise is not None and not isinstance(noise, str) and noise < 0:  # CRASHES
        (into / "noisy.py").write_text(CRASHER)
    (into / "bot.toml").write_text(
        f'name = "{tag}"\nlanguage = "python"\ngames = ["{game}"]\nrun = "{run}"\n# {tag}\n'
    )
    return into
