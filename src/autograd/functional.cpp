// torch.autograd.functional on top of autograd::grad. Each function follows the steps (and
// raises the errors, in the same order) of PyTorch's Python implementation, so that Ember's
// Python module can be a thin wrapper over these.
#include "ember/autograd_functional.h"

#include "ember/autograd.h"
#include "ember/error.h"
#include "ember/func.h"
#include "ember/forward_ad.h"
#include "ember/ops.h"

namespace ember::autograd::functional {

namespace functional_impl {

using Tensors = std::vector<Tensor>;

// Fresh tensor objects for the inputs, so that func's uses of them can be told apart from
// the caller's tensors it may capture. With create_graph, an input that requires grad stays
// connected to its graph (through a view); any other is detached, and made to require grad
// when the function needs its gradient.
Tensors preprocess(const Tensors& inputs, bool create_graph, bool need_graph) {
  Tensors r;
  r.reserve(inputs.size());
  for (const Tensor& t : inputs) {
    if (create_graph && requires_grad(t)) {
      r.push_back(t.view_as(t));
    } else {
      Tensor d = t.detach();
      if (need_graph) set_requires_grad(d, true);
      r.push_back(std::move(d));
    }
  }
  return r;
}

// Results carry no history unless the caller asked for a differentiable result.
Tensors postprocess(Tensors ts, bool create_graph) {
  if (!create_graph)
    for (Tensor& t : ts) t = t.detach();
  return ts;
}

void validate_v(const Tensors& v, const Tensors& other, bool other_is_tuple) {
  if (v.size() != other.size()) {
    EMBER_CHECK(!other_is_tuple, RuntimeError, "v is a tuple of invalid length: should be ", other.size(), " but got ",
                v.size(), ".");
    EMBER_FAIL(RuntimeError, "The given v should contain a single Tensor.");
  }
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i].sizes() == other[i].sizes()) continue;
    std::string entry = other_is_tuple ? "Entry " + std::to_string(i) + " in " : "";
    EMBER_FAIL(RuntimeError, entry, "v has invalid size: should be ember.Size(", other[i].sizes(),
               ") but got ember.Size(", v[i].sizes(), ").");
  }
}

enum class Kind { kOutputs, kGradInputs, kJacobian, kHessian };

// strict: every tensor (an undefined one is a missing gradient) must require grad.
void check_requires_grad(const Tensors& ts, Kind kind, bool strict) {
  if (!strict) return;
  for (size_t i = 0; i < ts.size(); ++i) {
    EMBER_CHECK(ts[i].defined(), RuntimeError, "The output of the user-provided function is independent of input ", i,
                ". This is not allowed in strict mode.");
    if (requires_grad(ts[i])) continue;
    switch (kind) {
      case Kind::kHessian:
        EMBER_FAIL(RuntimeError, "The hessian of the user-provided function with respect to input ", i,
                   " is independent of the input. This is not allowed in strict mode. You should ensure that your "
                   "function is thrice differentiable and that the hessian depends on the inputs.");
      case Kind::kJacobian:
        EMBER_FAIL(RuntimeError, "While computing the hessian, found that the jacobian of the user-provided function "
                   "with respect to input ", i, " is independent of the input. This is not allowed in strict mode. "
                   "You should ensure that your function is twice differentiable and that the jacobian depends on "
                   "the inputs (this would be violated by a linear function for example).");
      case Kind::kGradInputs:
        EMBER_FAIL(RuntimeError, "The gradient with respect to input ", i, " is independent of the inputs of the "
                   "user-provided function. This is not allowed in strict mode.");
      case Kind::kOutputs:
        EMBER_FAIL(RuntimeError, "Output ", i, " of the user-provided function does not require gradients. The "
                   "outputs must be computed in a differentiable manner from the input when running in strict mode.");
    }
  }
}

// grad() over the outputs that require grad (undefined entries allowed), with undefined
// results for inputs they do not reach; all undefined when no output requires grad. An
// empty grad_outputs means implicit seeds.
Tensors grad_of(const Tensors& outputs, const Tensors& inputs, const Tensors& grad_outputs, bool create_graph) {
  Tensors outs, gouts;
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (!outputs[i].defined() || !requires_grad(outputs[i])) continue;
    outs.push_back(outputs[i]);
    // PyTorch 1.x seeds a single element with one, complex ones too (Ember's grad(), like
    // later PyTorch, refuses to for complex outputs).
    Tensor g = grad_outputs.empty() ? Tensor() : grad_outputs[i];
    if (!g.defined() && outputs[i].numel() == 1) g = ones_like(outputs[i]);
    gouts.push_back(std::move(g));
  }
  if (outs.empty()) return Tensors(inputs.size());
  return grad(outs, inputs, gouts, /*retain_graph=*/std::nullopt, create_graph, /*allow_unused=*/true);
}

