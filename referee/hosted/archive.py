"""Unpacking an author's upload without trusting it: a tar (plain, gzip or xz), a zip, or a folder.

The format is told by the first bytes, never by the name. Every entry is checked before anything
is written, and the checks are the store's guarantee that a version's folder holds regular files
and folders only, all inside it:

- names: not absolute, no `..`, no backslash or control character, valid UTF-8, at most
  `ArchiveLimits.depth` folders deep, and no two equal under casefold (a clash on macOS or
  Windows, and two files a build would see as one);
- kinds: regular files and folders only. Links are refused, all of them: a symbolic or hard link
  that stays inside is harmless on its own, but whether it does depends on every other entry, and
  the sandbox, the copy into the store and the version's hash would each have to resolve it the
  same way. An author can copy the file instead. Device files, FIFOs and sockets are refused;
- counts: at most `ArchiveLimits.entries` entries, at most `ArchiveLimits.unpacked_bytes` bytes
  written, counted while writing (a declared size is never believed, so a zip bomb stops at the
  limit), and an archive file of at most `ArchiveLimits.upload_bytes`.

What is written: each regular file with mode 0o755 if any execute bit was set, else 0o644 (no
owner, times or other bits are kept), and the folders that hold them. A folder entry with no file
in it is checked but not made: a version is its files (see `referee.hosted.store.version_id`).
Files are created with `O_CREAT | O_EXCL | O_NOFOLLOW` relative to folders opened with
`O_NOFOLLOW` that this module made itself, so nothing is written outside `into` whatever the
archive holds. On any refusal `into` is removed, and `ArchiveError` names the entry and why.
"""

from __future__ import annotations

import contextlib
import gzip
import lzma
import os
import shutil
import stat
import struct
import tarfile
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Protocol

from referee.errors import CroupierError

CHUNK_BYTES = 64 * 1024
# A tar's long name or pax header is read whole by tarfile: more than this is no real header.
HEADER_BYTES = 1024 * 1024
# A zip's central directory holds 46 bytes and a name per entry: 1 KiB an entry is generous.
CENTRAL_DIRECTORY_BYTES_PER_ENTRY = 1024

_GZIP = b"\x1f\x8b"
_XZ = b"\xfd7zXZ\x00"
_ZIP = (b"PK\x03\x04", b"PK\x05\x06")  # an archive with entries, an empty one
_USTAR = b"ustar"  # at offset 257 of a tar header, POSIX and GNU alike
_ZIP_END = b"PK\x05\x06"
_ZIP_END_BYTES = 22


# What the readers raise for an archive that is cut short or corrupt.
_DAMAGED = (
    tarfile.TarError,
    zipfile.BadZipFile,
    gzip.BadGzipFile,
    zlib.error,
    lzma.LZMAError,
    EOFError,
    UnicodeDecodeError,  # a zip's name flagged UTF-8 that is not
)


#: What an author whose upload is over a size or count limit can do.
LEAVE_OUT = (
    "leave out what the bot does not need to run (data, caches, build output), or pack it "
    "into fewer, smaller files"
)


class ArchiveError(CroupierError):
    """An upload refused: its format, an entry's name or kind, or a limit; names the entry."""


#: The longest name of one file or folder, bytes (Linux's NAME_MAX): a longer one cannot be
#: written, and was refused as a bare OSError (issue 41.4).
NAME_BYTES = 255
#: The longest path within the upload, bytes: well inside PATH_MAX once under the store.
PATH_BYTES = 1024


@dataclass(frozen=True, slots=True)
class ArchiveLimits:
    """What one upload may hold. The defaults fit a bot with a small model or vendored library:
    a large Python bot with its dependencies vendored is a few thousand files and tens of MB."""

    entries: int = 10_000
    unpacked_bytes: int = 256 * 1024 * 1024
    upload_bytes: int = 64 * 1024 * 1024
    depth: int = 32


class _Reader(Protocol):
    def read(self, size: int, /) -> bytes: ...


class _Seekable(_Reader, Protocol):
    def seek(self, offset: int, whence: int = 0, /) -> int: ...

    def tell(self) -> int: ...


def unpack(source: Path, into: Path, limits: ArchiveLimits) -> None:
    """Unpack the archive or copy the folder at `source` into `into`, which must not exist yet
    (its parent must). Raises `ArchiveError` for anything refused, leaving no `into` behind."""
    os.mkdir(into, 0o755)
    try:
        with _Sink(into, limits) as sink:
            if source.is_dir():
                _copy_folder(source, sink)
            else:
                _unpack_file(source, sink, limits)
    except BaseException:
        shutil.rmtree(into, ignore_errors=True)
        raise


