"""ember.func, _forward part (re-exported by ember.func): jvp and jacfwd, functorch's
forward-mode transforms, on top of ember.autograd.forward_ad.

jacfwd pushes each basis tangent through jvp in a loop (`_push_basis`); with vmap, that loop
becomes one batched jvp.
"""

from ..autograd import forward_ad as _fwAD

__all__ = ["jvp", "jacfwd"]


from ._pytree import spec_str as _spec_str
from ._pytree import tree_flatten as _flatten
from ._pytree import tree_unflatten as _unflatten


def _is_tensor(x):
    from .. import Tensor
    return isinstance(x, Tensor)


# ---------------------------------------------------------------- jvp
def _check_tensors(leaves, what):
    for x in leaves:
        if not _is_tensor(x):
            raise RuntimeError(f"jvp(f, primals, tangents): Expected {what} to only contain Tensors, got {type(x)}")


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """(func(*primals), J(primals) @ tangents), and func's aux output when has_aux.

    primals is a tuple of func's positional arguments; tangents has the same structure.
    """
    if strict:
        raise RuntimeError("jvp(f, primals, tangents): strict=True is not supported.")
    if not isinstance(primals, tuple):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals to be a tuple. "
                           "E.g. it should be valid to call f(*primals).")
    flat_primals, primals_spec = _flatten(primals)
    flat_tangents, tangents_spec = _flatten(tangents)
    if primals_spec != tangents_spec:
        raise RuntimeError("jvp(f, primals, tangents): Expected primals and tangents to have the same python "
                           "structure. For example, if primals is a tuple of 3 tensors, tangents also must be. Got "
                           f"primals with structure {_spec_str(primals_spec)} and tangents with structure "
                           f"{_spec_str(tangents_spec)}")
    _check_tensors(flat_primals, "primals")
    _check_tensors(flat_tangents, "tangents")
    with _fwAD.dual_level():
        duals = [_fwAD.make_dual(p, t) for p, t in zip(flat_primals, flat_tangents)]
        result = func(*_unflatten(duals, primals_spec))
        if has_aux:
            if not (isinstance(result, tuple) and len(result) == 2):
                raise RuntimeError("jvp(f, primals, tangents): output of function f should be a tuple: "
                                   "(output, aux) if has_aux is True")
            result, aux = result
        flat_out, out_spec = _flatten(result)
        for o in flat_out:
            if not _is_tensor(o):
                raise RuntimeError("jvp(f, primals, tangents): expected f(*primals) to return only tensors, got "
                                   f"unsupported type {type(o)}")
        primals_out, tangents_out = [], []
        for o in flat_out:
            p, t = _fwAD.unpack_dual(o)
            primals_out.append(p)
            tangents_out.append(t if t is not None else _zeros_like(p))
        if has_aux:
            flat_aux, aux_spec = _flatten(aux)
            aux = _unflatten([_fwAD.unpack_dual(a).primal if _is_tensor(a) else a for a in flat_aux], aux_spec)
    out = (_unflatten(primals_out, out_spec), _unflatten(tangents_out, out_spec))
    return out + (aux,) if has_aux else out


def _zeros_like(t):
    from .. import zeros_like
    return zeros_like(t)


# ---------------------------------------------------------------- jacfwd
def _normalize_argnums(argnums, nargs):
    def one(a):
        if not isinstance(a, int) or isinstance(a, bool):
            raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(a)}")
        if not -nargs <= a < nargs:
            raise RuntimeError(f"Got argnum={a}, but only {nargs} positional inputs")
        return a % nargs
    if isinstance(argnums, tuple):
        if len(argnums) == 0:
            raise RuntimeError("argnums must be non-empty")
        norm = tuple(one(a) for a in argnums)
        if len(set(norm)) != len(norm):
            raise RuntimeError(f"argnums elements must be unique, got {argnums}")
        return norm
    return one(argnums)


def _push_basis(push, primal):
    """push(tangent) for each one-hot tangent shaped like primal, stacked on a leading dim.

    Each call returns a flat list of output tangents; the result is one tensor per output of
    shape (primal.numel(), *output.shape). vmap(push) over the identity computes the same.
    """
    from .. import eye, stack
    n = primal.numel()
    basis = eye(n, dtype=primal.dtype, device=primal.device)
    columns = [push(basis[j].reshape(primal.shape)) for j in range(n)]
    if n == 0:
        return None
    return [stack([c[k] for c in columns]) for k in range(len(columns[0]))]


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """A function computing the Jacobian of func with respect to the arguments argnums by
    forward-mode AD: each output leaf becomes output.shape + input.shape (a tuple over argnums
    when argnums is a tuple)."""
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}")

    def wrapper(*args):
        nums = _normalize_argnums(argnums, len(args))
        chosen = nums if isinstance(nums, tuple) else (nums,)
        for i in chosen:
            _check_tensors(_flatten(args[i])[0], "primals")

        def call(tangent_for):
            # tangent_for: {arg index: tangent leaves}; the other chosen args get zero tangents
            primals = tuple(args[i] for i in chosen)
            tangents = tuple(_unflatten(tangent_for[i], _flatten(args[i])[1]) if i in tangent_for
                             else _unflatten([_zeros_like(x) for x in _flatten(args[i])[0]], _flatten(args[i])[1])
                             for i in chosen)

            def f(*chosen_values):
                full = list(args)
                for i, v in zip(chosen, chosen_values):
                    full[i] = v
                return func(*full)
            return jvp(f, primals, tangents, has_aux=has_aux)

        first = call({})
        out = first[0]
        flat_out, out_spec = _flatten(out)
        # per chosen arg, per input leaf: the stacked tangents of every output leaf
        per_arg = []
        for i in chosen:
            leaves, _ = _flatten(args[i])
            blocks = []
            for li, leaf in enumerate(leaves):
                def push(t, i=i, li=li, leaves=leaves):
                    tl = [_zeros_like(x) for x in leaves]
                    tl[li] = t
                    return _flatten(call({i: tl})[1])[0]
                stacked = _push_basis(push, leaf)
                jac = []
                for k, o in enumerate(flat_out):
                    if stacked is None:
                        from .. import zeros
                        jac.append(zeros(tuple(o.shape) + tuple(leaf.shape), dtype=o.dtype, device=o.device))
                        continue
                    s = stacked[k]  # (numel, *out)
                    s = s.reshape((leaf.numel(),) + tuple(o.shape))
                    s = s.permute(tuple(range(1, o.dim() + 1)) + (0,))
                    jac.append(s.reshape(tuple(o.shape) + tuple(leaf.shape)))
                blocks.append(jac)
            per_arg.append((blocks, _flatten(args[i])[1]))
        # output leaf k: per chosen arg, the input structure filled with the blocks
        results = []
        for k in range(len(flat_out)):
            per = [_unflatten([b[k] for b in blocks], spec) for blocks, spec in per_arg]
            results.append(tuple(per) if isinstance(nums, tuple) else per[0])
        jac = _unflatten(results, out_spec)
        if has_aux:
            return jac, first[2]
        return jac
    return wrapper
