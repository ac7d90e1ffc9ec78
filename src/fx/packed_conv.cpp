// PackedConv2d (include/ember/fx/packed_conv.h): an inference-only oneDNN convolution with its
// weights packed once and bias, residual sum and ReLU fused as post-ops.
//
// Compiled outside the unity batches (CMakeLists.txt) so that dnnl.hpp stays in this file.
#include "ember/fx/packed_conv.h"

#include <dnnl.hpp>

#include <chrono>
#include <map>
#include <mutex>

#include "ember/autograd.h"
#include "ember/error.h"
#include "ember/ops.h"

namespace ember::fx {
namespace {

using dnnl::memory;
using Dims = memory::dims;
constexpr auto f32 = memory::data_type::f32;

dnnl::engine& engine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}
dnnl::stream& stream() {
  thread_local dnnl::stream s(engine());
  return s;
}

Tensor buffer(size_t bytes) { return empty({static_cast<int64_t>((bytes + 3) / 4) + 1}, kFloat); }

bool is_blocked(const Tensor& t) { return t.dim() == 5 && t.size(4) == 16; }

// [N, C, H, W] of a dense or blocked activation.
Dims logical_dims(const Tensor& t) {
  if (is_blocked(t)) return {t.size(0), t.size(1) * 16, t.size(2), t.size(3)};
  return {t.size(0), t.size(1), t.size(2), t.size(3)};
}

// The memory descriptor of an activation as the tensor holds it.
memory::desc activation_md(const Tensor& t) {
  if (is_blocked(t)) return memory::desc(logical_dims(t), f32, memory::format_tag::nChw16c);
  return memory::desc(Dims(t.sizes().begin(), t.sizes().end()), f32, Dims(t.strides().begin(), t.strides().end()));
}

// `t`'s contents in layout `want`: t itself when the layouts agree, else a reordered copy.
memory in_layout(const Tensor& t, const memory::desc& want, Tensor& holder) {
  memory::desc have = activation_md(t);
  memory m(have, engine(), t.data_ptr());
  if (have == want) return m;
  holder = buffer(want.get_size());
  memory w(want, engine(), holder.data_ptr());
  dnnl::reorder(m, w).execute(stream(), m, w);
  return w;
}

}  // namespace

struct PackedConv2d::Impl {
  Tensor weight, bias;  // contiguous float32 snapshots
  Dims stride, padding, dilation;  // dilation as oneDNN counts it (gaps)
  int64_t groups;
  bool relu;

  struct Plan {
    dnnl::convolution_forward prim;
    memory::desc src, dst, scratch;
    memory weights, bias;
    Tensor packed;  // owns the packed weights
    std::string impl;
  };
  mutable std::mutex mu;
  mutable std::map<std::vector<int64_t>, std::shared_ptr<Plan>> plans;
  mutable std::string last_impl;

  Dims out_dims(const Dims& in) const {
    Dims o{in[0], weight.size(0), 0, 0};
    for (int d = 0; d < 2; ++d) {
      const int64_t k = (dilation[d] + 1) * (weight.size(d + 2) - 1) + 1;
      o[d + 2] = (in[d + 2] + 2 * padding[d] - k) / stride[d] + 1;
    }
    return o;
  }

