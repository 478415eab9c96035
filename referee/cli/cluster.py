"""`croupier cluster`: a Dask cluster on this machine, to try ladders on a cluster.

A real cluster is Dask's own `dask scheduler` and `dask worker tcp://SCHEDULER:8786` (see the
README's "Ladders on a cluster"); `croupier cluster local` starts a scheduler and N worker
processes here and prints the scheduler's address for `croupier ladder run --cluster`.
Exit codes: 0 stopped with Ctrl-C (or SIGTERM); 2 Dask missing or the port taken.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType
from typing import Annotated, Any

import typer

from referee.cli.consoles import console, user_errors
from referee.cli.epilog import DONE, epilog
from referee.text import plural

cluster_app = typer.Typer(
    name="cluster",
    help="A Dask cluster on this machine, to run ladders on (`croupier ladder run --cluster`).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@cluster_app.command(
    "local",
    epilog=epilog(
        ["croupier cluster local --workers 2 --port 8786 --dashboard-port 8787"],
        {0: "stopped (Ctrl-C or SIGTERM)", **DONE},
    ),
)
def local_command(
    workers: Annotated[int, typer.Option(min=1, help="Worker processes.")] = 2,
    threads: Annotated[
        int, typer.Option(min=1, help="Threads per worker: the matches each plays at once.")
    ] = 1,
    port: Annotated[
        int, typer.Option(min=0, max=65535, help="The scheduler's port (0: any free one).")
    ] = 8786,
    host: Annotated[
        str, typer.Option(help="The address to listen on (loopback: this machine only).")
    ] = "127.0.0.1",
    dashboard_port: Annotated[
        int,
        typer.Option(
            min=0, max=65535, help="The port of Dask's dashboard, on --host (0: any free one)."
        ),
    ] = 8787,
) -> None:
    """Start a Dask scheduler and worker processes here; print the scheduler's address and
    run until Ctrl-C."""
    with user_errors():
        cluster = _start_cluster(workers, threads, host, port, dashboard_port)
    stop = threading.Event()

    def on_signal(number: int, frame: FrameType | None) -> None:
        stop.set()

    previous = signal.signal(signal.SIGTERM, on_signal)
    try:
        address = cluster.scheduler_address
        console.print(address, markup=False, highlight=False)
        console.print(
            f"Dask scheduler with {plural(workers, 'worker process', 'worker processes')} of "
            f"{plural(threads, 'thread')}; run a "
            f"ladder on it with: croupier ladder run LADDER.toml --cluster {address}\n"
            f"Dask's dashboard: {cluster.dashboard_link}\n"
            "Ctrl-C stops it.",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
        console.file.flush()
        while not stop.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        cluster.close()


def _start_cluster(workers: int, threads: int, host: str, port: int, dashboard_port: int) -> Any:
    """A Dask LocalCluster here, or a ClusterError that names the option to change."""
    from referee.cluster import ClusterError, require_dask
    from referee.transport import ListenError, check_free

    require_dask()
    for option, number in (("--port", port), ("--dashboard-port", dashboard_port)):
        try:  # before Dask, which logs its own warnings on the way down (and would move
            # a dashboard whose port is taken to another, silently)
            check_free(host, number)
        except ListenError as error:
            raise ClusterError(
                f"cannot start a Dask cluster on {host}:{number}: {error.reason} (choose "
                f"another {option}, or 0 for any free one)"
            ) from None
    from distributed import LocalCluster

    start: Any = LocalCluster  # Dask's annotations are partial
    try:
        cluster = start(
            n_workers=workers,
            threads_per_worker=threads,
            processes=True,
            host=host,
            scheduler_port=port,
            dashboard_address=f"{host}:{dashboard_port}",
        )
    except (OSError, RuntimeError) as error:  # Dask wraps the cause in RuntimeError
        cause: BaseException = error
        while cause.__cause__ is not None:
            cause = cause.__cause__
        raise ClusterError(
            f"cannot start a Dask cluster on {host}:{port}: {cause} (choose another "
            "--port, or 0 for any free one)"
        ) from None
    return cluster
