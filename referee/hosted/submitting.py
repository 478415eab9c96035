"""Submitting a version: an author's upload checked against the contest's quotas, unpacked,
its manifest read, and stored; and what an author may read of their own versions.

grpc-free: referee.transport.submissions serves it as the Submissions service, mapping its
errors to status codes (`QuotaError`, `NotFoundError`, `ConflictError`, `FrozenError`, any other
CroupierError: the upload or its bot.toml refused). Nothing is built here: the hosted pipeline
picks up `received` versions. Every method that names a version checks that it is the caller's:
another account's version is reported as missing, exactly as one that does not exist.
"""

from __future__ import annotations

import collections
import json
import re
import shutil
import sys
import tarfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from types import TracebackType

import referee
from referee.errors import ConflictError, CroupierError, FrozenError, NotFoundError, QuotaError
from referee.hosted.archive import LEAVE_OUT, ArchiveError, ArchiveLimits, unpack
from referee.hosted.manifest import MANIFEST, ManifestError, load_manifest
from referee.hosted.store import (
    SHORT_ID,
    Event,
    StoreError,
    Version,
    VersionStatus,
    VersionStore,
    by_prefix,
    entrant,
    read_listing,
    version_folder,
    version_id,
)
from referee.local.limits import Limits
from referee.text import plural

#: What a match id looks like (referee.contest.serving names them): nothing that climbs.
MATCH_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
#: The folder, in a version's, of its output per match (referee.hosted.roster writes it).
MATCH_LOGS = "matches"
#: Beside a match's log in MATCH_LOGS (`<match><this>`): its lines, each with its decision.
DECISION_LINES = ".decisions.jsonl"
#: A version's build log, in its folder beside `src/` (the pipeline writes it there).
BUILD_LOG = "build.log"
#: A version's qualification report, beside it (the pipeline writes it: VersionFiles.report).
QUALIFICATION_REPORT = "qualification.txt"
#: The most of a build log an author is sent, bytes: its tail (the build caps it anyway).
LOG_BYTES = 1024 * 1024
#: An upload's file in its spool folder (VersionStore.incoming's parent).
_UPLOAD = "upload"
_HOUR = 3600.0
#: The most lines of a failed build's log its event carries, to a follower or the site's desk.
LOG_TAIL_LINES = 20


class TooLargeError(QuotaError):
    """An upload over the contest's size cap (the site answers it with 413)."""


@dataclass(frozen=True, slots=True)
class Quotas:
    """What one account may submit. The defaults let an author iterate (a submission every few
    minutes, all day) while a token holder who loops can cost the referee little: each upload is
    written to disk, unpacked and hashed, and each version kept is disk that only grows."""

    #: Uploads begun in any hour, refused or not: counted as each starts, so a flood is turned
    #: away before its bytes are read.
    submissions_per_hour: int = 20
    #: An upload's largest size, bytes, counted as its bytes arrive.
    upload_bytes: int = ArchiveLimits().upload_bytes
    #: Versions an account may keep, withdrawn ones not counted: a new one past it is refused
    #: until the author withdraws one.
    versions_kept: int = 50


