"""Connect a bot to a referee and play until the referee ends the session.

`run(bot)` is all most bots need: it reads CROUPIER_ADDRESS and CROUPIER_TOKEN (and
CROUPIER_SESSIONS, how many matches to play at once) from the environment, opens the sessions on
grpc.aio, and calls the bot's `act` and hooks. `run_async` is the same for asyncio programs.
For a referee that speaks TLS, set CROUPIER_CA_FILE to its CA certificate (PEM), or
CROUPIER_TLS=1 to trust the system's roots. SIGTERM stops the bot after the match in hand.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import math
import os
import signal
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TypeAlias

import grpc

from croupier.bot import Bot
from croupier.decision_log import Decision, current
from croupier.tls_check import tls_mismatch
from croupier.v1 import referee_pb2, referee_pb2_grpc

log = logging.getLogger("croupier")

#: The session protocol this SDK speaks (Hello.protocol_version).
PROTOCOL_VERSION = 2

#: Time kept back from each deadline for the network and the referee's own measurement.
DEFAULT_SLACK_MS = 50

#: How long a bot keeps trying to reach the referee after losing its session (seconds), as the
#: Node SDK's DEFAULT_RECONNECT_MS.
DEFAULT_RECONNECT_SECONDS = 30.0

#: Status codes after which reconnecting cannot help: the bot must be fixed or reconfigured.
FATAL_CODES = frozenset(
    {
        grpc.StatusCode.UNAUTHENTICATED,
        grpc.StatusCode.PERMISSION_DENIED,
        grpc.StatusCode.INVALID_ARGUMENT,
        grpc.StatusCode.FAILED_PRECONDITION,
        grpc.StatusCode.UNIMPLEMENTED,
        grpc.StatusCode.RESOURCE_EXHAUSTED,
    }
)

BotFactory: TypeAlias = Callable[[], Bot]


class ConfigurationError(Exception):
    """The bot was started without an address or a token."""


def _setting(value: str | None, variable: str) -> str:
    found = value or os.environ.get(variable)
    if not found:
        raise ConfigurationError(
            f"no {variable.lower().removeprefix('croupier_')} given: pass it or set {variable}"
        )
    return found


def run(
    bot: Bot | BotFactory,
    *,
    address: str | None = None,
    token: str | None = None,
    sessions: int | None = None,
    ca_file: str | None = None,
    reconnect_seconds: float | None = None,
) -> None:
    """Play every match the referee offers; returns when the referee ends all sessions, or
    after SIGTERM once the matches in hand are over (see `Leaving`).

    `bot` is a Bot, or a factory (such as the class) when playing several sessions at once, so
    that each session has its own instance. A session lost without Goodbye is opened again
    for up to `reconnect_seconds` (30 s by default, see `keep_playing`); a referee still
    unreachable after that, a bad token or a bad setting ends the program with exit code 1 and
    one line on stderr.
    """
    try:
        asyncio.run(
            run_async(
                bot,
                address=address,
                token=token,
                sessions=sessions,
                ca_file=ca_file,
                reconnect_seconds=reconnect_seconds,
            )
        )
    except grpc.aio.AioRpcError as error:
        raise SystemExit(f"croupier: {error.code().name}: {error.details()}") from None
    except (ConfigurationError, ConnectionError) as error:
        raise SystemExit(f"croupier: {error}") from None


async def run_async(
    bot: Bot | BotFactory,
    *,
    address: str | None = None,
    token: str | None = None,
    sessions: int | None = None,
    ca_file: str | None = None,
    reconnect_seconds: float | None = None,
) -> None:
    """`run` for asyncio programs; `bot.act` may be a coroutine function."""
    target = _setting(address, "CROUPIER_ADDRESS")
    secret = _setting(token, "CROUPIER_TOKEN")
    count = sessions or int(os.environ.get("CROUPIER_SESSIONS", "1"))
    if count > 1 and isinstance(bot, Bot):
        raise ConfigurationError(
            "several sessions need a bot factory (e.g. the class), not one bot"
        )
    make: BotFactory = (lambda: bot) if isinstance(bot, Bot) else bot
    ca = ca_file or os.environ.get("CROUPIER_CA_FILE")
    tls = bool(ca) or os.environ.get("CROUPIER_TLS", "") not in ("", "0")
    leaving = Leaving()
    seconds = DEFAULT_RECONNECT_SECONDS if reconnect_seconds is None else reconnect_seconds

    async def mismatch(error: grpc.aio.AioRpcError) -> str | None:
        return await asyncio.to_thread(
            tls_mismatch,
            target,
            tls=tls,
            detail=error.details() or "",
            give_ca=GIVE_CA,
            drop_tls="unset CROUPIER_CA_FILE and CROUPIER_TLS",
        )

    async with _channel(target, ca, tls) as channel, leaving.on_sigterm():
        stub = referee_pb2_grpc.RefereeStub(channel)
        await asyncio.gather(
            *(keep_playing(stub, make(), secret, leaving, seconds, mismatch) for _ in range(count))
        )


#: How a bot gives the referee's CA certificate (see tls_check.tls_mismatch).
GIVE_CA = (
    "set CROUPIER_CA_FILE to its CA certificate, PEM (or pass ca_file=; CROUPIER_TLS=1 "
    "trusts the system's roots)"
)


def _channel(address: str, ca_file: str | None, tls: bool) -> grpc.aio.Channel:
    """TLS with the given CA (or the system roots with CROUPIER_TLS=1), else plaintext."""
    if ca_file:
        with open(ca_file, "rb") as pem:
            credentials = grpc.ssl_channel_credentials(root_certificates=pem.read())
        return grpc.aio.secure_channel(address, credentials)
    if tls:
        return grpc.aio.secure_channel(address, grpc.ssl_channel_credentials())
    return grpc.aio.insecure_channel(address)


class Leaving:
    """SIGTERM asks the bot to leave: each session finishes the match in hand, then closes its
    side of the stream (a session between matches closes at once), and `run` returns. A second
    SIGTERM (or SIGINT) ends the program at once."""

    def __init__(self) -> None:
        self.requested = False
        #: The calls of sessions between matches, which leave at once.
        self.idle: set[Call] = set()
        self._closed: set[Call] = set()
        self._closing: set[asyncio.Task[None]] = set()

    @contextlib.asynccontextmanager
    async def on_sigterm(self) -> AsyncIterator[None]:
        """Handle SIGTERM while the block runs, unless the program has a handler of its own
        (and where asyncio can: the main thread, not on Windows). After the first SIGTERM, and
        after the block, SIGTERM ends the program again."""
        loop = asyncio.get_running_loop()
        installed = False
        if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.add_signal_handler(signal.SIGTERM, self.request)
                installed = True
        try:
            yield
        finally:
            if installed:
                loop.remove_signal_handler(signal.SIGTERM)

    def request(self) -> None:
        self.requested = True
        log.warning("SIGTERM: leaving after the match in hand (SIGTERM again: at once)")
        loop = asyncio.get_running_loop()
        loop.remove_signal_handler(signal.SIGTERM)
        for call in list(self.idle):
            task = loop.create_task(self.close(call))
            self._closing.add(task)
            task.add_done_callback(self._closing.discard)

    def closed(self, call: Call) -> bool:
        return call in self._closed

    async def close(self, call: Call) -> None:
        """Close our side of `call` once; the referee then ends the stream."""
        if call not in self._closed:
            self._closed.add(call)
            self.idle.discard(call)
            await call.done_writing()


Call: TypeAlias = "grpc.aio.StreamStreamCall[referee_pb2.BotMessage, referee_pb2.RefereeMessage]"


class _Lost(Exception):
    """The session's stream ended without Goodbye: open another one (see `keep_playing`)."""

    def __init__(self, why: str, error: grpc.aio.AioRpcError | None = None) -> None:
        super().__init__(why)
        self.why = why
        self.error = error