  std::shared_ptr<Plan> build(const Dims& in, bool residual, dnnl::algorithm algo) const {
    const Dims out = out_dims(in);
    // nChw16c where the channels allow it, so consecutive layers need no reorder.
    auto act = [](const Dims& d) {
      return memory::desc(d, f32, d[1] % 16 == 0 ? memory::format_tag::nChw16c : memory::format_tag::any);
    };
    Dims wd(weight.sizes().begin(), weight.sizes().end());
    if (groups > 1) {
      wd[0] /= groups;
      wd.insert(wd.begin(), groups);
    }
    memory::desc w_any(wd, f32, memory::format_tag::any);
    memory::desc b_md({weight.size(0)}, f32, memory::format_tag::a);
    dnnl::post_ops ops;
    if (residual) ops.append_sum(1.0f);
    if (relu) ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
    dnnl::primitive_attr attr;
    attr.set_post_ops(ops);
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    dnnl::convolution_forward::primitive_desc pd(
        dnnl::convolution_forward::desc(dnnl::prop_kind::forward_inference, algo, act(in), w_any, b_md, act(out),
                                        stride, dilation, padding, padding),
        attr, engine());
    auto plan = std::make_shared<Plan>();
    plan->prim = dnnl::convolution_forward(pd);
    plan->src = pd.src_desc();
    plan->dst = pd.dst_desc();
    plan->scratch = pd.scratchpad_desc();
    plan->impl = pd.impl_info_str();
    // The weights, packed once (for Winograd: already transformed).
    memory::desc user_w(wd, f32, groups > 1 ? memory::format_tag::goihw : memory::format_tag::oihw);
    memory uw(user_w, engine(), weight.data_ptr());
    plan->packed = buffer(pd.weights_desc().get_size());
    plan->weights = memory(pd.weights_desc(), engine(), plan->packed.data_ptr());
    dnnl::reorder(uw, plan->weights).execute(stream(), uw, plan->weights);
    plan->bias = memory(b_md, engine(), bias.data_ptr());
    stream().wait();
    return plan;
  }

  void execute(const Plan& p, const memory& src, const memory& dst) const {
    Tensor scratch;
    std::unordered_map<int, memory> args{{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, p.weights},
                                         {DNNL_ARG_BIAS, p.bias}, {DNNL_ARG_DST, dst}};
    if (p.scratch.get_size() > 0) {
      scratch = buffer(p.scratch.get_size());
      args.emplace(DNNL_ARG_SCRATCHPAD, memory(p.scratch, engine(), scratch.data_ptr()));
    }
    p.prim.execute(stream(), args);
  }

  // Seconds per run of `p` on scratch data (best of 3 after a warm-up).
  double time(const Plan& p) const {
    Tensor s = zeros({static_cast<int64_t>(p.src.get_size() / 4) + 1}, kFloat);
    Tensor d = zeros({static_cast<int64_t>(p.dst.get_size() / 4) + 1}, kFloat);
    memory sm(p.src, engine(), s.data_ptr()), dm(p.dst, engine(), d.data_ptr());
    double best = 1e30;
    for (int i = 0; i < 4; ++i) {
      auto t0 = std::chrono::steady_clock::now();
      execute(p, sm, dm);
      stream().wait();
      const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (i > 0) best = std::min(best, t);
    }
    return best;
  }

  // Winograd is a candidate for 3x3 stride-1 dense convolutions; with its weights
  // pre-transformed its cost depends on shapes and machine, so each shape times both
  // algorithms once and keeps the faster (like cudnn.benchmark).
  std::shared_ptr<Plan> plan_for(const Dims& in, bool residual) const {
    std::vector<int64_t> key(in.begin(), in.end());
    key.push_back(residual);
    std::lock_guard<std::mutex> lock(mu);
    auto it = plans.find(key);
    if (it != plans.end()) return it->second;
    std::shared_ptr<Plan> plan = build(in, residual, dnnl::algorithm::convolution_direct);
    const bool wino = groups == 1 && weight.size(2) == 3 && weight.size(3) == 3 && stride[0] == 1 &&
                      stride[1] == 1 && dilation[0] == 0 && dilation[1] == 0;
    if (wino) {
      try {
        auto w = build(in, residual, dnnl::algorithm::convolution_winograd);
        if (time(*w) < time(*plan)) plan = w;
      } catch (const dnnl::error&) {
        // no Winograd implementation for this case on this machine
      }
    }
    if (plans.size() >= 64) plans.clear();
    plans[key] = plan;
    return plan;
  }
};

