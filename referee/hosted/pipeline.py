"""The pipeline from a received version to a qualified one: build it once, qualify it once.

`Pipeline.run` is one trio task beside the contest server. At start it recovers the store (a
build cut short by a kill is built again; a qualification cut short runs again), then takes every
`received` version through `queued` (waiting for a turn), `building` to `built` (or
`build-failed`), then `qualifying` to `qualified` (or `failed`), each with its one-line reason.
A qualified version becomes its account's active version; a failed one leaves the account's
active version as it was. A failed build or qualification is final for that upload (submitting
the same files again queues them again: referee.hosted.submitting).

Builds and qualifications share the machine by turns (referee.hosted.turns): two builds at once
and one qualification, one of each per account, the account waiting longest first, so that an
author's builds delay no other author's (issue 41.2). An account has one version waiting at a
time: a newer upload replaces the older one still waiting for a turn (withdrawn, saying so).
A withdrawn version's build or qualification is stopped within POLL_SECONDS, and its status
stays `withdrawn`. A qualification has `QualifySettings.wall_seconds` in all.

Beside a version's files (`src/`, see referee.hosted.store) the pipeline keeps, in the version's
folder: `build/` (the built copy, when bot.toml has a build command), `build.log`, `qualify/`
(the doctor's records and the bot's output) and `qualification.txt` (the report its author
reads). A version with nothing to build runs from `src/`, which the sandbox shows read-only.
"""

from __future__ import annotations

import shlex
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import trio

from referee.hosted.build import BuildError, BuildLimits, build
from referee.hosted.manifest import Manifest, ManifestError, load_manifest
from referee.hosted.qualify import QualifySettings, qualify
from referee.hosted.store import SHORT_ID, Version, VersionId, VersionStatus, VersionStore
from referee.hosted.turns import Turns
from referee.local.limits import Limits
from referee.local.sandbox import check_bwrap

_T = TypeVar("_T")

#: How often the pipeline looks for received and withdrawn versions (seconds).
POLL_SECONDS = 1.0
#: Builds at once (each at the lowest CPU priority; this bounds the memory and disk they hold
#: together), and qualifications (each plays its bot at the contest's priority).
BUILDS_AT_ONCE = 2
QUALIFICATIONS_AT_ONCE = 1
#: The statuses of a version waiting for its next turn.
_WAITING = (VersionStatus.RECEIVED, VersionStatus.QUEUED, VersionStatus.BUILT)


@dataclass(frozen=True, slots=True)
class PipelineSettings:
    """The contest's maxima for what a manifest asks, and how builds and qualification run."""

    maxima: Limits = field(default_factory=Limits)
    build: BuildLimits = field(default_factory=BuildLimits)
    qualify: QualifySettings = field(default_factory=QualifySettings)
    #: The organiser's runtime folder (`croupier serve --runtime`), which every build and bot
    #: sees read-only: the protos and SDKs a compiled bot builds against, a shared virtualenv.
    runtime: Path | None = None
    #: What no version's folder may show, at its build, qualification or play (the contest's
    #: database and records): a folder that would is refused (Sandbox.secrets).
    secrets: tuple[Path, ...] = ()


@dataclass(frozen=True, slots=True)
class VersionFiles:
    """Where a version's files, build and reports are, under its folder in the store."""

    root: Path

    @property
    def src(self) -> Path:
        return self.root / "src"

    @property
    def build(self) -> Path:
        return self.root / "build"

    @property
    def build_log(self) -> Path:
        return self.root / "build.log"

    @property
    def qualification(self) -> Path:
        return self.root / "qualify"

    @property
    def report(self) -> Path:
        return self.root / "qualification.txt"

    def run_folder(self, manifest: Manifest) -> Path:
        """Where the version runs: its build, or its files when there is nothing to build."""
        return self.src if manifest.build is None else self.build


