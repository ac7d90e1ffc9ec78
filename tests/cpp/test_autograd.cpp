// The autograd engine and the derivatives of the foundation ops: gradients against central
// differences in float64 (and complex128), graph bookkeeping, and the errors PyTorch raises.
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <thread>

#include "ember/autograd.h"
#include "test_util.h"

namespace ember {
namespace {

namespace ag = autograd;
using testing::as_double;
using testing::uniform;

Tensor leaf(IntArrayRef shape, unsigned seed, ScalarType dt = kDouble, double lo = -1, double hi = 1) {
  Tensor t = uniform(shape, dt, lo, hi, seed);
  ag::set_requires_grad(t);
  return t;
}

// Checks the autograd gradients of a real scalar function of `inputs` against central
// differences (real and imaginary directions for complex inputs: the conjugate Wirtinger
// convention gives dL/dRe + i dL/dIm).
void gradcheck(const std::function<Tensor(const std::vector<Tensor>&)>& f, std::vector<Tensor> inputs,
               double tol = 1e-6) {
  Tensor out = f(inputs);
  ASSERT_EQ(out.numel(), 1);
  std::vector<Tensor> grads = ag::grad({out}, inputs);
  const double eps = 1e-6;
  for (size_t k = 0; k < inputs.size(); ++k) {
    Tensor x = inputs[k];
    const bool cplx = x.is_complex();
    Tensor flat = ag::detach(x).view(x.is_contiguous() ? IntArrayRef{x.numel()} : IntArrayRef{x.numel()});
    std::vector<double> g_re = as_double(cplx ? grads[k].real() : grads[k]);
    std::vector<double> g_im = cplx ? as_double(grads[k].imag()) : std::vector<double>();
    for (int64_t i = 0; i < x.numel(); ++i) {
      for (int part = 0; part < (cplx ? 2 : 1); ++part) {
        auto eval = [&](double h) {
          ag::NoGradGuard no_grad;
          Tensor e = flat.select(0, i);
          Tensor saved = e.clone();
          if (cplx) e.add_(scalar_tensor(part ? Scalar(std::complex<double>(0, h)) : Scalar(h), x.dtype()));
          else e.add_(h);
          const double v = f(inputs).to(kDouble).item<double>();
          e.copy_(saved);
          return v;
        };
        const double num = (eval(eps) - eval(-eps)) / (2 * eps);
        const double got = part ? g_im[static_cast<size_t>(i)] : g_re[static_cast<size_t>(i)];
        EXPECT_NEAR(got, num, tol * std::max(1.0, std::abs(num))) << "input " << k << " element " << i << " part " << part;
      }
    }
  }
}

TEST(Autograd, SquareSum) {
  Tensor x = leaf({3}, 1);
  Tensor y = sum(mul(x, x));
  EXPECT_TRUE(ag::requires_grad(y));
  EXPECT_FALSE(ag::is_leaf(y));
  EXPECT_EQ(ag::grad_fn(y)->name(), "SumBackward0");
  ag::backward({y});
  EXPECT_EQ(as_double(ag::grad(x)), as_double(mul(x, 2)));
  ag::backward({sum(mul(x, x))});  // accumulates
  EXPECT_EQ(as_double(ag::grad(x)), as_double(mul(x, 4)));
}

TEST(Autograd, BroadcastingAndScalars) {
  gradcheck([](const std::vector<Tensor>& v) { return sum(mul(add(v[0], v[1], 2.5), sub(v[0], 3.0))); },
            {leaf({3, 1}, 1), leaf({1, 4}, 2)});
  gradcheck([](const std::vector<Tensor>& v) { return mean(div(v[0], v[1])); }, {leaf({2, 3}, 3), leaf({3}, 4, kDouble, 1, 2)});
  gradcheck([](const std::vector<Tensor>& v) { return sum(div(mul(v[0], 3.0), 2.0)); }, {leaf({4}, 5)});
}

TEST(Autograd, PointwiseChain) {
  gradcheck([](const std::vector<Tensor>& v) {
    Tensor x = v[0];
    return sum(add(add(mul(tanh(x), sigmoid(x)), mul(exp(neg(x)), sin(x))), add(cos(x), relu(x))));
  }, {leaf({5}, 6)});
  gradcheck([](const std::vector<Tensor>& v) { return sum(mul(log(v[0]), sqrt(v[0]))); }, {leaf({4}, 7, kDouble, 0.5, 2)});
  gradcheck([](const std::vector<Tensor>& v) { return sum(abs(v[0])); }, {leaf({4}, 8)});
  gradcheck([](const std::vector<Tensor>& v) { return sum(where(gt(v[0], 0), v[0], mul(v[1], v[1]))); },
            {leaf({5}, 9), leaf({5}, 10)});
}

TEST(Autograd, Reductions) {
  gradcheck([](const std::vector<Tensor>& v) { return sum(mul(sum(v[0], {1}), mean(v[0], {0, 1}, true))); }, {leaf({2, 3}, 11)});
  gradcheck([](const std::vector<Tensor>& v) { return sum(mul(sum(v[0], {-1}, true), v[0])); }, {leaf({2, 3}, 12)});
}

TEST(Autograd, MatrixProducts) {
  auto mm_loss = [](const std::vector<Tensor>& v) { return sum(tanh(matmul(v[0], v[1]))); };
  gradcheck(mm_loss, {leaf({3, 4}, 13), leaf({4, 2}, 14)});
  gradcheck(mm_loss, {leaf({4}, 15), leaf({4, 2}, 16)});
  gradcheck(mm_loss, {leaf({3, 4}, 17), leaf({4}, 18)});
  gradcheck(mm_loss, {leaf({4}, 19), leaf({4}, 20)});
  gradcheck(mm_loss, {leaf({2, 3, 4}, 21), leaf({4, 2}, 22)});
  gradcheck(mm_loss, {leaf({2, 1, 3, 4}, 23), leaf({3, 4, 2}, 24)});
  gradcheck([](const std::vector<Tensor>& v) { return sum(bmm(v[0], v[1])); }, {leaf({2, 3, 4}, 25), leaf({2, 4, 2}, 26)});
}

TEST(Autograd, Views) {
  gradcheck([](const std::vector<Tensor>& v) {
    Tensor x = v[0];
    Tensor y = mul(x.permute({1, 0}), x.t());
    return sum(mul(y.select(0, 1), x.narrow(1, 0, 2).sum({1}))) ;
  }, {leaf({2, 2}, 27)});
  gradcheck([](const std::vector<Tensor>& v) {
    Tensor x = v[0];
    return sum(mul(x.unsqueeze(0).expand({3, 2, 4}), x.view({4, 2}).t().contiguous().unsqueeze(0)));
  }, {leaf({2, 4}, 28)});
  gradcheck([](const std::vector<Tensor>& v) { return sum(exp(v[0].slice(0, 1, std::nullopt, 2))); }, {leaf({6}, 29)});
}

TEST(Autograd, ComplexFollowsConjugateWirtinger) {
  gradcheck([](const std::vector<Tensor>& v) { return sum(abs(mul(v[0], v[1]))); },
            {leaf({3}, 30, kComplexDouble), leaf({3}, 31, kComplexDouble)});
  // d|z|/dz* convention: the gradient of |z| is z / |z|.
  Tensor z = leaf({2}, 32, kComplexDouble);
  ag::backward({sum(abs(z))});
  Tensor want = div(z, abs(z));
  EXPECT_EQ(as_double(ag::grad(z).real()), as_double(want.real()));
}

TEST(Autograd, HigherOrder) {
  Tensor x = leaf({3}, 33);
  Tensor y = sum(mul(mul(x, x), x));
  std::vector<Tensor> g = ag::grad({y}, {x}, {}, std::nullopt, /*create_graph=*/true);
  EXPECT_TRUE(ag::requires_grad(g[0]));
  std::vector<double> want = as_double(mul(mul(x, x), 3));
  std::vector<double> got = as_double(g[0]);
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-12);
  std::vector<Tensor> h = ag::grad({sum(g[0])}, {x});
  std::vector<double> want2 = as_double(mul(x, 6));
  std::vector<double> got2 = as_double(h[0]);
  for (size_t i = 0; i < got2.size(); ++i) EXPECT_NEAR(got2[i], want2[i], 1e-12);
}

TEST(Autograd, SecondBackwardWithoutRetainRaises) {
  Tensor x = leaf({3}, 34);
  Tensor y = sum(exp(x));
  ag::backward({y});
  testing::expect_error<RuntimeError>([&] { ag::backward({y}); }, "backward through the graph a second time");
  Tensor z = sum(exp(x));
  ag::backward({z}, {}, /*retain_graph=*/true);
  ag::backward({z});  // retained
}

TEST(Autograd, ModifiedSavedTensorRaises) {
  Tensor x = leaf({3}, 35);
  Tensor y = exp(x);
  Tensor z = sum(y);
  Tensor w = sum(mul(y, y));
  y.add_(1);  // y is saved by ExpBackward0 and MulBackward0
  testing::expect_error<RuntimeError>([&] { ag::backward({w}); }, "modified by an inplace operation");
  (void)z;
}

TEST(Autograd, InPlaceOnLeafRaisesAndInPlaceRebasesHistory) {
  Tensor x = leaf({3}, 36);
  testing::expect_error<RuntimeError>([&] { x.mul_(2.0); }, "leaf Variable that requires grad");
  Tensor y = mul(x, 1.0);
  y.mul_(ag::detach(x));  // y := x * x (the second factor a constant)
  y.add_(x);
  ag::backward({sum(y)});
  std::vector<double> want = as_double(add(x, 1.0));
  std::vector<double> got = as_double(ag::grad(x));
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-12);
}

