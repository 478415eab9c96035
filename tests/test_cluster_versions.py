"""Hosted versions as they travel to Dask workers (referee.cluster.versions), with real files:
the same folder packs to the same digest; links travel as links, never followed (a built folder
that links to the contest's database ships a link, not the database); an unpack is whole or
absent, readable by the sandbox's users, and refuses damage and paths that leave its folder;
and `croupier serve --cluster` is refused where it cannot mean anything."""

from __future__ import annotations

import hashlib
import io
import os
import stat
import zipfile
from pathlib import Path

import pytest
from typer.testing import CliRunner

from referee.cli import app
from referee.cluster import ClusterError
from referee.cluster.packing import COMPLETE
from referee.cluster.versions import cached, pack_folder, unpack_version

runner = CliRunner()


def _built(folder: Path) -> Path:
    (folder / "bin").mkdir(parents=True)
    (folder / "bin" / "bot").write_bytes(b"#!/bin/sh\necho hi\n")
    (folder / "bin" / "bot").chmod(0o700)
    (folder / "model.bin").write_bytes(os.urandom(4096))
    return folder


def test_the_same_folder_packs_to_the_same_digest_and_a_change_to_another(tmp_path: Path) -> None:
    folder = _built(tmp_path / "v")
    digest, data = pack_folder(folder)
    assert pack_folder(folder) == (digest, data)
    (folder / "model.bin").write_bytes(b"other")
    assert pack_folder(folder)[0] != digest


def test_a_link_to_the_database_ships_as_a_link_not_its_contents(tmp_path: Path) -> None:
    secret = tmp_path / "contest.db"
    secret.write_bytes(b"SECRET-TOKENS")
    folder = _built(tmp_path / "v")
    (folder / "db").symlink_to(secret)
    os.mkfifo(folder / "fifo")
    digest, data = pack_folder(folder)
    assert b"SECRET-TOKENS" not in data
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        assert "fifo" not in archive.namelist()  # neither a file nor a link: left out
    target = tmp_path / "cache" / "v1"
    unpack_version(data, digest, target)
    assert (target / "db").is_symlink() and os.readlink(target / "db") == str(secret)
    mode = (target / "bin" / "bot").stat().st_mode
    assert mode & stat.S_IXOTH and mode & stat.S_IROTH  # the sandbox runs it as another user
    assert (target / "model.bin").read_bytes() == (folder / "model.bin").read_bytes()
    assert cached(tmp_path / "cache", "v1")


def test_an_unpack_is_done_once_and_refuses_damage_and_escapes(tmp_path: Path) -> None:
    digest, data = pack_folder(_built(tmp_path / "v"))
    with pytest.raises(ClusterError, match="damaged"):
        unpack_version(data[:-10] + b"0123456789", digest, tmp_path / "cache" / "bad")
    assert not (tmp_path / "cache" / "bad").exists()
    target = tmp_path / "cache" / "good"
    unpack_version(data, digest, target)
    (target / "model.bin").write_bytes(b"kept")
    unpack_version(data, digest, target)  # cached: not unpacked again
    assert (target / "model.bin").read_bytes() == b"kept"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("../escaped", b"x")
    evil = buffer.getvalue()
    with pytest.raises(ClusterError, match="outside"):
        unpack_version(evil, hashlib.sha256(evil).hexdigest(), tmp_path / "cache" / "evil")
    assert not (tmp_path / "cache" / "escaped").exists()
    assert not (tmp_path / "cache" / "evil" / COMPLETE).exists()


def test_serve_cluster_needs_a_contest_and_a_scheduler_address(tmp_path: Path) -> None:
    alone = runner.invoke(app, ["serve", "--cluster", "tcp://127.0.0.1:8786"])
    assert alone.exit_code == 2 and "--cluster plays a contest's hosted bots" in alone.output
    db = tmp_path / "contest.db"
    assert runner.invoke(app, ["token", "add", "alice", "--db", str(db)]).exit_code == 0
    wrong = runner.invoke(app, ["serve", "--db", str(db), "--cluster", "http://x:1"])
    assert wrong.exit_code == 2 and "expected an address such as tcp://host:8786" in wrong.output
