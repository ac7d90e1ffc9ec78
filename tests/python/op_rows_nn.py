"""Op-table rows of torch.nn.functional's linear maps, activations and softmax family, run
through ember.nn.functional and torch.nn.functional (so the Python signatures are checked
too). Convolution, pooling and losses keep rows of their own (op_rows_conv/loss.py)."""
from op_testing import ALL_BUT_BOOL, ALL_DTYPES, COMPLEX, ErrorSample, FLOATING, OpInfo, Sample, T

FLOAT_NO_HALF = ("bfloat16", "float32", "float64")
INTS = ("uint8", "int8", "int16", "int32", "int64")
MATMUL = tuple(d for d in ALL_BUT_BOOL if d != "float16")
NO_BOOL_HALF = tuple(d for d in ALL_BUT_BOOL if d != "float16")
F64_32 = ("float32", "float64")
SOFTMAX_TOL = {"float32": (1e-5, 1e-6), "bfloat16": (2e-2, 1e-2), "float16": (2e-3, 1e-3)}


def _F(name):
    """ember.nn.functional.<name> or torch.nn.functional.<name>."""
    return lambda lib, *a, **k: getattr(lib.nn.functional, name)(*a, **k)


def _dtype(lib, name):
    return {"dtype": getattr(lib, name)} if name else {}


def _unary(low=-5.0, high=5.0):
    def samples(dtype):
        return [Sample([T((), low, high)], name="scalar"), Sample([T((7,), low, high)]),
                Sample([T((0, 3), low, high)], name="zero-size"),
                Sample([T((3, 4), low, high, noncontig=True)], name="noncontig"),
                Sample([T((2, 3, 4), low, high, transpose=True)], name="transposed"),
                Sample([T((40000,), low, high)], name="large")]
    return samples


