"""The pipeline from a received version to a qualified one: build it once, qualify it once.

`Pipeline.run` is one trio task beside the contest server. At start it recovers the store (a
build cut short by a kill is built again; a qualification cut short runs again), then takes every
`received` version through `building` to `built` (or `build-failed`), then `qualifying` to
`qualified` (or `failed`), each with its one-line reason. A qualified version becomes its
account's active version; a failed one leaves the account's active version as it was. A failed
build or qualification is final: the pipeline never picks that version again.

Builds run through one `Builder` (two at a time, at the lowest priority); qualifications one at
a time, as each launches the bot and plays it at the contest's priority. A submitter calls `wake`
after adding a version; the pipeline also looks every `POLL_SECONDS`.

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

from referee.hosted.build import Builder, BuildError, BuildLimits
from referee.hosted.manifest import Manifest, ManifestError, load_manifest
from referee.hosted.qualify import QualifySettings, qualify
from referee.hosted.store import Version, VersionId, VersionStatus, VersionStore
from referee.local.limits import Limits
from referee.local.sandbox import check_bwrap

_T = TypeVar("_T")

#: How often the pipeline looks for received versions when nobody wakes it (seconds).
POLL_SECONDS = 1.0


@dataclass(frozen=True, slots=True)
class PipelineSettings:
    """The contest's maxima for what a manifest asks, and how builds and qualification run."""

    maxima: Limits = field(default_factory=Limits)
    build: BuildLimits = field(default_factory=BuildLimits)
    qualify: QualifySettings = field(default_factory=QualifySettings)
    #: The organiser's runtime folder (`croupier serve --runtime`), which every build and bot
    #: sees read-only: the protos and SDKs a compiled bot builds against, a shared virtualenv.
    runtime: Path | None = None


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

    def __init__(
        self,
        store: VersionStore,
        settings: PipelineSettings | None = None,
        builder: Builder | None = None,
    ) -> None:
        self.store = store
        self.settings = settings or PipelineSettings()
        self.builder = builder or Builder()
        self._wake = trio.Event()
        self._qualifying = trio.CapacityLimiter(1)

    def files(self, id: VersionId) -> VersionFiles:
        return VersionFiles(self.store.folder(id))

    def wake(self) -> None:
        """Look for received versions now (from the trio thread, after `store.add`)."""
        self._wake.set()

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Recover the store, then build and qualify versions until cancelled. SandboxError
        (before anything runs) where bubblewrap is missing: every build runs in the sandbox."""
        check_bwrap()
        await trio.to_thread.run_sync(self._recover)
        task_status.started()
        busy: set[VersionId] = set()
        async with trio.open_nursery() as nursery:
            while True:
                self._wake = trio.Event()
                waiting = await self._call(
                    self.store.with_status, VersionStatus.RECEIVED, VersionStatus.BUILT
                )
                for version in waiting:
                    if version.id not in busy:
                        busy.add(version.id)
                        nursery.start_soon(self._advance, version, busy)
                with trio.move_on_after(POLL_SECONDS):
                    await self._wake.wait()

    def _recover(self) -> None:
        self.store.recover()
        for version in self.store.with_status(VersionStatus.QUALIFYING):
            self.store.set_status(
                version.id, VersionStatus.BUILT, "the referee stopped during its qualification"
            )

    async def _advance(self, version: Version, busy: set[VersionId]) -> None:
        try:
            if version.status is VersionStatus.RECEIVED and not await self._build(version.id):
                return
            async with self._qualifying:
                await self._qualify(version.id)
        finally:
            busy.discard(version.id)

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
            outcome = await self.builder.build(
                files.src, files.build, command, limits, files.build_log, self.settings.runtime
            )
        except BuildError as error:
            files.build_log.write_text(f"{error}\n")
            await self._fail_build(id, str(error))
            return False
        if not outcome.ok:
            detail = f": {outcome.detail}" if outcome.detail else ""
            await self._fail_build(id, f"build failed ({outcome.why}){detail}; see its log")
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
            await self._fail_build(id, str(error))
            return None

    async def _fail_build(self, id: VersionId, reason: str) -> None:
        await self._call(self.store.set_status, id, VersionStatus.BUILD_FAILED, reason)

    async def _qualify(self, id: VersionId) -> None:
        files = self.files(id)
        manifest = await self._manifest(id)
        if manifest is None:
            return
        await self._call(self.store.set_status, id, VersionStatus.QUALIFYING)
        await trio.to_thread.run_sync(shutil.rmtree, files.qualification, True)
        report = await qualify(
            files.run_folder(manifest),
            manifest,
            files.qualification,
            self.settings.qualify,
            self.settings.runtime,
        )
        files.report.write_text("\n".join(report.lines()) + "\n")
        if report.ok:
            await self._call(self.store.activate, id, report.reason)
            return
        output = report.last_output()
        said = f"; its last output: {output[-1].strip()!r}" if output else "; it printed nothing"
        await self._call(self.store.set_status, id, VersionStatus.FAILED, report.reason + said)

    async def _call(self, function: Callable[..., _T], *args: object) -> _T:
        """A store call (SQLite, fsync) off the trio thread, so no match waits on the disk."""
        return await trio.to_thread.run_sync(function, *args)
