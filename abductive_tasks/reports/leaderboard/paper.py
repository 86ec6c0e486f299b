"""The papers' own numbers, transcribed as printed: listed apart from our runs, marked "paper-reported"."""

from __future__ import annotations

from dataclasses import dataclass

PAPER_REPORTED = "paper-reported"


@dataclass(frozen=True)
class PaperValue:
    """One number printed in a paper's main table, transcribed as printed."""

    benchmark: str
    table: str
    model: str
    column: str  # the paper's column
    task: str  # our task the column corresponds to
    printed: str  # verbatim
    note: str = ""


# NL-Eye (Ventura et al., ICLR 2025), Table 2, prediction columns. The Humans row is printed above
# the input-strategy blocks; §D (Table 11) compares humans with VLMs on separate images, so it is
# listed against the separate-image tasks. The baselines' row is garbled in the text extraction
# ("Random Dumb Pixel 25% 45% / 50% 50%"): random = 25% / 45% (chance: 1/4 for consistency in both
# orders, P(X>Y)=0.45 for two uniform 1-10 scores), dumb pixel = 50% / 50%.
NLEYE = "NL-Eye"
MUCR = "MuCR"
DVE = "DVE"
SHERLOCK = "Sherlock"
REFERENCE: tuple[PaperValue, ...] = (
    PaperValue(NLEYE, "Table 2", "Humans", "Triplet", "nleye_triplet", "85%", "input strategy not printed"),
    PaperValue(NLEYE, "Table 2", "Humans", "Pairs", "nleye_pairs", "83%", "input strategy not printed"),
    PaperValue(NLEYE, "Table 2", "GPT-4o", "Separate Images / Triplet", "nleye_triplet", "16%"),
    PaperValue(NLEYE, "Table 2", "GPT-4o", "Separate Images / Pairs", "nleye_pairs", "50%"),
    PaperValue(NLEYE, "Table 2", "GPT-4o", "Combined Image / Triplet", "nleye_triplet_combined", "60%"),
    PaperValue(NLEYE, "Table 2", "GPT-4o", "Combined Image / Pairs", "nleye_pairs_combined", "45%"),
    PaperValue(NLEYE, "Table 2", "LLaVA 1.6", "Combined Image / Triplet", "nleye_triplet_combined", "14%"),
    PaperValue(NLEYE, "Table 2", "LLaVA 1.6", "Combined Image / Pairs", "nleye_pairs_combined", "42%"),
    PaperValue(NLEYE, "Table 2", "Random", "Triplet", "nleye_triplet", "25%"),
    PaperValue(NLEYE, "Table 2", "Random", "Pairs", "nleye_pairs", "45%"),
    PaperValue(NLEYE, "Table 2", "Dumb Pixel", "Triplet", "nleye_triplet", "50%"),
    PaperValue(NLEYE, "Table 2", "Dumb Pixel", "Pairs", "nleye_pairs", "50%"),
    # MuCR (Li et al.), Table 1: every model saw one composite image (Form-1, Figure 7a).
    PaperValue(MUCR, "Table 1", "Random", "Image Level / C2E", "mucr_c2e", "25.00"),
    PaperValue(MUCR, "Table 1", "Random", "Image Level / E2C", "mucr_e2c", "25.00"),
    PaperValue(MUCR, "Table 1", "Random", "Phrase Level / Cue", "mucr_cue", "25.00"),
    PaperValue(MUCR, "Table 1", "LLaVA 1.6 13B", "Image Level / C2E", "mucr_c2e", "23.75"),
    PaperValue(MUCR, "Table 1", "LLaVA 1.6 13B", "Image Level / E2C", "mucr_e2c", "21.50"),
    PaperValue(MUCR, "Table 1", "LLaVA 1.6 13B", "Phrase Level / Cue", "mucr_cue", "35.75"),
    PaperValue(MUCR, "Table 1", "LLaVA 1.6 13B", "Sentence Level / Exp", "mucr_exp", "1.88"),
    PaperValue(MUCR, "Table 1", "GPT-4o", "Image Level / C2E", "mucr_c2e", "81.25"),
    PaperValue(MUCR, "Table 1", "GPT-4o", "Image Level / E2C", "mucr_e2c", "77.00"),
    PaperValue(MUCR, "Table 1", "GPT-4o", "Phrase Level / Cue", "mucr_cue", "57.25"),
    PaperValue(MUCR, "Table 1", "GPT-4o", "Sentence Level / Exp", "mucr_exp", "6.75"),
    PaperValue(MUCR, "Table 1", "Human", "Image Level / C2E", "mucr_c2e", "95.60"),
    PaperValue(MUCR, "Table 1", "Human", "Image Level / E2C", "mucr_e2c", "95.50"),
    PaperValue(MUCR, "Table 1", "Human", "Phrase Level / Cue", "mucr_cue", "90.50"),
    PaperValue(MUCR, "Table 1", "Human", "Sentence Level / Exp", "mucr_exp", "9.22"),
    # DVE (Zhang et al.), Table 4 (classification accuracy, %): no human or random row; LLaVA-1.5, not 1.6.
    PaperValue(DVE, "Table 4", "GPT-4o", "Accuracy (%)", "dve_cls", "81.76"),
    PaperValue(
        DVE, "Table 4", "LLaVA-1.5", "Accuracy (%)", "dve_cls", "52.07", "the paper evaluates LLaVA-1.5, not 1.6"
    ),
    # Sherlock (Hessel et al., ECCV 2022), Table 2 (test set; percent, as our Sherlock metrics): no GPT-4o or LLaVA row.
    PaperValue(
        SHERLOCK,
        "Table 2",
        "Random",
        "Retrieval / im→txt mean rank (↓)",
        "sherlock_retrieval",
        "495.4",
        "test split (our val-split tasks are the nearest)",
    ),
    PaperValue(
        SHERLOCK,
        "Table 2",
        "Random",
        "Retrieval / P@1 im→txt (↑)",
        "sherlock_retrieval",
        "0.1",
        "test split (our val-split tasks are the nearest)",
    ),
    PaperValue(
        SHERLOCK,
        "Table 2",
        "Random",
        "Localization / GT-Box / Auto-Box (↑)",
        "sherlock_localization",
        "30.0/7.9",
        "test split (our val-split tasks are the nearest)",
    ),
    PaperValue(
        SHERLOCK,
        "Table 2",
        "Random",
        "Comparison / Val / Test Human Acc (↑)",
        "sherlock_comparison",
        "1.1/-0.6",
        "test split (our val-split tasks are the nearest)",
    ),
    PaperValue(
        SHERLOCK,
        "Table 2",
        "Human + (Upper Bound)",
        "Localization / GT-Box / Auto-Box (↑)",
        "sherlock_localization",
        "92.3/(96.2)",
        "test split (our val-split tasks are the nearest)",
    ),
    PaperValue(
        SHERLOCK,
        "Table 2",
        "Human + (Upper Bound)",
        "Comparison / Val / Test Human Acc (↑)",
        "sherlock_comparison",
        "42.3/42.3",
        "test split (our val-split tasks are the nearest)",
    ),
)
