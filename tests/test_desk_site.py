"""The author's desk on the contest site (issue 46.3) against hostile visitors: a real `croupier
serve --db --web` on loopback, its SQLite database, and requests over real HTTP.

Signing in sets a session cookie (HttpOnly, SameSite=Strict, Path=/desk; not Secure over plain
HTTP, which only loopback serves) and the token shows nowhere: not in a URL, a page or the
database. A cookie replayed after its sign-out, a removed member's session and a rotated
token's are refused; so are forms without the session's CSRF token or from another origin. A
10 GiB upload is refused at the cap having been read no further than about the cap, quickly,
in `croupier submit`'s words, as are its other refusals; one that stops sending is ended.
Another team and an anonymous visitor see none of a team's versions, logs, matches, events or
seat replays; each team's seat replay of a match holds its own seat's view and no card hidden
from it. A challenge's matches (an unranked one's too, in no snapshot) are listed on the desks
of its two teams alone and replayed from each one's seat with its own version's lines by
decision, never the other's, and in a challenge of two of a team's versions each seat with its
own version's (issue 45.4).
A contest database made before the desk's sessions table opens and serves as before; over
HTTPS the cookie is Secure.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import re
import socket
import sqlite3
import ssl
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

import pytest

from referee.contest.book import ContestBook
from referee.contest.sessions import SessionStore
from referee.contest.tokens import TokenStore
from referee.games import get_game
from referee.games.base import parse_options
from referee.hosted.store import VersionStore, beside
from referee.hosted.submitting import pack
from referee.viewer import load
from tests.challenge_helpers import add_bot
from tests.desk_helpers import Referee, challenged, running
from tests.hosted_helpers import EXAMPLE, network_bot
from tests.tls_helpers import make_ca_and_server_cert
from tests.viewer_helpers import page_data, unseen_faces

#: The upload cap the contest below sets (`--max-upload-mb 1`).
CAP = 1024 * 1024
#: What a loopback connection may hold besides what the server read: the kernel's send and
#: receive buffers, and the chunks Hypercorn queues for the app.
BUFFERED = 24 * 1024 * 1024


@dataclass
class Answer:
    status: int
    headers: http.client.HTTPMessage
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Visitor:
    """A browser of the site, by hand: its cookie jar is the one desk cookie."""

    web: str
    cookie: str = ""
    cookies: list[str] = field(default_factory=list)
    #: For a site over HTTPS: trusting its CA.
    tls: ssl.SSLContext | None = None

    @property
    def origin(self) -> str:
        return self.web

    def send(
        self,
        method: str,
        path: str,
        body: bytes = b"",
        headers: dict[str, str] | None = None,
        origin: str | None = "",
    ) -> Answer:
        """One request (no redirect followed); `origin` "" sends the site's own, None none."""
        where = urlsplit(self.web)
        connection = (
            http.client.HTTPSConnection(where.hostname or "", where.port, context=self.tls)
            if self.tls is not None
            else http.client.HTTPConnection(where.hostname or "", where.port, timeout=60)
        )
        sent = dict(headers or {})
        if self.cookie:
            sent["cookie"] = f"croupier_desk={self.cookie}"
        if origin is not None:
            sent["origin"] = origin or self.origin
        try:
            connection.request(method, path, body=body, headers=sent)
            response = connection.getresponse()
            answer = Answer(response.status, response.headers, response.read())
        finally:
            connection.close()
        self.cookies += answer.headers.get_all("set-cookie") or []
        return answer

    def form(self, path: str, fields: dict[str, str], origin: str | None = "") -> Answer:
        body = urlencode(fields).encode()
        kind = {"content-type": "application/x-www-form-urlencoded"}
        return self.send("POST", path, body, kind, origin)

    def sign_in(self, token: str) -> Answer:
        answer = self.form("/desk/sign-in", {"token": token})
        if answer.status == 303:
            jar: SimpleCookie = SimpleCookie()
            jar.load(answer.headers["set-cookie"])
            self.cookie = jar["croupier_desk"].value
        return answer

    def data(self) -> Answer:
        return self.send("GET", "/desk/data")

    def csrf(self) -> str:
        return str(self.data().json()["csrf"])

    def upload(self, archive: bytes, csrf: str | None = None) -> Answer:
        headers = {"content-type": "application/octet-stream"}
        headers["x-csrf-token"] = self.csrf() if csrf is None else csrf
        return self.send("POST", "/desk/upload", archive, headers)


