"""Hosted versions put straight into a real store (referee.hosted.store), for the tests of what
the organiser, the authors and the web site are shown of them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from referee.hosted.archive import ArchiveLimits, unpack
from referee.hosted.store import VersionId, VersionStatus, VersionStore
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


#: The reasons `add_three` gives its versions (what anyone may read: the referee's words).
BUILD_FAILED = "the build exited with status 2"
QUALIFIED = "every check passed"
FAILED = "reconnects: no answer within 10 s"
#: What the failed version's bot said, in its author's reason only (as the pipeline keeps it):
#: it must never reach the site (issue 41.0: a bot could publish what it had learned).
BOT_SAID = "; its last output: 'the master seed is 7f3c9a'"


def add_three(root: Path, first: str, second: str) -> tuple[VersionId, VersionId, VersionId]:
    """Three versions in final statuses (which a running pipeline leaves alone), oldest first:
    `first`'s build-failed one, `first`'s qualified and active one, `second`'s failed one."""
    store = VersionStore(root)
    try:
        broken = add_example(store, first, "one")
        store.set_status(broken, VersionStatus.BUILD_FAILED, BUILD_FAILED, BUILD_FAILED)
        active = add_example(store, first, "two")
        store.activate(active, QUALIFIED)
        failed = add_example(store, second, "three")
        store.set_status(failed, VersionStatus.FAILED, FAILED + BOT_SAID, FAILED)
    finally:
        store.close()
    return broken, active, failed


def network_bot(address: str, token: str) -> subprocess.Popen[bytes]:
    """examples/python's random bot connecting from outside to the referee at `address`."""
    env = os.environ | {"CROUPIER_ADDRESS": address, "CROUPIER_TOKEN": token}
    return subprocess.Popen(
        [sys.executable, str(EXAMPLE / "random_bot.py")],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


#: The previous release's submissions.proto, as its descriptor set names it.
SUBMISSIONS_PROTO = "croupier/v1/submissions.proto"


def previous_submissions_stubs(folder: Path) -> Path:
    """Python stubs generated from the previous release's submissions.proto
    (tests/data/submissions-v1.binpb) into `folder`, a package root to put on PYTHONPATH."""
    from grpc_tools import protoc

    folder.mkdir()
    v1 = Path(__file__).parent / "data" / "submissions-v1.binpb"
    arguments = ["protoc", f"--descriptor_set_in={v1}", f"--python_out={folder}"]
    assert protoc.main([*arguments, f"--grpc_python_out={folder}", SUBMISSIONS_PROTO]) == 0
    for package in (folder / "croupier", folder / "croupier" / "v1"):
        (package / "__init__.py").write_text("")
    return folder


#: A hosted bot's source (bot.py) that says each choice on stderr, `<markup>` and all, before it
#: answers: its lines, tagged by decision, shown as text wherever an author reads them.
SAYING_BOT = """
import random
import sys

import croupier


class Saying(croupier.Bot):
    def act(self, request):
        index = random.randrange(len(request.legal_actions))
        print(f"<b>chose {index} of {len(request.legal_actions)}</b>", file=sys.stderr, flush=True)
        return index


croupier.run(Saying)
"""
