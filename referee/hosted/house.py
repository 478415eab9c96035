"""The organiser's house bots (issue 45.1): reference bots the contest file lists (`[house]`,
a name and a bot folder each), which any author may challenge and no ranked table seats.

Each plays as the account `house.NAME`, a name no token can take (referee.contest.tokens
refuses it), so no author can submit over a house bot; the standings, which count ranked
matches only, never list one. Its folder is stored at each start of the contest as an upload
is (unpacked without trusting it, its bot.toml checked against the contest's game), then built
and qualified by the pipeline: the same files again are the same version, changed ones a new
version that replaces the old (whose challenges then end, their opponent retired).

A version's id is the hash of its files, and two accounts cannot hold the same files, so an
author who uploaded the house folder's files before the organiser listed it would stop the
house bot from being stored. Each house copy carries a file (`MARK`) no author can write: the
house bot's name and a digest of it keyed by the contest's secret master seed.
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Final

from referee.errors import CroupierError
from referee.hosted.store import Version
from referee.hosted.submitting import SKIPPED, Submitting

#: What a house bot's account name starts with; a token's name never does.
PREFIX: Final = "house."
#: The file in each house copy that makes its files, so its version id, the house's own.
MARK: Final = ".croupier-house"


class HouseError(CroupierError):
    """A house bot that cannot be stored: the message names it and its folder."""


def account_of(name: str) -> str:
    """The account a house bot listed as `name` plays as."""
    return PREFIX + name


def is_house(account: str) -> bool:
    return account.startswith(PREFIX)


def ranked(versions: Iterable[Version]) -> list[Version]:
    """The versions a ranked table may seat: all but the house bots'."""
    return [v for v in versions if not is_house(v.account)]


def stock(desk: Submitting, bots: Mapping[str, Path], seed: str | int) -> list[Version]:
    """Store each house bot's folder as its account's version (the same files again: the same
    version, queued again if it had failed), in name order; HouseError for one that cannot be."""
    stored = []
    for name, folder in sorted(bots.items()):
        if not folder.is_dir():
            raise HouseError(f"[house] {name}: no bot folder {str(folder)!r}")
        account = account_of(name)
        with tempfile.TemporaryDirectory(prefix="croupier-house-") as spare:
            copy = Path(spare) / "src"
            # As `croupier submit` packs it (tools' folders left out), links kept as links so
            # that the upload's own check refuses them.
            ignore = shutil.ignore_patterns(*SKIPPED)
            shutil.copytree(folder, copy, symlinks=True, ignore=ignore)
            (copy / MARK).write_text(f"{account}\n{_digest(account, seed)}\n")
            try:
                stored.append(desk.submit(account, copy))
            except CroupierError as error:
                raise HouseError(f"[house] {name} ({str(folder)!r}): {error}") from None
    return stored


def _digest(account: str, seed: str | int) -> str:
    """A digest of the house bot keyed by the master seed: stable across the contest's starts,
    and revealing nothing of the seed to the bot that can read it."""
    keyed = f"croupier house bot\0{seed}\0{account}".encode()
    return hashlib.sha256(keyed).hexdigest()