enum class Stage { kBack, kBackTrick, kDoubleBack, kDoubleBackTrick };

// Zeros (shaped like refs) for missing gradients, or strict's errors.
Tensors fill_in_zeros(Tensors grads, const Tensors& refs, bool strict, bool create_graph, Stage stage) {
  for (size_t i = 0; i < grads.size(); ++i) {
    if (!grads[i].defined()) {
      if (strict) {
        switch (stage) {
          case Stage::kBack:
            EMBER_FAIL(RuntimeError, "The output of the user-provided function is independent of input ", i,
                       ". This is not allowed in strict mode.");
          case Stage::kBackTrick:
            EMBER_FAIL(RuntimeError, "The gradient with respect to the input is independent of entry ", i,
                       " in the grad_outputs when using the double backward trick to compute forward mode "
                       "gradients. This is not allowed in strict mode.");
          case Stage::kDoubleBack:
            EMBER_FAIL(RuntimeError, "The jacobian of the user-provided function is independent of input ", i,
                       ". This is not allowed in strict mode.");
          case Stage::kDoubleBackTrick:
            EMBER_FAIL(RuntimeError, "The hessian of the user-provided function is independent of entry ", i,
                       " in the grad_jacobian. This is not allowed in strict mode as it prevents from using the "
                       "double backward trick to replace forward mode AD.");
        }
      }
      grads[i] = zeros_like(refs[i]);
    } else if (strict && create_graph && !requires_grad(grads[i])) {
      const bool second = stage == Stage::kDoubleBack || stage == Stage::kDoubleBackTrick;
      EMBER_FAIL(RuntimeError, "The ", second ? "hessian" : "jacobian",
                 " of the user-provided function is independent of input ", i,
                 ". This is not allowed in strict mode when create_graph=True.");
    }
  }
  return grads;
}

// v, made a fresh tensor like the inputs, or checked to be omittable.
Tensors prepare_v(const std::optional<TensorOrTuple>& v, const TensorOrTuple& other, bool create_graph,
                  const char* omit_message) {
  if (!v) {
    EMBER_CHECK(other.size() == 1 && other[0].numel() == 1, RuntimeError, omit_message);
    return {};
  }
  Tensors r = preprocess(v->tensors, create_graph, /*need_graph=*/false);
  validate_v(r, other.tensors, other.is_tuple);
  return r;
}

// func's outputs for the Hessian functions: one single-element Tensor.
void check_single_output(const TensorOrTuple& out, const char* fn) {
  EMBER_CHECK(!out.is_tuple, RuntimeError, "The function given to ", fn, " should return a single Tensor");
  EMBER_CHECK(out[0].numel() == 1, RuntimeError, "The Tensor returned by the function given to ", fn,
              " should contain a single element");
}

// The strategies Ember cannot run yet, with PyTorch's errors where it has them.
void check_strategy(const std::string& strategy, bool create_graph, bool strict, bool vectorize) {
  EMBER_CHECK(strategy == "forward-mode" || strategy == "reverse-mode", ValueError,
              "Expected strategy to be either \"forward-mode\" or \"reverse-mode\".");
  if (strategy == "reverse-mode") return;
  EMBER_CHECK(!create_graph, NotImplementedError, "torch.autograd.functional.jacobian: `create_graph=True` and "
              "`strategy=\"forward-mode\"` are not supported together (yet). Please either set `create_graph=False` "
              "or `strategy=\"reverse-mode\"`.");
  EMBER_CHECK(!strict, RuntimeError, "torch.autograd.functional.jacobian: `strict=True` and "
              "`strategy=\"forward-mode\"` are not supported together (yet). Please either set `strict=False` or "
              "`strategy=\"reverse-mode\"`.");
  // PyTorch's message lacks the space after "is".
  EMBER_CHECK(vectorize, NotImplementedError, "Computing Jacobian using forward-AD or forward-over-reverse Hessian is"
              "only implemented for `vectorize=True`.");
}

