#!/usr/bin/python3
"""The Python Fashion-MNIST demo (examples/fashion_mnist/train.py) written with PyTorch: the
same CNN (examples/fashion_mnist/model.py), normalization, batch size, optimizer, scheduler
and loop over torch.utils.data.DataLoader(TensorDataset(...), shuffle=True), so that
benchmarks/compare_epoch.sh can compare seconds per epoch.

Usage: benchmarks/fashion_mnist_torch.py [--epochs N] [--batch-size B] [--threads T]
                                         [--limit N] [--data-dir DIR]
Prints one line per epoch and, last, `seconds_per_epoch <s>` (the mean over the epochs).
"""
import argparse
import gzip
import os
import sys
import time

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "examples", "fashion_mnist"))
from model import make_cnn  # noqa: E402
from settings import BATCH_SIZE, DATA_DIR, MEAN, STD, make_optimizer, make_scheduler  # noqa: E402


def read_idx(path):
    """An IDX file as a numpy array (the torch side has no reader; Ember's is read_idx)."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    ndim = data[3]
    dims = np.frombuffer(data, dtype=">u4", count=ndim, offset=4).astype(np.int64)
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims)


def load(data_dir, split, limit):
    prefix = os.path.join(data_dir, split)
    x = torch.from_numpy(read_idx(prefix + "-images-idx3-ubyte.gz").copy())
    y = torch.from_numpy(read_idx(prefix + "-labels-idx1-ubyte.gz").copy()).long()
    if limit:
        x, y = x[:limit], y[:limit]
    x = (x.float().div_(255).sub_(MEAN).div_(STD)).unsqueeze(1)
    return x, y


def evaluate(model, x, y, batch_size):
    model.eval()
    correct = 0
    with torch.no_grad():
        for i in range(0, len(x), batch_size):
            correct += int((model(x[i:i + batch_size]).argmax(1) == y[i:i + batch_size]).sum())
    return correct / len(x)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--batch-size", type=int, default=BATCH_SIZE)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--data-dir", default=DATA_DIR)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)

    train_x, train_y = load(args.data_dir, "train", args.limit)
    test_x, test_y = load(args.data_dir, "t10k", args.limit)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(train_x, train_y),
                                         batch_size=args.batch_size, shuffle=True)
    model = make_cnn(torch)
    opt = make_optimizer(torch, model.parameters())
    sched = make_scheduler(torch, opt, args.epochs, len(loader))
    loss_fn = torch.nn.CrossEntropyLoss()
    times = []
    for epoch in range(1, args.epochs + 1):
        model.train()
        start = time.perf_counter()
        total, correct, seen = 0.0, 0, 0
        for x, y in loader:
            opt.zero_grad()
            out = model(x)
            loss = loss_fn(out, y)
            loss.backward()
            opt.step()
            sched.step()
            total += loss.item() * len(y)
            correct += int((out.argmax(1) == y).sum())
            seen += len(y)
        times.append(time.perf_counter() - start)
        acc = evaluate(model, test_x, test_y, 1000)
        print(f"epoch {epoch}: train loss {total / seen:.4f}  train accuracy {correct / seen:.2%}  "
              f"test accuracy {acc:.2%}  {times[-1]:.2f} s ({seen / times[-1]:.0f} samples/s)", flush=True)
    print(f"seconds_per_epoch {sum(times) / len(times):.3f}")


if __name__ == "__main__":
    main()
