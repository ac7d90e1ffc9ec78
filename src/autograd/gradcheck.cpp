// gradcheck / gradgradcheck (include/ember/gradcheck.h).
//
// Everything is compared as complex doubles. For a real function of the outputs
// L = Re(sum conj(g) * y), the gradient autograd returns for grad_output g is, by the
// conjugate Wirtinger convention, dL/dRe(x) + i dL/dIm(x) (just dL/dx for a real x). Central
// differences along Re(x) and Im(x) give the same quantity, so slow mode compares, for every
// output element and g = one-hot (and i * one-hot for complex outputs), the whole gradient;
// fast mode compares the scalar Re(<G, u>) = dL/du along one random direction u per input,
// for one random g per output.
#include "ember/gradcheck.h"

#include <cmath>
#include <complex>
#include <random>
#include <sstream>

#include "ember/ops.h"
#include "ember/random.h"

namespace ember::autograd {
namespace gradcheck_impl {

using C = std::complex<double>;

bool differentiable_dtype(const Tensor& t) { return t.defined() && (t.is_floating_point() || t.is_complex()); }

// The values of t in row-major order.
std::vector<C> values(const Tensor& t) {
  Tensor c = contiguous(to_dtype(detach(t), kComplexDouble));
  const C* p = c.data_ptr<C>();
  return std::vector<C>(p, p + c.numel());
}

// Address of row-major element i of t (any strides).
char* element(const Tensor& t, int64_t i) {
  int64_t off = 0;
  for (int64_t d = t.dim() - 1; d >= 0; --d) {
    off += (i % t.sizes()[d]) * t.strides()[d];
    i /= t.sizes()[d];
  }
  return static_cast<char*>(t.data_ptr()) + off * static_cast<int64_t>(t.element_size());
}

C get(const Tensor& t, int64_t i) {
  char* p = element(t, i);
  switch (t.scalar_type()) {
    case kDouble: return *reinterpret_cast<double*>(p);
    case kFloat: return *reinterpret_cast<float*>(p);
    case kComplexDouble: return *reinterpret_cast<C*>(p);
    case kComplexFloat: return C(*reinterpret_cast<std::complex<float>*>(p));
    case kHalf: return static_cast<float>(*reinterpret_cast<Half*>(p));
    case kBFloat16: return static_cast<float>(*reinterpret_cast<BFloat16*>(p));
    default: EMBER_FAIL(TypeError, "gradcheck: inputs of dtype ", t.dtype(), " are not supported");
  }
}

// Written to memory directly, without a version bump: the perturbation is undone before
// anything could observe it (as torch perturbs .data).
void set(const Tensor& t, int64_t i, C v) {
  char* p = element(t, i);
  switch (t.scalar_type()) {
    case kDouble: *reinterpret_cast<double*>(p) = v.real(); break;
    case kFloat: *reinterpret_cast<float*>(p) = static_cast<float>(v.real()); break;
    case kComplexDouble: *reinterpret_cast<C*>(p) = v; break;
    case kComplexFloat: *reinterpret_cast<std::complex<float>*>(p) = std::complex<float>(v); break;
    case kHalf: *reinterpret_cast<Half*>(p) = Half(static_cast<float>(v.real())); break;
    case kBFloat16: *reinterpret_cast<BFloat16*>(p) = BFloat16(static_cast<float>(v.real())); break;
    default: EMBER_FAIL(TypeError, "gradcheck: inputs of dtype ", t.dtype(), " are not supported");
  }
}

// The outputs gradcheck compares: the floating and complex ones that require grad (as torch,
// an output computed outside autograd, e.g. through NumPy, is not part of the Jacobian). With
// `all_floating`, every floating and complex output (to check that the function of inputs none
// of whose outputs are differentiable really is constant).
std::vector<Tensor> checked_outputs(const GradcheckFunction& func, const std::vector<Tensor>& inputs,
                                    bool all_floating = false) {
  std::vector<Tensor> r;
  for (Tensor& o : func(inputs))
    if (differentiable_dtype(o) && (all_floating || requires_grad(o))) r.push_back(std::move(o));
  return r;
}

// All checked outputs' values, concatenated.
std::vector<C> flat_outputs(const GradcheckFunction& func, const std::vector<Tensor>& inputs, bool all_floating) {
  std::vector<C> r;
  for (const Tensor& o : checked_outputs(func, inputs, all_floating)) {
    std::vector<C> v = values(o);
    r.insert(r.end(), v.begin(), v.end());
  }
  return r;
}

// Central difference of all outputs when x moves by eps * delta (element index -> step).
std::vector<C> central_difference(const GradcheckFunction& func, const std::vector<Tensor>& inputs, const Tensor& x,
                                  const std::vector<std::pair<int64_t, C>>& delta, double eps,
                                  bool all_floating = false) {
  std::vector<C> orig;
  for (auto [i, d] : delta) orig.push_back(get(x, i));
  auto shift = [&](double sign) {
    for (size_t j = 0; j < delta.size(); ++j) set(x, delta[j].first, orig[j] + sign * eps * delta[j].second);
  };
  shift(1);
  std::vector<C> plus = flat_outputs(func, inputs, all_floating);
  shift(-1);
  std::vector<C> minus = flat_outputs(func, inputs, all_floating);
  shift(0);
  for (size_t e = 0; e < plus.size(); ++e) plus[e] = (plus[e] - minus[e]) / (2 * eps);
  return plus;
}

std::string show(C v, bool complex) {
  std::ostringstream s;
  s.precision(10);
  if (complex) s << v.real() << (v.imag() < 0 ? "-" : "+") << std::abs(v.imag()) << "j";
  else s << v.real();
  return s.str();
}

// Zeros of o's shape in double (complex double) precision, to be filled with a grad_output and
// then converted to o's dtype (which may be float16 or bfloat16).
Tensor seed_like(const Tensor& o) { return zeros(o.sizes(), o.is_complex() ? kComplexDouble : kDouble); }

// A random unit vector of n entries (complex ones when complex).
std::vector<C> random_unit(std::mt19937_64& rng, int64_t n, bool complex) {
  std::uniform_real_distribution<double> unif(-1.0, 1.0);
  std::vector<C> v(static_cast<size_t>(n));
  double norm = 0;
  for (C& c : v) {
    c = C(unif(rng), complex ? unif(rng) : 0.0);
    norm += std::norm(c);
  }
  for (C& c : v) c /= norm > 0 ? std::sqrt(norm) : 1.0;
  return v;
}

bool close(C a, C n, const GradcheckOptions& o) { return std::abs(a - n) <= o.atol + o.rtol * std::abs(n); }

struct Checker {
  const GradcheckFunction& func;
  const std::vector<Tensor>& inputs;
  const GradcheckOptions& opt;
  std::vector<size_t> diff;  // indices of the inputs that require grad
  std::vector<Tensor> diff_inputs;
  std::vector<Tensor> outs;     // the checked outputs at the unperturbed inputs (with their graph)
  std::vector<size_t> offsets;  // where each starts in flat_outputs

