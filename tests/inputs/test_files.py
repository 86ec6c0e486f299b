"""Atomic writes, link-refusing opens and the cache sealing key."""

from __future__ import annotations

import errno
import functools
import os
import re
import stat
from pathlib import Path
from types import ModuleType

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


@pytest.mark.parametrize("interrupt", [KeyboardInterrupt, SystemExit])
def test_an_interrupt_between_two_renames_finishes_the_set(tmp_path, monkeypatch, interrupt):
    """Ctrl-C or a stop signal (SystemExit, abductive-eval's quick commands) landing between the renames of a set left
    a report half old, half new and the rest's temporary files removed (a blind review, by SIGTERM to
    ``leaderboard``): the renames are finished first, then the interrupt goes on."""
    targets = [tmp_path / name for name in ("a.csv", "b.html", "c.json")]
    files.write_set(dict.fromkeys(targets, "old"))
    renames = []
    real = os.replace

    def interrupted_after_the_first(source, target):
        renames.append(target)
        if len(renames) == 2:
            raise interrupt()  # before the second rename, as a handler between two bytecodes
        real(source, target)

    monkeypatch.setattr(files.os, "replace", interrupted_after_the_first)
    with pytest.raises(interrupt):
        files.write_set(dict.fromkeys(targets, "new"))
    assert [path.read_text() for path in targets] == ["new", "new", "new"]
    assert sorted(path.name for path in tmp_path.iterdir()) == ["a.csv", "b.html", "c.json"]


def test_a_rename_refused_while_an_interrupt_finishes_the_set_leaves_no_temporary_file(tmp_path, monkeypatch):
    """The file system refusing a rename while an interrupt finishes the set: the rest's temporary files go, and the
    interrupt, not the refusal, goes on (a blind review)."""
    targets = [tmp_path / name for name in ("a.csv", "b.html", "c.json")]
    renames = []
    real = os.replace

    def interrupted_then_refused(source, target):
        renames.append(target)
        if len(renames) == 2:
            raise KeyboardInterrupt
        if len(renames) == 3:
            raise PermissionError(13, "Permission denied")
        real(source, target)

    monkeypatch.setattr(files.os, "replace", interrupted_then_refused)
    with pytest.raises(KeyboardInterrupt):
        files.write_set(dict.fromkeys(targets, "new"))
    assert sorted(path.name for path in tmp_path.iterdir()) == ["a.csv"]


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