def network_matches(referee: Referee, visitor: Visitor, count: int) -> None:
    """Alice's and bob's network random bots play until `visitor`'s desk lists `count`
    matches, then stop."""
    bots = [network_bot(referee.address, referee.tokens[name]) for name in ("alice", "bob")]
    try:
        deadline = time.monotonic() + 300
        while len(visitor.data().json()["matches"]) < count:
            assert time.monotonic() < deadline, f"fewer than {count} matches were committed"
            time.sleep(0.2)
    finally:
        for bot in bots:
            bot.terminate()
            bot.wait(timeout=30)


def _response(connection: socket.socket) -> bytes:
    """An HTTP response read whole off a raw connection (its head, then its content-length)."""
    answer = b""
    with contextlib.suppress(ConnectionResetError):
        while b"\r\n\r\n" not in answer and (data := connection.recv(65536)):
            answer += data
        head = answer.partition(b"\r\n\r\n")[0].decode().lower()
        length = int(head.split("content-length: ")[1].split("\r\n")[0])
        while len(answer.partition(b"\r\n\r\n")[2]) < length and (data := connection.recv(65536)):
            answer += data
    return answer


@pytest.fixture(scope="module")
def referee(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Referee]:
    folder = tmp_path_factory.mktemp("desk")
    extra = ("--max-upload-mb", "1", "--submissions-per-hour", "1000")
    with running(folder, web=True, extra=extra) as started:
        yield started


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """examples/python packed as `croupier submit` packs it."""
    into = tmp_path_factory.mktemp("archive") / "bot.tar.gz"
    pack(EXAMPLE, into)
    return into.read_bytes()


def _signed_in(referee: Referee, token: str) -> Visitor:
    visitor = Visitor(referee.web)
    assert visitor.sign_in(token).status == 303
    return visitor


def test_signing_in_sets_a_strict_http_only_cookie_and_the_token_shows_nowhere(
    referee: Referee,
) -> None:
    token = referee.tokens["alice"]
    visitor = Visitor(referee.web)
    answer = visitor.sign_in(token)
    assert answer.status == 303 and answer.headers["location"] == "/desk"
    cookie = answer.headers["set-cookie"]
    attributes = {part.strip().split("=")[0].lower() for part in cookie.split(";")[1:]}
    assert {"httponly", "path", "samesite", "max-age"} <= attributes
    assert "Path=/desk" in cookie and "samesite=strict" in cookie.lower()
    assert "secure" not in attributes  # plain HTTP, on loopback: a Secure cookie never returns
    assert token not in cookie and visitor.cookie != token
    assert len(visitor.cookie) >= 43  # 256 random bits
    page = visitor.send("GET", "/desk")
    assert page.status == 200 and page.headers["referrer-policy"] == "same-origin"
    data = visitor.data()
    assert data.status == 200 and data.headers["cache-control"] == "no-store"
    assert data.json()["team"] == "alice" and data.json()["you"] == "alice"
    for shown in (page.body, data.body, visitor.send("GET", "/desk/events?after=0").body):
        assert token.encode() not in shown
    # The database holds neither the token nor the session id: only the id's SHA-256.
    with contextlib.closing(sqlite3.connect(referee.db)) as db:
        rows = db.execute("SELECT * FROM sessions").fetchall()
    held = [str(value) for row in rows for value in row]
    assert held and token not in held and visitor.cookie not in held
    # The rest of the site keeps to no-referrer.
    assert Visitor(referee.web).send("GET", "/").headers["referrer-policy"] == "no-referrer"


def test_over_https_the_cookie_is_secure(tmp_path: Path) -> None:
    ca, cert, key = make_ca_and_server_cert(tmp_path)
    extra = ("--tls-cert", str(cert), "--tls-key", str(key))
    with running(tmp_path, web=True, extra=extra) as referee:
        assert referee.web.startswith("https://")
        visitor = Visitor(referee.web, tls=ssl.create_default_context(cafile=str(ca)))
        answer = visitor.sign_in(referee.tokens["alice"])
        assert answer.status == 303
        attributes = [part.strip().lower() for part in answer.headers["set-cookie"].split(";")]
        assert "secure" in attributes and "httponly" in attributes
        assert visitor.data().json()["team"] == "alice"