  // Raises (or returns false) with msg.
  bool fail(const std::string& msg) const {
    if (opt.raise_exception) throw GradcheckError(msg);
    return false;
  }

  // The input gradients for grad_output g of out, each as values (zeros where undefined).
  // Runs backward twice to check that it is deterministic (within nondet_tol).
  bool analytical(const Tensor& out, const Tensor& g, std::vector<std::vector<C>>& result) const {
    result.clear();
    std::vector<Tensor> first;
    for (int rep = 0; rep < 2; ++rep) {
      std::vector<Tensor> r = grad({out}, diff_inputs, {g}, true, false, true);
      for (size_t k = 0; k < r.size(); ++k) {
        const Tensor& x = diff_inputs[k];
        if (r[k].defined()) {
          if (r[k].sizes() != x.sizes())
            return fail("Analytical gradient has incorrect size: expected " + detail_sizes(x) + ", got " +
                        detail_sizes(r[k]));
          if (opt.check_grad_dtypes && r[k].scalar_type() != x.scalar_type()) return fail("Gradient has dtype mismatch");
        }
        std::vector<C> v = r[k].defined() ? values(r[k]) : std::vector<C>(static_cast<size_t>(x.numel()));
        if (rep == 0) {
          result.push_back(std::move(v));
          continue;
        }
        for (size_t i = 0; i < v.size(); ++i)
          if (std::abs(v[i] - result[k][i]) > opt.nondet_tol)
            return fail("Backward is not reentrant, i.e., running backward with same input and grad_output "
                        "multiple times gives different values, although analytical gradient matches numerical "
                        "gradient. The tolerance for nondeterminism was " + show(opt.nondet_tol, false) + ".");
      }
    }
    return true;
  }

