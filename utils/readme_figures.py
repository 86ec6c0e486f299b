"""The figures README.md and the guides quote about the demo and the daily loop, measured here and now.

    python utils/readme_figures.py                  # demo time, browse page size and documents, --compare p-values
    python utils/readme_figures.py --tests          # and the time of the whole test suite (pytest; 20-35 min)
    python utils/readme_figures.py --check README.md docs/results.md docs/batch.md  # sample-data figures, checked

The demo times are in README.md (Demo), the browse page in docs/results.md, the ``--compare`` table in
docs/batch.md, each beside the command that produced it.

Each figure comes from the commands the README shows, run as fresh processes with the console script next to this
Python, offline, on the embedded sample (``ABDUCTIVE_DATA=sample``):

* demo time: each demo command of the README (``--log_samples`` included), wall seconds, median of ``--repeats``;
* the browse page of the ``dumb_pixel`` demo run: its size and its number of documents;
* the p-values of ``abductive-eval leaderboard ... --compare dumb_pixel random_baseline`` after the sample
  leaderboard batch (``utils/specs/sample_leaderboard.yaml``; ``--check`` runs its two baselines only), and the wall
  time of that batch over every model of the spec (docs/batch.md);
* with ``--tests``: ``pytest`` wall time.

``--check`` (run by ``.ci/quickstart``) measures only what depends on the sample data alone (the page's document
count, the p-values) and exits 1 naming each figure, and the page that quotes it, that no longer matches. Timings
and the page size depend on the machine and the image encoder: they are printed, never checked.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "utils" / "specs" / "sample_leaderboard.yaml"
ABDUCTIVE_EVAL = str(Path(sys.executable).with_name("abductive-eval"))
OFFLINE = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "ABDUCTIVE_JUDGE": "off"}
DEMO_MODELS = ("dumb_pixel", "random_baseline")
COMPARED = ("dumb_pixel", "random_baseline")


def run(command: list[str], cwd: Path, **extra: str) -> subprocess.CompletedProcess:
    """``command`` offline on the sample; stops the script with its output when it fails."""
    env = {**os.environ, **OFFLINE, "ABDUCTIVE_DATA": "sample", **extra}
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"readme_figures: {' '.join(command)} exited {done.returncode}:\n{done.stderr[-3000:]}")
    return done


def demo_command(model: str, output: Path) -> list[str]:
    """A demo command of the README's Demo section."""
    return [ABDUCTIVE_EVAL, "--model", model, "--tasks", "nleye,mucr,dve,sherlock", "--output_path", str(output),
            "--log_samples"]  # fmt: skip


def demo(workdir: Path, repeats: int) -> tuple[dict[str, float], Path]:
    """Median wall seconds of each demo command, and the folder of the last ``dumb_pixel`` run."""
    seconds: dict[str, list[float]] = {model: [] for model in DEMO_MODELS}
    for repeat in range(repeats):
        for model in DEMO_MODELS:
            start = time.perf_counter()
            run(demo_command(model, workdir / f"demo{repeat}"), workdir)
            seconds[model].append(time.perf_counter() - start)
    (folder,) = (workdir / f"demo{repeats - 1}").glob("dumb_pixel-*")
    return {model: statistics.median(times) for model, times in seconds.items()}, folder


def browse_page(run_folder: Path, workdir: Path) -> tuple[int, int]:
    """The browse page of a run: its size in bytes and its number of documents."""
    page = workdir / "items.html"
    printed = run([ABDUCTIVE_EVAL, "browse", str(run_folder), "-o", str(page)], workdir).stdout
    documents = re.search(r": (\d+) documents of ", printed)
    if documents is None:
        sys.exit(f"readme_figures: browse printed no document count: {printed!r}")
    return page.stat().st_size, int(documents.group(1))


def compare_p_values(workdir: Path, whole: bool = False) -> tuple[dict[str, str], float]:
    """Per task, the p-value of ``--compare dumb_pixel random_baseline`` on the sample leaderboard ('—' where none),
    and the wall seconds of its batch: the two compared models, or with ``whole`` every model of the spec (the
    figure docs/batch.md quotes)."""
    spec = yaml.safe_load(SPEC.read_text(encoding="utf-8"))
    spec["output_dir"] = str(workdir / "leaderboard_runs")
    copy = workdir / "sample_leaderboard.yaml"
    copy.write_text(yaml.safe_dump(spec), encoding="utf-8")
    only = [] if whole else [argument for model in COMPARED for argument in ("--model", model)]
    start = time.perf_counter()
    run([ABDUCTIVE_EVAL, "batch", str(copy), *only], workdir)
    seconds = time.perf_counter() - start
    run([ABDUCTIVE_EVAL, "leaderboard", spec["output_dir"], "--compare", *COMPARED], workdir)
    table = next(Path(spec["output_dir"]).rglob(f"compare_{COMPARED[0]}_vs_{COMPARED[1]}.md"))
    return p_column(table.read_text(encoding="utf-8")), seconds


