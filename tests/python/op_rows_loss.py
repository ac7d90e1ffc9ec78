"""Op-table rows of the loss functions (src/ops/loss.cpp, ember.nn.functional).

Rows call nn.functional in both libraries. Arguments PyTorch 1.13 cannot differentiate
(class weights, BCE's weight and pos_weight, soft_margin_loss's target: it refuses them when
they require grad, and so does Ember) are passed as Const, built inside the row as constants,
so that the gradient tests still check the other inputs; test_nn_loss.py checks the refusal."""
import dataclasses

from op_testing import COMPLEX, ErrorSample, FLOATING, INTEGRAL, OpInfo, Sample, T, build, dtype_name

_REDUCTIONS = ("mean", "sum", "none")
_F32_TOL = {"float32": (1e-5, 1e-5)}
# float16 where PyTorch 1.13's CPU kernels have it (Ember lacks float16 exp, log and clamp,
# as PyTorch does): the other rows declare these.
NO_HALF = ("bfloat16", "float32", "float64")


@dataclasses.dataclass
class Const:
    """A tensor argument built inside the row (in the first argument's dtype), so that it never
    requires grad."""
    t: T


def _built(lib, args, kwargs):
    # Const arguments, and error samples' keyword tensors (passed unbuilt), built like args[0].
    dt = dtype_name(args[0].dtype)
    make = lambda v: build(lib, v.t if isinstance(v, Const) else v, dt) if isinstance(v, (Const, T)) else v
    return [make(a) for a in args], {k: make(v) for k, v in kwargs.items()}


def _F(name):
    def fn(lib, *args, **kwargs):
        args, kwargs = _built(lib, args, kwargs)
        return getattr(lib.nn.functional, name)(*args, **kwargs)
    return fn


def _labels(shape, n_classes, seed=1, low=0, dtype="int64"):
    return T(shape, low, n_classes - 1, dtype=dtype, seed=seed)


# ---------------------------------------------------------------- regression
def _pair_samples(extra=({},), low=-3.0, high=3.0):
    def samples(dtype):
        out = []
        for red in _REDUCTIONS:
            for kw in extra:
                out.append(Sample([T((3, 4), low, high), T((3, 4), low, high, seed=1)], {"reduction": red, **kw},
                                  name=f"{red}-{kw}"))
        out += [
            Sample([T((), low, high), T((), low, high, seed=1)], name="scalar"),
            Sample([T((0, 4), low, high), T((0, 4), low, high, seed=1)], {"reduction": "sum"}, name="zero-size"),
            Sample([T((0, 4), low, high), T((0, 4), low, high, seed=1)], {"reduction": "none"}, name="zero-size-none"),
            Sample([T((3, 4), low, high, noncontig=True), T((3, 4), low, high, seed=1, transpose=True)],
                   name="noncontig"),
            Sample([T((3, 4), low, high), T((4,), low, high, seed=1)], name="broadcast-target"),  # warns, as torch
            Sample([T((20000,), low, high), T((20000,), low, high, seed=1)], name="large"),
        ]
        return out
    return samples


def _pair_errors(extra=None):
    def errors():
        out = [ErrorSample([T((2, 3)), T((4,))], {}, RuntimeError, "size of tensor a"),
               ErrorSample([T((2, 3)), T((2, 3))], {"reduction": "foo"}, ValueError,
                           "foo is not a valid value for reduction")]
        return out + (extra() if extra else [])
    return errors


_INT_ERROR = lambda msg: lambda: [ErrorSample([T((2, 3)), T((2, 3))], {}, RuntimeError, msg, dtype="int64")]