TEST(Autograd, InPlaceThroughViewsRebasesTheBase) {
  // z = clone(x) with z[1] := y[0] * 3 and z[::2] *= 2: dz/dx and dz/dy as PyTorch's CopySlices gives.
  Tensor x = leaf({4}, 43), y = leaf({2}, 44);
  Tensor z = mul(x, 1.0);
  z.select(0, 1).copy_(mul(y.select(0, 0), 3.0));
  z.slice(0, 0, std::nullopt, 2).mul_(2.0);
  ag::backward({sum(mul(z, z))});
  std::vector<double> xv = as_double(x), yv = as_double(y), gx = as_double(ag::grad(x)), gy = as_double(ag::grad(y));
  const std::vector<double> want_x = {8 * xv[0], 0, 8 * xv[2], 2 * xv[3]};
  for (size_t i = 0; i < 4; ++i) EXPECT_NEAR(gx[i], want_x[i], 1e-12) << i;
  EXPECT_NEAR(gy[0], 18 * yv[0], 1e-12);
  EXPECT_NEAR(gy[1], 0, 1e-12);
  // A view of a leaf that requires grad may not be written in place.
  testing::expect_error<RuntimeError>([&] { x.select(0, 0).mul_(2.0); }, "view of a leaf Variable");
  // A fresh tensor that did not require grad starts to, through the write.
  Tensor w = zeros({3}, kDouble);
  w.select(0, 2).copy_(y.select(0, 1));
  EXPECT_TRUE(ag::requires_grad(w));
}

