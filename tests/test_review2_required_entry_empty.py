"""REVIEW-2: the required-argument check (commit 2d28f95b) counts ``pretrained=`` with no value as given, so
``--model nli_scorer --model_args pretrained=$MODEL`` with MODEL unset still ends in lmms-eval's 97-line output with
four tracebacks (OSError: Repo id must use alphanumeric chars ... ''), exit 1. Fails on review-2's base."""

from __future__ import annotations

import pytest

from abductive_tasks.cli.checks import UsageError, check_model_args_quickly


@pytest.mark.parametrize("model_args", ["pretrained=", "pretrained=,device=cpu", "pretrained=''"])
def test_review2_an_empty_required_entry_is_refused_as_missing(model_args):
    argv = ["--model", "nli_scorer", "--model_args", model_args, "--tasks", "nleye_triplet"]
    with pytest.raises(UsageError, match="nli_scorer: --model_args needs pretrained="):
        check_model_args_quickly(argv)
