"""The computer a match is played on, as its record names it (`RecordHeader.computer`).

Read once per process: a referee's host and CPUs do not change while it runs, and each Dask
worker is a process of its own, so records played on different workers name their own machines.
The CPU count is the referee's affinity mask (`referee.machine.cores`), not `os.cpu_count()`: a
bot that is not pinned inherits that mask, so it is what such a bot had; a container's cpuset or
a worker started under `taskset` leaves it below the machine's count. (A cgroup's CPU quota, as
`docker --cpus` sets, shows in neither.)
"""

from __future__ import annotations

import functools
import platform
import socket
from dataclasses import dataclass

from croupier.v1 import record_pb2
from referee.machine import cores, cpu_model


@dataclass(frozen=True, slots=True)
class Computer:
    """A machine as a record names it."""

    host: str
    cpu_model: str
    cpus: int

    def to_proto(self) -> record_pb2.Computer:
        return record_pb2.Computer(host=self.host, cpu_model=self.cpu_model, cpus=self.cpus)


@functools.cache
def this_computer() -> Computer:
    """The machine this process runs on, read at its first match."""
    return Computer(socket.gethostname() or platform.node(), cpu_model(), cores())


def played_on(header: record_pb2.RecordHeader) -> str:
    """What a viewer says of where a match was played, e.g. `played on vm (Intel(R) Xeon(R)
    Processor, 2 CPUs); seat 0 on core 1, seat 1 on core 0`. Empty for a record written before
    computers were recorded."""
    if not header.HasField("computer"):
        return ""
    computer = header.computer
    about = ", ".join(
        part
        for part in (computer.cpu_model, f"{computer.cpus} CPUs" if computer.cpus else "")
        if part
    )
    text = f"played on {computer.host or 'an unnamed host'}" + (f" ({about})" if about else "")
    pinned = [
        f"seat {index} on {'core' if len(seat.cores) == 1 else 'cores'} "
        + ",".join(map(str, seat.cores))
        for index, seat in enumerate(header.seats)
        if seat.cores
    ]
    return text + ("; " + ", ".join(pinned) if pinned else "")