ROWS = [
    # ---------------------------------------------------------------- linear maps
    OpInfo("linear", _F("linear"), MATMUL,
           lambda d: [Sample([T((4, 3)), T((5, 3)), T((5,))]), Sample([T((4, 3)), T((5, 3))]),
                      Sample([T((2, 4, 3)), T((5, 3)), T((5,))], name="3d"),
                      Sample([T((2, 4, 3), transpose=True), T((5, 3)), T((5,))], name="3d-transposed"),
                      Sample([T((3,)), T((5, 3)), T((5,))], name="1d-input"),
                      Sample([T((4, 3)), T((3,))], name="1d-weight"),
                      Sample([T((0, 3)), T((5, 3)), T((5,))], name="zero-batch"),
                      Sample([T((4, 3), noncontig=True), T((5, 3), noncontig=True), T((5,))])],
           lambda: [ErrorSample([T((4, 3)), T((5, 4))], {}, RuntimeError, "cannot be multiplied")]),
    OpInfo("bilinear", _F("bilinear"), MATMUL,
           lambda d: [Sample([T((4, 3)), T((4, 2)), T((5, 3, 2)), T((5,))]),
                      Sample([T((4, 3)), T((4, 2)), T((5, 3, 2))], name="no-bias"),
                      Sample([T((2, 4, 3)), T((2, 4, 2)), T((5, 3, 2)), T((5,))], name="3d")],
           lambda: [ErrorSample([T((4, 3)), T((4, 2)), T((5, 4, 2))], {}, RuntimeError, "input1 size"),
                    ErrorSample([T((4, 3)), T((3, 2)), T((5, 3, 2))], {}, RuntimeError, "batch dimensions")],
           tol={"bfloat16": (3e-2, 1e-1)},
           # PyTorch's _trilinear cannot differentiate complex results: the same map as an einsum.
           torch_fn=lambda lib, a, b, w, bias=None: (
               lib.nn.functional.bilinear(a, b, w, bias) if not a.is_complex()
               else lib.einsum("...i,kij,...j->...k", a, w, b) + (0 if bias is None else bias))),
    # ---------------------------------------------------------------- activations
    OpInfo("log_sigmoid", _F("logsigmoid"), FLOAT_NO_HALF, _unary(-30, 30)),
    OpInfo("tanhshrink", _F("tanhshrink"), NO_BOOL_HALF, _unary()),
    OpInfo("softshrink", _F("softshrink"), FLOAT_NO_HALF,
           lambda d: _unary()(d) + [Sample([T((9,))], {"lambd": 1.5})],
           lambda: [ErrorSample([T((3,))], {"lambd": -1.0}, RuntimeError, "lambda must be greater")]),
    OpInfo("hardshrink", _F("hardshrink"), FLOATING,
           lambda d: _unary()(d) + [Sample([T((9,))], {"lambd": 1.5})]),
    OpInfo("threshold", lambda lib, a, th, v: lib.nn.functional.threshold(a, th, v), tuple(d for d in ALL_BUT_BOOL if d not in COMPLEX),
           lambda d: [Sample([T((7,)), 0.5, -2.0]), Sample([T((3, 4), noncontig=True), 1, 3]),
                      Sample([T(()), 0, 0])]),
    OpInfo("threshold_inplace", lambda lib, a, th, v: lib.nn.functional.threshold(a.clone(), th, v, inplace=True),
           INTS[1:] + FLOATING, lambda d: [Sample([T((7,)), 0.5, -2.0])]),
    OpInfo("glu", _F("glu"), FLOAT_NO_HALF,
           lambda d: [Sample([T((4, 6))]), Sample([T((4, 6)), 0]), Sample([T((3, 4, 2), transpose=True), 1])],
           lambda: [ErrorSample([T((4, 5))], {}, RuntimeError, "Halving dimension must be even")]),
    OpInfo("prelu", _F("prelu"), FLOATING,
           lambda d: [Sample([T((4, 3)), T((1,))]), Sample([T((4, 3)), T((3,))]),
                      Sample([T((2, 3, 5, 5)), T((3,))]), Sample([T((7,)), T((1,))])],
           lambda: [ErrorSample([T((4, 3)), T((2,))], {}, RuntimeError, "Mismatch of parameter numbers")]),
    OpInfo("rrelu", _F("rrelu"), FLOAT_NO_HALF, _unary()),
    OpInfo("F.relu_inplace", lambda lib, a: lib.nn.functional.relu(a.clone(), inplace=True), INTS + FLOAT_NO_HALF, _unary()),
    OpInfo("F.relu6", _F("relu6"), INTS + FLOAT_NO_HALF, _unary(-10, 10)),
    OpInfo("F.hardtanh", lambda lib, a, **k: lib.nn.functional.hardtanh(a, **k), INTS[1:] + FLOAT_NO_HALF,
           lambda d: [Sample([T((9,))], {"min_val": -2.0, "max_val": 3.0}), Sample([T((9,))])]),
    OpInfo("F.elu_inplace", lambda lib, a: lib.nn.functional.elu(a.clone(), 0.5, inplace=True), FLOAT_NO_HALF, _unary()),
    OpInfo("F.leaky_relu", lambda lib, a: lib.nn.functional.leaky_relu(a, 0.2), FLOAT_NO_HALF, _unary()),
    OpInfo("F.gelu_tanh", lambda lib, a: lib.nn.functional.gelu(a, approximate="tanh"), FLOAT_NO_HALF, _unary()),
    OpInfo("F.softplus", lambda lib, a: lib.nn.functional.softplus(a, 2, 5), FLOAT_NO_HALF, _unary()),
    # ---------------------------------------------------------------- softmax family
    *[OpInfo(n, lambda lib, a, dim, n=n, dtype=None: getattr(lib, n)(a, dim, **_dtype(lib, dtype)), FLOATING,
             lambda d: [Sample([T(()), 0]), Sample([T((7,)), 0]), Sample([T((5, 7)), 1]), Sample([T((5, 7)), 0]),
                        Sample([T((3, 4, 5)), 1], name="middle"), Sample([T((3, 4, 5)), -1]),
                        Sample([T((3, 4, 300)), 1], name="wide-inner"),
                        Sample([T((4, 6), noncontig=True), 1]), Sample([T((3, 4, 5), transpose=True), 2]),
                        Sample([T((0, 3)), 1]), Sample([T((64, 1000), -30, 30), 1], name="large-rows"),
                        Sample([T((5, 7)), 1], {"dtype": "float64"}, name="dtype")],
             lambda: [ErrorSample([T((2, 3))], {"dim": 2}, IndexError, "Dimension out of range"),
                      ErrorSample([T((2, 3), dtype="int64")], {"dim": 1}, RuntimeError, "")],
             tol=SOFTMAX_TOL)
      for n in ("softmax", "log_softmax")],
    *[OpInfo("F." + n, lambda lib, a, n=n, dim=None, dtype=None: getattr(lib.nn.functional, n)(
        a, dim, **_dtype(lib, dtype)), FLOATING,
             lambda d: [Sample([T((5, 7))], {"dim": 1}), Sample([T((2, 3, 4))], {"dim": 0}),
                        Sample([T((5, 7))], {"dim": -1, "dtype": "float64"})])
      for n in ("softmax", "log_softmax", "softmin")],
]

