"""Leaderboard plots: percentages on one axis, error bars, chance lines, value labels; other metrics apart."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.collections import LineCollection
from PIL import Image

from abductive_tasks.reports.plots import Bar, Panel, breakdown_figure, headline_figures, plot_breakdown, plot_headlines

PANELS = [
    Panel(
        "nleye_triplet",
        "consistency_acc",
        "fraction",
        chance=0.25,
        bars=[Bar("a", 0.5833, 0.3333, 0.8333, True), Bar("b", 0.1667, 0.0, 0.4167, False)],
    ),
    Panel(
        "sherlock_comparison",
        "comparison_acc",
        "percent",
        chance=0.0,
        bars=[Bar("a", -16.1, -30.0, -2.0, False), Bar("b", 6.1, -10.0, 20.0, True)],
    ),
    Panel(
        "nleye_pairs",
        "order_faithful_acc",
        "fraction",
        chance=0.45,
        bars=[Bar("a", None, note="limited (limit=2)"), Bar("b", 0.3333, 0.0833, 0.5833, True)],
    ),
    Panel("mucr_exp", "exp_score", "raw", bars=[Bar("a", 2.5, 1.5, 3.5, True), Bar("b", 1.0, 0.5, 1.5, False)]),
]


@pytest.fixture(scope="module")
def figures():
    figures = headline_figures(PANELS)
    yield figures
    import matplotlib.pyplot as plt

    for figure in figures.values():
        plt.close(figure)


def panels_of(figure) -> list:
    return [axes for axes in figure.axes if axes.get_visible()]


def test_each_percentage_panel_has_its_own_axis_and_raw_metrics_are_apart(figures):
    assert list(figures) == ["headline", "headline_raw"]
    percent = panels_of(figures["headline"])
    assert [axes.get_title().split("\n")[0] for axes in percent] == [
        "nleye_triplet",
        "sherlock_comparison",
        "nleye_pairs",
    ]
    (triplet_low, triplet_high), (sherlock_low, _), _ = (axes.get_ylim() for axes in percent)
    assert triplet_low == 0 and 100 < triplet_high < 115  # Sherlock's negative bound squeezes no other panel
    assert sherlock_low < -30
    (raw,) = panels_of(figures["headline_raw"])
    assert raw.get_title().startswith("mucr_exp") and raw.get_ylim()[1] < 10


def test_a_zero_bar_is_drawn_and_a_figure_without_data_is_not(tmp_path):
    zero = Panel("nleye_triplet", "consistency_acc", "fraction", bars=[Bar("a", 0.0, 0.0, 0.0), Bar("b", 0.5)])
    empty = Panel("mucr_exp", "exp_score", "raw", bars=[Bar("a", None, note="not computed")])
    figures = headline_figures([zero, empty])
    assert list(figures) == ["headline"]  # no headline_raw.png holding no data
    (axes,) = panels_of(figures["headline"])
    ticks = [collection for collection in axes.collections if collection.get_offsets().shape[0] == 2]
    assert [tuple(offset) for offset in ticks[0].get_offsets()] == [(0.0, 0.0), (1.0, 50.0)]  # a mark at 0
    assert [path.name for path in plot_headlines([zero, empty], tmp_path)] == ["headline.png"]


def test_the_breakdown_legend_is_outside_the_bars():
    import matplotlib.pyplot as plt

    cells = {model: {"physical": {"acc": 1.0, "n": 2}, "social": {"acc": 0.0, "n": 2}} for model in ("a", "b")}
    figure = breakdown_figure("nleye_triplet", "consistency_by_category", cells, "fraction")
    figure.canvas.draw()
    (axes,) = figure.axes
    renderer = figure.canvas.get_renderer()
    assert axes.get_legend().get_window_extent(renderer).x0 > axes.get_window_extent(renderer).x1
    plt.close(figure)


def test_bars_carry_error_bars_value_labels_and_the_chance_line(figures):
    triplet, sherlock, pairs = panels_of(figures["headline"])
    heights = [patch.get_height() for patch in triplet.patches]
    assert heights == pytest.approx([58.33, 16.67])  # fractions as percent
    (errors,) = [collection for collection in triplet.collections if isinstance(collection, LineCollection)]
    spans = sorted(tuple(np.round(segment[:, 1], 2)) for segment in errors.get_segments())
    assert spans == [(0.0, 41.67), (33.33, 83.33)]
    labels = {text.get_text(): text.get_fontweight() for text in triplet.texts}
    assert labels == {"58.3": "bold", "16.7": "normal"}  # bold: best or tied with it
    chance = [line.get_ydata()[0] for line in triplet.lines if line.get_linestyle() == "--"]
    assert chance == [25.0] and "chance 25.0%" in triplet.get_title()
    assert "chance 45.0%" in pairs.get_title() and "limited (limit=2)" in [text.get_text() for text in pairs.texts]
    assert "-16.1" in [text.get_text() for text in sherlock.texts]


def test_files_are_pngs(tmp_path):
    written = plot_headlines(PANELS, tmp_path)
    cells = {"a": {"physical": {"acc": 0.5, "n": 2, "lower": 0.0, "upper": 1.0}}}
    written.append(plot_breakdown("nleye_triplet", "consistency_by_category", cells, "fraction", tmp_path))
    assert [path.name for path in written] == [
        "headline.png",
        "headline_raw.png",
        "nleye_triplet__consistency_by_category.png",
    ]
    for path in written:
        with Image.open(path) as image:
            assert image.format == "PNG" and image.size[0] >= 300


def test_an_upper_bound_is_drawn_apart_labelled_and_never_bold():
    """headline_raw.png drew mucr_exp_gold (gold-conditioned: an upper bound, not the paper's number) beside mucr_exp
    like any score, its best value bold. Now its panel comes after the scores, labelled, hatched, no value bold."""
    import matplotlib.pyplot as plt

    bars = [Bar("a", 9.25, 8.5, 10.0, True), Bar("b", 2.0, 1.0, 3.0, False)]
    caveat = "upper bound, not the paper's number"
    gold = Panel("mucr_exp_gold", "exp_score", "raw", bars=bars, upper_bound=True, caveat=caveat)
    own = Panel("mucr_exp", "exp_score", "raw", bars=[Bar("a", 7.5, 6.5, 8.5, True), Bar("b", 3.5, 2.5, 4.5, False)])
    figures = headline_figures([gold, own])
    assert list(figures) == ["headline_raw"]
    first, second = panels_of(figures["headline_raw"])
    assert first.get_title().split("\n") == ["mucr_exp", "exp_score"]  # the paper's number first
    assert second.get_title().split("\n") == ["mucr_exp_gold", "exp_score", caveat]
    assert {text.get_text(): text.get_fontweight() for text in first.texts} == {"7.5": "bold", "3.5": "normal"}
    assert {text.get_text(): text.get_fontweight() for text in second.texts} == {"9.25": "normal", "2": "normal"}
    assert [patch.get_hatch() for patch in second.patches] == ["++", "++"]
    assert [patch.get_hatch() for patch in first.patches] == [None, None]
    assert "an upper bound, not the paper's number" in figures["headline_raw"]._suptitle.get_text()
    for figure in figures.values():
        plt.close(figure)
