"""show, browse and diff on hand-written run folders laid out as lmms-eval writes them with --log_samples."""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from abductive_tasks.cli import main
from abductive_tasks.inputs.loading import SAMPLE_ROOT
from abductive_tasks.reports import browse, report, thumbnails
from abductive_tasks.reports.diff import disagreements

from helpers.pages import CHROMIUM, MISSING, chromium_dom, page_data

STAMP = "20260101_000000"
IMAGES = [str(SAMPLE_ROOT / "nleye" / "images" / "1" / name) for name in ("premise.png", "hypothesis1.png")]


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    """Thumbnails cached in this test's folder: none from an earlier test or run, none left in the user's cache."""
    monkeypatch.setenv("ABDUCTIVE_CACHE", str(tmp_path / "cache"))


def triplet_line(doc_id: int, reply: str, prediction: int | None, status: str, gold: int = 1) -> dict:
    """A samples line of nleye_triplet: lmms-eval's fields and our record under each metric."""
    record = {
        "item_id": str(doc_id // 2),
        "gold_position": gold,
        "prediction": prediction,
        "correct": prediction == gold if prediction is not None else False,
        "reasoning_category": ["physical", "social"][doc_id % 2],
        "answer_status": status,
    }
    return {
        "doc_id": doc_id,
        "target": str(gold),
        "filtered_resps": reply,
        "input_media": IMAGES,
        "consistency_acc": ["consistency_acc", record],
        "triplet_counts": ["triplet_counts", record],
        "input": "Which image of the following two (1 and 2) is more plausible?",
    }


def pairs_line(doc_id: int, rating: float) -> dict:
    record = {"item_id": "0", "is_gold": True, "rating": rating, "answer_status": "parsed"}
    return {
        "doc_id": doc_id,
        "target": "True",
        "filtered_resps": f"Score: {rating:g}",
        "order_faithful_acc": ["order_faithful_acc", record],
        "input": "Rank the plausibility",
    }


def write_run(folder: Path, model: str, triplet: list[dict], pairs: list[dict]) -> Path:
    folder.mkdir(parents=True)
    results = {
        "model_name": model,
        "config": {"model": model, "limit": None},
        "results": {
            "nleye_triplet": {"consistency_acc,none": 0.5, "triplet_counts,none": {"documents": 4, "items_scored": 2}}
        },
    }
    (folder / f"{STAMP}_results.json").write_text(json.dumps(results))
    for task, lines in (("nleye_triplet", triplet), ("nleye_pairs", pairs)):
        (folder / f"{STAMP}_samples_{task}.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    return folder


@pytest.fixture
def two_runs(tmp_path) -> tuple[Path, Path]:
    a = write_run(
        tmp_path / "a",
        "model-a",
        [
            triplet_line(0, "1, the glass falls", 1, "parsed"),
            triplet_line(1, "2", 2, "parsed"),
            triplet_line(2, "I cannot tell", None, "unparsable"),
            triplet_line(3, "", None, "request_failed"),
        ],
        [pairs_line(0, 7)],
    )
    b = write_run(
        tmp_path / "b",
        "model-b",
        [
            triplet_line(0, "2", 2, "parsed"),
            triplet_line(1, "2", 2, "parsed"),
            triplet_line(2, "1", 1, "parsed"),
            triplet_line(3, "", None, "request_failed"),
        ],
        [pairs_line(0, 3)],
    )
    return a, b


def test_a_run_named_with_glob_characters_reads_only_its_own_samples(tmp_path):
    """The samples beside a results file were found by a glob of its name: a run named ``a*`` (or ``a[b]``) drew in
    every other run's samples whose name the pattern matched."""
    for stamp in ("a*", "a[b]", "a?"):
        folder = tmp_path / stamp.strip("*[]?")
        folder.mkdir(exist_ok=True)
        results = folder / f"{stamp}_results.json"
        for name in (stamp, "ab", "abc", "a"):
            (folder / f"{name}_samples_t.jsonl").write_text("{}\n")
        assert browse.samples_files(results) == [folder / f"{stamp}_samples_t.jsonl"], stamp


def test_items_say_how_each_reply_was_read(two_runs):
    items = browse.read_items(browse.find_results(two_runs[0]))
    assert [(item.task, item.doc_id, item.status, item.read, item.category) for item in items] == [
        ("nleye_pairs", 0, "answered", "7", ""),
        ("nleye_triplet", 0, "correct", "1", "physical"),
        ("nleye_triplet", 1, "wrong", "2", "social"),
        ("nleye_triplet", 2, "unparsable", "-", "physical"),
        ("nleye_triplet", 3, "request_failed", "-", "social"),
    ]
    assert items[1].reply == "1, the glass falls" and items[1].images == IMAGES and items[1].item_id == "0"
    assert items[1].details == {"gold_position": "1"}


def test_the_page_is_self_contained_with_thumbnails_and_filters(two_runs, tmp_path):
    out = tmp_path / "page.html"
    assert main(["browse", str(two_runs[0]), "-o", str(out)]) == 0
    page = out.read_text()
    data = page_data(page)
    assert len(data["cards"]) == 5 and data["runs"] == ["model-a"] and data["page_size"] == browse.PAGE_SIZE
    assert "<title>model-a: 5 documents</title>" in page
    # each distinct image once on the page (4 triplet cards show the same two), cards point into the table
    assert page.count("data:image/jpeg;base64,") == 2 and len(set(data["images"])) == 2
    triplet = [card for card in data["cards"] if card["task"] == "nleye_triplet"]
    assert [card["images"] for card in triplet] == [
        [["premise", "premise.png", 0], ["hypothesis 1", "hypothesis1.png", 1]]
    ] * 4
    assert all(re.fullmatch(r"data:image/jpeg;base64,[A-Za-z0-9+/=]+", uri) for uri in data["images"])
    assert 'src="http' not in page and "<link" not in page and "<script src" not in page  # nothing from elsewhere
    options = re.findall(r'<select id="status">(.*?)</select>', page)[0]
    assert re.findall(r'<option value="(\w+)"', options) == [
        "correct",
        "wrong",
        "unparsable",
        "request_failed",
        "answered",
    ]
    assert re.findall(r'<select id="category">(.*?)</select>', page)[0] == (
        '<option value="">all</option><option>physical</option><option>social</option>'
    )
    assert triplet[3] | {"prompt": ""} == {
        "task": "nleye_triplet",
        "doc": 3,
        "item": "1",
        "category": "social",
        "target": "1",
        "prompt": "",
        "statuses": ["request_failed"],
        "images": triplet[3]["images"],
        "answers": [{"status": "request_failed", "read": "-", "reply": "", "details": []}],
    }


def test_a_folder_at_the_cache_key_or_a_link_at_a_cache_folder_is_set_aside_first(two_runs, tmp_path, capsys):
    """A directory planted at ``<cache>/.cache_key`` made browse (and every run that seals an entry: a stage, the
    judge) fail with IsADirectoryError; a link at ``<cache>/thumbnails`` had the thumbnails written where it
    pointed."""
    cache, victim = tmp_path / "cache", tmp_path / "victim"
    (cache / ".cache_key").mkdir(parents=True)
    victim.mkdir()
    (cache / "thumbnails").symlink_to(victim)
    assert main(["browse", str(two_runs[0]), "-o", str(tmp_path / "page.html")]) == 0
    assert page_data((tmp_path / "page.html").read_text())["images"] and list(victim.iterdir()) == []
    assert (cache / ".cache_key").is_file() and not (cache / "thumbnails").is_symlink()
    err = capsys.readouterr().err
    assert "was a directory where the cache's sealing key goes; moved aside" in err
    assert f"{cache / 'thumbnails'} was a link to {victim}" in err


def test_each_distinct_image_is_decoded_once_and_then_taken_from_the_cache(tmp_path, decoded_files):
    copy = tmp_path / "copy_of_premise.png"  # another path, the same bytes
    copy.write_bytes(Path(IMAGES[0]).read_bytes())
    line = triplet_line(0, "1", 1, "parsed") | {"input_media": [IMAGES[0], str(copy), IMAGES[1]]}
    run = write_run(tmp_path / "run", "model-a", [line, {**line, "doc_id": 1}], [])
    first = browse.browse_page(browse.find_results(run))[0].html
    assert len(decoded_files) == 2  # two contents under three paths
    assert len(page_data(first)["images"]) == 2
    decoded_files.clear()
    again = browse.browse_page(browse.find_results(run))[0].html
    assert decoded_files == [] and again == first
    made = thumbnails.thumbnails([IMAGES[0], str(copy), IMAGES[1]])
    assert (made.decoded, made.reused) == (0, 2) and made.uris[IMAGES[0]] == made.uris[str(copy)]


def test_a_tampered_cache_entry_is_refused_and_made_again():
    made = thumbnails.thumbnails([IMAGES[0], IMAGES[1]])
    assert (made.decoded, made.reused) == (2, 0)
    digest = hashlib.sha256(Path(IMAGES[0]).read_bytes()).hexdigest()
    entry = thumbnails.entry_path(digest, thumbnails.THUMBNAIL_PX)
    other = thumbnails.entry_path(hashlib.sha256(Path(IMAGES[1]).read_bytes()).hexdigest(), thumbnails.THUMBNAIL_PX)
    seal_line, _, _ = entry.read_bytes().partition(b"\n")
    _, _, planted = other.read_bytes().partition(b"\n")
    entry.write_bytes(seal_line + b"\n" + planted)  # the other image's thumbnail under this image's seal
    again = thumbnails.thumbnails([IMAGES[0], IMAGES[1]])
    assert (again.decoded, again.reused) == (1, 1) and again.uris == made.uris
    other.write_bytes(entry.read_bytes())  # a sealed entry copied under another image's name
    assert thumbnails.thumbnails([IMAGES[1]]).decoded == 1


def small_pngs(folder: Path, count: int, side: int = 16) -> list[str]:
    """``count`` PNGs of ``side`` x ``side`` pixels, each its own colour (so each its own thumbnail)."""
    from PIL import Image

    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for number in range(count):
        path = folder / f"image{number}.png"
        Image.new("RGB", (side, side), (number * 20 % 256, 255 - number * 20 % 256, 90)).save(path)
        paths.append(str(path))
    return paths


def test_a_cold_build_past_the_decode_budget_decodes_what_fits_in_card_order_and_links_the_rest(
    tmp_path, monkeypatch, decoded_files, capsys
):
    """50 cards (the first page) over the sample premise, then 5 cards with an image each: the budget (the premise
    and two of the others) makes the first page's thumbnail and the next two; the last three are linked."""
    from PIL import Image

    monkeypatch.setattr(thumbnails, "POOL_FROM", 1000)  # decoded here, where decoded_files counts them
    with Image.open(IMAGES[0]) as premise:
        premise_px = premise.width * premise.height
    monkeypatch.setattr(thumbnails, "DECODE_BUDGET_PX", premise_px + 2 * 16 * 16, raising=False)
    monkeypatch.setenv("ABDUCTIVE_DATA", str(tmp_path / "images"))  # a data folder: its images are drawn
    later = small_pngs(tmp_path / "images", 5)
    lines = [triplet_line(doc, "1", 1, "parsed") | {"input_media": [IMAGES[0]]} for doc in range(browse.PAGE_SIZE)]
    lines += [triplet_line(50 + n, "1", 1, "parsed") | {"input_media": [path]} for n, path in enumerate(later)]
    run = write_run(tmp_path / "run", "model-a", lines, [])
    out = tmp_path / "pages" / "page.html"
    out.parent.mkdir()
    assert main(["browse", str(run), "-o", str(out)]) == 0
    assert len(decoded_files) == 3  # today's code decoded all six
    data = page_data(out.read_text())
    shown = [data["images"][card["images"][0][2]] for card in data["cards"]]
    assert all(uri.startswith("data:image/jpeg;base64,") for uri in shown[:52])
    assert shown[52:] == ["../images/image2.png", "../images/image3.png", "../images/image4.png"]
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].endswith("images: 3 embedded (3 made, 0 from the cache), 3 linked")
    assert printed[1].startswith("  the page shows the 3 linked images from their files on this machine; ")
    assert "--self-contained embeds them all, in " in printed[1]
    decoded_files.clear()  # a second build: the cached thumbnails are free, the budget makes the other three
    assert main(["browse", str(run), "-o", str(out)]) == 0
    assert len(decoded_files) == 3 and capsys.readouterr().out.splitlines()[0].endswith(
        "images: 6 embedded (3 made, 3 from the cache), 0 linked"
    )
    monkeypatch.setenv("ABDUCTIVE_CACHE", str(tmp_path / "another cache"))
    decoded_files.clear()
    assert main(["browse", str(run), "-o", str(out), "--self-contained"]) == 0
    assert len(decoded_files) == 6 and capsys.readouterr().out.splitlines()[0].endswith(
        "images: 6 embedded (6 made, 0 from the cache), 0 linked"
    )
    assert "../images" not in out.read_text() and len(page_data(out.read_text())["images"]) == 6


def test_diff_self_contained_makes_every_thumbnail(two_runs, tmp_path, monkeypatch, decoded_files, capsys):
    monkeypatch.setattr(thumbnails, "POOL_FROM", 1000)
    monkeypatch.setattr(thumbnails, "DECODE_BUDGET_PX", 0)
    out = tmp_path / "diff.html"
    assert main(["diff", str(two_runs[0]), str(two_runs[1]), "-o", str(out), "--self-contained"]) == 0
    assert len(decoded_files) == 2 and capsys.readouterr().out.splitlines()[-1].endswith(
        "images: 2 embedded (2 made, 0 from the cache), 0 linked"
    )


def test_the_walk_stops_at_the_budget_cached_thumbnails_cost_nothing_and_the_first_page_is_always_made(
    tmp_path, monkeypatch
):
    a, b, c, d = small_pngs(tmp_path, 4)  # 256 pixels each
    read: list[str] = []
    real_read = thumbnails._read
    monkeypatch.setattr(thumbnails, "_read", lambda path, allowed: read.append(path) or real_read(path, allowed))
    monkeypatch.setattr(thumbnails, "READ_AHEAD", 1)
    assert thumbnails.thumbnails([c]).decoded == 1  # c's thumbnail is cached from here on
    read.clear()
    made = thumbnails.thumbnails([a, b, c, d, a], budget=256)
    assert (made.decoded, made.reused, made.decoded_px) == (1, 0, 256)
    assert made.linked == [b, c, d] and list(made.uris) == [a]  # c is cached, but past the end: linked
    assert read == [a, b, a]  # b read to find its cost (then a again, to make it); c and d never read
    again = thumbnails.thumbnails([c, a, b, d], budget=256)  # c and a from the cache, free; b fits, d does not
    assert (again.decoded, again.reused, again.linked) == (1, 2, [d])
    e, f, g = small_pngs(tmp_path / "more", 3, side=20)
    first_page = thumbnails.thumbnails([e, f, g], budget=0, always=2)
    assert (first_page.decoded, first_page.linked) == (2, [g])
    assert thumbnails.thumbnails([g], budget=0).linked == [g]  # a budget of nothing links even the first
    assert thumbnails.thumbnails([g], budget=None).decoded == 1  # no budget: everything made


def test_a_jpeg_costs_its_draft_scale_and_a_png_its_full_size(tmp_path):
    from PIL import Image

    picture = Image.new("RGB", (500, 375), (10, 120, 200))
    picture.save(tmp_path / "photo.jpg", quality=90)
    picture.save(tmp_path / "photo.png")
    assert thumbnails.decode_cost((tmp_path / "photo.jpg").read_bytes()) == 250 * 188  # decoded at 1/2
    assert thumbnails.decode_cost((tmp_path / "photo.png").read_bytes()) == 500 * 375
    assert thumbnails.decode_cost(_declared_png(30000, 30000)) == 0  # never decoded: costs nothing
    assert thumbnails.decode_cost(b"not an image") == 0


def test_a_link_is_relative_percent_encoded_inert_and_points_at_its_file(tmp_path):
    from urllib.parse import unquote, urljoin, urlsplit
    from urllib.request import url2pathname

    folder = tmp_path / "javascript:alert(1)"
    folder.mkdir()
    image = folder / 'a "<b>#?x y.png'
    image.write_bytes(Path(IMAGES[0]).read_bytes())
    pages = tmp_path / "pages"
    pages.mkdir()
    url = browse.link(str(image), pages)
    assert url == "../javascript%3Aalert%281%29/a%20%22%3Cb%3E%23%3Fx%20y.png"
    assert urlsplit(url).scheme == "" and not set(url) & set(':"<>#? ')
    found = url2pathname(unquote(urlsplit(urljoin(pages.as_uri() + "/", url)).path))
    assert Path(found) == image
    relative_image = os.path.relpath(image)  # a path as a samples file may hold it, from the working folder
    assert browse.link(relative_image, pages) == url
    os.mkfifo(tmp_path / "fifo.png")
    for not_a_file in (tmp_path / "fifo.png", folder, tmp_path / "gone.png"):
        assert browse.link(str(not_a_file), pages) is None


def test_a_linked_path_that_is_no_file_shows_as_not_readable(tmp_path, monkeypatch):
    monkeypatch.setattr(thumbnails, "DECODE_BUDGET_PX", 0)
    monkeypatch.setenv("ABDUCTIVE_DATA", str(tmp_path))
    lines = [triplet_line(doc, "1", 1, "parsed") for doc in range(browse.PAGE_SIZE)]  # the first page
    lines.append(triplet_line(50, "1", 1, "parsed") | {"input_media": [str(tmp_path), IMAGES[1] + ".gone"]})
    run = write_run(tmp_path / "run", "model-a", lines, [])
    page = browse.browse_page(browse.find_results(run), tmp_path)[0]
    assert page.images.linked == [] and page_data(page.html)["cards"][-1]["images"] == [
        ["premise", tmp_path.name, None],
        ["hypothesis 1", "hypothesis1.png.gone", None],
    ]


def test_a_reply_cannot_break_out_of_the_page(tmp_path):
    hostile = '</script><script>alert(1)</script><img src=x onerror="alert(2)"> & <!-- \u2028'
    line = triplet_line(0, hostile, None, "unparsable") | {"input": "<b>bold</b></SCRIPT >"}
    run = write_run(tmp_path / "run", "model-</script>", [line], [])
    page = browse.browse_page(browse.find_results(run))[0].html
    assert page.lower().count("</script") == 2  # the page's own two script elements, nothing of the run
    assert "<img src=x" not in page and "<b>bold" not in page
    (card,) = page_data(page)["cards"]
    assert card["answers"][0]["reply"] == hostile and card["prompt"] == "<b>bold</b></SCRIPT >"
    script = page.rsplit("<script>", 1)[1]
    assert not re.search(r"innerHTML|outerHTML|insertAdjacentHTML|document\.write", script)  # text goes in as text


def test_a_reply_echoing_a_key_of_a_plain_lmms_eval_run_is_redacted_in_browse_diff_and_show(tmp_path, capsys):
    """Plain lmms-eval keeps a run's model_args in clear and a reply may echo a key it was given: browse, diff and
    show replace it, as the ui does."""
    from abductive_tasks.reports.diff import main as diff_main

    key = "ACCESS-KEY-mmmm1234"
    runs = []
    for name, pick in (("a", 1), ("b", 2)):
        run = write_run(tmp_path / name, f"model-{name}", [triplet_line(0, f"{pick} {key}", pick, "parsed")], [])
        (results,) = run.glob("*_results.json")
        record = json.loads(results.read_text())
        record["config"]["model_args"] = f"response=1 {key},access_key={key}"
        results.write_text(json.dumps(record))
        runs.append(run)
    page = browse.browse_page(browse.find_results(runs[0]))[0].html
    assert key not in page and page_data(page)["cards"][0]["answers"][0]["reply"] == "1 [REDACTED]"
    assert browse.show_main([str(runs[0])]) == 0
    assert diff_main([str(runs[0]), str(runs[1]), "-o", str(tmp_path / "diff.html")]) == 0
    printed, diff_page = capsys.readouterr().out, (tmp_path / "diff.html").read_text()
    assert "2 [REDACTED]" in diff_page and key not in printed and key not in diff_page


@pytest.mark.e2e
def test_chromium_draws_the_first_cards_then_more_and_shows_a_hostile_reply_as_text(tmp_path):
    if CHROMIUM is None:
        pytest.skip(MISSING)
    hostile = '</script><img src=x onerror="document.title=1">'
    lines = [triplet_line(doc_id, hostile if doc_id == 0 else "1", 1, "parsed") for doc_id in range(60)]
    items = browse.read_items(browse.find_results(write_run(tmp_path / "run", "m", lines, [])))
    rows = [{"item": item, "answers": [item], "statuses": [item.status]} for item in items]
    out = tmp_path / "page.html"
    out.write_text(browse.render("t", ["m"], rows, page_size=20).html)
    dom = chromium_dom(out.as_uri(), tmp_path / "profile")
    assert dom.count('class="card"') == 20  # the first page (far taller than the window); the rest when scrolled to
    assert re.search(r'<button id="more">more \(40 not drawn yet\)</button>', dom)
    assert "&lt;/script&gt;&lt;img src=x onerror=" in dom and '<img src="x"' not in dom
    assert dom.count("<img ") == 20 * 2 and "<title>t</title>" in dom


def test_diff_lists_the_documents_where_two_runs_disagree(two_runs, tmp_path, capsys):
    a, b = (browse.read_items(browse.find_results(run)) for run in two_runs)
    common, found = disagreements(a, b)
    assert common == {"nleye_pairs": 1, "nleye_triplet": 4}
    assert [(pair.a.key, pair.a.status, pair.b.status) for pair in found] == [
        (("nleye_pairs", 0), "answered", "answered"),
        (("nleye_triplet", 0), "correct", "wrong"),
        (("nleye_triplet", 2), "unparsable", "correct"),
    ]
    out = tmp_path / "diff.html"
    assert main(["diff", str(two_runs[0]), str(two_runs[1]), "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "nleye_triplet: 2 of 4 documents differ (A right, B wrong: 1; A wrong, B right: 0)" in printed
    assert "    A: correct        read 1      '1, the glass falls'" in printed
    page = out.read_text()
    cards = page_data(page)["cards"]
    assert len(cards) == 3 and [len(card["answers"]) for card in cards] == [2, 2, 2]
    assert main(["diff", str(two_runs[0]), str(two_runs[1]), "--show", "1"]) == 0
    printed = capsys.readouterr().out
    assert printed.count("    A: ") == 2 and "  ... 1 more (--show N, or -o page.html for all)" in printed
    assert "model-a vs model-b: 3 of 5 documents differ" in page


def test_show_prints_the_summary_of_a_past_run(two_runs, capsys):
    assert main(["show", str(two_runs[0])]) == 0
    run = json.loads((two_runs[0] / f"{STAMP}_results.json").read_text())
    summary, _, provenance = capsys.readouterr().out.rpartition("\n\nRun ")
    assert summary + "\n" == report.summary(run, report.headline_lookup(), two_runs[0], details=True) + "\n"
    assert provenance.splitlines() == [  # a run written by hand: what abductive-eval and lmms-eval record is absent
        "2026-01-01; abductive-tasks not recorded, lmms-eval not recorded",
        "Data: not recorded (runs of abductive-eval record it)",
        "Model: model-a; weights not recorded; judge: not recorded",
    ]


def test_show_of_a_folder_of_several_runs_says_which_it_shows(two_runs, tmp_path, capsys):
    """A batch's or a demo's results folder holds several models' runs: show printed the newest alone, silently."""
    import os

    newest = two_runs[1] / f"{STAMP}_results.json"
    os.utime(newest, ns=(2_000_000_000_000_000_000, 2_000_000_000_000_000_000))
    assert main(["show", str(tmp_path)]) == 0
    first, blank, summary = capsys.readouterr().out.splitlines()[:3]
    assert first == (
        f"{tmp_path} holds 2 results files; shown: the newest, {newest}; show another by its run's folder or results "
        f"file, e.g. abductive-eval show {two_runs[0]}"
    )
    assert blank == "" and summary.startswith("abductive-eval summary: model-b")
    assert main(["show", str(two_runs[0])]) == 0
    assert capsys.readouterr().out.startswith("abductive-eval summary: model-a")  # one run: no such line


def test_a_run_without_samples_or_results_is_one_line(two_runs, tmp_path, capsys):
    for path in two_runs[0].glob("*.jsonl"):
        path.unlink()
    assert main(["browse", str(two_runs[0])]) == 1
    (line,) = capsys.readouterr().err.splitlines()
    assert line.endswith(
        "this run kept no samples; re-run it with them: abductive-eval --model model-a "
        f"--tasks nleye_triplet --output_path {tmp_path} --log_samples"
    )
    assert main(["show", str(tmp_path / "nothing")]) == 1
    assert capsys.readouterr().err == f"abductive-eval show: {tmp_path / 'nothing'}: no such file or folder\n"


DEEP = "[" * 600 + "]" * 600  # decodes, then breaks any recursive walk over it


@pytest.mark.parametrize(
    ("samples", "why"),
    [
        (b"[1, 2]\n", "line 1: not a JSON object (a list)"),
        (b"null\n", "line 1: not a JSON object (a NoneType)"),
        (b'{"doc_id": 1e400}\n', "line 1: not a samples line (cannot convert float infinity to integer)"),
        (b'{"doc_id": 0, "x": ' + DEEP.encode() + b"}\n", "line 1: not a samples line (nested over 100 deep)"),
        (b'{"doc_id": 0, "x": ' + b"[" * 5000 + b"]" * 5000 + b"}\n", "line 1: not a samples line (maximum recursion"),
        (b'{"doc_id": 0}\n\xff\xfe{"doc_id": 1}\n', ": not UTF-8 text (invalid start byte)"),
    ],
)
def test_a_samples_file_of_another_shape_is_one_line_naming_it(two_runs, capsys, samples, why):
    """Valid JSON of another shape, a value nested hundreds deep or bytes that are not UTF-8 stopped browse and diff
    with a traceback."""
    (path,) = two_runs[0].glob("*_samples_nleye_triplet.jsonl")
    path.write_bytes(samples)
    for command in (["browse", str(two_runs[0])], ["diff", *map(str, two_runs)]):
        assert main(command) == 1
        (line,) = capsys.readouterr().err.splitlines()
        assert line.startswith(f"abductive-eval {command[0]}: {path}") and why in line, line


@pytest.mark.parametrize("command", ["show", "browse", "diff"])
def test_a_results_file_nested_hundreds_deep_is_one_line_naming_it(two_runs, capsys, command):
    (path,) = two_runs[0].glob("*_results.json")
    for deep in (DEEP, "[" * 5000 + "]" * 5000):
        path.write_text(json.dumps({"results": {}, "config": {"model_args": "x"}})[:-1] + f', "x": {deep}}}')
        assert main([command, *map(str, two_runs[: 2 if command == "diff" else 1])]) == 1
        (line,) = capsys.readouterr().err.splitlines()
        assert line.startswith(f"abductive-eval {command}: {path}: not a readable results JSON (nested"), line


@pytest.mark.parametrize("command", ["show", "browse", "diff"])
def test_a_results_config_that_is_no_object_is_one_line_naming_it(two_runs, capsys, command):
    """A results file whose ``config`` is no JSON object stopped show with a traceback (``.get`` of a list)."""
    (path,) = two_runs[0].glob("*_results.json")
    path.write_text(json.dumps(json.loads(path.read_text()) | {"config": [1]}))
    assert main([command, *map(str, two_runs[: 2 if command == "diff" else 1])]) == 1
    (line,) = capsys.readouterr().err.splitlines()
    assert line == f"abductive-eval {command}: {path}: its config is no JSON object: not an lmms-eval results JSON"


@pytest.mark.parametrize(
    ("limit", "typed"), [("x; touch planted", "'x; touch planted'"), ("-1.0", "-1.0"), ([2], "'[2]'")]
)
def test_a_recorded_limit_that_is_no_number_is_shown_as_it_is(two_runs, capsys, limit, typed):
    """A results ``limit`` that is no number (an edited file) reached ``float()``: show and browse's rerun line
    stopped with a traceback; the rerun line now quotes it, as every other value it shows."""
    (path,) = two_runs[0].glob("*_results.json")
    run = json.loads(path.read_text())
    path.write_text(json.dumps(run | {"config": run["config"] | {"limit": limit}}))
    assert main(["show", str(two_runs[0])]) == 0
    assert f"--limit {limit}: a partial evaluation, not a score" in capsys.readouterr().out
    for samples in two_runs[0].glob("*.jsonl"):
        samples.unlink()
    assert main(["browse", str(two_runs[0])]) == 1
    assert f" --limit {typed} --log_samples" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("source", "shown"),
    [("sample", "ABDUCTIVE_DATA=sample "), ("/data/my copies", "ABDUCTIVE_DATA='/data/my copies' ")],
)
def test_the_rerun_line_names_the_data_the_run_read_and_no_secret(two_runs, tmp_path, capsys, source, shown):
    """A run on the sample or a local copy is rerun on the same data: the line sets ABDUCTIVE_DATA as the run
    recorded it (the official source: left unset); a key in its model arguments is never shown."""
    (results_path,) = two_runs[0].glob("*_results.json")
    run = json.loads(results_path.read_text())
    run["config"]["model_args"] = "api_key=sk-do-not-show-1234,seed=1"
    run["config"]["resolved_cli_args"] = {"output_path": f"{tmp_path}/my runs"}  # quoted, as a shell needs it
    run["config"] |= {"limit": 2.0, "offset": 3}  # the same documents asked again
    run["abductive_tasks"] = {"data": {"nleye": {"source": source, "annotations_sha256": "0" * 64}}}
    results_path.write_text(json.dumps(run))
    for path in two_runs[0].glob("*.jsonl"):
        path.unlink()
    assert main(["browse", str(two_runs[0])]) == 1
    (line,) = capsys.readouterr().err.splitlines()
    assert line.endswith(
        f"this run kept no samples; re-run it with them: {shown}abductive-eval --model model-a --model_args "
        f"'api_key=[REDACTED],seed=1' --tasks nleye_triplet --output_path '{tmp_path}/my runs' --limit 2 --offset 3 "
        "--log_samples"
    )


def test_the_rerun_line_of_a_batch_run_sets_the_settings_it_recorded(two_runs, capsys):
    """A batch's run records its score-changing ABDUCTIVE_* settings in its identity: the rerun line sets them too (a
    local file's path, not its digest), with the data; following it without them ran other settings."""
    from abductive_tasks.runs.identity_record import RUN_RECORD, IdentityRecord

    settings = {"ABDUCTIVE_JUDGE_EXTRACT": "1", "ABDUCTIVE_NLEYE_COLUMNS": "gold_label=label", "ABDUCTIVE_X": "a b"}
    settings["ABDUCTIVE_DVE_EVALUATOR"] = "/w/e.pt@sha256:" + "0" * 64
    settings["ABDUCTIVE_JUDGE_URL"] = "http://user:<secret 0123456789abcdef>@judge:8000"  # held as its hash: left out
    data = {"nleye": {"source": "sample", "annotations_sha256": "0" * 64}}
    IdentityRecord({"settings": settings, "data": data}, None, (), "model-a", "spec.yaml", 0).write(
        two_runs[0] / RUN_RECORD
    )
    for path in two_runs[0].glob("*.jsonl"):
        path.unlink()
    assert main(["browse", str(two_runs[0])]) == 1
    (line,) = capsys.readouterr().err.splitlines()
    assert line.split("re-run it with them: ")[1].startswith(
        "ABDUCTIVE_DATA=sample ABDUCTIVE_DVE_EVALUATOR=/w/e.pt ABDUCTIVE_JUDGE_EXTRACT=1 "
        "ABDUCTIVE_NLEYE_COLUMNS=gold_label=label ABDUCTIVE_X='a b' abductive-eval --model model-a "
    )
    assert "secret" not in line and "ABDUCTIVE_JUDGE_URL" not in line


def test_the_rerun_line_and_show_of_an_abductive_eval_run_set_the_settings_it_recorded(two_runs, capsys):
    """abductive-eval's results record the run's score-changing ABDUCTIVE_* settings (0.1.30 on): the rerun line sets
    them (it left out the picks folder ABDUCTIVE_MUCR_PICKS named, so the rerun explained other picks) and show says
    them; a value held as a secret's hash is left out."""
    (results_path,) = two_runs[0].glob("*_results.json")
    run = json.loads(results_path.read_text())
    run["abductive_tasks"] = {
        "data": {"nleye": {"source": "sample", "annotations_sha256": "0" * 64}},
        "settings": {"ABDUCTIVE_MUCR_PICKS": "/runs/my picks", "ABDUCTIVE_JUDGE_URL": "[REDACTED]"},
    }
    results_path.write_text(json.dumps(run))
    assert main(["show", str(results_path)]) == 0
    assert "\nSettings: ABDUCTIVE_MUCR_PICKS=/runs/my picks\n" in capsys.readouterr().out
    for path in two_runs[0].glob("*.jsonl"):
        path.unlink()
    assert main(["browse", str(two_runs[0])]) == 1
    (line,) = capsys.readouterr().err.splitlines()
    assert line.split("re-run it with them: ")[1].startswith(
        "ABDUCTIVE_DATA=sample ABDUCTIVE_MUCR_PICKS='/runs/my picks' abductive-eval --model model-a "
    )
    assert "JUDGE_URL" not in line


def test_browse_and_diff_draw_no_image_outside_the_runs_and_the_data_folders(tmp_path, capsys):
    """A samples file may name any path: browse embedded (and cached) a thumbnail of a picture in another folder, a
    private one. Like the ui, a page draws only images inside the runs' folders and the data folders, links
    resolved, and says so of each other image; a composite with such a part shows its parts."""
    from abductive_tasks.reports import media

    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    secret = str(Path(small_pngs(private, 1)[0]).rename(private / "secret.png"))
    runs = []
    for name, reply in (("a", "1"), ("b", "2")):
        planted = triplet_line(0, reply, int(reply), "parsed") | {"input_media": [secret, IMAGES[1]]}
        planted["consistency_acc"][1]["images"] = [secret, IMAGES[1]]
        linked = triplet_line(1, reply, int(reply), "parsed") | {"input_media": [str(tmp_path / name / "in.png")]}
        runs.append(write_run(tmp_path / name, f"model-{name}", [planted, linked], []))
        (tmp_path / name / "in.png").symlink_to(secret)  # inside the run's folder, pointing out of it
    not_drawn = [
        [["premise", "secret.png", None, media.NOT_DRAWN], ["hypothesis 1", "hypothesis1.png", 0]],
        [["premise", "in.png", None, media.NOT_DRAWN]],
    ]
    assert main(["browse", str(runs[0]), "-o", str(tmp_path / "page.html")]) == 0
    assert [card["images"] for card in page_data((tmp_path / "page.html").read_text())["cards"]] == not_drawn
    assert "  2 images not drawn: outside the runs' folders and the data folders" in capsys.readouterr().out
    assert main(["diff", str(runs[0]), str(runs[1]), "-o", str(tmp_path / "diff.html")]) == 0
    assert [card["images"] for card in page_data((tmp_path / "diff.html").read_text())["cards"]] == not_drawn
    assert "  2 images not drawn" in capsys.readouterr().out
    digest = hashlib.sha256(Path(secret).read_bytes()).hexdigest()
    assert thumbnails.cached(digest, thumbnails.THUMBNAIL_PX) is None  # never read, never cached
    combined = browse.item_of("nleye_triplet_combined", {"doc_id": 0, "input_media": [*IMAGES, secret]})
    page = browse.render("combined", ["m"], [{"item": combined, "answers": [combined], "statuses": ["answered"]}])
    assert page.composites.decoded == 0 and page.outside == [secret]
    assert [image[2:] for image in page_data(page.html)["cards"][0]["images"]] == [[0], [1], [None, media.NOT_DRAWN]]


def test_images_of_a_run_copied_from_another_machine_are_said_missing_not_outside(tmp_path, capsys):
    """A run copied from another machine names the paths it read there: the page told to set ABDUCTIVE_DATA, which
    cannot draw them (a walkthrough of a copied MuCR run). It says they are not on this machine."""
    elsewhere = "/home/someone-else/.cache/abductive/images/0f/0f3a.png"
    line = triplet_line(0, "1", 1, "parsed") | {"input_media": [elsewhere, IMAGES[1]]}
    line["consistency_acc"][1]["images"] = [elsewhere, IMAGES[1]]
    run = write_run(tmp_path / "copied", "model-a", [line], [])
    assert main(["browse", str(run), "-o", str(tmp_path / "page.html")]) == 0
    printed = capsys.readouterr().out
    assert (
        "  1 image not drawn: no such file on this machine (a run copied from another machine names the paths it "
        "read there); browse it where it ran, or run it here"
    ) in printed
    assert "set ABDUCTIVE_DATA" not in printed


def _declared_png(width: int, height: int) -> bytes:
    """A PNG header declaring ``width`` x ``height`` pixels, with no pixel data (a decompression bomb's header)."""
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunk = b"IHDR" + header
    ihdr = struct.pack(">I", len(header)) + chunk + struct.pack(">I", zlib.crc32(chunk))
    end = struct.pack(">I", 0) + b"IEND" + struct.pack(">I", zlib.crc32(b"IEND"))
    return b"\x89PNG\r\n\x1a\n" + ihdr + end


@pytest.mark.parametrize("kind", ["30000x30000 pixels", "a FIFO"])
def test_browse_of_a_run_with_a_bomb_or_a_fifo_image_writes_its_page(tmp_path, monkeypatch, kind):
    """Images declaring 30000 x 30000 pixels are never decoded, and a FIFO named in input_media is never opened:
    the page is written, those thumbnails left out."""
    monkeypatch.setenv("ABDUCTIVE_DATA", str(tmp_path))  # the data folder of the browse below
    image = tmp_path / "image.png"
    if kind == "a FIFO":
        os.mkfifo(image)
    else:
        image.write_bytes(_declared_png(30000, 30000))
    line = triplet_line(0, "1", 1, "parsed") | {"input_media": [str(image)]}
    run = write_run(tmp_path / "run", "model-a", [line], [pairs_line(0, 7)])
    out = tmp_path / "page.html"
    script = (
        "import sys; from abductive_tasks.cli import main; "
        f"sys.exit(main(['browse', {str(run)!r}, '-o', {str(out)!r}]))"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert out.is_file() and "data:image/jpeg" not in out.read_text()
    (card,) = (card for card in page_data(out.read_text())["cards"] if card["task"] == "nleye_triplet")
    assert card["images"] == [["premise", "image.png", None]]  # shown as "image not readable: image.png"


@pytest.mark.parametrize("named", ["results", "samples_nleye_triplet", "samples_nleye_pairs"])
def test_a_fifo_named_like_a_run_file_is_never_opened(tmp_path, named):
    """A FIFO named like a results or samples file made ``show`` and ``browse`` wait forever (the batch and the
    leaderboard refused it already): one line naming it, never opened."""
    run = write_run(tmp_path / "run", "model-a", [triplet_line(0, "1", 1, "parsed")], [pairs_line(0, 7)])
    (fifo,) = run.glob(f"{STAMP}_{named}.json*")
    fifo.unlink()
    os.mkfifo(fifo)
    for command in ("show", "browse"):
        script = f"import sys; from abductive_tasks.cli import main; sys.exit(main([{command!r}, {str(run)!r}]))"
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=tmp_path)
        if named == "results" or command == "browse":
            assert done.returncode == 1, (command, done.stdout)
            expected = f"abductive-eval {command}: {fifo}: a FIFO, not a regular file"
            assert done.stderr.splitlines() == [expected], command
        else:  # show reads no samples
            assert done.returncode == 0, done.stderr


def test_show_never_prints_terminal_escape_sequences_from_a_results_file(tmp_path, capsys):
    run = write_run(tmp_path / "run", "model-\x1b]0;pwned\x07\x1b[2J", [triplet_line(0, "1", 1, "parsed")], [])
    assert main(["show", str(run)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "model-" in out


def test_diff_never_prints_terminal_escape_sequences_from_a_reply_or_a_results_file(tmp_path, capsys):
    """A generated reply is the value read (DVE's update, an explanation): printed bare where the reply ends with it."""
    hostile = "\x1b]0;pwned\x07\x1b[2J"
    runs = [
        write_run(tmp_path / name, f"model-{name}{hostile}", [triplet_line(0, str(pick), pick, "parsed")], [])
        for name, pick in (("a", 1), ("b", 2))
    ]
    for run in runs:  # the value read is the reply (as a generation task's record keeps it)
        (samples,) = run.glob("*_samples_nleye_triplet.jsonl")
        line = json.loads(samples.read_text())
        line["filtered_resps"] = line["consistency_acc"][1]["prediction"] = f"{run.name}{hostile}"
        line["consistency_acc"][1]["reasoning_category"] = f"physical{hostile}"
        samples.write_text(json.dumps(line) + "\n")
    assert main(["diff", str(runs[0]), str(runs[1])]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "model-a" in out and "read a" in out


def test_a_closed_pipe_ends_the_output_without_a_traceback(two_runs):
    a, _ = two_runs
    command = [
        sys.executable,
        "-c",
        f"import sys; from abductive_tasks.cli import main; sys.exit(main(['show', {str(a)!r}]))",
    ]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    process.stdout.close()  # the reader (`| head`) is gone before the first line
    _, error = process.communicate(timeout=120)
    assert b"Traceback" not in error and b"BrokenPipeError" not in error, error.decode()


@pytest.mark.parametrize("target", ["its own results", "its own samples", "the other run's samples", "a FIFO"])
def test_browse_and_diff_never_overwrite_their_inputs_or_what_is_no_regular_file(two_runs, tmp_path, capsys, target):
    """``-o`` naming the run's own ``_results.json`` overwrote it, with exit 0; ``-o`` on a FIFO replaced it."""
    a, b = two_runs
    paths = {
        "its own results": a / f"{STAMP}_results.json",
        "its own samples": a / f"{STAMP}_samples_nleye_triplet.jsonl",
        "the other run's samples": b / f"{STAMP}_samples_nleye_pairs.jsonl",
        "a FIFO": tmp_path / "page.fifo",
    }
    if target == "a FIFO":
        os.mkfifo(paths[target])
    state = lambda: {  # noqa: E731
        path: (os.lstat(path).st_mode, path.read_bytes() if path.is_file() else b"")
        for path in paths.values()
        if os.path.lexists(path)
    }
    before = state()
    commands = [["diff", str(a), str(b), "-o", str(paths[target])]]
    if target != "the other run's samples":
        commands.append(["browse", str(a), "-o", str(paths[target])])
    for command in commands:
        assert main(command) == 1, command
        (line,) = capsys.readouterr().err.splitlines()
        assert f"cannot write {paths[target]}" in line
        assert ("an input of this command" if target != "a FIFO" else "a FIFO, not a regular file") in line
    assert state() == before


COMPOSITE_TASKS = ("mucr_c2e", "mucr_e2c", "mucr_cue", "nleye_triplet_combined", "nleye_pairs_combined")


@pytest.mark.e2e
def test_browse_diff_and_the_ui_show_the_composite_the_model_was_sent(tmp_path, monkeypatch, capsys):
    """On composite tasks the page shows the one image the model got, drawn again from the samples by the task's own
    functions: pixel for pixel what its doc_to_visual hook returns; separate-image tasks show their images apart."""
    from importlib import import_module

    from abductive_tasks.reports import composites, media
    from abductive_tasks.reports.power_and_ui import sample_picture, sample_view
    from abductive_tasks.runs import catalog

    from helpers.runs import abductive_eval

    monkeypatch.setenv("ABDUCTIVE_DATA", "sample")
    output = tmp_path / "run"
    tasks = [*COMPOSITE_TASKS, "mucr_c2e_split", "nleye_triplet"]
    run = abductive_eval(["--model", "dumb_pixel", "--tasks", ",".join(tasks), "--log_samples"], output)
    assert run.returncode == 0, run.stderr[-2000:]

    def hook(task: str, key: str):
        module, _, name = str(catalog.config(catalog.index()[task][1])[key]).rpartition(".")
        return getattr(import_module(module), name)

    items = browse.read_items(browse.find_results(output))
    for task in COMPOSITE_TASKS:
        docs = hook(task, "process_docs")(None)
        ours = [item for item in items if item.task == task]
        assert ours and all(item.composite is not None for item in ours)
        for item in ours[:4]:
            (sent,) = hook(task, "doc_to_visual")(docs[item.doc_id])
            drawn = item.composite.draw(item.composite.read(media.allowed_folders([output])))
            assert drawn.size == sent.size and drawn.tobytes() == sent.tobytes(), (task, item.doc_id)
    assert all(item.composite is None for item in items if item.task in ("mucr_c2e_split", "nleye_triplet"))

    page = tmp_path / "items.html"
    assert main(["browse", str(output), "-o", str(page)]) == 0
    assert "composites the model was sent: 84 shown (84 drawn" in capsys.readouterr().out
    cards = {(card["task"], card["doc"]): card for card in page_data(page.read_text())["cards"]}
    ((role, name, image),) = cards["mucr_c2e", 0]["images"]
    assert role == "one image sent, left to right: cause, option 1, option 2, option 3, option 4" and image is not None
    assert [role for role, _, _ in cards["nleye_triplet_combined", 0]["images"]] == [
        "one image sent, left to right: premise, hypothesis 1, hypothesis 2"
    ]
    assert [role for role, _, _ in cards["mucr_c2e_split", 0]["images"]][:2] == ["cause", "option 1"]

    # past the budget a composite document shows its parts, each saying so; a cached composite costs nothing
    allowed = media.allowed_folders([output])
    found = composites.pictures([item.composite for item in items if item.composite], allowed, budget=0)
    assert found.reused == 84 and found.left == 0 and found.decoded == 0
    monkeypatch.setenv("ABDUCTIVE_CACHE", str(tmp_path / "cold"))
    monkeypatch.setattr(thumbnails, "DECODE_BUDGET_PX", 0)
    assert main(["diff", str(output), str(output), "-o", str(tmp_path / "diff.html")]) == 0  # no disagreement
    rows = [{"item": item, "answers": [item], "statuses": [item.status]} for item in items if item.task == "mucr_cue"]
    # the images extracted into the first cache are no data folder of the cold one: named as the run's own
    cold = browse.render("cold", ["dumb_pixel"], rows, page_size=1, roots=[tmp_path / "cache" / "images"])
    assert cold.composites.decoded == 1 and cold.composites.left == 11
    drawn_cards = page_data(cold.html)["cards"]
    assert [role for role, _, _ in drawn_cards[1]["images"]] == [
        "cause (part 1 of the one image sent)",
        "effect (part 2 of the one image sent)",
    ]

    # show: what the run is a run of, as abductive-eval recorded it in the results JSON
    from abductive_tasks.reports.leaderboard.cells import data_key
    from abductive_tasks.runs.identity import data_fingerprint, package_versions

    assert main(["show", str(output)]) == 0
    shown = capsys.readouterr().out.splitlines()
    versions = package_versions()
    assert re.fullmatch(
        rf"Run \d{{4}}-\d\d-\d\d \d\d:\d\d UTC; abductive-tasks {versions['abductive-tasks']}, "
        rf"lmms-eval {versions['lmms-eval']}",
        shown[-6],
    )
    assert shown[-5:] == [
        f"Data, MuCR: embedded sample, fingerprint {data_key(data_fingerprint('mucr', 'sample'))} "
        "(1 annotation file, images inside it)",  # the sample's parquet holds them: it said 0 images
        f"Data, NL-Eye: embedded sample, fingerprint {data_key(data_fingerprint('nleye', 'sample'))} "
        "(1 annotation file, 36 images)",
        "Model: dumb_pixel; no weights; judge: none",
        "Task versions: " + ", ".join(f"{task} {catalog.metadata(task)['version']}" for task in sorted(tasks)),
        "Settings: ABDUCTIVE_JUDGE=off",  # the score-changing settings the run had (the suite's: no judge)
    ]

    # the ui's media route and badges, in the environment of the run (its extracted images are in its cache)
    monkeypatch.setenv("ABDUCTIVE_CACHE", str(tmp_path / "cache"))
    line = json.loads(next(output.rglob("*_samples_mucr_c2e.jsonl")).read_text().splitlines()[0])
    content, _ = sample_picture("mucr_c2e", line)
    from PIL import Image

    served = Image.open(io.BytesIO(content)).convert("RGB")
    (sent,) = hook("mucr_c2e", "doc_to_visual")(hook("mucr_c2e", "process_docs")(None)[line["doc_id"]])
    assert served.tobytes() == sent.convert("RGB").tobytes()
    assert sample_view("mucr_c2e", line)["images"].startswith("one image sent, left to right: cause, option 1")


def test_pages_go_to_the_runs_folder_by_default(two_runs, capsys):
    a, b = two_runs
    assert main(["browse", str(a)]) == 0 and (a / "items.html").is_file()
    assert main(["diff", str(a), str(b), "-o"]) == 0 and (a / "diff.html").is_file()
    assert f"{a / 'items.html'}: 5 documents" in capsys.readouterr().out


def test_diff_of_one_models_two_runs_names_each_by_its_folder(tmp_path, capsys):
    """A new user's diff of two runs of one model printed `A = A: dumb_pixel, B = B: dumb_pixel`."""
    from abductive_tasks.reports.diff import main as diff_main

    lines = [triplet_line(0, "1", 1, "parsed")]
    first = write_run(tmp_path / "dumb_pixel-0123abcd", "dumb_pixel", lines, [])
    second = write_run(tmp_path / "dumb_pixel-4567cdef", "dumb_pixel", [triplet_line(0, "2", 1, "parsed")], [])
    assert diff_main([str(first), str(second)]) == 0
    heading = capsys.readouterr().out.splitlines()[0]
    assert heading == "abductive-eval diff: A = dumb_pixel (dumb_pixel-0123abcd), B = dumb_pixel (dumb_pixel-4567cdef)"
    assert diff_main([str(first), str(first)]) == 0  # one run twice: nothing tells them apart
    assert capsys.readouterr().out.splitlines()[0] == "abductive-eval diff: A = dumb_pixel (A), B = dumb_pixel (B)"


def test_diff_compares_the_replies_of_a_task_judged_on_the_reply_itself():
    """MuCR's Exp keeps no value read off the reply: a walkthrough's diff said `mucr_exp: 0 of 12 documents differ`
    for two models whose explanations (and judge scores) differed. The reply is what such a task is judged on."""

    def exp_line(reply: str) -> dict:
        record = {"item_id": "3", "answer_status": "parsed", "s1": 5, "s2": 5, "s3": 5, "labelled": True}
        return {"doc_id": 0, "target": "", "filtered_resps": [reply], "exp_score": ["exp_score", record]}

    same, other = (browse.item_of("mucr_exp", exp_line(reply)) for reply in ("Cause: rain.", "Cause: wind."))
    common, found = disagreements([same], [other])
    assert common == {"mucr_exp": 1} and len(found) == 1
    assert disagreements([same], [browse.item_of("mucr_exp", exp_line("Cause: rain."))])[1] == []


def test_the_images_of_a_task_that_sends_text_only_are_said_to_be_not_sent():
    """NL-Eye's text and described triplets send the model no image, yet lmms-eval's input_media lists the document's
    three: the cards drew them as the premise and hypotheses the model saw."""
    assert browse.image_roles("nleye_triplet_text", 3) == [
        f"{role}{browse.NOT_SENT}" for role in ("premise", "hypothesis 1", "hypothesis 2")
    ]
    assert browse.image_roles("nleye_triplet_described", 1) == [f"premise{browse.NOT_SENT}"]
    assert browse.NOT_SENT == " (not sent: this task sends the model text only)"
    assert browse.image_roles("nleye_triplet", 3) == ["premise", "hypothesis 1", "hypothesis 2"]


def test_a_sherlock_image_is_said_to_be_shown_as_stored_not_as_sent():
    """Sherlock's tasks send the image with regions drawn on it (the clue's highlighted, or the candidate boxes); the
    card shows the stored image, and said only "image"."""
    assert browse.image_roles("sherlock_retrieval_mini_rating", 1) == [
        "image as stored (the model saw it with the task's regions drawn on it)"
    ]