def test_a_seal_is_held_against_every_character_of_its_mac(tmp_path, monkeypatch):
    """A seal differing from the right one in any single hex digit, the last included, is refused (a check of a
    prefix only, the second mutation review's m15, passed every test)."""
    monkeypatch.setenv("ABDUCTIVE_CACHE", str(tmp_path))
    sealed = files.seal(b"payload", "entry")
    head, payload = sealed.split(b"\n", 1)
    mac = head[-files._MAC_HEX :]
    assert len(mac) == files._MAC_HEX and files.unseal(sealed, "entry") == b"payload"
    for position in (0, 8, files._MAC_HEX // 2, files._MAC_HEX - 1):
        other = b"0" if mac[position : position + 1] != b"0" else b"1"
        forged = head[: -files._MAC_HEX] + mac[:position] + other + mac[position + 1 :]
        assert files.unseal(forged + b"\n" + payload, "entry") is None, position


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


@pytest.mark.parametrize("kind", ["a directory", "a FIFO"])
def test_what_is_no_key_file_at_the_key_is_moved_aside_and_a_key_made(tmp_path, monkeypatch, kind):
    """A directory planted at ``.cache_key`` made every sealing call raise IsADirectoryError (the run failed with a
    traceback); a FIFO made it wait for ever."""
    monkeypatch.setenv("ABDUCTIVE_CACHE", str(tmp_path))
    key_file = tmp_path / files.KEY_NAME
    if kind == "a directory":
        key_file.mkdir()
        (key_file / "kept").write_text("theirs")
    else:
        os.mkfifo(key_file)
    [line] = files.cache_ready()
    assert f"{key_file} was {kind} where the cache's sealing key goes; moved aside" in line
    assert line.endswith(".set-aside (a new key is made when one is next needed)")  # said "made": none was yet
    assert not key_file.exists()
    [aside] = [path for path in tmp_path.iterdir() if path.name.endswith(".set-aside")]
    assert (aside / "kept").read_text() == "theirs" if kind == "a directory" else stat.S_ISFIFO(aside.lstat().st_mode)
    assert files.unseal(files.seal(b"payload", "entry"), "entry") == b"payload"
    assert stat.S_ISREG(key_file.lstat().st_mode) and stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert files.cache_ready() == []


def test_a_key_that_cannot_be_moved_aside_is_one_line_naming_it(tmp_path, monkeypatch):
    (tmp_path / files.KEY_NAME).mkdir()

    def refused(source: object, target: object) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(files.os, "rename", refused)
    with pytest.raises(OSError, match=r"\.cache_key is a directory where the cache's sealing key goes and cannot be"):
        files.cache_ready(tmp_path)


def test_a_link_where_a_folder_of_the_cache_goes_is_removed_never_written_through(tmp_path, monkeypatch):
    """A link planted at ``thumbnails/`` (or any folder below a cache folder) had cache entries written into the
    folder it pointed to."""
    from abductive_tasks.reports import thumbnails

    monkeypatch.setenv("ABDUCTIVE_CACHE", str(tmp_path / "cache"))
    victim = tmp_path / "victim"
    victim.mkdir()
    (tmp_path / "cache" / "judge").mkdir(parents=True)
    (tmp_path / "cache" / "thumbnails").symlink_to(victim)
    (tmp_path / "cache" / "judge" / "ab").symlink_to(victim)
    changed = files.cache_ready()
    assert changed == [
        f"{tmp_path / 'cache' / 'judge' / 'ab'} was a link to {victim} where a folder of the cache goes; removed, "
        "never followed",
        f"{tmp_path / 'cache' / 'thumbnails'} was a link to {victim} where a folder of the cache goes; removed, "
        "never followed",
    ]
    thumbnails.keep("ab" * 32, 160, b"jpeg")
    assert list(victim.iterdir()) == [] and thumbnails.cached("ab" * 32, 160) == b"jpeg"


def test_every_folder_the_package_keeps_under_the_cache_is_one_cache_ready_checks():
    from abductive_tasks.models.llava_original import CACHE_FOLDER
    from abductive_tasks.reports.leaderboard.render import PLOT_CACHE

    package = Path(files.__file__).parents[1]
    named = {
        name
        for source in package.rglob("*.py")
        for name in re.findall(r'cache_root\(\)\)? / "([\w.]+)"', source.read_text(encoding="utf-8"))
        if "." not in name  # a file (file_hashes.sqlite3), not a folder
    }
    assert named and named | {CACHE_FOLDER, PLOT_CACHE} == set(files.CACHE_FOLDERS)


def test_file_sha256_is_the_digest_of_the_bytes_on_every_supported_python(tmp_path):
    """hashlib.file_digest is Python 3.11+; the package supports 3.10 (mypy found the call, checked as 3.10)."""
    import hashlib

    path = tmp_path / "blob.bin"
    data = bytes(range(256)) * 5000  # more than one block
    path.write_bytes(data)
    assert files.file_sha256(path) == hashlib.sha256(data).hexdigest()


# ---------------------------------------------------------------- user-named outputs (-o, --out)


def device_node(path: Path) -> Path:
    """A character device at ``path`` (the same device as /dev/null); skipped where this user cannot make one."""
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except PermissionError:
        pytest.skip("making a device node needs CAP_MKNOD")
    return path


@pytest.mark.parametrize("kind", ["FIFO", "character device", "directory", "link to a FIFO", "link to a directory"])
def test_an_output_that_is_no_regular_file_is_refused_and_left_as_it_is(tmp_path, kind):
    """``browse -o /dev/full`` as root replaced the device node with the page; ``-o`` on a FIFO replaced the FIFO (its
    reader got 0 bytes)."""
    target = tmp_path / "out.html"
    if "FIFO" in kind:
        os.mkfifo(tmp_path / "fifo")
    if kind == "character device":
        device_node(target)
    elif kind == "directory" or kind == "link to a directory":
        (tmp_path / "folder").mkdir()
    if kind == "FIFO":
        target = tmp_path / "fifo"
    elif kind == "directory":
        target = tmp_path / "folder"
    elif kind.startswith("link"):
        target.symlink_to(tmp_path / ("fifo" if "FIFO" in kind else "folder"))
    before = os.lstat(target)
    with pytest.raises(OSError, match=r"not a regular file|a link to a"):
        files.write_output(target, "<html>")
    after = os.lstat(target)
    assert (after.st_mode, after.st_ino) == (before.st_mode, before.st_ino)
    assert [path.name for path in tmp_path.iterdir() if path.name.endswith(".tmp")] == []


def test_an_output_that_is_an_input_of_the_command_is_refused(tmp_path):
    results = tmp_path / "run" / "2026_results.json"
    results.parent.mkdir()
    results.write_text('{"results": {}}')
    linked = tmp_path / "linked.json"
    os.link(results, linked)
    for target in (results, tmp_path / "run" / ".." / "run" / "2026_results.json", linked):
        with pytest.raises(OSError, match=r"is an input of this command"):
            files.write_output(target, "<html>", inputs=[results])
    with pytest.raises(OSError, match=r"is an input of this command"):
        files.write_outputs({tmp_path / "a.html": "a", results: "b"}, within=tmp_path, inputs=[results])
    assert results.read_text() == '{"results": {}}' and not (tmp_path / "a.html").exists()


def test_a_link_where_a_sub_folder_of_the_outputs_goes_is_replaced_never_written_through(tmp_path):
    """A link planted at ``<out>/plots`` (by whoever can write the output folder) had the leaderboard write its plots
    into the folder it pointed to; the set now replaces the link with a folder, and the folder it named is untouched."""
    victim, out = tmp_path / "victim", tmp_path / "out"
    victim.mkdir()
    out.mkdir()
    (victim / "precious.png").write_text("keep")
    (out / "plots").symlink_to(victim)
    (out / "deeper").symlink_to(victim)
    files.write_outputs(
        {out / "board.csv": "a", out / "plots" / "headline.png": "b", out / "deeper" / "x" / "y.npy": "c"}, within=out
    )
    assert [path.name for path in victim.iterdir()] == ["precious.png"]
    assert not (out / "plots").is_symlink() and (out / "plots" / "headline.png").read_text() == "b"
    assert not (out / "deeper").is_symlink() and (out / "deeper" / "x" / "y.npy").read_text() == "c"
    (out / "taken").write_text("a file where a folder goes")
    with pytest.raises(OSError, match="taken"):
        files.write_outputs({out / "taken" / "z.png": "d"}, within=out)
    assert (out / "taken").read_text() == "a file where a folder goes"


def test_a_regular_file_a_new_path_or_a_link_to_a_file_is_replaced_whole(tmp_path):
    other = tmp_path / "other.html"
    other.write_text("kept")
    (tmp_path / "link.html").symlink_to(other)
    (tmp_path / "old.html").write_text("old")
    for name in ("new.html", "old.html", "link.html", "dangling.html"):
        if name == "dangling.html":
            (tmp_path / name).symlink_to(tmp_path / "nowhere")
        files.write_output(tmp_path / name, "<html>")
        assert not (tmp_path / name).is_symlink() and (tmp_path / name).read_text() == "<html>"
    assert other.read_text() == "kept"


def test_the_source_digest_follows_the_modules_source_and_is_kept_for_the_process(tmp_path, monkeypatch):
    built, checked = ModuleType("built_here"), ModuleType("checked_here")
    for module, source in ((built, "VALUE = 1\n"), (checked, "VALUE = 2\n")):
        module.__file__ = str(tmp_path / f"{module.__name__}.py")
        Path(module.__file__).write_text(source)
    monkeypatch.setattr(files, "source_digest", functools.cache(files.source_digest.__wrapped__))  # a memo of its own
    first = files.source_digest(built, checked)
    assert files.source_digest(built, checked) == first and re.fullmatch(r"[0-9a-f]{64}", first)
    assert files.source_digest(checked, built) != first and files.source_digest(built) != first
    Path(checked.__file__).write_text("VALUE = 2  # edited\n")
    assert files.source_digest(built, checked) == first  # computed once per process
    files.source_digest.cache_clear()
    assert files.source_digest(built, checked) != first
    Path(checked.__file__).write_text("VALUE = 2\n")
    files.source_digest.cache_clear()
    assert files.source_digest(built, checked) == first


def test_not_regular_says_what_a_path_is_that_must_not_be_read(tmp_path):
    regular, fifo = tmp_path / "rows.jsonl", tmp_path / "fifo.jsonl"
    regular.write_text("{}\n")
    os.mkfifo(fifo)
    (tmp_path / "folder.jsonl").mkdir()
    (tmp_path / "link.jsonl").symlink_to(regular)
    (tmp_path / "link_to_fifo.jsonl").symlink_to(fifo)
    names = ("rows", "missing", "link", "fifo", "link_to_fifo", "folder")
    assert [files.not_regular(tmp_path / f"{name}.jsonl") for name in names] == [
        None,
        None,
        None,
        "a FIFO, not a regular file",
        "a FIFO, not a regular file",
        "a directory, not a regular file",
    ]


@pytest.mark.timeout(30)  # a FIFO read would wait forever
def test_open_regular_reads_a_regular_file_and_refuses_what_is_there_when_it_opens(tmp_path, monkeypatch):
    regular, fifo = tmp_path / "rows.jsonl", tmp_path / "fifo.jsonl"
    regular.write_bytes(b'{"a": 1}\n')
    os.mkfifo(fifo)
    (tmp_path / "link.jsonl").symlink_to(regular)
    for name in ("rows.jsonl", "link.jsonl"):
        with files.open_regular(tmp_path / name) as handle:
            assert handle.read() == b'{"a": 1}\n'
    with pytest.raises(files.NotRegular, match=f"^{re.escape(str(fifo))}: a FIFO, not a regular file$"):
        files.open_regular(fifo)
    with pytest.raises(files.NotRegular, match="a directory, not a regular file$") as refused:
        files.open_regular(tmp_path)
    assert refused.value.reason == "a directory, not a regular file"
    with pytest.raises(FileNotFoundError):
        files.open_regular(tmp_path / "missing.jsonl")
    # a FIFO put in the file's place after any look at it, just before it is opened: the opened file is checked
    real_open = os.open

    def swapped_then_opened(path, *args, **kwargs):
        regular.unlink()
        os.mkfifo(regular)
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(files.os, "open", swapped_then_opened)
    with pytest.raises(files.NotRegular, match="a FIFO, not a regular file$"):
        files.open_regular(regular)


def test_open_folder_and_open_resolved_follow_no_link_below_the_top(tmp_path):
    (tmp_path / "real" / "inner").mkdir(parents=True)
    (tmp_path / "real" / "inner" / "data.json").write_text("{}")
    (tmp_path / "linked").symlink_to(tmp_path / "real")
    (tmp_path / "real" / "plain").write_text("a file")
    top = tmp_path / "top-link"
    top.symlink_to(tmp_path)  # the top is the caller's, opened as it is

    folder = files.open_folder(top, ("real", "inner"))
    try:
        assert sorted(os.listdir(folder)) == ["data.json"]
    finally:
        os.close(folder)
    with pytest.raises(OSError) as linked:
        files.open_folder(tmp_path, ("linked", "inner"))
    assert linked.value.errno in (errno.ELOOP, errno.ENOTDIR)  # Linux answers ENOTDIR to a linked folder
    with pytest.raises(OSError) as plain:
        files.open_folder(tmp_path, ("real", "plain"))
    assert plain.value.errno == errno.ENOTDIR

    with files.open_resolved(tmp_path / "real" / "inner" / "data.json") as handle:
        assert handle.read() == b"{}"
    with pytest.raises(OSError) as through_link:
        files.open_resolved(tmp_path / "linked" / "inner" / "data.json")
    assert through_link.value.errno in (errno.ELOOP, errno.ENOTDIR)
