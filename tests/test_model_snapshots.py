"""Model backends are versioned as tasks are (utils/model_snapshots.py): each backend's checked-in record
(tests/snapshots/models/<model_id>.txt) must be what its code gives now; one whose digest changed under the same
version needs a bump of its ``VERSIONS`` entry, and that version enters a run's identity."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import model_snapshots
import pytest
import task_snapshots
from code_digest import CodeIndex

from abductive_tasks.lmms_source import own_model_classes, own_model_versions

ROOT = Path(__file__).resolve().parents[1]
SNAPSHOTS = ROOT / "tests" / "snapshots"
MODELS = sorted(own_model_classes())


@pytest.fixture(scope="module")
def built() -> dict[str, task_snapshots.Snapshot]:
    return model_snapshots.build_all()


def check(recorded: task_snapshots.Snapshot | None, current: task_snapshots.Snapshot) -> None:
    """Fail as the test of a backend's record does: naming the backend and what to do."""
    verdict = task_snapshots.verdict(recorded, current)
    if verdict.action == "bump":
        pytest.fail(model_snapshots.bump_message(current.task, current.version, verdict.reason))
    assert verdict.action == "ok", (
        f"model backend {current.task}: {verdict.reason}; run python utils/generate_task_yaml.py"
    )


@pytest.mark.parametrize("model", MODELS)
def test_the_checked_in_record_is_what_the_backends_code_is_now(built, model):
    check(model_snapshots.recorded(SNAPSHOTS, model), built[model])


def test_every_registered_backend_has_a_version_and_every_record_a_backend():
    import abductive_tasks.models.manifests as manifests

    assert [manifest.model_id for manifest in manifests.MANIFESTS] == list(own_model_classes())
    assert manifests.VERSIONS == own_model_versions()  # what a run's identity reads is what the module declares
    assert set(own_model_versions()) == set(MODELS), "every backend in MANIFESTS needs a VERSIONS entry, and no other"
    stale = sorted(path.stem for path in (SNAPSHOTS / model_snapshots.FOLDER).glob("*.txt") if path.stem not in MODELS)
    assert not stale, f"records of backends that are no longer registered: {stale}; delete them"


def _package_copy(tmp_path: Path) -> CodeIndex:
    """A CodeIndex reading a copy of the package's source (to edit it without touching the checkout)."""
    index = CodeIndex()
    copy = tmp_path / "abductive_tasks"
    shutil.copytree(index.root, copy, ignore=shutil.ignore_patterns("__pycache__", "sample_data", "tasks", "templates"))
    index.root = copy
    return index


def test_the_reviewers_edit_of_the_image_token_order_needs_a_bump_and_with_one_only_a_regeneration(built, tmp_path):
    """The drift review swapped llava_scorer's image tokens to after the text: the record of every backend running
    that code (llava_hf_scorer, llava) then asks for a version bump, naming the backend; a bump leaves only a
    regeneration; the backends that do not run it are untouched."""
    index = _package_copy(tmp_path)
    scorer = index.root / "models" / "llava_scorer.py"
    before = "context = f\"{' '.join([image_token] * images)}\\n{context}\""
    after = "context = f\"{context}\\n{' '.join([image_token] * images)}\""
    assert before in scorer.read_text(encoding="utf-8")
    scorer.write_text(scorer.read_text(encoding="utf-8").replace(before, after), encoding="utf-8")
    for model in MODELS:
        now = model_snapshots.build(model, index)
        verdict = task_snapshots.verdict(built[model], now)
        if model not in ("llava_hf_scorer", "llava"):
            assert verdict.action == "ok", model
            continue
        # the first line that differs: llava_scorer's own, or (digest scheme 8) a module importing the edited code
        assert verdict.action == "bump" and "abductive_tasks.models.llava" in verdict.reason, model
        with pytest.raises(
            pytest.fail.Exception, match=rf"(?s)model backend {model}: .*Bump its version: raise VERSIONS"
        ):
            check(built[model], now)
        major, minor = built[model].version.split(".")
        bumped = dataclasses.replace(now, version=f"{major}.{int(minor) + 1}")  # its next version
        assert task_snapshots.verdict(built[model], bumped).action == "regenerate", model


