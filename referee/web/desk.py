"""The author's desk on the contest site (issue 46.3): /desk, a page of one's own.

A member signs in with their token (POST /desk/sign-in, a form: never in a URL) and gets a
session cookie instead (referee.contest.sessions): HttpOnly, SameSite=Strict, Path=/desk, and
Secure whenever the site is served over HTTPS (a site on plain HTTP, which only loopback or
`--insecure` allows, would otherwise never get it back). The token is never stored by the site,
echoed or put in a page. Signed in, the page (assets/desk.html and desk.js) reads the team's
own: its members, its versions with their status, build log and qualification report, its
challenges with their played matches (`/desk/challenges/N/matches`, issue 45.4), its matches
with the team's own output of each, a seat replay of each of them and of its challenges'
matches (referee.web.desk_replay) and that seat's review, asked for and run off the request
(referee.web.desk_review, issue 48.2), and a feed of its events, the
same as FollowEvents sends, polled from /desk/events. Every request checks the session again,
so a removed member's or a rotated token's session is refused at its next request.

Every POST must come from the site's own pages (its Origin, or failing that its Referer, is
the site's; the desk's pages send `Referrer-Policy: same-origin`, since a no-referrer page
makes chromium send `Origin: null`), and, once signed in, carry the session's CSRF token: the
`csrf` field of a form, or the `X-CSRF-Token` header of the page's upload. An upload is the
archive's bytes as the request body, fed as they arrive to the same `Upload` as `croupier
submit`'s (referee.hosted.submitting): the same quotas, size cap and archive checks, refused in
the same words; past the cap it is refused with 413 having read about the cap and no more, and
nothing is held in memory. An upload that sends nothing for the contest's upload idle time, or
has not ended within its upload time, is ended (408).

An anonymous visitor, and any other team, gets none of it: every answer is the signed-in
team's alone, found by the session, never by a name in the request.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs

import trio
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from referee.challenges.book import read_challenges, read_match, read_matches
from referee.contest.sessions import (
    SESSION_SECONDS,
    SessionStore,
    SignInError,
    csrf_matches,
    csrf_token,
)
from referee.contest.tokens import Member
from referee.errors import (
    ConflictError,
    CroupierError,
    ForbiddenError,
    FrozenError,
    NotFoundError,
    QuotaError,
)
from referee.hosted.store import Event, Moment, Version, VersionStatus
from referee.hosted.submitting import TooLargeError
from referee.review.budgets import DEFAULT_BUDGET
from referee.web.api import newest_first, summary
from referee.web.challenges import challenge_json, challenge_match_json
from referee.web.desk_replay import held_seat, no_match, seat_replay
from referee.web.desk_review import Reviews, status_page
from referee.web.snapshot import Snapshots, intact

if TYPE_CHECKING:
    from referee.contest.hosted_wing import HostedWing

#: The folder beside the contest's database where its reviews are kept (issue 48.2).
REVIEWS = "reviews"
#: The session cookie's name.
COOKIE = "croupier_desk"
#: Where the desk lives: its cookie is sent there and nowhere else on the site.
DESK = "/desk"
#: The most bytes a form of the desk (sign-in, sign-out) may post.
FORM_BYTES = 4096
#: The team's matches the desk lists, newest first.
MATCHES_SHOWN = 50
#: Each error's class, by the HTTP status the desk answers it with (the first that fits).
_STATUS: tuple[tuple[type[CroupierError], int], ...] = (
    (TooLargeError, 413),
    (QuotaError, 429),
    (FrozenError, 403),
    (ForbiddenError, 403),
    (NotFoundError, 404),
    (ConflictError, 409),
    (CroupierError, 400),
)
#: Why a POST from anywhere but the site's own pages is refused.
CROSS_SITE = "refused: this form was not posted from this site's own desk page"
#: Why a signed-in POST without its session's CSRF token is refused.
NO_CSRF = "refused: the form's CSRF token is missing or wrong (reload the desk page)"
#: What an anonymous visitor's request for the desk's data is told.
SIGNED_OUT = "not signed in: sign in at /desk with your member token"


@dataclass(frozen=True, slots=True)
class _Signed:
    """A signed-in request's session id and member."""

    session: str
    member: Member


class _Refusal(Exception):
    """A request the desk answers with `status` and this message (as JSON)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def _refused(error: CroupierError) -> JSONResponse:
    """A store's or an upload's refusal, in its own words, with its HTTP status."""
    status = next(status for kind, status in _STATUS if isinstance(error, kind))
    return _private({"error": str(error)}, status)


def _private(data: Any, status: int = 200) -> JSONResponse:
    """A team's own answer: never kept by a cache."""
    return JSONResponse(data, status_code=status, headers={"cache-control": "no-store"})