ROWS = [
    OpInfo("mse_loss", _F("mse_loss"), FLOATING, _pair_samples(), _pair_errors(_INT_ERROR("not implemented")),
           tol=_F32_TOL),
    OpInfo("l1_loss", _F("l1_loss"), FLOATING + COMPLEX, _pair_samples(), _pair_errors(), tol=_F32_TOL),
    OpInfo("l1_loss_sum", lambda lib, a, b: lib.nn.functional.l1_loss(a, b, reduction="sum"),
           INTEGRAL + FLOATING + COMPLEX, lambda d: [Sample([T((3, 4)), T((3, 4), seed=1)]),
                                                     Sample([T((3, 4)), T((4,), seed=1)], name="broadcast")]),
    OpInfo("smooth_l1_loss", _F("smooth_l1_loss"), FLOATING,
           _pair_samples(({}, {"beta": 0.5}, {"beta": 0.0}, {"beta": 10.0})),
           _pair_errors(lambda: [ErrorSample([T((2, 3)), T((2, 3))], {"beta": -1.0}, RuntimeError,
                                             "does not support negative values for beta")]), tol=_F32_TOL),
    OpInfo("huber_loss", _F("huber_loss"), FLOATING, _pair_samples(({}, {"delta": 0.5}, {"delta": 4.0})),
           _pair_errors(lambda: [ErrorSample([T((2, 3)), T((2, 3))], {"delta": 0.0}, RuntimeError,
                                             "does not support non-positive values for delta")]), tol=_F32_TOL),
    OpInfo("poisson_nll_loss", _F("poisson_nll_loss"), INTEGRAL + NO_HALF + COMPLEX,
           lambda d: [Sample([T((3, 4), -2, 2), T((3, 4), 0, 4, seed=1)]),
                      *[Sample([T((3, 4), -2, 2), T((3, 4), 0, 4, seed=1)], {"reduction": r}, name=r)
                        for r in ("sum", "none")],
                      *([Sample([T((3, 4), 0.1, 3), T((3, 4), 0, 4, seed=1)],
                               {"log_input": False, "full": True, "eps": 1e-3}, name="full"),
                         Sample([T((3, 4), -2, 2), T((3, 4), 0, 4, seed=1)], {"full": True, "reduction": "none"},
                                name="full-none"),
                         Sample([T((3, 4), 0.1, 3, noncontig=True), T((3, 4), 0, 4, seed=1)], {"log_input": False},
                                name="noncontig")] if d in FLOATING else []),
                      Sample([T((0, 3)), T((0, 3), seed=1)], {"reduction": "sum"}, name="zero-size")],
           lambda: [ErrorSample([T((2, 3)), T((2, 3))], {"reduction": "foo"}, ValueError, "not a valid value")],
           tol={"float32": (1e-5, 1e-5), "complex64": (1e-5, 1e-5)}),
    OpInfo("gaussian_nll_loss", _F("gaussian_nll_loss"), NO_HALF,
           lambda d: [Sample([T((3, 4)), T((3, 4), seed=1), T((3, 4), 0.1, 2, seed=2)]),
                      *[Sample([T((3, 4)), T((3, 4), seed=1), T((3, 4), 0.1, 2, seed=2)], {"reduction": r}, name=r)
                        for r in ("sum", "none")],
                      Sample([T((3, 4)), T((3, 4), seed=1), T((3,), 0.1, 2, seed=2)], {"full": True}, name="homosc"),
                      Sample([T((3, 4)), T((3, 4), seed=1), T((3, 1), 0.1, 2, seed=2)], {"reduction": "none"},
                             name="homosc-1"),
                      # var below eps: clamped, the gradient passing through unchanged (as in torch),
                      # which central differences cannot reproduce: not in float64
                      *([Sample([T((3, 4)), T((3, 4), seed=1), T((3, 4), 0, 0.5, seed=2)], {"eps": 0.1},
                                name="clamped")] if d != "float64" else []),
                      Sample([T((3, 4), noncontig=True), T((3, 4), seed=1, transpose=True),
                              T((3, 4), 0.1, 2, seed=2)], name="noncontig")],
           lambda: [ErrorSample([T((3, 4)), T((3, 4), seed=1), T((2, 4), 0.1, 2)], {}, ValueError,
                                "var is of incorrect size"),
                    ErrorSample([T((3, 4)), T((3, 4), seed=1), T((3, 4), -2, -1)], {}, ValueError,
                                "var has negative entry"),
                    ErrorSample([T((3, 4)), T((3, 4), seed=1), T((3, 4), 0.1, 2)], {"reduction": "x"}, ValueError,
                                "x is not valid")],
           tol=_F32_TOL),
]


