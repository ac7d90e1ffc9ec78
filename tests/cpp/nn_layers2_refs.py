"""Writes tests/cpp/nn_layers2_refs.h: PyTorch's outputs and gradients for the C++ layers
tested in tests/cpp/test_nn_layers2.cpp.

Run with the PyTorch-carrying interpreter from the repository root:

    /usr/bin/python3 tests/cpp/nn_layers2_refs.py

Every case builds a torch layer in float64, sets its parameters (in named_parameters order,
the k-th from seed 10 + k) and its inputs from det() below, runs it, and records the outputs
and the gradients of sum_j sum(output_j * det(output_j.shape, 900 + j)) (over the outputs that
require grad) with respect to the floating inputs and the parameters. det() is a formula that
the C++ test reproduces exactly (integers divided by 50 or 103, so every value is the correctly
rounded quotient in both languages, and values in a window differ, so maxima have no ties).
The C++ test builds the same layers and inputs case by case, under the same names.
"""
import math
import os

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_default_dtype(torch.float64)


def det(shape, seed, positive=False):
    n = math.prod(shape)
    k = [(i * 37 + seed * 11) % 101 for i in range(n)]
    v = [(x + 1) / 103.0 for x in k] if positive else [x / 50.0 - 1.0 for x in k]
    return torch.tensor(v, dtype=torch.float64).reshape(shape)


def f(shape, seed):  # a floating input that requires grad
    return det(shape, seed).requires_grad_()


def p(shape, seed):  # a positive one
    return det(shape, seed, True).requires_grad_()


def vals(values, shape):  # fixed values, no grad (targets)
    return torch.tensor(values, dtype=torch.float64).reshape(shape)


def ints(values, shape):
    return torch.tensor(values, dtype=torch.int64).reshape(shape)


CASES = []


def case(name, module, inputs, run=None, train=True):
    """run(m, *inputs) -> list of tensors (default: [m(*inputs)])."""
    CASES.append((name, module, inputs, run, train))


def one(m, *x):
    return [m(*x)]


# ---------------------------------------------------------------- convolution padding
case("Conv1dSameEven", lambda: nn.Conv1d(2, 3, 4, padding="same"), lambda: [f((2, 2, 7), 1)])
case("Conv2dSameDilated", lambda: nn.Conv2d(2, 2, (2, 3), padding="same", dilation=(3, 2)),
     lambda: [f((1, 2, 6, 7), 2)])
case("Conv2dSameReflect", lambda: nn.Conv2d(2, 2, (3, 4), padding="same", padding_mode="reflect"),
     lambda: [f((1, 2, 5, 6), 3)])
case("Conv2dSameCircular", lambda: nn.Conv2d(1, 2, 2, padding="same", padding_mode="circular", bias=False),
     lambda: [f((1, 1, 4, 5), 4)])
case("Conv1dSameReplicate", lambda: nn.Conv1d(2, 2, 3, padding="same", padding_mode="replicate", dilation=2),
     lambda: [f((2, 8), 5)])
case("Conv3dValid", lambda: nn.Conv3d(1, 2, 2, padding="valid", stride=2), lambda: [f((1, 1, 4, 5, 4), 6)])

# ---------------------------------------------------------------- pooling
case("AdaptiveMaxPool1d", lambda: nn.AdaptiveMaxPool1d(3, return_indices=True), lambda: [f((2, 2, 7), 7)],
     lambda m, x: list(m(x)))
case("AdaptiveMaxPool2d", lambda: nn.AdaptiveMaxPool2d((2, 3)), lambda: [f((1, 2, 5, 7), 8)])
case("AdaptiveMaxPool3dUnbatched", lambda: nn.AdaptiveMaxPool3d(2, return_indices=True), lambda: [f((1, 4, 4, 5), 9)],
     lambda m, x: list(m(x)))
case("MaxUnpool1d", lambda: nn.MaxUnpool1d(2), lambda: [f((1, 2, 8), 10)],
     lambda m, x: [m(*F.max_pool1d(x, 2, return_indices=True))])
case("MaxUnpool2dOutputSize", lambda: nn.MaxUnpool2d(2, stride=2), lambda: [f((1, 1, 5, 4), 11)],
     lambda m, x: [m(*F.max_pool2d(x, 2, 2, return_indices=True), output_size=[5, 5])])