TEST(Autograd, NoGradRecordsNothing) {
  Tensor x = leaf({3}, 37);
  Tensor y;
  {
    ag::NoGradGuard g;
    y = exp(x);
  }
  EXPECT_FALSE(ag::requires_grad(y));
  EXPECT_FALSE(y.key_set().has(DispatchKey::Autograd));
  Tensor d = ag::detach(x);
  EXPECT_FALSE(ag::requires_grad(d));
  EXPECT_TRUE(d.is_alias_of(x));
}

TEST(Autograd, HooksAndRetainGrad) {
  Tensor x = leaf({3}, 38);
  Tensor y = mul(x, 2.0);
  ag::retain_grad(y);
  const int64_t h = ag::register_hook(x, [](const Tensor& g) { return mul(g, 10.0); });
  ag::backward({sum(y)});
  EXPECT_EQ(as_double(ag::grad(y)), std::vector<double>(3, 1.0));
  EXPECT_EQ(as_double(ag::grad(x)), std::vector<double>(3, 20.0));
  ag::remove_hook(x, h);
  ag::set_grad(x, Tensor());
  ag::backward({sum(mul(x, 2.0))});
  EXPECT_EQ(as_double(ag::grad(x)), std::vector<double>(3, 2.0));
}

// Node post hooks (grad_fn->register_hook): what they see, replacement, order, removal.
TEST(Autograd, NodePostHooks) {
  Tensor x = leaf({3}, 41), w = leaf({3}, 42);
  Tensor y = mul(x, w);
  std::shared_ptr<ag::Node> fn = ag::grad_fn(y);
  std::vector<std::string> order;
  std::vector<Tensor> seen_in, seen_out;
  fn->register_hook([&](const std::vector<Tensor>& gi, const std::vector<Tensor>& go)
                        -> std::optional<std::vector<Tensor>> {
    order.push_back("first");
    seen_in = gi;
    seen_out = go;
    return std::vector<Tensor>{mul(gi[0], 3.0), Tensor()};  // scale x's gradient, drop w's
  });
  const int64_t second = fn->register_hook([&](const std::vector<Tensor>& gi, const std::vector<Tensor>&)
                                               -> std::optional<std::vector<Tensor>> {
    order.push_back("second");
    EXPECT_FALSE(gi[1].defined());  // sees the first hook's result
    return std::nullopt;
  });
  ag::backward({sum(y)}, {}, /*retain_graph=*/true);
  EXPECT_EQ(order, (std::vector<std::string>{"first", "second"}));
  ASSERT_EQ(seen_in.size(), 2u);
  ASSERT_EQ(seen_out.size(), 1u);
  EXPECT_EQ(as_double(seen_out[0]), std::vector<double>(3, 1.0));
  EXPECT_EQ(as_double(seen_in[0]), as_double(w));
  EXPECT_EQ(as_double(seen_in[1]), as_double(x));
  std::vector<double> want = as_double(w);
  for (double& v : want) v *= 3;
  EXPECT_EQ(as_double(ag::grad(x)), want);
  EXPECT_FALSE(ag::grad(w).defined());

  // Removed: only the first runs again.
  fn->remove_hook(second);
  fn->remove_hook(second);  // twice: nothing
  order.clear();
  ag::backward({sum(y)}, {}, true);
  EXPECT_EQ(order, std::vector<std::string>{"first"});

  // grad() computes nothing for an input it does not want: the hook sees it undefined.
  Tensor z = mul(x, w);
  std::vector<Tensor> gi_z;
  ag::grad_fn(z)->register_hook([&](const std::vector<Tensor>& gi, const std::vector<Tensor>&)
                                    -> std::optional<std::vector<Tensor>> {
    gi_z = gi;
    return std::nullopt;
  });
  ag::grad({sum(z)}, {x});
  ASSERT_EQ(gi_z.size(), 2u);
  EXPECT_TRUE(gi_z[0].defined());
  EXPECT_FALSE(gi_z[1].defined());

  // The wrong number of values is an error.
  Tensor u = mul(x, w);
  ag::grad_fn(u)->register_hook([](const std::vector<Tensor>& gi, const std::vector<Tensor>&)
                                    -> std::optional<std::vector<Tensor>> { return std::vector<Tensor>{gi[0]}; });
  testing::expect_error<RuntimeError>([&] { ag::backward({sum(u)}); }, "incorrect number of values (got 1, but expected 2)");
}

