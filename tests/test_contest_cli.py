"""`croupier token ...` and `croupier watch` through typer's runner, on real files and servers."""

from __future__ import annotations

from pathlib import Path

import trio
from typer.testing import CliRunner

from referee.cli import app
from referee.tokens import TokenStore
from tests.test_contest import BAD, Contest, accounts, run_contest

runner = CliRunner()


def test_tokens_are_shown_once_and_stored_hashed(tmp_path: Path) -> None:
    db = str(tmp_path / "c.db")
    added = runner.invoke(app, ["token", "add", "alice", "--db", db])
    assert added.exit_code == 0, added.output
    token = added.output.strip()
    assert len(token) >= 40
    assert token.encode() not in (tmp_path / "c.db").read_bytes()
    assert TokenStore(tmp_path / "c.db").lookup(token) == "alice"
    again = runner.invoke(app, ["token", "add", "alice", "--db", db])
    assert again.exit_code == 2
    assert "already has a token" in again.output
    listed = runner.invoke(app, ["token", "list", "--db", db])
    assert "alice" in listed.output
    assert token not in listed.output
    assert runner.invoke(app, ["token", "revoke", "alice", "--db", db]).exit_code == 0
    assert TokenStore(tmp_path / "c.db").lookup(token) is None
    missing = runner.invoke(app, ["token", "revoke", "bob", "--db", db])
    assert missing.exit_code == 2
    assert "no active token for bot 'bob'" in missing.output
    bad = runner.invoke(app, ["token", "add", "no spaces", "--db", db])
    assert bad.exit_code == 2


def test_serve_refuses_plaintext_off_loopback() -> None:
    result = runner.invoke(app, ["serve", "--host", "0.0.0.0", "--db", "x.db"])
    assert result.exit_code == 2
    assert "refusing plaintext on '0.0.0.0'" in result.output


def test_watch_lists_and_follows_a_live_match(tmp_path: Path) -> None:
    tokens = accounts(tmp_path, "alice", "bob")
    outputs: list[str] = []

    async def scenario(contest: Contest, stop: trio.Event) -> None:
        address = f"127.0.0.1:{contest.port}"

        def watch() -> None:  # the CLI is synchronous: run it beside the referee
            while "xix-" not in (listing := runner.invoke(app, ["watch", address]).output):
                pass
            outputs.append(listing)
            match_id = listing.split("xix-")[1].split()[0]
            outputs.append(runner.invoke(app, ["watch", address, f"xix-{match_id}"]).output)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(contest.bot, BAD, tokens["alice"], "slow_good")
            nursery.start_soon(contest.bot, BAD, tokens["bob"], "slow_good")
            await trio.to_thread.run_sync(watch)

    run_contest(tmp_path, scenario, matches=1)
    assert "live matches" in outputs[0]
    assert "bad-slow_good" in outputs[0]
    assert "seat 0 is dealt" not in outputs[1]  # private
    assert "leads first" in outputs[1]
    assert "result: seat" in outputs[1]