# ---------------------------------------------------------------- nll_loss, cross_entropy
def _class_samples(prob_targets=False):
    def samples(dtype):
        w = Const(T((5,), 0.2, 2, seed=3))
        out = []
        for red in _REDUCTIONS:
            out += [Sample([T((6, 5)), _labels((6,), 5)], {"reduction": red}, name=red),
                    Sample([T((6, 5)), _labels((6,), 5)], {"reduction": red, "weight": w}, name=f"{red}-weight"),
                    # targets in [-1, 4] with -1 ignored
                    Sample([T((6, 5)), _labels((6,), 5, seed=5, low=-1)], {"reduction": red, "ignore_index": -1,
                                                                            "weight": w}, name=f"{red}-ignore"),
                    Sample([T((2, 5, 3, 2)), _labels((2, 3, 2), 5)], {"reduction": red, "ignore_index": 2},
                           name=f"{red}-4d"),
                    Sample([T((5,)), _labels((), 5)], {"reduction": red}, name=f"{red}-unbatched")]
        out += [
            Sample([T((6, 5)), _labels((6,), 5, seed=5, low=-1)], {"ignore_index": -1}, name="ignore-unweighted"),
            Sample([T((6, 5)), _labels((6,), 5, seed=5)], {"ignore_index": 3, "weight": w}, name="ignore-class"),
            Sample([T((2, 5, 3)), _labels((2, 3), 5)], {"weight": w}, name="3d"),
            Sample([T((2, 5, 2, 2, 2)), _labels((2, 2, 2, 2), 5)], {"reduction": "none"}, name="5d"),
            Sample([T((0, 5)), _labels((0,), 5)], {"reduction": "sum"}, name="zero-size"),
            Sample([T((0, 5)), _labels((0,), 5)], {"reduction": "none"}, name="zero-size-none"),
            Sample([T((0, 5)), _labels((0,), 5)], {"reduction": "mean"}, name="zero-size-mean"),  # NaN as torch
            Sample([T((6, 5), noncontig=True), _labels((6,), 5)], {"weight": w}, name="noncontig"),
            Sample([T((6, 5), transpose=True), _labels((6,), 5)], name="transposed"),
            Sample([T((6, 5)), _labels((6,), 5, dtype="uint8")], name="uint8-target"),
            Sample([T((64, 100), -3, 3), _labels((64,), 100)], name="large"),
        ]
        if prob_targets:
            ls = 0.25
            for red in _REDUCTIONS:
                out += [Sample([T((6, 5)), _labels((6,), 5)], {"reduction": red, "label_smoothing": ls},
                               name=f"{red}-ls"),
                        Sample([T((6, 5)), _labels((6,), 5, seed=5, low=-1)],
                               {"reduction": red, "label_smoothing": ls, "weight": w, "ignore_index": -1},
                               name=f"{red}-ls-weight-ignore"),
                        Sample([T((6, 5)), T((6, 5), 0, 1, seed=4)], {"reduction": red}, name=f"{red}-probs"),
                        Sample([T((6, 5)), T((6, 5), 0, 1, seed=4)], {"reduction": red, "weight": w.t,
                                                                      "label_smoothing": ls}, name=f"{red}-probs-ls"),
                        Sample([T((2, 5, 3)), T((2, 5, 3), 0, 1, seed=4)], {"reduction": red, "weight": w.t},
                               name=f"{red}-probs-3d")]
            out += [Sample([T((2, 5, 3)), _labels((2, 3), 5, seed=5, low=-1)],
                           {"label_smoothing": 0.1, "ignore_index": -1}, name="ls-3d-ignore"),
                    Sample([T((5,)), _labels((), 5)], {"label_smoothing": 0.1, "weight": w}, name="ls-unbatched"),
                    Sample([T((6, 5)), _labels((6,), 5, seed=5, low=-1)], {"label_smoothing": 1.0,
                                                                            "ignore_index": -1}, name="ls-1"),
                    Sample([T((0, 5)), T((0, 5), 0, 1, seed=4)], {"reduction": "sum"}, name="probs-zero-size"),
                    Sample([T((5,)), T((5,), 0, 1, seed=4)], name="probs-unbatched")]
        return out
    return samples