class Submitting:
    """The submissions of a contest's accounts to `store`. Safe to call from several threads:
    the transport runs `submit` off its event loop.

    With `frozen` (why, for the authors) the contest's submissions are frozen: an upload or a
    withdrawal (either would change the version an account plays) is refused with FrozenError;
    an author may still list and show their versions and read their logs."""

    def __init__(
        self,
        store: VersionStore,
        maxima: Limits,
        quotas: Quotas = Quotas(),
        games: frozenset[str] = frozenset(),
        clock: Callable[[], float] = time.monotonic,
        runtime: Path | None = None,
        frozen: str | None = None,
    ) -> None:
        self.store = store
        self.frozen = frozen
        #: The organiser's runtime folder, named $CROUPIER_RUNTIME in the logs authors read.
        self.runtime = runtime
        self.maxima = maxima
        self.quotas = quotas
        #: The games the contest runs: a bot.toml must name one of them (empty: any).
        self.games = games
        self.limits = ArchiveLimits(upload_bytes=quotas.upload_bytes)
        self._clock = clock
        self._lock = threading.Lock()
        self._begun: dict[str, collections.deque[float]] = {}

    def receive(self, account: str, declared_bytes: int = 0) -> Upload:
        """A new upload of `account`'s, to be fed its bytes as they arrive (`begin`'s errors)."""
        return Upload(self, account, declared_bytes)

    def begin(self, account: str, declared_bytes: int = 0) -> Path:
        """Count an upload against the account's hourly quota and give it a fresh folder to
        write its file into (`upload_path`), in the store's `incoming/` so that `recover` removes
        it after a kill; the caller removes it with `end`. FrozenError while submissions are
        frozen (before any quota is counted), QuotaError past the hourly quota or for a declared
        size over the limit."""
        self._check_open()
        if declared_bytes > self.quotas.upload_bytes:
            raise TooLargeError(self._too_large(declared_bytes))
        now = self._clock()
        limit = self.quotas.submissions_per_hour
        with self._lock:
            begun = self._begun.setdefault(account, collections.deque(maxlen=limit))
            while begun and begun[0] <= now - _HOUR:
                begun.popleft()
            if len(begun) >= limit:
                wait = begun[0] + _HOUR - now
                raise QuotaError(
                    f"quota: at most {limit} submissions an hour per account, counted as each "
                    f"begins; the next one may begin in {max(1, round(wait / 60))} min"
                )
            begun.append(now)
        return self.store.incoming().parent

    def upload_path(self, spool: Path) -> Path:
        """Where an upload's bytes go in its spool folder (from `begin`)."""
        return spool / _UPLOAD

    def check_size(self, size: int) -> None:
        """TooLargeError once an upload's bytes pass the limit (called as they arrive)."""
        if size > self.quotas.upload_bytes:
            raise TooLargeError(self._too_large(size))

    def end(self, spool: Path) -> None:
        """Remove an upload's spool folder, whatever became of it."""
        shutil.rmtree(spool, ignore_errors=True)

    def submit(self, account: str, upload: Path) -> Version:
        """Store the archive (or folder) at `upload` as a version of `account`: unpacked without
        trusting it, its bot.toml checked, then added whole. The same contents again are the
        same version (`new` False), queued again where its build or qualification had failed or
        it was withdrawn (VersionStore.resubmit). ArchiveError or ManifestError for an upload
        refused, QuotaError past the versions kept, ConflictError for another account's
        contents."""
        unpacked = self.store.incoming()
        try:
            unpack(upload, unpacked, self.limits)
            manifest = load_manifest(unpacked, self.maxima)
            if self.games and not self.games & set(manifest.games):
                raise ManifestError(
                    f"bot.toml: key 'games': the bot plays only {list(manifest.games)!r}; this "
                    f"contest runs {sorted(self.games)!r}"
                )
            self._check_kept(account, unpacked)
            version = self.store.add(account, unpacked)
            # The same files again: queued again if they had failed or were withdrawn.
            return version if version.new else self.store.resubmit(version.id)
        except StoreError as error:
            raise ConflictError(str(error)) from None
        finally:
            shutil.rmtree(unpacked.parent, ignore_errors=True)  # gone already once added

    def _check_kept(self, account: str, unpacked: Path) -> None:
        kept = [v for v in self.store.versions(account) if v.status != VersionStatus.WITHDRAWN]
        limit = self.quotas.versions_kept
        if len(kept) >= limit and version_id(unpacked) not in {v.id for v in kept}:
            raise QuotaError(
                f"quota: at most {limit} versions kept per account; withdraw one first "
                "(croupier submissions list, then withdraw VERSION)"
            )

    def log_tail(self, account: str, id: str) -> list[str]:
        """The last LOG_TAIL_LINES lines of a version's build log (`log`), as a failed build's
        event shows them."""
        return self.log(account, id).splitlines()[-LOG_TAIL_LINES:]

    def versions(self, account: str) -> list[Version]:
        """The account's versions, oldest first."""
        return self.store.versions(account)

    def events(self, account: str, after: int) -> list[Event]:
        """The account's versions' events after the event `after`, oldest first (a page)."""
        return self.store.events(account, after)

    def active(self, account: str) -> Version | None:
        """The version the account plays now, if any."""
        return self.store.active(account)

    def version(self, account: str, id: str) -> Version:
        """One of the account's versions, by its id or a prefix that names one of them only
        (store.by_prefix); NotFoundError for another account's or none."""
        try:
            return by_prefix(self.store.versions(account), id)
        except StoreError as error:
            raise NotFoundError(f"{error} of account {account!r}") from None

    def log(self, account: str, id: str) -> str:
        """The build log of one of the account's versions, its last LOG_BYTES ("" before any
        build), as text with undecodable bytes replaced, and the referee's folders named by
        stand-ins: its author learns nothing of the organiser's machine."""
        folder = self.store.folder(self.version(account, id).id)
        return redacted(log_tail(folder), self._places(folder))

    def _places(self, folder: Path) -> dict[Path, str]:
        """The organiser's folders a log may name, by the stand-in its author reads instead:
        the version's, the store, the runtime, croupier's Python and croupier itself."""
        places = {
            Path(sys.base_prefix): "<python>",
            Path(sys.prefix): "<python>",
            Path(referee.__file__).parent.parent: "<croupier>",
            self.store.root: "<store>",
            folder: "<version>",
        }
        if self.runtime is not None:
            places[self.runtime] = "$CROUPIER_RUNTIME"
        return places

    def qualification_report(self, account: str, id: str) -> str:
        """The qualification report of one of the account's versions ("" before its
        qualification), the referee's folders named by stand-ins, as in `log`."""
        folder = self.store.folder(self.version(account, id).id)
        return redacted(read_report(folder), self._places(folder))

    def match_log(self, account: str, match_id: str) -> tuple[str, str]:
        """The version of the account that played `match_id`, and what it printed then (see
        referee.hosted.roster); NotFoundError for a match none of its versions played."""
        found = self._match_file(account, match_id, ".log")
        if found is None:
            raise NotFoundError(f"no output of account {account!r} in match {match_id!r}")
        version, path = found
        said = path.read_bytes().decode(errors="replace")
        return version, redacted(said, self._places(path.parent.parent))

    def decision_log(
        self, account: str, match_id: str, decision: int | None, played_by: str | None = None
    ) -> tuple[str, list[tuple[int, str]]]:
        """The version of the account that played `match_id` (the one named `played_by`, an
        entrant, if given: a challenge of two of the account's versions has both), and the
        lines it printed while the match's decision `decision` (1-based, as the record counts
        actions; None: every decision) was pending, each with its decision, redacted as `log`
        is (none for another seat's decision). NotFoundError for a match none of its versions
        played, or one played before lines were kept by decision."""
        found = self._match_file(account, match_id, DECISION_LINES, played_by)
        if found is None:
            raise NotFoundError(
                f"no output by decision of account {account!r} in match {match_id!r} (a match "
                "played on a cluster, or before the referee kept it: `croupier submissions log "
                "--match` shows its whole log)"
            )
        version, path = found
        places = self._places(path.parent.parent)
        entries = [json.loads(line) for line in path.read_text().splitlines()]
        said = [e for e in entries if decision is None or e["decision"] == decision]
        return version, [(e["decision"], redacted(e["line"], places)) for e in said]

    def _match_file(
        self, account: str, match_id: str, suffix: str, played_by: str | None = None
    ) -> tuple[str, Path] | None:
        """The account's version that played `match_id` (the entrant `played_by`, if given),
        and its file of that match with `suffix` (in MATCH_LOGS), newest version first; None
        when none has one."""
        if not MATCH_ID.fullmatch(match_id):
            raise NotFoundError(f"no match {match_id!r}")
        for version in reversed(self.store.versions(account)):
            if played_by is not None and entrant(version) != played_by:
                continue
            path = self.store.folder(version.id) / MATCH_LOGS / f"{match_id}{suffix}"
            if path.is_file():
                return version.id, path
        return None

    def withdraw(self, account: str, id: str) -> Version:
        """Withdraw one of the account's versions; NotFoundError for another's or none,
        FrozenError while submissions are frozen."""
        found = self.version(account, id)
        self._check_open()
        try:
            return self.store.withdraw(account, found.id)
        except StoreError:
            raise NotFoundError(f"no version {id!r} of account {account!r}") from None

    def _check_open(self) -> None:
        if self.frozen is not None:
            raise FrozenError(
                f"submissions are frozen: {self.frozen}; your versions, their logs and your "
                "matches' output can still be read"
            )

    def _too_large(self, size: int) -> str:
        return (
            f"quota: the upload is {size:,} bytes, more than the {self.quotas.upload_bytes:,} "
            f"allowed: {LEAVE_OUT}"
        )