case("MaxUnpool3d", lambda: nn.MaxUnpool3d(2, stride=1), lambda: [f((1, 1, 3, 3, 3), 12)],
     lambda m, x: [m(*F.max_pool3d(x, 2, 1, return_indices=True))])
case("LPPool1d", lambda: nn.LPPool1d(2, 3, stride=2), lambda: [f((1, 2, 8), 13)])
case("LPPool1dCeil", lambda: nn.LPPool1d(3, 2, ceil_mode=True), lambda: [p((2, 7), 14)])
case("LPPool2d", lambda: nn.LPPool2d(1.5, (2, 3)), lambda: [p((1, 2, 5, 7), 15)])

# ---------------------------------------------------------------- padding
case("ReflectionPad1d", lambda: nn.ReflectionPad1d((1, 2)), lambda: [f((2, 3, 5), 16)])
case("ReflectionPad2d", lambda: nn.ReflectionPad2d((1, 0, 2, 1)), lambda: [f((1, 2, 4, 4), 17)])
case("ReflectionPad3d", lambda: nn.ReflectionPad3d(1), lambda: [f((1, 3, 3, 3), 18)])
case("ReplicationPad1d", lambda: nn.ReplicationPad1d(2), lambda: [f((1, 2, 3), 19)])
case("ReplicationPad2d", lambda: nn.ReplicationPad2d((0, 1, 2, 3)), lambda: [f((2, 3, 3), 20)])
case("ReplicationPad3d", lambda: nn.ReplicationPad3d((1, 0, 0, 1, 1, 2)), lambda: [f((1, 1, 2, 3, 2), 21)])
case("ZeroPad2d", lambda: nn.ZeroPad2d((1, -1, 2, 0)), lambda: [f((1, 2, 3, 4), 22)])
case("ConstantPad1d", lambda: nn.ConstantPad1d(2, 3.5), lambda: [f((2, 3), 23)])
case("ConstantPad2d", lambda: nn.ConstantPad2d((1, 2, 0, 1), -1.0), lambda: [f((1, 2, 2), 24)])
case("ConstantPad3d", lambda: nn.ConstantPad3d(1, 0.5), lambda: [f((1, 2, 2, 2), 25)])

# ---------------------------------------------------------------- normalization
case("InstanceNorm1d", lambda: nn.InstanceNorm1d(3), lambda: [f((2, 3, 5), 26)])
case("InstanceNorm2dAffineRunning", lambda: nn.InstanceNorm2d(2, affine=True, track_running_stats=True, momentum=0.3),
     lambda: [f((2, 2, 3, 4), 27)], lambda m, x: [m(x), m.running_mean.clone(), m.running_var.clone()])
case("InstanceNorm3dEval", lambda: nn.InstanceNorm3d(2, affine=True, track_running_stats=True),
     lambda: [f((2, 2, 2, 3, 2), 28)], train=False)
case("InstanceNorm2dUnbatched", lambda: nn.InstanceNorm2d(2, affine=True, eps=0.01), lambda: [f((2, 3, 4), 29)])
case("LocalResponseNorm3d", lambda: nn.LocalResponseNorm(3), lambda: [f((2, 5, 4), 30)])
case("LocalResponseNorm4d", lambda: nn.LocalResponseNorm(2, alpha=0.1, beta=0.5, k=2.0), lambda: [f((1, 4, 3, 3), 31)])

# ---------------------------------------------------------------- activations
case("Softshrink", lambda: nn.Softshrink(0.3), lambda: [f((3, 4), 32)])
case("Hardshrink", lambda: nn.Hardshrink(0.4), lambda: [f((3, 4), 33)])
case("Threshold", lambda: nn.Threshold(0.2, -1.0), lambda: [f((3, 4), 34)])
case("RReLUEval", lambda: nn.RReLU(0.1, 0.3), lambda: [f((3, 4), 35)], train=False)
case("GLU", lambda: nn.GLU(1), lambda: [f((2, 4, 3), 36)])
case("Softmin", lambda: nn.Softmin(1), lambda: [f((2, 4, 3), 37)])
case("Softmax2d", lambda: nn.Softmax2d(), lambda: [f((1, 3, 2, 2), 38)])

# ---------------------------------------------------------------- distances
case("PairwiseDistance", lambda: nn.PairwiseDistance(), lambda: [f((3, 4), 39), f((3, 4), 40)])
case("PairwiseDistanceP1Keepdim", lambda: nn.PairwiseDistance(p=1.0, eps=1e-3, keepdim=True),
     lambda: [f((3, 4), 41), f((4,), 42)])
