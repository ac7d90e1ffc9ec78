"""vmap (ember.func.vmap, ember.vmap) against a loop over the batch.

Driven by the op table: every row whose op is not random runs each of its samples (the large
ones excepted, which only exercise kernels) with every tensor argument batched, along dim 0
and along the last dim, and must equal the row's function applied to each sample in turn.
Then nested vmap, pytrees of inputs and outputs, randomness, chunking, and the errors.
"""
import dataclasses
import os
import re
import subprocess
import sys
import warnings

import numpy as np
import pytest

import ember
from ember.func import vmap
from op_table import ROWS
from op_testing import T, build, flatten_results

B = 3
RANDOM_ROW = re.compile(r"rand|normal|bernoulli|multinomial|dropout|rrelu|poisson|exponential|cauchy|geometric|"
                        r"log_normal|uniform|random")
# Rows whose result shape depends on the values (nonzero, unique, masked_select, ...): where the
# samples' results differ in shape they cannot be stacked, and vmap raises, as functorch does.
DATA_DEPENDENT = {"nonzero", "nonzero_tuple", "argwhere", "masked_select", "unique", "unique_dim",
                  "unique_consecutive", "bincount", "histc", "repeat_interleave_tensor", "repeat_interleave_index"}
_INPLACE_ERROR = (RuntimeError, r"is not possible because there exists a Tensor `other`")
_VALUES_ERROR = (RuntimeError, r"vmap: It looks like you're (calling \.item\(\)|attempting to use a Tensor)")
# Rows vmap must reject, with the error that says why:
EXPECTED_ERRORS = {
    # the row's function writes its result into a tensor it makes itself (out=, copy_, or a
    # composite filling new zeros): a batched value cannot be written into an unbatched tensor
    **{n: _INPLACE_ERROR for n in (
        "adaptive_avg_pool2d_channels_last", "convert_16bit_floats", "embedding_bag")},
    # the op checks values (targets, indices, output sizes) with item() or bool(), or the row's
    # reference reads the result through NumPy: data-dependent, as in functorch
    **{n: _VALUES_ERROR for n in (
        "max_unpool1d", "max_unpool2d", "max_unpool3d", "binary_cross_entropy", "binary_cross_entropy_clamped",
        "multilabel_margin_loss", "multi_margin_loss", "ctc_loss", "ctc_loss_tensor_lengths", "one_hot",
        "gaussian_nll_loss", "istft", "sort_default", "argsort_default", "topk", "topk_specials", "median_dim",
        "nanmedian_dim", "mode", "kthvalue",
        # linalg: matrix_exp picks its scaling from the norm, cholesky_inverse checks the
        # diagonal, lu_unpack builds the permutation from the pivots' values
        "matrix_exp", "linalg_matrix_exp", "cholesky_inverse", "cholesky_inverse_raw", "lu_unpack", "linalg_lu")},
    # results that are not tensors cannot be batched
    "allclose": (ValueError, "must only return Tensors"),
    "equal": (ValueError, "must only return Tensors"),
}


def _expected_error(row):
    if re.search(r"_out(_|$)", row.name):  # out= into a tensor made inside the row's function
        return _INPLACE_ERROR
    return EXPECTED_ERRORS.get(row.name)


def _pick_dtype(row):
    for d in ("float64", "float32", "int64", "bool", "complex128"):
        if d in row.dtypes:
            return d
    return row.dtypes[0]


def _variant(arg, k):
    if isinstance(arg, T):
        return dataclasses.replace(arg, seed=arg.seed + 17 * k)
    if isinstance(arg, (list, tuple)) and arg and all(isinstance(a, T) for a in arg):
        return [_variant(a, k) for a in arg]
    return arg


def _is_t(arg):
    return isinstance(arg, T) or (isinstance(arg, (list, tuple)) and arg and all(isinstance(a, T) for a in arg))


def _stack(parts, last):
    if isinstance(parts[0], list):
        return [_stack([p[i] for p in parts], last) for i in range(len(parts[0]))]
    d = parts[0].dim() if last else 0
    return ember.stack(parts, d)


def _in_dims(args, built, last):
    dims = []
    for a, b in zip(args, built):
        if not _is_t(a):
            dims.append(None)
        elif isinstance(b, list):
            dims.append([x.dim() if last else 0 for x in b])
        else:
            dims.append(b.dim() if last else 0)
    return tuple(dims)


def _cases():
    for row in ROWS:
        if RANDOM_ROW.search(row.name) or row.fn.__module__ == "op_rows_random" or not row.dtypes:
            continue  # random ops: test_randomness; rows without dtypes only list error inputs
        if not any(_is_t(a) for s in row.samples(_pick_dtype(row)) for a in s.args):
            continue  # factories (fftfreq, ...): no tensor input to map over
        yield pytest.param(row, id=row.name)