  static std::string detail_sizes(const Tensor& t) {
    std::string s = "[";
    for (size_t d = 0; d < t.sizes().size(); ++d) s += (d ? ", " : "") + std::to_string(t.sizes()[d]);
    return s + "]";
  }

  bool mismatch(size_t j, size_t k, bool imag_out, bool imag_in, C num, C ana, bool complex,
                const std::string& where) const {
    std::string prefix = imag_out  ? "While considering the imaginary part of complex outputs only, "
                         : imag_in ? "While considering the imaginary part of complex inputs only, "
                                   : "";
    return fail(prefix + "Jacobian mismatch for output " + std::to_string(j) + " with respect to input " +
                std::to_string(diff[k]) + ",\nnumerical:" + show(num, complex) + "\nanalytical:" +
                show(ana, complex) + "\n" + where);
  }

  bool slow() const {
    // numerical[k][part][i]: d outputs / d (Re, Im)(x_k[i]), flattened over the outputs.
    std::vector<std::vector<std::vector<std::vector<C>>>> numerical(diff.size());
    for (size_t k = 0; k < diff.size(); ++k) {
      const Tensor& x = diff_inputs[k];
      const std::vector<C> steps = x.is_complex() ? std::vector<C>{1.0, C(0, 1)} : std::vector<C>{1.0};
      for (C step : steps) {
        numerical[k].emplace_back();
        for (int64_t i = 0; i < x.numel(); ++i)
          numerical[k].back().push_back(central_difference(func, inputs, x, {{i, step}}, opt.eps));
      }
    }
    std::vector<std::vector<C>> ana;
    for (size_t j = 0; j < outs.size(); ++j) {
      const Tensor& o = outs[j];
      const std::vector<C> scales = o.is_complex() ? std::vector<C>{1.0, C(0, 1)} : std::vector<C>{1.0};
      for (int64_t e = 0; e < o.numel(); ++e) {
        for (C s : scales) {
          Tensor g = seed_like(o);
          set(g, e, s);
          if (!analytical(o, to_dtype(g, o.scalar_type()), ana)) return false;
          for (size_t k = 0; k < diff.size(); ++k) {
            const auto& num = numerical[k];
            for (size_t i = 0; i < ana[k].size(); ++i) {
              C want(std::real(std::conj(s) * num[0][i][offsets[j] + e]),
                     num.size() > 1 ? std::real(std::conj(s) * num[1][i][offsets[j] + e]) : 0.0);
              if (close(ana[k][i], want, opt)) continue;
              bool imag_in = num.size() > 1 && std::abs(ana[k][i].imag() - want.imag()) >
                                                   std::abs(ana[k][i].real() - want.real());
              return mismatch(j, k, s.imag() != 0, imag_in, want, ana[k][i], diff_inputs[k].is_complex(),
                              "(element " + std::to_string(e) + " of the output, element " + std::to_string(i) +
                                  " of the input)\n");
            }
          }
        }
      }
    }
    return true;
  }