def test_a_cookie_replayed_after_sign_out_is_refused(referee: Referee, archive: bytes) -> None:
    visitor = _signed_in(referee, referee.tokens["bob"])
    stolen = visitor.cookie
    csrf = visitor.csrf()
    out = visitor.form("/desk/sign-out", {"csrf": csrf})
    assert out.status == 303
    assert (
        "croupier_desk=" in out.headers["set-cookie"] and "Max-Age=0" in out.headers["set-cookie"]
    )
    thief = Visitor(referee.web, cookie=stolen)
    assert thief.data().status == 401
    assert thief.send("GET", "/desk/events?after=0").status == 401
    assert thief.upload(archive, csrf).status == 401
    assert "not signed in" in thief.data().json()["error"]


def test_a_removed_member_s_and_a_rotated_token_s_sessions_end(referee: Referee) -> None:
    accounts = TokenStore(referee.db, create=False)
    carol = accounts.add_member("alice", "carol")
    dave = accounts.add_member("alice", "dave")
    carol_desk = _signed_in(referee, carol)
    dave_desk = _signed_in(referee, dave)
    assert {m["name"] for m in carol_desk.data().json()["members"]} >= {"alice", "carol", "dave"}
    accounts.remove_member("alice", "carol", by=referee.tokens["alice"])
    assert carol_desk.data().status == 401
    refused = Visitor(referee.web).sign_in(carol)
    assert refused.status == 401
    assert "'carol' was removed from team 'alice'" in refused.json()["error"]
    new = accounts.rotate("alice", "dave", by=dave)
    assert dave_desk.data().status == 401
    assert "was replaced" in Visitor(referee.web).sign_in(dave).json()["error"]
    assert _signed_in(referee, new).data().json()["you"] == "dave"


def test_forged_forms_are_refused(referee: Referee, archive: bytes) -> None:
    visitor = _signed_in(referee, referee.tokens["bob"])
    before = len(visitor.data().json()["versions"])
    # Sign-out without the CSRF token, with a wrong one, or from another site: still signed in.
    assert visitor.form("/desk/sign-out", {}).status == 403
    assert visitor.form("/desk/sign-out", {"csrf": "0" * 64}).status == 403
    csrf = visitor.csrf()
    assert (
        visitor.form("/desk/sign-out", {"csrf": csrf}, origin="http://evil.example").status == 403
    )
    assert visitor.form("/desk/sign-out", {"csrf": csrf}, origin="null").status == 403
    assert visitor.form("/desk/sign-out", {"csrf": csrf}, origin=None).status == 403
    assert visitor.data().status == 200
    # An upload without its token, with another session's, or from another origin.
    other = _signed_in(referee, referee.tokens["alice"]).csrf()
    for answer in (
        visitor.upload(archive, ""),
        visitor.upload(archive, other),
        visitor.send(
            "POST",
            "/desk/upload",
            archive,
            {"x-csrf-token": csrf},
            origin=f"http://127.0.0.1:{urlsplit(referee.web).port}0",
        ),
    ):
        assert answer.status == 403, answer.body
        assert "refused:" in answer.json()["error"]
    assert len(visitor.data().json()["versions"]) == before
    # Signing in from another site is refused too (a login forced on a victim).
    assert (
        Visitor(referee.web)
        .form("/desk/sign-in", {"token": referee.tokens["bob"]}, origin="http://evil.example")
        .status
        == 403
    )
    # Without an Origin, the Referer a page of the site's own sends makes it the site's.
    headers = {
        "content-type": "application/x-www-form-urlencoded",
        "referer": referee.web + "/desk",
    }
    body = urlencode({"csrf": csrf}).encode()
    assert visitor.send("POST", "/desk/sign-out", body, headers, origin=None).status == 303


