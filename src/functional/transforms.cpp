// grad, grad_and_value, vjp, jacrev, hessian and vmap on functions of tensor lists, and the
// level bookkeeping that lets autograd run on the physical tensors under vmap's batch levels.
#include <algorithm>

#include "ember/autograd.h"
#include "ember/ops.h"
#include "functional/batched.h"

namespace ember::func {

using namespace detail;

namespace {

// Peels every batch level off t: the plain tensor has one leading dim per level, ascending.
Tensor peel_all(const Tensor& t, std::vector<int64_t>& levels) {
  std::vector<int64_t> lv;
  Tensor p = t;
  while (is_batched(p)) {
    lv.push_back(batch_info(p).level);
    p = Tensor(physical_of(p));
  }
  levels.assign(lv.rbegin(), lv.rend());
  return p;
}

// Wraps the leading dims of p as the given levels (ascending; p's dim 0 is levels[0]).
Tensor wrap_levels(Tensor p, const std::vector<int64_t>& levels) {
  for (int64_t l : levels) p = make_batched(p, l);
  return p;
}

bool contains(const std::vector<int64_t>& v, int64_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

}  // namespace

std::vector<int64_t> active_vmap_levels() {
  std::vector<int64_t> r;
  for (const VmapLevel& l : vmap_stack()) r.push_back(l.level);
  return r;
}

Tensor lift_levels(const Tensor& t, const std::vector<int64_t>& levels) {
  std::vector<int64_t> lv;
  Tensor p = peel_all(t, lv);
  // Levels t is not batched at: expand over their batch size.
  for (int64_t c : levels) {
    if (contains(lv, c)) continue;
    const int64_t at = static_cast<int64_t>(lv.size());
    DimVector sz(p.sizes());
    sz.insert(static_cast<size_t>(at), vmap_batch_size(c));
    p = p.unsqueeze(at).expand(sz);
    lv.push_back(c);
  }
  // Order: t's other levels (ascending, to wrap again), then `levels`, then t's own dims.
  std::vector<int64_t> others, perm;
  for (int64_t l : lv)
    if (!contains(levels, l)) others.push_back(l);
  std::sort(others.begin(), others.end());
  auto index_of = [&](int64_t l) { return static_cast<int64_t>(std::find(lv.begin(), lv.end(), l) - lv.begin()); };
  for (int64_t l : others) perm.push_back(index_of(l));
  for (int64_t l : levels) perm.push_back(index_of(l));
  for (int64_t d = static_cast<int64_t>(lv.size()); d < p.dim(); ++d) perm.push_back(d);
  return wrap_levels(p.permute(perm), others);
}

Tensor lower_levels(const Tensor& t, const std::vector<int64_t>& levels) {
  std::vector<int64_t> lv;
  Tensor p = peel_all(t, lv);  // [lv..., levels..., rest]
  for (int64_t l : lv)
    EMBER_CHECK(!contains(levels, l), RuntimeError, "vmap: a gradient is already batched at level ", l);
  const int64_t m = static_cast<int64_t>(lv.size()), k = static_cast<int64_t>(levels.size());
  std::vector<int64_t> perm;
  for (int64_t i = 0; i < k; ++i) perm.push_back(m + i);
  for (int64_t i = 0; i < m; ++i) perm.push_back(i);
  for (int64_t d = m + k; d < p.dim(); ++d) perm.push_back(d);
  std::vector<int64_t> all = levels;
  all.insert(all.end(), lv.begin(), lv.end());
  return wrap_levels(p.permute(perm), all);
}

Tensor detach_batched(const Tensor& t) {
  std::vector<int64_t> lv;
  Tensor p = peel_all(t, lv);
  return wrap_levels(autograd::detach(p), lv);
}

bool requires_grad_batched(const Tensor& t) {
  std::vector<int64_t> lv;
  return t.defined() && autograd::requires_grad(peel_all(t, lv));
}

namespace {

struct Prepared {
  std::vector<Tensor> inputs;  // what f sees
  std::vector<Tensor> leaves;  // what autograd differentiates (plain)
  std::vector<int64_t> levels;
  bool create_graph = false;
};

// Differentiable stand-ins for args[argnums]: a leaf when the argument is outside every graph,
// else a view that keeps its history (so that an enclosing transform differentiates through).
Prepared prepare(const std::vector<Tensor>& args, const std::vector<int64_t>& argnums, const char* api) {
  Prepared p;
  p.inputs = args;
  p.levels = active_vmap_levels();
  for (int64_t j : argnums) {
    EMBER_CHECK(j >= 0 && j < static_cast<int64_t>(args.size()), RuntimeError, api, ": Got argnums=", j,
                " but only ", args.size(), " positional inputs");
    const Tensor& x = args[static_cast<size_t>(j)];
    EMBER_CHECK(x.defined() && (x.is_floating_point() || x.is_complex()), RuntimeError, api,
                ": Expected the argument at argnums=", j, " to be a floating-point or complex Tensor");
    p.create_graph = p.create_graph || requires_grad_batched(x);
  }
  p.create_graph = p.create_graph && autograd::GradMode::is_enabled();
  for (int64_t j : argnums) {
    Tensor plain = lift_levels(args[static_cast<size_t>(j)], p.levels);
    Tensor leaf;
    if (autograd::requires_grad(plain)) {
      leaf = plain.alias();
    } else {
      // An input expanded over a level stays expanded (no copy per sample): the view backward
      // keeps the samples of an expanded leaf apart (autograd/fallback.cpp), and products with
      // a stride-0 batch run as one GEMM (ops/matmul.cpp).
      leaf = autograd::detach(plain);
      autograd::set_requires_grad(leaf, true);
    }
    p.leaves.push_back(leaf);
    p.inputs[static_cast<size_t>(j)] = lower_levels(leaf, p.levels);
  }
  return p;
}

std::vector<Tensor> finish_grads(std::vector<Tensor> grads, const Prepared& p) {
  for (size_t i = 0; i < grads.size(); ++i) {
    if (!grads[i].defined()) grads[i] = ember::zeros_like(p.leaves[i]);
    grads[i] = lower_levels(grads[i], p.levels);
  }
  return grads;
}

Tensor maybe_detach(const Tensor& t, bool create_graph) {
  return create_graph || !t.defined() ? t : detach_batched(t);
}

std::vector<Tensor> grad_and_value_impl(const Fn& f, const std::vector<Tensor>& args,
                                        const std::vector<int64_t>& argnums, bool has_aux, bool with_value) {
  const char* api = with_value ? "grad_and_value(f)(*args)" : "grad(f)(*args)";
  std::vector<Tensor> outs;
  Prepared p;
  {
    autograd::EnableGradGuard enable;
    p = prepare(args, argnums, api);
    outs = f(p.inputs);
  }
  EMBER_CHECK(!outs.empty() && (!has_aux || outs.size() >= 2), RuntimeError, api,
              has_aux ? ": output of function f should be a tuple: (output, aux) if has_aux is True"
                      : ": f returned no output");
  const Tensor& out = outs[0];
  EMBER_CHECK(out.dim() == 0, RuntimeError, api, ": Expected f(*args) to return a scalar Tensor, got tensor with ",
              out.dim(), " dims. Maybe you wanted to use the vjp or jacrev APIs instead?");
  std::vector<Tensor> grads(p.leaves.size());
  Tensor plain = lift_levels(out, p.levels);
  if (autograd::requires_grad(plain)) {
    autograd::EnableGradGuard enable;
    grads = autograd::grad({plain}, p.leaves, {ember::ones_like(plain)}, p.create_graph, p.create_graph, true);
  }
  std::vector<Tensor> result = finish_grads(std::move(grads), p);
  if (with_value) result.push_back(maybe_detach(out, p.create_graph));
  for (size_t i = 1; i < outs.size(); ++i) result.push_back(maybe_detach(outs[i], p.create_graph));
  return result;
}

}  // namespace

Fn grad(Fn f, std::vector<int64_t> argnums, bool has_aux) {
  return [f = std::move(f), argnums = std::move(argnums), has_aux](const std::vector<Tensor>& args) {
    return grad_and_value_impl(f, args, argnums, has_aux, false);
  };
}

Fn grad_and_value(Fn f, std::vector<int64_t> argnums, bool has_aux) {
  return [f = std::move(f), argnums = std::move(argnums), has_aux](const std::vector<Tensor>& args) {
    return grad_and_value_impl(f, args, argnums, has_aux, true);
  };
}

VjpResult vjp(Fn f, const std::vector<Tensor>& primals, bool has_aux) {
  std::vector<int64_t> argnums;
  for (size_t i = 0; i < primals.size(); ++i) argnums.push_back(static_cast<int64_t>(i));
  std::vector<Tensor> outs;
  Prepared p;
  {
    autograd::EnableGradGuard enable;
    p = prepare(primals, argnums, "vjp(f, *primals)");
    outs = f(p.inputs);
  }
  VjpResult r;
  if (has_aux) {
    EMBER_CHECK(!outs.empty(), RuntimeError, "vjp(f, *primals): output of function f should be a tuple: "
                "(output, aux) if has_aux is True");
    r.aux.push_back(maybe_detach(outs.back(), p.create_graph));
    outs.pop_back();
  }
  std::vector<Tensor> plain_outs;
  for (const Tensor& o : outs) {
    plain_outs.push_back(lift_levels(o, p.levels));
    r.outputs.push_back(maybe_detach(o, p.create_graph));
  }
  std::vector<Tensor> out_refs = outs;
  r.vjp_fn = [p, plain_outs, out_refs](const std::vector<Tensor>& cts) {
    EMBER_CHECK(cts.size() == plain_outs.size(), RuntimeError, "vjp_fn: Expected ", plain_outs.size(),
                " cotangents (one per output), got ", cts.size());
    std::vector<Tensor> grad_outs, roots;
    for (size_t i = 0; i < cts.size(); ++i) {
      EMBER_CHECK(cts[i].sizes() == out_refs[i].sizes(), RuntimeError,
                  "Mismatch in shape: grad_output[", i, "] has a shape of ", cts[i].sizes(),
                  " and output[", i, "] has a shape of ", out_refs[i].sizes(), ".");
      if (!autograd::requires_grad(plain_outs[i])) continue;
      roots.push_back(plain_outs[i]);
      grad_outs.push_back(lift_levels(cts[i], p.levels));
    }
    std::vector<Tensor> grads(p.leaves.size());
    if (!roots.empty()) {
      autograd::EnableGradGuard enable;
      const bool cg = p.create_graph || std::any_of(cts.begin(), cts.end(), requires_grad_batched);
      grads = autograd::grad(roots, p.leaves, grad_outs, true, cg, true);
    }
    return finish_grads(std::move(grads), p);
  };
  return r;
}

Fn vmap(Fn f, std::vector<std::optional<int64_t>> in_dims, std::vector<int64_t> out_dims, Randomness randomness,
        std::optional<int64_t> chunk_size) {
  return [=](const std::vector<Tensor>& args) -> std::vector<Tensor> {
    EMBER_CHECK(in_dims.empty() || in_dims.size() == args.size(), ValueError,
                "vmap(f, in_dims=..., ...)(<inputs>): in_dims is not compatible with the structure of `inputs`. "
                "in_dims has ", in_dims.size(), " entries but inputs has ", args.size(), " tensors.");
    int64_t B = -1;
    std::vector<std::optional<int64_t>> dims(args.size());
    for (size_t i = 0; i < args.size(); ++i) {
      dims[i] = in_dims.empty() ? std::optional<int64_t>(0) : in_dims[i];
      if (!dims[i]) continue;
      const int64_t n = args[i].dim();
      EMBER_CHECK(*dims[i] >= -n && *dims[i] < n && n > 0, ValueError, "vmap(f, in_dims=..., ...)(<inputs>): Got in_dim=",
                  *dims[i], " for input ", i, ", but input ", i, " is a Tensor of dimensionality ", n,
                  " so expected in_dim to satisfy -", n, " <= in_dim < ", n, ".");
      const int64_t s = args[i].size(*dims[i]);
      EMBER_CHECK(B < 0 || B == s, ValueError, "vmap: Expected all tensors to have the same size in the mapped "
                  "dimension, got sizes ", B, " and ", s, " for the mapped dimension");
      B = s;
    }
    EMBER_CHECK(B >= 0, ValueError, "vmap(f, in_dims=..., ...)(<inputs>): at least one input must be batched "
                "(in_dims may not all be None)");
    if (chunk_size && *chunk_size < B) {
      EMBER_CHECK(*chunk_size > 0, ValueError, "vmap: chunk_size should be None or greater than 0. (got ", *chunk_size, ")");
      std::vector<std::vector<Tensor>> parts;
      for (int64_t s = 0; s < B; s += *chunk_size) {
        std::vector<Tensor> chunk_args = args;
        for (size_t i = 0; i < args.size(); ++i)
          if (dims[i]) chunk_args[i] = args[i].narrow(*dims[i], s, std::min(*chunk_size, B - s));
        parts.push_back(vmap(f, in_dims, out_dims, randomness, std::nullopt)(chunk_args));
      }
      std::vector<Tensor> out;
      for (size_t j = 0; j < parts[0].size(); ++j) {
        std::vector<Tensor> pieces;
        for (auto& p : parts) pieces.push_back(p[j]);
        out.push_back(ember::cat(pieces, out_dims.empty() ? 0 : out_dims[j]));
      }
      return out;
    }
    const int64_t level = vmap_increment_nesting(B, randomness);
    std::vector<Tensor> outs;
    try {
      IncludeKeyGuard include(DispatchKey::Vmap);
      std::vector<Tensor> batched = args;
      for (size_t i = 0; i < args.size(); ++i)
        if (dims[i]) batched[i] = add_batch_dim(args[i], *dims[i], level);
      outs = f(batched);
      EMBER_CHECK(out_dims.empty() || out_dims.size() == outs.size(), ValueError,
                  "vmap(f, ..., out_dims=...)(<inputs>): out_dims is not compatible with the structure of `outputs`. "
                  "out_dims has ", out_dims.size(), " entries but outputs has ", outs.size(), " tensors.");
      for (size_t j = 0; j < outs.size(); ++j)
        outs[j] = remove_batch_dim(outs[j], level, B, out_dims.empty() ? 0 : out_dims[j]);
    } catch (...) {
      vmap_decrement_nesting();
      throw;
    }
    vmap_decrement_nesting();
    return outs;
  };
}

Fn jacrev(Fn f, std::vector<int64_t> argnums) {
  return [f = std::move(f), argnums = std::move(argnums)](const std::vector<Tensor>& args) {
    std::vector<Tensor> primals;
    for (int64_t j : argnums) {
      EMBER_CHECK(j >= 0 && j < static_cast<int64_t>(args.size()), RuntimeError, "jacrev(f, argnums=", j,
                  ")(*args): Got argnums=", j, " but only ", args.size(), " positional inputs");
      primals.push_back(args[static_cast<size_t>(j)]);
    }
    Fn sub = [&](const std::vector<Tensor>& ps) {
      std::vector<Tensor> full = args;
      for (size_t k = 0; k < argnums.size(); ++k) full[static_cast<size_t>(argnums[k])] = ps[k];
      return f(full);
    };
    VjpResult r = vjp(sub, primals);
    // One vmap over the rows of the identity of all outputs' elements, flattened together.
    int64_t total = 0;
    for (const Tensor& o : r.outputs) total += o.numel();
    std::vector<Tensor> blocks;
    if (total == 0 || r.outputs.empty()) {
      for (const Tensor& o : r.outputs)
        for (const Tensor& x : primals) {
          DimVector sz(o.sizes());
          for (int64_t s : x.sizes()) sz.push_back(s);
          blocks.push_back(ember::zeros(sz, x.dtype()));
        }
      return blocks;
    }
    Tensor basis = ember::eye(total, std::nullopt, r.outputs[0].dtype());
    const std::vector<Tensor> outs = r.outputs;
    Fn row = [&](const std::vector<Tensor>& e) {
      std::vector<Tensor> cts;
      int64_t off = 0;
      for (const Tensor& o : outs) {
        cts.push_back(e[0].narrow(0, off, o.numel()).view(o.sizes()).to(o.dtype()));
        off += o.numel();
      }
      return r.vjp_fn(cts);
    };
    std::vector<Tensor> rows = vmap(row)({basis});  // one [total, *input] per primal
    int64_t off = 0;
    for (const Tensor& o : outs) {
      for (size_t k = 0; k < primals.size(); ++k) {
        DimVector sz(o.sizes());
        for (int64_t s : primals[k].sizes()) sz.push_back(s);
        blocks.push_back(rows[k].narrow(0, off, o.numel()).reshape(sz));
      }
      off += o.numel();
    }
    return blocks;
  };
}

Fn hessian(Fn f, std::vector<int64_t> argnums) { return jacrev(jacrev(std::move(f), argnums), argnums); }

}  // namespace ember::func
