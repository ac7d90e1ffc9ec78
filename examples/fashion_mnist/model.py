"""The Fashion-MNIST demo's CNN, written once for both libraries (`lib` is ember or torch,
whose nn APIs match): train.py, benchmarks/fashion_mnist_torch.py and the
train_cnn_step_b64 benchmark all build it here. examples/fashion_mnist/train.cpp builds the
same layers with ember::nn.
"""


def make_cnn(lib, dropout=0.25):
    nn = lib.nn

    def block(cin, cout):
        # 3x3 'same' convolution; the conv bias is dropped because BatchNorm's shift replaces it.
        return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(),
                nn.MaxPool2d(2), nn.Dropout(dropout)]

    return nn.Sequential(*block(1, 32), *block(32, 64), nn.Flatten(), nn.Linear(64 * 7 * 7, 10))