def test_a_10_gib_upload_is_refused_at_the_cap_having_read_about_the_cap(
    referee: Referee,
) -> None:
    visitor = _signed_in(referee, referee.tokens["alice"])
    csrf = visitor.csrf()
    where = urlsplit(referee.web)
    head = (
        f"POST /desk/upload HTTP/1.1\r\nHost: {where.netloc}\r\nOrigin: {referee.web}\r\n"
        f"Cookie: croupier_desk={visitor.cookie}\r\nX-CSRF-Token: {csrf}\r\n"
        "Content-Type: application/octet-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
    )
    chunk = b"\0" * (1024 * 1024)
    frame = f"{len(chunk):x}\r\n".encode() + chunk + b"\r\n"
    sent = 0
    started = time.monotonic()
    with socket.create_connection((where.hostname, where.port), timeout=60) as connection:
        connection.sendall(head.encode())
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            while sent < 10 * 1024**3:
                connection.sendall(frame)
                sent += len(chunk)
        took = time.monotonic() - started
        answer = _response(connection)
    assert sent <= CAP + BUFFERED, f"{sent:,} bytes taken for a cap of {CAP:,}"
    assert took < 60, took
    status, _, body = answer.partition(b"\r\n\r\n")
    assert status.startswith(b"HTTP/1.1 413"), answer[:300]
    error = json.loads(body)["error"]
    assert f"more than the {CAP:,} allowed" in error and error.startswith("quota: the upload is")
    # Its spool is gone with it.
    assert not any((referee.db.parent / "versions" / "incoming").iterdir())
    # A declared size over the cap is refused before a byte of the body is read.
    declared = visitor.send(
        "POST",
        "/desk/upload",
        b"",
        {"x-csrf-token": csrf, "content-length": str(10 * 1024**3)},
    )
    assert declared.status == 413
    assert f"is {10 * 1024**3:,} bytes" in declared.json()["error"]


def test_an_upload_that_stops_sending_is_ended_and_its_spool_removed(referee: Referee) -> None:
    """One that sends a chunk and then nothing is answered 408 after the contest's upload idle
    time (30 s), not held for ever."""
    visitor = _signed_in(referee, referee.tokens["bob"])
    csrf = visitor.csrf()
    where = urlsplit(referee.web)
    head = (
        f"POST /desk/upload HTTP/1.1\r\nHost: {where.netloc}\r\nOrigin: {referee.web}\r\n"
        f"Cookie: croupier_desk={visitor.cookie}\r\nX-CSRF-Token: {csrf}\r\n"
        "Transfer-Encoding: chunked\r\n\r\n4\r\nabcd\r\n"
    )
    started = time.monotonic()
    with socket.create_connection((where.hostname, where.port), timeout=120) as connection:
        connection.sendall(head.encode())
        answer = _response(connection)
    took = time.monotonic() - started
    assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
    assert 29 < took < 90, took
    assert b"the upload sent nothing for 30 s" in answer
    assert not any((referee.db.parent / "versions" / "incoming").iterdir())


def test_refusals_are_the_cli_s_words(referee: Referee, tmp_path: Path) -> None:
    visitor = _signed_in(referee, referee.tokens["bob"])
    junk = visitor.upload(b"this is no archive\n" * 10)
    other_game = tmp_path / "other"
    other_game.mkdir()
    (other_game / "bot.toml").write_text('games = ["xeri"]\nrun = "python3 bot.py"\n')
    (other_game / "bot.py").write_text("print('hi')\n")
    packed = tmp_path / "other.tar.gz"
    pack(other_game, packed)
    wrong = visitor.upload(packed.read_bytes())
    assert junk.status == 400 and wrong.status == 400, (junk.body, wrong.body)
    submitted = referee.cli("submit", str(other_game), token=referee.tokens["bob"])
    assert submitted.returncode != 0
    said = submitted.stdout + submitted.stderr
    assert wrong.json()["error"] in " ".join(said.split()), (wrong.json(), said)
    assert "this contest runs ['xix']" in wrong.json()["error"]


def test_the_hourly_quota_is_refused_in_the_cli_s_words(tmp_path: Path, archive: bytes) -> None:
    with running(tmp_path, web=True, extra=("--submissions-per-hour", "1")) as referee:
        visitor = _signed_in(referee, referee.tokens["alice"])
        assert visitor.upload(archive).status == 200
        refused = visitor.upload(archive)
        assert refused.status == 429
        error = refused.json()["error"]
        assert error.startswith("quota: at most 1 submissions an hour per account")
        submitted = referee.cli("submit", str(EXAMPLE), token=referee.tokens["alice"])
        assert submitted.returncode != 0
        said = " ".join((submitted.stdout + submitted.stderr).split())
        assert "quota: at most 1 submissions an hour per account" in said


