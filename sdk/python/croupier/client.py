"""Connect a bot to a referee and play until the referee ends the session.

`run(bot)` is all most bots need: it reads CROUPIER_ADDRESS and CROUPIER_TOKEN (and
CROUPIER_SESSIONS, how many matches to play at once) from the environment, opens the sessions on
grpc.aio, and calls the bot's `act` and hooks. `run_async` is the same for asyncio programs.
For a referee that speaks TLS, set CROUPIER_CA_FILE to its CA certificate (PEM), or
CROUPIER_TLS=1 to trust the system's roots.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import math
import os
import time
from collections.abc import Awaitable, Callable
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
    """Play every match the referee offers; returns when the referee ends all sessions.

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
    try:
        async with _channel(target, ca, tls) as channel:
            stub = referee_pb2_grpc.RefereeStub(channel)
            await asyncio.gather(*(play_session(stub, make(), secret) for _ in range(count)))
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


async def play_session(stub: referee_pb2_grpc.RefereeAsyncStub, bot: Bot, token: str) -> None:
    """One session: Hello, then matches until Goodbye or the stream ends."""
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
    act = bot.act
    asynchronous = inspect.iscoroutinefunction(act)
    while True:
        message = await call.read()
        if not isinstance(message, referee_pb2.RefereeMessage):  # grpc.aio.EOF
            return
        kind = message.WhichOneof("kind")
        if kind == "action_request":
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
            bot.on_match_start(message.match_start)
        elif kind == "match_end":
            for event in message.match_end.events:
                bot.on_event(event)
            bot.on_match_end(message.match_end)
        elif kind == "goodbye":
            await call.done_writing()
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
