"""lmms-eval's response cache of a model, made safe to reuse: damaged databases set aside, failed
replies purged (they are asked again), a merge lock of a killed run removed, secrets scrubbed (lmms-eval stores
``model_args`` in clear) and replies
holding a secret not cached (:func:`scrub_cache`; the child does not store them in the first place,
:func:`abductive_tasks.compat.evaluate_cli`).

The cache lives in a folder named by :func:`~abductive_tasks.runs.identity.cache_key`, so new data or upstream
outputs never meet old answers (lmms-eval keys its cache on task, document index and prompt text only).

No link is followed (another local user may write the output folder): the cache folder is opened one folder at a time
from the model's folder down, each folder below it in the one above, with ``O_NOFOLLOW``, and every file read or
replaced is opened in its folder's descriptor (:func:`~abductive_tasks.inputs.files.open_in`,
:func:`~abductive_tasks.inputs.files.write_atomic_in`). A link standing where the cache folder goes (or a folder
above it) is moved aside before the run, a link inside it is left as it is and the folder holding it set aside
whole (:func:`make_safe`): lmms-eval, which opens its files by name, would follow it.
"""

from __future__ import annotations

import errno
import json
import os
import sqlite3
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from abductive_tasks.hints import counted
from abductive_tasks.inputs.files import FOLDER_NO_LINK, NotRegular, open_folder, open_in, write_atomic_in
from abductive_tasks.redaction import redact_text, written_forms
from abductive_tasks.runs.identity_record import QUARANTINED
from abductive_tasks.scoring.reading import REQUEST_FAILED_MARKER, is_request_failure

SET_ASIDE = ".set-aside"  # suffix of a link, or a cache folder holding one, moved out of the run's way
COMPANIONS = ("-wal", "-shm", "-journal")  # the files SQLite keeps beside a database, opened by their names


@dataclass(frozen=True)
class _Folder:
    """A folder of the cache as listed, open as ``fd`` while the walk stands on it (nothing in it followed)."""

    path: Path
    fd: int
    files: tuple[str, ...]  # regular files
    folders: tuple[str, ...]
    links: tuple[str, ...]
    others: tuple[str, ...]  # FIFOs, devices, sockets

    def link(self, name: str) -> bool:
        return _is_link(self.fd, name)


def _is_link(folder: int, name: str) -> bool:
    try:
        return stat.S_ISLNK(os.lstat(name, dir_fd=folder).st_mode)
    except OSError:
        return False


def _open_cache(cache_dir: Path, within: Path | None) -> int | None:
    """``cache_dir`` opened from ``within`` (default: its parent) down with no link followed (:func:`open_folder`);
    None where it or a folder on the way is missing, a link or no folder."""
    within = cache_dir.parent if within is None else within
    try:
        return open_folder(within, cache_dir.relative_to(within).parts)
    except OSError:
        return None


def _walk(cache_dir: Path, within: Path | None = None) -> Iterator[_Folder]:
    """Every folder of the cache at ``cache_dir`` (:func:`_open_cache`), from the top, listed and open while the caller
    stands on it; a link is listed, never entered, and a folder swapped for one since its listing is not entered."""
    top = _open_cache(cache_dir, within)
    if top is not None:
        yield from _walk_open(cache_dir, top)


def _walk_open(path: Path, fd: int) -> Iterator[_Folder]:
    try:
        kinds: dict[str, list[str]] = {"files": [], "folders": [], "links": [], "others": []}
        with os.scandir(fd) as entries:
            for entry in sorted(entries, key=lambda entry: entry.name):
                if entry.is_symlink():
                    kind = "links"
                elif entry.is_dir(follow_symlinks=False):
                    kind = "folders"
                elif entry.is_file(follow_symlinks=False):
                    kind = "files"
                else:
                    kind = "others"
                kinds[kind].append(entry.name)
        folder = _Folder(path, fd, *(tuple(names) for names in kinds.values()))
        yield folder
        for name in folder.folders:
            try:
                inner = os.open(name, FOLDER_NO_LINK, dir_fd=fd)
            except OSError:  # removed since (a merge lock), or swapped for a link: not entered
                continue
            yield from _walk_open(path / name, inner)
    finally:
        os.close(fd)


def cache_links(cache_dir: Path, within: Path | None = None) -> list[tuple[Path, str]]:
    """The links inside the cache folder ``cache_dir`` (at a file's or a folder's name: each listed, none entered),
    with what each points to."""
    return [
        (folder.path / name, os.readlink(name, dir_fd=folder.fd))
        for folder in _walk(cache_dir, within)
        for name in folder.links
    ]


