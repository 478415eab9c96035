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
from croupier.tls_check import tls_mismatch
from croupier.v1 import referee_pb2, referee_pb2_grpc

log = logging.getLogger("croupier")

#: The session protocol this SDK speaks (Hello.protocol_version).
PROTOCOL_VERSION = 2

#: Time kept back from each deadline for the network and the referee's own measurement.
DEFAULT_SLACK_MS = 50

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
) -> None:
    """Play every match the referee offers; returns when the referee ends all sessions, or
    after SIGTERM once the matches in hand are over (see `Leaving`).

    `bot` is a Bot, or a factory (such as the class) when playing several sessions at once, so
    that each session has its own instance. A lost connection ends the program with exit
    code 1 and one line on stderr.
    """
    try:
        asyncio.run(
            run_async(bot, address=address, token=token, sessions=sessions, ca_file=ca_file)
        )
    except grpc.aio.AioRpcError as error:
        raise SystemExit(f"croupier: {error.code().name}: {error.details()}") from None
    except ConfigurationError as error:
        raise SystemExit(f"croupier: {error}") from None


async def run_async(
    bot: Bot | BotFactory,
    *,
    address: str | None = None,
    token: str | None = None,
    sessions: int | None = None,
    ca_file: str | None = None,
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
    try:
        async with _channel(target, ca, tls) as channel, leaving.on_sigterm():
            stub = referee_pb2_grpc.RefereeStub(channel)
            await asyncio.gather(
                *(play_session(stub, make(), secret, leaving) for _ in range(count))
            )
    except grpc.aio.AioRpcError as error:
        if error.code() is grpc.StatusCode.UNAVAILABLE:
            mismatch = await asyncio.to_thread(
                tls_mismatch,
                target,
                tls=tls,
                detail=error.details() or "",
                give_ca=GIVE_CA,
                drop_tls="unset CROUPIER_CA_FILE and CROUPIER_TLS",
            )
            if mismatch is not None:
                raise ConfigurationError(mismatch) from error
        raise


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


async def play_session(
    stub: referee_pb2_grpc.RefereeAsyncStub,
    bot: Bot,
    token: str,
    leaving: Leaving | None = None,
) -> None:
    """One session: Hello, then matches until Goodbye or the stream ends (or, once `leaving`
    is requested, until the match in hand is over)."""
    leaving = leaving or Leaving()
    call = stub.Play(metadata=(("authorization", f"Bearer {token}"),))
    leaving.idle.add(call)
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
    act = bot.act
    asynchronous = inspect.iscoroutinefunction(act)
    while True:
        message = await call.read()
        if not isinstance(message, referee_pb2.RefereeMessage):  # grpc.aio.EOF
            return
        kind = message.WhichOneof("kind")
        if kind == "action_request":
            if leaving.closed(call):  # seated as it left: it can no longer answer
                continue
            request = message.action_request
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
            await call.write(
                referee_pb2.BotMessage(
                    action_reply=referee_pb2.ActionReply(
                        match_id=request.match_id,
                        request_id=request.request_id,
                        action_index=index,
                    )
                )
            )
        elif kind == "match_start":
            leaving.idle.discard(call)
            bot.on_match_start(message.match_start)
        elif kind == "match_end":
            for event in message.match_end.events:
                bot.on_event(event)
            bot.on_match_end(message.match_end)
            leaving.idle.add(call)
            if leaving.requested:
                await leaving.close(call)
        elif kind == "goodbye":
            await leaving.close(call)
            log.info("the referee ended the session: %s", message.goodbye.reason)
            # A limit or a revoked token ends with an error status: raise it (AioRpcError).
            while await call.read() is not grpc.aio.EOF:
                pass
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
