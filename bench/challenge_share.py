"""Do challenges starve the ranked matches? The ranked matches' rate with and without
challenges in flight, in one run (issue 45).

A real contest referee (referee.contest.serving, accounts, hosted versions in the sandbox, the
contest's hosted slots) of XIX among three accounts, each with the examples' XIX heuristic as
its active version. It plays ranked matches throughout; in alternate phases of `--seconds`
each, every account also has a challenge in flight against the next (equal strength, bounds
[0, 5]: the test takes hundreds of deals, so they play the whole phase), cancelled at the
phase's end. Prints, per phase, the ranked matches committed a minute, the challenge matches,
and the share of the slots' time the challenges held (from their matches' own seconds), then
the ranked rate with challenges over the rate without, which the share (default a third) should
leave at about two thirds or more, and the load average.

Run: .venv/bin/python bench/challenge_share.py [--seconds 60] [--rounds 2] [--share 0.3333]
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import tempfile
import time
from pathlib import Path

import trio

from croupier.v1 import challenges_pb2 as pb
from referee import transport
from referee.challenges.terms import ChallengeTerms
from referee.contest.config import ServeConfig
from referee.contest.serving import serve_matches
from referee.contest.slots import default_count
from referee.contest.tokens import TokenStore
from referee.games import get_game
from referee.games.base import parse_options
from referee.hosted.archive import ArchiveLimits, unpack
from referee.hosted.store import VersionStore, beside
from referee.match.clock import TimeControl
from referee.transport.client import Challenger

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "python"
ACCOUNTS = ("alice", "bob", "carol")


def add_heuristic(store: VersionStore, account: str) -> None:
    into = store.incoming()
    unpack(EXAMPLE, into, ArchiveLimits())
    (into / "bot.toml").write_text(
        f'games = ["xix"]\nrun = "{{python}} xix_heuristic.py"\n# {account}\n'
    )
    store.activate(store.add(account, into).id, "every check passed")


def counts(database: Path) -> tuple[int, int, float]:
    """Ranked matches committed, challenge matches committed, and those's seconds in all."""
    with sqlite3.connect(database) as db:
        ranked = db.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
        try:
            played, seconds = db.execute(
                "SELECT COUNT(*), COALESCE(SUM(seconds), 0) FROM challenge_matches "
                "WHERE record IS NOT NULL"
            ).fetchone()
        except sqlite3.OperationalError:
            played, seconds = 0, 0.0
    return int(ranked), int(played), float(seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="each phase's length")
    parser.add_argument("--rounds", type=int, default=2, help="phases of each kind")
    parser.add_argument("--share", type=float, default=1 / 3, help="challenges' share")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="croupier-challenge-share-") as temporary:
        folder = Path(temporary)
        database = folder / "contest.db"
        tokens = {name: TokenStore(database).add(name) for name in ACCOUNTS}
        store = VersionStore(beside(database))
        for name in ACCOUNTS:
            add_heuristic(store, name)
        store.close()
        game = get_game("xix")
        terms = ChallengeTerms(share=args.share, max_deals=10_000, default_deals=10_000)
        config = ServeConfig(
            game=game,
            options=parse_options(game, {}),
            tokens=database,
            records=folder / "records",
            time_control=TimeControl(move_ms=5000, bank_ms=0),
            drain_seconds=5,
            challenges=terms,
        )
        phases: list[tuple[bool, float, int, int, float]] = []
        slots = default_count(game.seat_count(config.options), sorted(os.sched_getaffinity(0)))

        async def run() -> None:
            stop = trio.Event()
            listening = trio.Event()
            port = [0]

            def on_listening(number: int) -> None:
                port[0] = number
                listening.set()

            async with trio.open_nursery() as nursery:
                nursery.start_soon(serve_matches, config, on_listening, lambda _: None, stop)
                await listening.wait()
                await trio.sleep(args.seconds / 2)  # the versions launched and warm
                for round_ in range(2 * args.rounds):
                    phases.append(await phase(port[0], round_ % 2 == 1))
                stop.set()

        async def phase(port: int, challenging: bool) -> tuple[bool, float, int, int, float]:
            address = f"127.0.0.1:{port}"
            asked: list[tuple[str, int]] = []
            if challenging:
                for i, name in enumerate(ACCOUNTS):
                    opponent = ACCOUNTS[(i + 1) % len(ACCOUNTS)]
                    request = pb.CreateChallengeRequest(opponent=opponent)
                    with Challenger(address, tokens[name]) as author:
                        made = await trio.to_thread.run_sync(author.ask, request)
                    asked.append((name, made.id))
            ranked0, played0, seconds0 = counts(database)
            began = time.monotonic()
            await trio.sleep(args.seconds)
            ranked1, played1, seconds1 = counts(database)
            took = time.monotonic() - began
            for name, id in asked:
                with Challenger(address, tokens[name]) as author:
                    await trio.to_thread.run_sync(author.cancel, id)
            share = (seconds1 - seconds0) / took / slots
            return challenging, took, ranked1 - ranked0, played1 - played0, share

        transport.run(run)
    for challenging, took, ranked, played, share in phases:
        kind = "with challenges   " if challenging else "without challenges"
        print(
            f"{kind}: {ranked} ranked matches in {took:.0f} s ({60 * ranked / took:.1f}/min), "
            f"{played} challenge matches, challenges held {share:.0%} of the slots' time"
        )
    rate = {
        kind: sum(r for c, _, r, _, _ in phases if c is kind)
        / sum(t for c, t, _, _, _ in phases if c is kind)
        for kind in (False, True)
    }
    print(
        f"ranked rate with challenges / without: {rate[True] / rate[False]:.2f} "
        f"(share {args.share:.2f}, {slots} hosted slots); load average {os.getloadavg()[0]:.1f}"
    )


if __name__ == "__main__":
    main()