def _unpack_file(source: Path, sink: _Sink, limits: ArchiveLimits) -> None:
    try:
        size = source.stat().st_size
        with source.open("rb") as raw:
            head = raw.read(512)
            raw.seek(0)
            if size > limits.upload_bytes:
                raise ArchiveError(
                    f"the upload {source.name!r} is {size} bytes, more than the limit of "
                    f"{limits.upload_bytes}: {LEAVE_OUT}"
                )
            if head.startswith(_ZIP):
                _unpack_zip(raw, size, sink, limits)
            elif head.startswith(_GZIP):
                with gzip.GzipFile(fileobj=raw) as tar:
                    _unpack_tar(tar, sink)
            elif head.startswith(_XZ):
                with lzma.LZMAFile(raw) as tar:
                    _unpack_tar(tar, sink)
            elif head[257:262] == _USTAR:
                _unpack_tar(raw, sink)
            else:
                raise ArchiveError(
                    f"the upload {source.name!r} is not a tar, tar.gz, tar.xz or zip archive"
                )
    except _DAMAGED as error:
        raise ArchiveError(f"the upload {source.name!r} is a damaged archive: {error}") from None
    except (NotImplementedError, RuntimeError) as error:  # a zip's method, a password
        raise ArchiveError(f"the upload {source.name!r} cannot be read: {error}") from None


class _HeaderGuard:
    """A tar stream that refuses one read larger than `HEADER_BYTES`: tarfile reads a long name
    or pax header whole, at the size the archive declares (a memory bomb otherwise)."""

    def __init__(self, inner: _Seekable) -> None:
        self._inner = inner

    def read(self, size: int = -1) -> bytes:
        if size < 0 or size > HEADER_BYTES:
            raise ArchiveError(f"a tar header declares {size} bytes, more than {HEADER_BYTES}")
        return self._inner.read(size)

    def seek(self, offset: int, whence: int = 0) -> int:
        return self._inner.seek(offset, whence)

    def tell(self) -> int:
        return self._inner.tell()


def _unpack_tar(stream: _Seekable, sink: _Sink) -> None:
    guard: IO[bytes] = _HeaderGuard(stream)  # type: ignore[assignment]
    with tarfile.open(fileobj=guard, mode="r:", encoding="utf-8", errors="surrogateescape") as tar:
        while (member := tar.next()) is not None:
            name = member.name
            if member.isdir():
                sink.folder(name)
            elif member.issym():
                raise ArchiveError(f"{name!r} is a symbolic link (to {member.linkname!r})")
            elif member.islnk():
                raise ArchiveError(f"{name!r} is a hard link (to {member.linkname!r})")
            elif member.ischr() or member.isblk():
                raise ArchiveError(f"{name!r} is a device file")
            elif member.isfifo():
                raise ArchiveError(f"{name!r} is a FIFO")
            elif member.isreg():
                data = tar.extractfile(member)
                assert data is not None  # a regular member always has data
                sink.file(name, data, executable=bool(member.mode & 0o111))
            else:
                raise ArchiveError(f"{name!r} is a tar entry of type {member.type!r}")


def _unpack_zip(raw: IO[bytes], size: int, sink: _Sink, limits: ArchiveLimits) -> None:
    _check_zip_directory(raw, size, limits)
    with zipfile.ZipFile(raw) as archive:
        for info in archive.infolist():
            name = _zip_name(info)
            mode = info.external_attr >> 16 if info.create_system == 3 else 0
            kind = stat.S_IFMT(mode)
            if kind == stat.S_IFLNK:
                raise ArchiveError(f"{name!r} is a symbolic link")
            if kind not in (0, stat.S_IFREG, stat.S_IFDIR):
                raise ArchiveError(f"{name!r} is not a regular file or folder (mode {mode:o})")
            if info.is_dir():
                sink.folder(name)
            else:
                with archive.open(info) as data:
                    sink.file(name, data, executable=bool(mode & 0o111))


def _zip_name(info: zipfile.ZipInfo) -> str:
    """The entry's name as UTF-8, whether or not the zip's UTF-8 flag is set (many tools omit
    it); zipfile decodes an unflagged name as cp437, which every byte string is."""
    if info.flag_bits & 0x800:
        return info.filename
    raw = info.orig_filename.encode("cp437")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ArchiveError(f"the name {raw!r} is not valid UTF-8") from None


def _check_zip_directory(raw: IO[bytes], size: int, limits: ArchiveLimits) -> None:
    """Refuse a zip whose central directory declares too many entries before zipfile reads it
    whole into memory. A zip64 archive declares 0xFFFF entries here and is refused: no bot
    needs more than 65,535 files or 4 GB."""
    tail = min(size, _ZIP_END_BYTES + 0xFFFF)
    raw.seek(size - tail)
    data = raw.read(tail)
    raw.seek(0)
    at = data.rfind(_ZIP_END)
    if at < 0 or len(data) - at < _ZIP_END_BYTES:
        raise ArchiveError("the zip has no end of central directory record")
    entries, directory_bytes = struct.unpack("<HI", data[at + 10 : at + 16])
    if entries > limits.entries:
        raise ArchiveError(f"the zip declares {entries} entries, more than {limits.entries}")
    if directory_bytes > limits.entries * CENTRAL_DIRECTORY_BYTES_PER_ENTRY:
        raise ArchiveError(f"the zip's central directory is {directory_bytes} bytes, too large")