TEST(Autograd, GradOfUnusedAndErrors) {
  Tensor x = leaf({3}, 39), u = leaf({3}, 40);
  Tensor y = sum(exp(x));
  testing::expect_error<RuntimeError>([&] { ag::grad({y}, {x, u}, {}, true); }, "not have been used in the graph");
  std::vector<Tensor> g = ag::grad({y}, {x, u}, {}, std::nullopt, false, /*allow_unused=*/true);
  EXPECT_TRUE(g[0].defined());
  EXPECT_FALSE(g[1].defined());
  EXPECT_FALSE(ag::grad(x).defined());  // grad() does not accumulate
  Tensor v = exp(x);
  testing::expect_error<RuntimeError>([&] { ag::backward({v}); }, "only for scalar outputs");
  Tensor i = ones({2}, kInt64);
  testing::expect_error<RuntimeError>([&] { ag::set_requires_grad(i); }, "floating point and complex");
  Tensor f = std::get<0>(aminmax(x));  // no derivative, as in PyTorch 1.13
  testing::expect_error<NotImplementedError>([&] { ag::backward({f}); }, "derivative for 'aminmax'");
  Tensor o = empty({3}, kDouble);
  testing::expect_error<RuntimeError>([&] { mul_out(o, x, x); }, "out=... arguments don't support automatic differentiation");
}

