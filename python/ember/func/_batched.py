"""ember.func, _batched part (re-exported by ember.func): vmap and the reverse-mode transforms.

vmap wraps each input's batch dim in a batched tensor of a new vmap level (ember._C._add_batch_dim);
ops on batched tensors run through the Vmap dispatch layer (src/functional/). grad and vjp run
autograd on the physical tensors under the active vmap levels (_C._lift_levels / _lower_levels),
so that inside vmap each sample gets its own gradient.
"""
import functools

from .. import _C

__all__ = ["vmap", "grad", "grad_and_value", "vjp", "jacrev", "hessian", "functional_call"]


from ._pytree import broadcast_flatten as _broadcast_flatten
from ._pytree import spec_str as _spec_str
from ._pytree import tree_flatten as _tree_flatten
from ._pytree import tree_unflatten as _tree_unflatten


def _fn_name(f):
    return getattr(f, "__name__", repr(f))


def _is_tensor(x):
    return isinstance(x, _C.Tensor)


# ---------------------------------------------------------------- vmap

def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """Vectorizes func over a batch dim of its inputs (torch.func.vmap)."""
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}")
    if chunk_size is not None and not (isinstance(chunk_size, int) and chunk_size > 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")
    _check_out_dims(out_dims, func)

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        return _vmap_call(func, in_dims, out_dims, randomness, chunk_size, args, kwargs)

    return wrapped


def _check_out_dims(out_dims, func):
    leaves, _ = _tree_flatten(out_dims)
    if not all(d is None or isinstance(d, int) for d in leaves):
        raise ValueError(f"vmap({_fn_name(func)}, ..., out_dims={out_dims}): `out_dims` must be an int, None or a "
                         "python collection of ints representing where in the outputs the vmapped dimension should "
                         "appear.")


def _batch_size_and_dims(func, in_dims, args):
    name = _fn_name(func)
    if not isinstance(in_dims, (int, tuple)) or isinstance(in_dims, bool):
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to be int or a "
                         f"(potentially nested) tuple matching the structure of inputs, got: {type(in_dims)}.")
    if len(args) == 0:
        raise ValueError(f"vmap({name})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you are trying "
                         "to vmap over a function with no inputs. The latter is unsupported.")
    flat_args, args_spec = _tree_flatten(args)
    flat_dims = _broadcast_flatten(in_dims, args)
    if flat_dims is None or (isinstance(in_dims, tuple) and len(in_dims) != len(args)):
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims is not compatible with the "
                         f"structure of `inputs`. in_dims has structure {_spec_str(_tree_flatten(in_dims)[1])} but "
                         f"inputs has structure {_spec_str(args_spec)}.")
    sizes = []
    for arg, d in zip(flat_args, flat_dims):
        if d is not None and (not isinstance(d, int) or isinstance(d, bool)):
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an input but "
                             "in_dim must be either an integer dimension or None.")
        if d is None:
            continue
        if not _is_tensor(arg):
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for an input but the "
                             f"input is of type {type(arg)}. We cannot vmap over non-Tensor arguments, please use "
                             "None as the respective in_dim")
        n = arg.dim()
        if not -n <= d < n:
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={d} for some input, but "
                             f"that input is a Tensor of dimensionality {n} so expected in_dim to satisfy "
                             f"-{n} <= in_dim < {n}.")
        sizes.append(arg.shape[d])
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(s != sizes[0] for s in sizes):
        raise ValueError("vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                         f"{sizes} for the mapped dimension")
    return sizes[0], flat_args, flat_dims, args_spec


def _vmap_call(func, in_dims, out_dims, randomness, chunk_size, args, kwargs):
    batch_size, flat_args, flat_dims, args_spec = _batch_size_and_dims(func, in_dims, args)
    if chunk_size is not None and chunk_size < batch_size:
        return _vmap_chunked(func, out_dims, randomness, chunk_size, batch_size, flat_args, flat_dims, args_spec,
                             kwargs)
    level = _C._vmap_increment_nesting(batch_size, randomness)
    prev = _C._vmap_set_included(True)
    try:
        batched = [a if d is None else _C._add_batch_dim(a, d, level) for a, d in zip(flat_args, flat_dims)]
        out = func(*_tree_unflatten(batched, args_spec), **kwargs)
        return _unwrap_outputs(func, out, out_dims, level, batch_size)
    finally:
        _C._vmap_set_included(prev)
        _C._vmap_decrement_nesting()


def _flat_out_dims(func, out, out_dims):
    flat_out, out_spec = _tree_flatten(out)
    dims = _broadcast_flatten(out_dims, out)
    if dims is None and isinstance(out_dims, tuple) and len(out_dims) == 1 and not _is_node(out):
        dims = [out_dims[0]]
    if dims is None:
        raise ValueError(f"vmap({_fn_name(func)}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible "
                         f"with the structure of `outputs`. out_dims has structure "
                         f"{_spec_str(_tree_flatten(out_dims)[1])} but outputs has structure {_spec_str(out_spec)}.")
    return flat_out, out_spec, dims


def _unwrap_outputs(func, out, out_dims, level, batch_size):
    flat_out, out_spec, dims = _flat_out_dims(func, out, out_dims)
    name = _fn_name(func)
    res = []
    for o, d in zip(flat_out, dims):
        if d is None:
            if _is_tensor(o) and _C._batch_level(o) == level:
                raise ValueError(f"vmap({name}, ...): `{name}` can not return a BatchedTensor when out_dim is None")
            res.append(o)
            continue
        if not _is_tensor(o):
            raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type {type(o)}. Did you mean "
                             "to set out_dims= to None for output?")
        res.append(_C._remove_batch_dim(o, level, batch_size, d))
    return _tree_unflatten(res, out_spec)