def _class_errors(name):
    def errors():
        out = [
            ErrorSample([T((3, 5)), _labels((2,), 5)], {}, ValueError,
                        r"Expected input batch_size \(3\) to match target batch_size \(2\)\."),
            ErrorSample([T((3, 5)), T((3,), 5, 5, dtype="int64")], {}, IndexError, "Target 5 is out of bounds"),
            ErrorSample([T((3, 5)), T((3,), -3, -3, dtype="int64")], {}, IndexError, "Target -3 is out of bounds"),
            ErrorSample([T((3, 5)), _labels((3,), 5, dtype="int32")], {}, RuntimeError, "Long"),
            ErrorSample([T((3, 5)), _labels((3,), 5)], {"weight": T((4,), 0, 1)}, RuntimeError,
                        r"weight tensor should be defined either for all 5 classes or no classes but got weight "
                        r"tensor of shape: \[4\]"),
            ErrorSample([T((3, 5, 2)), _labels((3, 4), 5)], {}, RuntimeError, r"Expected target size \[3, 2\]"),
            ErrorSample([T((3, 5, 2, 2)), _labels((3, 4), 5)], {}, RuntimeError,
                        "only batches of spatial targets supported"),
            ErrorSample([T((3, 5)), _labels((3, 1), 5)], {}, RuntimeError, "multi-target not supported"),
            ErrorSample([T((3, 5)), _labels((3,), 5)], {"reduction": "avg"}, ValueError,
                        "avg is not a valid value for reduction"),
        ]
        if name == "nll_loss":
            out.append(ErrorSample([T(()), _labels((), 5)], {}, ValueError, r"Expected 1 or more dimensions \(got 0\)"))
        else:
            out += [ErrorSample([T((3, 5)), _labels((3,), 5)], {"label_smoothing": 1.5}, RuntimeError,
                                "label_smoothing must be between 0.0 and 1.0. Got: 1.5"),
                    ErrorSample([T((3, 5)), T((3, 5), 0, 1)], {"ignore_index": 1}, RuntimeError,
                                "ignore_index is not supported for floating point target"),
                    ErrorSample([T((3, 5)), T((3, 5), 0, 1)], {"weight": T((4,), 0, 1)}, RuntimeError,
                                "cross_entropy: weight tensor should be defined either for all 5 classes"),
                    ErrorSample([T((3, 5)), _labels((3, 5), 5)], {}, RuntimeError,
                                "Expected floating point type for target with class probabilities")]
        return out
    return errors


ROWS += [
    OpInfo("nll_loss", _F("nll_loss"), FLOATING, _class_samples(), _class_errors("nll_loss"),
           tol=_F32_TOL),
    OpInfo("cross_entropy_loss", _F("cross_entropy"), FLOATING, _class_samples(True),
           _class_errors("cross_entropy"), tol={"float32": (1e-5, 1e-5), "float16": (2e-3, 2e-3)}),
]


# ---------------------------------------------------------------- binary, divergences
def _bce_samples(logits):
    lo, hi = (-6, 6) if logits else (0.02, 0.98)

    def samples(dtype):
        out = []
        for red in _REDUCTIONS:
            out += [Sample([T((3, 4), lo, hi), T((3, 4), 0, 1, seed=1)], {"reduction": red}, name=red),
                    Sample([T((3, 4), lo, hi), T((3, 4), 0, 1, seed=1)], {"reduction": red, "weight": Const(T((4,), 0, 2))},
                           name=f"{red}-weight")]
        out += [Sample([T((), lo, hi), T((), 0, 1, seed=1)], name="scalar"),
                Sample([T((0, 4), lo, hi), T((0, 4), 0, 1, seed=1)], {"reduction": "sum"}, name="zero-size"),
                Sample([T((3, 4), lo, hi, noncontig=True), T((3, 4), 0, 1, seed=1, transpose=True)],
                       {"weight": Const(T((3, 1), 0, 2))}, name="noncontig"),
                Sample([T((20000,), lo, hi), T((20000,), 0, 1, seed=1)], name="large")]
        if logits:
            out += [Sample([T((3, 4), -60, 60), T((3, 4), 0, 1, seed=1)], {"reduction": "none"}, name="extreme"),
                    *[Sample([T((3, 4), lo, hi), T((3, 4), 0, 1, seed=1)],
                             {"reduction": red, "pos_weight": Const(T((4,), 0.5, 3, seed=2)),
                              "weight": Const(T((3, 1), 0, 2))},
                             name=f"{red}-pos-weight") for red in _REDUCTIONS]]
        return out
    return samples