async def keep_playing(
    stub: referee_pb2_grpc.RefereeAsyncStub,
    bot: Bot,
    token: str,
    leaving: Leaving | None = None,
    reconnect_seconds: float = DEFAULT_RECONNECT_SECONDS,
    mismatch: Callable[[grpc.aio.AioRpcError], Awaitable[str | None]] | None = None,
) -> None:
    """One session after another for one bot, until Goodbye (or SIGTERM), as the Node SDK does.
    `mismatch` tells a TLS mismatch from the first failure to connect, which no retry mends.

    A session lost without Goodbye (the network dropped, the referee restarted, or the referee
    ended the stream while the bot was still thinking, so its reply could not be sent) is
    reopened with the same token, for up to `reconnect_seconds` since it was last welcomed: a
    referee with a reconnect grace gives the seat back mid-match, and one that has moved on
    says Goodbye to the new session, which then ends quietly. A status that reconnecting cannot
    mend (a bad token or Hello, a limit) is raised at once."""
    leaving = leaving or Leaving()
    lost_at: float | None = None
    pause = 0.1
    ever_welcomed = False
    told_tls = mismatch is None
    while True:
        welcomed = Welcomed()
        try:
            await play_session(stub, bot, token, leaving, welcomed)
            return
        except grpc.aio.AioRpcError as failed:
            if failed.code() in FATAL_CODES:
                raise
            lost = _Lost(f"{failed.code().name}: {failed.details()}", failed)
        except _Lost as ended:
            lost = ended
        if leaving.requested:
            return  # SIGTERM: no session is opened again
        ever_welcomed |= welcomed.yes
        now = time.monotonic()
        if welcomed.yes or lost_at is None:
            lost_at, pause = now, 0.1
        if now - lost_at > reconnect_seconds:
            if lost.error is not None:
                raise lost.error
            raise ConnectionError(f"the referee keeps ending the session ({lost.why})")
        error = lost.error
        if not told_tls and error is not None and error.code() is grpc.StatusCode.UNAVAILABLE:
            told_tls = True  # trying again cannot mend a TLS mismatch: say what it is, once
            assert mismatch is not None
            if not ever_welcomed and (why := await mismatch(error)) is not None:
                raise ConfigurationError(why) from error
        # Said once the bot has tried again in vain: a referee that moved on says Goodbye to
        # the first new session, and the bot then ends without a word.
        say = log.warning if pause > 0.1 else log.info
        what = "session lost" if ever_welcomed else "cannot reach the referee"
        say("%s (%s); trying again in %.1f s", what, lost.why, pause)
        await asyncio.sleep(pause)
        pause = min(pause * 2, 2.0)