def _answering(
    handler: Callable[[DeskSite, Request], Awaitable[Response]],
) -> Callable[[DeskSite, Request], Awaitable[Response]]:
    """A route of the desk whose refusals (_Refusal, a store's or an upload's CroupierError)
    are answered as JSON in their own words, with their HTTP status."""

    @functools.wraps(handler)
    async def answer(desk: DeskSite, request: Request) -> Response:
        try:
            return await handler(desk, request)
        except _Refusal as refusal:
            return _private({"error": str(refusal)}, refusal.status)
        except CroupierError as error:
            return _refused(error)

    return answer


class DeskSite:
    """The desk's routes over a contest's hosted wing (its accounts and submissions)."""

    def __init__(
        self,
        wing: HostedWing,
        snapshots: Snapshots,
        review_budget: int = DEFAULT_BUDGET,
    ) -> None:
        self.wing = wing
        self.reviews = Reviews(wing.accounts.path.parent / REVIEWS, review_budget)
        self.submitting = wing.desk
        self.sessions = SessionStore(wing.accounts)
        self.snapshots = snapshots
        settings = wing.config.settings
        self.idle_seconds = settings.upload_idle_seconds
        self.total_seconds = settings.upload_seconds
        self.max_members = settings.max_team_size

    def routes(self, page: Callable[[Request], Awaitable[Response]]) -> list[Route]:
        """The desk's routes, `page` serving its HTML (the same for everyone: it holds no data)."""
        return [
            Route(DESK, page),
            Route(f"{DESK}/data", self.data),
            Route(f"{DESK}/events", self.events),
            Route(f"{DESK}/versions/{{version}}/log", self.version_log),
            Route(f"{DESK}/matches/{{match}}/log", self.match_log),
            Route(f"{DESK}/replay/{{match}}", self.seat_replay),
            Route(f"{DESK}/review/{{match}}", self.review_page),
            Route(f"{DESK}/review/{{match}}", self.ask_review, methods=["POST"]),
            Route(f"{DESK}/challenges/{{challenge}}/matches", self.challenge_matches),
            Route(f"{DESK}/sign-in", self.sign_in, methods=["POST"]),
            Route(f"{DESK}/sign-out", self.sign_out, methods=["POST"]),
            Route(f"{DESK}/upload", self.upload, methods=["POST"]),
        ]

    async def run(self) -> None:
        """Run the reviews the teams ask for, until cancelled (referee.web.desk_review)."""
        await self.reviews.run()

    # --- who is asking ---------------------------------------------------------------------------

    async def _signed(self, request: Request) -> _Signed:
        """The request's session and member; _Refusal 401 without a working one."""
        session = request.cookies.get(COOKIE, "")
        member = await trio.to_thread.run_sync(self.sessions.member, session) if session else None
        if member is None:
            raise _Refusal(401, SIGNED_OUT)
        return _Signed(session, member)

    def _check_origin(self, request: Request) -> None:
        """_Refusal 403 for a POST that did not come from the site's own pages."""
        own = f"{request.url.scheme}://{request.headers.get('host', '')}"
        origin = request.headers.get("origin")
        referer = request.headers.get("referer")
        if origin is not None:
            if origin != own:
                raise _Refusal(403, CROSS_SITE)
        elif referer is None or not referer.startswith(own + "/"):
            raise _Refusal(403, CROSS_SITE)

    async def _posted(self, request: Request, csrf: str) -> _Signed:
        """A signed-in POST of the site's own pages that carries its session's CSRF token
        (`csrf`, as sent); _Refusal 403 (or 401) otherwise."""
        self._check_origin(request)
        signed = await self._signed(request)
        if not csrf_matches(signed.session, csrf):
            raise _Refusal(403, NO_CSRF)
        return signed

    # --- signing in and out ----------------------------------------------------------------------

    @_answering
    async def sign_in(self, request: Request) -> Response:
        """A member's token (the form's `token`) for a session cookie, then the desk page."""
        self._check_origin(request)
        token = (await _form(request)).get("token", "").strip()
        try:
            session, _ = await trio.to_thread.run_sync(self.sessions.sign_in, token)
        except SignInError as error:
            raise _Refusal(401, f"sign-in refused: {error}") from None
        response = RedirectResponse(DESK, status_code=303)
        response.set_cookie(
            COOKIE,
            session,
            max_age=SESSION_SECONDS,
            path=DESK,
            secure=request.url.scheme == "https",
            httponly=True,
            samesite="strict",
        )
        return response

    @_answering
    async def sign_out(self, request: Request) -> Response:
        """End the session (the form's `csrf` must be its token): its cookie signs no one in."""
        signed = await self._posted(request, (await _form(request)).get("csrf", ""))
        await trio.to_thread.run_sync(self.sessions.sign_out, signed.session)
        response = RedirectResponse(DESK, status_code=303)
        response.delete_cookie(COOKIE, path=DESK, httponly=True, samesite="strict")
        return response

    # --- the team's own --------------------------------------------------------------------------

    @_answering
    async def data(self, request: Request) -> Response:
        """Everything the desk page shows of the team, and the session's CSRF token."""
        signed = await self._signed(request)
        team = signed.member.team
        submitting = self.submitting

        def read() -> tuple[list[Member], list[Version], Version | None, list[dict[str, Any]]]:
            members = self.wing.accounts.team_members(team)
            versions = submitting.versions(team)
            active = submitting.active(team)
            database = self.wing.accounts.path
            challenges = [
                challenge_json(c)
                for c in read_challenges(database)
                if team in (c.account, c.opponent)
            ]
            return members, versions, active, challenges

        members, versions, active, challenges = await trio.to_thread.run_sync(read)
        contest = await self.snapshots.reading()
        played = newest_first(contest, team)[:MATCHES_SHOWN] if contest is not None else []
        quotas = submitting.quotas
        return _private(
            {
                "team": team,
                "you": signed.member.name,
                "leader": signed.member.leader,
                "members": [{"name": m.name, "leader": m.leader} for m in members],
                "max_members": self.max_members,
                "versions": [_version_json(v, active) for v in reversed(versions)],
                "challenges": challenges,
                "matches": [summary(self.snapshots, p) for p in played],
                "quotas": {
                    "upload_bytes": quotas.upload_bytes,
                    "submissions_per_hour": quotas.submissions_per_hour,
                    "versions_kept": quotas.versions_kept,
                },
                "frozen": submitting.frozen,
                "csrf": csrf_token(signed.session),
            }
        )

    @_answering
    async def events(self, request: Request) -> Response:
        """The team's events after `?after=N` (0: from the first), oldest first, a page at a
        time: what FollowEvents sends, a failed build's with its log's last lines."""
        signed = await self._signed(request)
        after_text = request.query_params.get("after", "0")
        if not after_text.isascii() or not after_text.isdigit() or len(after_text) > 18:
            raise _Refusal(400, f"after must be a whole number, got {after_text!r}")
        team = signed.member.team
        submitting = self.submitting

        def read() -> list[dict[str, Any]]:
            return [
                _event_json(e, submitting.log_tail(team, e.version) if _failed(e) else [])
                for e in submitting.events(team, int(after_text))
            ]

        return _private({"events": await trio.to_thread.run_sync(read)})

    @_answering
    async def version_log(self, request: Request) -> Response:
        """One of the team's versions' build log and qualification report (404 for another's)."""
        return await self._own(request, self._version_log, request.path_params["version"])

    def _version_log(self, team: str, id: str) -> dict[str, Any]:
        found = self.submitting.version(team, id)
        return {
            "id": found.id,
            "log": self.submitting.log(team, found.id),
            "report": self.submitting.qualification_report(team, found.id),
        }

    @_answering
    async def match_log(self, request: Request) -> Response:
        """What the team's version printed in one of its matches (404 for any other match)."""
        return await self._own(request, self._match_log, request.path_params["match"])

    def _match_log(self, team: str, match_id: str) -> dict[str, Any]:
        version, log = self.submitting.match_log(team, match_id)
        return {"match": match_id, "version": version, "log": log}

    @_answering
    async def challenge_matches(self, request: Request) -> Response:
        """The played matches of one of the team's challenges (asked or asked of it), each with
        the team's result and its seat replay (issue 45.4); 404 for any other challenge, in the
        same words as for none."""
        signed = await self._signed(request)
        text = request.path_params["challenge"]
        if not (text.isascii() and text.isdigit() and len(text) <= 18):
            raise _Refusal(404, _no_challenge(text))
        team, database = signed.member.team, self.wing.accounts.path

        def read() -> list[dict[str, Any]]:
            found = next((c for c in read_challenges(database) if c.id == int(text)), None)
            if found is None or team not in (found.account, found.opponent):
                raise _Refusal(404, _no_challenge(text))
            return [
                challenge_match_json(found, m, team)
                for m in read_matches(database, found)
                if m.rows is not None
            ]

        return _private({"challenge": int(text), "matches": await trio.to_thread.run_sync(read)})

    @_answering
    async def seat_replay(self, request: Request) -> Response:
        """One of the team's finished matches, a contest's or a challenge's, replayed from its
        seat (`?seat=N`, one it held), its version's lines beside its decisions
        (referee.web.desk_replay); 404 for any other match or seat, or a record that changed
        since its commit."""
        signed = await self._signed(request)
        match_id = request.path_params["match"]
        seat = _seat(request.query_params.get("seat"))
        found = await self._committed(match_id, signed.member.team)
        if found is None:
            raise no_match(match_id)
        record, bots = found
        team, submitting = signed.member.team, self.submitting
        try:
            page = await trio.to_thread.run_sync(
                seat_replay, record, match_id, bots, team, seat, submitting
            )
        except NotFoundError:
            raise
        except CroupierError:  # its reason names the site's files: not for a visitor
            raise _Refusal(500, "cannot show this match") from None
        return HTMLResponse(page, headers={"cache-control": "no-store"})

    @_answering
    async def review_page(self, request: Request) -> Response:
        """The review of one of the team's seats (`?seat=N`, as the seat replay's) of one of
        its matches: the seat replay with the review's marks once it is made, else its state
        (waiting, running, failed) or a form that asks for it; 404 as for the seat replay."""
        signed = await self._signed(request)
        match_id = request.path_params["match"]
        team = signed.member.team
        asked = request.query_params.get("seat")
        record, bots, seat = await self._reviewable(match_id, team, asked)
        marks = await trio.to_thread.run_sync(self.reviews.marks, self.reviews.key(match_id, seat))
        if marks is None:
            return self._review_state(match_id, seat, signed)
        try:
            page = await trio.to_thread.run_sync(
                lambda: seat_replay(record, match_id, bots, team, seat, self.submitting, marks)
            )
        except CroupierError:  # its reason names the site's files: not for a visitor
            raise _Refusal(500, "cannot show this match") from None
        return HTMLResponse(page, headers={"cache-control": "no-store"})

    @_answering
    async def ask_review(self, request: Request) -> Response:
        """Ask for the review of one of the team's seats (the form's `seat`) of one of its
        matches, at the site's budget; then its page. Refused (429) past one review at a time
        per team or the site's queue, in the page; 404 as for the seat replay."""
        form = await _form(request)
        signed = await self._posted(request, form.get("csrf", ""))
        match_id = request.path_params["match"]
        record, _, seat = await self._reviewable(match_id, signed.member.team, form.get("seat"))
        key = self.reviews.key(match_id, seat)
        if await trio.to_thread.run_sync(self.reviews.marks, key) is None:
            try:
                self.reviews.ask(signed.member.team, key, record)
            except QuotaError as error:
                return self._review_state(match_id, seat, signed, str(error), 429)
        return RedirectResponse(f"{DESK}/review/{match_id}?seat={seat}", status_code=303)

    async def _reviewable(
        self, match_id: str, team: str, asked: str | None
    ) -> tuple[Path, tuple[str, ...], int]:
        """The committed record of one of the team's matches, its seats' names and the seat
        of it `asked` for (as `?seat=N` or a form's field says it; None: the team's first);
        NotFoundError as the seat replay's for any other."""
        seat = _seat(asked)
        found = await self._committed(match_id, team)
        if found is None:
            raise no_match(match_id)
        record, bots = found
        return record, bots, held_seat(match_id, bots, team, seat)

    def _review_state(
        self, match_id: str, seat: int, signed: _Signed, said: str = "", status: int = 200
    ) -> HTMLResponse:
        key = self.reviews.key(match_id, seat)
        page = status_page(
            match_id,
            seat,
            self.reviews.job(key),
            self.reviews.ahead(key),
            trio.current_time(),
            csrf_token(signed.session),
            said,
        )
        return HTMLResponse(page, status_code=status, headers={"cache-control": "no-store"})

    async def _committed(self, match_id: str, team: str) -> tuple[Path, tuple[str, ...]] | None:
        """The record of `match_id` as committed (checked against its SHA-256) and the names
        of its seats: a challenge's match of one of the team's challenges, by the challenge
        book (an unranked one is in no snapshot), else the contest's, by the snapshot; None
        for any other match."""
        database = self.wing.accounts.path
        challenged = await trio.to_thread.run_sync(read_match, database, match_id)
        if challenged is not None:
            challenge, match = challenged
            record, digest = match.record, match.record_sha256
            if team not in (challenge.account, challenge.opponent) or record is None:
                return None
            if digest is None or await trio.to_thread.run_sync(_sha256, record) != digest:
                return None
            return record, match.match.bots
        played = await self.snapshots.committed(match_id)
        contest = self.snapshots.contest
        result = contest.results.get(played.number) if played and contest else None
        if played is None or result is None or await intact(played) is None:
            return None
        return played.record, result.match.bots

    async def _own(
        self, request: Request, read: Callable[[str, str], dict[str, Any]], name: str
    ) -> Response:
        signed = await self._signed(request)
        return _private(await trio.to_thread.run_sync(read, signed.member.team, name))

    # --- uploading -------------------------------------------------------------------------------

    @_answering
    async def upload(self, request: Request) -> Response:
        """A version's archive as the request's body, with the session's CSRF token in the
        X-CSRF-Token header: stored as `croupier submit` stores it, or refused in its words."""
        signed = await self._posted(request, request.headers.get("x-csrf-token", ""))
        declared = request.headers.get("content-length", "0")
        size = int(declared) if declared.isascii() and declared.isdigit() else 0
        team = signed.member.team
        upload = await trio.to_thread.run_sync(self.submitting.receive, team, size)
        try:
            with upload:
                with trio.fail_after(self.total_seconds):
                    async for chunk in _chunks(request.stream(), self.idle_seconds):
                        upload.add(chunk)
                version = await trio.to_thread.run_sync(upload.submit)
        except trio.TooSlowError:
            raise _Refusal(408, _too_slow(self.idle_seconds, self.total_seconds)) from None
        except ClientDisconnect:  # gone: its spool is removed, nobody reads an answer
            return Response(status_code=400)
        active = await trio.to_thread.run_sync(self.submitting.active, team)
        return _private({"version": _version_json(version, active), "new": version.new})