ROWS += [
    OpInfo("binary_cross_entropy", _F("binary_cross_entropy"), NO_HALF, _bce_samples(False),
           lambda: [ErrorSample([T((3, 4), 0, 1), T((4,), 0, 1)], {}, ValueError,
                                r"Using a target size \(.*\) that is different to the input size"),
                    ErrorSample([T((3, 4), 2, 3), T((3, 4), 0, 1)], {}, RuntimeError,
                                "all elements of input should be between 0 and 1"),
                    ErrorSample([T((3, 4), 0, 1), T((3, 4), 0, 1)], {"weight": T((5,), 0, 1)}, RuntimeError,
                                "size of tensor a")],
           tol={"float32": (1e-5, 1e-5), "float16": (2e-3, 2e-3)}),
    OpInfo("binary_cross_entropy_with_logits", _F("binary_cross_entropy_with_logits"),
           NO_HALF, _bce_samples(True),
           lambda: [ErrorSample([T((3, 4)), T((4,), 0, 1)], {}, ValueError,
                                r"Target size \(.*\) must be the same as input size"),
                    ErrorSample([T((3, 4)), T((3, 4), 0, 1)], {"pos_weight": T((5,), 0, 1)}, RuntimeError,
                                "size of tensor a")],
           tol={"float32": (1e-5, 1e-5), "float16": (2e-3, 2e-3)}),
    # Inputs of 0 and 1: logs clamped at -100 (values only: the gradient there is 0 in Ember,
    # (x - y) / 1e-12 by torch's formula).
    OpInfo("binary_cross_entropy_clamped",
           lambda lib, x, y, **k: lib.nn.functional.binary_cross_entropy(x.detach(), y.detach(), **k), NO_HALF,
           lambda d: [Sample([T((3, 4), 0.0, 0.0), T((3, 4), 0, 1, seed=1)], {"reduction": "none"}),
                      Sample([T((3, 4), 1.0, 1.0), T((3, 4), 0, 1, seed=1)], {"reduction": "sum"})]),
    OpInfo("kl_div", _F("kl_div"), FLOATING,
           lambda d: [Sample([T((3, 4), -3, 0), T((3, 4), 0, 1, seed=1)]),
                      *[Sample([T((3, 4), -3, 0), T((3, 4), 0, 1, seed=1)], {"reduction": r}, name=r)
                        for r in ("sum", "none", "batchmean")],
                      *[Sample([T((3, 4), -3, 0), T((3, 4), -3, 0, seed=1)], {"reduction": r, "log_target": True},
                               name=f"{r}-log-target") for r in ("batchmean", "none") if d != "float16"],
                      Sample([T((), -3, 0), T((), 0, 1, seed=1)], {"reduction": "batchmean"}, name="scalar"),
                      Sample([T((3, 4), -3, 0, noncontig=True), T((3, 4), 0, 1, seed=1, transpose=True)],
                             {"reduction": "sum"}, name="noncontig"),
                      Sample([T((0, 4)), T((0, 4), 0, 1, seed=1)], {"reduction": "sum"}, name="zero-size")],
           lambda: [ErrorSample([T((3, 4)), T((3, 4))], {}, RuntimeError, "Integral inputs not supported",
                                dtype="int64")],
           tol=_F32_TOL),
    OpInfo("soft_margin_loss", _F("soft_margin_loss"), NO_HALF + COMPLEX,
           lambda d: [Sample([T((3, 4)), Const(T((3, 4), -1, 1, seed=1))]),
                      *[Sample([T((3, 4)), Const(T((3, 4), -1, 1, seed=1))], {"reduction": r}, name=r)
                        for r in ("sum", "none")],
                      Sample([T((3, 4), noncontig=True), Const(T((4,), -1, 1, seed=1))], name="broadcast-noncontig"),
                      Sample([T((0, 4)), Const(T((0, 4), seed=1))], {"reduction": "sum"}, name="zero-size")],
           tol=_F32_TOL),
    OpInfo("multilabel_soft_margin_loss", _F("multilabel_soft_margin_loss"), NO_HALF,
           lambda d: [Sample([T((3, 4)), T((3, 4), 0, 1, seed=1)]),
                      *[Sample([T((3, 4)), T((3, 4), 0, 1, seed=1)], {"reduction": r, "weight": T((4,), 0, 2)},
                               name=r) for r in _REDUCTIONS],
                      Sample([T((4,)), T((4,), 0, 1, seed=1)], {"reduction": "sum"}, name="unbatched"),
                      Sample([T((3, 4), noncontig=True), T((3, 4), 0, 1, seed=1)], name="noncontig")],
           lambda: [ErrorSample([T((3, 4)), T((3, 4))], {"reduction": "foo"}, ValueError, "foo is not valid")],
           tol=_F32_TOL),
]