class Upload:
    """One upload as its bytes arrive, whoever receives them (the Submissions service, the
    site's desk): counted against the hourly quota when it begins, each chunk counted against
    the size cap before it is written (so no more than the cap is ever on disk, and nothing is
    held in memory), then submitted whole. Closing it removes its spool, whatever became of it."""

    def __init__(self, desk: Submitting, account: str, declared_bytes: int = 0) -> None:
        self._desk = desk
        self.account = account
        self.spool = desk.begin(account, declared_bytes)
        self.size = 0
        self._path = desk.upload_path(self.spool)
        try:
            self._file = self._path.open("wb")
        except OSError:
            desk.end(self.spool)
            raise

    def add(self, chunk: bytes) -> None:
        """Write the upload's next bytes; TooLargeError (nothing written) past the cap."""
        self.size += len(chunk)
        self._desk.check_size(self.size)
        self._file.write(chunk)

    def submit(self) -> Version:
        """Submit what arrived (Submitting.submit's errors)."""
        self._file.close()
        return self._desk.submit(self.account, self._path)

    def close(self) -> None:
        self._file.close()
        self._desk.end(self.spool)

    def __enter__(self) -> Upload:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


def build_log(folder: Path) -> Path:
    """A version's build log, given its folder (VersionStore.folder)."""
    return folder / BUILD_LOG


