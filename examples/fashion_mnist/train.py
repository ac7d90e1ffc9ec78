#!/usr/bin/python3
"""Trains the demo CNN (model.py) on Fashion-MNIST with Ember: Adam and a cosine
learning-rate schedule (settings.py), a progress line per epoch, an atomic checkpoint of the
model, optimizer, scheduler and epoch after every epoch, and a check that the checkpoint
reloads into a fresh model with the same test accuracy.

  train.py [--epochs 3] [--batch-size 64] [--threads N] [--checkpoint PATH] [--resume]
           [--limit N] [--data-dir DIR]

--limit N trains and tests on the first N samples of each split (the tests' short mode);
--resume continues from --checkpoint up to --epochs with its optimizer and scheduler state.
The last line is `seconds_per_epoch S` (the training loop's mean; benchmarks/compare_epoch.sh
reads it).
"""
import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import ember  # noqa: E402
from ember.utils.data import DataLoader, TensorDataset, read_idx  # noqa: E402
from model import make_cnn  # noqa: E402
from settings import BATCH_SIZE, DATA_DIR, MEAN, STD, make_optimizer, make_scheduler  # noqa: E402

PACKAGE_HINT = ("the Fashion-MNIST files come with the Debian package dataset-fashion-mnist "
                "(sudo apt-get install dataset-fashion-mnist), or pass --data-dir")


def load(data_dir, split, limit):
    """Normalized images [N, 1, 28, 28] (float32) and labels [N] (int64) of 'train' or 't10k'."""
    paths = [os.path.join(data_dir, f"{split}-{kind}-ubyte.gz") for kind in ("images-idx3", "labels-idx1")]
    for p in paths:
        if not os.path.exists(p):
            raise FileNotFoundError(f"{p} not found: {PACKAGE_HINT}")
    x, y = read_idx(paths[0]), read_idx(paths[1])
    if limit:
        x, y = x[:limit], y[:limit]
    x = x.float().div_(255).sub_(MEAN).div_(STD).unsqueeze(1)
    return x, y.long()


class Progress:
    """One line per epoch: rewritten in place with \\r on a terminal, else a line every
    `every` seconds (logs and pipes get no carriage returns)."""

    def __init__(self, epoch, epochs, total, every=10.0):
        self.prefix = f"epoch {epoch}/{epochs}"
        self.total, self.every = total, every
        self.tty = sys.stdout.isatty()
        self.start = self.last = time.perf_counter()

    def line(self, seen, loss, correct):
        rate = seen / max(time.perf_counter() - self.start, 1e-9)
        width = 20
        bar = "#" * (width * seen // self.total)
        return (f"{self.prefix} [{bar:<{width}}] {seen}/{self.total}  loss {loss / seen:.4f}  "
                f"accuracy {correct / seen:.2%}  {rate:.0f} samples/s")

    def update(self, seen, loss, correct):
        now = time.perf_counter()
        if self.tty and now - self.last >= 0.1:
            print("\r" + self.line(seen, loss, correct), end="", flush=True)
            self.last = now
        elif not self.tty and now - self.last >= self.every:
            print(self.line(seen, loss, correct), flush=True)
            self.last = now

    def close(self, seen, loss, correct):
        print(("\r" if self.tty else "") + self.line(seen, loss, correct), flush=True)


def train_epoch(model, loader, opt, sched, loss_fn, progress):
    """One pass over the loader; returns (mean loss, accuracy, seconds)."""
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
        n = len(y)
        total += loss.item() * n
        correct += int((out.argmax(1) == y).sum())
        seen += n
        progress.update(seen, total, correct)
    seconds = time.perf_counter() - start
    progress.close(seen, total, correct)
    return total / seen, correct / seen, seconds


def evaluate(model, x, y, batch_size=1000):
    model.eval()
    correct = 0
    with ember.no_grad():
        for i in range(0, len(x), batch_size):
            correct += int((model(x[i:i + batch_size]).argmax(1) == y[i:i + batch_size]).sum())
    return correct / len(x)


def save_checkpoint(path, model, opt, sched, epoch):
    # ember.save replaces path atomically (a temporary file renamed over it), so an
    # interrupted save never leaves half a checkpoint.
    ember.save({"model": model.state_dict(), "optimizer": opt.state_dict(),
                "scheduler": sched.state_dict(), "epoch": epoch}, path)


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--batch-size", type=int, default=BATCH_SIZE)
    ap.add_argument("--threads", type=int, default=0, help="threads (default: Ember's default, all cores)")
    ap.add_argument("--checkpoint", default="fashion_mnist.ckpt")
    ap.add_argument("--resume", action="store_true", help="continue from --checkpoint")
    ap.add_argument("--limit", type=int, default=0, help="use only the first N training and test samples")
    ap.add_argument("--data-dir", default=DATA_DIR)
    args = ap.parse_args(argv)
    if args.epochs < 1 or args.batch_size < 1 or args.threads < 0 or args.limit < 0:
        ap.error("--epochs and --batch-size must be positive, --threads and --limit not negative")
    return args


def main(argv=None):
    args = parse_args(argv)
    if args.threads:
        ember.set_num_threads(args.threads)
    ember.manual_seed(0)
    train_x, train_y = load(args.data_dir, "train", args.limit)
    test_x, test_y = load(args.data_dir, "t10k", args.limit)
    loader = DataLoader(TensorDataset(train_x, train_y), batch_size=args.batch_size, shuffle=True)
    print(f"Fashion-MNIST: {len(train_x)} training, {len(test_x)} test images; "
          f"{ember.get_num_threads()} threads", flush=True)

    model = make_cnn(ember)
    opt = make_optimizer(ember, model.parameters())
    sched = make_scheduler(ember, opt, args.epochs, len(loader))
    first = 1
    if args.resume:
        state = ember.load(args.checkpoint)
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["optimizer"])
        sched.load_state_dict(state["scheduler"])
        first = int(state["epoch"]) + 1
        print(f"resumed from {args.checkpoint} after epoch {first - 1}", flush=True)

    loss_fn = ember.nn.CrossEntropyLoss()
    times, acc = [], None
    for epoch in range(first, args.epochs + 1):
        loss, train_acc, seconds = train_epoch(model, loader, opt, sched, loss_fn,
                                               Progress(epoch, args.epochs, len(train_x)))
        times.append(seconds)
        acc = evaluate(model, test_x, test_y)
        save_checkpoint(args.checkpoint, model, opt, sched, epoch)
        print(f"epoch {epoch}: train loss {loss:.4f}  train accuracy {train_acc:.2%}  "
              f"test accuracy {acc:.2%}  {seconds:.1f} s", flush=True)
    if acc is None:
        print(f"nothing to train: the checkpoint is at epoch {first - 1} of {args.epochs}")
        return

    # The checkpoint must restore the trained model on its own.
    fresh = make_cnn(ember)
    fresh.load_state_dict(ember.load(args.checkpoint)["model"])
    reloaded = evaluate(fresh, test_x, test_y)
    print(f"checkpoint {args.checkpoint}: reloaded test accuracy {reloaded:.2%} "
          f"({'same' if reloaded == acc else 'DIFFERENT'})")
    if reloaded != acc:
        sys.exit("the reloaded model's accuracy differs from the trained one's")
    print(f"test accuracy {acc:.4f}")
    print(f"seconds_per_epoch {sum(times) / len(times):.3f}")


if __name__ == "__main__":
    main()
