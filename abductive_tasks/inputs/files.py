"""Files written whole or not at all, and derived files trusted only when their seal checks.

**Writing.** :func:`write_atomic` writes a temporary file in the target's folder and renames it over the
target: a kill, a full disk or a file-size limit leaves the previous file (or none), never half of one,
and a symbolic link at the target is replaced, never followed. :func:`write_set` does the same for files
that belong together (a leaderboard's CSV, HTML, Markdown and plots): every temporary file is written
before the first rename, so a failure while writing leaves the previous set whole. :func:`open_nofollow`
opens a lock or log file without following a link planted at its name; :func:`open_in` and :func:`write_atomic_in`
read and replace a file in a folder already opened with no link followed (lmms-eval's response cache).

**Model text in derived files.** Files derived from a model's replies (NL-Eye descriptions, MuCR scene graphs, the
judge's cache) pass their text through :func:`redacted`, which replaces the secrets the evaluation knows
(:func:`redacting_writes`, set by ``abductive-eval``): a reply that echoes a secret leaves no copy in clear.

**User-named outputs.** Every file a command writes where the user said (``browse -o``, ``diff -o``, ``leaderboard
--out``, ``export-sherlock --out``) goes through :func:`write_output` or :func:`write_outputs`: the target must be
a regular file or a missing path (a FIFO, a device, a directory, or a link to one of these is refused, left as it
is), and never an input of the command itself (a run's results or samples); a regular file is then replaced whole.

**Sealing caches.** A cache under ``ABDUCTIVE_CACHE`` (MuCR item lists, factored Sherlock chunks) exists
for speed: hashing its source again on every hit would cost what the cache saves. Each entry is instead
bound by an HMAC-SHA256 over its content and a context naming what it was derived from (the source's
stamp or digest). The key is 32 random bytes in ``<ABDUCTIVE_CACHE>/.cache_key``, mode 0600, created
atomically (written under a temporary name, then hard-linked into place, so two processes agree on one
key); a key file that is a link, not ours, or readable by others is replaced, which orphans every entry. Before a
command uses the cache, :func:`cache_ready` moves aside anything else standing at the key's name (a directory, a
FIFO) and removes a link standing where one of the cache's folders goes.

Threat model: entries edited by hand or by a tool, truncated, damaged on disk, copied from another cache
or machine, or planted by another local user who can write the cache folder but not read the key are
refused and rebuilt. A process running as the same user can read the key and forge entries; it could as
well edit this package, so that is out of scope. Sealing says the entry is what this user's tool wrote
for that source stamp; it does not re-check the source's bytes (the stamp does that, as for a run's
file identity).

**Caches of derived entries follow the code that derives them.** An entry's key or stamp holds
:func:`source_digest` of the modules whose code builds and checks it: an edit to that code makes every entry built
before it miss and be built again, with no hand-kept format number to forget.
"""

from __future__ import annotations

import errno
import functools
import hashlib
import hmac
import inspect
import io
import os
import secrets
import stat
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from types import ModuleType
from typing import BinaryIO

from abductive_tasks import settings
from abductive_tasks.redaction import collect_secrets, redact_text

KEY_NAME = ".cache_key"
_SEAL_TAG = b"abductive-seal-v1 "
_MAC_HEX = 64


def _temporary_beside(path: Path) -> tuple[int, str]:
    return tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")


def _write_temporary(path: Path, data: bytes, durable: bool = True) -> str:
    """``data`` in a temporary file beside ``path``, flushed to disk when ``durable``; its name. Removed again when
    writing fails."""
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor, name = _temporary_beside(path)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        os.chmod(name, 0o644 & ~_umask())
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise
    return name


@functools.cache
def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def _as_bytes(data: bytes | str) -> bytes:
    return data.encode("utf-8") if isinstance(data, str) else data


def write_atomic(path: Path, data: bytes | str, durable: bool = True) -> None:
    """Write ``data`` (text as UTF-8) to ``path`` whole or not at all (temporary file, then rename). ``durable=False``
    skips flushing it to disk first (an fsync, milliseconds on a busy disk): for cache entries that are sealed, so
    one left empty or torn by a crash is refused and made again."""
    name = _write_temporary(path, _as_bytes(data), durable)
    try:
        os.replace(name, path)
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise


