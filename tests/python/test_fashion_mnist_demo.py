"""The Python Fashion-MNIST demo (examples/fashion_mnist/train.py) in its short mode: training
lowers the loss, the checkpoint reloads to the same accuracy, --resume continues with the
saved optimizer and scheduler, and a missing dataset names the Debian package."""
import os
import re
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                                "examples", "fashion_mnist"))
import train  # noqa: E402


def _epoch_losses(out):
    return {int(m[1]): float(m[2]) for m in re.finditer(r"^epoch (\d+): train loss ([0-9.]+)", out, re.M)}


def test_demo_short_mode_checkpoint_and_resume(tmp_path, capsys):
    ckpt = str(tmp_path / "demo.ckpt")
    args = ["--limit", "1024", "--threads", "1", "--checkpoint", ckpt]
    train.main(args + ["--epochs", "1"])
    first = capsys.readouterr().out
    assert re.search(r"reloaded test accuracy .* \(same\)", first), first
    assert os.path.exists(ckpt) and not [f for f in os.listdir(tmp_path) if ".tmp" in f]
    loss1 = _epoch_losses(first)[1]

    train.main(args + ["--epochs", "2", "--resume"])
    second = capsys.readouterr().out
    assert "after epoch 1" in second, second
    losses = _epoch_losses(second)
    assert list(losses) == [2], second
    assert losses[2] < loss1
    assert re.search(r"reloaded test accuracy .* \(same\)", second), second
    accuracy = float(re.search(r"^test accuracy ([0-9.]+)", second, re.M)[1])
    assert accuracy > 0.5  # 10 classes: well above chance after 2 short epochs


def test_demo_missing_dataset_names_the_package(tmp_path):
    with pytest.raises(FileNotFoundError, match="sudo apt-get install dataset-fashion-mnist"):
        train.main(["--data-dir", str(tmp_path), "--checkpoint", str(tmp_path / "x.ckpt")])
