"""Hyper-parameters shared by the Python demo (train.py) and its PyTorch twin
(benchmarks/fashion_mnist_torch.py); train.cpp uses the same values."""

DATA_DIR = "/usr/share/datasets/fashion-mnist"
BATCH_SIZE = 64
# Mean and standard deviation of the training images' pixels (scaled to [0, 1]).
MEAN, STD = 0.2860, 0.3530
LR, MOMENTUM, WEIGHT_DECAY = 0.02, 0.9, 5e-4


def make_optimizer(lib, params):
    return lib.optim.SGD(params, lr=LR, momentum=MOMENTUM, weight_decay=WEIGHT_DECAY)


def make_scheduler(lib, opt, epochs, steps_per_epoch):
    # Cosine decay to zero over the whole run, stepped once per batch.
    return lib.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=epochs * steps_per_epoch)
