"""A composite (the one picture a composite task sent) is drawn from its parts' bytes, each read once from the file
checked inside the runs' and the data folders (``Composite.read``: ``media.read_drawable``).

Found beside the review-3 fix of thumbnails: a composite's digest read each part by path (``Path.read_bytes``), so a
FIFO planted among the parts inside a run's folder hung browse and diff for good, and a part swapped for a link to a
private picture after the page's check was read, drawn and cached; the ui's media route read its parts by path after
its check too.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest
from reports.test_browse import IMAGES, small_pngs

from abductive_tasks.reports import browse, composites, media
from abductive_tasks.reports.power_and_ui import sample_picture

from helpers.pages import page_data

ROLES = ("premise", "hypothesis 1", "hypothesis 2")


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("ABDUCTIVE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("ABDUCTIVE_DATA", "sample")


def combined_page(part: str, run: Path) -> browse.Page:
    """The page of one nleye_triplet_combined document whose third part is ``part``, ``run`` the run's folder."""
    item = browse.item_of("nleye_triplet_combined", {"doc_id": 0, "input_media": [*IMAGES, part]})
    return browse.render("combined", ["m"], [{"item": item, "answers": [item], "statuses": ["answered"]}], roots=[run])


@pytest.mark.timeout(60)
def test_a_fifo_among_a_composites_parts_is_not_waited_on(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    os.mkfifo(run / "planted.png")
    page = combined_page(str(run / "planted.png"), run)  # hung for good before (the digest's read_bytes)
    assert page.composites.decoded == 0 and page.composites.uris == {}
    roles = [image[0] for image in page_data(page.html)["cards"][0]["images"]]
    assert roles == [f"{role} (part {n} of the one image sent)" for n, role in enumerate(ROLES, 1)]  # its parts
    assert sample_picture("nleye_triplet_combined", {"input_media": [*IMAGES, str(run / "planted.png")]}, [run]) is None


def test_a_part_swapped_for_a_link_after_the_check_is_not_read(tmp_path, monkeypatch):
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    secret = Path(small_pngs(private, 1, side=24)[0])
    run = tmp_path / "run"
    inside = Path(small_pngs(run, 1)[0])
    line = {"input_media": [*IMAGES, str(inside)]}
    assert sample_picture("nleye_triplet_combined", line, [run]) is not None  # drawn while it is the run's own
    checked = media.drawable

    def drawable_then_swapped(path, allowed):  # the race, made certain: the swap lands right after the page's check
        answer = checked(path, allowed)
        if Path(path) == inside and not inside.is_symlink():
            inside.unlink()
            inside.symlink_to(secret)
        return answer

    monkeypatch.setattr(media, "drawable", drawable_then_swapped)
    page = combined_page(str(inside), run)
    assert page.composites.decoded == 0 and page.composites.uris == {}  # drawn with the private picture before
    assert sample_picture("nleye_triplet_combined", line, [run]) is None  # the ui's route: the link leads outside


def test_a_composite_is_drawn_and_named_from_the_bytes_it_read(tmp_path):
    run = tmp_path / "run"
    part = Path(small_pngs(run, 1)[0])
    composite = composites.Composite((*IMAGES, str(part)))
    parts = composite.read(media.allowed_folders([run]))
    assert parts == (*(Path(image).read_bytes() for image in IMAGES), part.read_bytes())
    expected = hashlib.sha256(b"composite\0\0")
    for data in parts:
        expected.update(hashlib.sha256(data).digest())
    assert composite.digest(parts) == expected.hexdigest()
    from abductive_tasks.inputs.images import compose_row

    drawn, sent = composite.draw(parts), compose_row(composite.parts)  # what the task's hook sent
    assert drawn.size == sent.size and drawn.tobytes() == sent.tobytes()
    assert composite.read(media.allowed_folders([tmp_path / "elsewhere"])) is None  # a part outside: nothing read