# ---------------------------------------------------------------- margins and embeddings
def _sign(shape, seed):
    return T(shape, -1, 1, dtype="int64", seed=seed)  # -1, 0 or 1


def _margin_dtype_fn(name, sign_args=()):
    """Calls `name` with the sign arguments (int64 built) cast to the sample's dtype."""
    def fn(lib, *args, **kwargs):
        args = [a.to(args[0].dtype) if i in sign_args else a for i, a in enumerate(args)]
        return getattr(lib.nn.functional, name)(*args, **kwargs)
    return fn


ROWS += [
    OpInfo("margin_ranking_loss", _margin_dtype_fn("margin_ranking_loss", (2,)),
           INTEGRAL + ("bfloat16", "float32", "float64"),
           lambda d: [Sample([T((5,)), T((5,), seed=1), _sign((5,), 2)]),
                      *[Sample([T((5,)), T((5,), seed=1), _sign((5,), 2)], {"reduction": r, "margin": 0.5}, name=r)
                        for r in _REDUCTIONS],
                      Sample([T((2, 3), noncontig=True), T((2, 3), seed=1), _sign((2, 3), 2)], name="noncontig"),
                      Sample([T((0,)), T((0,), seed=1), _sign((0,), 2)], {"reduction": "sum"}, name="zero-size")],
           lambda: [ErrorSample([T((3, 4)), T((3, 4)), T((3, 4, 1))], {}, RuntimeError,
                                "All input tensors should have same dimension but got sizes")]),
    OpInfo("hinge_embedding_loss", _margin_dtype_fn("hinge_embedding_loss", (1,)), ("bfloat16", "float32", "float64"),
           lambda d: [Sample([T((3, 4)), _sign((3, 4), 1)]),
                      *[Sample([T((3, 4)), _sign((3, 4), 1)], {"reduction": r, "margin": 2.0}, name=r)
                        for r in _REDUCTIONS],
                      Sample([T((3, 4), noncontig=True), _sign((4,), 1)], name="broadcast-noncontig"),
                      Sample([T((0, 4)), _sign((0, 4), 1)], {"reduction": "sum"}, name="zero-size")]),
    OpInfo("hinge_embedding_loss_int", lambda lib, a, t: lib.nn.functional.hinge_embedding_loss(a, t, reduction="sum"),
           INTEGRAL + ("bfloat16", "float32", "float64"),
           lambda d: [Sample([T((3, 4)), _sign((3, 4), 1)])]),
    OpInfo("cosine_embedding_loss", _margin_dtype_fn("cosine_embedding_loss", (2,)),
           ("bool",) + INTEGRAL + ("bfloat16", "float32", "float64"),
           lambda d: [Sample([T((4, 3)), T((4, 3), seed=1), _sign((4,), 2)]),
                      *[Sample([T((4, 3)), T((4, 3), seed=1), _sign((4,), 2)], {"reduction": r, "margin": 0.2},
                               name=r) for r in _REDUCTIONS],
                      Sample([T((3,)), T((3,), seed=1), _sign((), 2)], name="unbatched"),
                      Sample([T((4, 3), noncontig=True), T((4, 3), seed=1, transpose=True), _sign((4,), 2)],
                             name="noncontig")],
           lambda: [ErrorSample([T((4, 3)), T((4, 3)), T((4, 1))], {}, RuntimeError, "multi-target not supported"),
                    ErrorSample([T((4, 3)), T((4,)), T((4,))], {}, RuntimeError,
                                r"1D target tensor expects 2D input tensors, but found inputs with sizes \[4, 3\] "
                                r"and \[4\]")]),
    OpInfo("triplet_margin_loss", _F("triplet_margin_loss"), INTEGRAL + ("bfloat16", "float32", "float64") + COMPLEX,
           lambda d: [Sample([T((4, 3)), T((4, 3), seed=1), T((4, 3), seed=2)]),
                      *[Sample([T((4, 3)), T((4, 3), seed=1), T((4, 3), seed=2)],
                               {"reduction": r, "margin": 2.0, "p": 1.0, "swap": True}, name=r) for r in _REDUCTIONS],
                      Sample([T((4, 3)), T((4, 3), seed=1), T((4, 3), seed=2)], {"p": 3.0, "eps": 0.1}, name="p3"),
                      Sample([T((3,)), T((3,), seed=1), T((3,), seed=2)], {"swap": True}, name="unbatched"),
                      Sample([T((4, 3), noncontig=True), T((4, 3), seed=1, transpose=True), T((4, 3), seed=2)],
                             name="noncontig")],
           lambda: [ErrorSample([T((4, 3)), T((3,)), T((3,))], {}, RuntimeError,
                                "All inputs should have same dimension but got 2D, 1D and 1D inputs.")],
           tol={"float32": (1e-5, 1e-5), "complex64": (1e-5, 1e-5)}),
    OpInfo("triplet_margin_with_distance_loss",
           lambda lib, a, p, n, **k: lib.nn.functional.triplet_margin_with_distance_loss(a, p, n, **k),
           INTEGRAL + NO_HALF + COMPLEX,
           lambda d: [Sample([T((4, 3)), T((4, 3), seed=1), T((4, 3), seed=2)]),
                      *[Sample([T((4, 3)), T((4, 3), seed=1), T((4, 3), seed=2)], {"reduction": r, "swap": True,
                                                                                   "margin": 2.0}, name=r)
                        for r in _REDUCTIONS]],
           lambda: [ErrorSample([T((4, 3)), T((4, 3)), T((4, 3))], {"reduction": "x"}, ValueError,
                                "x is not a valid value for reduction")],
           tol=_F32_TOL),
    OpInfo("triplet_margin_with_distance_loss_callable",
           lambda lib, a, p, n, **k: lib.nn.functional.triplet_margin_with_distance_loss(
               a, p, n, distance_function=lambda x, y: (x - y).abs().sum(-1), **k),
           INTEGRAL + NO_HALF + COMPLEX,
           lambda d: [Sample([T((4, 3)), T((4, 3), seed=1), T((4, 3), seed=2)], {"swap": True})]),
]