  bool fast() const {
    std::mt19937_64 rng(0);
    std::vector<std::vector<C>> u;
    for (const Tensor& x : diff_inputs) u.push_back(random_unit(rng, x.numel(), x.is_complex()));
    // analytical[j][s][k] = Re(<G, u_k>) for grad_output v_j (s = 1: i * v_j).
    std::vector<std::vector<C>> v;
    std::vector<std::vector<std::vector<C>>> analytic(outs.size());
    std::vector<std::vector<C>> ana;
    for (size_t j = 0; j < outs.size(); ++j) {
      const Tensor& o = outs[j];
      v.push_back(random_unit(rng, o.numel(), o.is_complex()));
      for (C s : o.is_complex() ? std::vector<C>{1.0, C(0, 1)} : std::vector<C>{1.0}) {
        Tensor g = seed_like(o);
        for (int64_t e = 0; e < o.numel(); ++e) set(g, e, s * v[j][e]);
        if (!analytical(o, to_dtype(g, o.scalar_type()), ana)) return false;
        analytic[j].emplace_back();
        for (size_t k = 0; k < diff.size(); ++k) {
          double dot = 0;
          for (size_t i = 0; i < ana[k].size(); ++i) dot += std::real(std::conj(ana[k][i]) * u[k][i]);
          analytic[j].back().push_back(dot);
        }
      }
    }
    for (size_t k = 0; k < diff.size(); ++k) {
      std::vector<std::pair<int64_t, C>> delta;
      for (size_t i = 0; i < u[k].size(); ++i) delta.emplace_back(static_cast<int64_t>(i), u[k][i]);
      std::vector<C> ju = central_difference(func, inputs, diff_inputs[k], delta, opt.eps);
      for (size_t j = 0; j < outs.size(); ++j) {
        for (size_t s = 0; s < analytic[j].size(); ++s) {
          const C scale = s ? C(0, 1) : C(1.0);
          double num = 0;
          for (int64_t e = 0; e < outs[j].numel(); ++e)
            num += std::real(std::conj(scale * v[j][e]) * ju[offsets[j] + e]);
          if (!close(analytic[j][s][k], num, opt))
            return mismatch(j, k, s == 1, false, num, analytic[j][s][k], false,
                            "\nThe above quantities relating the numerical and analytical jacobians are computed in "
                            "fast mode: v^T J u for random vectors u (per input) and v (per output).\n");
        }
      }
    }
    return true;
  }

  // Without differentiable outputs, the floating outputs must not move with the inputs: along
  // every element (slow mode) or along one random direction per input (fast mode).
  bool no_differentiable_outputs() const {
    std::mt19937_64 rng(0);
    for (const Tensor& x : diff_inputs) {
      std::vector<std::vector<std::pair<int64_t, C>>> deltas;
      if (opt.fast_mode) {
        const std::vector<C> u = random_unit(rng, x.numel(), x.is_complex());
        deltas.emplace_back();
        for (size_t i = 0; i < u.size(); ++i) deltas.back().emplace_back(static_cast<int64_t>(i), u[i]);
      } else {
        for (C step : x.is_complex() ? std::vector<C>{1.0, C(0, 1)} : std::vector<C>{1.0})
          for (int64_t i = 0; i < x.numel(); ++i) deltas.push_back({{i, step}});
      }
      for (const auto& delta : deltas)
        for (C d : central_difference(func, inputs, x, delta, opt.eps, true))
          if (d != C(0)) return fail("Numerical gradient for function expected to be zero");
    }
    return true;
  }