// After func ran (the point where PyTorch checks it).
void check_vectorize(bool vectorize, bool strict) {
  if (!vectorize) return;
  EMBER_CHECK(!strict, RuntimeError, "torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are "
              "not supported together. Please either set `strict=False` or `vectorize=False`.");
}

// d outputs[i] / d inputs[j], one backward pass per element of each output (reusing the
// graph), the pass seeded with a one-hot gradient: the row of the element. (PyTorch selects
// the element and seeds it with one, complex elements included; the rows are the same.)
std::vector<Tensors> jacobian_blocks(const Tensors& outputs, const Tensors& inputs, bool create_graph, bool strict) {
  std::vector<Tensors> blocks(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& out = outputs[i];
    const int64_t n = out.numel();
    const bool differentiable = requires_grad(out);
    std::vector<Tensors> rows(inputs.size());
    for (Tensors& r : rows) r.reserve(static_cast<size_t>(n));
    for (int64_t j = 0; j < n; ++j) {
      Tensors vj(inputs.size());
      if (differentiable) {
        // A new seed each pass: with create_graph the graph of the result may keep it.
        Tensor seed = zeros({n}, TensorOptions(out.dtype()).device(out.device()));
        seed.select(0, j).fill_(1);
        vj = grad({out}, inputs, {seed.view(out.sizes())}, /*retain_graph=*/true, create_graph, /*allow_unused=*/true);
      }
      for (size_t k = 0; k < inputs.size(); ++k) {
        if (vj[k].defined()) {
          EMBER_CHECK(!(strict && create_graph && !requires_grad(vj[k])), RuntimeError,
                      "The jacobian of the user-provided function is independent of input ", i,
                      ". This is not allowed in strict mode when create_graph=True.");
          rows[k].push_back(std::move(vj[k]));
        } else {
          EMBER_CHECK(!strict, RuntimeError, "Output ", i, " of the user-provided function is independent of input ",
                      k, ". This is not allowed in strict mode.");
          rows[k].push_back(zeros_like(inputs[k]));
        }
      }
    }
    for (size_t k = 0; k < inputs.size(); ++k) {
      std::vector<int64_t> shape(out.sizes().begin(), out.sizes().end());
      shape.insert(shape.end(), inputs[k].sizes().begin(), inputs[k].sizes().end());
      blocks[i].push_back(postprocess({stack(rows[k], 0).view(shape)}, create_graph)[0]);
    }
  }
  return blocks;
}

// vectorize=True: the same blocks from one backward pass, vmapped over the rows of the identity
// of all outputs' elements (the cotangents), as PyTorch's _vmap over its vjp.
std::vector<Tensors> jacobian_blocks_vectorized(const Tensors& outputs, const Tensors& inputs, bool create_graph) {
  int64_t total = 0;
  bool differentiable = false;
  for (const Tensor& o : outputs) {
    total += o.numel();
    differentiable = differentiable || requires_grad(o);
  }
  Tensors rows(inputs.size());
  if (total > 0 && differentiable) {
    Tensor basis = eye(total, std::nullopt, TensorOptions(outputs[0].dtype()).device(outputs[0].device()));
    func::Fn row = [&](const std::vector<Tensor>& e) {
      Tensors roots, cts;
      int64_t off = 0;
      for (const Tensor& o : outputs) {
        if (requires_grad(o)) {
          roots.push_back(o);
          cts.push_back(e[0].narrow(0, off, o.numel()).view(o.sizes()).to(o.dtype()));
        }
        off += o.numel();
      }
      Tensors g = grad(roots, inputs, cts, /*retain_graph=*/true, create_graph, /*allow_unused=*/true);
      for (size_t k = 0; k < g.size(); ++k)
        if (!g[k].defined()) g[k] = zeros_like(inputs[k]);
      return g;
    };
    rows = func::vmap(row)({basis});
  }
  std::vector<Tensors> blocks(outputs.size());
  int64_t off = 0;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& out = outputs[i];
    for (size_t k = 0; k < inputs.size(); ++k) {
      std::vector<int64_t> shape(out.sizes().begin(), out.sizes().end());
      shape.insert(shape.end(), inputs[k].sizes().begin(), inputs[k].sizes().end());
      Tensor b = rows[k].defined() ? rows[k].narrow(0, off, out.numel()).reshape(shape)
                                   : zeros(shape, TensorOptions(inputs[k].dtype()).device(inputs[k].device()));
      blocks[i].push_back(postprocess({b}, create_graph)[0]);
    }
    off += out.numel();
  }
  return blocks;
}

