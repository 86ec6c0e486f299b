"""Review of the text-only LLaVA change (c95ec86d) and of utils/bench_llava_hf.py (3f61be06, a52e447b): each test is
a defect the review found (strict xfails at 1b8d2397), fixed since."""

from __future__ import annotations

import copy
import importlib.util
import pickle
import sys
from pathlib import Path
from types import ModuleType, SimpleNamespace

import pytest

from abductive_tasks.cli import main

from helpers.runs import read_samples
from helpers.tiny_llava import build_tiny_llava

ROOT = Path(__file__).resolve().parents[2]

# A task of someone else's (--include_path): no image, and no max_images_per_prompt in its metadata.
OWN_TASK_YAML = """\
task: own_text
dataset_path: json
dataset_kwargs:
  data_files:
    test: {data}
test_split: test
output_type: generate_until
doc_to_visual: !function own_hooks.doc_to_visual
doc_to_text: !function own_hooks.doc_to_text
doc_to_target: answer
generation_kwargs:  # NL-Eye's: one group with nleye_pairs' requests in lmms-eval's Collator
  max_new_tokens: 256
  temperature: 0
  do_sample: false
metric_list:
  - metric: exact_match
    aggregation: mean
    higher_is_better: true
metadata:
  version: 1.0
"""
OWN_HOOKS = """\
def doc_to_visual(doc):
    return []


def doc_to_text(doc, lmms_eval_specific_kwargs=None):
    return doc["question"]
"""


@pytest.fixture(scope="module")
def answering_llava(tmp_path_factory) -> Path:
    """A tiny LLaVA replying "1" to every prompt."""
    return build_tiny_llava(tmp_path_factory.mktemp("tiny-llava"), answer="1")


@pytest.fixture
def own_text_task(tmp_path) -> Path:
    folder = tmp_path / "own_tasks"
    folder.mkdir()
    data = folder / "data.jsonl"
    data.write_text('{"question": "Answer 1 or 2.", "answer": "1"}\n{"question": "Pick 1 or 2.", "answer": "1"}\n')
    (folder / "own_hooks.py").write_text(OWN_HOOKS)
    (folder / "own_text.yaml").write_text(OWN_TASK_YAML.format(data=data))
    return folder


def evaluate(model: list[str], checkpoint: Path, tasks: str, limit: int, output: Path, include: Path) -> int:
    arguments = [*model, "--model_args", f"pretrained={checkpoint},device_map=cpu,device=cpu", "--tasks", tasks]
    arguments += ["--include_path", str(include), "--limit", str(limit), "--log_samples", "--output_path", str(output)]
    return main(arguments)


@pytest.mark.e2e
def test_llava_answers_an_own_text_only_task_without_max_images_per_prompt(
    answering_llava, own_text_task, tmp_path, monkeypatch
):
    """Was (medium: the simple forms (llava, llava_hf --force_simple, llava_hf_scorer) answer a text-only task only
    when its metadata says max_images_per_prompt: 0; an --include_path task without it still fails every request
    (lmms-eval's NameError on `inputs`), while the chat llava_hf answers it)."""
    monkeypatch.setenv("ABDUCTIVE_DATA", "sample")
    output = tmp_path / "out"
    assert evaluate(["--model", "llava"], answering_llava, "own_text", 2, output, own_text_task) == 0
    assert [sample["filtered_resps"] for sample in read_samples(output, "own_text")] == ["1", "1"]


@pytest.mark.e2e
def test_simple_llava_hf_never_answers_an_own_text_only_request_from_another_requests_images(
    answering_llava, own_text_task, tmp_path, monkeypatch, llava_images_per_call
):
    """Was (medium: mixed in one call with an image task, an --include_path text-only task without
    max_images_per_prompt goes to lmms-eval's simple llava_hf, which generates from the previous request's inputs
    (its images and prompt): a wrong reply scored as an answer, no error, no failed request)."""
    monkeypatch.setenv("ABDUCTIVE_DATA", "sample")
    output = tmp_path / "out"
    model = ["--model", "llava_hf", "--force_simple"]
    assert evaluate(model, answering_llava, "own_text,nleye_pairs", 1, output, own_text_task) == 0
    assert llava_images_per_call == [2]  # nleye_pairs' two images, once; none for own_text


