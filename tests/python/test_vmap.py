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
# functorch's errors for results whose shape depends on the values (nonzero, unique, a batched
# mask in masked_select; bincount and repeat_interleave when the samples' lengths differ)
_DYNAMIC_ERROR = (RuntimeError, r"vmap: (We do not support batching operators that can output dynamic shape|"
                                r"Attempted to vmap over `mask` in torch\.masked_select)")
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
    # the result's shape depends on the values: functorch raises rather than loop
    **{n: _DYNAMIC_ERROR for n in DATA_DEPENDENT | {"where_condition", "nonzero_as_tuple", "unique_method"}},
    # results that are not tensors cannot be batched
    "allclose": (ValueError, "must only return Tensors"),
    "equal": (ValueError, "must only return Tensors"),
}


# Rows whose every sample is served by batch rules: reductions, normalization, convolution,
# pooling, upsampling, linalg, indexing, products (scripts/vmap_coverage.py --rows lists the
# ops that still loop, and for which rows).
RULE_ROWS = {
    "sum", "mean", "max", "min", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
    "conv_transpose3d", "conv2d_channels_last", "conv2d_channels_last_weight", "conv3d_channels_last",
    "convolution", "max_pool1d", "max_pool1d_with_indices", "avg_pool1d", "adaptive_avg_pool1d",
    "adaptive_max_pool1d", "max_unpool1d", "max_pool2d", "max_pool2d_with_indices", "avg_pool2d",
    "adaptive_avg_pool2d", "adaptive_max_pool2d", "max_unpool2d", "max_pool3d", "max_pool3d_with_indices",
    "avg_pool3d", "adaptive_avg_pool3d", "adaptive_max_pool3d", "max_unpool3d", "max_pool2d_channels_last",
    "avg_pool2d_channels_last", "adaptive_avg_pool2d_channels_last", "max_pool2d_large", "lp_pool1d",
    "lp_pool2d", "pad_circular", "pad_constant", "gather_out", "take_along_dim_out", "index_select_out",
    "index_add_out", "index_copy_out", "masked_fill_inplace", "index_put_accumulate", "linalg_cholesky",
    "linalg_cholesky_ex", "linalg_cholesky_out", "linalg_inv", "linalg_inv_ex", "linalg_inv_out", "inverse",
    "inverse_method", "linalg_det", "linalg_det_raw", "linalg_det_out", "det", "det_method", "linalg_slogdet",
    "linalg_slogdet_raw", "linalg_slogdet_out", "slogdet", "logdet", "logdet_sign", "linalg_eigh",
    "linalg_eigh_upper_view", "linalg_eigvalsh", "linalg_eig", "linalg_eigvals", "linalg_svd",
    "linalg_svd_reduced", "linalg_svdvals", "linalg_qr", "linalg_qr_complete", "linalg_qr_complete_tall",
    "linalg_qr_r", "linalg_matrix_rank", "linalg_matrix_rank_hermitian", "linalg_matrix_rank_deficient",
    "linalg_vector_norm", "linalg_vector_norm_dtype", "linalg_matrix_norm", "linalg_matrix_norm_svd",
    "linalg_norm", "linalg_norm_svd", "linalg_cond", "gaussian_nll_loss", "binary_cross_entropy",
    "binary_cross_entropy_with_logits", "binary_cross_entropy_clamped", "hinge_embedding_loss",
    "hinge_embedding_loss_int", "cosine_embedding_loss", "softmax", "log_softmax", "F.softmax", "F.log_softmax",
    "layer_norm", "batch_norm", "batch_norm_train", "group_norm", "F.instance_norm", "F.local_response_norm",
    "embedding", "_softmax_backward_data", "_log_softmax_backward_data", "embedding_bag",
    "embedding_bag_offsets", "convert_16bit_floats", "addmv", "baddbmm", "addbmm", "vdot", "prod", "all", "any",
    "amax", "amin", "norm_p2", "norm_p1", "norm_p0", "norm_p3", "norm_p0.5", "norm_pinf", "norm_p-inf", "norm",
    "norm_dtype", "norm_out", "norm_nan", "logsumexp", "logsumexp_special", "logsumexp_out", "cumsum",
    "cumsum_dtype", "cumsum_out", "logcumsumexp", "logcumsumexp_out", "upsample_nearest1d",
    "upsample_nearest2d", "upsample_nearest3d", "_upsample_nearest_exact1d", "_upsample_nearest_exact2d",
    "_upsample_nearest_exact3d", "upsample_linear1d", "upsample_bilinear2d", "upsample_bicubic2d",
    "upsample_trilinear3d", "interpolate_nearest_channels_last", "interpolate_nearest_exact_channels_last",
    "interpolate_bilinear_channels_last", "interpolate_bicubic_channels_last",
    "interpolate_nearest3d_channels_last", "interpolate_trilinear_channels_last", "interpolate_area_1d",
    "interpolate_area_2d", "interpolate_area_3d", "interpolate_area_channels_last",
    "upsample_nearest1d_backward", "upsample_nearest2d_backward", "upsample_nearest3d_backward",
    "_upsample_nearest_exact1d_backward", "_upsample_nearest_exact2d_backward",
    "_upsample_nearest_exact3d_backward", "upsample_linear1d_backward", "upsample_bilinear2d_backward",
    "upsample_bicubic2d_backward", "upsample_trilinear3d_backward", "repeat", "tril", "triu", "tril_inplace",
    "triu_inplace", "tril_out", "triu_out", "masked_fill", "masked_fill_tensor", "index_add",
    "index_add_inplace", "index_copy", "index_copy_inplace", "index_fill", "index_fill_tensor",
    "index_fill_inplace", "argmax", "argmin",
}