// strategy="forward-mode": the Jacobian's columns as tangents, from one pass of f on dual
// inputs vmapped over the standard basis of all inputs' elements (PyTorch's _jacfwd). f gets
// the dual inputs and returns the outputs; outs_tuple is set from them.
std::vector<Tensors> jacobian_blocks_forward(const Function& f, const Tensors& inputs, bool& outs_tuple) {
  int64_t total = 0;
  for (const Tensor& t : inputs) total += t.numel();
  Tensors basis;
  int64_t off = 0;
  for (const Tensor& t : inputs) {
    basis.push_back(eye(total, std::nullopt, TensorOptions(t.dtype()).device(t.device())).narrow(1, off, t.numel()));
    off += t.numel();
  }
  Tensors primal_outs;
  func::Fn jvp_fn = [&](const Tensors& ts) {
    forward_ad::DualLevel level;
    Tensors duals;
    // (a contiguous primal takes the batched tangent's layout as it is)
    for (size_t j = 0; j < inputs.size(); ++j)
      duals.push_back(forward_ad::make_dual(inputs[j].contiguous(), ts[j].view(inputs[j].sizes())));
    TensorOrTuple outs = f(duals);
    outs_tuple = outs.is_tuple;
    primal_outs.clear();
    Tensors jv;
    for (const Tensor& o : outs.tensors) {
      forward_ad::UnpackedDual u = forward_ad::unpack_dual(o);
      primal_outs.push_back(u.primal);
      jv.push_back(u.tangent.defined() ? u.tangent : zeros_like(u.primal));
    }
    return jv;
  };
  Tensors cols = func::vmap(jvp_fn)(basis);
  std::vector<Tensors> blocks(cols.size());
  for (size_t i = 0; i < cols.size(); ++i) {
    const Tensor& out = primal_outs[i];
    // the batch dim runs over the inputs' elements: move it last
    std::vector<int64_t> perm;
    for (int64_t d = 1; d < cols[i].dim(); ++d) perm.push_back(d);
    perm.push_back(0);
    off = 0;
    for (const Tensor& in : inputs) {
      std::vector<int64_t> shape(out.sizes().begin(), out.sizes().end());
      shape.insert(shape.end(), in.sizes().begin(), in.sizes().end());
      blocks[i].push_back(cols[i].narrow(0, off, in.numel()).permute(perm).reshape(shape).detach());
      off += in.numel();
    }
  }
  return blocks;
}

// What jvp, vhp and hvp do first (under grad mode): fresh inputs, v checked against them,
// and func's outputs; single_output_fn names a function that needs one single-element output.
struct Forward {
  Tensors ins, vs;
  TensorOrTuple outs;
};
Forward forward_with_input_v(const Function& func, const TensorOrTuple& inputs, const std::optional<TensorOrTuple>& v,
                             bool create_graph, bool strict, const char* single_output_fn) {
  Forward f;
  f.ins = preprocess(inputs.tensors, create_graph, /*need_graph=*/true);
  f.vs = prepare_v(v, inputs, create_graph,
                   "The vector v can only be None if the input to the user-provided function is a single Tensor "
                   "with a single element.");
  f.outs = func(f.ins);
  check_requires_grad(f.outs.tensors, Kind::kOutputs, strict);
  if (single_output_fn) check_single_output(f.outs, single_output_fn);
  return f;
}

// (outputs, product) as returned: without history unless create_graph.
std::pair<TensorOrTuple, TensorOrTuple> results(const TensorOrTuple& outs, Tensors product, bool product_is_tuple,
                                                bool create_graph) {
  TensorOrTuple o(postprocess(outs.tensors, create_graph)), p(postprocess(std::move(product), create_graph));
  o.is_tuple = outs.is_tuple;
  p.is_tuple = product_is_tuple;
  return {std::move(o), std::move(p)};
}

}  // namespace functional_impl

using namespace functional_impl;