def test_the_chat_llava_hf_processor_can_be_copied_and_pickled(answering_llava):
    from abductive_tasks import compat

    compat.install()
    from lmms_eval.models import get_model

    lm = get_model("llava_hf")(pretrained=str(answering_llava), device="cpu", device_map="cpu")
    processor = lm._image_processor
    assert copy.deepcopy(processor).tokenizer.padding_side == "left"
    assert pickle.loads(pickle.dumps(processor)).tokenizer.padding_side == "left"


def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_llava_hf_under_review", ROOT / "utils/bench_llava_hf.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def loaded(path: Path, source: str) -> ModuleType:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(path.parent.name + "_work", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CALLING = """\
def call(function):
    return function()
"""


def test_the_bench_sampler_wakes_on_time_and_charges_the_innermost_known_frame(tmp_path):
    """Was (medium: bench_llava_hf's StackSampler charged pure-Python work (our hooks) that ends in a call releasing the
    GIL to that call: its thread got the GIL there, not at its 1 ms tick, the switch interval being 5 ms). While it
    samples, the switch interval is a tenth of its tick (restored after), so the thread gets the GIL within 0.1 ms
    wherever the main thread is; a frame is charged to the innermost frame of a known kind. Its accuracy also needs a
    free core for the thread (on a loaded machine the OS runs it more often while the main thread waits), so it is not
    timed here: the figures come from the script on an otherwise idle machine (docs/performance/overhead.md)."""
    ours = loaded(tmp_path / "ours" / "work.py", CALLING)
    model = loaded(tmp_path / "model" / "work.py", CALLING)
    before = sys.getswitchinterval()
    with bench().StackSampler(interval=0.001) as sampler:
        assert sys.getswitchinterval() == pytest.approx(0.0001)
        sampler.kinds = [(str(tmp_path / "ours") + "/", "ours"), (str(tmp_path / "model") + "/", "model")]
        here = sys._getframe
        assert ours.call(lambda: model.call(lambda: sampler._kind(here()))) == "model"
        assert model.call(lambda: ours.call(lambda: sampler._kind(here()))) == "ours"  # this file's frames: no kind
        assert sampler._kind(here()) == "other"
    assert sys.getswitchinterval() == before


def test_the_bench_first_run_of_each_task_is_its_first_in_the_process(tmp_path, monkeypatch):
    import lmms_eval.models

    from abductive_tasks import compat

    module = bench()
    calls: list[str] = []

    class Generating:
        def generate(self, **inputs):
            raise AssertionError("not called")

        def parameters(self):
            return []

        def get_output_embeddings(self):  # never_end's, called even with no --full-tasks
            return SimpleNamespace(weight=__import__("torch").zeros(2, 2))

    class Backend:
        model = Generating()
        tokenizer = SimpleNamespace(convert_tokens_to_ids=lambda token: 0, eos_token_id=1)

        def generate_until(self, requests):
            return []

        def loglikelihood(self, requests):
            return []

    def built(folder: Path, size: str, device: str) -> Path:
        folder.mkdir(parents=True)
        return folder

    monkeypatch.setattr(module, "build_checkpoint", built)
    monkeypatch.setattr(lmms_eval.models, "get_model", lambda name: lambda **kwargs: Backend())
    monkeypatch.setattr(compat, "task_manager", lambda *args, **kwargs: None)

    def run_task(task: str, lm: object, manager: object, limit: int | None) -> dict:
        calls.append(task)
        return {}

    monkeypatch.setattr(module, "run_task", run_task)
    arguments = SimpleNamespace(size="tiny", device="cpu", tasks=["mucr_c2e", "dve_cls"], limit=2, full_tasks=[])
    module.measure(arguments)
    # each task's measured first run is its first call; only then its second
    assert calls[-4:] == ["mucr_c2e", "mucr_c2e", "dve_cls", "dve_cls"]
    assert calls.count("mucr_c2e") == 2, calls