def write_set(files: Mapping[Path, bytes | str]) -> None:
    """Write several files as one set: all temporary files first, then the renames (a failure while writing
    leaves every earlier file as it was). An interrupt between two renames (Ctrl-C, a stop signal raised as
    ``SystemExit``) finishes the renames before it goes on, so the set is never half old, half new."""
    written: dict[Path, str] = {}
    try:
        for path, data in files.items():
            written[path] = _write_temporary(path, _as_bytes(data))
    except BaseException:
        _remove_temporaries(written)
        raise
    try:
        for path, name in list(written.items()):
            os.replace(name, path)
            del written[path]
    except OSError:  # the file system refused one: the rest cannot be trusted to follow
        _remove_temporaries(written)
        raise
    except BaseException:
        try:
            for path, name in list(written.items()):
                with suppress(FileNotFoundError):  # renamed already, the interrupt came before its removal
                    os.replace(name, path)
                del written[path]
        except OSError:  # one the file system refuses now: the rest's temporary files go, the interrupt goes on
            _remove_temporaries(written)
        raise


def _remove_temporaries(written: Mapping[Path, str]) -> None:
    for name in written.values():
        Path(name).unlink(missing_ok=True)


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file's bytes, read a block at a time (``hashlib.file_digest`` needs Python 3.11), through
    :func:`open_regular`: a FIFO or device named like the file is refused, never waited on."""
    with open_regular(path) as handle:
        return stream_sha256(handle)


@functools.cache
def source_digest(*modules: ModuleType) -> str:
    """A SHA-256 over the names and source files of ``modules``, computed once per process: the part of a cache's
    key or stamp that ties its entries to the code that built them. Whole files are hashed, so any edit to one of
    them (a comment too) invalidates the entries, which costs one rebuild; none is missed."""
    digest = hashlib.sha256()
    for module in modules:
        source = Path(inspect.getfile(module)).read_bytes()
        digest.update(f"{module.__name__}\0{len(source)}\0".encode())
        digest.update(source)
    return digest.hexdigest()


def stream_sha256(handle: BinaryIO) -> str:
    """The SHA-256 of what is left to read from the open binary file ``handle``, a block at a time."""
    digest = hashlib.sha256()
    for block in iter(lambda: handle.read(1 << 20), b""):
        digest.update(block)
    return digest.hexdigest()


_REDACTIONS: list[Callable[[str], str]] = []


@contextmanager
def redacting_writes(redact: Callable[[str], str]) -> Iterator[None]:
    """Within the block, :func:`redacted` applies ``redact`` (the evaluation's secrets replaced)."""
    _REDACTIONS.append(redact)
    try:
        yield
    finally:
        _REDACTIONS.remove(redact)


def redacted(text: str) -> str:
    """``text`` as a derived file may hold it: every secret the running evaluation knows replaced (``abductive-eval``
    installs them, :func:`redacting_writes`); under plain lmms-eval, which hands us none, the secrets of the process
    environment (secret-named variables such as ``OPENAI_API_KEY``, URL credentials: :func:`_environment_secrets`)."""
    if not _REDACTIONS:
        return redact_text(text, _environment_secrets(tuple(sorted(os.environ.items()))))
    for redact in _REDACTIONS:
        text = redact(text)
    return text


@functools.lru_cache(maxsize=4)
def _environment_secrets(environment: tuple[tuple[str, str], ...]) -> tuple[str, ...]:
    """The secrets :func:`~abductive_tasks.redaction.collect_secrets` finds in an environment (as sorted items)."""
    return collect_secrets(environment=dict(environment))


_KINDS = {
    stat.S_IFIFO: "a FIFO",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFDIR: "a directory",
    stat.S_IFSOCK: "a socket",
}


def _kind(mode: int) -> str:
    return _KINDS.get(stat.S_IFMT(mode), "a special file")


class NotRegular(OSError):
    """A path named like a data or run file that is no regular file (a FIFO, a device, a folder): never read."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.reason = self.strerror = reason


def open_regular(path: Path) -> BinaryIO:
    """``path`` opened for reading, or :class:`NotRegular` where it is no regular file (reading a FIFO or device named
    like a data or run file would wait forever). The file checked is the file opened: nothing swapped in is read."""
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)  # a FIFO opens at once
    _require_regular(descriptor, path, blocking=True)
    raw = io.FileIO(descriptor, "rb")
    raw.name = os.fspath(path)  # what readers name in their errors (PIL, json), as for a file opened by its path
    return io.BufferedReader(raw)


def open_resolved(path: Path) -> BinaryIO:
    """The regular file at ``path``, an absolute path without links (:meth:`Path.resolve`'s), opened for reading
    without following a link anywhere on it: each folder from the top down is opened in the one above it
    (:func:`open_folder`), and the file in the last, all with ``O_NOFOLLOW``. A folder or the file swapped for a link
    since ``path`` was resolved (and checked) is refused (an OSError), never followed; what is opened is the file at
    ``path``, a FIFO or device refused as :func:`open_regular` refuses one."""
    if not path.is_absolute():
        raise OSError(errno.EINVAL, f"{path}: not an absolute path")
    folder = open_folder(Path(path.anchor), path.parts[1:-1])
    try:
        return open_in(folder, path.name, path)
    finally:
        os.close(folder)


FOLDER_NO_LINK = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
"""``os.open`` flags for a folder opened with no link followed (a link there is an OSError, never followed)."""


def open_folder(top: Path, names: Sequence[str]) -> int:
    """The folder ``top / names[0] / ...`` open as a descriptor (the caller closes it): ``top`` opened as it is, then
    each of ``names`` in the folder above it with no link followed, so a link or no folder on the way is an OSError
    (``ENOTDIR`` on Linux, ``ELOOP`` elsewhere), never followed."""
    folder = os.open(top, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for name in names:
            inner = os.open(name, FOLDER_NO_LINK, dir_fd=folder)
            os.close(folder)
            folder = inner
    except BaseException:
        os.close(folder)
        raise
    return folder


def open_in(folder: int, name: str, path: Path) -> BinaryIO:
    """The regular file ``name`` in the folder open as ``folder`` (``path``: what errors name it), opened for reading
    with no link followed: a link there is an OSError (``ELOOP``), never followed, a FIFO or device
    :class:`NotRegular`, never waited on. The file checked is the file read."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC  # a FIFO opens at once
    descriptor = os.open(name, flags, dir_fd=folder)
    _require_regular(descriptor, path, blocking=True)
    raw = io.FileIO(descriptor, "rb")
    raw.name = os.fspath(path)
    return io.BufferedReader(raw)


def write_atomic_in(folder: int, name: str, data: bytes | str) -> None:
    """:func:`write_atomic` within the folder open as ``folder``: a temporary file made there (a fresh name, no link
    followed), then renamed over ``name`` in the same folder, so a folder swapped for a link since it was opened is
    never written through, and a link at ``name`` is replaced, never followed."""
    temporary = f".{name}.{secrets.token_hex(8)}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    descriptor = os.open(temporary, flags, 0o644 & ~_umask(), dir_fd=folder)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(_as_bytes(data))
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, name, src_dir_fd=folder, dst_dir_fd=folder)
    except BaseException:
        with suppress(FileNotFoundError):
            os.unlink(temporary, dir_fd=folder)
        raise


def read_regular(path: Path) -> bytes:
    """The bytes of the regular file ``path`` (:func:`open_regular`: a FIFO or device in its place is refused,
    :class:`NotRegular`, never waited on)."""
    with open_regular(path) as handle:
        return handle.read()


def _require_regular(descriptor: int, path: Path, blocking: bool | None = None) -> None:
    """Raise :class:`NotRegular` (naming what it is), ``descriptor`` closed, unless it is a regular file's; set it
    ``blocking`` where given."""
    try:
        mode = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegular(path, f"{_kind(mode)}, not a regular file")
        if blocking is not None:
            os.set_blocking(descriptor, blocking)
    except BaseException:
        os.close(descriptor)
        raise


def not_regular(path: Path) -> str | None:
    """Why ``path`` must not be read: ``"a FIFO, not a regular file"`` and the like where it exists and is no regular
    file (reading a FIFO or device named like a data or run file would wait forever); None where it is one or is
    missing."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    return None if stat.S_ISREG(mode) else f"{_kind(mode)}, not a regular file"


def _identities(path: Path) -> set[tuple[int, int]]:
    """(device, inode) of ``path`` itself and of what it points to (a missing path: none)."""
    found = set()
    for look in (os.lstat, os.stat):
        try:
            status = look(path)
        except OSError:
            continue
        found.add((status.st_dev, status.st_ino))
    return found


def check_output(path: Path, inputs: Iterable[Path] = ()) -> None:
    """Refuse, with an OSError saying why, a user-named output ``path`` that is not a regular file or a missing path
    (a FIFO, a device, a directory, a link to one of these), or that is one of ``inputs`` (the files the command
    reads: a run's results or samples), by any name (a hard link, ``..``). A link to a regular file is replaced, never
    followed."""
    try:
        status = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(status.st_mode):
        try:
            pointed = os.stat(path)
        except OSError:  # a dangling link: replaced
            pointed = None
        if pointed is not None and not stat.S_ISREG(pointed.st_mode):
            raise OSError(errno.EINVAL, f"{path} is a link to {_kind(pointed.st_mode)}, not a regular file")
    elif not stat.S_ISREG(status.st_mode):
        raise OSError(errno.EINVAL, f"{path} is {_kind(status.st_mode)}, not a regular file")
    for source in inputs:
        if (status.st_dev, status.st_ino) in _identities(Path(source)):
            raise OSError(errno.EEXIST, f"{path} is an input of this command ({source}); name another file")


def write_output(path: Path, data: bytes | str, inputs: Iterable[Path] = ()) -> None:
    """Write a user-named output whole (:func:`write_atomic`) once :func:`check_output` allows it."""
    check_output(path, inputs)
    write_atomic(path, data)


def write_outputs(files: Mapping[Path, bytes | str], within: Path, inputs: Iterable[Path] = ()) -> None:
    """Write user-named outputs as one set (:func:`write_set`) once :func:`check_output` allows each of them (none is
    written when one is refused). ``within``: the folder the user named, which holds them all; a link standing where
    one of its sub-folders goes (``plots``) is replaced by a folder, never followed."""
    inputs = list(inputs)
    for path in files:
        check_output(path, inputs)
    for folder in {path.parent for path in files}:
        real_folders(within, folder)
    write_set(files)


def real_folders(root: Path, folder: Path) -> None:
    """Make each folder from below ``root`` down to ``folder`` a folder of its own: a link in its place is removed
    (what it points to is left alone), a missing one is made; a file in its place is an OSError naming it. ``root``
    is made when missing (a link there is the user's, and followed)."""
    root.mkdir(parents=True, exist_ok=True)
    current = root
    for name in folder.relative_to(root).parts:
        current = current / name
        if current.is_symlink():
            current.unlink()
        current.mkdir(exist_ok=True)


def open_nofollow(path: Path, flags: int, mode: int = 0o644) -> int:
    """``os.open`` that refuses a symbolic link at ``path`` (an OSError naming it) or anything but a regular file
    (:class:`NotRegular`, naming what it is)."""
    try:  # opened without waiting: a FIFO with no other end would block the open itself
        descriptor = os.open(path, flags | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK, mode)
    except OSError as error:
        if path.is_symlink():
            raise OSError(error.errno, f"{path} is a symbolic link; refusing to follow it") from None
        if (why := not_regular(path)) is not None:
            raise NotRegular(path, why) from None
        raise
    _require_regular(descriptor, path, blocking=not flags & os.O_NONBLOCK)
    return descriptor


def read_log(path: Path, start: int = 0) -> str:
    """A log the batch wrote, as text from its byte ``start`` on (:func:`log_size` of an earlier moment); '' where
    there is none, or a link or no regular file (a FIFO: never waited on) stands in its place."""
    try:
        descriptor = open_nofollow(path, os.O_RDONLY)
    except OSError:
        return ""
    with os.fdopen(descriptor, "rb") as handle:
        handle.seek(start)
        return handle.read().decode(errors="replace")


def log_size(path: Path) -> int:
    """The bytes a log the batch wrote holds now, without reading it; 0 where :func:`read_log` reads nothing."""
    try:
        descriptor = open_nofollow(path, os.O_RDONLY)
    except OSError:
        return 0
    try:
        return os.fstat(descriptor).st_size
    finally:
        os.close(descriptor)


# ---------------------------------------------------------------- sealed cache entries


def _key_trusted(path: Path) -> bytes | None:
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)  # a FIFO: not waited on
    except OSError:
        return None
    with os.fdopen(descriptor, "rb") as handle:
        status = os.fstat(handle.fileno())
        if not stat.S_ISREG(status.st_mode) or status.st_uid != os.getuid() or status.st_mode & 0o077:
            return None
        key = handle.read(64)
    return key if len(key) == 32 else None


def _new_key(path: Path) -> None:
    """A fresh key at ``path``: written 0600 under a temporary name, then linked into place (the first wins)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor, name = _temporary_beside(path)
    try:
        os.fchmod(descriptor, 0o600)
        os.write(descriptor, secrets.token_bytes(32))
        os.fsync(descriptor)
        os.close(descriptor)
        try:
            os.link(name, path)
        except FileExistsError:
            if _key_trusted(path) is None:  # a link, another owner's file, a readable key: replaced
                os.replace(name, path)
                name = ""
    finally:
        if name:
            Path(name).unlink(missing_ok=True)


def cache_key(root: Path | None = None) -> bytes | None:
    """The sealing key of the cache under ``root`` (default ``ABDUCTIVE_CACHE``), created on first use; None when the
    cache folder cannot hold one (then nothing is sealed, so nothing cached is trusted)."""
    path = (root or settings.cache_root()) / KEY_NAME
    key = _key_trusted(path)
    if key is None:
        try:
            _new_key(path)
        except OSError:
            return None
        key = _key_trusted(path)
    return key


# The cache's own folders under ABDUCTIVE_CACHE (the package's modules name them: tests/inputs/test_files.py checks).
CACHE_FOLDERS = (
    "images",
    "judge",
    "leaderboard_plots",
    "llava_converted",
    "mucr_items",
    "sherlock_chunks",
    "stages",
    "thumbnails",
)


def cache_ready(root: Path | None = None) -> list[str]:
    """Make the cache under ``root`` (default ``ABDUCTIVE_CACHE``) safe to use before a command reads or writes it;
    a line for each thing changed. Anything but a regular file or a link at the sealing key's name (a directory, on
    which :func:`cache_key` fails, a FIFO, on which it waits for ever) is moved aside under a fresh name, never read
    or followed; a link standing where one of the cache's own folders goes (:data:`CACHE_FOLDERS` and every folder
    below them) is removed, what it points to left alone, so that no write goes through it. A key that cannot be
    moved aside is an OSError naming it. Nothing is made: a missing cache stays missing."""
    root = root or settings.cache_root()
    changed = [note for note in [_key_moved_aside(root / KEY_NAME)] if note]
    for link in [link for name in CACHE_FOLDERS for link in _folder_links(root / name)]:
        target = os.readlink(link)
        link.unlink()
        changed.append(f"{link} was a link to {target} where a folder of the cache goes; removed, never followed")
    return changed


def _key_moved_aside(path: Path) -> str | None:
    """Move what stands at the key's name aside when it is neither a regular file nor a link (:func:`cache_key`
    replaces those when they are not trusted); what was done, or None."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return None
    if stat.S_ISREG(mode) or stat.S_ISLNK(mode):
        return None
    aside = path.with_name(f"{path.name}.{secrets.token_hex(8)}.set-aside")
    try:
        os.rename(path, aside)
    except OSError as error:
        raise OSError(
            error.errno,
            f"{path} is {_kind(mode)} where the cache's sealing key goes and cannot be moved aside "
            f"({error.strerror}); remove it, or set ABDUCTIVE_CACHE to a folder of your own",
        ) from None
    return (
        f"{path} was {_kind(mode)} where the cache's sealing key goes; moved aside to {aside.name} (a new key is made "
        "when one is next needed)"
    )