std::vector<Tensor> grad_batched(const std::vector<Tensor>& outputs, const std::vector<Tensor>& inputs,
                                 const std::vector<Tensor>& grad_outputs, std::optional<bool> retain_graph,
                                 bool create_graph, bool allow_unused) {
  EMBER_CHECK(grad_outputs.empty() || grad_outputs.size() == outputs.size(), RuntimeError, "grad_outputs has ",
              grad_outputs.size(), " tensors for ", outputs.size(), " outputs");
  // PyTorch's _make_grads: implicit seeds for single elements, shapes checked without the batch dim.
  Tensors seeds(outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& out = outputs[i];
    Tensor g = grad_outputs.empty() ? Tensor() : grad_outputs[i];
    if (!g.defined()) {
      if (!requires_grad(out)) continue;
      EMBER_CHECK(out.numel() == 1, RuntimeError, "grad can be implicitly created only for scalar outputs");
      g = ones_like(out);
    } else if (g.dim() == 0 || g.sizes().slice(1, static_cast<size_t>(g.dim() - 1)) != out.sizes()) {
      // PyTorch's message shows g[0]'s shape less its first dim; kept as is.
      const IntArrayRef shown = g.dim() > 2 ? g.sizes().slice(2, static_cast<size_t>(g.dim() - 2)) : IntArrayRef();
      EMBER_FAIL(RuntimeError, "If `is_grads_batched=True`, we interpret the first dimension of each grad_output as "
                 "the batch dimension. The sizes of the remaining dimensions are expected to match the shape of "
                 "corresponding output, but a mismatch was detected: grad_output[", i, "] has a shape of ember.Size(",
                 shown, ") and output[", i, "] has a shape of ember.Size(", out.sizes(), "). If you only want some "
                 "tensors in `grad_output` to be considered batched, consider using vmap.");
    }
    EMBER_CHECK(g.dim() > 0, ValueError, "vmap(vjp, in_dims=0, ...)(<inputs>): Got in_dim=0 for some input, but that "
                "input is a Tensor of dimensionality 0 so expected in_dim to satisfy 0 <= in_dim < 0.");
    seeds[i] = std::move(g);
  }
  Tensors batched;
  std::vector<int64_t> sizes;
  for (const Tensor& g : seeds) {
    if (!g.defined()) continue;
    batched.push_back(g);
    sizes.push_back(g.size(0));
  }
  for (int64_t n : sizes)  // (PyTorch's _vmap_internals message)
    EMBER_CHECK(n == sizes[0], ValueError, "vmap: Expected all tensors to have the same size in the mapped dimension, "
                "got sizes ", IntArrayRef(sizes), " for the mapped dimension");
  std::vector<bool> unused(inputs.size(), false);
  func::Fn vjp = [&](const Tensors& gs) {
    Tensors full = seeds;
    size_t k = 0;
    for (Tensor& g : full)
      if (g.defined()) g = gs[k++];
    Tensors r = grad(outputs, inputs, full, retain_graph.value_or(create_graph), create_graph, allow_unused);
    // vmap returns tensors only: an unused input's undefined gradient comes back as a placeholder
    for (size_t j = 0; j < r.size(); ++j) {
      if (r[j].defined()) continue;
      unused[j] = true;
      r[j] = zeros({}, TensorOptions(inputs[j].dtype()).device(inputs[j].device()));
    }
    return r;
  };
  Tensors res = func::vmap(vjp)(batched);
  for (size_t j = 0; j < res.size(); ++j)
    if (unused[j]) res[j] = Tensor();
  return res;
}

std::pair<TensorOrTuple, TensorOrTuple> vjp(const Function& func, const TensorOrTuple& inputs,
                                            const std::optional<TensorOrTuple>& v, bool create_graph, bool strict) {
  Tensors ins, vs;
  TensorOrTuple outs;
  {
    EnableGradGuard enable;
    ins = preprocess(inputs.tensors, create_graph, /*need_graph=*/true);
    outs = func(ins);
    check_requires_grad(outs.tensors, Kind::kOutputs, strict);
    vs = prepare_v(v, outs, create_graph,
                   "The vector v can only be None if the user-provided function returns a single Tensor with a "
                   "single element.");
  }
  AutoGradMode mode(create_graph || GradMode::is_enabled());
  Tensors res = fill_in_zeros(grad_of(outs.tensors, ins, vs, create_graph), ins, strict, create_graph, Stage::kBack);
  return results(outs, std::move(res), inputs.is_tuple, create_graph);
}