# Rows served by the rules of batch_rules_{stats,linalg,gather,spatial,dynamic,products}.cpp (the
# dynamic-shape rows raise functorch's error instead of looping).
RULE_ROWS |= {
    "_fft_c2c", "_fft_c2r", "_fft_r2c", "_upsample_bicubic2d_aa", "_upsample_bicubic2d_aa_backward",
    "_upsample_bicubic2d_aa_backward_channels_last", "_upsample_bilinear2d_aa",
    "_upsample_bilinear2d_aa_backward", "_upsample_bilinear2d_aa_backward_channels_last", "addbmm_inplace",
    "addbmm_out", "addmm_inplace", "addmm_out", "addmv_inplace", "addmv_out", "aminmax", "argwhere",
    "baddbmm_inplace", "baddbmm_out", "bincount", "bucketize", "cat", "cholesky_solve", "col2im",
    "count_nonzero", "cross", "cross_entropy_loss", "ctc_loss", "ctc_loss_tensor_lengths", "cumprod_",
    "cumsum_", "embedding_padding_scale", "fft_fft", "fft_fft2", "fft_fft2_out", "fft_fft_out", "fft_fftn",
    "fft_fftn_out", "fft_hfft", "fft_hfft2", "fft_hfft2_out", "fft_hfft_out", "fft_hfftn", "fft_hfftn_out",
    "fft_ifft", "fft_ifft2", "fft_ifft2_out", "fft_ifft_out", "fft_ifftn", "fft_ifftn_out", "fft_ihfft",
    "fft_ihfft2", "fft_ihfft2_out", "fft_ihfft_out", "fft_ihfftn", "fft_ihfftn_out", "fft_irfft", "fft_irfft2",
    "fft_irfft2_out", "fft_irfft_out", "fft_irfftn", "fft_irfftn_out", "fft_rfft", "fft_rfft2", "fft_rfft2_out",
    "fft_rfft_out", "fft_rfftn", "fft_rfftn_out", "gather", "grid_sample_channels_last", "grid_sampler",
    "grid_sampler_2d", "grid_sampler_2d_backward", "grid_sampler_2d_bicubic", "grid_sampler_2d_nearest",
    "grid_sampler_3d", "grid_sampler_3d_backward", "grid_sampler_3d_nearest", "histc", "histc_const",
    "histogram", "histogram_edges", "im2col", "index_select", "interpolate_bicubic_antialias_channels_last",
    "interpolate_bilinear_antialias_channels_last", "istft", "linalg_householder_product", "linalg_ldl_factor",
    "linalg_ldl_factor_ex", "linalg_ldl_solve", "linalg_lstsq", "linalg_lstsq_gels", "linalg_lstsq_gelsd",
    "linalg_lstsq_gelss", "linalg_lstsq_gelsy", "linalg_lu_solve", "linalg_pinv", "linalg_pinv_hermitian",
    "linalg_solve", "linalg_solve_ex", "linalg_solve_out", "linalg_solve_triangular", "lu_solve",
    "masked_scatter", "masked_scatter_inplace", "median", "mse_loss", "msort", "nanmedian", "nanquantile",
    "nanquantile_nan", "nll_loss", "nonzero_as_tuple", "pinverse", "put", "put_inplace", "quantile",
    "quantile_nan", "repeat_interleave", "repeat_interleave_index", "roll", "scatter", "scatter_add",
    "scatter_add_inplace", "scatter_inplace", "scatter_reduce", "scatter_reduce_add", "scatter_reduce_amax",
    "scatter_reduce_amin", "scatter_reduce_mean", "scatter_reduce_multiply", "scatter_reduce_prod",
    "scatter_reduce_sum", "scatter_value", "scatter_value_inplace", "scatter_value_reduce", "searchsorted",
    "searchsorted_mixed", "searchsorted_sorter", "std", "std_mean", "std_mean_unbiased", "std_unbiased", "stft",
    "take", "take_along_dim", "triangular_solve", "unique", "unique_consecutive", "unique_dim", "unique_method",
    "var", "var_mean", "var_mean_unbiased", "var_nan", "var_offset", "var_unbiased", "where_condition",
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
    before = ember._C._vmap_fallback_counts()
    assert _check_row(row, last=False) > 0, f"{row.name}: no sample was checked"
    _check_row(row, last=True)
    if row.name in RULE_ROWS:  # every sample through batch rules: the per-sample loop never ran
        after = ember._C._vmap_fallback_counts()
        looped = sorted(op for op, n in after.items() if n > before.get(op, 0))
        assert not looped, f"{row.name}: the per-sample loop ran {looped}"


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
    # (a fused optimizer step has no rule: each sample's parameters are updated through a view)
    code = ("import warnings, ember\n"
            "p, g = ember.randn(3, 5, dtype=ember.float64), ember.randn(3, 5, dtype=ember.float64)\n"
            "want = [p.clone(), p.clone()]\n"
            "for b in range(3):\n"
            "    ember._C._fused_sgd_([want[0][b]], [g[b]], [], lr=0.1)\n"
            "    ember._C._fused_sgd_([want[1][b]], [g[b]], [], lr=0.1)\n"
            "    ember._C._fused_sgd_([want[1][b]], [g[b]], [], lr=0.1)\n"
            "step = lambda a, b: (ember._C._fused_sgd_([a], [b], [], lr=0.1), a)[1]\n"
            "with warnings.catch_warnings(record=True) as rec:\n"
            "    warnings.simplefilter('always')\n"
            "    out = ember.vmap(step)(p, g)\n"
            "    assert bool((out == want[0]).all()) and bool((p == want[0]).all())\n"
            "    ember.vmap(step)(p, g)\n"
            "assert bool((p == want[1]).all())\n"
            "print([str(w.message) for w in rec])\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=dict(os.environ))
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("batching rule for _fused_sgd_") == 1, r.stdout


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
    # a rule serves both kinds of table: the per-sample loop does not run
    w = ember.randn(7, 3)
    before = ember._C._vmap_fallback_counts()
    vmap(lambda i: F.embedding(i, w))(idx)
    vmap(lambda t, i: F.embedding(i, t))(ws, idx)
    assert ember._C._vmap_fallback_counts() == before


# ---------------------------------------------------------------- batch rules against a loop
# Each case: a function of (lib, F, *tensors) written once for both libraries, its inputs (numpy,
# float64 unless integral), the in_dims, the ops whose rule it exercises (none of them may reach
# the per-sample loop), and which inputs to differentiate (None: not differentiable). Ember's
# vmap, vmap(grad) and vmap(jacrev) must equal a loop of PyTorch over the samples (functorch's
# grad and jacrev per sample; functorch 1.13's own vmap of index_put_ with a batched index fails).

def _bn_train(lib, F, x, rm, rv, w, b):
    return F.batch_norm(x, rm, rv, w, b, training=True, momentum=0.3)


def _bn_train_stats_out(lib, F, x, rm, rv):
    y = F.batch_norm(x, rm, rv, training=True, momentum=0.3)
    return y, rm * 1, rv * 1  # the per-sample running statistics after the update


def _bn_eval(lib, F, x, w):
    c = x.shape[1]
    rm = lib.linspace(-0.5, 0.5, c, dtype=x.dtype)
    rv = lib.linspace(0.5, 2.0, c, dtype=x.dtype)
    return F.batch_norm(x, rm, rv, w, None, training=False)


def _bn_no_stats(lib, F, x, w, b):
    return F.batch_norm(x, None, None, w, b, training=True)


def _instance_norm(lib, F, x, rm, rv, w):
    y = F.instance_norm(x, rm, rv, w, None, use_input_stats=True, momentum=0.2)
    return y, rm * 1


def _group_norm(lib, F, x, w, b):
    return F.group_norm(x, 2, w, b)


def _layer_norm(lib, F, x, w, b):
    return F.layer_norm(x, (x.shape[-1],), w, b)


def _index_first(lib, F, x, i):
    return x[i]


def _index_second(lib, F, x, i):
    return x[:, i]


def _index_two(lib, F, x, i, j):
    return x[i, :, j]  # separated indices: their dims go first


def _index_put(lib, F, x, i, v):
    y = x.clone()
    y[:, i] = v
    return y


def _index_put_acc(lib, F, x, i, v):
    return x.clone().index_put_((i,), v, accumulate=True)


def _index_select(lib, F, x, i):
    return x.index_select(1, i)


def _gather(lib, F, x, i):
    return x.gather(1, i)


def _scatter_add(lib, F, x, i, s):
    return x.scatter_add(1, i, s)


def _take_along_dim(lib, F, x, i):
    return lib.take_along_dim(x, i, 1)


def _masked_fill(lib, F, x, m):
    return x.masked_fill(m, -1.5)


def _index_add(lib, F, x, i, s):
    return x.index_add(0, i, s, alpha=2.0)


def _conv2d(lib, F, x, w, b):
    return F.conv2d(x, w, b, padding=1)


def _conv_transpose1d(lib, F, x, w, b):
    return F.conv_transpose1d(x, w, b, stride=2, groups=2)


def _solve(lib, F, a, b):
    return lib.linalg.solve(a + 4 * lib.eye(3, dtype=a.dtype), b)


def _argmax(lib, F, x):
    return x.argmax(), x.argmin(keepdim=True)


def _std_var(lib, F, x):
    return (x.std(), x.var(unbiased=False), *lib.std_mean(x), *lib.var_mean(x, unbiased=False),
            x.std(dim=[0, 1], keepdim=True), lib.var(x, 1, correction=0))


def _std_var_scalar(lib, F, x):
    return x.std(unbiased=False), x.var(unbiased=False), *lib.std_mean(x, unbiased=False)


def _solve_eye(lib, a):
    return a + 4 * lib.eye(a.shape[-1], dtype=a.dtype)


def _solve_vec(lib, F, a, b):
    return lib.linalg.solve(_solve_eye(lib, a), b)


def _solve_left_false(lib, F, a, b):
    return lib.linalg.solve(_solve_eye(lib, a), b, left=False)


def _lu_solve(lib, F, a, b):
    lu, piv = lib.linalg.lu_factor(_solve_eye(lib, a))
    return lib.linalg.lu_solve(lu, piv, b)


def _ldl_solve(lib, F, a, b):
    ld, piv = lib.linalg.ldl_factor(_solve_eye(lib, a + a.mT))
    return lib.linalg.ldl_solve(ld, piv, b)


def _lstsq(lib, F, a, b):
    return lib.linalg.lstsq(a, b, driver="gelsd")[0]


def _solve_triangular(lib, F, a, b):
    return lib.linalg.solve_triangular(_solve_eye(lib, a).triu(), b, upper=True)


def _pinv_atol(lib, F, a, t):
    return lib.linalg.pinv(a, atol=t.abs(), hermitian=False)


def _gather_scalar(lib, F, x, s):
    i = lib.zeros((), dtype=lib.int64)
    return x.gather(0, i) * 2, x.scatter(0, i, s), x.scatter_add(0, i, s)


def _take(lib, F, x, i):
    return lib.take(x, i)


def _take_along_flat(lib, F, x, i):
    return lib.take_along_dim(x, i)


def _put(lib, F, x, i, s):
    return x.put(i, s), x.put(i, s, accumulate=True)


def _cat_legacy_empty(lib, F, x):
    return lib.cat([x, lib.empty(0, dtype=x.dtype), x * 2], 1)


def _embedding_padding(lib, F, i, w):
    return F.embedding(i, w, padding_idx=2)


def _nll_4d(lib, F, x, t):
    return F.nll_loss(F.log_softmax(x, 1), t, ignore_index=1), F.nll_loss(F.log_softmax(x, 1), t, reduction="none")


def _cross_entropy_smooth(lib, F, x, t, w):
    return (F.cross_entropy(x, t, weight=w, label_smoothing=0.2, ignore_index=0),
            F.cross_entropy(x, t, label_smoothing=0.3, reduction="sum"),
            F.cross_entropy(x, t, weight=w, label_smoothing=0.1, reduction="none"))


def _nll_batched_weight(lib, F, x, t, w):
    lp = F.log_softmax(x, 1)
    return (F.nll_loss(lp, t, weight=w, ignore_index=1), F.nll_loss(lp, t, weight=w, reduction="sum"),
            F.nll_loss(lp, t, weight=w, reduction="none"), F.cross_entropy(x, t, weight=w, label_smoothing=0.1))


def _cross_entropy_probs(lib, F, x, p):
    return F.cross_entropy(x, p.softmax(1), label_smoothing=0.1), F.cross_entropy(x, p.softmax(1), reduction="none")


def _index_select_scalar(lib, F, x):
    return x.index_select(0, lib.zeros(1, dtype=lib.int64)) * 3


def _masked_scatter(lib, F, x, m, s):
    return x.masked_scatter(m, s)


def _fft(lib, F, x):
    return lib.fft.rfft(x).abs(), lib.fft.ifft2(x).real, lib.fft.irfftn(lib.fft.rfftn(x), s=x.shape[-2:])


def _grid_sample(lib, F, x, g):
    return F.grid_sample(x, g.tanh(), mode="bilinear", padding_mode="border", align_corners=False)


def _grid_sample_3d(lib, F, x, g):
    return F.grid_sample(x, g.tanh(), mode="bilinear", align_corners=True)


def _unfold_fold(lib, F, x):
    return F.fold(F.unfold(x, 2, padding=1), x.shape[-2:], 2, padding=1)


def _interpolate_aa(lib, F, x):
    return (F.interpolate(x, size=(3, 2), mode="bilinear", antialias=True),
            F.interpolate(x, size=(2, 4), mode="bicubic", antialias=True, align_corners=True))


def _search(lib, F, s, v):
    s = s.sort(-1)[0]
    return lib.searchsorted(s, v), lib.searchsorted(s, v, right=True, out_int32=True)


def _bucketize(lib, F, v, s):
    return lib.bucketize(v, s.sort()[0], right=True), lib.bucketize(0.25, s.sort()[0])


def _median_quantile(lib, F, x, q):
    return (x.median(), x.nanmedian(), lib.quantile(x, q), lib.quantile(x, q, dim=1, keepdim=True),
            lib.nanquantile(x, 0.3, dim=0))


def _addmm_inplace(lib, F, x, a, b):
    y = x * 1
    return y.addmm_(a, b, beta=0.5)


def _addmm_out(lib, F, x, a, b):
    z = x * 1
    lib.addmm(x, a, b, alpha=2.0, out=z)
    return z


def _baddbmm_inplace(lib, F, x, a, b):
    y = x * 1
    return y.baddbmm_(a, b, alpha=0.5)


def _masked_select(lib, F, x, m):
    return lib.masked_select(x, m)


def _histc(lib, F, x):
    return lib.histc(x, bins=5), lib.histc(x, bins=4, min=-1, max=1), lib.histc(x * 0 + 2, bins=3)


def _histogram(lib, F, x, w, e):
    e = e.sort()[0]
    return (*lib.histogram(x, 4), *lib.histogram(x, 3, range=(-1.0, 1.0), weight=w.abs(), density=True),
            *lib.histogram(x, e, weight=w))


def _out_forms(lib, F, x, o1, o2, v, i):
    lib.cumsum(x, 1, out=o1)
    lib.tril(x, out=o2)
    lib.sort(x, 1, out=(v, i))
    return o1, o2, v, i


def _bincount(lib, F, i, w):
    return lib.bincount(i, w, minlength=7)


def _idx(*shape, high):
    return np.random.default_rng(sum(shape) + high).integers(0, high, shape)


def _rand(*shape, positive=False):
    a = np.random.default_rng(7 * sum(shape) + len(shape)).standard_normal(shape)
    return np.abs(a) + 0.5 if positive else a


BR = 3
RULE_CASES = {
    "batch_norm_train_batched_stats": (_bn_train, [_rand(BR, 4, 3, 5), _rand(BR, 3), _rand(BR, 3, positive=True),
                                                   _rand(3), _rand(3)], (0, 0, 0, None, None),
                                       ["native_batch_norm", "native_batch_norm_backward"], (0, 3)),
    "batch_norm_train_batched_weight": (_bn_train, [_rand(BR, 4, 3), _rand(BR, 3), _rand(BR, 3, positive=True),
                                                    _rand(BR, 3), _rand(BR, 3)], 0,
                                        ["native_batch_norm", "native_batch_norm_backward"], (0, 3, 4)),
    "batch_norm_running_stats_update": (_bn_train_stats_out, [_rand(BR, 5, 2, 3), _rand(BR, 2),
                                                              _rand(BR, 2, positive=True)], 0,
                                        ["native_batch_norm"], None),
    "batch_norm_eval": (_bn_eval, [_rand(BR, 4, 3, 2), _rand(BR, 3)], 0,
                        ["native_batch_norm", "native_batch_norm_backward"], (0, 1)),
    "batch_norm_eval_unbatched_input": (_bn_eval, [_rand(4, 3, 2), _rand(BR, 3)], (None, 0),
                                        ["native_batch_norm", "native_batch_norm_backward"], (0, 1)),
    "batch_norm_no_stats": (_bn_no_stats, [_rand(4, 3, 2, BR), _rand(3), _rand(BR, 3)], (3, None, 0),
                            ["native_batch_norm", "native_batch_norm_backward"], (0, 1, 2)),
    "instance_norm_batched_stats": (_instance_norm, [_rand(BR, 2, 3, 4), _rand(BR, 3), _rand(BR, 3, positive=True),
                                                     _rand(3)], (0, 0, 0, None), ["native_batch_norm"], None),
    "group_norm_batched_weight": (_group_norm, [_rand(BR, 2, 4, 3), _rand(BR, 4), _rand(4)], (0, 0, None),
                                  ["native_layer_norm", "native_layer_norm_backward"], (0, 1, 2)),
    "layer_norm_batched_affine": (_layer_norm, [_rand(BR, 2, 5), _rand(BR, 5), _rand(BR, 5)], 0,
                                  ["native_layer_norm", "native_layer_norm_backward"], (0, 1, 2)),
    "layer_norm_unbatched_affine": (_layer_norm, [_rand(2, BR, 5), _rand(5), _rand(5)], (1, None, None),
                                    ["native_layer_norm", "native_layer_norm_backward"], (0, 1, 2)),
    "index_batched_index": (_index_first, [_rand(BR, 4, 5), _idx(BR, 2, 3, high=4)], 0, ["index.Tensor"], (0,)),
    "index_unbatched_self": (_index_second, [_rand(4, 5), _idx(BR, 3, high=5)], (None, 0), ["index.Tensor"], (0,)),
    "index_batched_self_second_dim": (_index_second, [_rand(BR, 4, 5), _idx(3, BR, high=5)], (0, 1),
                                      ["index.Tensor"], (0,)),
    "index_separated": (_index_two, [_rand(BR, 4, 2, 5), _idx(BR, 3, high=4), _idx(3, high=5)], (0, 0, None),
                        ["index.Tensor"], (0,)),
    "index_put_batched_index": (_index_put, [_rand(BR, 4, 5), _idx(BR, 2, high=5), _rand(BR, 4, 1)], 0,
                                ["index_put_"], (0, 2)),
    "index_put_accumulate": (_index_put_acc, [_rand(BR, 6), _idx(BR, 8, high=6), _rand(8)], (0, 0, None),
                             ["index_put_"], (0, 2)),
    "index_select_batched_index": (_index_select, [_rand(BR, 4, 5), _idx(BR, 7, high=5)], 0,
                                   ["index_select"], (0,)),
    "index_select_unbatched_self": (_index_select, [_rand(4, 5), _idx(BR, 2, high=5)], (None, 0),
                                    ["index_select"], (0,)),
    "gather_batched_index": (_gather, [_rand(4, 5), _idx(BR, 4, 2, high=5)], (None, 0), ["gather"], (0,)),
    "scatter_add_batched_index": (_scatter_add, [_rand(BR, 4, 5), _idx(BR, 4, 2, high=5), _rand(4, 2)],
                                  (0, 0, None), ["scatter_add"], (0, 2)),
    "take_along_dim_batched_index": (_take_along_dim, [_rand(BR, 4, 5), _idx(BR, 4, 3, high=5)], 0,
                                     ["take_along_dim"], (0,)),
    "index_add_batched_index": (_index_add, [_rand(BR, 4, 5), _idx(BR, 3, high=4), _rand(BR, 3, 5)], 0,
                                ["index_add"], (0, 2)),
    "conv2d_batched_weight": (_conv2d, [_rand(BR, 2, 3, 5, 4), _rand(BR, 4, 3, 3, 3), _rand(BR, 4)], 0,
                              ["convolution"], (0, 1, 2)),
    "conv2d_unbatched_input": (_conv2d, [_rand(3, 5, 4), _rand(4, 3, 3, 3, BR), _rand(4)], (None, 4, None),
                               ["convolution"], (0, 1)),
    "conv_transpose1d_batched_weight": (_conv_transpose1d, [_rand(BR, 2, 4, 6), _rand(BR, 4, 3, 3), _rand(6)],
                                        (0, 0, None), ["convolution"], (0, 1, 2)),
    "linalg_solve_batched_rhs": (_solve, [_rand(3, 3), _rand(BR, 3, 2)], (None, 0), ["linalg_solve_ex"], (0, 1)),
    "argmax_argmin_flattened": (_argmax, [_rand(BR, 3, 4)], 0, ["argmax", "argmin"], None),
    "masked_fill_batched_mask": (_masked_fill, [_rand(4, 5), _rand(BR, 4, 5) > 0], (None, 0), [], (0,)),
    "std_var_whole_sample": (_std_var, [_rand(BR, 4, 5)], 0,
                             ["std", "var", "std_mean", "var_mean", "std.dim", "var.correction"], (0,)),
    "std_var_scalar_samples": (_std_var_scalar, [_rand(BR)], 0, ["std", "var", "std_mean"], (0,)),
    "linalg_solve_vector_rhs_broadcast": (_solve_vec, [_rand(BR, 2, 3, 3), _rand(3)], (0, None),
                                          ["linalg_solve_ex"], (0, 1)),
    "linalg_solve_lower_rank_rhs": (_solve_vec, [_rand(2, 3, 3), _rand(BR, 3, 2)], (None, 0),
                                    ["linalg_solve_ex"], (0, 1)),
    "linalg_solve_left_false": (_solve_left_false, [_rand(BR, 3, 3), _rand(4, 3)], (0, None),
                                ["linalg_solve_ex"], (0, 1)),
    # (the gradient through lu_factor needs lu_unpack, data-dependent under vmap: b's only)
    "linalg_lu_solve_broadcast": (_lu_solve, [_rand(BR, 3, 3), _rand(2, 3, 1)], (0, None),
                                  ["linalg_lu_solve", "linalg_lu_factor_ex"], (1,)),
    "linalg_ldl_solve_batched_rhs": (_ldl_solve, [_rand(3, 3), _rand(BR, 2, 3, 2)], (None, 0),
                                     ["linalg_ldl_solve", "linalg_ldl_factor_ex"], None),
    "linalg_lstsq_vector_rhs": (_lstsq, [_rand(BR, 5, 3), _rand(BR, 5)], 0, ["_linalg_lstsq"], None),
    "linalg_lstsq_broadcast": (_lstsq, [_rand(2, 5, 3), _rand(BR, 1, 5, 2)], (None, 0), ["_linalg_lstsq"], None),
    "linalg_solve_triangular_broadcast": (_solve_triangular, [_rand(3, 3), _rand(BR, 2, 3, 4)], (None, 0),
                                          ["linalg_solve_triangular"], (0, 1)),
    "linalg_pinv_batched_atol": (_pinv_atol, [_rand(BR, 2, 4, 3), _rand(BR)], 0,
                                 ["linalg_pinv.atol_rtol_tensor"], None),
    "gather_scatter_scalar_samples": (_gather_scalar, [_rand(BR), _rand(BR)], 0,
                                      ["gather", "scatter.src", "scatter_add"], (0, 1)),
    "take_batched_flat_index": (_take, [_rand(BR, 3, 4), np.array([[[0, -1], [11, -12]], [[5, 6], [-3, 2]],
                                                                   [[1, 1], [7, -7]]])], 0,
                                ["take"], None),  # (torch's per-sample gradient of take writes an unbatched tensor)
    "take_along_dim_flattened": (_take_along_flat, [_rand(BR, 3, 4), _idx(BR, 2, 3, high=12)], 0,
                                 ["take_along_dim"], (0,)),
    "put_batched_flat_index": (_put, [_rand(BR, 3, 4), np.array([[0, -1, 5], [2, 11, -12], [4, 3, 7]]),
                                      _rand(BR, 3)], 0, ["put"], (0, 2)),
    "cat_legacy_empty": (_cat_legacy_empty, [_rand(BR, 2, 3)], 0, ["cat"], (0,)),
    "embedding_padding_batched_weight": (_embedding_padding, [np.array([[0, 2, 1, 2], [2, 3, 3, 1], [5, 2, 0, 0]]),
                                                              _rand(BR, 6, 3)], 0, ["embedding"], (1,)),
    "nll_loss_4d": (_nll_4d, [_rand(BR, 2, 4, 3, 2), _idx(BR, 2, 3, 2, high=4)], 0, ["nll_loss"], (0,)),
    "cross_entropy_label_smoothing": (_cross_entropy_smooth, [_rand(BR, 5, 4), _idx(BR, 5, high=4),
                                                              _rand(4, positive=True)], (0, 0, None),
                                      ["cross_entropy_loss", "nll_loss", "take"], (0,)),
    "nll_loss_batched_weight": (_nll_batched_weight, [_rand(BR, 5, 4, 2), _idx(BR, 5, 2, high=4),
                                                      _rand(BR, 4, positive=True)], 0,
                                ["nll_loss", "cross_entropy_loss"], (0,)),  # (torch: no gradient for weight)
    "cross_entropy_probabilities": (_cross_entropy_probs, [_rand(BR, 3, 4, 2), _rand(BR, 3, 4, 2)], 0,
                                    ["cross_entropy_loss"], (0, 1)),
    "index_select_scalar_samples": (_index_select_scalar, [_rand(BR)], 0, ["index_select"], (0,)),
    "masked_scatter_batched_mask": (_masked_scatter, [_rand(3, 4), _rand(BR, 3, 4) > 0, _rand(BR, 12)],
                                    (None, 0, 0), ["masked_scatter"], (0, 2)),
    "fft_primitives": (_fft, [_rand(BR, 4, 6)], 0, ["_fft_r2c", "_fft_c2c", "_fft_c2r"], (0,)),
    "grid_sample_both_batched": (_grid_sample, [_rand(BR, 2, 3, 5, 4), _rand(BR, 2, 4, 3, 2)], 0,
                                 ["grid_sampler_2d", "grid_sampler_2d_backward"], (0, 1)),
    "grid_sample_unbatched_grid": (_grid_sample, [_rand(2, 3, 5, 4, BR), _rand(2, 4, 3, 2)], (4, None),
                                   ["grid_sampler_2d", "grid_sampler_2d_backward"], (0, 1)),
    "grid_sample_3d": (_grid_sample_3d, [_rand(BR, 1, 2, 3, 4, 3), _rand(1, 2, 2, 2, 3)], (0, None),
                       ["grid_sampler_3d", "grid_sampler_3d_backward"], (0, 1)),
    "unfold_fold": (_unfold_fold, [_rand(BR, 2, 3, 5, 4)], 0, ["im2col", "col2im"], (0,)),
    "interpolate_antialias": (_interpolate_aa, [_rand(BR, 2, 3, 7, 5)], 0,
                              ["_upsample_bilinear2d_aa", "_upsample_bicubic2d_aa",
                               "_upsample_bilinear2d_aa_backward", "_upsample_bicubic2d_aa_backward"], (0,)),
    "searchsorted_batched_sequence": (_search, [_rand(BR, 6), _rand(BR, 2, 3)], 0, ["searchsorted.Tensor"], None),
    "searchsorted_nd_unbatched_values": (_search, [_rand(BR, 2, 6), _rand(2, 3)], (0, None),
                                         ["searchsorted.Tensor"], None),
    "bucketize_batched_boundaries": (_bucketize, [_rand(2, 3), _rand(BR, 6)], (None, 0),
                                     ["bucketize.Tensor", "bucketize.Scalar"], None),
    "median_quantile_batched_q": (_median_quantile, [_rand(BR, 4, 5), np.array([[0.1, 0.5, 0.9], [0.0, 0.3, 1.0],
                                                                               [0.25, 0.75, 0.6]])], 0,
                                  ["median", "nanmedian", "quantile", "nanquantile.scalar"], (0,)),
    "addmm_inplace": (_addmm_inplace, [_rand(BR, 2, 4), _rand(2, 3), _rand(BR, 3, 4)], (0, None, 0),
                      ["addmm_"], (0, 2)),
    "addmm_out": (_addmm_out, [_rand(BR, 2, 4), _rand(2, 3), _rand(BR, 3, 4)], (0, None, 0), ["addmm.out"], None),
    "baddbmm_inplace": (_baddbmm_inplace, [_rand(BR, 2, 2, 4), _rand(BR, 2, 2, 3), _rand(2, 3, 4)], (0, 0, None),
                        ["baddbmm_"], (0, 1)),
    "masked_select_unbatched_mask": (_masked_select, [_rand(BR, 3, 4), _rand(4) > 0], (0, None),
                                     ["masked_select"], (0,)),
    "histc_sample_and_given_ranges": (_histc, [np.concatenate([_rand(BR, 20), np.array([[-1.0, 1.0, 0.5]] * BR)], 1)],
                                      0, ["histc"], None),
    "histogram_sample_ranges_and_edges": (_histogram, [_rand(BR, 4, 5), _rand(BR, 4, 5), _rand(BR, 6)], 0,
                                          ["histogram.bin_ct", "histogram.bins_tensor"], None),
    "out_forms_batched_out": (_out_forms, [_rand(BR, 3, 4), _rand(BR, 3, 4), _rand(BR, 3, 4), _rand(BR, 3, 4),
                                           _idx(BR, 3, 4, high=2)], 0, ["cumsum.out", "tril.out", "sort.values"], None),
    "bincount_equal_lengths": (_bincount, [_idx(BR, 9, high=6), _rand(BR, 9)], 0, ["bincount"], None),
}


def _to(lib, a):
    if lib is ember:
        return ember.from_numpy(np.array(a, copy=True))  # a copy: running statistics are written
    import torch
    return torch.from_numpy(np.array(a, copy=True))


def _flat(out):
    return list(out) if isinstance(out, tuple) else [out]


def _close_all(got, want, what):
    got, want = _flat(got), _flat(want)
    assert len(got) == len(want), what
    for g, w in zip(got, want):
        assert tuple(g.shape) == tuple(w.shape), f"{what}: shape {tuple(g.shape)} vs {tuple(w.shape)}"
        np.testing.assert_allclose(g.numpy(), w.detach().numpy(), rtol=1e-9, atol=1e-10, err_msg=what)


def _loss(lib, F, fn):
    def loss(*a):
        r = _flat(fn(lib, F, *a))[0]
        return (r * r.cos()).sum()  # not linear, so that the gradient depends on the values
    return loss


def _run_case(fn, arrays, in_dims, diff):
    """vmap, vmap(grad), vmap(jacrev) in Ember; the inputs as the last call left them."""
    F, vmap_, grad_, jacrev_ = ember.nn.functional, ember.func.vmap, ember.func.grad, ember.func.jacrev
    args = [_to(ember, a) for a in arrays]
    out = {"value": vmap_(lambda *a: fn(ember, F, *a), in_dims=in_dims)(*args)}
    if diff:
        args = [_to(ember, a) for a in arrays]
        out["grad"] = vmap_(grad_(_loss(ember, F, fn), argnums=diff), in_dims=in_dims)(*args)
        args = [_to(ember, a) for a in arrays]
        out["jacrev"] = vmap_(jacrev_(lambda *a: _flat(fn(ember, F, *a))[0], argnums=diff[0]), in_dims=in_dims)(*args)
    out["inputs"] = tuple(args)  # inputs written in place (running statistics) are compared too
    return out


def _run_loop(fn, arrays, in_dims, diff):
    """The same in PyTorch as a loop over the samples (functorch's grad and jacrev per sample);
    samples are views, so that in-place updates land in the stacked inputs."""
    import functorch
    import torch
    F = torch.nn.functional
    dims = in_dims if isinstance(in_dims, tuple) else (in_dims,) * len(arrays)
    n = next(a.shape[d] for a, d in zip(arrays, dims) if d is not None)

    def loop(f, args):
        rs = [_flat(f(*[a if d is None else a.select(d, b) for a, d in zip(args, dims)])) for b in range(n)]
        out = tuple(torch.stack([r[k] for r in rs]) for k in range(len(rs[0])))
        return out if len(out) > 1 else out[0]

    args = [_to(torch, a) for a in arrays]
    out = {"value": loop(lambda *a: fn(torch, F, *a), args)}
    if diff:
        args = [_to(torch, a) for a in arrays]
        out["grad"] = loop(functorch.grad(_loss(torch, F, fn), argnums=diff), args)
        args = [_to(torch, a) for a in arrays]
        out["jacrev"] = loop(functorch.jacrev(lambda *a: _flat(fn(torch, F, *a))[0], argnums=diff[0]), args)
    out["inputs"] = tuple(args)
    return out


@pytest.mark.parametrize("name", list(RULE_CASES))
def test_batch_rule_matches_loop(name):
    fn, arrays, in_dims, ops, diff = RULE_CASES[name]
    before = ember._C._vmap_fallback_counts()
    got = _run_case(fn, arrays, in_dims, diff)
    after = ember._C._vmap_fallback_counts()
    looped = {op for op, n in after.items() if n > before.get(op, 0)}
    assert not looped, f"{name}: the per-sample loop ran {sorted(looped)}"
    cov = ember._C._vmap_op_coverage()
    for op in ops:
        assert cov[op] == "rule", f"{op}: {cov[op]}"
    want = _run_loop(fn, arrays, in_dims, diff)
    for key in want:
        _close_all(got[key], want[key], f"{name} {key}")


def test_batch_norm_errors_match_functorch():
    F = ember.nn.functional
    x = ember.randn(3, 4, 2, dtype=ember.float64)
    rm, rv = ember.zeros(2, dtype=ember.float64), ember.ones(2, dtype=ember.float64)
    msg = "Batch norm got a batched tensor as input while the running_mean or running_var, which will be updated"
    with pytest.raises(RuntimeError, match=msg):
        vmap(lambda a: F.batch_norm(a, rm, rv, training=True))(x)
    with pytest.raises(RuntimeError, match=msg):
        vmap(lambda a: F.instance_norm(a.unsqueeze(-1).expand(4, 2, 3) * 1, rm, rv, use_input_stats=True))(x)
    assert bool((rm == 0).all()) and bool((rv == 1).all())  # untouched
    # evaluation mode reads unbatched statistics
    y = vmap(lambda a: F.batch_norm(a, rm, rv, training=False))(x)
    np.testing.assert_allclose(y.numpy(), (x / (1 + 1e-5) ** 0.5).numpy(), rtol=1e-12)
    # a per-sample shape error is batch norm's own
    with pytest.raises(RuntimeError, match="running_mean should contain 4 elements not 2"):
        vmap(lambda a: F.batch_norm(a.transpose(0, 1), rm, rv, training=False))(x)


def test_vmap_coverage_inventory():
    cov = ember._C._vmap_op_coverage()
    assert set(cov.values()) <= {"rule", "random", "composite", "pointwise", "loop"}
    assert cov["add.Tensor"] == "pointwise" and cov["batch_norm"] == "composite"
    assert cov["bernoulli"] == "random" and cov["native_batch_norm"] == "rule"
    assert "_fused_sgd_" in {n for n, k in cov.items() if k == "loop"} and cov["histc"] == "rule"
    assert cov["topk.values"] == "rule" and cov["addmm_"] == "rule"  # out= and in-place forms
    # the script prints the same inventory
    script = os.path.join(os.path.dirname(__file__), "..", "..", "scripts", "vmap_coverage.py")
    r = subprocess.run([sys.executable, script], capture_output=True, text=True, env=dict(os.environ))
    assert r.returncode == 0, r.stderr
    loop = sorted(n for n, k in cov.items() if k == "loop")
    assert f"ops without a rule (per-sample loop), {len(loop)}:" in r.stdout
    assert "\n  _fused_sgd_\n" in r.stdout


def test_dynamic_shape_errors_match_functorch():
    import functorch
    import torch
    cases = {
        "nonzero": lambda lib, a: lib.nonzero(a),
        "unique": lambda lib, a: lib.unique(a),
        "unique_consecutive": lambda lib, a: lib.unique_consecutive(a),
        "masked_select": lambda lib, a: lib.masked_select(a, a > 1),
    }
    x = np.array([[1, 2, 2], [0, 1, 1]])
    for name, f in cases.items():
        with pytest.raises(RuntimeError) as want:
            functorch.vmap(lambda a: f(torch, a))(torch.from_numpy(x))
        with pytest.raises(RuntimeError) as got:
            vmap(lambda a: f(ember, a))(ember.from_numpy(x))
        # the same message, but for the internal op's name (torch.unique's is aten::_unique2 there)
        w = re.sub(r"aten::\w+", "aten::OP", str(want.value))
        g = re.sub(r"aten::\w+", "aten::OP", str(got.value))
        assert g == w, name
    # bincount and repeat_interleave batch when every sample's result has one length ...
    i = ember.tensor([[0, 3, 3], [1, 0, 3]])
    np.testing.assert_array_equal(vmap(ember.bincount)(i).numpy(), [[1, 0, 0, 2], [1, 1, 0, 1]])
    np.testing.assert_array_equal(vmap(ember.repeat_interleave)(ember.tensor([[2, 1], [0, 3]])).numpy(),
                                  [[0, 0, 1], [1, 1, 1]])
    # ... and raise, as for nonzero, when the lengths differ (functorch's loop cannot stack them)
    with pytest.raises(RuntimeError, match="dynamic shape. Attempted to vmap over aten::bincount"):
        vmap(ember.bincount)(ember.tensor([[0, 3], [1, 0]]))
    with pytest.raises(RuntimeError, match="dynamic shape. Attempted to vmap over aten::repeat_interleave"):
        vmap(ember.repeat_interleave)(ember.tensor([[0, 3], [1, 0]]))


def test_inplace_products_need_batched_self():
    a, b = ember.randn(3, 2, 4, dtype=ember.float64), ember.randn(4, 5, dtype=ember.float64)
    x = ember.zeros(2, 5, dtype=ember.float64)
    for call in (lambda m: x.addmm_(m, b), lambda m: ember.addmm(x, m, b, out=x),
                 lambda m: x.unsqueeze(0).baddbmm_(m.unsqueeze(0), b.unsqueeze(0))):
        with pytest.raises(RuntimeError, match=_INPLACE_ERROR[1]):
            vmap(call)(a)
    assert bool((x == 0).all())
    # a batched self takes the product of its own sample
    y = ember.ones(3, 2, 5, dtype=ember.float64)
    vmap(lambda s, m: s.addmm_(m, b, beta=2.0))(y, a)
    np.testing.assert_allclose(y.numpy(), (2 + a @ b).numpy(), rtol=1e-12)


def test_nested_vmap_through_rules_of_whole_samples_and_broadcasts():
    # the inner level's physical tensors are batched at the outer level: rules must not read
    # their values (histc then loops over the inner samples) nor mix the two batch dims
    gen = np.random.default_rng(5)
    t = lambda *s: ember.from_numpy(gen.standard_normal(s))  # noqa: E731
    F = ember.nn.functional
    x, eye = t(2, 3, 4, 5), ember.eye(4, dtype=ember.float64)
    cases = {
        "std": (lambda a: a.std(), (x,), (0,)),
        "median": (lambda a: a.median(), (x,), (0,)),
        "quantile_batched_q": (lambda a, q: ember.quantile(a, q, dim=0), (x, t(2, 3, 2).sigmoid()), (0, 0)),
        "solve_vector_rhs": (lambda a, v: ember.linalg.solve(a + 4 * eye, v), (t(2, 3, 4, 4), t(4)), (0, None)),
        "take": (lambda a, i: ember.take(a, i), (x, ember.from_numpy(gen.integers(-20, 20, (2, 3, 6)))), (0, 0)),
        "searchsorted": (lambda s, v: ember.searchsorted(s.sort()[0], v), (t(2, 3, 7), t(2, 3, 5)), (0, 0)),
        "grid_sample": (lambda i, g: F.grid_sample(i, g.tanh(), align_corners=False), (t(2, 3, 1, 2, 4, 5),
                                                                                         t(2, 3, 1, 3, 2, 2)), (0, 0)),
        "histc": (lambda a: ember.histc(a, 4), (x,), (0,)),
        "gather_scalar": (lambda a: a.sum().gather(0, ember.tensor(0)), (x,), (0,)),
        "masked_scatter": (lambda a, m: a.masked_scatter(m, a * 2), (x, x > 0), (0, 0)),
        "cross_entropy_smoothing": (lambda a, c: F.cross_entropy(a, c, label_smoothing=0.2),
                                    (t(2, 3, 4, 4), ember.from_numpy(gen.integers(0, 4, (2, 3, 4)))), (0, 0)),
    }
    for name, (f, args, dims) in cases.items():
        got = vmap(vmap(f, in_dims=dims), in_dims=dims)(*args)
        want = ember.stack([ember.stack([f(*[a[i][j] if d is not None else a for a, d in zip(args, dims)])
                                         for j in range(3)]) for i in range(2)])
        assert tuple(got.shape) == tuple(want.shape), name
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10, atol=1e-12, err_msg=name)
    # a per-sample matrix against batched right-hand sides of the inner level
    a, b = t(2, 4, 4) + 4 * eye, t(3, 4)
    got = vmap(lambda m: vmap(lambda v: ember.linalg.solve(m, v))(b))(a)
    want = ember.stack([ember.stack([ember.linalg.solve(a[i], b[j]) for j in range(3)]) for i in range(2)])
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-10)