NORM_TOL = {"float32": (1e-4, 1e-5), "bfloat16": (3e-2, 3e-2), "float16": (3e-3, 3e-3)}


def _real_embedding(lib, w, idx, **k):
    """PyTorch's embedding of a complex weight, through its real view (PyTorch 1.13 cannot
    differentiate complex embeddings)."""
    if not w.is_complex():
        return lib.nn.functional.embedding(idx, w, **k)
    rows = lib.nn.functional.embedding(idx, lib.view_as_real(w).flatten(1), **k)
    return lib.view_as_complex(rows.unflatten(-1, (w.shape[1], 2)).contiguous())


def _batch_norm(lib, x, w, b, rm, rv, training=False, momentum=0.1):
    rm, rv = rm.clone(), rv.abs() + 0.5
    y = lib.nn.functional.batch_norm(x, rm, rv, w, b, training, momentum)
    return (y, rm, rv) if training else y


ROWS += [
    # ---------------------------------------------------------------- normalization
    OpInfo("layer_norm", lambda lib, x, shape, *p, **k: lib.nn.functional.layer_norm(x, shape, *p, **k), FLOATING,
           lambda d: [Sample([T((4, 6)), (6,), T((6,)), T((6,))]), Sample([T((4, 6)), (6,)]),
                      Sample([T((2, 3, 4)), (3, 4), T((3, 4)), T((3, 4))], name="2d-shape"),
                      Sample([T((2, 3, 4), transpose=True), (4,), T((4,))], name="weight-only"),
                      Sample([T((0, 5)), (5,), T((5,)), T((5,))], name="zero-rows"),
                      Sample([T((64, 300), -3, 40), (300,), T((300,)), T((300,))], name="offset-rows"),
                      Sample([T((5, 7)), (7,)], {"eps": 0.1})],
           lambda: [ErrorSample([T((4, 6)), (5,)], {}, RuntimeError, "Given normalized_shape"),
                    ErrorSample([T((4, 6)), (6,), T((5,))], {}, RuntimeError, "Expected weight to be of same shape")],
           tol=NORM_TOL,
           # PyTorch 1.13 normalizes bfloat16 rows with bfloat16 intermediates (errors up to 0.18 on
           # rows offset by 20); Ember rounds once from float, so the reference computes in float.
           torch_fn=lambda lib, x, shape, *p, **k: lib.nn.functional.layer_norm(
               x.float(), shape, *[q.float() for q in p], **k).to(x.dtype) if x.dtype == lib.bfloat16
           else lib.nn.functional.layer_norm(x, shape, *p, **k)),
    OpInfo("batch_norm", _batch_norm, FLOATING,
           lambda d: [Sample([T((4, 3)), T((3,)), T((3,)), T((3,)), T((3,))]),
                      Sample([T((2, 3, 5, 5)), T((3,)), T((3,)), T((3,)), T((3,))]),
                      Sample([T((2, 3, 5)), None, None, T((3,)), T((3,))], name="no-affine")],
           lambda: [ErrorSample([T((4, 3)), T((2,)), T((3,)), T((3,)), T((3,))], {}, RuntimeError,
                                "weight should contain 3 elements")]),
    OpInfo("batch_norm_train", lambda lib, *a: _batch_norm(lib, *a, training=True), FLOATING,
           lambda d: [Sample([T((4, 3)), T((3,)), T((3,)), T((3,)), T((3,))]),
                      Sample([T((2, 3, 5, 5)), T((3,)), T((3,)), T((3,)), T((3,))]),
                      Sample([T((8, 4, 33), -2, 30), None, T((4,)), T((4,)), T((4,))], name="bias-only"),
                      Sample([T((2, 3, 5, 4), transpose=True), T((3,)), T((3,)), T((3,)), T((3,))], name="transposed")],
           lambda: [ErrorSample([T((1, 3)), T((3,)), T((3,)), T((3,)), T((3,))], {}, ValueError,
                                "more than 1 value per channel")]),
    OpInfo("group_norm", lambda lib, x, g, *p: lib.nn.functional.group_norm(x, g, *p), FLOATING,
           lambda d: [Sample([T((2, 6, 5)), 3, T((6,)), T((6,))]), Sample([T((2, 6, 4, 4)), 2]),
                      Sample([T((3, 4)), 2, T((4,)), T((4,))], name="2d")],
           lambda: [ErrorSample([T((2, 6, 5)), 4], {}, RuntimeError, "divisible by num_groups")],
           # normalized and scaled in two roundings of the 16-bit type (PyTorch fuses them)
           tol={"bfloat16": (2e-2, 8e-2), "float16": (2e-3, 5e-3)}),
    OpInfo("F.instance_norm", lambda lib, x, *p: lib.nn.functional.instance_norm(x, None, None, *p), FLOATING,
           lambda d: [Sample([T((2, 3, 5))]), Sample([T((2, 3, 4, 4)), T((3,)), T((3,))])]),
    OpInfo("F.local_response_norm", lambda lib, x, size: lib.nn.functional.local_response_norm(x, size), FLOATING + ("int64",),
           lambda d: [Sample([T((2, 5, 4)), 3]), Sample([T((2, 6, 3, 3)), 2]), Sample([T((1, 4, 7)), 5])],
           tol={"float32": (1e-4, 1e-5)}),
    OpInfo("F.normalize", lambda lib, x, **k: lib.nn.functional.normalize(x, **k), FLOAT_NO_HALF + COMPLEX,
           lambda d: [Sample([T((4, 5))]), Sample([T((4, 5))], {"p": 1.0, "dim": 0}),
                      Sample([T((2, 3, 4))], {"dim": -1})]),
    OpInfo("F.cosine_similarity", lambda lib, a, b, **k: lib.nn.functional.cosine_similarity(a, b, **k), FLOAT_NO_HALF,
           lambda d: [Sample([T((4, 5)), T((4, 5))]), Sample([T((4, 5)), T((1, 5))], {"dim": 1}),
                      Sample([T((3, 4)), T((3, 4))], {"dim": 0})]),
    OpInfo("F.pairwise_distance", lambda lib, a, b, **k: lib.nn.functional.pairwise_distance(a, b, **k), ALL_BUT_BOOL,
           lambda d: [Sample([T((4, 5)), T((4, 5), seed=1)]),
                      Sample([T((4, 5)), T((4, 5), seed=1)], {"p": 1.0, "keepdim": True})]),
    # ---------------------------------------------------------------- dropout (deterministic corners)
    *[OpInfo(op, lambda lib, x, n=n: getattr(lib.nn.functional, n)(x, 0.3, training=False), ALL_DTYPES,
             lambda d: [Sample([T((4, 5, 3))])])
      for op, n in (("dropout", "dropout"), ("alpha_dropout", "alpha_dropout"), ("feature_dropout", "dropout2d"),
                    ("feature_alpha_dropout", "feature_alpha_dropout"))],
    OpInfo("F.dropout_p1", lambda lib, x, p=1.0: lib.nn.functional.dropout(x, p, training=True), ALL_DTYPES,
           lambda d: [Sample([T((4, 5))])],
           lambda: [ErrorSample([T((3,))], {"p": 1.5}, ValueError, "between 0 and 1"),
                    ErrorSample([T((3,))], {"p": -0.1}, ValueError, "between 0 and 1")]),
    # ---------------------------------------------------------------- embeddings
    OpInfo("embedding", lambda lib, w, idx, **k: lib.nn.functional.embedding(idx, w, **k), ALL_DTYPES,
           lambda d: [Sample([T((10, 3)), T((4, 5), 0, 9, dtype="int64")]),
                      Sample([T((10, 3)), T((), 0, 9, dtype="int64")], name="0-dim-index")],
           lambda: [ErrorSample([T((10, 3)), T((4,), 0, 9)], {}, RuntimeError, "indices")],
           torch_fn=lambda lib, w, idx, **k: _real_embedding(lib, w, idx, **k)),
    # padding_idx's row gets no gradient and scale_grad_by_freq divides each row's gradient by
    # its index's count: not derivatives, so only compared with PyTorch (test_op_table_grad's
    # _NOT_DERIVATIVES).
    OpInfo("embedding_padding_scale", lambda lib, w, idx, **k: lib.nn.functional.embedding(idx, w, **k),
           ALL_DTYPES, lambda d: [Sample([T((10, 3)), T((3, 4), 0, 9, dtype="int64")], {"scale_grad_by_freq": True}),
                                     Sample([T((10, 3)), T((7,), 0, 9, dtype="int64")], {"padding_idx": 2})],
           torch_fn=lambda lib, w, idx, **k: _real_embedding(lib, w, idx, **k)),
    OpInfo("one_hot", lambda lib, x, *a: lib.nn.functional.one_hot(x, *a), ("int64",),
           lambda d: [Sample([T((5,), 0, 4)]), Sample([T((2, 3), 0, 4), 7]), Sample([T((0,), 0, 4), 3])],
           lambda: [ErrorSample([T((3,), 0, 4, dtype="int64"), 2], {}, RuntimeError, "smaller than num_classes"),
                    ErrorSample([T((3,), -3, -1, dtype="int64")], {}, RuntimeError, "non-negative")]),
]

