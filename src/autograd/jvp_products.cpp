// JVP rules of the products (mm, bmm, matmul, dot, mv, the fused beta * self + alpha * product
// family, linear) and of convolution: each is linear in every operand, so the tangent is the
// sum of the op applied with one operand replaced by its tangent.
#include "ember/dispatch.h"
#include "ember/forward_ad.h"
#include "ember/nn.h"
#include "ember/ops.h"
#include "ember/ops/nn.h"
#include "ember/ops/nn_conv.h"
#include "ember/ops/products.h"

namespace ember::autograd::forward_ad::product_rules {
namespace {

using Ts = std::vector<Tensor>;
using Bin = Tensor (*)(const Tensor&, const Tensor&);

Tensor plus(const Tensor& a, const Tensor& b) { return !a.defined() ? b : !b.defined() ? a : add(a, b); }

// f(ta, b) + f(a, tb) for a bilinear f.
void bilinear(const char* op, Bin f) {
  register_jvp(op, [f](const JvpContext& c) {
    const Tensor& ta = c.tangent(0);
    const Tensor& tb = c.tangent(1);
    return Ts{plus(ta.defined() ? f(ta, c.tensor(1)) : Tensor(), tb.defined() ? f(c.tensor(0), tb) : Tensor())};
  });
}

bool is_one(const Scalar& s) { return !s.is_complex() && s.to<double>() == 1.0; }

// beta * self + alpha * f(a, b)
void fused(const char* op, Bin f) {
  register_jvp(op, [f](const JvpContext& c) {
    const Scalar beta = c.scalar(3), alpha = c.scalar(4);
    const Tensor& t1 = c.tangent(1);
    const Tensor& t2 = c.tangent(2);
    Tensor p = plus(t1.defined() ? f(t1, c.tensor(2)) : Tensor(), t2.defined() ? f(c.tensor(1), t2) : Tensor());
    if (p.defined() && !is_one(alpha)) p = mul(p, alpha);
    Tensor s = c.tangent(0);
    if (s.defined() && !is_one(beta)) s = mul(s, beta);
    return Ts{plus(s, p)};
  });
}

Tensor addbmm_product(const Tensor& a, const Tensor& b) { return sum(bmm(a, b), {0}); }

EMBER_REGISTER(jvp_products) {
  bilinear("mm", [](const Tensor& a, const Tensor& b) { return mm(a, b); });
  bilinear("bmm", [](const Tensor& a, const Tensor& b) { return bmm(a, b); });
  bilinear("matmul", [](const Tensor& a, const Tensor& b) { return matmul(a, b); });
  bilinear("dot", [](const Tensor& a, const Tensor& b) { return dot(a, b); });
  bilinear("mv", [](const Tensor& a, const Tensor& b) { return mv(a, b); });
  fused("addmm", [](const Tensor& a, const Tensor& b) { return mm(a, b); });
  fused("baddbmm", [](const Tensor& a, const Tensor& b) { return bmm(a, b); });
  fused("addmv", [](const Tensor& a, const Tensor& b) { return mv(a, b); });
  fused("addbmm", &addbmm_product);
  register_jvp("linear", [](const JvpContext& c) {  // x W^T + b
    const Tensor& tx = c.tangent(0);
    const Tensor& tw = c.tangent(1);
    Tensor r = plus(tx.defined() ? linear(tx, c.tensor(1)) : Tensor(), tw.defined() ? linear(c.tensor(0), tw) : Tensor());
    return Ts{plus(r, c.tangent(2))};
  });
  // convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
  register_jvp("convolution", [](const JvpContext& c) {
    const auto stride = c.int_list(3), padding = c.int_list(4), dilation = c.int_list(5), out_pad = c.int_list(7);
    const bool transposed = c.bool_arg(6);
    const int64_t groups = c.int_arg(8);
    auto conv = [&](const Tensor& x, const Tensor& w) {
      return convolution(x, w, std::nullopt, stride, padding, dilation, transposed, out_pad, groups);
    };
    const Tensor& tx = c.tangent(0);
    const Tensor& tw = c.tangent(1);
    Tensor r = plus(tx.defined() ? conv(tx, c.tensor(1)) : Tensor(), tw.defined() ? conv(c.tensor(0), tw) : Tensor());
    if (const Tensor& tb = c.tangent(2); tb.defined()) {
      std::vector<int64_t> shape(static_cast<size_t>(c.result().dim()), 1);
      shape[1] = tb.numel();
      r = plus(r, tb.reshape(shape));
    }
    return Ts{r};
  });
}

}  // namespace
}  // namespace ember::autograd::forward_ad::product_rules
