"""What cgroups a launched bot gets on this machine, for tests that need one kind."""

from __future__ import annotations

from referee.local.cgroups import BotCgroups


def launch_cgroups(memory_mb: int = 0) -> BotCgroups | None:
    """The cgroups a launch would get here (made, then removed at once): None unless root."""
    cgroups = BotCgroups.create(0, memory_mb)
    if cgroups is not None:
        cgroups.remove()
    return cgroups
