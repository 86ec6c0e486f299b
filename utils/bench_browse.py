#!/usr/bin/env python
"""How long ``abductive-eval browse`` and ``diff`` take to build their pages, how large the pages are, and how long
headless Chromium takes to open them, at 8x paper size; optionally beside an older version of the package.

    python utils/bench_browse.py                                  # this checkout only, 3 runs each, medians
    python utils/bench_browse.py --baseline 4dede52 --repeats 3   # beside the package as of commit 4dede52
    python utils/bench_browse.py --nleye-docs 700 --dve-docs 1500 --repeats 1   # a quick look
    python utils/bench_browse.py --only dve --work /tmp/bench    # the dve_cls cases (data kept in /tmp/bench)

Writes two synthetic runs in the layout lmms-eval writes with ``--log_samples`` (results JSON, samples JSONL
whose lines carry our record under every metric, as a real run's do): ``nleye_triplet`` at 5,600 documents
(2,800 items, each item's premise and two hypotheses as 1024x1024 PNGs, every file distinct bytes, each image in
two documents, the options swapped) and ``dve_cls`` at 10,000 documents (one 500x375 JPEG per three documents,
every file distinct bytes), plus a second ``dve_cls`` run answering differently for ``diff``. Every image has
pixels of its own (a band of light and dark blocks on top, by its number), so a content-addressed cache finds no
two alike and every thumbnail differs, as in real data.

Each measured command is a fresh process (``python -m abductive_tasks.cli``; with ``--baseline`` the older
package, unpacked from git, comes first on ``PYTHONPATH``), run alternately with the others, ``--repeats`` times;
the medians are printed. Each version's build is timed with an empty thumbnail cache of its own (``cold``, a fresh
``ABDUCTIVE_CACHE``: a first page over these images) and again with the cache that build left (``warm``: the next
page over the same data, another model's run, a diff); with a decode budget the warm build embeds more. The
images line the command prints (embedded, linked) is kept. ``--self-contained`` passes that flag to this
checkout's builds. Opening: headless Chromium loads a copy of the page with a few lines of script appended at its
end; they record ``performance.now()`` when the page's own scripts are done (the old page: every card parsed; the
new one: the first cards drawn) and at the ``load`` event (images decoded), from navigation start. Chromium's own
start is timed on an empty page. Not a test: the figures depend on the machine and its load (printed).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import zlib
from pathlib import Path

import numpy as np
from PIL import Image

REPO = Path(__file__).resolve().parent.parent
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-proxy-server",
)
STAMP = "20260101_000000"
PROBE = """<script>
document.documentElement.dataset.scriptsDoneMs = performance.now().toFixed(0);
document.documentElement.dataset.cardsDrawn = document.querySelectorAll(".card").length;
addEventListener("load", () => { document.documentElement.dataset.loadMs = performance.now().toFixed(0); });
</script>"""
CATEGORIES = ("physical", "functional", "logical", "emotional", "cultural", "social")
DVE_PROMPT = (
    "You are a helpful assistant that helps to determine if an update strengthens or weakens a hypothesis. The "
    "premise is an image that sets the scenario. The hypothesis is an inference based on this scenario, and the "
    "update provides additional information that could impact the hypothesis. Based on the premise provided and the "
    "given update, please judge whether the update strengthens or weakens the hypothesis. ONLY output strengthener "
    "or weakener in your final answer.\nConsider this image as a premise.\nHypothesis: {hypothesis}\nUpdate: {update}"
)
NLEYE_PROMPT = (
    "Which image of the following two (1 and 2) is more plausible to happen after the first image? Premise: the "
    "first image. Answer with 1 or 2, then explain your choice in one sentence. (item {item})"
)


# ---------------------------------------------------------------- synthetic data


def _gradient(rng: np.random.Generator, size: tuple[int, int]) -> Image.Image:
    """A smooth RGB image (compresses to a few hundred KB as a 1024x1024 PNG; decodes like any PNG that size)."""
    width, height = size
    y, x = np.mgrid[0:height, 0:width].astype(np.float32)
    channels = []
    for _ in range(3):
        a, b, c = rng.uniform(-1, 1, 3)
        channels.append(128 + 60 * np.sin(x / width * 6 * a + y / height * 5 * b + c * 3))
    return Image.fromarray(np.clip(np.stack(channels, -1), 0, 255).astype(np.uint8), "RGB")


def _band(pixels: np.ndarray, number: int) -> np.ndarray:
    """The top eighth of ``pixels`` as 16 blocks, dark or light by the bits of ``number`` (every thumbnail differs)."""
    band = pixels[: pixels.shape[0] // 8].copy()
    width = band.shape[1] // 16
    for bit in range(16):
        band[:, bit * width : (bit + 1) * width] = 230 if number >> bit & 1 else 25
    return band


def _png_chunk(kind: bytes, body: bytes) -> bytes:
    return len(body).to_bytes(4, "big") + kind + body + zlib.crc32(kind + body).to_bytes(4, "big")


def _rows(pixels: np.ndarray) -> bytes:
    """PNG scanlines of ``pixels``: each row with filter type 0 (None) in front."""
    height = pixels.shape[0]
    return np.concatenate([np.zeros((height, 1), np.uint8), pixels.reshape(height, -1)], 1).tobytes()


class DistinctPngs:
    """1024x1024 RGB PNGs of one smooth picture, each with its own colour band on top: the rows below the band are
    compressed once (a deflate stream may restart after a full flush), so writing thousands costs little."""

    def __init__(self, picture: Image.Image) -> None:
        self.pixels = np.asarray(picture.convert("RGB"))
        self.height, self.width = self.pixels.shape[:2]
        self.band_rows = self.height // 8
        tail = _rows(self.pixels[self.band_rows :])
        compressor = zlib.compressobj(6, zlib.DEFLATED, -15)
        self.tail = compressor.compress(tail) + compressor.flush()
        self.tail_raw = tail
        header = self.width.to_bytes(4, "big") + self.height.to_bytes(4, "big") + bytes([8, 2, 0, 0, 0])
        self.head = b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", header)

    def make(self, number: int) -> bytes:
        band = _band(self.pixels, number)
        raw = _rows(band)
        compressor = zlib.compressobj(6, zlib.DEFLATED, -15)
        deflated = compressor.compress(raw) + compressor.flush(zlib.Z_FULL_FLUSH) + self.tail
        checksum = zlib.adler32(self.tail_raw, zlib.adler32(raw))
        stream = b"\x78\x9c" + deflated + checksum.to_bytes(4, "big")
        return self.head + _png_chunk(b"IDAT", stream) + _png_chunk(b"IEND", b"")


def distinct_jpeg(picture: Image.Image, number: int) -> bytes:
    """``picture`` with its own colour band on top, as a JPEG (quality 90)."""
    pixels = np.asarray(picture.convert("RGB")).copy()
    pixels[: pixels.shape[0] // 8] = _band(pixels, number)
    buffer = io.BytesIO()
    Image.fromarray(pixels).save(buffer, "JPEG", quality=90)
    return buffer.getvalue()


def _metrics(names: tuple[str, ...], record: dict) -> dict:
    return {name: [name, record] for name in names}


def write_run(folder: Path, model: str, task: str, lines: list[dict]) -> Path:
    folder.mkdir(parents=True)
    results = {"model_name": model, "config": {"model": model, "limit": None}, "results": {task: {"alias": task}}}
    (folder / f"{STAMP}_results.json").write_text(json.dumps(results))
    with (folder / f"{STAMP}_samples_{task}.jsonl").open("w") as handle:
        for line in lines:
            handle.write(json.dumps(line) + "\n")
    return folder


def make_nleye(work: Path, documents: int, rng: np.random.Generator, side: int = 1024) -> Path:
    """A ``nleye_triplet`` run of ``documents`` documents over ``images/<item>/{premise,hypothesis1,2}.png``."""
    images = work / "nleye" / "images"
    pngs = [DistinctPngs(_gradient(rng, (side, side))) for _ in range(6)]
    metrics = (
        "consistency_acc",
        "order1_acc",
        "order2_acc",
        "consistency_by_category",
        "consistency_by_time_direction",
        "consistency_by_time_duration",
        "explanation_valid_rate",
        "triplet_counts",
    )
    lines = []
    for item in range(1, documents // 2 + 1):
        paths = []
        for number, name in enumerate(("premise.png", "hypothesis1.png", "hypothesis2.png")):
            path = images / str(item) / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(pngs[(item + number) % len(pngs)].make(3 * item + number))
            paths.append(str(path))
        gold = 1 + item % 2
        for order in (1, 2):
            prediction = int(rng.integers(1, 3))
            record = {
                "item_id": str(item),
                "gold_position": gold if order == 1 else 3 - gold,
                "prediction": prediction,
                "correct": prediction == (gold if order == 1 else 3 - gold),
                "reasoning_category": CATEGORIES[item % 6],
                "time_direction": ("forward", "backward", "parallel")[item % 3],
                "time_duration": "short-term",
                "judge_configured": False,
                "explanation": "not_configured",
                "explanation_valid": None,
                "answer_status": "parsed",
            }
            media = paths if order == 1 else [paths[0], paths[2], paths[1]]
            lines.append(
                {
                    "doc_id": len(lines),
                    "target": str(record["gold_position"]),
                    "filtered_resps": f"{prediction}. The scene continues that way, as the premise suggests.",
                    "token_counts": [None],
                    "doc_hash": f"{item:064x}",
                    "input_media": media,
                    **_metrics(metrics, record),
                    "input": NLEYE_PROMPT.format(item=item),
                }
            )
    return write_run(work / "runs" / "nleye", "model-a", "nleye_triplet", lines)


def make_dve(work: Path, documents: int, rng: np.random.Generator) -> tuple[Path, Path]:
    """Two ``dve_cls`` runs (two models) of ``documents`` documents over ``flickr30k-images/<id>.jpg``."""
    folder = work / "dve" / "flickr30k-images"
    folder.mkdir(parents=True)
    pictures = [_gradient(rng, (500, 375)) for _ in range(6)]
    paths = []
    for number in range((documents + 2) // 3):
        path = folder / f"{1000000 + number}.jpg"
        path.write_bytes(distinct_jpeg(pictures[number % len(pictures)], number))
        paths.append(str(path))
    metrics = ("dve_accuracy", "dve_by_update_type", "dve_cls_counts", "dve_cls_ci95")
    runs = []
    for model in ("model-a", "model-b"):
        lines = []
        for doc in range(documents):
            update = ("weakener", "strengthener")[doc % 2]
            prediction = ("weakener", "strengthener")[int(rng.integers(0, 2))]
            record = {
                "item_id": f"line {doc + 2}",
                "pair_id": f"{Path(paths[doc // 3]).name}#{doc % 5}r1n",
                "update_type": update,
                "prediction": prediction,
                "correct": prediction == update,
                "impossible_excluded": 4,
                "empty_text_excluded": 0,
                "duplicate_updates": 0,
                "answer_status": "parsed",
            }
            lines.append(
                {
                    "doc_id": doc,
                    "target": update,
                    "filtered_resps": f"{prediction}. The update says more about the scene.",
                    "token_counts": [None],
                    "doc_hash": f"{doc:064x}",
                    "input_media": [paths[doc // 3]],
                    **_metrics(metrics, record),
                    "input": DVE_PROMPT.format(
                        hypothesis=f"A person does something ({doc // 3})", update=f"The person is outside ({doc})."
                    ),
                }
            )
        runs.append(write_run(work / "runs" / f"dve_{model}", model, "dve_cls", lines))
    return runs[0], runs[1]


# ---------------------------------------------------------------- measuring


def baseline_tree(revision: str, work: Path) -> Path:
    """The package as of ``revision`` (``git archive``), unpacked under ``work``."""
    target = work / f"baseline-{revision}"
    if not (target / "abductive_tasks").is_dir():
        archive = subprocess.run(
            ["git", "-C", str(REPO), "archive", revision, "abductive_tasks"], check=True, capture_output=True
        ).stdout
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(target, filter="data")
    return target


IMAGES_LINE = re.compile(r"images: ([\d,]+) embedded \(([\d,]+) made, ([\d,]+) from the cache\), ([\d,]+) linked")


def timed(arguments: list[str], env: dict, cwd: Path) -> dict:
    """Wall and CPU seconds (children included) of ``python -m abductive_tasks.cli arguments`` run in ``cwd`` (not
    in a checkout: ``-m`` puts the working folder first on the path), and the images it says it embedded and
    linked (where it says so)."""
    start = time.perf_counter()
    with tempfile.TemporaryFile() as output:
        process = subprocess.Popen(
            [sys.executable, "-m", "abductive_tasks.cli", *arguments],
            env=env,
            cwd=cwd,
            stdout=output,
            stderr=subprocess.PIPE,
        )
        error = process.stderr.read()
        _pid, status, usage = os.wait4(process.pid, 0)
        output.seek(0)
        printed = output.read().decode(errors="replace")
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"{arguments[:2]} failed: {error.decode()[-2000:]}")
    figures = {"wall_s": time.perf_counter() - start, "cpu_s": usage.ru_utime + usage.ru_stime}
    found = IMAGES_LINE.search(printed)
    if found:
        counts = [int(number.replace(",", "")) for number in found.groups()]
        figures |= dict(zip(("embedded", "made", "from_cache", "linked"), counts, strict=True))
    return figures


def opened(page: Path, profile: Path) -> dict:
    """Chromium's figures for ``page``: scripts done and load (ms from navigation), cards drawn, process wall (s)."""
    probe = page.with_name(page.stem + ".probe.html")
    with page.open("rb") as source, probe.open("wb") as target:
        shutil.copyfileobj(source, target)
        target.write(PROBE.encode())
    start = time.perf_counter()
    done = subprocess.run(
        [str(CHROMIUM), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--dump-dom", probe.as_uri()],
        capture_output=True,
        timeout=900,
    )
    wall = time.perf_counter() - start
    probe.unlink()
    head = done.stdout[:4000].decode(errors="replace")
    found = dict(re.findall(r'data-(scripts-done-ms|cards-drawn|load-ms)="(\d+)"', head))
    if "scripts-done-ms" not in found:
        raise SystemExit(f"chromium reported nothing for {page}: {done.stderr.decode()[-1000:]}")
    return {
        "scripts_done_s": int(found["scripts-done-ms"]) / 1000,
        "load_s": int(found.get("load-ms", -1)) / 1000,
        "cards_drawn": int(found["cards-drawn"]),
        "chromium_wall_s": wall,
    }


def slug(text: str) -> str:
    return re.sub(r"\W+", "_", text)


def medians(samples: list[dict]) -> dict:
    return {key: round(statistics.median(sample[key] for sample in samples), 2) for key in samples[0]}


def load() -> str:
    return "load average {:.2f} {:.2f} {:.2f}".format(*os.getloadavg())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", metavar="REV", help="also time the package as of this git revision")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--nleye-docs", type=int, default=5600)
    parser.add_argument("--dve-docs", type=int, default=10000)
    parser.add_argument("--nleye-px", type=int, default=1024, help="side of the NL-Eye PNGs (default 1024)")
    parser.add_argument("--work", type=Path, help="folder for the data and pages (default: a temporary one)")
    parser.add_argument("--only", default="", help="only the cases whose name holds this text (e.g. dve, nleye)")
    parser.add_argument("--no-open", action="store_true", help="skip the Chromium figures")
    parser.add_argument("--self-contained", action="store_true", help="pass --self-contained to this checkout")
    args = parser.parse_args(argv)
    work = args.work or Path(tempfile.mkdtemp(prefix="bench_browse_"))
    work.mkdir(parents=True, exist_ok=True)
    print(json.dumps({"python": platform.python_version(), "cores": os.cpu_count(), "work": str(work)}), flush=True)
    print(json.dumps({"start": load()}), flush=True)
    rng = np.random.default_rng(0)
    if not (work / "runs").is_dir():
        make_nleye(work, args.nleye_docs, rng, args.nleye_px)
        make_dve(work, args.dve_docs, rng)
    runs = work / "runs"
    cases = {
        f"browse nleye_triplet {args.nleye_docs} docs": ["browse", str(runs / "nleye")],
        f"browse dve_cls {args.dve_docs} docs": ["browse", str(runs / "dve_model-a")],
        f"diff dve_cls {args.dve_docs} docs": ["diff", str(runs / "dve_model-a"), str(runs / "dve_model-b")],
    }
    cases = {case: arguments for case, arguments in cases.items() if args.only in case}
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    installs = {}  # name: (environment, extra arguments)
    if args.baseline:
        installs["before"] = ({**env, "PYTHONPATH": str(baseline_tree(args.baseline, work))}, [])
    installs["after"] = (env, ["--self-contained"] if args.self_contained else [])
    samples: dict[tuple[str, str], list[dict]] = {}
    for repeat in range(args.repeats):
        for case, arguments in cases.items():
            for install, (install_env, extra) in installs.items():
                cache = work / "cache" / slug(f"{case} {install}")
                shutil.rmtree(cache, ignore_errors=True)
                for state in ("cold cache", "warm cache"):
                    version = f"{install}, {state}"
                    page = work / "pages" / f"{slug(case)}_{slug(version)}.html"
                    page.parent.mkdir(exist_ok=True)
                    command = [*arguments, "-o", str(page), *extra]
                    figures = timed(command, {**install_env, "ABDUCTIVE_CACHE": str(cache)}, work)
                    figures["page_mb"] = page.stat().st_size / 1e6
                    if not args.no_open and CHROMIUM.exists():
                        figures |= opened(page, work / "chromium-profile")
                    samples.setdefault((case, version), []).append(figures)
                    print(json.dumps({"repeat": repeat, "case": case, "version": version, **figures}), flush=True)
    print(json.dumps({"end": load()}), flush=True)
    for (case, version), found in samples.items():
        print(json.dumps({"case": case, "version": version, "median of": len(found), **medians(found)}), flush=True)
    if not args.no_open and CHROMIUM.exists():
        empty = work / "empty.html"
        empty.write_text("<!doctype html><title>empty</title>")
        start = time.perf_counter()
        subprocess.run(
            [
                str(CHROMIUM),
                *CHROMIUM_FLAGS,
                f"--user-data-dir={work / 'chromium-profile'}",
                "--dump-dom",
                empty.as_uri(),
            ],
            capture_output=True,
            timeout=300,
        )
        print(json.dumps({"chromium wall on an empty page (s)": round(time.perf_counter() - start, 2)}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
