"""A bot that, before its first move, walks the whole file system it can see and says, on stderr,
each path it finds outside its own folder and the roots listed in `allowed.json` beside it
(their parents are walked, not shown: a sandbox makes them to hold the roots), then plays at
random.

"SEEN <path>" for each such path, then "WALKED: nothing else" or "WALKED: N more".
"""

from __future__ import annotations

import json
import os
import random
import sys
from pathlib import Path

import croupier
from croupier.v1 import referee_pb2

HERE = Path(__file__).resolve().parent
ALLOWED = [HERE, *(Path(p) for p in json.loads((HERE / "allowed.json").read_text()))]
#: Where the kernel's own views are: not files of anyone's.
KERNEL = (Path("/proc"), Path("/sys"), Path("/dev"))


def inside(path: Path, roots: list[Path]) -> bool:
    return any(path == root or root in path.parents for root in roots)


def walk() -> list[str]:
    seen: list[str] = []
    todo = [Path("/")]
    while todo:
        folder = todo.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            path = Path(entry.path)
            if inside(path, [*ALLOWED, *KERNEL]):
                continue
            if any(path in root.parents for root in ALLOWED) and entry.is_dir(
                follow_symlinks=False
            ):
                todo.append(path)  # a parent the sandbox made for a root: look inside
            elif entry.is_symlink() and inside(Path(os.path.realpath(path)), ALLOWED):
                continue  # /bin -> usr/bin
            else:
                seen.append(str(path))
    return seen


class Seer(croupier.Bot):
    name = "seer"
    walked = False

    def act(self, request: referee_pb2.ActionRequest) -> int:
        if not self.walked:
            self.walked = True
            seen = walk()
            for path in seen[:50]:
                print("SEEN", path, file=sys.stderr, flush=True)
            print(f"WALKED: {len(seen)} more" if seen else "WALKED: nothing else", file=sys.stderr)
            # Where it runs, as its author reads it in its match log (the referee's paths hidden).
            where = (os.getcwd(), sys.executable, croupier.__file__)
            print("RUNS IN {} ON {} WITH {}".format(*where), file=sys.stderr, flush=True)
        return random.randrange(len(request.legal_actions))


croupier.run(Seer)