  // Backward must treat undefined output gradients as zeros: gradients through a node that
  // hands undefined gradients to the outputs' history must be undefined or zero.
  bool undefined_grad() const {
    auto ctx = std::make_shared<AutogradContext>();
    std::vector<Tensor> wrapped = record_function(
        "UndefinedGrad", outs, outs, ctx,
        [](AutogradContext&, std::vector<Tensor> g) { return std::vector<Tensor>(g.size()); });
    std::vector<Tensor> ones;
    for (const Tensor& w : wrapped) ones.push_back(ones_like(detach(w)));
    const char* help = "Expected backward function to handle undefined output grads. Please look at \"Notes about "
                       "undefined output gradients\" in \"tools/autograd/derivatives.yaml\"";
    std::vector<Tensor> r;
    try {
      r = grad(wrapped, diff_inputs, ones, true, false, true);
    } catch (const Error& e) {
      return fail(std::string(help) + "\n" + e.what());
    }
    for (const Tensor& g : r)
      for (C c : g.defined() ? values(g) : std::vector<C>{})
        if (c != C(0)) return fail(help);
    return true;
  }
};

}  // namespace gradcheck_impl

bool gradcheck(const GradcheckFunction& func, const std::vector<Tensor>& inputs, const GradcheckOptions& options) {
  gradcheck_impl::Checker c{func, inputs, options, {}, {}, {}, {}};
  for (size_t k = 0; k < inputs.size(); ++k) {
    if (!inputs[k].defined() || !requires_grad(inputs[k])) continue;
    c.diff.push_back(k);
    c.diff_inputs.push_back(inputs[k]);
  }
  EMBER_CHECK(!c.diff.empty(), ValueError, "gradcheck expects at least one input tensor to require gradient, "
              "but none of the them have requires_grad=True.");
  c.outs = gradcheck_impl::checked_outputs(func, inputs);
  if (c.outs.empty()) return c.no_differentiable_outputs();
  size_t at = 0;
  for (const Tensor& o : c.outs) {
    c.offsets.push_back(at);
    at += static_cast<size_t>(o.numel());
  }
  if (!(options.fast_mode ? c.fast() : c.slow())) return false;
  return !options.check_undefined_grad || c.undefined_grad();
}

bool gradgradcheck(const GradcheckFunction& func, const std::vector<Tensor>& inputs,
                   std::optional<std::vector<Tensor>> grad_outputs, const GradcheckOptions& options,
                   bool gen_non_contig_grad_outputs) {
  auto diff_outputs = [&func](const std::vector<Tensor>& xs) { return gradcheck_impl::checked_outputs(func, xs); };
  if (!grad_outputs) {
    grad_outputs.emplace();
    Generator gen(0);
    for (const Tensor& o : diff_outputs(inputs)) {
      std::vector<int64_t> sizes(o.sizes().begin(), o.sizes().end());
      if (gen_non_contig_grad_outputs) sizes.push_back(2);  // every other element of a larger buffer
      Tensor g = randn(sizes, &gen, o.scalar_type());
      if (gen_non_contig_grad_outputs) g = g.select(-1, 0);
      grad_outputs->push_back(set_requires_grad(detach(g)));
    }
  }
  const size_t n = inputs.size();
  GradcheckFunction first = [&](const std::vector<Tensor>& args) {
    std::vector<Tensor> xs(args.begin(), args.begin() + static_cast<std::ptrdiff_t>(n));
    std::vector<Tensor> gs(args.begin() + static_cast<std::ptrdiff_t>(n), args.end());
    std::vector<Tensor> wrt;
    for (const Tensor& x : xs)
      if (x.defined() && requires_grad(x)) wrt.push_back(x);
    std::vector<Tensor> outs = diff_outputs(xs);
    std::vector<Tensor> r;
    if (outs.empty()) return r;
    for (Tensor& g : grad(outs, wrt, gs, std::nullopt, true, true))
      if (g.defined()) r.push_back(std::move(g));
    return r;
  };
  std::vector<Tensor> all = inputs;
  all.insert(all.end(), grad_outputs->begin(), grad_outputs->end());
  return gradcheck(first, all, options);
}

}  // namespace ember::autograd