def _mlm_target(shape):
    # Targets with -1 ends: row i lists classes then -1 (values in [-1, C-1]).
    return T(shape, -1, shape[-1] - 1, dtype="int64", seed=7)


ROWS += [
    OpInfo("multilabel_margin_loss", _F("multilabel_margin_loss"), NO_HALF,
           lambda d: [Sample([T((3, 4)), _mlm_target((3, 4))]),
                      *[Sample([T((3, 4)), _mlm_target((3, 4))], {"reduction": r}, name=r) for r in _REDUCTIONS],
                      Sample([T((4,)), _mlm_target((4,))], {"reduction": "none"}, name="unbatched"),
                      Sample([T((0, 4)), _mlm_target((0, 4))], {"reduction": "none"}, name="zero-batch"),
                      Sample([T((3, 4), noncontig=True), _mlm_target((3, 4))], name="noncontig")],
           lambda: [ErrorSample([T((3, 4)), T((3, 4), 4, 4, dtype="int64")], {}, RuntimeError,
                                "argument #2 'target' is out of range"),
                    ErrorSample([T((3, 4)), _mlm_target((3, 3))], {}, RuntimeError,
                                r"inconsistent size \[3, 3\] for argument #2 'target'")],
           tol=_F32_TOL),
    OpInfo("multi_margin_loss", _F("multi_margin_loss"), NO_HALF,
           lambda d: [Sample([T((5, 4)), _labels((5,), 4)]),
                      *[Sample([T((5, 4)), _labels((5,), 4)], {"reduction": r, "p": 2, "margin": 0.5,
                                                               "weight": Const(T((4,), 0, 2))}, name=r)
                        for r in _REDUCTIONS],
                      Sample([T((4,)), _labels((1,), 4)], {"reduction": "none"}, name="unbatched"),
                      Sample([T((4,)), _labels((), 4)], {"reduction": "none"}, name="unbatched-0d-target"),
                      Sample([T((0, 4)), _labels((0,), 4)], {"reduction": "none"}, name="zero-batch"),
                      Sample([T((5, 4), noncontig=True), _labels((5,), 4)], name="noncontig")],
           lambda: [ErrorSample([T((3, 4)), T((3,), 4, 4, dtype="int64")], {}, RuntimeError, "target out of range"),
                    ErrorSample([T((3, 4)), _labels((2,), 4)], {}, RuntimeError,
                                r"inconsistent target size, got: \[2\]"),
                    ErrorSample([T((3, 4)), _labels((3,), 4)], {"p": 3}, ValueError,
                                "only p == 1 and p == 2 supported"),
                    ErrorSample([T((3, 4)), _labels((3,), 4)], {"weight": T((2, 2))}, ValueError,
                                "weight must be one-dimensional")],
           tol=_F32_TOL),
]