def test_what_does_not_run_changes_no_record(built, tmp_path):
    """A comment and a docstring edited: no bump, and not even a regeneration."""
    index = _package_copy(tmp_path)
    scorer = index.root / "models" / "llava_scorer.py"
    text = scorer.read_text(encoding="utf-8").replace('"""The user turn', '"""# a comment\n        The user turn')
    scorer.write_text(text + "\n# a trailing comment\n", encoding="utf-8")
    assert task_snapshots.verdict(built["llava_hf_scorer"], model_snapshots.build("llava_hf_scorer", index)).action == (
        "ok"
    )


def test_a_missing_record_or_a_lowered_version_is_caught(built):
    record = built["dumb_pixel"]
    assert task_snapshots.verdict(None, record).action == "regenerate"
    with pytest.raises(AssertionError, match="model backend dumb_pixel: no snapshot recorded yet"):
        check(None, record)
    lowered = dataclasses.replace(record, version="0.9")
    assert task_snapshots.verdict(record, lowered).action == "bump"


def test_a_record_reads_back_as_written(built):
    for record in built.values():
        parsed = task_snapshots.Snapshot.parse(record.text())
        kind = "harness" if record.task == model_snapshots.HARNESS else "model"
        assert parsed == dataclasses.replace(record, content={}) and parsed.kind == kind
        assert f"\n{kind}: {record.task}\n" in record.text()


def test_a_manifest_naming_a_class_no_module_defines_is_an_error(monkeypatch):
    classes = {"ghost": {"simple_class_path": "abductive_tasks.models.baselines.Ghost"}}
    monkeypatch.setattr(model_snapshots, "own_model_classes", lambda: classes)
    with pytest.raises(LookupError, match="ghost: its manifest names"):
        model_snapshots.build("ghost")


def test_the_harness_record_is_what_importing_the_package_does_now(built):
    check(model_snapshots.recorded(SNAPSHOTS, model_snapshots.HARNESS), built[model_snapshots.HARNESS])


@pytest.mark.parametrize(
    ("module", "edit"),
    [
        # the drift re-review's misses: a filter registered at import for every task, a seed function patched, a
        # table edited through a function called at import, a module constant rebound through globals()
        ("models/manifests.py", '\ncompat.register_filter("take_first", compat.register_filter)\n'),
        ("mucr/variants.py", "\nfrom abductive_tasks.scoring import taskspec as _t\n_t.seed_for = lambda b, *n: b\n"),
        ("scoring/reading/glossary.py", '\ndef _refresh():\n    _GLOSSARY_WORDS["siete"] = "6"\n\n\n_refresh()\n'),
        ("sherlock/metrics.py", '\nglobals()["IOU_THRESHOLD"] = 0.3\n'),
        # the drift review's third round: the read_answer filter's own code (how a read option becomes the filtered
        # reply, which options abstain) was in no record; no task of ours names the filter, every user's task may
        ("scoring/answer_filter.py", "\n\ndef _normal(text):\n    return str(text)\n"),
    ],
)
def test_what_importing_the_package_does_needs_a_package_version_bump(built, tmp_path, module, edit):
    index = _package_copy(tmp_path)
    path = index.root / module
    path.write_text(path.read_text(encoding="utf-8") + edit, encoding="utf-8")
    now = model_snapshots.build_harness(index)
    assert task_snapshots.verdict(built[model_snapshots.HARNESS], now).action == "bump"
    with pytest.raises(pytest.fail.Exception, match="raise __version__ in abductive_tasks/__init__.py"):
        check(built[model_snapshots.HARNESS], now)


def test_a_patch_compat_install_applies_is_in_the_harness_record(built, tmp_path):
    """The drift review's C, one level down: _route_stderr returning None for our metrics."""
    index = _package_copy(tmp_path)
    compat = index.root / "compat.py"
    text = compat.read_text(encoding="utf-8")
    assert "return spec.stderr if bootstrap_iters > 0 else None" in text
    compat.write_text(text.replace("return spec.stderr if bootstrap_iters > 0 else None", "return None"))
    assert task_snapshots.verdict(built[model_snapshots.HARNESS], model_snapshots.build_harness(index)).action == "bump"
