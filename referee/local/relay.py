"""A sandboxed bot's loopback TCP address: a relay from 127.0.0.1:PORT to the bot's door.

Some runtimes cannot dial a Unix socket (grpc-java on a plain JVM has no such transport), and
the bot's network namespace has nothing but its own loopback. So the sandbox runs this file
first, as the bot's user under the bot's seccomp filter and limits:

    python -I -S relay.py PORT SOCKET -- BOT'S COMMAND...

It listens on 127.0.0.1:PORT in the bot's network namespace, forks the relay away, and execs
the bot's command in its own place (the bot keeps the pid bwrap started, its process group, its
exit code). The relay joins each connection to SOCKET, the bot's own door, and to nothing else:
it reads no address from the bot, so it gives the bot no way further than the door it already
has. It is reparented to the sandbox's init and killed with the pid namespace when the bot's
program exits; it is in the bot's process group and cgroups, so it is stopped, counted and
killed with the bot.

Standard library only, and no import of croupier: it runs on the referee's Python inside the
sandbox, where croupier's packages are not shown.
"""

from __future__ import annotations

import asyncio
import os
import socket
import sys

#: Bytes read at once from either side.
_CHUNK = 1 << 16


def main(argv: list[str]) -> None:
    port, door, separator, *command = argv
    if separator != "--" or not command:
        sys.exit("usage: relay.py PORT SOCKET -- COMMAND...")
    listener = socket.create_server(("127.0.0.1", int(port)), backlog=128)
    if os.fork() == 0:
        if os.fork() == 0:  # the relay, orphaned at once: the sandbox's init reaps it
            _serve(listener, door)
        os._exit(0)
    os.wait()
    listener.close()  # (close-on-exec anyway: the bot never holds it)
    try:
        os.execvp(command[0], command)
    except OSError as error:
        sys.exit(f"cannot run {command[0]!r}: {error}")


def _serve(listener: socket.socket, door: str) -> None:
    async def join(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        # No Nagle: a reply held back for the bot's delayed ACK would cost it 40 ms of its clock
        # (asyncio sets TCP_NODELAY only on sockets made with proto=IPPROTO_TCP).
        writer.get_extra_info("socket").setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            door_reader, door_writer = await asyncio.open_unix_connection(door)
        except OSError:
            writer.close()
            return
        pipes = {
            asyncio.ensure_future(_pipe(reader, door_writer)),
            asyncio.ensure_future(_pipe(door_reader, writer)),
        }
        # Both ends closed, or one broken: then the other is dropped too.
        _, pending = await asyncio.wait(pipes, return_when=asyncio.FIRST_EXCEPTION)
        for pipe in pending:
            pipe.cancel()
        writer.close()
        door_writer.close()

    async def serve() -> None:
        server = await asyncio.start_server(join, sock=listener)
        await server.serve_forever()

    try:
        asyncio.run(serve())
    finally:
        os._exit(0)


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    """Copy until end of file, then pass the half-close on; OSError when a side breaks."""
    while data := await reader.read(_CHUNK):
        writer.write(data)
        await writer.drain()
    if writer.can_write_eof():
        writer.write_eof()


if __name__ == "__main__":
    main(sys.argv[1:])