def test_another_team_and_an_anonymous_visitor_see_none_of_a_team_s_own(
    referee: Referee, archive: bytes, tmp_path: Path
) -> None:
    alice = _signed_in(referee, referee.tokens["alice"])
    uploaded = alice.upload(archive)
    assert uploaded.status == 200, uploaded.body
    version = uploaded.json()["version"]["id"]
    events = alice.send("GET", "/desk/events?after=0").json()["events"]
    assert any(e["version"] == version and e["kind"] == "received" for e in events)
    # Two network bots play a match: alice's and bob's, listed on their desks only.
    network_matches(referee, alice, 1)
    # The network bots' match: by then alice's upload may have qualified and played bob's bot
    # too (a busy machine's first network match comes late), and that match has hosted output.
    networked = [m for m in alice.data().json()["matches"] if not any("@" in b for b in m["bots"])]
    match = networked[-1]["match"]
    accounts = TokenStore(referee.db, create=False)
    erin = accounts.add("erin")  # a team that played nothing and uploaded nothing
    bob = _signed_in(referee, referee.tokens["bob"])
    other = _signed_in(referee, erin)
    for visitor in (bob, other):
        data = visitor.data().json()
        assert version not in json.dumps(data)
        seen = visitor.send("GET", "/desk/events?after=0").json()["events"]
        assert all(e["version"] != version for e in seen)
        assert visitor.send("GET", f"/desk/versions/{version}/log").status == 404
        assert visitor.send("GET", f"/desk/versions/{version[:12]}/log").status == 404
    assert other.data().json()["matches"] == []
    assert alice.send("GET", f"/desk/versions/{version}/log").status == 200
    # A network bot's match has no hosted output: none for anyone, in the same words.
    assert alice.send("GET", f"/desk/matches/{match}/log").status == 404
    _seat_replays_are_each_team_s_own(referee, match, (alice, bob, other), tmp_path)
    anonymous = Visitor(referee.web)
    for path in (
        "/desk/data",
        "/desk/events?after=0",
        f"/desk/versions/{version}/log",
        f"/desk/matches/{match}/log",
        f"/desk/replay/{match}",
    ):
        answer = anonymous.send("GET", path)
        assert answer.status == 401 and version.encode() not in answer.body
    page = anonymous.send("GET", "/desk")
    assert page.status == 200 and b"alice" not in page.body and version.encode() not in page.body
    assert anonymous.upload(archive, "").status == 401


def _seat_replays_are_each_team_s_own(
    referee: Referee, match: str, visitors: tuple[Visitor, Visitor, Visitor], tmp_path: Path
) -> None:
    """Issue 46.4: alice's and bob's seat replays of their match, each from its own seat and
    with no card that seat could not see (the record, read from the site, says which);
    another team's, another seat's and an unknown match's are refused in the same words."""
    alice, bob, other = visitors
    record = tmp_path / "match.jsonl"
    record.write_bytes(Visitor(referee.web).send("GET", f"/records/{match}.jsonl").body)
    timeline = load(record)
    seats = {}
    for name, visitor in (("alice", alice), ("bob", bob)):
        answer = visitor.send("GET", f"/desk/replay/{match}")
        assert answer.status == 200, answer.body
        assert answer.headers["content-type"].startswith("text/html")
        assert answer.headers["cache-control"] == "no-store"
        assert (
            "unsafe-inline" not in answer.headers["content-security-policy"].split("style-src")[0]
        )
        text = answer.body.decode()
        # No inline script: the viewer's code from the site's files, the match as data.
        for tag in re.findall(r"<script[^>]*>", text):
            assert " src=" in tag or 'type="application/gzip+base64"' in tag, tag
        data = page_data(text)
        # The record names each seat's bot as its account and its own name: `alice (random)`.
        (seats[name],) = [s for s, who in enumerate(timeline.names) if who.startswith(name)]
        assert data["views"] == [f"seat {seats[name]} ({timeline.names[seats[name]]})"]
        assert data["log_seat"] is None  # a network bot: no hosted output
        assert unseen_faces(data, timeline, seats[name]) == []
    refused = other.send("GET", f"/desk/replay/{match}")
    assert refused.status == 404 and b"seat" not in refused.body
    assert bob.send("GET", f"/desk/replay/{match}?seat={seats['alice']}").body == refused.body
    unknown = alice.send("GET", "/desk/replay/no-such-match")
    assert unknown.status == 404
    assert unknown.json()["error"] == refused.json()["error"].replace(match, "no-such-match")
    assert alice.send("GET", f"/desk/replay/{match}?seat=zero").status == 400
    # A record changed since its commit is not replayed as the match's (issue 24.1).
    with contextlib.closing(sqlite3.connect(referee.db)) as db:
        (kept,) = db.execute("SELECT record FROM matches WHERE match_id = ?", (match,)).fetchone()
    kept_path = Path(kept) if Path(kept).is_absolute() else referee.db.parent / kept
    original = kept_path.read_bytes()
    kept_path.write_bytes(original.replace(b"alice", b"alicf", 1))
    try:
        assert alice.send("GET", f"/desk/replay/{match}").body == unknown.body.replace(
            b"no-such-match", match.encode()
        )
    finally:
        kept_path.write_bytes(original)
    assert alice.send("GET", f"/desk/replay/{match}").status == 200


