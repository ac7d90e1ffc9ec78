"""Shape and indexing ops from Python, beyond the value checks of the op table
(op_rows_shape.py, op_rows_indexing.py): views write through to their base, keyword
names and call forms match PyTorch's, Meta tensors get shapes, and failed in-place calls
change nothing."""
import warnings

import numpy as np
import pytest
import torch

import ember


def test_split_family_returns_views():
    splits = [lambda x: x.split(2, dim=1), lambda x: ember.chunk(x, 3, 1),
              lambda x: ember.tensor_split(x, [1, 4], dim=1), lambda x: ember.hsplit(x, 3),
              lambda x: x.unbind(1), lambda x: (ember.movedim(x, 0, 1),), lambda x: (ember.atleast_3d(x),),
              lambda x: ember.meshgrid(x[0], indexing="ij")]
    for split in splits:
        x = ember.zeros(2, 6)
        parts = split(x)
        parts[0].fill_(1)  # writes through to x
        assert x.sum().item() == parts[0].numel()


def test_call_forms_and_keywords_match_torch():
    for lib in (ember, torch):
        x = lib.arange(12.0).reshape(3, 4)
        idx = lib.tensor([[0, 3], [1, 2], [2, 2]])
        r = [
            x.gather(1, idx),
            lib.gather(input=x, dim=1, index=idx),
            x.scatter(dim=1, index=idx, src=lib.ones(3, 2)),
            x.scatter(1, idx, value=2.0),
            x.scatter_reduce(1, idx, lib.ones(3, 2), reduce="amax", include_self=False),
            x.index_select(dim=0, index=lib.tensor([2, 0])),
            x.index_add(0, lib.tensor([0, 0]), lib.ones(2, 4), alpha=3),
            x.index_fill(1, lib.tensor([1]), value=-1.0),
            x.masked_fill(mask=x > 5, value=0.0),
            x.take(lib.tensor([11, 0])),
            x.take_along_dim(idx, dim=1),
            x.repeat(2, 1), x.repeat((1, 2)), x.tile(2), x.flip(0, 1), x.flip([1]),
            x.roll(shifts=1, dims=0), x.rot90(k=1, dims=[0, 1]), x.tril(diagonal=1), x.triu(-1),
            x.repeat_interleave(2, dim=0), x.movedim(source=0, destination=1), x.swapaxes(0, 1),
            x.narrow_copy(1, 1, 2), x.ravel(), x.diag(), x.diag_embed(), x.diagflat(),
            lib.column_stack((x, x)), lib.hstack([x, x]), lib.vstack([x, x]), lib.dstack([x, x]),
            *x.chunk(2, dim=1), *x.split([1, 3], dim=1), *lib.meshgrid(x[0], x[:, 0], indexing="xy"),
            *lib.atleast_2d(x[0], x), lib.argwhere(x > 8), *lib.where(x > 8),
        ]
        if lib is ember:
            mine = r
        else:
            theirs = r
    assert len(mine) == len(theirs)
    for a, b in zip(mine, theirs):
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_meshgrid_without_indexing_warns_like_torch():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        g = ember.meshgrid(ember.arange(3), ember.arange(2))
    assert any("indexing" in str(x.message) for x in w)
    assert tuple(g[0].shape) == (3, 2)


def test_meta_shapes():
    m = ember.empty(3, 4, device="meta")
    i = ember.empty(2, 4, dtype=ember.int64, device="meta")
    assert ember.gather(m, 0, i).shape == (2, 4)
    assert m.scatter_add(0, i, ember.empty(2, 4, device="meta")).device.type == "meta"
    assert m.index_select(1, ember.empty(5, dtype=ember.int64, device="meta")).shape == (3, 5)
    assert m.flip(0).shape == (3, 4)
    assert m.repeat(2, 1, 1).shape == (2, 3, 4)
    assert [p.shape for p in m.split(3, 1)] == [(3, 3), (3, 1)]
    assert ember.tril(m, 1).device.type == "meta"


