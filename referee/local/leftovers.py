"""What a referee leaves on the machine while it runs, named after it so that the next one can
clean up after a referee killed with -9.

A bot's cgroups (referee.local.cgroups) and the run's socket folder (referee.local.sandbox) are
named `PREFIX-PID-RANDOM`, PID being the referee's. A referee removes its own as it goes; one
killed with -9 cannot, so each referee, when it first makes such a thing, removes those whose
referee is no longer running, and leaves those of a running referee alone.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path


def owned_name(prefix: str) -> str:
    """The start of a name this referee owns: `PREFIX-PID-`."""
    return f"{prefix}-{os.getpid()}-"


def abandoned(paths: Iterable[Path], prefix: str) -> list[Path]:
    """Those of `paths` named by `owned_name(prefix)` in a referee that is no longer running."""
    pattern = re.compile(rf"{re.escape(prefix)}-(\d+)-[\w]+")
    found = []
    for path in paths:
        match = pattern.fullmatch(path.name)
        if match is not None and not pid_alive(int(match[1])):
            found.append(path)
    return found


def pid_alive(pid: int) -> bool:
    """Whether a process `pid` exists. A reused pid counts as alive: what it names is then left
    to a later start rather than taken from a running referee."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@contextmanager
def temporary_folder(prefix: str) -> Iterator[Path]:
    """A private (0700) temporary folder this referee owns, removed afterwards; the abandoned
    ones of `prefix` are removed first."""
    top = Path(tempfile.gettempdir())
    for folder in abandoned(top.glob(f"{prefix}-*"), prefix):
        shutil.rmtree(folder, ignore_errors=True)
    with tempfile.TemporaryDirectory(prefix=owned_name(prefix)) as made:
        os.chmod(made, 0o700)
        yield Path(made)