class Welcomed:
    """Whether the referee welcomed a session (it reached the referee and was accepted)."""

    def __init__(self) -> None:
        self.yes = False


async def play_session(
    stub: referee_pb2_grpc.RefereeAsyncStub,
    bot: Bot,
    token: str,
    leaving: Leaving | None = None,
    welcomed: Welcomed | None = None,
) -> None:
    """One session: Hello, then matches until Goodbye (or, once `leaving` is requested, until
    the match in hand is over). Raises `_Lost` when the stream ends without Goodbye, and the
    call's error status when it fails, so that `keep_playing` opens another."""
    leaving = leaving or Leaving()
    welcomed = welcomed or Welcomed()
    call = stub.Play(metadata=(("authorization", f"Bearer {token}"),))
    await call.write(
        referee_pb2.BotMessage(
            hello=referee_pb2.Hello(
                name=bot.name,
                version=bot.version,
                games=bot.games,
                protocol_version=PROTOCOL_VERSION,
            )
        )
    )
    if leaving.requested:
        await leaving.close(call)
    else:
        leaving.idle.add(call)
    try:
        await _serve(call, bot, leaving, welcomed)
    finally:
        leaving.idle.discard(call)


async def _serve(call: Call, bot: Bot, leaving: Leaving, welcomed: Welcomed) -> None:
    act = bot.act
    asynchronous = inspect.iscoroutinefunction(act)
    while True:
        message = await call.read()
        if not isinstance(message, referee_pb2.RefereeMessage):  # grpc.aio.EOF
            if leaving.requested:
                return
            raise _Lost("the stream ended without Goodbye")
        kind = message.WhichOneof("kind")
        if kind == "welcome":
            welcomed.yes = True
        elif kind == "action_request":
            if leaving.closed(call):  # seated as it left: it can no longer answer
                continue
            request = message.action_request
            current.set(Decision(request.match_id, request.decision))
            for event in request.events:
                bot.on_event(event)
            bot.deadline = (
                time.monotonic() + (request.clock.deadline_ms - DEFAULT_SLACK_MS) / 1000
                if request.clock.HasField("deadline_ms")
                else math.inf  # a match without a time limit
            )
            if asynchronous:
                index = await _act_async(act, request)  # type: ignore[arg-type]
            else:
                index = act(request)
            reply = referee_pb2.ActionReply(
                match_id=request.match_id, request_id=request.request_id, action_index=index
            )
            try:
                await call.write(referee_pb2.BotMessage(action_reply=reply))
            except grpc.aio.AioRpcError as error:
                # The referee ended the stream while the bot thought (it timed the decision
                # out and moved on); gRPC then reports INTERNAL and drops what the bot had not
                # read yet, a Goodbye perhaps. A new session learns where the referee is.
                why = "the stream was over when the reply was sent"
                raise _Lost(why, error) from None
        elif kind == "match_start":
            leaving.idle.discard(call)
            current.set(Decision(message.match_start.match_id, 0))
            bot.on_match_start(message.match_start)
        elif kind == "match_end":
            for event in message.match_end.events:
                bot.on_event(event)
            bot.on_match_end(message.match_end)
            current.set(None)
            leaving.idle.add(call)
            if leaving.requested:
                await leaving.close(call)
        elif kind == "goodbye":
            await leaving.close(call)
            log.info("the referee ended the session: %s", message.goodbye.reason)
            # A limit or a revoked token ends with an error status: raise it (AioRpcError).
            try:
                while await call.read() is not grpc.aio.EOF:
                    pass
            except grpc.aio.AioRpcError as error:
                if error.code() in FATAL_CODES:
                    raise
            return


async def _act_async(
    act: Callable[[referee_pb2.ActionRequest], Awaitable[int]],
    request: referee_pb2.ActionRequest,
) -> int:
    """An async bot gets until its deadline less the slack; then the first legal action goes."""
    budget = (request.clock.deadline_ms - DEFAULT_SLACK_MS) / 1000
    if not request.clock.HasField("deadline_ms"):  # no time limit
        return await act(request)
    try:
        return await asyncio.wait_for(act(request), max(budget, 0.001))
    except TimeoutError:
        log.warning("act() ran past the deadline; answering the first legal action")
        return 0
