"""Hyper-parameters shared by the Python demo (train.py) and its PyTorch twin
(benchmarks/fashion_mnist_torch.py); train.cpp uses the same values."""

DATA_DIR = "/usr/share/datasets/fashion-mnist"
BATCH_SIZE = 64
# Mean and standard deviation of the training images' pixels (scaled to [0, 1]).
MEAN, STD = 0.2860, 0.3530
# Adam rather than SGD: the head reads 3136 features, so an SGD step at a useful learning
# rate moves the first logits by tens (the loss spikes to 20 in the first steps at lr 0.02);
# Adam's per-weight step size keeps them in range.
LR = 2e-3


def make_optimizer(lib, params):
    return lib.optim.Adam(params, lr=LR)


def make_scheduler(lib, opt, epochs, steps_per_epoch):
    # Cosine decay to zero over the whole run, stepped once per batch.
    return lib.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=epochs * steps_per_epoch)