def qualification_report(folder: Path) -> Path:
    """A version's qualification report, given its folder (the pipeline writes it there)."""
    return folder / QUALIFICATION_REPORT


def read_report(folder: Path) -> str:
    """The qualification report of the version in `folder`, as text ("" before any)."""
    try:
        return qualification_report(folder).read_bytes().decode(errors="replace")
    except FileNotFoundError:
        return ""


def match_logs(root: Path, match_id: str, decision: int | None = None) -> str:
    """What each hosted version in the store at `root` printed during `match_id` (with
    `decision`: while that decision was pending), each under a line naming it (the organiser's
    view; read-only). CroupierError when none played it."""
    if not MATCH_ID.fullmatch(match_id):
        raise CroupierError(f"no match {match_id!r}")
    suffix = ".log" if decision is None else DECISION_LINES
    logs = []
    for version in read_listing(root).versions:
        path = version_folder(root, version.id) / MATCH_LOGS / f"{match_id}{suffix}"
        if path.is_file():
            named = f"--- {version.account}, version {version.id[:SHORT_ID]} ---\n"
            if decision is None:
                logs.append(named + path.read_bytes().decode(errors="replace"))
            else:
                entries = [json.loads(line) for line in path.read_text().splitlines()]
                logs += [named, *(e["line"] + "\n" for e in entries if e["decision"] == decision)]
    if not logs:
        raise CroupierError(f"no hosted version's output in match {match_id!r}")
    return "".join(logs)


