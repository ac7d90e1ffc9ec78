"""The model zoo of the ember.fx tests, built with ember.nn: an MLP, the Fashion-MNIST demo CNN,
ResNet-18 (examples/resnet/resnet18.py, the benchmarks' definition too), MobileNetV2, a
Transformer encoder and an LSTM classifier."""
import os
import sys

import ember
import ember.nn as nn
import ember.nn.functional as F

_EXAMPLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples")
sys.path.insert(0, os.path.join(_EXAMPLES, "fashion_mnist"))
from model import make_cnn  # noqa: E402
sys.path.insert(0, os.path.join(_EXAMPLES, "resnet"))
from resnet18 import make_resnet18  # noqa: E402


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(20, 32)
        self.fc2 = nn.Linear(32, 16)
        self.fc3 = nn.Linear(16, 4)

    def forward(self, x):
        x = x.flatten(1)
        x = F.relu(self.fc1(x))
        x = ember.tanh(self.fc2(x)) * 0.5 + x[:, :16]
        return self.fc3(x).softmax(dim=-1)


def ResNet18(num_classes=1000, width=64):
    return make_resnet18(ember, num_classes, width)


def _conv_bn(cin, cout, k, stride, groups=1, act=True):
    layers = [nn.Conv2d(cin, cout, k, stride, (k - 1) // 2, groups=groups, bias=False), nn.BatchNorm2d(cout)]
    if act:
        layers.append(nn.ReLU6(inplace=True))
    return layers


class InvertedResidual(nn.Module):
    def __init__(self, cin, cout, stride, expand):
        super().__init__()
        hidden = cin * expand
        self.use_res_connect = stride == 1 and cin == cout
        layers = _conv_bn(cin, hidden, 1, 1) if expand != 1 else []
        layers += _conv_bn(hidden, hidden, 3, stride, groups=hidden) + _conv_bn(hidden, cout, 1, 1, act=False)
        self.conv = nn.Sequential(*layers)

    def forward(self, x):
        if self.use_res_connect:
            return x + self.conv(x)
        return self.conv(x)


class MobileNetV2(nn.Module):
    # (expansion, channels, repeats, stride), torchvision's table at width 1.0
    SETTINGS = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2),
                (6, 320, 1, 1)]

    def __init__(self, num_classes=1000, width=1.0):
        super().__init__()
        c = int(32 * width)
        feats = _conv_bn(3, c, 3, 2)
        for t, ch, n, s in self.SETTINGS:
            out = max(8, int(ch * width))
            for i in range(n):
                feats.append(InvertedResidual(c, out, s if i == 0 else 1, t))
                c = out
        last = max(8, int(1280 * width))
        feats += _conv_bn(c, last, 1, 1)
        self.features = nn.Sequential(*feats)
        self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(last, num_classes))

    def forward(self, x):
        x = self.features(x)
        x = F.adaptive_avg_pool2d(x, (1, 1))
        x = ember.flatten(x, 1)
        return self.classifier(x)


class TransformerClassifier(nn.Module):
    def __init__(self, d_model=32, nhead=4, layers=2, classes=5):
        super().__init__()
        layer = nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward=64, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers)
        self.norm = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, classes)

    def forward(self, x):
        h = self.encoder(x)
        return self.head(self.norm(h.mean(dim=1)))


class LSTMClassifier(nn.Module):
    def __init__(self, vocab=50, dim=16, hidden=24, classes=3):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.lstm = nn.LSTM(dim, hidden, batch_first=True)
        self.fc = nn.Linear(2 * hidden, classes)

    def forward(self, tokens):
        out, (h, c) = self.lstm(self.embed(tokens))
        return self.fc(ember.cat([out[:, -1], h[0]], dim=1))


def zoo():
    """name -> (model in eval mode, example input)."""
    ember.manual_seed(0)
    return {
        "mlp": (MLP().eval(), ember.randn(3, 4, 5)),
        "fashion_mnist_cnn": (make_cnn(ember).eval(), ember.randn(2, 1, 28, 28)),
        "resnet18": (ResNet18(num_classes=10).eval(), ember.randn(1, 3, 64, 64)),
        "mobilenet_v2": (MobileNetV2(num_classes=10, width=0.5).eval(), ember.randn(1, 3, 64, 64)),
        "transformer_encoder": (TransformerClassifier().eval(), ember.randn(2, 7, 32)),
        "lstm_classifier": (LSTMClassifier().eval(), ember.randint(0, 50, (4, 9))),
    }