def _vmap_chunked(func, out_dims, randomness, chunk_size, batch_size, flat_args, flat_dims, args_spec, kwargs):
    from .. import cat
    chunks = []
    for start in range(0, batch_size, chunk_size):
        n = min(chunk_size, batch_size - start)
        part = [a if d is None else a.narrow(d, start, n) for a, d in zip(flat_args, flat_dims)]
        chunk_in_dims = tuple(_tree_unflatten(list(flat_dims), args_spec))
        chunks.append(_vmap_call(func, chunk_in_dims, out_dims, randomness, None, _tree_unflatten(part, args_spec),
                                 kwargs))
    flat0, spec, dims = _flat_out_dims(func, chunks[0], out_dims)
    flats = [_tree_flatten(c)[0] for c in chunks]
    res = []
    for j, d in enumerate(dims):
        res.append(flat0[j] if d is None else cat([f[j] for f in flats], d))
    return _tree_unflatten(res, spec)


# ---------------------------------------------------------------- grad, vjp, jacrev, hessian

def _check_argnums(argnums, nargs, api):
    items = argnums if isinstance(argnums, tuple) else (argnums,)
    if not isinstance(argnums, (int, tuple)) or isinstance(argnums, bool) or \
            not all(isinstance(a, int) and not isinstance(a, bool) for a in items):
        raise RuntimeError(f"{api}: argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    if isinstance(argnums, tuple) and len(argnums) == 0:
        raise RuntimeError(f"{api}: argnums must be non-empty")
    for a in items:
        if not -nargs <= a < nargs:
            raise RuntimeError(f"{api}: Got argnums={argnums} but only {nargs} positional inputs")
    items = tuple(a % nargs for a in items)
    if len(set(items)) != len(items):
        raise RuntimeError(f"{api}: argnums must be unique, got {argnums}")
    return items


class _Diff:
    """Differentiable stand-ins for some tensors under the active vmap levels."""

    def __init__(self, tensors, api):
        import ember
        self.levels = _C._vmap_levels()
        for t in tensors:
            if not _is_tensor(t):
                raise RuntimeError(f"{api}: Expected the inputs to be differentiated to be Tensors, got {type(t)}")
            if not (t.is_floating_point() or t.is_complex()):
                raise RuntimeError(f"{api}: Expected the inputs to be differentiated to be floating point or complex "
                                   f"Tensors, got {t.dtype}")
        self.create_graph = ember.is_grad_enabled() and any(_C._requires_grad_batched(t) for t in tensors)
        self.leaves, self.inputs = [], []
        for t in tensors:
            plain = _C._lift_levels(t, self.levels)
            # An input expanded over a level stays expanded (no copy per sample): the view
            # backward keeps the samples of an expanded leaf apart, and products with a
            # stride-0 batch run as one GEMM.
            leaf = plain.view(plain.shape) if plain.requires_grad else plain.detach().requires_grad_()
            self.leaves.append(leaf)
            self.inputs.append(_C._lower_levels(leaf, self.levels))

    def grads(self, outputs, grad_outputs, create_graph):
        import ember
        roots, seeds = [], []
        for o, g in zip(outputs, grad_outputs):
            plain = _C._lift_levels(o, self.levels)
            if plain.requires_grad:
                roots.append(plain)
                seeds.append(_C._lift_levels(g, self.levels))
        if roots:
            gs = ember.autograd.grad(roots, self.leaves, seeds, retain_graph=True, create_graph=create_graph,
                                     allow_unused=True)
        else:
            gs = [None] * len(self.leaves)
        return [_C._lower_levels(ember.zeros_like(l) if g is None else g, self.levels)
                for g, l in zip(gs, self.leaves)]

    def detach(self, t):
        if self.create_graph or not _is_tensor(t):
            return t
        return _C._detach_batched(t)


def _substitute(args, argnums, values):
    args = list(args)
    for a, v in zip(argnums, values):
        args[a] = v
    return args


def grad_and_value(func, argnums=0, has_aux=False):
    """Returns a function computing (gradient, value) of func (torch.func.grad_and_value)."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        import ember
        api = "grad_and_value(f)(*args)"
        nums = _check_argnums(argnums, len(args), api)
        picked = [args[a] for a in nums]
        flat, spec = _tree_flatten(tuple(picked))
        with ember.enable_grad():
            d = _Diff(flat, api)
            new_picked = _tree_unflatten(d.inputs, spec)
            output = func(*_substitute(args, nums, new_picked), **kwargs)
            if has_aux:
                if not (isinstance(output, tuple) and len(output) == 2):
                    raise RuntimeError(f"{api}: output of function f should be a tuple: (output, aux) "
                                       "if has_aux is True")
                output, aux = output
            if not _is_tensor(output):
                raise RuntimeError(f"{api}: Expected f(*args) to return a Tensor, got {type(output)}")
            if output.dim() != 0:
                raise RuntimeError(f"{api}: Expected f(*args) to return a scalar Tensor, got tensor with "
                                   f"{output.dim()} dims. Maybe you wanted to use the vjp or jacrev APIs instead?")
            gs = d.grads([output], [ember.ones_like(output)], d.create_graph)
        gtree = _tree_unflatten(gs, spec)
        g = gtree[0] if isinstance(argnums, int) else gtree
        value = d.detach(output)
        if has_aux:
            return g, (value, _tree_unflatten([d.detach(t) for t in _tree_flatten(aux)[0]], _tree_flatten(aux)[1]))
        return g, value

    return wrapper


def grad(func, argnums=0, has_aux=False):
    """Returns a function computing the gradient of func (torch.func.grad)."""
    gv = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        g, value = gv(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    return wrapper


def vjp(func, *primals, has_aux=False):
    """(func(*primals), vjp_fn[, aux]) where vjp_fn(cotangents) is the vector-Jacobian product."""
    import ember
    api = "vjp(f, *primals)"
    flat, spec = _tree_flatten(primals)
    with ember.enable_grad():
        d = _Diff(flat, api)
        output = func(*_tree_unflatten(d.inputs, spec))
        if has_aux:
            if not (isinstance(output, tuple) and len(output) == 2):
                raise RuntimeError(f"{api}: output of function f should be a tuple: (output, aux) if has_aux is True")
            output, aux = output
    flat_out, out_spec = _tree_flatten(output)
    for o in flat_out:
        if not _is_tensor(o):
            raise RuntimeError(f"{api}: Expected f to be a function that has non-empty output and returns Tensors "
                               f"(or a collection of Tensors), got {type(o)}")

    def vjp_fn(cotangents, retain_graph=True, create_graph=None):
        flat_ct, ct_spec = _tree_flatten(cotangents)
        if ct_spec != out_spec and not (len(flat_ct) == len(flat_out) == 1):
            raise RuntimeError(f"Expected pytree structure of cotangents to be the same as pytree structure of "
                               f"outputs to the function. cotangents: {_spec_str(ct_spec)}, primal output: "
                               f"{_spec_str(out_spec)}")
        for c, o in zip(flat_ct, flat_out):
            if tuple(c.shape) != tuple(o.shape):
                raise RuntimeError(f"Mismatch in shape: grad_output[0] has a shape of {tuple(c.shape)} and "
                                   f"output[0] has a shape of {tuple(o.shape)}.")
        cg = create_graph if create_graph is not None else (
            d.create_graph or any(_C._requires_grad_batched(c) for c in flat_ct))
        with ember.enable_grad():
            gs = d.grads(flat_out, flat_ct, cg)
        return _tree_unflatten(gs, spec)

    out = _tree_unflatten([d.detach(o) for o in flat_out], out_spec)
    if has_aux:
        return out, vjp_fn, _tree_unflatten([d.detach(t) for t in _tree_flatten(aux)[0]], _tree_flatten(aux)[1])
    return out, vjp_fn


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None):
    """Jacobian of func with respect to argnums by reverse mode, vmapped over the rows."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        import ember
        api = "jacrev(f, argnums)(*args)"
        nums = _check_argnums(argnums, len(args), api)
        picked = tuple(args[a] for a in nums)

        def inner(*ps):
            return func(*_substitute(args, nums, ps), **kwargs)

        res = vjp(inner, *picked, has_aux=has_aux)
        output, vjp_fn = res[0], res[1]
        flat_out, out_spec = _tree_flatten(output)
        flat_in, in_spec = _tree_flatten(picked)
        total = sum(o.numel() for o in flat_out)
        if total == 0:
            rows = [ember.zeros((0,) + tuple(x.shape), dtype=x.dtype) for x in flat_in]
        else:
            basis = ember.eye(total, dtype=flat_out[0].dtype)

            def row(e):
                cts, off = [], 0
                for o in flat_out:
                    cts.append(e.narrow(0, off, o.numel()).view(o.shape).to(o.dtype))
                    off += o.numel()
                return _tree_flatten(vjp_fn(_tree_unflatten(cts, out_spec)))[0]

            rows = vmap(row, chunk_size=chunk_size)(basis)
        blocks, off = [], 0
        for o in flat_out:
            per_in = [r.narrow(0, off, o.numel()).reshape(tuple(o.shape) + tuple(x.shape))
                      for r, x in zip(rows, flat_in)]
            tree = _tree_unflatten(per_in, in_spec)
            blocks.append(tree[0] if isinstance(argnums, int) else tree)
            off += o.numel()
        jac = _tree_unflatten(blocks, out_spec)
        if has_aux:
            return jac, res[2]
        return jac

    return wrapper


def hessian(func, argnums=0):
    """Hessian of func with respect to argnums (jacrev of jacrev until forward mode lands)."""
    return jacrev(jacrev(func, argnums), argnums)


def functional_call(module, parameter_and_buffer_dicts, args, kwargs=None, *, tie_weights=True, strict=False):
    """Calls module with its parameters and buffers replaced by the given tensors."""
    if isinstance(parameter_and_buffer_dicts, dict):
        values = dict(parameter_and_buffer_dicts)
    else:
        values = {}
        for d in parameter_and_buffer_dicts:
            for k, v in d.items():
                if k in values:
                    raise ValueError(f"{k} appeared in multiple dictionaries; behavior of functional call is "
                                     "ambiguous")
                values[k] = v
    if strict:
        expected = {n for n, _ in module.named_parameters()} | {n for n, _ in module.named_buffers()}
        missing, unexpected = sorted(expected - set(values)), sorted(set(values) - expected)
        if missing or unexpected:
            raise RuntimeError(f"Error(s) in reparametrizing for {type(module).__name__}: missing keys {missing}, "
                               f"unexpected keys {unexpected}")
    saved = []
    try:
        for name, value in values.items():
            *path, attr = name.split(".")
            owner = module
            for p in path:
                owner = getattr(owner, p)
            for store in ("_parameters", "_buffers"):
                table = owner.__dict__.get(store)
                if table is not None and attr in table:
                    saved.append((table, attr, table[attr]))
                    table[attr] = value
                    break
            else:
                saved.append((owner, attr, getattr(owner, attr, None)))
                object.__setattr__(owner, attr, value)
        if kwargs is None:
            kwargs = {}
        if not isinstance(args, tuple):
            args = (args,)
        return module(*args, **kwargs)
    finally:
        for owner, attr, old in reversed(saved):
            if isinstance(owner, dict):
                owner[attr] = old
            else:
                object.__setattr__(owner, attr, old)
