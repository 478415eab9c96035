"""What this machine offers the process that asks: its cores (the affinity mask), the CPU a
cgroup quota allows, its CPU's model. Read from the OS (/proc, /sys) here alone, below every
layer that decides with them (referee.match.bounds, the record's computer, the launcher)."""

from __future__ import annotations

import math
import os
import platform

#: Where Linux lists each logical CPU with its "model name".
CPUINFO = "/proc/cpuinfo"


def cores() -> int:
    """The cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


#: Where cgroup v2 and v1 keep a cgroup's CPU quota (the `docker --cpus` limit).
CGROUP_ROOT = "/sys/fs/cgroup"


def cpu_budget() -> int:
    """The cores' worth of CPU this process may use: the cores it may run on (`cores`), fewer
    when a cgroup's CPU quota (cgroup v2 `cpu.max`, v1 `cpu.cfs_quota_us`, as `docker --cpus`
    sets) allows less, rounded up."""
    quota = _cgroup_quota()
    budget = cores()
    return max(1, min(budget, math.ceil(quota))) if quota is not None else budget


def _cgroup_quota() -> float | None:
    """The smallest CPU quota (in cores) of this process's cgroup and its ancestors, or None."""
    try:
        with open("/proc/self/cgroup") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return None
    found: list[float] = []
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if controllers == "":  # v2: cpu.max holds "QUOTA PERIOD" or "max PERIOD"
            where = [f"{CGROUP_ROOT}{prefix}/cpu.max" for prefix in _ancestors(path)]
            found += [q for q in map(_v2_quota, where) if q is not None]
        elif "cpu" in controllers.split(","):
            base = f"{CGROUP_ROOT}/{controllers}"
            found += [
                q for prefix in _ancestors(path) if (q := _v1_quota(f"{base}{prefix}")) is not None
            ]
    return min(found) if found else None


def _ancestors(path: str) -> list[str]:
    parts = [part for part in path.split("/") if part]
    return ["/" + "/".join(parts[:n]) if n else "" for n in range(len(parts), -1, -1)]


def _read(path: str) -> str | None:
    try:
        with open(path) as handle:
            return handle.read().strip()
    except OSError:
        return None


def _v2_quota(path: str) -> float | None:
    text = _read(path)
    if not text or text.startswith("max"):
        return None
    quota, _, period = text.partition(" ")
    return int(quota) / int(period or "100000")


def _v1_quota(folder: str) -> float | None:
    quota, period = _read(f"{folder}/cpu.cfs_quota_us"), _read(f"{folder}/cpu.cfs_period_us")
    if not quota or not period or int(quota) <= 0:
        return None
    return int(quota) / int(period)


def cpu_model(cpuinfo: str = CPUINFO) -> str:
    """The CPU's model name: Linux's first "model name" in /proc/cpuinfo (x86 and most ARM
    kernels give one), else what `platform` says (often only the architecture)."""
    try:
        with open(cpuinfo, encoding="utf-8", errors="replace") as file:
            for line in file:
                key, _, value = line.partition(":")
                if key.strip() == "model name" and value.strip():
                    return value.strip()
    except OSError:
        pass  # not Linux
    return platform.processor() or platform.machine()