def p_column(markdown: str) -> dict[str, str]:
    """``{task: p}`` from a comparison table in Markdown (the leaderboard's, or the README's copy of it)."""
    rows = [[cell.strip() for cell in line.strip().strip("|").split("|")] for line in markdown.splitlines()]
    header = next((row for row in rows if row[:1] == ["task"] and "p" in row), None)
    if header is None:
        return {}
    column = header.index("p")
    return {
        row[0]: row[column]
        for row in rows
        if len(row) == len(header) and row is not header and not set(row[0]) <= set(":-")
    }


def test_time(workdir: Path) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=ROOT, check=False)
    return time.perf_counter() - start


def readme_figures(page: str) -> tuple[int | None, dict[str, str]]:
    """What a page says: the browse page's document count, the p-values of its comparison table (None, {}: absent)."""
    documents = re.search(r"for the\s+(\d+)\s+documents of the", page)
    marker = "compare_dumb_pixel_vs_random_baseline.md"
    p_values = p_column(page.split(marker, 1)[1].split("\n\n", 2)[1]) if marker in page else {}
    return (int(documents.group(1)) if documents else None), p_values


def check(pages: list[Path], workdir: Path, demo_run: Path | None) -> int:
    """Compare the sample-data figures quoted by ``pages`` (each figure on one of them) with a fresh measurement."""
    documents_said: tuple[Path, int] | None = None
    p_said: tuple[Path, dict[str, str]] | None = None
    for page in pages:
        documents, p_values = readme_figures(page.read_text(encoding="utf-8"))
        documents_said = (page, documents) if documents is not None else documents_said
        p_said = (page, p_values) if p_values else p_said
    if demo_run is None:
        run(demo_command("dumb_pixel", workdir / "demo"), workdir)
        (demo_run,) = (workdir / "demo").glob("dumb_pixel-*")
    _, documents = browse_page(demo_run, workdir)
    p_values, _ = compare_p_values(workdir)
    problems = []
    names = " ".join(str(page) for page in pages)
    if documents_said is None or documents_said[1] != documents:
        where = f"{documents_said[0]} says {documents_said[1]}" if documents_said else f"none of {names} quotes it"
        problems.append(f"browse page: {documents} documents, {where}")
    if p_said is None or p_said[1] != p_values:
        said = p_said[1] if p_said else {}
        changed = {task: (said.get(task), p) for task, p in p_values.items() if said.get(task) != p}
        where = str(p_said[0]) if p_said else f"none of {names}"
        problems.append(f"--compare p-values ({where}, now): {changed or said}")
    for problem in problems:
        print(f"readme_figures: {problem}; update it from python utils/readme_figures.py", file=sys.stderr)
    if not problems:
        print(f"ok: figures of the sample data in {names} ({documents} documents, {len(p_values)} p-values)")
    return 1 if problems else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3, help="demo runs per command (default 3; median)")
    parser.add_argument("--tests", action="store_true", help="also time the whole test suite")
    parser.add_argument("--check", type=Path, nargs="+", metavar="PAGE", help="check the sample-data figures of PAGEs")
    parser.add_argument("--demo-run", type=Path, help="with --check: an existing dumb_pixel demo run (--log_samples)")
    parser.add_argument("--workdir", type=Path, help="where runs are written (default: a temporary folder)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="readme-figures-") as scratch:
        workdir = (args.workdir or Path(scratch)).resolve()
        workdir.mkdir(parents=True, exist_ok=True)
        if args.check:
            pages = [page.resolve() for page in args.check]
            return check(pages, workdir, args.demo_run.resolve() if args.demo_run else None)
        seconds, demo_run = demo(workdir, max(args.repeats, 1))
        size, documents = browse_page(demo_run, workdir)
        p_values, batch_seconds = compare_p_values(workdir, whole=True)
        load = os.getloadavg()[0]
        print(f"machine: {os.cpu_count()} cores, load average {load:.1f}, {time.strftime('%Y-%m-%d %H:%M %Z')}")
        for model, median in seconds.items():
            print(f"demo --model {model}: {median:.1f} s (median of {max(args.repeats, 1)})")
        print(f"browse page of the dumb_pixel demo run: {size / 1e6:.2f} MB, {documents} documents")
        print(f"--compare {' '.join(COMPARED)} p-values: " + ", ".join(f"{t} {p}" for t, p in p_values.items()))
        print(f"abductive-eval batch {SPEC.relative_to(ROOT)} (every model, from scratch): {batch_seconds:.0f} s")
        if args.tests:
            total = test_time(workdir)
            print(f"pytest: {int(total // 60)} min {int(total % 60)} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