# The softmax backward ops, called directly (their gradients are the double backward of softmax).
ROWS += [
    OpInfo(n, lambda lib, g, y, dim, n=n: getattr(lib, n)(g, getattr(lib, fwd)(y, dim), dim, y.dtype), FLOATING,
           lambda d: [Sample([T((5, 7)), T((5, 7)), 1]), Sample([T((3, 4, 5)), T((3, 4, 5)), 1]),
                      Sample([T((3, 4, 5)), T((3, 4, 5)), 0])],
           tol={"bfloat16": (5e-2, 5e-2), "float16": (5e-3, 5e-3)})
    for n, fwd in (("_softmax_backward_data", "softmax"), ("_log_softmax_backward_data", "log_softmax"))
]

# Backward ops reached through the gradient rows of layer_norm, batch_norm and embedding
# (tests/python/test_op_table_grad.py compares those gradients with PyTorch's).
COVERED_ELSEWHERE = {"native_layer_norm", "native_layer_norm_backward", "native_batch_norm",
                     "native_batch_norm_backward", "embedding_dense_backward"}

ROWS += [
    OpInfo("embedding_bag", lambda lib, idx, w, *a, **k: lib.nn.functional.embedding_bag(idx, w, *a, **k), FLOATING[:1] + FLOATING[2:],
           lambda d: [Sample([T((4, 3), 0, 9, dtype="int64"), T((10, 5))]),
                      Sample([T((4, 3), 0, 9, dtype="int64"), T((10, 5))], {"mode": "sum"}),
                      Sample([T((4, 3), 0, 9, dtype="int64"), T((10, 5))], {"mode": "max"}),
                      Sample([T((4, 3), 0, 9, dtype="int64"), T((10, 5))], {"padding_idx": 3}),
                      Sample([T((4, 3), 0, 9, dtype="int64"), T((10, 5))], {"mode": "sum",
                                                                            "per_sample_weights": T((4, 3))})],
           lambda: [ErrorSample([T((4, 3), 0, 9, dtype="int64"), T((10, 5))], {"mode": "prod"}, ValueError,
                                "mode has to be one of")],
           tol={"float16": (2e-3, 2e-2)}),
    OpInfo("embedding_bag_offsets", lambda lib, idx, w, off, **k: lib.nn.functional.embedding_bag(
        idx, w, lib.tensor(off), **k), FLOATING[:1] + FLOATING[2:],
           lambda d: [Sample([T((8,), 0, 9, dtype="int64"), T((10, 5)), [0, 3, 3, 6]]),
                      Sample([T((8,), 0, 9, dtype="int64"), T((10, 5)), [0, 3, 3, 6]], {"mode": "max"}),
                      Sample([T((8,), 0, 9, dtype="int64"), T((10, 5)), [0, 2, 8]], {"include_last_offset": True,
                                                                                      "mode": "sum"})],
           lambda: [ErrorSample([T((4,), 0, 9, dtype="int64"), T((10, 5)), [0, 2]], kw, exc, match)
                    for kw, exc, match in (
                        ({"mode": "max", "scale_grad_by_freq": True}, ValueError, "max mode does not support scaling"),
                        ({"mode": "max", "sparse": True}, ValueError, "max mode does not support sparse weights"),
                        ({"padding_idx": 10}, RuntimeError, "padding_idx must be within the number of embeddings, "
                                                            "-10 through 9, but got 10"))] +
           [ErrorSample([T((4,), 0, 9, dtype="int64"), T((10, 5)), [0, 5]], {}, RuntimeError,
                        "offsets\\[-1\\] can not be greater than input's length 4 but got offsets\\[-1\\] of 5")]),
]
