"""Hosted versions put straight into a real store (referee.hosted.store), for the tests of what
the organiser, the authors and the web site are shown of them."""

from __future__ import annotations

from pathlib import Path

from referee.hosted.archive import ArchiveLimits, unpack
from referee.hosted.store import VersionId, VersionStore
from referee.hosted.submitting import build_log

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "python"
#: A line written into build logs: whoever may not read a build log must never see it.
SECRET_LOG_LINE = "build-log-only: 7f3c9a secret path /opt/private"


def add_example(store: VersionStore, account: str, variant: str) -> VersionId:
    """examples/python as `account`'s version; `variant`, a comment appended to its bot.toml,
    makes its contents (so its id) differ from the other versions'. Its build log holds
    SECRET_LOG_LINE."""
    into = store.incoming()
    unpack(EXAMPLE, into, ArchiveLimits())
    with (into / "bot.toml").open("a") as manifest:
        manifest.write(f"# {variant}\n")
    id = store.add(account, into).id
    build_log(store.folder(id)).write_text(f"compiling {variant}\n{SECRET_LOG_LINE}\n")
    return id