PackedConv2d::PackedConv2d(const Tensor& weight, const std::optional<Tensor>& bias, std::vector<int64_t> stride,
                           std::vector<int64_t> padding, std::vector<int64_t> dilation, int64_t groups, bool relu)
    : impl_(std::make_shared<Impl>()) {
  EMBER_CHECK(weight.defined() && weight.dim() == 4, ValueError,
              "PackedConv2d: expected a 4-dimensional weight, got ", weight.defined() ? weight.dim() : 0, " dims");
  EMBER_CHECK(weight.dtype() == kFloat, TypeError, "PackedConv2d: only float32 weights are supported, got ",
              weight.dtype());
  EMBER_CHECK(stride.size() == 2 && padding.size() == 2 && dilation.size() == 2, ValueError,
              "PackedConv2d: stride, padding and dilation need 2 values each");
  EMBER_CHECK(groups >= 1 && weight.size(0) % groups == 0, ValueError, "PackedConv2d: invalid groups=", groups);
  autograd::AutoGradMode no_grad(false);
  Impl& m = *impl_;
  m.weight = weight.detach().contiguous().clone();
  m.bias = bias ? bias->detach().to(kFloat).contiguous().clone() : zeros({weight.size(0)}, kFloat);
  EMBER_CHECK(m.bias.dim() == 1 && m.bias.size(0) == weight.size(0), ValueError,
              "PackedConv2d: expected a bias of ", weight.size(0), " elements, got shape ", m.bias.sizes());
  m.stride = Dims(stride.begin(), stride.end());
  m.padding = Dims(padding.begin(), padding.end());
  for (int64_t d : dilation) m.dilation.push_back(d - 1);
  m.groups = groups;
  m.relu = relu;
}

Tensor PackedConv2d::run(const Tensor& x, const std::optional<Tensor>& residual, bool blocked_out) const {
  const Impl& m = *impl_;
  EMBER_CHECK(x.defined() && x.dtype() == kFloat && (x.dim() == 4 || is_blocked(x)), ValueError,
              "PackedConv2d: expected a float32 [N, C, H, W] input, got ",
              x.defined() ? x.sizes() : IntArrayRef());
  EMBER_CHECK(!is_blocked(x) || x.is_contiguous(), ValueError, "PackedConv2d: a blocked input must be contiguous");
  const Dims in = logical_dims(x);
  EMBER_CHECK(in[1] == m.weight.size(1) * m.groups, RuntimeError, "PackedConv2d: expected input with ",
              m.weight.size(1) * m.groups, " channels, but got ", in[1], " channels instead");
  const Dims out = m.out_dims(in);
  EMBER_CHECK(out[2] > 0 && out[3] > 0, RuntimeError, "PackedConv2d: input ", x.sizes(), " is smaller than the kernel");
  if (residual) {
    EMBER_CHECK(residual->dtype() == kFloat && (residual->dim() == 4 || is_blocked(*residual)) &&
                    logical_dims(*residual) == out,
                RuntimeError, "PackedConv2d: the residual ", residual->sizes(), " does not match the output [",
                out[0], ", ", out[1], ", ", out[2], ", ", out[3], "]");
  }
  auto plan = m.plan_for(in, residual.has_value());
  Tensor hx;
  memory src = in_layout(x, plan->src, hx);
  Tensor y = blocked_out && out[1] % 16 == 0 ? empty({out[0], out[1] / 16, out[2], out[3], 16}, kFloat)
                                             : empty(IntArrayRef(out.data(), out.size()), kFloat);
  memory::desc y_md = activation_md(y);
  memory ym(y_md, engine(), y.data_ptr());
  // The primitive writes y directly when the layouts agree, else a buffer reordered into y.
  Tensor hy;
  memory dst = ym;
  if (y_md != plan->dst) {
    hy = buffer(plan->dst.get_size());
    dst = memory(plan->dst, engine(), hy.data_ptr());
  }
  if (residual) {  // the sum post-op adds what dst holds
    memory r(activation_md(*residual), engine(), residual->data_ptr());
    dnnl::reorder(r, dst).execute(stream(), r, dst);
  }
  m.execute(*plan, src, dst);
  if (hy.defined()) dnnl::reorder(dst, ym).execute(stream(), dst, ym);
  stream().wait();
  {
    std::lock_guard<std::mutex> lock(m.mu);
    m.last_impl = plan->impl;
  }
  return y;
}

Tensor PackedConv2d::to_dense(const Tensor& t) {
  if (!is_blocked(t)) return t;
  const Dims d = logical_dims(t);
  return t.permute({0, 1, 4, 2, 3}).reshape(IntArrayRef(d.data(), d.size()));
}

std::string PackedConv2d::implementation() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->last_impl;
}

}  // namespace ember::fx
