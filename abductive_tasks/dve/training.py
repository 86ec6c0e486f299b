"""Train the DVE inference-aware evaluator (Zhang et al., AAAI 2025: "Training", "Implementation Detail").

Each training update is scored twice with the same image and hypothesis: with the update and with
the premise caption in its place. The loss is Eq. 10, ``(1 - alpha) * L_pairwise + alpha * L_class``
(``abductive_tasks.dve.evaluator.training_loss``). Defaults are the paper's settings: BERT-large-uncased
and ResNet-50 with ImageNet weights (``resnet50-0676ba61.pth``, torchvision's IMAGENET1K_V1), Adam, batch
size 32, learning rate 5e-6, weight decay 1e-4, up to 20 epochs, seed 42, alpha 0.9. The paper does
not say how the learning rate changes; like the authors' released code, it decays linearly per epoch,
and the checkpoint with the best dev pairwise accuracy (update vs caption, ties fail) is kept. The
checkpoint is saved in the released key layout, ready for ``ABDUCTIVE_DVE_EVALUATOR``.

    ABDUCTIVE_DATA=/data/abductive python utils/train_dve_evaluator.py --output evaluator_weights.pth

Data come from ``ABDUCTIVE_DATA`` (``<root>/dve/DVE_<split>.csv`` and ``flickr30k-images/``), as for the
tasks; impossible rows are left out. ``--init pretrained`` (the default) fetches the pretrained BERT and
ResNet-50 weights it names; ``--init random`` with a small ``--text-backbone`` and ``--resnet``
(e.g. ``basic:1,1,1,1``) trains from scratch without downloading anything (used by the tests).
"""

from __future__ import annotations

import argparse
import io
import random
from pathlib import Path

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

from abductive_tasks.dve import evaluator
from abductive_tasks.dve.data import SPLITS, data_root, load
from abductive_tasks.inputs.files import write_output
from abductive_tasks.inputs.images import load_image
from abductive_tasks.inputs.loading import Loaded


class UpdateTriples(Dataset):
    """(image tensor, hypothesis, caption, update, +1 strengthener / -1 weakener) per usable row."""

    def __init__(self, split: Loaded) -> None:
        self.rows = split.items

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, index: int) -> tuple:
        row = self.rows[index]
        label = 1.0 if row["update_type"] == "strengthener" else -1.0
        return (
            evaluator.IMAGE_TRANSFORM(load_image(row["image_path"])),
            row["hypothesis"],
            row["premise"],
            row["update"],
            label,
        )


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--output", type=Path, required=True, help="where to save the best state dict (.pth)")
    parser.add_argument("--train-split", default="train", choices=SPLITS)
    parser.add_argument("--dev-split", default="dev", choices=SPLITS)
    parser.add_argument("--text-backbone", default=evaluator.TEXT_BACKBONE, help="BERT hub id or folder")
    parser.add_argument(
        "--resnet",
        default=evaluator.RESNET,
        help="resnet50, or a small spec such as basic:1,1,1,1 (with --init random)",
    )
    parser.add_argument(
        "--init",
        choices=("pretrained", "random"),
        default="pretrained",
        help="pretrained BERT and ImageNet ResNet-50, or random weights",
    )
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=5e-6)
    parser.add_argument("--weight-decay", type=float, default=1e-4)
    parser.add_argument("--alpha", type=float, default=0.9, help="weight of the classification loss (Eq. 10)")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    return parser.parse_args(argv)


def build_model(args: argparse.Namespace) -> tuple[evaluator.InferenceAwareEvaluator, object]:
    model, tokenizer = evaluator.build_evaluator(args.text_backbone, args.resnet)
    if args.init == "pretrained":
        from torchvision.models import ResNet50_Weights, resnet50
        from transformers import BertModel

        if args.resnet != "resnet50":
            raise SystemExit("--init pretrained uses ImageNet ResNet-50 weights: keep --resnet resnet50")
        model.bert_model.load_state_dict(BertModel.from_pretrained(args.text_backbone).state_dict())
        model.visual_encoder = evaluator.VisualEncoder(resnet50(weights=ResNet50_Weights.IMAGENET1K_V1))
    return model, tokenizer


def scores(model: evaluator.InferenceAwareEvaluator, tokenizer, batch: tuple, device: str) -> tuple[torch.Tensor, ...]:
    """Class logits and strength scores of the updates, strength scores of the captions, and the labels."""
    images, hypotheses, captions, updates, labels = batch
    visual = model.visual_encoder(images.to(device))  # once for both texts
    logits, update_scores = model.heads(visual, *evaluator.encode_pairs(tokenizer, hypotheses, updates, device))
    _caption_logits, caption_scores = model.heads(
        visual, *evaluator.encode_pairs(tokenizer, hypotheses, captions, device)
    )
    return logits, update_scores, caption_scores, labels.to(device)


@torch.no_grad()
def evaluate_dev(
    model: evaluator.InferenceAwareEvaluator, tokenizer, loader: DataLoader, device: str
) -> dict[str, float]:
    """Dev pairwise accuracy (update beyond the caption in the label's direction; ties fail)
    and classification accuracy."""
    model.eval()
    pairwise, classified, total = 0, 0, 0
    for batch in loader:
        logits, update_scores, caption_scores, labels = scores(model, tokenizer, batch, device)
        pairwise += int(((update_scores - caption_scores) * labels > 0).sum())
        classified += int((logits.argmax(dim=-1) == (labels > 0).long()).sum())
        total += len(labels)
    return {"pairwise_accuracy": pairwise / total, "classification_accuracy": classified / total}


def main(argv: list[str] | None = None) -> list[dict[str, float]]:
    """Train, keep the best dev checkpoint at ``--output``; return the per-epoch history."""
    args = parse_args(argv)
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    root = data_root()
    train = DataLoader(
        UpdateTriples(load(root, args.train_split)),
        batch_size=args.batch_size,
        shuffle=True,
        generator=torch.Generator().manual_seed(args.seed),
    )
    dev = DataLoader(UpdateTriples(load(root, args.dev_split)), batch_size=args.batch_size)
    model, tokenizer = build_model(args)
    model.to(args.device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda epoch: 1 - epoch / args.epochs)
    history, best = [], -1.0
    for epoch in range(1, args.epochs + 1):
        model.train()
        losses = []
        for batch in train:
            logits, update_scores, caption_scores, labels = scores(model, tokenizer, batch, args.device)
            loss, _pairwise, _classification = evaluator.training_loss(
                update_scores, caption_scores, logits, labels, args.alpha
            )
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        schedule.step()
        record = {
            "epoch": epoch,
            "train_loss": float(np.mean(losses)),
            **evaluate_dev(model, tokenizer, dev, args.device),
        }
        history.append(record)
        print(record, flush=True)
        if record["pairwise_accuracy"] > best:
            best = record["pairwise_accuracy"]
            buffer = io.BytesIO()
            torch.save(model.state_dict(), buffer)
            write_output(args.output, buffer.getvalue())  # whole, never over a FIFO, device or folder
    return history