def _check_row(row, last):
    dtype = _pick_dtype(row)
    checked = 0
    for sample in row.samples(dtype):
        if sample.name == "large" or not any(_is_t(a) for a in sample.args):
            continue
        per_sample_args = [[build(ember, _variant(a, k), dtype) for a in sample.args] for k in range(B)]
        kwargs = {k: build(ember, v, dtype) for k, v in sample.kwargs.items()}
        try:
            expected = [row.fn(ember, *args, **kwargs) for args in per_sample_args]
        except Exception:  # noqa: BLE001 - the op rejects this sample: vmap must reject it too
            with pytest.raises(Exception):
                _run_vmap(row, sample, per_sample_args, kwargs, last)
            checked += 1
            continue
        expected_error = _expected_error(row)
        try:
            got = _run_vmap(row, sample, per_sample_args, kwargs, last)
        except Exception as e:  # noqa: BLE001
            if expected_error and isinstance(e, expected_error[0]) and re.search(expected_error[1], str(e)):
                checked += 1
                continue  # the documented error (samples that pass are compared below)
            if not isinstance(e, RuntimeError):
                raise
            if row.name in DATA_DEPENDENT and len({tuple(flatten_results(e)[0].shape) for e in expected}) > 1:
                continue  # the samples' results differ in shape: nothing to stack
            raise
        exp_flat = [flatten_results(e) for e in expected]
        got_flat = flatten_results(got)
        if row.fn.__qualname__.startswith("with_strides"):
            # layouts are not kept per sample: compare the values, not the strides
            exp_flat, got_flat = [e[:1] for e in exp_flat], got_flat[:1]
        assert len(got_flat) == len(exp_flat[0]), f"{row.name}[{sample.name}]: result structure"
        for j, g in enumerate(got_flat):
            if not isinstance(g, ember.Tensor):
                continue
            want = ember.stack([e[j] for e in exp_flat], 0)
            assert g.dtype == want.dtype, f"{row.name}[{sample.name}] result {j}: {g.dtype} vs {want.dtype}"
            assert tuple(g.shape) == tuple(want.shape), f"{row.name}[{sample.name}] result {j}: shape"
            np.testing.assert_allclose(_np(g), _np(want), rtol=1e-5, atol=1e-6, equal_nan=True,
                                       err_msg=f"{row.name}[{sample.name}] result {j}, in_dims last={last}")
        checked += 1
    return checked


def _np(t):
    if t.dtype in (ember.bfloat16, ember.float16):
        t = t.to(ember.float32)
    return t.numpy()


def _run_vmap(row, sample, per_sample_args, kwargs, last):
    stacked = []
    for i, a in enumerate(sample.args):
        if _is_t(a):
            stacked.append(_stack([args[i] for args in per_sample_args], last))
        else:
            stacked.append(a)
    dims = _in_dims(sample.args, per_sample_args[0], last)

    def f(*args):
        r = row.fn(ember, *args, **kwargs)
        return tuple(r) if isinstance(r, list) else r

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the loop fallback's performance warning
        return vmap(f, in_dims=dims)(*stacked)


@pytest.mark.parametrize("row", list(_cases()))
def test_vmap_matches_loop(row):
    assert _check_row(row, last=False) > 0, f"{row.name}: no sample was checked"
    _check_row(row, last=True)


# ---------------------------------------------------------------- semantics

def test_top_level_alias():
    assert ember.vmap is vmap


def test_nested_vmap():
    x = ember.randn(2, 3, 4, dtype=ember.float64)
    y = ember.randn(3, 4, dtype=ember.float64)
    out = vmap(vmap(lambda a, b: (a * b).sum() + a.max(), in_dims=(0, 0)), in_dims=(0, None))(x, y)
    want = ember.stack([ember.stack([(x[i, j] * y[j]).sum() + x[i, j].max() for j in range(3)]) for i in range(2)])
    np.testing.assert_allclose(out.numpy(), want.numpy())
    # an inner vmap over a different dim, and a matrix product between levels
    w = ember.randn(5, 4, dtype=ember.float64)
    out = vmap(lambda a: vmap(lambda r: w @ r, in_dims=1)(a), in_dims=0)(x.transpose(1, 2))
    want = ember.stack([ember.stack([w @ x[i, j] for j in range(3)]) for i in range(2)])
    np.testing.assert_allclose(out.numpy(), want.numpy(), rtol=1e-12)