@pytest.mark.parametrize("call", [
    lambda x, i: x.scatter_(0, i, 1.0),
    lambda x, i: x.scatter_add_(0, i, ember.ones(i.shape)),
    lambda x, i: x.index_add_(0, i, ember.ones(i.shape)),
    lambda x, i: x.index_copy_(0, i, ember.ones(i.shape)),
    lambda x, i: x.index_fill_(0, i, 1.0),
    lambda x, i: x.put_(i, ember.ones(i.shape)),
    lambda x, i: x.scatter_reduce_(0, i, ember.ones(i.shape), "mean"),
])
def test_failed_in_place_call_changes_nothing(call):
    x = ember.arange(100000.0)
    before = x.clone()
    i = ember.from_numpy(np.random.default_rng(0).integers(0, 100000, 100000))
    i[-1] = 100000  # only the last index is out of range
    with pytest.raises((IndexError, RuntimeError)):
        call(x, i)
    np.testing.assert_array_equal(x.numpy(), before.numpy())


@pytest.mark.parametrize("call", [
    lambda x: x.transpose_(0, 2), lambda x: x.swapaxes_(1, 0), lambda x: x.swapdims_(-1, 0),
    lambda x: x[0].t_(), lambda x: x.unsqueeze_(1), lambda x: x.unsqueeze_(-1),
    lambda x: x[:, :1].squeeze_(), lambda x: x[:, :1].squeeze_(1), lambda x: x[:, :1].squeeze_(0),
])
def test_in_place_view_ops_rebind_the_tensor(call):
    results = []
    for lib in (ember, torch):
        base = lib.arange(24.0).reshape(2, 3, 4)
        r = call(base)
        results.append((tuple(r.shape), r.stride(), r.storage_offset(), r.contiguous().reshape(-1).tolist()))
        r.view(-1)[:1].fill_(-1.0) if r.is_contiguous() else r.fill_(-1.0)  # still a view of base's storage
        assert base.reshape(-1)[r.storage_offset()].item() == -1.0
    assert results[0] == results[1]


def test_in_place_view_ops_return_self_and_reject_bad_dims():
    x = ember.zeros(2, 3)
    assert x.transpose_(0, 1) is x and tuple(x.shape) == (3, 2)
    with pytest.raises(IndexError):
        x.transpose_(0, 2)
    assert tuple(x.shape) == (3, 2)


def test_functional_and_method_forms_of_real_imag_polygamma():
    z = np.array([1 + 2j, -3.5 + 0.5j], dtype=np.complex64)
    assert ember.real(ember.from_numpy(z)).tolist() == torch.real(torch.from_numpy(z)).tolist()
    assert ember.imag(ember.from_numpy(z)).tolist() == torch.imag(torch.from_numpy(z)).tolist()
    x = np.array([0.5, 1.5, 3.0])
    np.testing.assert_allclose(ember.from_numpy(x).polygamma(2).numpy(), torch.from_numpy(x).polygamma(2).numpy(),
                               rtol=1e-12)


@pytest.mark.parametrize("make", [
    lambda lib: lib.ones(3).unsqueeze(0).expand(2**63 - 1, 3),
    lambda lib: lib.ones(1).view(1, 1).expand(2**62, 4),
    lambda lib: lib.ones(1).expand(2**62, 4),
])
def test_shapes_whose_numel_overflows_raise_like_torch(make):
    with pytest.raises(RuntimeError, match="numel: integer multiplication overflow"):
        make(torch)
    with pytest.raises(RuntimeError, match="numel: integer multiplication overflow"):
        make(ember)
    assert ember.ones(1).expand(0, 2**62).shape == (0, 2**62)


@pytest.mark.parametrize("dtype", ["bool", "int8", "float16", "float32", "float64", "complex128"])
@pytest.mark.parametrize("shape,dims", [((33, 70), (0, 1)), ((130, 257), (1, 0)), ((3, 64, 100), (1, 2)), ((40, 5, 65), (0, 2)),
                                        ((2, 3, 96, 97), (-1, -2))])
def test_transposing_copies_match_torch(dtype, shape, dims):
    # Transposes whose two dims reach the tiled copy (kernels/copy.cpp), with partial tiles,
    # batch dims in between and element sizes from 1 to 16 bytes; also into a strided out.
    t = (torch.arange(int(np.prod(shape))).reshape(shape) % 251).to(getattr(torch, dtype))
    x = ember.from_numpy(t.numpy())
    want = t.transpose(*dims).contiguous()
    got = x.transpose(*dims).contiguous()
    assert got.is_contiguous() and got.shape == want.shape
    assert np.array_equal(got.numpy(), want.numpy())
    out = ember.zeros(want.shape[:-1] + (want.shape[-1] * 2,), dtype=getattr(ember, dtype))[..., ::2]
    out.copy_(x.transpose(*dims))
    assert np.array_equal(out.numpy(), want.numpy())