def _seat(text: str | None) -> int | None:
    """A seat asked for by its number; None if not asked; _Refusal 400 for anything else."""
    if text is None:
        return None
    if not (text.isascii() and text.isdigit() and len(text) <= 6):
        raise _Refusal(400, f"seat must be a seat's number, got {text!r}")
    return int(text)


def _no_challenge(id: str) -> str:
    return f"no challenge {id!r} of your team"


def _sha256(path: Path) -> str | None:
    """The file's SHA-256, or None if it cannot be read."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def _too_slow(idle: float, total: float) -> str:
    return (
        f"the upload sent nothing for {idle:g} s, or did not end within {total:g} s: send the "
        "archive at once (a smaller one, or over a faster link)"
    )


async def _chunks(stream: AsyncIterator[bytes], idle: float) -> AsyncIterator[bytes]:
    """The body's chunks as they arrive; trio.TooSlowError once none comes for `idle` s."""
    while True:
        with trio.fail_after(idle):
            chunk = await anext(aiter(stream), None)
        if chunk is None:
            return
        if chunk:
            yield chunk


async def _form(request: Request) -> dict[str, str]:
    """A small urlencoded form's fields (each's first value); _Refusal 413 past FORM_BYTES."""
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > FORM_BYTES:
            raise _Refusal(413, f"a desk form is at most {FORM_BYTES} bytes")
    fields = parse_qs(body.decode(errors="replace"), keep_blank_values=True)
    return {name: values[0] for name, values in fields.items()}


def _failed(event: Event) -> bool:
    return event.kind is VersionStatus.BUILD_FAILED


def _event_json(event: Event, log_tail: list[str]) -> dict[str, Any]:
    """An event as the desk's feed shows it (FollowEvents' fields, by the store's names)."""
    return {
        "id": event.id,
        "version": event.version,
        "kind": str(event.kind),
        "reason": event.reason,
        "match": event.match,
        "challenge": event.challenge,
        "at": event.at,
        "log_tail": log_tail,
        "moment": isinstance(event.kind, Moment),
    }


def _version_json(version: Version, active: Version | None) -> dict[str, Any]:
    """One of the team's versions, with its whole reason (the team's own, unlike the public
    page's)."""
    return {
        "id": version.id,
        "status": str(version.status),
        "reason": version.reason,
        "submitted_at": version.submitted_at,
        "updated_at": version.updated_at,
        "active": active is not None and active.id == version.id,
    }
