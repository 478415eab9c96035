"""Uploads unpacked without trust: every hostile archive is refused, naming its entry, and
nothing is written outside the folder it was unpacked into (real archives on disk)."""

from __future__ import annotations

import io
import os
import stat
import tarfile
import time
import tracemalloc
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Literal

import pytest

from referee.hosted.archive import ArchiveError, ArchiveLimits, unpack

LIMITS = ArchiveLimits()
BOT = {"bot.toml": b'run = "./run.sh"\n', "run.sh": b"#!/bin/sh\nexec python3 bot.py\n"}


def _tar(
    path: Path, mode: Literal["w", "w:gz", "w:xz"], members: list[tuple[tarfile.TarInfo, bytes]]
) -> Path:
    with tarfile.open(path, mode) as tar:
        for info, data in members:
            info.size = len(data) if info.isreg() else 0
            tar.addfile(info, io.BytesIO(data) if info.isreg() else None)
    return path


def _entry(name: str, kind: bytes = tarfile.REGTYPE, **fields: object) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.mode = 0o644
    for key, value in fields.items():
        setattr(info, key, value)
    return info


def _files(members: list[tuple[tarfile.TarInfo, bytes]]) -> list[tuple[tarfile.TarInfo, bytes]]:
    return [(_entry("bot.toml"), BOT["bot.toml"]), *members]