case("PairwiseDistanceNegativeP", lambda: nn.PairwiseDistance(p=-1.5), lambda: [f((4,), 43), f((4,), 44)])
case("CosineSimilarity", lambda: nn.CosineSimilarity(), lambda: [f((3, 4), 45), f((3, 4), 46)])
case("CosineSimilarityDim0Broadcast", lambda: nn.CosineSimilarity(dim=0, eps=1e-6),
     lambda: [f((3, 4, 2), 47), f((3, 1, 2), 48)])

# ---------------------------------------------------------------- nn.functional's composites
# (C++: nn::functional, include/ember/nn/functional.h), run on an Identity module.
RM, RV = det((3,), 104), det((3,), 105, True)
case("F_softmin", nn.Identity, lambda: [f((2, 4, 3), 90)], lambda m, x: [F.softmin(x, 1)])
case("F_normalize", nn.Identity, lambda: [f((3, 4), 91)], lambda m, x: [F.normalize(x, 3.0, 0, 1e-3)])
case("F_local_response_norm4d", nn.Identity, lambda: [f((2, 5, 3, 2), 92)],
     lambda m, x: [F.local_response_norm(x, 3, 0.01, 0.6, 1.5)])
case("F_local_response_norm3d", nn.Identity, lambda: [f((2, 5, 4), 93)], lambda m, x: [F.local_response_norm(x, 2)])
case("F_lp_pool1d", nn.Identity, lambda: [p((2, 3, 7), 94)], lambda m, x: [F.lp_pool1d(x, 2.0, 3, 2, True)])
case("F_lp_pool2d", nn.Identity, lambda: [p((2, 3, 6, 5), 95)], lambda m, x: [F.lp_pool2d(x, 1.5, (2, 3))])
case("F_instance_norm", nn.Identity, lambda: [f((2, 3, 5), 96)],
     lambda m, x: [F.instance_norm(x, weight=det((3,), 97), bias=det((3,), 98), eps=1e-3)])
case("F_instance_norm_running", nn.Identity, lambda: [f((2, 3, 2, 2), 99), RM.clone(), RV.clone()],
     lambda m, x, rm, rv: [F.instance_norm(x, rm, rv, momentum=0.3), rm, rv])
case("F_instance_norm_eval", nn.Identity, lambda: [f((2, 3, 4), 100)],
     lambda m, x: [F.instance_norm(x, RM, RV, use_input_stats=False)])
case("F_gaussian_nll_loss", nn.Identity, lambda: [f((3, 2), 101), det((3, 2), 102), p((3,), 103)],
     lambda m, x, t, v: [F.gaussian_nll_loss(x, t, v, full=True, eps=1e-3, reduction="sum")])
case("F_multilabel_soft_margin_loss", nn.Identity, lambda: [f((2, 3), 106), vals([1, 0, 0, 1, 1, 0], (2, 3))],
     lambda m, x, t: [F.multilabel_soft_margin_loss(x, t, det((3,), 107, True), reduction="none")])

# ---------------------------------------------------------------- blocks, pixels, resampling
case("Fold", lambda: nn.Fold((4, 5), (2, 3), padding=(1, 0)), lambda: [f((1, 12, 15), 39)])
case("Unfold", lambda: nn.Unfold((2, 3), dilation=(1, 2), padding=1, stride=(2, 1)), lambda: [f((1, 2, 5, 6), 40)])
case("PixelShuffle", lambda: nn.PixelShuffle(2), lambda: [f((1, 8, 2, 3), 41)])
case("PixelUnshuffle", lambda: nn.PixelUnshuffle(2), lambda: [f((1, 2, 4, 6), 42)])
case("UpsampleNearest", lambda: nn.Upsample(scale_factor=2), lambda: [f((1, 2, 3), 43)])
case("UpsampleBilinearAlign", lambda: nn.Upsample(size=(5, 4), mode="bilinear", align_corners=True),
     lambda: [f((1, 1, 3, 2), 44)])
case("UpsampleBicubic", lambda: nn.Upsample(scale_factor=1.5, mode="bicubic"), lambda: [f((1, 1, 4, 4), 45)])
case("UpsampleTrilinear", lambda: nn.Upsample(scale_factor=(2, 1.5, 1), mode="trilinear"),
     lambda: [f((1, 1, 2, 2, 2), 46)])
