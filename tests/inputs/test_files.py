"""Atomic writes, link-refusing opens and the cache sealing key."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from abductive_tasks.inputs import files


def test_a_write_that_fails_leaves_the_previous_file_and_no_temporary(tmp_path, monkeypatch):
    target = tmp_path / "report.md"
    files.write_atomic(target, "old\n")

    def full_disk(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(files.os, "fsync", full_disk)
    with pytest.raises(OSError, match="No space"):
        files.write_atomic(target, "new\n")
    assert target.read_text() == "old\n" and [path.name for path in tmp_path.iterdir()] == ["report.md"]


def test_a_set_is_replaced_only_once_every_file_is_written(tmp_path, monkeypatch):
    a, b = tmp_path / "a.csv", tmp_path / "b.html"
    files.write_set({a: "a1", b: "b1"})
    written = []
    real = files._write_temporary

    def second_fails(path: Path, data: bytes) -> str:
        if written:
            raise OSError(27, "File too large")
        written.append(path)
        return real(path, data)

    monkeypatch.setattr(files, "_write_temporary", second_fails)
    with pytest.raises(OSError):
        files.write_set({a: "a2", b: "b2"})
    assert (a.read_text(), b.read_text()) == ("a1", "b1") and sorted(p.name for p in tmp_path.iterdir()) == [
        "a.csv",
        "b.html",
    ]


def test_a_link_at_the_target_is_replaced_not_followed(tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("keep")
    (tmp_path / "status.json").symlink_to(victim)
    files.write_atomic(tmp_path / "status.json", "{}")
    assert victim.read_text() == "keep" and not (tmp_path / "status.json").is_symlink()
    (tmp_path / "lock").symlink_to(victim)
    with pytest.raises(OSError, match="symbolic link"):
        files.open_nofollow(tmp_path / "lock", os.O_RDWR | os.O_CREAT)
    assert victim.read_text() == "keep"


def test_the_sealing_key_is_private_and_a_readable_or_linked_one_is_replaced(tmp_path, monkeypatch):
    monkeypatch.setenv("ABDUCTIVE_CACHE", str(tmp_path))
    sealed = files.seal(b"payload", "entry")
    key_file = tmp_path / files.KEY_NAME
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert files.unseal(sealed, "entry") == b"payload"
    assert (
        files.unseal(sealed, "another entry") is None and files.unseal(sealed.replace(b"pay", b"bay"), "entry") is None
    )
    key_file.chmod(0o644)  # readable by others: no longer trusted, replaced (every entry is rebuilt)
    assert files.unseal(sealed, "entry") is None and stat.S_IMODE(key_file.stat().st_mode) == 0o600
    planted = tmp_path / "planted"
    planted.write_bytes(b"k" * 32)
    planted.chmod(0o600)
    key_file.unlink()
    key_file.symlink_to(planted)
    resealed = files.seal(b"payload", "entry")
    assert not key_file.is_symlink() and files.unseal(resealed, "entry") == b"payload"
    assert planted.read_bytes() == b"k" * 32


def test_file_sha256_is_the_digest_of_the_bytes_on_every_supported_python(tmp_path):
    """hashlib.file_digest is Python 3.11+; the package supports 3.10 (mypy found the call, checked as 3.10)."""
    import hashlib

    path = tmp_path / "blob.bin"
    data = bytes(range(256)) * 5000  # more than one block
    path.write_bytes(data)
    assert files.file_sha256(path) == hashlib.sha256(data).hexdigest()