struct ScaledSquare : ag::Function<ScaledSquare> {
  static Tensor forward(ag::AutogradContext* ctx, const Tensor& x, double k) {
    ctx->save_for_backward({x});
    ctx->saved_data["k"] = k;
    return mul(mul(x, x), k);
  }
  static std::vector<Tensor> backward(ag::AutogradContext* ctx, std::vector<Tensor> g) {
    const Tensor x = ctx->get_saved_variables()[0];
    return {mul(mul(g[0], x), 2 * ctx->saved_data["k"].to<double>())};
  }
};

TEST(Autograd, CustomFunction) {
  Tensor x = leaf({3}, 41);
  Tensor y = ScaledSquare::apply(x, 1.5);
  EXPECT_EQ(ag::grad_fn(y)->name(), "CppNode");
  ag::backward({sum(y)}, {}, /*retain_graph=*/true);
  std::vector<double> want = as_double(mul(x, 3.0)), got = as_double(ag::grad(x));
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-12);
  {
    ag::NoGradGuard g;
    EXPECT_FALSE(ag::requires_grad(ScaledSquare::apply(x, 1.0)));
  }
  Tensor z = ScaledSquare::apply(mul(x, 1.0), 1.0);
  ag::backward({sum(z)});
  testing::expect_error<RuntimeError>([&] { ag::backward({sum(z)}); }, "second time");
}

// A backward that runs a backward pass of its own (reentrant), as checkpointing does.
struct ReentrantSquare : ag::Function<ReentrantSquare> {
  static Tensor forward(ag::AutogradContext* ctx, const Tensor& x) {
    ctx->save_for_backward({x});
    return mul(x, x);
  }
  static std::vector<Tensor> backward(ag::AutogradContext* ctx, std::vector<Tensor> g) {
    Tensor x = ag::detach(ctx->get_saved_variables()[0]);
    ag::set_requires_grad(x);
    Tensor y;
    {
      ag::EnableGradGuard enable;
      y = sum(mul(x, x));
    }
    return {mul(ag::grad({y}, {x})[0], g[0])};
  }
};

TEST(Autograd, ReentrantBackward) {
  Tensor x = leaf({4}, 42);
  ag::backward({sum(ReentrantSquare::apply(x))});
  std::vector<double> want = as_double(mul(x, 2.0)), got = as_double(ag::grad(x));
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-12);
}