def test_pytrees_and_out_dims():
    x = ember.randn(4, 3)
    y = ember.randn(3, 4)

    def f(d, pair):
        a, b = pair
        return {"sum": d["u"] + a, "prod": (a * b, b.sum())}

    out = vmap(f, in_dims=({"u": 0}, (0, 1)))({"u": x}, (x, y))
    np.testing.assert_allclose(out["sum"].numpy(), (x + x).numpy())
    np.testing.assert_allclose(out["prod"][0].numpy(), (x * y.t()).numpy(), rtol=1e-6)
    np.testing.assert_allclose(out["prod"][1].numpy(), y.sum(0).numpy(), rtol=1e-6)
    out = vmap(lambda a: (a.sum(0), a * 2), out_dims=(0, 1))(x)
    np.testing.assert_allclose(out[1].numpy(), (x * 2).t().numpy())
    # an unbatched output is expanded along out_dim
    out = vmap(lambda a: y, in_dims=0)(x)
    assert tuple(out.shape) == (4, 3, 4)


def test_none_out_dim_and_non_tensor_outputs():
    x = ember.randn(4, 3)
    out = vmap(lambda a: (a * 2, 5), out_dims=(0, None))(x)
    assert out[1] == 5
    with pytest.raises(ValueError, match="must only return Tensors"):
        vmap(lambda a: (a, 5))(x)
    with pytest.raises(ValueError, match="can not return a BatchedTensor when out_dim is None"):
        vmap(lambda a: a, out_dims=None)(x)


def test_chunk_size():
    x = ember.randn(10, 3)
    out = vmap(lambda a: a.softmax(0), chunk_size=3)(x)
    np.testing.assert_allclose(out.numpy(), x.softmax(1).numpy(), rtol=1e-6)
    with pytest.raises(ValueError, match="chunk_size should be None or greater than 0"):
        vmap(lambda a: a, chunk_size=0)


def test_randomness():
    x = ember.ones(4, 1000)
    with pytest.raises(RuntimeError, match="randomness error mode"):
        vmap(lambda a: ember.nn.functional.dropout(a, 0.5))(x)
    with pytest.raises(RuntimeError, match="randomness error mode"):
        vmap(lambda a: a + ember.rand(1000))(x)
    diff = vmap(lambda a: ember.nn.functional.dropout(a, 0.5), randomness="different")(x)
    assert not bool((diff[0] == diff[1]).all())
    same = vmap(lambda a: ember.nn.functional.dropout(a, 0.5), randomness="same")(x)
    for i in range(1, 4):
        assert bool((same[0] == same[i]).all())
    r = vmap(lambda a: a + ember.rand(1000), randomness="different")(ember.zeros(4, 1000))
    assert not bool((r[0] == r[1]).all())
    r = vmap(lambda a: a + ember.rand(1000), randomness="same")(ember.zeros(4, 1000))
    assert bool((r[0] == r[3]).all())
    with pytest.raises(RuntimeError, match="Only allowed values for randomness"):
        vmap(lambda a: a, randomness="sometimes")