def test_a_contest_database_made_before_sessions_opens_and_signs_in(tmp_path: Path) -> None:
    """A contest database of the schema before the desk (teams, members, the contest's book;
    no sessions table), as today's referee made it, is served: its tokens sign in."""
    db = tmp_path / "contest.db"
    tokens = {"alice": TokenStore(db).add("alice"), "bob": TokenStore(db).add("bob")}
    xix = get_game("xix")
    ContestBook(db, xix, parse_options(xix, {})).close(reveal=False)
    with contextlib.closing(sqlite3.connect(db)) as old:
        tables = {name for (name,) in old.execute("SELECT name FROM sqlite_master")}
    assert "sessions" not in tables and "teams" in tables
    with running(tmp_path, web=True, tokens=tokens) as referee:
        visitor = _signed_in(referee, tokens["alice"])
        assert visitor.data().json()["team"] == "alice"
    assert SessionStore(TokenStore(db, create=False)).member(visitor.cookie) is not None


@pytest.mark.usefixtures("bubblewrap")
def test_a_challenge_s_matches_replay_from_each_team_s_seat_with_its_own_lines_alone(
    tmp_path: Path,
) -> None:
    """Issue 45.4: alice challenges bob (unranked, 2 deals: in no snapshot of the contest).
    Each of the two teams lists the challenge's matches on its desk, each with its own seats and
    result, and opens each match's seat replay from its own seat with its own version's lines
    by decision and none of the other's, and no card its seat could not see. A third team, an
    anonymous visitor, another seat and a record changed since its commit are refused as for
    any contest match."""
    with challenged(tmp_path) as referee:
        tokens = referee.tokens
        alice, bob, erin = (_signed_in(referee, tokens[name]) for name in ("alice", "bob", "erin"))
        (challenge,) = alice.data().json()["challenges"]
        assert challenge["state"] == "ended" and not challenge["ranked"], challenge
        assert bob.data().json()["challenges"] == [challenge]
        assert erin.data().json()["challenges"] == []
        listing = f"/desk/challenges/{challenge['id']}/matches"
        theirs = {}
        for name, visitor in (("alice", alice), ("bob", bob)):
            answer = visitor.send("GET", listing)
            assert answer.status == 200 and answer.headers["cache-control"] == "no-store"
            theirs[name] = answer.json()["matches"]
        places = [(m["deal"], m["rotation"]) for m in theirs["alice"]]
        assert places == [(1, 0), (1, 1), (2, 0), (2, 1)], theirs
        for ours, other in zip(theirs["alice"], theirs["bob"], strict=True):
            assert ours["match"] == other["match"] and ours["match"].startswith("challenge-")
            assert ours["seats"] + other["seats"] in ([0, 1], [1, 0]), (ours, other)
            assert ours["score"] == other["score"][::-1]
            mirrored = {"won": "lost", "lost": "won", "drew": "drew"}
            assert mirrored[ours["outcome"]] == other["outcome"]
        # A team in neither side, and an unknown challenge: refused alike; anonymous: 401.
        refused = erin.send("GET", listing)
        assert refused.status == 404
        unknown = alice.send("GET", "/desk/challenges/999/matches")
        assert unknown.json()["error"] == refused.json()["error"].replace(
            f"'{challenge['id']}'", "'999'"
        )
        assert Visitor(referee.web).send("GET", listing).status == 401
        for ours, other in zip(theirs["alice"], theirs["bob"], strict=True):
            _a_challenge_match_s_seat_replays(referee, ours, other, (alice, bob, erin))