case("UpsampleLinear", lambda: nn.Upsample(scale_factor=2.5, mode="linear"), lambda: [f((1, 2, 3), 47)])
case("UpsampleNearestExact", lambda: nn.Upsample(size=5, mode="nearest-exact"), lambda: [f((1, 1, 3), 48)])
case("UpsampleArea", lambda: nn.Upsample(size=(2, 3), mode="area"), lambda: [f((1, 1, 5, 6), 49)])
case("UpsampleRecompute", lambda: nn.Upsample(scale_factor=1.7, mode="bilinear", recompute_scale_factor=True),
     lambda: [f((1, 1, 3, 3), 50)])
case("UpsamplingNearest2d", lambda: nn.UpsamplingNearest2d(size=4), lambda: [f((1, 1, 2, 3), 51)])
case("UpsamplingBilinear2d", lambda: nn.UpsamplingBilinear2d(scale_factor=2), lambda: [f((1, 1, 2, 3), 52)])

# ---------------------------------------------------------------- EmbeddingBag
case("EmbeddingBagMean2d", lambda: nn.EmbeddingBag(10, 3), lambda: [ints([1, 2, 4, 4, 3, 9], (2, 3))])
case("EmbeddingBagSumOffsets", lambda: nn.EmbeddingBag(10, 3, mode="sum"),
     lambda: [ints([1, 2, 4, 5, 4, 3], (6,)), ints([0, 2, 2], (3,)), p((6,), 87)])
case("EmbeddingBagMaxPadding", lambda: nn.EmbeddingBag(10, 3, mode="max", padding_idx=4, include_last_offset=True),
     lambda: [ints([1, 4, 2, 4, 9, 0], (6,)), ints([0, 3, 4, 6], (4,))])
case("EmbeddingBagMeanPadding", lambda: nn.EmbeddingBag(10, 3, padding_idx=-8), lambda: [ints([2, 2, 5, 2, 7, 1], (3, 2))])

# ---------------------------------------------------------------- losses
PM = [1, -1, -1, 1, 1, -1]  # +-1 targets
case("SmoothL1Loss", lambda: nn.SmoothL1Loss(beta=0.5), lambda: [f((2, 3), 53), det((2, 3), 54)])
case("HuberLoss", lambda: nn.HuberLoss(reduction="sum", delta=0.7), lambda: [f((2, 3), 55), det((2, 3), 56)])
case("PoissonNLLLoss", lambda: nn.PoissonNLLLoss(full=True), lambda: [f((2, 3), 57), vals([0, 1, 2, 3, 4, 5], (2, 3))])
case("PoissonNLLLossRates", lambda: nn.PoissonNLLLoss(log_input=False, reduction="none"),
     lambda: [p((2, 3), 58), vals([0, 1, 2, 3, 4, 5], (2, 3))])
case("GaussianNLLLoss", lambda: nn.GaussianNLLLoss(full=True), lambda: [f((3, 2), 59), det((3, 2), 60), p((3,), 61)])
case("KLDivLoss", lambda: nn.KLDivLoss(reduction="sum"), lambda: [f((2, 3), 62), det((2, 3), 63, True)])
case("KLDivLossLogTarget", lambda: nn.KLDivLoss(reduction="none", log_target=True), lambda: [f((2, 3), 64), det((2, 3), 65)])
case("BCELoss", lambda: nn.BCELoss(weight=det((3,), 66, True)), lambda: [p((2, 3), 67), det((2, 3), 68, True)])
case("HingeEmbeddingLoss", lambda: nn.HingeEmbeddingLoss(margin=0.5), lambda: [f((2, 3), 69), vals(PM, (2, 3))])
case("MultiLabelMarginLoss", lambda: nn.MultiLabelMarginLoss(), lambda: [f((2, 4), 70), ints([3, 0, -1, 1, 1, 2, 3, 0], (2, 4))])
case("SoftMarginLoss", lambda: nn.SoftMarginLoss(), lambda: [f((2, 3), 71), vals(PM, (2, 3))])
case("MultiLabelSoftMarginLoss", lambda: nn.MultiLabelSoftMarginLoss(weight=det((3,), 72, True)),
     lambda: [f((2, 3), 73), vals([1, 0, 0, 1, 1, 0], (2, 3))])
