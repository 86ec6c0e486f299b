"""REVIEW-3 (attack surfaces): what browse, diff and the leaderboard show of a run or a planted folder.

- A run written by plain lmms-eval is named by its ``pretrained=`` value as given (``model_name``), a URL's
  credentials included: browse's and diff's page titles and diff's console line showed them in clear, though the docs
  promise that browse and diff replace the secrets of a run's settings in what they show (fixed: ``run_label``).
- A folder name is the one text of a run nobody scrubs: another local user who can write the results folder plants
  ``<ESC>]0;...<BEL>`` in one, and browse, diff (the path they print) and the leaderboard (its notes) sent the escape
  sequences to the terminal, as show and diff already refuse to for a results file's text (fixed: ``printable``).
- A planted folder named ``[x](javascript:...)`` put a ``javascript:`` link in leaderboard.md's notes (fixed:
  ``markdown_text`` escapes a link's joints).
- An image inside the run's folder swapped for a link to a private picture between ``media.drawable``'s check and the
  thumbnail's read was read, embedded and cached (fixed: ``media.read_drawable`` reads the file it checked, opened
  with no link followed on its resolved path).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from reports.test_browse import triplet_line, write_run
from reports.test_leaderboard import triplet, write_spec
from reports.test_leaderboard import write_run as write_batch_run

from abductive_tasks.cli import main
from abductive_tasks.reports import browse
from abductive_tasks.reports.leaderboard import write_report
from abductive_tasks.runs.task_index import TaskIndex

HOSTILE = "\x1b]0;pwned\x07\x1b[2J"


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("ABDUCTIVE_CACHE", str(tmp_path / "cache"))


def test_review3_a_plain_lmms_eval_runs_url_credentials_are_in_no_page_title_nor_diff_line(tmp_path, capsys):
    password = "s3cretPassw0rd"
    named = f"https://bob:{password}@mirror.invalid/llava"  # lmms-eval's model_name: the pretrained= value as given
    runs = []
    for name, pick in (("a", 1), ("b", 2)):
        run = write_run(tmp_path / name, named, [triplet_line(0, str(pick), pick, "parsed")], [])
        (results,) = run.glob("*_results.json")
        record = json.loads(results.read_text())
        record["config"]["model_args"] = f"pretrained={named}"
        results.write_text(json.dumps(record))
        runs.append(run)
    page = browse.browse_page(browse.find_results(runs[0]))[0].html
    assert password not in page and "https://[REDACTED]@mirror.invalid/llava" in page
    assert main(["diff", str(runs[0]), str(runs[1]), "-o", str(tmp_path / "diff.html")]) == 0
    printed = capsys.readouterr().out
    assert password not in printed and password not in (tmp_path / "diff.html").read_text()
    assert "A = https://[REDACTED]@mirror.invalid/llava (a)" in printed


@pytest.mark.parametrize("command", ["browse", "diff"])
def test_review3_a_planted_folder_name_prints_no_escape_sequence(tmp_path, capsys, command):
    """``browse FOLDER`` reads the newest results under it: a folder another user planted there is named on the
    console."""
    write_run(tmp_path / "out" / f"m{HOSTILE}", "model", [triplet_line(0, "1", 1, "parsed")], [])
    folder = str(tmp_path / "out")
    assert main([command, folder] + ([folder, "-o"] if command == "diff" else [])) == 0
    printed = capsys.readouterr()
    assert "pwned" in printed.out and "\x1b" not in printed.out + printed.err and "\x07" not in printed.out


def test_review3_the_leaderboards_notes_print_no_escape_sequence_from_a_planted_folder(tmp_path, capsys):
    from abductive_tasks.reports.leaderboard import main as leaderboard_main

    write_spec(tmp_path, "m")
    write_batch_run(tmp_path, "m", "01-full", {"nleye_triplet": triplet(0.5, 0.5)})
    planted = tmp_path / f"x{HOSTILE}"
    planted.mkdir()
    (planted / "spec_identity.json").write_text("{}")
    assert leaderboard_main([str(tmp_path), "--out", str(tmp_path / "board")]) == 0
    printed = capsys.readouterr()
    assert "pwned" in printed.out and "\x1b" not in printed.out + printed.err and "\x07" not in printed.out


def test_review3_a_planted_folder_named_like_a_link_is_no_link_in_the_markdown(tmp_path):
    python_markdown = pytest.importorskip("markdown")  # what mkdocs renders Markdown with
    write_spec(tmp_path, "m")
    write_batch_run(tmp_path, "m", "01-full", {"nleye_triplet": triplet(0.5, 0.5)})
    planted = tmp_path / "[open me](javascript:alert(document.domain))"
    planted.mkdir()
    (planted / "spec_identity.json").write_text("{}")
    markdown = write_report(tmp_path, task_index=TaskIndex())["markdown"].read_text()
    assert "open me" in markdown  # the note names the folder
    rendered = python_markdown.markdown(markdown, extensions=["tables"])
    assert "javascript:" in rendered and 'href="javascript:' not in rendered  # shown as text, not a link


def test_review3_the_fixed_label_keeps_a_plain_name(tmp_path):
    run = write_run(tmp_path / "run", "llava-hf/llava-1.5-7b-hf", [triplet_line(0, "1", 1, "parsed")], [])
    assert browse.run_label(browse.read_run(browse.find_results(Path(run)))) == "llava-hf/llava-1.5-7b-hf"


def test_review3_an_image_swapped_for_a_link_after_its_check_is_not_drawn(tmp_path, monkeypatch):
    import hashlib

    from reports.test_browse import small_pngs

    from abductive_tasks.reports import media, thumbnails

    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    secret = Path(small_pngs(private, 1, side=24)[0])
    run = write_run(tmp_path / "run", "model", [triplet_line(0, "1", 1, "parsed")], [])
    inside = Path(small_pngs(run / "images", 1)[0])
    (samples,) = run.glob("*_samples_nleye_triplet.jsonl")
    line = json.loads(samples.read_text())
    line["input_media"] = line["consistency_acc"][1]["images"] = [str(inside)]
    samples.write_text(json.dumps(line) + "\n")
    checked = media.drawable

    def drawable_then_swapped(path, allowed):  # the race, made certain: the swap lands right after the check
        answer = checked(path, allowed)
        if Path(path) == inside and not inside.is_symlink():
            inside.unlink()
            inside.symlink_to(secret)
        return answer

    monkeypatch.setattr(media, "drawable", drawable_then_swapped)
    page, _ = browse.browse_page(browse.find_results(run))
    digest = hashlib.sha256(secret.read_bytes()).hexdigest()
    assert thumbnails.cached(digest, thumbnails.THUMBNAIL_PX) is None  # the private picture never read
    assert page.images.decoded == 0


@pytest.mark.parametrize("swapped", ["file", "folder"])
def test_an_image_or_its_folder_swapped_for_a_link_after_the_resolve_is_not_read(tmp_path, monkeypatch, swapped):
    """What :func:`media.read_drawable` opens is the file at the path it checked: the image, or a folder on its way,
    swapped for a link out of the allowed folders between the check and the open is refused, never followed."""
    from abductive_tasks.reports import media

    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    (private / "a.png").write_bytes(b"private picture")
    run = tmp_path / "run"
    (run / "images").mkdir(parents=True)
    inside = run / "images" / "a.png"
    inside.write_bytes(b"the run's picture")
    allowed = media.allowed_folders([run])
    assert media.read_drawable(inside, allowed) == b"the run's picture"
    checked = media.resolved_inside

    def checked_then_swapped(path, folders):  # the race, made certain: the swap lands right after the check
        answer = checked(path, folders)
        if swapped == "file":
            inside.unlink()
            inside.symlink_to(private / "a.png")
        else:
            (run / "images").rename(run / "moved")
            (run / "images").symlink_to(private)
        return answer

    monkeypatch.setattr(media, "resolved_inside", checked_then_swapped)
    assert media.read_drawable(inside, allowed) is None


def test_markdown_text_leaves_no_link_nor_definition_and_keeps_intervals():
    python_markdown = pytest.importorskip("markdown")
    from abductive_tasks.reports.leaderboard.render import markdown_text

    assert markdown_text("58 [33, 83]") == "58 [33, 83]"  # an interval as it is
    assert markdown_text("[a](javascript:x)") == "[a]\\(javascript:x)"
    planted = "[a][r]\n[r]: javascript:alert(1)"  # a reference link and, on a line of its own, its definition
    assert "\n" not in markdown_text(planted)
    for text in ("[a](javascript:x)", planted, "x <b>y</b> | z"):
        assert "<a " not in python_markdown.markdown(markdown_text(text)) and "<b>" not in python_markdown.markdown(
            markdown_text(text)
        )