def _set_aside(folder: int, name: str, suffix: str) -> str:
    """Rename ``name`` in the folder open as ``folder`` to ``<name>[.N]<suffix>`` (a link renamed, never followed);
    the new name."""
    target, number = f"{name}{suffix}", 1
    while True:
        try:
            os.lstat(target, dir_fd=folder)
        except FileNotFoundError:
            break
        number += 1
        target = f"{name}.{number}{suffix}"
    os.rename(name, target, src_dir_fd=folder, dst_dir_fd=folder)
    return target


def _links_moved_aside(cache_dir: Path, within: Path) -> list[str]:
    """Move aside a link standing where ``cache_dir`` or a folder between ``within`` and it goes (renamed, never
    followed: lmms-eval would write the run's cache into what it points to); a line for it. One that cannot be moved
    is an OSError naming it."""
    try:
        folder = os.open(within, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return []
    path = within
    try:
        for name in cache_dir.relative_to(within).parts:
            path = path / name
            if _is_link(folder, name):
                target = os.readlink(name, dir_fd=folder)
                try:
                    aside = _set_aside(folder, name, SET_ASIDE)
                except OSError as error:
                    raise OSError(
                        error.errno,
                        f"{path} is a link to {target} where the response cache goes and cannot be moved aside "
                        f"({error.strerror}); remove it",
                    ) from None
                return [
                    f"{path} was a link to {target} where the response cache goes: moved aside as {aside}, never "
                    "followed; the cache is made anew and its replies asked again"
                ]
            try:
                inner = os.open(name, FOLDER_NO_LINK, dir_fd=folder)
            except OSError:  # missing (made by the run) or no folder (the run fails on it)
                return []
            os.close(folder)
            folder = inner
        return []
    finally:
        os.close(folder)


def _database_problem(path: Path) -> str | None:
    try:
        connection = sqlite3.connect(path, timeout=30)
        try:
            verdict = connection.execute("PRAGMA quick_check").fetchall()
        finally:
            connection.close()
    except sqlite3.OperationalError as error:
        if "locked" in str(error):  # in use, not damaged
            raise RuntimeError(
                f"the response cache {path} is in use ({error}): is another batch running this model?"
            ) from error
        return str(error)
    except sqlite3.DatabaseError as error:
        return str(error)
    return None if verdict == [("ok",)] else "; ".join(str(row[0]) for row in verdict[:3])


def _databases(folder: _Folder) -> list[str]:
    """The databases of ``folder`` SQLite may open: regular files with no link at a companion's name (SQLite opens
    those by name). SQLite opens the database by its path, after this look: the one place a file of the cache is not
    read from the descriptor checked."""
    return [
        name
        for name in folder.files
        if name.endswith(".db") and not any(folder.link(name + companion) for companion in COMPANIONS)
    ]


def _audit_logs(folder: _Folder) -> list[str]:
    """The audit logs of ``folder``: a FIFO or device named like one included (set aside), a link never."""
    return [name for name in (*folder.files, *folder.others) if name.endswith(".jsonl")]


def _read_audit(folder: _Folder, name: str) -> bytes | None:
    """The bytes of the audit log ``name``, read from the descriptor checked (:func:`open_in`); None where it is no
    regular file now (a link or a FIFO put there since the listing: never followed, never waited on)."""
    try:
        with open_in(folder.fd, name, folder.path / name) as handle:
            return handle.read()
    except OSError:
        return None


def _audit_problem(folder: _Folder, name: str) -> str | None:
    try:
        with open_in(folder.fd, name, folder.path / name) as handle:
            handle.read().decode("utf-8")
    except NotRegular as error:  # a FIFO named like a log would be waited on for ever
        return error.reason
    except UnicodeDecodeError as error:
        return f"not UTF-8 text ({error})"
    except OSError:  # a link put there since the listing: left as it is
        return None
    return None


MERGE_LOCK = ".merge.lock"  # the folder lmms-eval's end-of-run merge holds (lmms_eval.caching.response_cache)


def make_safe(cache_dir: Path, secrets: Sequence[str], within: Path | None = None) -> list[str]:
    """Make a model's response cache safe to read before a run: merge locks of killed runs removed
    (:func:`release_merge_locks`), damaged files set aside (:func:`repair_cache`), failed replies purged
    (:func:`purge_failed_replies`), ``secrets`` scrubbed (:func:`scrub_cache`); one message per thing done that the
    user should know.

    No link is followed. ``within``: the folder from which each folder down to ``cache_dir`` is opened with no link
    followed (the model's folder; default: the cache folder's parent). A link standing at ``cache_dir`` or a folder
    on the way is moved aside (``<name>.set-aside``), never entered; the run then makes the cache anew. A link inside
    the cache is left as it is (a line each) and the cache folder holding it, its regular files scrubbed first, set
    aside whole (``<hash>.set-aside``): lmms-eval opens its files by name and would follow it."""
    within = cache_dir.parent if within is None else within
    messages = _links_moved_aside(cache_dir, within)
    if messages:
        return messages
    links = cache_links(cache_dir, within)
    if links:  # its secrets scrubbed, then the folder set aside: nothing else in it is worth repairing
        scrub_cache(cache_dir, secrets, within)
        return [
            *(
                f"{link} is a link to {target} in the response cache: left as it is, never followed"
                for link, target in links
            ),
            _cache_set_aside(cache_dir, within),
        ]
    messages = release_merge_locks(cache_dir, within) + repair_cache(cache_dir, within)
    purged = purge_failed_replies(cache_dir, within)
    if purged:
        messages.append(
            f"{counted(purged, 'failed request')} removed from the response cache {cache_dir}; they are asked again"
        )
    scrub_cache(cache_dir, secrets, within)
    return messages


def _cache_set_aside(cache_dir: Path, within: Path) -> str:
    folder = _open_cache(cache_dir.parent, within)
    if folder is None:
        raise OSError(errno.ENOENT, f"the response cache {cache_dir} moved while it was made safe; rerun")
    try:
        aside = _set_aside(folder, cache_dir.name, SET_ASIDE)
    finally:
        os.close(folder)
    return (
        f"the response cache {cache_dir} holds links (lmms-eval would follow them): set aside as {aside}; its "
        "replies are asked again"
    )


def release_merge_locks(cache_dir: Path, within: Path | None = None) -> list[str]:
    """Remove the merge locks in ``cache_dir`` (one message each): lmms-eval takes one (a folder) to merge a run's
    replies into the cache and removes it in a ``finally``, which a run killed while merging never reaches; every
    later run then waited 60 s for it and never merged its replies. The cache is a model's in the batch's output
    folder, whose lock the batch holds, so no running evaluation holds one. A link at the lock's name is left as it
    is (:func:`make_safe` sets its cache aside); nothing is followed."""
    messages = []
    for folder in _walk(cache_dir, within):
        if MERGE_LOCK in folder.folders:
            _remove_tree(folder.fd, MERGE_LOCK)
        elif MERGE_LOCK in (*folder.files, *folder.others):
            os.unlink(MERGE_LOCK, dir_fd=folder.fd)
        else:
            continue
        messages.append(
            f"a merge lock left by a killed run removed from the response cache: {folder.path / MERGE_LOCK}"
        )
    return messages


def _remove_tree(parent: int, name: str) -> None:
    """Remove the folder ``name`` of the folder open as ``parent`` and what it holds, each folder opened in the one
    above with no link followed (a link inside is removed, never entered; ``shutil.rmtree`` takes no folder
    descriptor before Python 3.11)."""
    try:
        folder = os.open(name, FOLDER_NO_LINK, dir_fd=parent)
    except OSError as error:
        if error.errno in (errno.ELOOP, errno.ENOTDIR):  # swapped for a link or a file since: the name removed
            os.unlink(name, dir_fd=parent)
            return
        raise
    try:
        with os.scandir(folder) as entries:
            inside = [(entry.name, entry.is_dir(follow_symlinks=False)) for entry in entries]
        for inner, is_folder in inside:
            if is_folder:
                _remove_tree(folder, inner)
            else:
                os.unlink(inner, dir_fd=folder)
    finally:
        os.close(folder)
    os.rmdir(name, dir_fd=parent)


def repair_cache(cache_dir: Path, within: Path | None = None) -> list[str]:
    """Set aside every damaged database or audit log of an lmms-eval response cache; one message per file, naming it.

    lmms-eval fails on them after the whole inference (its end-of-run merge reads them), so a
    damaged cache would fail every rerun. Whatever was set aside is recomputed (or, for a damaged
    database, replayed from its intact audit log, lmms-eval's own write-ahead log). Nothing is followed: a link is
    neither read nor set aside.
    """
    found: list[tuple[int, Path, str]] = []
    for folder in _walk(cache_dir, within):
        checked = [
            *((0, name, _database_problem(folder.path / name)) for name in _databases(folder)),
            *((1, name, _audit_problem(folder, name)) for name in _audit_logs(folder)),
        ]
        for order, name, problem in checked:
            if not problem:
                continue
            for companion in (name + "-wal", name + "-shm"):
                if companion in folder.files:
                    _set_aside(folder.fd, companion, QUARANTINED)
            aside = _set_aside(folder.fd, name, QUARANTINED)
            message = f"damaged response cache {folder.path / name} ({problem}): set aside as {aside}; its answers "
            found.append((order, folder.path / name, message + "are recomputed"))
    return [message for _, _, message in sorted(found)]


def _is_failed_reply(stored: object) -> bool:
    """Whether a cached response (lmms-eval stores it JSON-encoded) is a failed request."""
    try:
        return is_request_failure(json.loads(stored)) if isinstance(stored, str) else False
    except json.JSONDecodeError:
        return is_request_failure(stored)


def purge_failed_replies(cache_dir: Path, within: Path | None = None) -> int:
    """Delete cached replies that are failed requests (lmms-eval caches its failure text like an answer); returns how
    many distinct requests were purged (a reply sits in the run's shard and in the merged root database).

    Audit logs are filtered too: lmms-eval replays them into its database when it opens the cache. Each is read from
    the descriptor checked and replaced in its folder's (a link is neither read nor replaced).
    """
    purged: set[str] = set()
    for folder in _walk(cache_dir, within):
        for name in _databases(folder):
            connection = sqlite3.connect(folder.path / name, timeout=30)
            try:
                exists = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'responses'"
                if connection.execute(exists).fetchone():
                    candidates = connection.execute(
                        "SELECT cache_key, response FROM responses WHERE instr(response, ?) > 0",
                        (REQUEST_FAILED_MARKER,),
                    ).fetchall()
                    failed = [(key,) for key, response in candidates if _is_failed_reply(response)]
                    connection.executemany("DELETE FROM responses WHERE cache_key = ?", failed)
                    connection.commit()
                    purged.update(key for (key,) in failed)
            finally:
                connection.close()
        for name in _audit_logs(folder):
            data = _read_audit(folder, name)
            if data is None:  # a FIFO (repair_cache sets it aside), or a link put there since the listing
                continue
            lines = data.decode("utf-8").splitlines(keepends=True)
            kept = [line for line in lines if not _is_failed_audit_line(line)]
            if len(kept) != len(lines):
                write_atomic_in(folder.fd, name, "".join(kept))  # a fresh temporary name: none planted is followed
    return len(purged)


def _is_failed_audit_line(line: str) -> bool:
    if REQUEST_FAILED_MARKER not in line:
        return False
    try:
        record = json.loads(line)
    except json.JSONDecodeError:
        return False
    return isinstance(record, dict) and _is_failed_reply(record.get("response"))


def scrub_cache(cache_dir: Path, secrets: Sequence[str], within: Path | None = None) -> int:
    """Keep no secret in the response cache: replace secrets in the databases' metadata (lmms-eval stores the model
    fingerprint, ``model_args`` included, in clear), and delete every cached reply holding one, from the databases
    and the audit logs (a reply that echoes a secret is not cached: it is asked again). Returns how many replies
    were deleted.

    ``secure_delete`` overwrites the old values on disk and the checkpoint empties the write-ahead log. No link is
    followed (``within``: as :func:`make_safe`'s): an audit log is read from the descriptor checked and replaced in its
    folder's.
    """
    forms = written_forms(secrets)
    if not forms:
        return 0
    deleted: set[str] = set()
    for folder in _walk(cache_dir, within):
        for name in _databases(folder):
            deleted |= _scrub_database(folder.path / name, secrets, forms)
        for name in _audit_logs(folder):
            data = _read_audit(folder, name)
            if data is None or not any(form.encode() in data for form in forms):
                continue
            lines = data.decode("utf-8", errors="replace").splitlines(keepends=True)
            kept = [line for line in lines if not any(form in line for form in forms)]
            deleted.update(_audit_key(line) for line in lines if line not in kept)
            write_atomic_in(folder.fd, name, "".join(kept))
    deleted.discard("")
    return len(deleted)


def _scrub_database(path: Path, secrets: Sequence[str], forms: Sequence[str]) -> set[str]:
    """Scrub one database (:func:`scrub_cache`); the cache keys of the replies deleted."""
    deleted: set[str] = set()
    connection = sqlite3.connect(path, timeout=30)
    try:
        connection.execute("PRAGMA secure_delete = ON")
        tables = {name for (name,) in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if "meta" in tables:
            for key, value in connection.execute("SELECT key, value FROM meta").fetchall():
                cleaned = redact_text(value, secrets)
                if cleaned != value:
                    connection.execute("UPDATE meta SET value = ? WHERE key = ?", (cleaned, key))
        if "responses" in tables:
            for form in forms:
                found = connection.execute(
                    "SELECT cache_key FROM responses WHERE instr(response, ?) > 0 OR instr(gen_kwargs, ?) > 0",
                    (form, form),
                ).fetchall()
                connection.executemany("DELETE FROM responses WHERE cache_key = ?", found)
                deleted.update(key for (key,) in found)
        connection.commit()
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        connection.close()
    return deleted


def _audit_key(line: str) -> str:
    try:
        record = json.loads(line)
    except json.JSONDecodeError:
        return ""
    return str(record.get("cache_key", "")) if isinstance(record, dict) else ""