class Pipeline:
    """Builds and qualifies the versions of `store`; run it with `run` in a nursery."""

    def __init__(self, store: VersionStore, settings: PipelineSettings | None = None) -> None:
        self.store = store
        self.settings = settings or PipelineSettings()
        self.builds = Turns(BUILDS_AT_ONCE)
        self.qualifications = Turns(QUALIFICATIONS_AT_ONCE)
        #: The versions being advanced, each with the scope that stops it.
        self._busy: dict[VersionId, trio.CancelScope] = {}
        #: Those of them that hold a turn now (a build or a qualification running).
        self._running: set[VersionId] = set()

    def files(self, id: VersionId) -> VersionFiles:
        return VersionFiles(self.store.folder(id))

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Recover the store, then build and qualify versions until cancelled. SandboxError
        (before anything runs) where bubblewrap is missing: every build runs in the sandbox."""
        check_bwrap()
        await trio.to_thread.run_sync(self._recover)
        task_status.started()
        async with trio.open_nursery() as nursery:
            while True:
                await self._look(nursery)
                await trio.sleep(POLL_SECONDS)

    async def _look(self, nursery: trio.Nursery) -> None:
        """Stop what was withdrawn, replace what a newer upload overtook, start what waits."""
        for id in list(self._busy):
            version = await self._call(self.store.version, id)
            if version.status is VersionStatus.WITHDRAWN:
                self._busy[id].cancel()
        waiting = await self._call(self.store.with_status, *_WAITING)
        newest = {version.account: version for version in waiting}  # oldest first
        for version in waiting:
            if version.id in self._running:
                continue
            if version.id != newest[version.account].id:
                await self._replace(version, newest[version.account])
            elif version.id not in self._busy:
                self._busy[version.id] = trio.CancelScope()
                nursery.start_soon(self._advance, version)

    async def _replace(self, version: Version, by: Version) -> None:
        """Withdraw `version`, still waiting for a turn, in favour of its account's newer `by`."""
        reason = (
            f"replaced by the account's newer upload {by.id[:SHORT_ID]} before its turn: an "
            "account has one version waiting at a time"
        )
        await self._call(self.store.set_status, version.id, VersionStatus.WITHDRAWN, reason)
        if version.id in self._busy:
            self._busy[version.id].cancel()

    def _recover(self) -> None:
        self.store.recover()
        for version in self.store.with_status(VersionStatus.QUALIFYING):
            self.store.set_status(
                version.id, VersionStatus.BUILT, "the referee stopped during its qualification"
            )

    async def _advance(self, version: Version) -> None:
        id = version.id
        try:
            with self._busy[id]:
                if version.status is not VersionStatus.BUILT:
                    await self._call(self.store.set_status, id, VersionStatus.QUEUED, "")
                    async with self.builds.turn(version.account):
                        self._running.add(id)
                        if not await self._build(id):
                            return
                    self._running.discard(id)
                async with self.qualifications.turn(version.account):
                    self._running.add(id)
                    await self._qualify(id)
        finally:
            self._running.discard(id)
            del self._busy[id]

    async def _build(self, id: VersionId) -> bool:
        """Build the version; whether it was built."""
        files = self.files(id)
        await self._call(self.store.set_status, id, VersionStatus.BUILDING)
        manifest = await self._manifest(id)
        if manifest is None:
            return False
        argv = manifest.build_argv()
        if argv is None:
            files.build_log.write_text("nothing to build: bot.toml has no build command\n")
            await self._call(self.store.set_status, id, VersionStatus.BUILT, "nothing to build")
            return True
        command = shlex.join(argv)
        limits = self.settings.build
        try:
            outcome = await build(
                files.src,
                files.build,
                command,
                limits,
                files.build_log,
                self.settings.runtime,
                self.settings.secrets,
            )
        except BuildError as error:
            files.build_log.write_text(f"{error}\n")
            await self._fail_build(id, str(error), "its build command cannot be run")
            return False
        if not outcome.ok:
            # The exit again ("exit code 3") beside `why` ("exit 3") says nothing new.
            repeats = outcome.detail == f"exit code {outcome.exit_code}"
            detail = f": {outcome.detail}" if outcome.detail and not repeats else ""
            why = f"build failed ({outcome.why})"
            advice = "; its log's end says why (croupier submissions log VERSION)"
            await self._fail_build(id, f"{why}{detail}{advice}", why)
            return False
        reason = f"built in {outcome.seconds:.1f} s"
        await self._call(self.store.set_status, id, VersionStatus.BUILT, reason)
        return True

    async def _manifest(self, id: VersionId) -> Manifest | None:
        """The version's checked manifest; None, with the version build-failed, if it has none."""
        files = self.files(id)
        try:
            return load_manifest(files.src, self.settings.maxima)
        except ManifestError as error:
            files.build_log.write_text(f"{error}\n")
            await self._fail_build(id, str(error), "its bot.toml was refused")
            return None

    async def _fail_build(self, id: VersionId, reason: str, public: str) -> None:
        """Build-failed, with why for its author and what anyone may read (`public`: the
        referee's words alone, never the build's output nor the manifest's)."""
        await self._call(self.store.set_status, id, VersionStatus.BUILD_FAILED, reason, public)

    async def _qualify(self, id: VersionId) -> None:
        files = self.files(id)
        manifest = await self._manifest(id)
        if manifest is None:
            return
        await self._call(self.store.set_status, id, VersionStatus.QUALIFYING)
        await trio.to_thread.run_sync(shutil.rmtree, files.qualification, True)
        limit = self.settings.qualify.wall_seconds
        with trio.move_on_after(limit) as timer:
            report = await qualify(
                files.run_folder(manifest),
                manifest,
                files.qualification,
                self.settings.qualify,
                self.settings.runtime,
                self.settings.secrets,
            )
        if timer.cancelled_caught:
            reason = f"qualification took longer than its limit of {limit:g} s in all"
            files.report.write_text(f"{reason}\n")
            await self._call(self.store.set_status, id, VersionStatus.FAILED, reason)
            return
        files.report.write_text("\n".join(report.lines()) + "\n")
        if report.ok:
            await self._call(self.store.activate, id, report.reason)
            return
        output = report.last_output()
        said = f"; its last output: {output[-1].strip()!r}" if output else "; it printed nothing"
        await self._call(
            self.store.set_status, id, VersionStatus.FAILED, report.reason + said, report.summary
        )

    async def _call(self, function: Callable[..., _T], *args: object) -> _T:
        """A store call (SQLite, fsync) off the trio thread, so no match waits on the disk."""
        return await trio.to_thread.run_sync(function, *args)