def _unpacked(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {
        str(path.relative_to(folder)): (path.read_bytes(), stat.S_IMODE(path.stat().st_mode))
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def _refused(tmp_path: Path, upload: Path, match: str, limits: ArchiveLimits = LIMITS) -> None:
    """Unpacking `upload` is refused for `match`, and leaves nothing but the upload behind."""
    box = tmp_path / "box"
    box.mkdir(exist_ok=True)
    before = sorted(tmp_path.rglob("*"))
    with pytest.raises(ArchiveError, match=match):
        unpack(upload, box / "into", limits)
    assert sorted(tmp_path.rglob("*")) == before  # `into` removed, nothing written anywhere


@pytest.mark.parametrize("mode", ["w", "w:gz", "w:xz"])
def test_a_tar_of_any_compression_unpacks_its_files_with_only_the_exec_bit(
    tmp_path: Path, mode: Literal["w", "w:gz", "w:xz"]
) -> None:
    run = _entry("./bot/run.sh", mode=0o4777, uid=0, mtime=1)
    members = [(_entry("bot/", tarfile.DIRTYPE), b""), (_entry("bot/bot.toml"), b"x"), (run, b"y")]
    upload = _tar(tmp_path / "upload.bin", mode, members)  # told by content, not by name
    unpack(upload, tmp_path / "into", LIMITS)
    assert _unpacked(tmp_path / "into") == {
        "bot/bot.toml": (b"x", 0o644),
        "bot/run.sh": (b"y", 0o755),
    }


def test_a_zip_and_a_folder_unpack_alike(tmp_path: Path) -> None:
    folder = tmp_path / "bot"
    (folder / "lib").mkdir(parents=True)
    (folder / "bot.toml").write_bytes(BOT["bot.toml"])
    (folder / "run.sh").write_bytes(BOT["run.sh"])
    (folder / "run.sh").chmod(0o700)
    (folder / "lib" / "util.py").write_bytes(b"pass\n")
    upload = tmp_path / "upload.tar"  # a zip, whatever its name says
    with zipfile.ZipFile(upload, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(folder.rglob("*")):
            archive.write(path, path.relative_to(folder).as_posix())
    unpack(upload, tmp_path / "from-zip", LIMITS)
    unpack(folder, tmp_path / "from-folder", LIMITS)
    expected = {
        "bot.toml": (BOT["bot.toml"], 0o644),
        "lib/util.py": (b"pass\n", 0o644),
        "run.sh": (BOT["run.sh"], 0o755),
    }
    assert _unpacked(tmp_path / "from-zip") == expected
    assert _unpacked(tmp_path / "from-folder") == expected


HOSTILE_TARS: dict[str, tuple[list[tuple[tarfile.TarInfo, bytes]], str]] = {
    "traversal": ([(_entry("bot/../../x"), b"owned")], r"'bot/\.\./\.\./x' goes up a folder"),
    "absolute": ([(_entry("/tmp/x"), b"owned")], r"'/tmp/x' is an absolute path"),
    "symlink": (
        [(_entry("passwd", tarfile.SYMTYPE, linkname="/etc/passwd"), b"")],
        r"'passwd' is a symbolic link \(to '/etc/passwd'\)",
    ),
    "inner symlink": (
        [(_entry("alias", tarfile.SYMTYPE, linkname="bot.toml"), b"")],
        r"'alias' is a symbolic link",
    ),
    "hard link": (
        [(_entry("shadow", tarfile.LNKTYPE, linkname="/etc/shadow"), b"")],
        r"'shadow' is a hard link \(to '/etc/shadow'\)",
    ),
    "fifo": ([(_entry("pipe", tarfile.FIFOTYPE), b"")], r"'pipe' is a FIFO"),
    "character device": (
        [(_entry("null", tarfile.CHRTYPE, devmajor=1, devminor=3), b"")],
        r"'null' is a device file",
    ),
    "block device": (
        [(_entry("sda", tarfile.BLKTYPE, devmajor=8, devminor=0), b"")],
        r"'sda' is a device file",
    ),
    "case clash": (
        [(_entry("Bot.toml"), b"other")],
        r"'Bot\.toml' and 'bot\.toml' differ only by case",
    ),
    "folder case clash": (
        [(_entry("Lib/a"), b""), (_entry("lib/b"), b"")],
        r"'lib' and 'Lib' differ only by case",
    ),
    "twice": ([(_entry("bot.toml"), b"again")], r"'bot\.toml' appears twice"),
    "file under a file": ([(_entry("bot.toml/x"), b"")], r"'bot\.toml' appears twice"),
    "too deep": ([(_entry("a/" * 40 + "x"), b"")], r"is more than 32 folders deep"),
    "control character": ([(_entry("bad\nname"), b"")], r"control character"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE_TARS))
def test_a_hostile_tar_entry_is_refused_by_name(tmp_path: Path, case: str) -> None:
    members, reason = HOSTILE_TARS[case]
    _refused(tmp_path, _tar(tmp_path / "upload", "w:gz", _files(members)), reason)


def test_a_name_that_is_not_utf8_is_refused(tmp_path: Path) -> None:
    upload = tmp_path / "upload"
    with tarfile.open(upload, "w", format=tarfile.GNU_FORMAT, encoding="latin-1") as tar:
        tar.addfile(_entry("caf\xe9.py"), io.BytesIO(b""))
    _refused(tmp_path, upload, r"the name b'caf\\xe9\.py' is not valid UTF-8")


def test_more_entries_than_the_limit_are_refused(tmp_path: Path) -> None:
    members = [(_entry(f"f{number}"), b"") for number in range(11)]
    upload = _tar(tmp_path / "upload", "w", members)
    _refused(
        tmp_path, upload, r"'f10': the upload has more than 10 entries", ArchiveLimits(entries=10)
    )


def test_a_tar_header_declaring_a_huge_long_name_is_refused_unread(tmp_path: Path) -> None:
    # A GNU long-name header tarfile would read whole into memory: 100 MB of 'a' gzips small.
    header = _entry("././@LongLink", tarfile.GNUTYPE_LONGNAME)
    header.size = 100 * 1024 * 1024
    upload = tmp_path / "upload"
    with tarfile.open(upload, "w:gz") as tar:
        tar.fileobj.write(header.tobuf(tarfile.GNU_FORMAT))
        block = b"a" * (1024 * 1024)
        for _ in range(100):
            tar.fileobj.write(block)
    _refused(tmp_path, upload, r"a tar header declares \d+ bytes, more than 1048576")


def _zip_with(path: Path, name: str, data: bytes, mode: int, flag_bits: int = 0) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("bot.toml", BOT["bot.toml"])
        info = zipfile.ZipInfo(name)
        info.create_system = 3
        info.external_attr = mode << 16
        archive.writestr(info, data)
    return path


@pytest.mark.parametrize(
    ("name", "mode", "reason"),
    [
        ("../../x", stat.S_IFREG | 0o644, r"'\.\./\.\./x' goes up a folder"),
        ("/etc/cron.d/x", stat.S_IFREG | 0o644, r"'/etc/cron\.d/x' is an absolute path"),
        ("passwd", stat.S_IFLNK | 0o777, r"'passwd' is a symbolic link"),
        ("pipe", stat.S_IFIFO | 0o644, r"'pipe' is not a regular file or folder"),
        ("BOT.TOML", stat.S_IFREG | 0o644, r"'BOT\.TOML' and 'bot\.toml' differ only by case"),
        ("a\\..\\x", stat.S_IFREG | 0o644, r"backslash"),
    ],
)
def test_a_hostile_zip_entry_is_refused_by_name(
    tmp_path: Path, name: str, mode: int, reason: str
) -> None:
    data = b"/etc/passwd" if stat.S_ISLNK(mode) else b"owned"
    _refused(tmp_path, _zip_with(tmp_path / "upload", name, data, mode), reason)


def test_a_zip_name_that_is_not_utf8_is_refused(tmp_path: Path) -> None:
    upload = _zip_with(tmp_path / "upload", "cafX.py", b"", stat.S_IFREG | 0o644)
    # zipfile flags any non-ASCII name as UTF-8: write the raw cp437 byte of é (0x82) instead,
    # unflagged, in the local header and the central directory alike.
    upload.write_bytes(upload.read_bytes().replace(b"cafX.py", b"caf\x82.py"))
    _refused(tmp_path, upload, r"the name b'caf\\x82\.py' is not valid UTF-8")


@pytest.fixture(scope="module")
def zip_bomb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 1 MB zip holding a 1 GB run of zeros."""
    path = tmp_path_factory.mktemp("bomb") / "bomb.zip"
    zeros = bytes(1024 * 1024)
    with (
        zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive,
        archive.open("zeros", "w") as out,
    ):
        for _ in range(1024):
            out.write(zeros)
    return path


def test_a_zip_bomb_stops_at_the_limit_quickly_in_little_memory(
    tmp_path: Path, zip_bomb: Path
) -> None:
    assert zip_bomb.stat().st_size < 8 * 1024 * 1024
    limit = 32 * 1024 * 1024
    into = tmp_path / "into"
    tracemalloc.start()
    started = time.monotonic()
    try:
        with pytest.raises(
            ArchiveError, match=r"'zeros': the upload unpacks to more than 33554432"
        ):
            unpack(zip_bomb, into, ArchiveLimits(unpacked_bytes=limit))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert time.monotonic() - started < 10
    assert peak < 4 * 1024 * 1024
    assert not into.exists()


def test_a_folder_with_a_link_or_a_fifo_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "bot.toml").write_bytes(BOT["bot.toml"])
    (folder / "passwd").symlink_to("/etc/passwd")
    _refused(tmp_path, folder, r"'passwd' is a symbolic link")
    (folder / "passwd").unlink()
    os.mkfifo(folder / "pipe")
    _refused(tmp_path, folder, r"'pipe' is not a regular file or folder")


@pytest.mark.parametrize(
    ("make", "reason"),
    [
        (lambda path: path.write_bytes(b"hello, not an archive"), r"is not a tar, tar\.gz"),
        (lambda path: path.write_bytes(b"\x1f\x8b\x08\x00garbage"), r"is a damaged archive"),
        (lambda path: path.write_bytes(b"\xfd7zXZ\x00garbage"), r"is a damaged archive"),
        (lambda path: path.write_bytes(b"PK\x03\x04garbage"), r"no end of central directory"),
    ],
)
def test_an_upload_that_is_no_archive_is_refused(
    tmp_path: Path, make: Callable[[Path], None], reason: str
) -> None:
    make(tmp_path / "upload")
    _refused(tmp_path, tmp_path / "upload", reason)


def test_an_upload_over_its_size_limit_is_refused_unread(tmp_path: Path) -> None:
    upload = _tar(tmp_path / "upload", "w", [(_entry("big"), bytes(20_000))])
    _refused(
        tmp_path,
        upload,
        r"'upload' is \d+ bytes, more than the limit of 10000",
        ArchiveLimits(upload_bytes=10_000),
    )


def test_submit_keeps_node_modules_and_says_what_it_leaves_out(tmp_path: Path) -> None:
    """Issue 42.7: `croupier submit` dropped node_modules without a word, and a hosted build
    has no network for `npm ci`. The packages go with the bot; npm's links in node_modules/.bin
    are left out (a link is refused anywhere else), and so are a tool's folders: each said."""
    from referee.hosted.submitting import pack

    bot = tmp_path / "bot"
    (bot / "node_modules" / "pkg").mkdir(parents=True)
    (bot / "node_modules" / "pkg" / "index.js").write_text("export const x = 1;\n")
    (bot / "node_modules" / ".bin").mkdir()
    (bot / "node_modules" / ".bin" / "pkg").symlink_to("../pkg/index.js")
    (bot / ".git").mkdir()
    (bot / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (bot / "bot.toml").write_text('games = ["xix"]\nrun = "node bot.js"\n')
    (bot / "bot.js").write_text("import 'pkg';\n")
    said = pack(bot, tmp_path / "bot.tar.gz")
    with tarfile.open(tmp_path / "bot.tar.gz") as tar:
        names = set(tar.getnames())
    assert "node_modules/pkg/index.js" in names and "bot.js" in names
    assert not any(name.startswith((".git", "node_modules/.bin/")) for name in names), names
    assert said == [
        "left out .git/ (a tool's, not the bot's)",
        "left out 1 link in node_modules (node_modules/.bin/pkg): npm's shortcuts; a command "
        "runs the file one leads to (node node_modules/typescript/bin/tsc)",
    ]
    (bot / "elsewhere").symlink_to("bot.js")
    with pytest.raises(ArchiveError, match=r"'elsewhere' .* is not a regular file or folder"):
        pack(bot, tmp_path / "again.tar.gz")