def _folder_links(top: Path) -> list[Path]:
    """The links standing where ``top`` or a folder below it goes (a link to a folder is listed, never entered)."""
    if top.is_symlink():
        return [top]
    return [
        Path(folder) / name
        for folder, names, _ in os.walk(top)
        for name in names
        if os.path.islink(os.path.join(folder, name))
    ]


def seal_mac(key: bytes, context: str, parts: Iterable[bytes]) -> str:
    """HMAC-SHA256 (hex) of ``parts`` under ``key``, bound to ``context`` (each part length-prefixed)."""
    mac = hmac.new(key, _as_bytes(context), hashlib.sha256)
    for part in parts:
        mac.update(len(part).to_bytes(8, "big"))
        mac.update(part)
    return mac.hexdigest()


def seal(payload: bytes, context: str, root: Path | None = None) -> bytes | None:
    """``payload`` with its seal in front, under the key of the cache at ``root`` (default ``ABDUCTIVE_CACHE``;
    None when no key can be kept: the entry is not cached)."""
    key = cache_key(root)
    if key is None:
        return None
    return _SEAL_TAG + seal_mac(key, context, [payload]).encode() + b"\n" + payload


def unseal(blob: bytes, context: str, root: Path | None = None) -> bytes | None:
    """The payload of a sealed entry when its seal, under the key of the cache at ``root``, matches its content and
    ``context``; None otherwise."""
    key = cache_key(root)
    head = len(_SEAL_TAG) + _MAC_HEX
    if key is None or not blob.startswith(_SEAL_TAG) or blob[head : head + 1] != b"\n":
        return None
    payload = blob[head + 1 :]
    expected = seal_mac(key, context, [payload]).encode()
    return payload if hmac.compare_digest(blob[len(_SEAL_TAG) : head], expected) else None