namespace {
// J v by the double-backward trick (PyTorch 1.13's own computation).
std::pair<TensorOrTuple, TensorOrTuple> jvp_double_backward(const Function& func, const TensorOrTuple& inputs,
                                                            const std::optional<TensorOrTuple>& v, bool create_graph,
                                                            bool strict) {
  Forward f;
  Tensors seeds, grad_inputs;
  {
    EnableGradGuard enable;
    f = forward_with_input_v(func, inputs, v, create_graph, strict, nullptr);
    // The backward pass is linear in its seeds, so their value (zeros) never shows up in the
    // gradient of the gradient with respect to them: J v.
    for (const Tensor& o : f.outs.tensors) seeds.push_back(set_requires_grad(zeros_like(o), true));
    grad_inputs = grad_of(f.outs.tensors, f.ins, seeds, /*create_graph=*/true);
    check_requires_grad(grad_inputs, Kind::kGradInputs, strict);
  }
  AutoGradMode mode(create_graph || GradMode::is_enabled());
  Tensors res = fill_in_zeros(grad_of(grad_inputs, seeds, f.vs, create_graph), f.outs.tensors, strict, create_graph,
                              Stage::kBackTrick);
  return results(f.outs, std::move(res), f.outs.is_tuple, create_graph);
}
}  // namespace

std::pair<TensorOrTuple, TensorOrTuple> jvp(const Function& func, const TensorOrTuple& inputs,
                                            const std::optional<TensorOrTuple>& v, bool create_graph, bool strict) {
  // strict's checks, and create_graph's results (which require grad exactly where PyTorch's
  // double-backward graph makes them), keep PyTorch's computation.
  if (strict || create_graph) return jvp_double_backward(func, inputs, v, create_graph, strict);
  // Forward mode: one pass of func on dual inputs whose tangents are v.
  EnableGradGuard enable;
  const Tensors ins = preprocess(inputs.tensors, create_graph, /*need_graph=*/false);
  Tensors vs = prepare_v(v, inputs, create_graph,
                         "The vector v can only be None if the input to the user-provided function is a single Tensor "
                         "with a single element.");
  if (vs.empty()) vs.push_back(ones_like(ins[0]));
  TensorOrTuple outs;
  Tensors product;
  {
    forward_ad::DualLevel level;
    Tensors duals;
    for (size_t i = 0; i < ins.size(); ++i) duals.push_back(forward_ad::make_dual(ins[i], vs[i]));
    TensorOrTuple dual_outs = func(duals);
    outs.is_tuple = dual_outs.is_tuple;
    for (const Tensor& o : dual_outs.tensors) {
      forward_ad::UnpackedDual u = forward_ad::unpack_dual(o);
      outs.tensors.push_back(u.primal);
      product.push_back(u.tangent.defined() ? u.tangent : zeros_like(o));
    }
  }

  AutoGradMode mode(create_graph || GradMode::is_enabled());
  return results(outs, std::move(product), outs.is_tuple, create_graph);
}

Jacobian jacobian(const Function& func, const TensorOrTuple& inputs, bool create_graph, bool strict, bool vectorize,
                  const std::string& strategy) {
  check_strategy(strategy, create_graph, strict, vectorize);
  EnableGradGuard enable;
  if (strategy == "forward-mode") {
    Jacobian j{{}, false, inputs.is_tuple};
    j.blocks = jacobian_blocks_forward(func, inputs.tensors, j.outputs_tuple);
    return j;
  }
  Tensors ins = preprocess(inputs.tensors, create_graph, /*need_graph=*/true);
  TensorOrTuple outs = func(ins);
  check_requires_grad(outs.tensors, Kind::kOutputs, strict);
  check_vectorize(vectorize, strict);
  if (vectorize) return {jacobian_blocks_vectorized(outs.tensors, ins, create_graph), outs.is_tuple, inputs.is_tuple};
  return {jacobian_blocks(outs.tensors, ins, create_graph, strict), outs.is_tuple, inputs.is_tuple};
}