def _copy_folder(source: Path, sink: _Sink) -> None:
    """Copy a folder as if it were an archive of it: the same checks, links refused too."""
    for relative, entry in _walk(source, ""):
        if entry.is_symlink():
            raise ArchiveError(f"{relative!r} is a symbolic link")
        if entry.is_dir(follow_symlinks=False):
            sink.folder(relative)
        elif entry.is_file(follow_symlinks=False):
            # Non-blocking, so that a file swapped for a FIFO since the scan cannot hang us.
            fd = os.open(entry.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
            with os.fdopen(fd, "rb") as data:
                mode = os.fstat(fd).st_mode
                if not stat.S_ISREG(mode):
                    raise ArchiveError(f"{relative!r} is not a regular file")
                sink.file(relative, data, executable=bool(mode & 0o111))
        else:
            raise ArchiveError(f"{relative!r} is not a regular file or folder")


def _walk(folder: Path, prefix: str) -> Iterator[tuple[str, os.DirEntry[str]]]:
    with os.scandir(folder) as scan:
        entries = sorted(scan, key=lambda entry: entry.name)
    for entry in entries:
        relative = f"{prefix}{entry.name}"
        yield relative, entry
        if entry.is_dir(follow_symlinks=False) and not entry.is_symlink():
            yield from _walk(Path(entry.path), f"{relative}/")


class _Sink:
    """Where entries are checked and written: the one place that touches `into`."""

    def __init__(self, into: Path, limits: ArchiveLimits) -> None:
        self._limits = limits
        self._root = os.open(into, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        self._entries = 0
        self._bytes = 0
        self._seen: dict[str, tuple[str, bool]] = {}  # casefolded path: (path, is a folder)

    def __enter__(self) -> _Sink:
        return self

    def __exit__(self, *_: object) -> None:
        os.close(self._root)

    def folder(self, name: str) -> None:
        self._claim(self._parts(name), folder=True)

    def file(self, name: str, data: _Reader, *, executable: bool) -> None:
        parts = self._parts(name)
        if not parts:
            raise ArchiveError(f"{name!r} is a file with no name")
        self._claim(parts, folder=False)
        with self._folder_fd(parts[:-1]) as parent:
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
            fd = os.open(parts[-1], flags, 0o755 if executable else 0o644, dir_fd=parent)
        with os.fdopen(fd, "wb") as out:
            while chunk := data.read(CHUNK_BYTES):
                self._bytes += len(chunk)
                if self._bytes > self._limits.unpacked_bytes:
                    raise ArchiveError(
                        f"{name!r}: the upload unpacks to more than "
                        f"{self._limits.unpacked_bytes} bytes, the limit: {LEAVE_OUT}"
                    )
                out.write(chunk)

    def _parts(self, name: str) -> tuple[str, ...]:
        self._entries += 1
        if self._entries > self._limits.entries:
            raise ArchiveError(
                f"{name!r}: the upload has more than {self._limits.entries} entries, the limit: "
                f"{LEAVE_OUT}"
            )
        try:
            name.encode("utf-8")
        except UnicodeEncodeError:
            shown = name.encode("utf-8", "surrogateescape")
            raise ArchiveError(f"the name {shown!r} is not valid UTF-8") from None
        if name.startswith("/"):
            raise ArchiveError(f"{name!r} is an absolute path")
        if "\\" in name or any(ord(c) < 0x20 or ord(c) == 0x7F for c in name):
            raise ArchiveError(f"{name!r} has a backslash or a control character in its name")
        parts = tuple(part for part in name.split("/") if part not in ("", "."))
        if ".." in parts:
            raise ArchiveError(f"{name!r} goes up a folder ('..')")
        if len(parts) > self._limits.depth:
            raise ArchiveError(f"{name!r} is more than {self._limits.depth} folders deep")
        long = [part for part in parts if len(part.encode()) > NAME_BYTES]
        if long:
            raise ArchiveError(
                f"{name[:80]!r}...: a name of {len(long[0].encode())} bytes, more than the "
                f"{NAME_BYTES} a file system holds"
            )
        if len(name.encode()) > PATH_BYTES:
            raise ArchiveError(f"{name[:80]!r}...: a path of more than {PATH_BYTES} bytes")
        return parts

    def _claim(self, parts: tuple[str, ...], *, folder: bool) -> None:
        """Record the path and its folders; refuse one that clashes with a path seen before."""
        for depth in range(1, len(parts) + 1):
            path = "/".join(parts[:depth])
            is_folder = folder or depth < len(parts)
            seen = self._seen.get(path.casefold())
            if seen is None:
                self._seen[path.casefold()] = (path, is_folder)
            elif seen[0] != path:
                raise ArchiveError(f"{path!r} and {seen[0]!r} differ only by case")
            elif not (seen[1] and is_folder):  # a folder may be named again, a file not
                raise ArchiveError(f"{path!r} appears twice in the upload")

    @contextlib.contextmanager
    def _folder_fd(self, parts: tuple[str, ...]) -> Iterator[int]:
        """The folder `parts` under `into`, made if need be, opened without following links."""
        fd = os.dup(self._root)
        try:
            for part in parts:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, 0o755, dir_fd=fd)
                child = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
                os.close(fd)
                fd = child
            yield fd
        finally:
            os.close(fd)