def _a_challenge_match_s_seat_replays(
    referee: Referee,
    ours: dict[str, Any],
    other: dict[str, Any],
    visitors: tuple[Visitor, Visitor, Visitor],
) -> None:
    """One challenge match's seat replays: alice's and bob's each from its seat with its own
    lines alone; erin's, another seat's, an anonymous visitor's and a changed record's refused
    (a match of no team answers in the same words)."""
    alice, bob, erin = visitors
    match = ours["match"]
    record = referee.challenge_record(match)
    timeline = load(record)
    for name, visitor, listed, says, never in (
        ("alice", alice, ours, "alice says", "bob says"),
        ("bob", bob, other, "bob says", "alice says"),
    ):
        assert listed["replay"] == f"/desk/replay/{match}"
        answer = visitor.send("GET", listed["replay"])
        assert answer.status == 200, answer.body
        assert answer.headers["cache-control"] == "no-store"
        data = page_data(answer.body.decode())
        (seat,) = listed["seats"]
        assert timeline.names[seat].startswith(f"{name}@"), timeline.names
        assert data["views"] == [f"seat {seat} ({timeline.names[seat]})"]
        assert data["challenge"].startswith("challenge ") and data["challenge"].endswith(
            "(unranked)"
        )
        assert data["log_seat"] == seat, name
        lines = [line for step in data["steps"] for line in step.get("log", [])]
        assert any(line.startswith(says) for line in lines), (name, lines)
        # The other team's lines are nowhere: not beside a step, not in the page.
        assert never not in json.dumps(data) and never.encode() not in answer.body
        assert unseen_faces(data, timeline, seat) == []
        log = visitor.send("GET", f"/desk/matches/{match}/log").json()["log"]
        assert says in log and never not in log
    nobody = alice.send("GET", "/desk/replay/no-such-match")
    assert nobody.status == 404
    refusal = nobody.body.replace(b"no-such-match", match.encode())
    assert erin.send("GET", f"/desk/replay/{match}").body == refusal
    assert bob.send("GET", f"/desk/replay/{match}?seat={ours['seats'][0]}").body == refusal
    assert Visitor(referee.web).send("GET", f"/desk/replay/{match}").status == 401
    # A record changed since its commit is refused as a contest match's is (issue 24.1).
    original = record.read_bytes()
    record.write_bytes(original.replace(b"alice", b"alicf", 1))
    try:
        assert alice.send("GET", f"/desk/replay/{match}").body == refusal
    finally:
        record.write_bytes(original)
    assert alice.send("GET", f"/desk/replay/{match}").status == 200


@pytest.mark.usefixtures("bubblewrap")
def test_a_challenge_of_two_of_a_team_s_versions_shows_each_seat_its_own_version_s_lines(
    tmp_path: Path,
) -> None:
    """Issue 45.4: alice's new version challenges her old one. Both seats are hers; each seat's
    replay has the lines of the version in that seat and none of the other's."""
    db = tmp_path / "contest.db"
    tokens = {"alice": TokenStore(db).add("alice")}
    store = VersionStore(beside(db))
    try:
        old = add_bot(store, "alice", 0.6, "alice-old", says="old says")
        add_bot(store, "alice", 0.0, "alice-new", says="new says")
    finally:
        store.close()
    with running(tmp_path, tokens=tokens, web=True) as referee:
        asked = referee.cli(
            "challenge", f"alice@{old[:12]}", "--deals", "2", "--wait", token=tokens["alice"]
        )
        assert asked.returncode != 2, asked.stdout + asked.stderr
        alice = _signed_in(referee, tokens["alice"])
        (challenge,) = alice.data().json()["challenges"]
        first = alice.send("GET", f"/desk/challenges/{challenge['id']}/matches").json()["matches"][
            0
        ]
        assert len(first["seats"]) == 1  # the challenger's side, the team's result
        for seat in (0, 1):
            answer = alice.send("GET", f"{first['replay']}?seat={seat}")
            assert answer.status == 200, answer.body
            data = page_data(answer.body.decode())
            said, never = (
                ("old says", "new says")
                if f"@{old[:12]}" in first["bots"][seat]
                else ("new says", "old says")
            )
            lines = [line for step in data["steps"] for line in step.get("log", [])]
            assert data["log_seat"] == seat and any(line.startswith(said) for line in lines)
            assert never not in json.dumps(data), (seat, lines)