Jacobian hessian(const Function& func, const TensorOrTuple& inputs, bool create_graph, bool strict, bool vectorize,
                 const std::string& outer_jacobian_strategy) {
  check_strategy(outer_jacobian_strategy, create_graph, strict, vectorize);
  EnableGradGuard enable;
  if (outer_jacobian_strategy == "forward-mode") {
    // Forward over reverse: the forward-mode Jacobian of the gradient, taken (with its graph)
    // at dual inputs that require grad.
    Function gradient = [&](const Tensors& duals) {
      Tensors inner;
      for (const Tensor& d : duals) inner.push_back(requires_grad(d) ? d : set_requires_grad(d, true));
      TensorOrTuple out = func(inner);
      check_requires_grad(out.tensors, Kind::kOutputs, strict);
      check_single_output(out, "hessian");
      Tensors jac = grad_of({out[0].squeeze()}, inner, {}, /*create_graph=*/true);
      for (size_t k = 0; k < jac.size(); ++k)
        if (!jac[k].defined()) jac[k] = zeros_like(inner[k]);
      TensorOrTuple r(jac);
      r.is_tuple = inputs.is_tuple;
      return r;
    };
    bool unused = false;
    return {jacobian_blocks_forward(gradient, inputs.tensors, unused), inputs.is_tuple, inputs.is_tuple};
  }
  // The Jacobian (create_graph) of the gradient, itself a Jacobian with create_graph: the
  // inner one sees views of the outer one's inputs.
  Tensors ins = preprocess(inputs.tensors, create_graph, /*need_graph=*/true);
  Tensors inner = preprocess(ins, /*create_graph=*/true, /*need_graph=*/true);
  TensorOrTuple out = func(inner);
  check_requires_grad(out.tensors, Kind::kOutputs, strict);
  check_single_output(out, "hessian");
  Tensor scalar = out[0].squeeze();
  Tensors jac = grad_of({scalar}, inner, {}, /*create_graph=*/true);
  for (size_t k = 0; k < jac.size(); ++k)
    if (!jac[k].defined()) jac[k] = zeros_like(inner[k]);
  check_requires_grad(jac, Kind::kJacobian, strict);
  check_vectorize(vectorize, strict);
  if (vectorize) return {jacobian_blocks_vectorized(jac, ins, create_graph), inputs.is_tuple, inputs.is_tuple};
  return {jacobian_blocks(jac, ins, create_graph, strict), inputs.is_tuple, inputs.is_tuple};
}

std::pair<TensorOrTuple, TensorOrTuple> vhp(const Function& func, const TensorOrTuple& inputs,
                                            const std::optional<TensorOrTuple>& v, bool create_graph, bool strict) {
  Forward f;
  Tensors jac;
  {
    EnableGradGuard enable;
    f = forward_with_input_v(func, inputs, v, create_graph, strict, "vhp");
    jac = grad_of(f.outs.tensors, f.ins, {}, /*create_graph=*/true);
    check_requires_grad(jac, Kind::kJacobian, strict);
  }
  AutoGradMode mode(create_graph || GradMode::is_enabled());
  Tensors res = fill_in_zeros(grad_of(jac, f.ins, f.vs, create_graph), f.ins, strict, create_graph,
                              Stage::kDoubleBack);
  return results(f.outs, std::move(res), inputs.is_tuple, create_graph);
}

std::pair<TensorOrTuple, TensorOrTuple> hvp(const Function& func, const TensorOrTuple& inputs,
                                            const std::optional<TensorOrTuple>& v, bool create_graph, bool strict) {
  Forward f;
  Tensors seeds, double_back;
  {
    EnableGradGuard enable;
    f = forward_with_input_v(func, inputs, v, create_graph, strict, "hvp");
    Tensors jac = grad_of(f.outs.tensors, f.ins, {}, /*create_graph=*/true);
    check_requires_grad(jac, Kind::kJacobian, strict);
    // H v as the gradient, with respect to the seeds, of seeds^T H (double-backward trick).
    for (const Tensor& t : f.ins) seeds.push_back(set_requires_grad(zeros_like(t), true));
    double_back = grad_of(jac, f.ins, seeds, /*create_graph=*/true);
  }
  AutoGradMode mode(create_graph || GradMode::is_enabled());
  Tensors res = fill_in_zeros(grad_of(double_back, seeds, f.vs, create_graph), f.ins, strict, create_graph,
                              Stage::kDoubleBackTrick);
  return results(f.outs, std::move(res), inputs.is_tuple, create_graph);
}

}  // namespace ember::autograd::functional