TEST(Autograd, ConcurrentBackwardOnIndependentGraphs) {
  constexpr int kThreads = 4, kIters = 200;
  std::vector<std::vector<double>> got(kThreads);
  std::vector<Tensor> xs;
  for (int t = 0; t < kThreads; ++t) xs.push_back(leaf({8}, 50 + t));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kIters; ++i) {
        Tensor y = sum(mul(tanh(xs[t]), exp(xs[t])));
        got[t] = as_double(ag::grad({y}, {xs[t]})[0]);
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) {
    Tensor x = xs[t];
    Tensor th = tanh(ag::detach(x)), e = exp(ag::detach(x));
    std::vector<double> want = as_double(add(mul(add(neg(mul(th, th)), 1.0), e), mul(th, e)));
    for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[t][i], want[i], 1e-12) << "thread " << t;
  }
}

TEST(Autograd, SharedLeafAccumulatesFromConcurrentPasses) {
  Tensor x = leaf({16}, 60);
  constexpr int kThreads = 4, kIters = 100;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < kIters; ++i) ag::backward({sum(mul(x, 2.0))});
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(as_double(ag::grad(x)), std::vector<double>(16, 2.0 * kThreads * kIters));
}

// Views made before an in-place write on their base, or on another view of it, replay their
// geometry on the base's new history: a stale history would give x's old gradient.
TEST(Autograd, ViewsMadeBeforeInPlaceWritesRegenerate) {
  gradcheck([](const std::vector<Tensor>& in) {
    Tensor x = clone(in[0]);
    Tensor rows = x.slice(0, 1), tr = x.t(), first = x.select(0, 0);
    x.mul_(in[0]);  // x = a * a
    Tensor out = add(sum(exp(rows)), sum(exp(tr)));  // exp saves its result, not the views
    first.mul_(in[1]);  // a sibling of rows and tr written in place
    return add(add(out, sum(mul(rows, tr.t().slice(0, 1)))), sum(first));
  }, {leaf({3, 4}, 51), leaf({4}, 52)});
  Tensor a = leaf({2, 3}, 53);
  Tensor x = clone(a);
  Tensor v = x.slice(1, 1);
  x.mul_(2);
  EXPECT_EQ(ag::grad_fn(v)->name(), "AsStridedBackward0");
  EXPECT_EQ(ag::grad_fn(v)->next_edges()[0].fn->name(), "MulBackward0");
}

// create_graph through strided and overlapping views and CopySlices: the first gradient is a
// function of x again, differentiated against central differences.
TEST(Autograd, DoubleBackwardThroughViewsAndCopySlices) {
  auto first_grad = [](const Tensor& x) {
    ag::AutoGradMode grad_mode(true);  // also while gradcheck evaluates without grad
    Tensor y = clone(x);
    y.slice(0, 1).mul_(x.slice(0, 0, 3));  // CopySlices
    Tensor z = add(pow(y.t().slice(0, 1), 3), pow(x.select(0, 0).expand({3, 4}), 2));
    return ag::grad({sum(mul(z, sin(z)))}, {x}, {}, std::nullopt, /*create_graph=*/true)[0];
  };
  gradcheck([&](const std::vector<Tensor>& in) { return sum(mul(first_grad(in[0]), first_grad(in[0]))); },
            {leaf({4, 4}, 54)}, 1e-5);
}