# ---------------------------------------------------------------- ctc
def _ctc(lib, logits, targets, input_lengths, target_lengths, **kwargs):
    # log_softmax in the row: torch's gradient with respect to log_probs adds exp(log_probs)
    # (it assumes normalized inputs), which log_softmax's backward cancels; Ember's composite
    # gives the exact gradient. Through log_softmax both agree.
    if hasattr(logits, "log_softmax"):
        log_probs = logits.log_softmax(-1)
    elif logits.is_floating_point():  # until Ember's log_softmax lands
        log_probs = logits - logits.logsumexp(-1, True)
    else:
        raise RuntimeError("log_softmax of " + str(logits.dtype))
    return lib.nn.functional.ctc_loss(log_probs, targets, input_lengths, target_lengths, **kwargs)


def _ctc_samples(dtype):
    il = [7, 5, 6]
    tl = [3, 2, 0]
    out = []
    for red in _REDUCTIONS:
        out.append(Sample([T((7, 3, 5), -2, 2), _labels((3, 3), 4, low=1, seed=2), il, tl], {"reduction": red},
                          name=f"padded-{red}"))
    out += [
        Sample([T((7, 3, 5), -2, 2), _labels((5,), 4, low=1, seed=2), il, tl], {"reduction": "none"},
               name="concatenated"),
        Sample([T((7, 3, 5), -2, 2), _labels((3, 4), 4, low=1, seed=2), il, tl], {"blank": 0, "reduction": "sum"},
               name="padded-wider"),
        # repeated labels need a blank in between: 4 labels with repeats need more than 4 steps
        Sample([T((6, 2, 4), -2, 2), T((2, 3), 2, 2, dtype="int64"), [6, 4], [3, 2]],
               {"reduction": "none", "blank": 3}, name="repeats"),
        Sample([T((6, 2, 4), -2, 2), T((2, 3), 2, 2, dtype="int64"), [6, 4], [3, 3]],
               {"reduction": "none", "zero_infinity": True}, name="zero-infinity"),
        Sample([T((6, 5), -2, 2), _labels((3,), 4, low=1, seed=2), [6], [3]], {"reduction": "none"},
               name="unbatched"),
        Sample([T((7, 3, 5), -2, 2, noncontig=True), _labels((3, 3), 4, low=1, seed=2), il, tl], name="noncontig"),
    ]
    return out


def _ctc_tensor_lengths(lib, logits, targets, il, tl, **kwargs):
    return _ctc(lib, logits, targets, lib.tensor(il), lib.tensor(tl), **kwargs)


ROWS += [
    OpInfo("ctc_loss", _ctc, ("float32", "float64"), _ctc_samples,
           lambda: [ErrorSample([T((5, 2, 4)), _labels((2, 3), 4, low=1), [5, 5], [3]], {}, RuntimeError,
                                "target_lengths must be of size batch_size"),
                    ErrorSample([T((5, 2, 4)), _labels((2, 3), 4, low=1), [6, 5], [3, 3]], {}, RuntimeError,
                                "Expected input_lengths to have value at most 5, but got value 6"),
                    ErrorSample([T((5, 2, 4)), _labels((2, 3), 4, low=1), [5, 5], [3, 3]], {"blank": 4},
                                RuntimeError, "blank must be in label range"),
                    ErrorSample([T((5, 2, 4)), _labels((2, 2), 4, low=1), [5, 5], [3, 3]], {}, RuntimeError,
                                "Expected tensor to have size at least 3 at dimension 1")],
           tol={"float32": (1e-5, 1e-5)}),
    OpInfo("ctc_loss_tensor_lengths", _ctc_tensor_lengths, ("float32", "float64"),
           lambda d: [Sample([T((7, 3, 5), -2, 2), _labels((5,), 4, low=1, seed=2), [7, 5, 6], [3, 2, 0]]),
                      Sample([T((7, 3, 5), -2, 2), _labels((3, 3), 4, low=1, seed=2), [7, 5, 6], [3, 2, 0]],
                             {"reduction": "sum"})],
           tol={"float32": (1e-5, 1e-5)}),
]