def match_decision_lines(root: Path, match_id: str) -> list[tuple[int, str]]:
    """Every line each hosted version in the store at `root` printed during `match_id`, with
    its decision, version after version (the organiser's view; read-only). CroupierError when
    none played it, or not since lines were kept by decision."""
    if not MATCH_ID.fullmatch(match_id):
        raise CroupierError(f"no match {match_id!r}")
    found: list[tuple[int, str]] = []
    played = False
    for version in read_listing(root).versions:
        path = version_folder(root, version.id) / MATCH_LOGS / f"{match_id}{DECISION_LINES}"
        if path.is_file():
            played = True
            entries = [json.loads(line) for line in path.read_text().splitlines()]
            found += [(e["decision"], e["line"]) for e in entries]
    if not played:
        raise CroupierError(f"no hosted version's output by decision in match {match_id!r}")
    return found


def log_tail(folder: Path) -> str:
    """The last LOG_BYTES of the build log of the version in `folder` ("" before any build), as
    text with undecodable bytes replaced: what its author and the organiser are shown."""
    try:
        with build_log(folder).open("rb") as data:
            size = data.seek(0, 2)
            data.seek(max(0, size - LOG_BYTES))
            return data.read().decode(errors="replace")
    except FileNotFoundError:
        return ""


def redacted(text: str, places: dict[Path, str]) -> str:
    """`text` with each of `places` (as given and resolved, the longest first, so that a folder
    inside another keeps its own name) replaced by its stand-in."""
    spellings = {str(path): name for path, name in places.items()}
    spellings |= {str(path.resolve()): name for path, name in places.items()}
    for spelling in sorted(spellings, key=len, reverse=True):
        text = text.replace(spelling, spellings[spelling])
    return text


#: Folders a packed bot leaves out: a tool's, never the bot's (their contents change from run to
#: run, and with them the version's id). node_modules is kept: the build has no network, so a
#: Node bot's packages come with it (issue 42.7).
SKIPPED = frozenset({".git", "__pycache__", ".mypy_cache", ".pytest_cache"})
#: Where links are left out rather than refused: npm's own shortcuts (node_modules/.bin), which
#: a bot runs by the file they lead to (`node node_modules/typescript/bin/tsc`).
LINKS_LEFT_OUT = "node_modules"


def pack(folder: Path, into: Path) -> list[str]:
    """Pack a bot's `folder` as a tar.gz at `into`, for an upload: its regular files and
    folders (SKIPPED left out), each named relative to the folder; returns what it left out,
    a line each, for its author to read. A link is refused here, as the referee would refuse
    it, in one line, except in node_modules, where npm makes them: left out, and said."""
    if not (folder / MANIFEST).is_file():
        raise ManifestError(f"{str(folder)!r} holds no {MANIFEST} (docs/bots.md)")
    skipped: list[str] = []
    links: list[str] = []

    def checked(info: tarfile.TarInfo) -> tarfile.TarInfo | None:
        path = PurePosixPath(info.name)
        if path.name in SKIPPED:
            skipped.append(info.name + "/" if info.isdir() else info.name)
            return None
        if info.issym() and LINKS_LEFT_OUT in path.parts[:-1]:
            links.append(info.name)
            return None
        if not (info.isfile() or info.isdir()):
            raise ArchiveError(
                f"{info.name!r} in {str(folder)!r} is not a regular file or folder (a link? "
                "copy the file instead)"
            )
        info.uid = info.gid = 0
        info.uname = info.gname = ""
        return info

    with tarfile.open(into, "w:gz") as tar:
        for entry in sorted(folder.iterdir()):
            tar.add(entry, arcname=entry.name, filter=checked)
    said = [f"left out {name} (a tool's, not the bot's)" for name in skipped]
    if links:
        shown = ", ".join(links[:3]) + (f" and {len(links) - 3} more" if len(links) > 3 else "")
        said.append(
            f"left out {plural(len(links), 'link')} in node_modules ({shown}): npm's shortcuts; "
            "a command runs the file one leads to (node node_modules/typescript/bin/tsc)"
        )
    return said