// A backward pass that raises midway changes no leaf's .grad, whichever node fails.
TEST(Autograd, FailedPassAccumulatesNothing) {
  Tensor a = leaf({3}, 55), b = leaf({3}, 56);
  ag::set_grad(a, full({3}, 5.0, kDouble));
  Tensor t = exp(b);
  Tensor r = add(sum(mul(a, 2.0)), sum(mul(t, b)));
  t.add_(1);
  testing::expect_error<RuntimeError>([&] { ag::backward({r}); }, "modified by an inplace operation");
  EXPECT_EQ(as_double(ag::grad(a)), std::vector<double>(3, 5.0));
  EXPECT_FALSE(ag::grad(b).defined());
  Tensor c = mul(b, 1.0);
  ag::register_hook(c, [](const Tensor&) -> Tensor { EMBER_FAIL(ValueError, "hook failed"); });
  testing::expect_error<ValueError>([&] { ag::backward({add(sum(mul(a, 2.0)), sum(c))}); }, "hook failed");
  EXPECT_EQ(as_double(ag::grad(a)), std::vector<double>(3, 5.0));
  EXPECT_FALSE(ag::grad(b).defined());
}

}  // namespace
}  // namespace ember

namespace ember::autograd_anomaly_tests {

// b = x * [inf, 1]; backward of (b * 0) gives 0 * inf = NaN in b's MulBackward0.
Tensor nan_graph(Tensor& x) {
  x = zeros({2}, kDouble);
  ag::set_requires_grad(x);
  Tensor b = mul(x, tensor<double>({std::numeric_limits<double>::infinity(), 1.0}));
  return sum(mul(b, 0.0));
}

TEST(AutogradAnomaly, Flags) {
  EXPECT_FALSE(ag::AnomalyMode::is_enabled());
  {
    ag::DetectAnomalyGuard on(/*check_nan=*/false);
    EXPECT_TRUE(ag::AnomalyMode::is_enabled());
    EXPECT_FALSE(ag::AnomalyMode::should_check_nan());
    {
      ag::DetectAnomalyGuard inner;
      EXPECT_TRUE(ag::AnomalyMode::should_check_nan());
    }
    EXPECT_FALSE(ag::AnomalyMode::should_check_nan());
  }
  EXPECT_FALSE(ag::AnomalyMode::is_enabled());
  EXPECT_TRUE(ag::AnomalyMode::should_check_nan());
}

TEST(AutogradAnomaly, NanGradientNamesTheNodeAndWhereItWasMade) {
  Tensor x;
  {
    ag::DetectAnomalyGuard guard;
    Tensor y = nan_graph(x);
    try {
      ag::backward({y});
      ADD_FAILURE() << "expected an error";
    } catch (const RuntimeError& e) {
      // Without the Python layer the report goes into the message, with a native backtrace.
      const std::string m = e.what();
      EXPECT_EQ(m.find("Function 'MulBackward0' returned nan values in its 0th output.\nError detected in "
                       "MulBackward0. Traceback of forward call that caused the error:\n"), 0u) << m;
      EXPECT_NE(m.find("ember::mul"), std::string::npos) << m;
    }
  }
  // check_nan off, or anomaly mode off: the NaN passes through.
  for (bool anomaly : {true, false}) {
    std::optional<ag::DetectAnomalyGuard> guard;
    if (anomaly) guard.emplace(/*check_nan=*/false);
    ag::backward({nan_graph(x)});
    EXPECT_TRUE(std::isnan(as_double(ag::grad(x))[0]));
  }
}

TEST(AutogradAnomaly, ErrorsInsideANodeAndNodesMadeBeforeTheMode) {
  Tensor x;
  Tensor y = nan_graph(x);  // made outside anomaly mode: no traceback
  ag::DetectAnomalyGuard guard;
  testing::expect_error<RuntimeError>([&] { ag::backward({y}); },
                                      "Error detected in MulBackward0. No forward pass information available. Enable "
                                      "detect anomaly during forward pass for more information.");
  Tensor z = leaf({2}, 3);
  Tensor w = sum(mul(z, z));
  ag::backward({w});
  testing::expect_error<RuntimeError>([&] { ag::backward({w}); }, "backward through the graph a second time");
  testing::expect_error<RuntimeError>([&] { ag::backward({w}); }, "Error detected in MulBackward0. Traceback");
}

struct NanFn : ag::Function<NanFn> {
  static Tensor forward(ag::AutogradContext*, const Tensor& x) { return mul(x, 1.0); }
  static std::vector<Tensor> backward(ag::AutogradContext*, std::vector<Tensor> g) {
    return {mul(g[0], std::numeric_limits<double>::quiet_NaN())};
  }
};

TEST(AutogradAnomaly, CustomFunctionNodes) {
  ag::DetectAnomalyGuard guard;
  Tensor x = leaf({2}, 4);
  testing::expect_error<RuntimeError>([&] { ag::backward({sum(NanFn::apply(x))}); },
                                      "Function 'CppNode' returned nan values in its 0th output.\nError detected in "
                                      "CppNode. Traceback");
}

TEST(InferenceMode, TensorsAndModes) {
  Tensor normal = leaf({3}, 5);
  Tensor plain = ones({3});
  Tensor x, v, nv;
  {
    InferenceMode guard;
    EXPECT_TRUE(InferenceMode::is_enabled());
    EXPECT_FALSE(ag::GradMode::is_enabled());
    x = ones({3});
    EXPECT_TRUE(x.is_inference());
    Tensor r = mul(normal, 2.0);  // no graph, even with grad mode back on
    EXPECT_FALSE(ag::requires_grad(r));
    {
      ag::EnableGradGuard grad;
      EXPECT_FALSE(ag::requires_grad(mul(normal, 2.0)));
    }
    nv = plain.view({3});  // a view of a normal tensor is normal
    EXPECT_FALSE(nv.is_inference());
    plain.add_(1.0);  // in-place on normal and inference tensors is fine inside
    x.add_(1.0);
    {
      InferenceMode off(false);
      EXPECT_FALSE(InferenceMode::is_enabled());
      EXPECT_TRUE(ag::GradMode::is_enabled());
      EXPECT_FALSE(ones({1}).is_inference());
      EXPECT_TRUE(ag::requires_grad(mul(normal, 2.0)));
    }
  }
  EXPECT_FALSE(InferenceMode::is_enabled());
  EXPECT_TRUE(ag::GradMode::is_enabled());
  v = x.slice(0, 1, 3);  // a view of an inference tensor is one, even outside
  EXPECT_TRUE(v.is_inference());
  EXPECT_FALSE(mul(x, 2.0).is_inference());
  const std::string inplace = "Inplace update to inference tensor outside InferenceMode is not allowed.";
  testing::expect_error<RuntimeError>([&] { x.add_(1.0); }, inplace);
  testing::expect_error<RuntimeError>([&] { v.mul_(2.0); }, inplace);
  testing::expect_error<RuntimeError>([&] { ag::set_requires_grad(x); },
                                      "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.");
  const std::string save = "Inference tensors cannot be saved for backward.";
  testing::expect_error<RuntimeError>([&] { mul(normal, x); }, save);
  ag::backward({sum(add(normal, x))});  // add saves nothing
  EXPECT_EQ(as_double(ag::grad(normal)), std::vector<double>(3, 1.0));
  struct Saves : ag::Function<Saves> {
    static Tensor forward(ag::AutogradContext* ctx, const Tensor& a, const Tensor& k) {
      ctx->save_for_backward({k});
      return mul(a, k);
    }
    static std::vector<Tensor> backward(ag::AutogradContext*, std::vector<Tensor> g) { return {g[0], Tensor()}; }
  };
  testing::expect_error<RuntimeError>([&] { Saves::apply(normal, x); }, save);
}

TEST(InferenceMode, IsPerThread) {
  InferenceMode guard;
  bool other_inference = true, other_enabled = true;
  std::thread([&] {
    other_enabled = InferenceMode::is_enabled();
    other_inference = ones({1}).is_inference();
  }).join();
  EXPECT_FALSE(other_enabled);
  EXPECT_FALSE(other_inference);
  EXPECT_TRUE(ones({1}).is_inference());
}

}  // namespace ember::autograd_anomaly_tests