case("CosineEmbeddingLoss", lambda: nn.CosineEmbeddingLoss(margin=0.2), lambda: [f((3, 4), 74), f((3, 4), 75), vals([1, -1, -1], (3,))])
case("MarginRankingLoss", lambda: nn.MarginRankingLoss(margin=0.1), lambda: [f((5,), 76), f((5,), 77), vals([1, -1, 1, -1, 1], (5,))])
case("MultiMarginLoss", lambda: nn.MultiMarginLoss(p=2, margin=0.5, weight=det((4,), 78, True)),
     lambda: [f((3, 4), 79), ints([0, 3, 2], (3,))])
case("TripletMarginLoss", lambda: nn.TripletMarginLoss(margin=0.5, p=1.5, swap=True),
     lambda: [f((3, 4), 80), f((3, 4), 81), f((3, 4), 82)])
case("TripletMarginWithDistanceLoss", lambda: nn.TripletMarginWithDistanceLoss(margin=2.0, reduction="sum"),
     lambda: [f((3, 4), 83), f((3, 4), 84), f((3, 4), 85)])
case("CTCLoss", lambda: nn.CTCLoss(blank=0),
     lambda: [f((6, 2, 4), 86), ints([1, 2, 2, 3, 1, 0], (2, 3)), ints([6, 5], (2,)), ints([3, 2], (2,))],
     lambda m, lp, t, il, tl: [m(lp.log_softmax(2), t, il, tl)])


def flat(t):
    return [float(x) for x in t.detach().double().reshape(-1).tolist()]


def cpp_list(v):
    return "{" + ", ".join(repr(x) for x in v) + "}"


def run_case(name, module, inputs, run, train):
    m = module().double()
    m.train(train)
    with torch.no_grad():
        for k, (_, param) in enumerate(m.named_parameters()):
            param.copy_(det(tuple(param.shape), 10 + k))
    xs = inputs()
    outs = (run or one)(m, *xs)
    loss = 0
    for j, o in enumerate(outs):
        if o.requires_grad:
            loss = loss + (o * det(tuple(o.shape), 900 + j)).sum()
    grads = [x for x in xs if x.requires_grad] + list(m.parameters())
    gs = torch.autograd.grad(loss, grads, allow_unused=True)
    gs = [g if g is not None else torch.zeros_like(x) for g, x in zip(gs, grads)]
    n_in = len([x for x in xs if x.requires_grad])
    for g in gs:
        assert torch.isfinite(g).all(), name
    return ("  {" + f'"{name}", {{' +
            "{" + ", ".join(cpp_list(list(o.shape)) for o in outs) + "}, " +
            "{" + ", ".join(cpp_list(flat(o)) for o in outs) + "}, " +
            "{" + ", ".join(cpp_list(flat(g)) for g in gs[:n_in]) + "}, " +
            "{" + ", ".join(cpp_list(flat(g)) for g in gs[n_in:]) + "}}},")


def main():
    lines = [
        "// Generated by tests/cpp/nn_layers2_refs.py with PyTorch " + torch.__version__ + "; do not edit.",
        "// PyTorch's outputs and gradients for tests/cpp/test_nn_layers2.cpp (see the script).",
        "#pragma once",
        "",
        "#include <cstdint>",
        "#include <map>",
        "#include <string>",
        "#include <vector>",
        "",
        "namespace ember::nn_layers2_refs {",
        "",
        "struct Ref {",
        "  std::vector<std::vector<int64_t>> shapes;        // of the outputs",
        "  std::vector<std::vector<double>> outputs;        // flattened",
        "  std::vector<std::vector<double>> input_grads;    // of the inputs that require grad",
        "  std::vector<std::vector<double>> param_grads;    // in parameters() order",
        "};",
        "",
        "// clang-format off",
        "inline const std::map<std::string, Ref>& refs() {",
        "  static const std::map<std::string, Ref> m = {",
    ]
    for c in CASES:
        lines.append(run_case(*c))
    lines += ["  };", "  return m;", "}", "// clang-format on", "", "}  // namespace ember::nn_layers2_refs", ""]
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "nn_layers2_refs.h")
    with open(out, "w") as fh:
        fh.write("\n".join(lines))
    print(f"wrote {len(CASES)} cases to {out}")


if __name__ == "__main__":
    main()
