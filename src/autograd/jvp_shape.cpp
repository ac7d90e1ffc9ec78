// JVP rules of the copying, shape and indexing ops. Each is linear in its data operand, so
// the tangent is the same op applied to the tangent (the indices, masks and fill values stay).
// Views made outside the dispatcher get their tangent in forward_ad.cpp instead.
#include "ember/dispatch.h"
#include "ember/forward_ad.h"
#include "ember/ops.h"
#include "ember/ops/indexing.h"
#include "ember/ops/nn.h"
#include "ember/ops/shape.h"

namespace ember::autograd::forward_ad::shape_rules {
namespace {

using Ts = std::vector<Tensor>;

// The op's own function applied to the tangent of argument 0.
template <typename F>
void on_tangent(const char* op, F f) {
  register_jvp(op, [f](const JvpContext& c) { return Ts{f(c, c.tangent(0))}; });
}

// The tangents of a Tensor[] argument, zeros where an element has none.
std::vector<Tensor> list_tangents(const JvpContext& c, size_t arg) {
  std::vector<Tensor> ts;
  const auto& xs = c.tensor_list(arg);
  for (size_t i = 0; i < xs.size(); ++i) {
    const Tensor& t = c.tangent_list(arg)[i];
    ts.push_back(t.defined() ? t : zeros_like(xs[i]));
  }
  return ts;
}

EMBER_REGISTER(jvp_shape) {
  on_tangent("clone", [](const JvpContext&, const Tensor& t) { return clone(t); });
  on_tangent("to.dtype", [](const JvpContext& c, const Tensor& t) { return t.to(c.result().dtype()); });
  // copy_(self, src): self's new tangent is src's (broadcast and cast by the layer)
  register_jvp("copy_", [](const JvpContext& c) { return Ts{c.tangent(1)}; });
  register_jvp("fill_.Scalar", [](const JvpContext&) { return Ts{Tensor()}; });
  register_jvp("cat", [](const JvpContext& c) { return Ts{cat(list_tangents(c, 0), c.int_arg(1))}; });
  register_jvp("stack", [](const JvpContext& c) { return Ts{stack(list_tangents(c, 0), c.int_arg(1))}; });
  on_tangent("index_select", [](const JvpContext& c, const Tensor& t) { return index_select(t, c.int_arg(1), c.tensor(2)); });
  on_tangent("gather", [](const JvpContext& c, const Tensor& t) { return gather(t, c.int_arg(1), c.tensor(2)); });
  on_tangent("take_along_dim", [](const JvpContext& c, const Tensor& t) {
    return take_along_dim(t, c.tensor(1), c.is_none(2) ? std::nullopt : std::optional<int64_t>(c.int_arg(2)));
  });
  on_tangent("flip", [](const JvpContext& c, const Tensor& t) { return flip(t, c.int_list(1)); });
  on_tangent("roll", [](const JvpContext& c, const Tensor& t) { return roll(t, c.int_list(1), c.int_list(2)); });
  on_tangent("repeat", [](const JvpContext& c, const Tensor& t) { return repeat(t, c.int_list(1)); });
  on_tangent("tril", [](const JvpContext& c, const Tensor& t) { return tril(t, c.int_arg(1)); });
  on_tangent("triu", [](const JvpContext& c, const Tensor& t) { return triu(t, c.int_arg(1)); });
  on_tangent("constant_pad_nd", [](const JvpContext& c, const Tensor& t) { return constant_pad_nd(t, c.int_list(1), 0); });
  on_tangent("masked_fill.Scalar", [](const JvpContext& c, const Tensor& t) { return masked_fill(t, c.tensor(1), 0); });
  on_tangent("embedding", [](const JvpContext& c, const Tensor& t) {
    const Tensor& idx = c.tensor(1);
    return index_select(t, 0, idx.reshape({-1})).reshape([&] {
      std::vector<int64_t> s(idx.sizes().begin(), idx.sizes().end());
      s.push_back(t.sizes()[1]);
      return s;
    }());
  });
  on_tangent("index.Tensor", [](const JvpContext& c, const Tensor& t) {
    std::vector<std::optional<Tensor>> idx;
    for (const Tensor& i : c.tensor_list(1)) idx.push_back(i.defined() ? std::optional<Tensor>(i) : std::nullopt);
    return index(t, idx);
  });
}

}  // namespace
}  // namespace ember::autograd::forward_ad::shape_rules
