"""lmms-eval's response cache of a model, made safe to reuse: damaged databases set aside, failed
replies purged (they are asked again), a merge lock of a killed run removed, secrets scrubbed (lmms-eval stores
``model_args`` in clear) and replies
holding a secret not cached (:func:`scrub_cache`; the child does not store them in the first place,
:func:`abductive_tasks.compat.evaluate_cli`).

The cache lives in a folder named by :func:`~abductive_tasks.runs.identity.cache_key`, so new data or upstream
outputs never meet old answers (lmms-eval keys its cache on task, document index and prompt text only).
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Sequence
from pathlib import Path

from abductive_tasks.inputs.files import NotRegular, read_regular, write_atomic
from abductive_tasks.runs.identity_record import quarantine
from abductive_tasks.runs.secrets import redact_text, written_forms
from abductive_tasks.scoring.reading import REQUEST_FAILED_MARKER, is_request_failure


def _databases(cache_dir: Path) -> list[Path]:
    return sorted(path for path in cache_dir.rglob("*.db") if path.is_file()) if cache_dir.is_dir() else []


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


def _audit_problem(path: Path) -> str | None:
    try:
        read_regular(path).decode("utf-8")
    except NotRegular as error:  # a FIFO named like a log would be waited on for ever
        return error.reason
    except UnicodeDecodeError as error:
        return f"not UTF-8 text ({error})"
    return None


MERGE_LOCK = ".merge.lock"  # the folder lmms-eval's end-of-run merge holds (lmms_eval.caching.response_cache)


def make_safe(cache_dir: Path, secrets: Sequence[str]) -> list[str]:
    """Make a model's response cache safe to read before a run: merge locks of killed runs removed
    (:func:`release_merge_locks`), damaged files set aside (:func:`repair_cache`), failed replies purged
    (:func:`purge_failed_replies`), ``secrets`` scrubbed (:func:`scrub_cache`); one message per thing done that the
    user should know."""
    messages = release_merge_locks(cache_dir) + repair_cache(cache_dir)
    purged = purge_failed_replies(cache_dir)
    if purged:
        messages.append(f"{purged} failed requests removed from the response cache {cache_dir}; they are asked again")
    scrub_cache(cache_dir, secrets)
    return messages


def release_merge_locks(cache_dir: Path) -> list[str]:
    """Remove the merge locks in ``cache_dir`` (one message each): lmms-eval takes one (a folder) to merge a run's
    replies into the cache and removes it in a ``finally``, which a run killed while merging never reaches; every
    later run then waited 60 s for it and never merged its replies. The cache is a model's in the batch's output
    folder, whose lock the batch holds, so no running evaluation holds one."""
    messages = []
    for lock in sorted(cache_dir.rglob(MERGE_LOCK)) if cache_dir.is_dir() else []:
        if lock.is_symlink() or not lock.is_dir():
            lock.unlink()  # a link is removed, never followed
        else:
            shutil.rmtree(lock)
        messages.append(f"a merge lock left by a killed run removed from the response cache: {lock}")
    return messages


def repair_cache(cache_dir: Path) -> list[str]:
    """Set aside every damaged database or audit log of an lmms-eval response cache; one message per file, naming it.

    lmms-eval fails on them after the whole inference (its end-of-run merge reads them), so a
    damaged cache would fail every rerun. Whatever was set aside is recomputed (or, for a damaged
    database, replayed from its intact audit log, lmms-eval's own write-ahead log).
    """
    messages = []
    audit_logs = sorted(cache_dir.rglob("*.jsonl")) if cache_dir.is_dir() else []
    for path, problem in [
        *((path, _database_problem(path)) for path in _databases(cache_dir)),
        *((path, _audit_problem(path)) for path in audit_logs),
    ]:
        if problem:
            for companion in (Path(f"{path}-wal"), Path(f"{path}-shm")):
                if companion.exists():
                    quarantine(companion)
            messages.append(
                f"damaged response cache {path} ({problem}): set aside as {quarantine(path).name}; its answers "
                "are recomputed"
            )
    return messages


def _is_failed_reply(stored: object) -> bool:
    """Whether a cached response (lmms-eval stores it JSON-encoded) is a failed request."""
    try:
        return is_request_failure(json.loads(stored)) if isinstance(stored, str) else False
    except json.JSONDecodeError:
        return is_request_failure(stored)


def purge_failed_replies(cache_dir: Path) -> int:
    """Delete cached replies that are failed requests (lmms-eval caches its failure text like an answer); returns how
    many distinct requests were purged (a reply sits in the run's shard and in the merged root database).

    Audit logs are filtered too: lmms-eval replays them into its database when it opens the cache.
    """
    purged: set[str] = set()
    for path in _databases(cache_dir):
        connection = sqlite3.connect(path, timeout=30)
        try:
            if connection.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'responses'").fetchone():
                candidates = connection.execute(
                    "SELECT cache_key, response FROM responses WHERE instr(response, ?) > 0", (REQUEST_FAILED_MARKER,)
                ).fetchall()
                failed = [(key,) for key, response in candidates if _is_failed_reply(response)]
                connection.executemany("DELETE FROM responses WHERE cache_key = ?", failed)
                connection.commit()
                purged.update(key for (key,) in failed)
        finally:
            connection.close()
    for path in sorted(cache_dir.rglob("*.jsonl")) if cache_dir.is_dir() else []:
        try:
            lines = read_regular(path).decode("utf-8").splitlines(keepends=True)
        except NotRegular:  # put there since repair_cache set such files aside: its next run does
            continue
        kept = [line for line in lines if not _is_failed_audit_line(line)]
        if len(kept) != len(lines):
            write_atomic(path, "".join(kept))  # a fixed temporary name would follow a link planted there
    return len(purged)


def _is_failed_audit_line(line: str) -> bool:
    if REQUEST_FAILED_MARKER not in line:
        return False
    try:
        record = json.loads(line)
    except json.JSONDecodeError:
        return False
    return isinstance(record, dict) and _is_failed_reply(record.get("response"))


def scrub_cache(cache_dir: Path, secrets: Sequence[str]) -> int:
    """Keep no secret in the response cache: replace secrets in the databases' metadata (lmms-eval stores the model
    fingerprint, ``model_args`` included, in clear), and delete every cached reply holding one, from the databases
    and the audit logs (a reply that echoes a secret is not cached: it is asked again). Returns how many replies
    were deleted.

    ``secure_delete`` overwrites the old values on disk and the checkpoint empties the write-ahead log.
    """
    forms = written_forms(secrets)
    if not forms:
        return 0
    deleted: set[str] = set()
    for path in _databases(cache_dir):
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
    for path in sorted(cache_dir.rglob("*.jsonl")) if cache_dir.is_dir() else []:
        try:
            data = read_regular(path)
        except NotRegular:  # put there since repair_cache set such files aside: its next run does
            continue
        if not any(form.encode() in data for form in forms):
            continue
        lines = data.decode("utf-8", errors="replace").splitlines(keepends=True)
        kept = [line for line in lines if not any(form in line for form in forms)]
        deleted.update(_audit_key(line) for line in lines if line not in kept)
        write_atomic(path, "".join(kept))
    deleted.discard("")
    return len(deleted)


def _audit_key(line: str) -> str:
    try:
        record = json.loads(line)
    except json.JSONDecodeError:
        return ""
    return str(record.get("cache_key", "")) if isinstance(record, dict) else ""