def test_fallback_warns_once_naming_the_op():
    # in a fresh process: the warning is given once per op and process
    code = ("import warnings, ember\n"
            "x = ember.randn(3, 5, dtype=ember.float64)\n"
            "with warnings.catch_warnings(record=True) as rec:\n"
            "    warnings.simplefilter('always')\n"
            "    out = ember.vmap(lambda a: ember.histc(a, 4))(x)\n"
            "    ember.vmap(lambda a: ember.histc(a, 4))(x)\n"
            "want = ember.stack([ember.histc(x[i], 4) for i in range(3)])\n"
            "assert bool((out == want).all())\n"
            "print([str(w.message) for w in rec])\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=dict(os.environ))
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("batching rule for histc") == 1, r.stdout


# ---------------------------------------------------------------- errors

def test_errors_batch_sizes_and_in_dims():
    x, y = ember.randn(3, 2), ember.randn(4, 2)
    with pytest.raises(ValueError, match="Expected all tensors to have the same size in the mapped dimension"):
        vmap(lambda a, b: a + b)(x, y)
    with pytest.raises(ValueError, match="so expected in_dim to satisfy -2 <= in_dim < 2"):
        vmap(lambda a: a, in_dims=2)(x)
    with pytest.raises(ValueError, match="in_dims is not compatible with the structure of `inputs`"):
        vmap(lambda a, b: a, in_dims=(0,))(x, x)
    with pytest.raises(ValueError, match="in_dims is not compatible with the structure of `inputs`"):
        vmap(lambda p: p[0], in_dims=((0, 0, 0),))((x, x))
    with pytest.raises(ValueError, match="expected `in_dims` to be int or a"):
        vmap(lambda a: a, in_dims=[0])(x)
    with pytest.raises(ValueError, match="We cannot vmap over non-Tensor arguments"):
        vmap(lambda a, n: a * n, in_dims=(0, 0))(x, 3)
    with pytest.raises(ValueError, match="must be either an integer dimension or None"):
        vmap(lambda a: a, in_dims=(1.5,))(x)
    with pytest.raises(ValueError, match="got no inputs"):
        vmap(lambda: x)()
    with pytest.raises(ValueError, match="at least one Tensor to vmap over"):
        vmap(lambda a: a, in_dims=(None,))(x)


def test_errors_data_dependent_control_flow():
    x = ember.randn(3, 2)
    with pytest.raises(RuntimeError, match=r"vmap: It looks like you're calling \.item\(\)"):
        vmap(lambda a: a.sum().item())(x)
    with pytest.raises(RuntimeError, match="data-dependent control flow"):
        vmap(lambda a: a * 2 if a.sum() > 0 else a)(x)
    with pytest.raises(RuntimeError, match="data-dependent control flow"):
        vmap(lambda a: a.tolist())(x)


def test_errors_inplace_into_unbatched():
    x = ember.randn(3, 2)
    y = ember.zeros(2)
    before = y.clone()
    with pytest.raises(RuntimeError, match=r"vmap: add_\(self, \*extra_args\) is not possible"):
        vmap(lambda a: y.add_(a))(x)
    with pytest.raises(RuntimeError, match="Please try to use out-of-place operators instead of copy_"):
        vmap(lambda a: y.copy_(a))(x)
    assert bool((y == before).all())
    # in-place on the batched value itself is fine
    out = vmap(lambda a: a.clone().mul_(2).add_(y))(x)
    np.testing.assert_allclose(out.numpy(), (x * 2).numpy())


def test_batched_tensor_escaping_vmap_raises():
    kept = []
    ember.func.vmap(lambda a: kept.append(a) or a)(ember.ones(2, 3))
    with pytest.raises(RuntimeError, match="outside of the vmap that made it"):
        kept[0] + 1


def test_embedding_rule_matches_loop_without_the_fallback():
    F = ember.nn.functional
    w = ember.randn(7, 3, dtype=ember.float64)
    ws = ember.randn(4, 7, 3, dtype=ember.float64)
    idx = ember.tensor([[0, 6, 2], [1, 1, 5], [3, 0, 0], [6, 4, 2]])
    cases = [(lambda i: F.embedding(i, w), (idx,), 0),
             (lambda i: F.embedding(i, w, padding_idx=2), (idx,), 0),
             (lambda t, i: F.embedding(i, t), (ws, idx), (0, 0)),
             (lambda t: F.embedding(idx[1], t), (ws,), 0),
             (lambda t, i: F.embedding(i, t), (ws, idx.t()), (0, 1))]
    for fn, args, dims in cases:
        got = vmap(fn, in_dims=dims)(*args)
        d = dims if isinstance(dims, tuple) else (dims,) * len(args)
        want = ember.stack([fn(*[a.select(k, b) for a, k in zip(args, d)]) for b in range(4)])
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    # per-sample gradients of per-sample tables, against a loop of torch.autograd.grad
    import torch
    g = vmap(ember.func.grad(lambda t, i: (F.embedding(i, t) ** 2).sum()))(ws, idx)
    tw = torch.from_numpy(ws.numpy()).requires_grad_()
    want = torch.stack([torch.autograd.grad((torch.nn.functional.embedding(torch.from_numpy(idx.numpy()[b]), tw[b]) ** 2)
                                            .sum(), tw)[0][b] for b in range(4)])
    np.testing.assert_allclose(g.numpy(), want.numpy(), rtol=1e-12)
    # an index outside a table reaches the loop, which raises embedding's own error
    bad = ember.tensor([[0, 7, 2], [1, 1, 5], [3, 0, 0], [6, 4, 2]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        with pytest.raises(IndexError):
            vmap(lambda t, i: F.embedding(i, t))(ws, bad)
    # a rule serves both kinds of table: no per-sample loop warning (in a fresh process, since
    # the warning is given once per op and process)
    code = ("import warnings, ember\n"
            "F = ember.nn.functional\n"
            "w, ws = ember.randn(7, 3), ember.randn(4, 7, 3)\n"
            "idx = ember.tensor([[0, 6, 2], [1, 1, 5], [3, 0, 0], [6, 4, 2]])\n"
            "with warnings.catch_warnings(record=True) as rec:\n"
            "    warnings.simplefilter('always')\n"
            "    ember.vmap(lambda i: F.embedding(i, w))(idx)\n"
            "    ember.vmap(lambda t, i: F.embedding(i, t))(ws, idx)\n"
            "print([str(w.message) for w in rec])\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=dict(os.environ))
    assert r.returncode == 0, r.stderr
    assert "batching rule" not in r.stdout, r.stdout
