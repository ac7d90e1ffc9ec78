// Convolutions. One op, `convolution` (input [N, C, *spatial], 1 to 3 spatial dims, plain or
// transposed), and its backward `convolution_backward`; conv1d/2d/3d and conv_transpose1d/2d/3d
// are composites that check arguments as PyTorch 1.13 does, accept unbatched inputs and the
// padding strings 'same'/'valid'.
//
// Every computation is one of three maps of a plain convolution y = F(x, w): forward, backward
// data (x-gradient, B_x(g, w)) and backward weights (w-gradient, B_w(g, x)). A transposed
// convolution is the backward data of the plain one whose input is its output (so its weight
// [C, OC/groups, k] is that plain convolution's weight as it is); its input gradient is the
// plain forward and its weight gradient is B_w with the roles of x and g swapped.
//
// float32 (and bfloat16, computed in float32 and rounded once) runs on oneDNN's convolution
// primitives. Creating those is expensive, so primitives and reorders are cached by shapes,
// layouts and parameters, and weights reordered into the primitive's blocked layout are
// cached by storage and version. Other dtypes, and anything oneDNN refuses, go through
// im2col + matmul with Ember ops (any dtype matmul serves; this also serves float64 gradcheck).
#include <dnnl.hpp>

#include <cstdlib>
#include <cstring>
#include <string_view>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "ember/autograd.h"
#include "ember/dispatch.h"
#include "ember/ops.h"
#include "ember/ops/nn_conv.h"
#include "ops/layout.h"

namespace ember::conv_detail {
namespace {

using OptTensor = std::optional<Tensor>;

struct Params {
  DimVector stride, padding, dilation, output_padding;
  bool transposed = false;
  int64_t groups = 1;
};

DimVector expand_param(const char* name, IntArrayRef v, int64_t n) {
  if (v.size() == 1) return DimVector(static_cast<size_t>(n), v[0]);
  EMBER_CHECK(static_cast<int64_t>(v.size()) == n, RuntimeError, "expected ", name,
              " to be a single integer value or a list of ", n, " values to match the convolution dimensions, but got ",
              name, "=", v);
  return DimVector(v);
}

std::string join_x(IntArrayRef v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? " x " : "") + std::to_string(v[i]);
  return s;
}

// PyTorch's checks (ConvParams, check_shape_forward) in its order, then the output shape.
DimVector check_forward(const Tensor& input, const Tensor& weight, const OptTensor& bias, const Params& p) {
  const int64_t k = input.dim();
  IntArrayRef ws = weight.sizes();
  for (int64_t v : p.padding) EMBER_CHECK(v >= 0, RuntimeError, "negative padding is not supported");
  for (int64_t v : p.output_padding) EMBER_CHECK(v >= 0, RuntimeError, "negative output_padding is not supported");
  for (int64_t v : p.stride) EMBER_CHECK(v > 0, RuntimeError, "non-positive stride is not supported");
  for (int64_t v : p.dilation) EMBER_CHECK(v > 0, RuntimeError, "dilation should be greater than zero");
  EMBER_CHECK(static_cast<int64_t>(ws.size()) == k, RuntimeError, "Expected ", ws.size(), "-dimensional input for ",
              ws.size(), "-dimensional weight ", ws, ", but got ", k, "-dimensional input of size ", input.sizes(),
              " instead");
  EMBER_CHECK(ws[0] >= p.groups, RuntimeError, "Given groups=", p.groups, ", expected weight to be at least ",
              p.groups, " at dimension 0, but got weight of size ", ws, " instead");
  EMBER_CHECK(ws[0] % p.groups == 0, RuntimeError, "Given groups=", p.groups,
              ", expected weight to be divisible by ", p.groups, " at dimension 0, but got weight of size [", ws,
              "] instead");
  DimVector out{input.size(0)};
  if (!p.transposed) {
    EMBER_CHECK(input.size(1) == ws[1] * p.groups, RuntimeError, "Given groups=", p.groups, ", weight of size ", ws,
                ", expected input", input.sizes(), " to have ", ws[1] * p.groups, " channels, but got ",
                input.size(1), " channels instead");
    EMBER_CHECK(!bias || (bias->dim() == 1 && bias->size(0) == ws[0]), RuntimeError, "Given weight of size ", ws,
                ", expected bias to be 1-dimensional with ", ws[0], " elements, but got bias of size ",
                bias->sizes(), " instead");
    DimVector in_shape, k_shape;
    bool ok = true;
    for (int64_t i = 2; i < k; ++i) {
      in_shape.push_back(input.size(i) + 2 * p.padding[i - 2]);
      k_shape.push_back(p.dilation[i - 2] * (ws[i] - 1) + 1);
      ok = ok && in_shape.back() >= k_shape.back();
    }
    EMBER_CHECK(ok, RuntimeError, "Calculated padded input size per channel: (", join_x(in_shape),
                "). Kernel size: (", join_x(k_shape), "). Kernel size can't be greater than actual input size");
    out.push_back(ws[0]);
    for (int64_t i = 2; i < k; ++i)
      out.push_back((in_shape[i - 2] - k_shape[i - 2]) / p.stride[i - 2] + 1);
  } else {
    EMBER_CHECK(input.size(1) == ws[0], RuntimeError, "Given transposed=1, weight of size ", ws,
                ", expected input", input.sizes(), " to have ", ws[0], " channels, but got ", input.size(1),
                " channels instead");
    EMBER_CHECK(!bias || (bias->dim() == 1 && bias->size(0) == ws[1] * p.groups), RuntimeError,
                "Given transposed=1, weight of size ", ws, ", expected bias to be 1-dimensional with ",
                ws[1] * p.groups, " elements, but got bias of size ", bias->sizes(), " instead");
    for (int64_t i = 0; i < k - 2; ++i)
      EMBER_CHECK(p.output_padding[i] < p.stride[i] || p.output_padding[i] < p.dilation[i], RuntimeError,
                  "output padding must be smaller than either stride or dilation, but got output_padding=",
                  IntArrayRef(p.output_padding), ", stride=", IntArrayRef(p.stride), ", dilation=",
                  IntArrayRef(p.dilation));
    out.push_back(ws[1] * p.groups);
    DimVector in_sp, out_sp;
    bool ok = true;
    for (int64_t i = 2; i < k; ++i) {
      const int64_t j = i - 2;
      in_sp.push_back(input.size(i));
      out_sp.push_back((input.size(i) - 1) * p.stride[j] - 2 * p.padding[j] + p.dilation[j] * (ws[i] - 1) +
                       p.output_padding[j] + 1);
      ok = ok && out_sp.back() > 0;
    }
    EMBER_CHECK(ok, RuntimeError, "Given input size per channel: (", join_x(in_sp),
                "). Calculated output size per channel: (", join_x(out_sp), "). Output size is too small");
    for (int64_t v : out_sp) out.push_back(v);
  }
  return out;
}

void check_tensors(const char* op, const Tensor& input, const Tensor& weight, const OptTensor& bias) {
  EMBER_CHECK(input.defined() && weight.defined(), ValueError, op, "(): got an undefined tensor");
  EMBER_CHECK(input.device() == weight.device() && (!bias || bias->device() == input.device()), RuntimeError,
              "Expected all tensors to be on the same device, but found at least two devices (in ", op, ")");
  EMBER_CHECK(input.is_cpu() || input.is_meta(), NotImplementedError, op, "(): no kernel for device ",
              input.device());
  EMBER_CHECK(input.dtype() == weight.dtype(), RuntimeError, "expected scalar type ", input.dtype(),
              " but found ", weight.dtype());
  EMBER_CHECK(!bias || bias->dtype() == input.dtype(), RuntimeError, "Input type (", input.dtype(),
              ") and bias type (", bias->dtype(), ") should be the same");
  const ScalarType dt = input.dtype();
  EMBER_CHECK(dt != kHalf && dt != kBool, RuntimeError, "\"slow_conv2d_cpu\" not implemented for '", dt, "'");
  EMBER_CHECK(weight.dim() >= 3, RuntimeError, "weight should have at least three dimensions");
}

Params make_params(int64_t spatial, IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool transposed,
                   IntArrayRef output_padding, int64_t groups) {
  EMBER_CHECK(groups > 0, RuntimeError, "non-positive groups is not supported");
  Params p;
  p.stride = expand_param("stride", stride, spatial);
  p.padding = expand_param("padding", padding, spatial);
  p.dilation = expand_param("dilation", dilation, spatial);
  p.output_padding = expand_param("output_padding", output_padding, spatial);
  p.transposed = transposed;
  p.groups = groups;
  return p;
}

// Channels-last strides of a 4-D/5-D shape (NHWC / NDHWC).
DimVector channels_last_strides(IntArrayRef s) {
  DimVector st(s.size());
  int64_t acc = 1;
  st[1] = acc;
  acc *= std::max<int64_t>(s[1], 1);
  for (int64_t d = static_cast<int64_t>(s.size()) - 1; d >= 2; --d) {
    st[d] = acc;
    acc *= std::max<int64_t>(s[d], 1);
  }
  st[0] = acc;
  return st;
}

// PyTorch 1.13 keeps the channels-last layout for 2-D convolutions only.
bool is_channels_last(const Tensor& t) { return t.dim() == 4 && layout::is_channels_last(t); }

Tensor empty_layout(IntArrayRef sizes, ScalarType dt, Device dev, bool channels_last) {
  TensorOptions o = TensorOptions(dt).device(dev);
  if (!channels_last) return empty(sizes, o);
  return empty_strided(sizes, channels_last_strides(sizes), o);
}

// The plain convolution a call computes: src [N, C, *in], weight [OC, C/G, *k], dst [N, OC, *out].
struct Geometry {
  DimVector src, w, dst;  // full shapes
  const Params* p;
  int64_t spatial() const { return static_cast<int64_t>(src.size()) - 2; }
};

// ================================================================ im2col fallback
// x padded with zeros on both sides of every spatial dim (contiguous).
Tensor pad_input(const Tensor& x, IntArrayRef pad) {
  DimVector s(x.sizes());
  bool any = false;
  for (size_t d = 0; d < pad.size(); ++d) {
    s[d + 2] += 2 * pad[d];
    any = any || pad[d] != 0;
  }
  if (!any) return x.contiguous();
  Tensor xp = zeros(s, TensorOptions(x.dtype()).device(x.device()));
  Tensor inner = xp;
  for (size_t d = 0; d < pad.size(); ++d) inner = inner.narrow(static_cast<int64_t>(d) + 2, pad[d], x.size(d + 2));
  inner.copy_(x);
  return xp;
}

// The elements of the padded input xp under kernel position `kidx` for every output
// position: [N, C, *out].
Tensor window(const Tensor& xp, const Geometry& g, int64_t kidx) {
  const int64_t sd = g.spatial();
  DimVector sizes{xp.size(0), xp.size(1)}, strides{xp.stride(0), xp.stride(1)};
  int64_t off = xp.storage_offset();
  DimVector kpos(static_cast<size_t>(sd));
  for (int64_t d = sd - 1; d >= 0; --d) {
    kpos[d] = kidx % g.w[d + 2];
    kidx /= g.w[d + 2];
  }
  for (int64_t d = 0; d < sd; ++d) {
    sizes.push_back(g.dst[d + 2]);
    strides.push_back(xp.stride(d + 2) * g.p->stride[d]);
    off += kpos[d] * g.p->dilation[d] * xp.stride(d + 2);
  }
  return xp.as_strided(sizes, strides, off);
}

int64_t kernel_numel(const Geometry& g) {
  int64_t k = 1;
  for (size_t d = 2; d < g.w.size(); ++d) k *= g.w[d];
  return k;
}
int64_t out_numel(const Geometry& g) {
  int64_t l = 1;
  for (size_t d = 2; d < g.dst.size(); ++d) l *= g.dst[d];
  return l;
}

// [N, G, C/G * K, L]: column (c, k) of output position l is x_padded[c, l * stride + k * dilation].
Tensor im2col(const Tensor& x, const Geometry& g) {
  const int64_t K = kernel_numel(g), L = out_numel(g), N = g.src[0], C = g.src[1], G = g.p->groups;
  Tensor xp = pad_input(x, g.p->padding);
  DimVector cs{N, C, K};
  for (size_t d = 2; d < g.dst.size(); ++d) cs.push_back(g.dst[d]);
  Tensor cols = empty(cs, TensorOptions(x.dtype()).device(x.device()));
  for (int64_t k = 0; k < K; ++k) cols.select(2, k).copy_(window(xp, g, k));
  return cols.view({N, G, C / G * K, L});
}

Tensor fallback_forward(const Tensor& x, const Tensor& w, const Geometry& g) {
  const int64_t N = g.src[0], G = g.p->groups, OC = g.w[0], L = out_numel(g);
  Tensor cols = im2col(x, g);
  (void)N;
  (void)L;
  return matmul(w.reshape({G, OC / G, -1}), cols).view(g.dst);  // [N, G, OC/G, L] as [N, OC, *out]
}

Tensor fallback_backward_data(const Tensor& gy, const Tensor& w, const Geometry& g) {
  const int64_t N = g.src[0], C = g.src[1], G = g.p->groups, OC = g.w[0], K = kernel_numel(g), L = out_numel(g);
  Tensor cols = matmul(w.reshape({G, OC / G, -1}).mT(), gy.reshape({N, G, OC / G, L}));  // [N, G, C/G*K, L]
  DimVector cs{N, C, K};
  for (size_t d = 2; d < g.dst.size(); ++d) cs.push_back(g.dst[d]);
  cols = cols.view(cs);
  DimVector ps(g.src);
  for (int64_t d = 0; d < g.spatial(); ++d) ps[d + 2] += 2 * g.p->padding[d];
  Tensor gxp = zeros(ps, TensorOptions(gy.dtype()).device(gy.device()));
  for (int64_t k = 0; k < K; ++k) {
    Tensor win = window(gxp, g, k);
    win.add_(cols.select(2, k));
  }
  Tensor gx = gxp;
  for (int64_t d = 0; d < g.spatial(); ++d) gx = gx.narrow(d + 2, g.p->padding[d], g.src[d + 2]);
  return gx;
}

Tensor fallback_backward_weights(const Tensor& gy, const Tensor& x, const Geometry& g) {
  const int64_t N = g.src[0], G = g.p->groups, OC = g.w[0], L = out_numel(g);
  Tensor cols = im2col(x, g);
  Tensor gw = matmul(gy.reshape({N, G, OC / G, L}), cols.mT());  // [N, G, OC/G, C/G*K]
  return sum(gw, {0}, false, gw.dtype()).reshape(g.w);
}

// ================================================================ oneDNN
using dnnl::memory;

dnnl::engine& cpu_engine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}
dnnl::stream& cpu_stream() {
  thread_local dnnl::stream s(cpu_engine());
  return s;
}

memory::dims dims_of(IntArrayRef v) { return memory::dims(v.begin(), v.end()); }

// The user's tensor as oneDNN sees it (any strides); weights get a leading group dim.
memory::desc user_md(IntArrayRef sizes, IntArrayRef strides, bool weights = false, int64_t groups = 1) {
  memory::dims d = dims_of(sizes), s = dims_of(strides);
  if (weights && groups > 1) {
    d[0] /= groups;
    d.insert(d.begin(), groups);
    s.insert(s.begin(), s[0] * d[1]);
  }
  return memory::desc(d, memory::data_type::f32, s);
}

std::string md_key(const memory::desc& md) {
  return std::string(reinterpret_cast<const char*>(&md.data), sizeof(md.data));
}

enum class Kind : int64_t { Fwd, BwdData, BwdWeights };

struct Plan {
  dnnl::primitive prim;
  memory::desc src, w, dst, bias, scratch;
};

struct VecHash {
  size_t operator()(const std::vector<int64_t>& v) const {
    size_t h = 1469598103934665603ull;
    for (int64_t x : v) h = (h ^ static_cast<size_t>(x)) * 1099511628211ull;
    return h;
  }
};

struct Caches {
  std::mutex mu;
  std::unordered_map<std::vector<int64_t>, std::shared_ptr<Plan>, VecHash> plans;
  std::unordered_map<std::string, dnnl::reorder> reorders;
  // Weights in a primitive's layout, with a copy of the source bytes: a hit needs the same
  // storage, version and contents (gradcheck perturbs inputs in memory without a version
  // bump; comparing 150 KB costs a few microseconds, less than the reorder it saves).
  struct WeightEntry {
    Storage storage;
    Tensor source, data;
  };
  std::unordered_map<std::string, WeightEntry> weights;
  std::atomic<int64_t> plan_hits{0}, plan_misses{0}, weight_hits{0};
};
Caches& caches() {
  static Caches* c = new Caches();  // never destroyed: primitives may be in use at exit
  return *c;
}

// Keeps each cache bounded: past the limit it starts over (shapes of one model repeat).
template <typename Map>
void bound(Map& m, size_t limit) {
  if (m.size() >= limit) m.clear();
}

dnnl::reorder get_reorder(const memory::desc& from, const memory::desc& to) {
  Caches& c = caches();
  std::string key = md_key(from) + md_key(to);
  std::lock_guard<std::mutex> lock(c.mu);
  auto it = c.reorders.find(key);
  if (it != c.reorders.end()) return it->second;
  bound(c.reorders, 512);
  dnnl::reorder r(dnnl::reorder::primitive_desc(cpu_engine(), from, cpu_engine(), to));
  c.reorders.emplace(key, r);
  return r;
}

Tensor scratch_tensor(size_t bytes) {
  return empty({static_cast<int64_t>((bytes + 3) / 4) + 1}, kFloat);
}

// memory in layout `want` with the contents of user memory (ptr, user): the user's memory
// itself when the layouts agree, else a reordered copy kept alive by `holder`.
memory to_layout(const memory::desc& user, void* ptr, const memory::desc& want, Tensor& holder) {
  memory um(user, cpu_engine(), ptr);
  if (user == want) return um;
  holder = scratch_tensor(want.get_size());
  memory wm(want, cpu_engine(), holder.data_ptr());
  get_reorder(user, want).execute(cpu_stream(), um, wm);
  return wm;
}

// The weights in layout `want`, from the cache when this storage version was seen before
// with the same contents. Only contiguous weights are cached.
memory cached_weights(const Tensor& w, const memory::desc& user, const memory::desc& want, Tensor& holder) {
  if (user == want) return memory(user, cpu_engine(), w.data_ptr());
  if (!w.is_contiguous()) return to_layout(user, w.data_ptr(), want, holder);
  Caches& c = caches();
  std::string key = md_key(want) + md_key(user);
  const int64_t ident[3] = {reinterpret_cast<int64_t>(w.storage().get()), reinterpret_cast<int64_t>(w.data_ptr()),
                            static_cast<int64_t>(w.version())};
  key.append(reinterpret_cast<const char*>(ident), sizeof(ident));
  {
    std::lock_guard<std::mutex> lock(c.mu);
    auto it = c.weights.find(key);
    if (it != c.weights.end() && std::memcmp(it->second.source.data_ptr(), w.data_ptr(), w.nbytes()) == 0) {
      ++c.weight_hits;
      holder = it->second.data;
      return memory(want, cpu_engine(), holder.data_ptr());
    }
  }
  memory m = to_layout(user, w.data_ptr(), want, holder);
  Tensor source = w.detach().clone();
  std::lock_guard<std::mutex> lock(c.mu);
  bound(c.weights, 64);
  c.weights[key] = Caches::WeightEntry{w.storage(), source, holder};
  return m;
}

// Winograd (F(4x4, 3x3)) takes 2.25x fewer multiplications than the direct algorithm for 3x3
// stride-1 float convolutions; oneDNN has it on AVX-512 for plain, ungrouped 2-D ones and
// refuses the others (then the direct algorithm serves). Its results differ from the direct
// sum by rounding only (relative 1e-6 .. 1e-5). EMBER_CONV_ALGO=direct turns it off.
// The primitive transforms the weights on every call (ic * oc * 36 floats), which only pays
// off over enough output pixels: at batch 1 on one AVX-512 thread, 256->256 channels at 14x14
// took 1.8 ms against 1.25 ms direct and 512->512 at 7x7 25-40 ms against 1.8 ms, while 28x28
// and 56x56 gain 1.5-2x. So it is tried from 512 output pixels (batch included) up.
bool try_winograd(const Geometry& g) {
  static const bool off = [] {
    const char* e = std::getenv("EMBER_CONV_ALGO");
    return e && std::string_view(e) == "direct";
  }();
  if (off || g.spatial() != 2 || g.p->groups != 1 || g.dst[0] * g.dst[2] * g.dst[3] < 512) return false;
  for (int64_t d = 0; d < 2; ++d)
    if (g.w[d + 2] != 3 || g.p->stride[d] != 1 || g.p->dilation[d] != 1) return false;
  return true;
}

// Creates (or finds) the primitive of `kind` for this geometry; src and dst are forced to
// channels-last when the caller's tensors are, else oneDNN picks (blocked) layouts.
std::shared_ptr<Plan> get_plan(Kind kind, const Geometry& g, bool bias, bool channels_last) {
  const Params& p = *g.p;
  std::vector<int64_t> key{static_cast<int64_t>(kind), bias, channels_last, p.groups};
  for (auto* v : {&g.src, &g.w, &g.dst, &p.stride, &p.padding, &p.dilation}) {
    key.push_back(static_cast<int64_t>(v->size()));
    key.insert(key.end(), v->begin(), v->end());
  }
  Caches& c = caches();
  {
    std::lock_guard<std::mutex> lock(c.mu);
    auto it = c.plans.find(key);
    if (it != c.plans.end()) {
      ++c.plan_hits;
      return it->second;
    }
  }
  ++c.plan_misses;
  const auto f32 = memory::data_type::f32;
  const int64_t sd = g.spatial();
  memory::format_tag act = memory::format_tag::any;
  if (channels_last) act = sd == 2 ? memory::format_tag::nhwc : memory::format_tag::ndhwc;
  memory::desc src(dims_of(g.src), f32, act), dst(dims_of(g.dst), f32, act);
  memory::dims wd = dims_of(g.w);
  if (p.groups > 1) {
    wd[0] /= p.groups;
    wd.insert(wd.begin(), p.groups);
  }
  memory::desc w(wd, f32, memory::format_tag::any);
  memory::desc b = bias ? memory::desc({g.w[0]}, f32, memory::format_tag::a) : memory::desc();
  memory::dims strides = dims_of(p.stride), pad = dims_of(p.padding), dil(static_cast<size_t>(sd));
  for (int64_t d = 0; d < sd; ++d) dil[d] = p.dilation[d] - 1;  // oneDNN counts the gaps
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  auto build = [&](dnnl::algorithm algo) {
    auto plan = std::make_shared<Plan>();
    // The forward primitive descriptor is also the hint the backward ones need.
    dnnl::convolution_forward::primitive_desc fwd(
        dnnl::convolution_forward::desc(dnnl::prop_kind::forward_training, algo, src, w,
                                        kind == Kind::Fwd ? b : memory::desc(), dst, strides, dil, pad, pad),
        attr, cpu_engine());
    if (kind == Kind::Fwd) {
      plan->prim = dnnl::convolution_forward(fwd);
      plan->src = fwd.src_desc();
      plan->w = fwd.weights_desc();
      plan->dst = fwd.dst_desc();
      plan->bias = fwd.bias_desc();
      plan->scratch = fwd.scratchpad_desc();
    } else if (kind == Kind::BwdData) {
      dnnl::convolution_backward_data::primitive_desc pd(
          dnnl::convolution_backward_data::desc(algo, src, w, dst, strides, dil, pad, pad), attr, cpu_engine(), fwd);
      plan->prim = dnnl::convolution_backward_data(pd);
      plan->src = pd.diff_src_desc();
      plan->w = pd.weights_desc();
      plan->dst = pd.diff_dst_desc();
      plan->scratch = pd.scratchpad_desc();
    } else {
      dnnl::convolution_backward_weights::primitive_desc pd(
          bias ? dnnl::convolution_backward_weights::desc(algo, src, w, b, dst, strides, dil, pad, pad)
               : dnnl::convolution_backward_weights::desc(algo, src, w, dst, strides, dil, pad, pad),
          attr, cpu_engine(), fwd);
      plan->prim = dnnl::convolution_backward_weights(pd);
      plan->src = pd.src_desc();
      plan->w = pd.diff_weights_desc();
      plan->dst = pd.diff_dst_desc();
      plan->bias = pd.diff_bias_desc();
      plan->scratch = pd.scratchpad_desc();
    }
    return plan;
  };
  std::shared_ptr<Plan> plan;
  if (try_winograd(g)) {
    try {
      plan = build(dnnl::algorithm::convolution_winograd);
    } catch (const dnnl::error&) {
    }
  }
  if (!plan) plan = build(dnnl::algorithm::convolution_direct);
  std::lock_guard<std::mutex> lock(c.mu);
  bound(c.plans, 256);
  c.plans[key] = plan;
  return plan;
}

bool onednn_dtype(ScalarType dt) { return dt == kFloat || dt == kBFloat16; }

bool channels_last_call(const Tensor& a, const Tensor& b) {
  return is_channels_last(a) || is_channels_last(b);
}

// Writes the result of a primitive (memory `got` in layout `plan_md`) into `out`.
struct OutSlot {
  memory user_mem, prim_mem;
  Tensor holder;
  bool reorder = false;
};
OutSlot out_slot(const Tensor& out, const memory::desc& want, bool weights = false, int64_t groups = 1) {
  OutSlot s;
  memory::desc user = user_md(out.sizes(), out.strides(), weights, groups);
  s.user_mem = memory(user, cpu_engine(), out.data_ptr());
  if (user == want) {
    s.prim_mem = s.user_mem;
  } else {
    s.holder = scratch_tensor(want.get_size());
    s.prim_mem = memory(want, cpu_engine(), s.holder.data_ptr());
    s.reorder = true;
  }
  return s;
}
void finish_slot(OutSlot& s) {
  if (s.reorder) get_reorder(s.prim_mem.get_desc(), s.user_mem.get_desc()).execute(cpu_stream(), s.prim_mem, s.user_mem);
}

void execute(const Plan& plan, std::unordered_map<int, memory>& args) {
  Tensor scratch;
  if (plan.scratch.get_size() > 0) {
    scratch = scratch_tensor(plan.scratch.get_size());
    args.emplace(DNNL_ARG_SCRATCHPAD, memory(plan.scratch, cpu_engine(), scratch.data_ptr()));
  }
  plan.prim.execute(cpu_stream(), args);
}

// The three maps on float32 tensors; false when oneDNN has no primitive for the case.
bool dnnl_forward(const Tensor& x, const Tensor& w, const OptTensor& bias, const Tensor& y, const Geometry& g) {
  std::shared_ptr<Plan> plan;
  const bool cl = channels_last_call(x, y);
  try {
    plan = get_plan(Kind::Fwd, g, bias.has_value(), cl);
  } catch (const dnnl::error&) {
    return false;
  }
  Tensor hx, hw, hb;
  std::unordered_map<int, memory> args;
  args.emplace(DNNL_ARG_SRC, to_layout(user_md(x.sizes(), x.strides()), x.data_ptr(), plan->src, hx));
  args.emplace(DNNL_ARG_WEIGHTS,
               cached_weights(w, user_md(w.sizes(), w.strides(), true, g.p->groups), plan->w, hw));
  if (bias) {
    Tensor b = bias->contiguous();
    hb = b;
    args.emplace(DNNL_ARG_BIAS, memory(plan->bias, cpu_engine(), b.data_ptr()));
  }
  OutSlot o = out_slot(y, plan->dst);
  args.emplace(DNNL_ARG_DST, o.prim_mem);
  execute(*plan, args);
  finish_slot(o);
  cpu_stream().wait();
  return true;
}

// The output gradient reordered once per convolution_backward call: the data and weight
// gradient primitives usually want it in the same blocked layout.
struct GyMemo {
  const void* ptr = nullptr;
  std::string md;
  Tensor holder;
};
thread_local GyMemo* gy_memo = nullptr;
struct GyMemoScope {
  GyMemo memo;
  GyMemoScope() { gy_memo = &memo; }
  ~GyMemoScope() { gy_memo = nullptr; }
};

memory gy_to_layout(const Tensor& gy, const memory::desc& want, Tensor& holder) {
  const std::string key = md_key(want);
  if (gy_memo && gy_memo->holder.defined() && gy_memo->ptr == gy.data_ptr() && gy_memo->md == key) {
    holder = gy_memo->holder;
    return memory(want, cpu_engine(), holder.data_ptr());
  }
  memory m = to_layout(user_md(gy.sizes(), gy.strides()), gy.data_ptr(), want, holder);
  if (gy_memo && holder.defined()) *gy_memo = GyMemo{gy.data_ptr(), key, holder};
  return m;
}

bool dnnl_backward_data(const Tensor& gy, const Tensor& w, const Tensor& gx, const Geometry& g) {
  std::shared_ptr<Plan> plan;
  try {
    plan = get_plan(Kind::BwdData, g, false, channels_last_call(gy, gx));
  } catch (const dnnl::error&) {
    return false;
  }
  Tensor hy, hw;
  std::unordered_map<int, memory> args;
  args.emplace(DNNL_ARG_DIFF_DST, gy_to_layout(gy, plan->dst, hy));
  args.emplace(DNNL_ARG_WEIGHTS,
               cached_weights(w, user_md(w.sizes(), w.strides(), true, g.p->groups), plan->w, hw));
  OutSlot o = out_slot(gx, plan->src);
  args.emplace(DNNL_ARG_DIFF_SRC, o.prim_mem);
  execute(*plan, args);
  finish_slot(o);
  cpu_stream().wait();
  return true;
}

// gw (contiguous, g.w's shape) and, when defined, gb [OC].
bool dnnl_backward_weights(const Tensor& gy, const Tensor& x, const Tensor& gw, const Tensor& gb, const Geometry& g) {
  std::shared_ptr<Plan> plan;
  try {
    plan = get_plan(Kind::BwdWeights, g, gb.defined(), channels_last_call(gy, x));
  } catch (const dnnl::error&) {
    return false;
  }
  Tensor hy, hx;
  std::unordered_map<int, memory> args;
  args.emplace(DNNL_ARG_DIFF_DST, gy_to_layout(gy, plan->dst, hy));
  args.emplace(DNNL_ARG_SRC, to_layout(user_md(x.sizes(), x.strides()), x.data_ptr(), plan->src, hx));
  OutSlot o = out_slot(gw, plan->w, true, g.p->groups);
  args.emplace(DNNL_ARG_DIFF_WEIGHTS, o.prim_mem);
  if (gb.defined()) args.emplace(DNNL_ARG_DIFF_BIAS, memory(plan->bias, cpu_engine(), gb.data_ptr()));
  execute(*plan, args);
  finish_slot(o);
  cpu_stream().wait();
  return true;
}

// ================================================================ the three maps, any dtype
// Each writes into a freshly allocated result of the right shape and layout.
void forward_into(const Tensor& x, const Tensor& w, const OptTensor& bias, Tensor& y, const Geometry& g) {
  if (onednn_dtype(x.dtype())) {
    if (x.dtype() == kFloat) {
      if (dnnl_forward(x, w, bias, y, g)) return;
    } else {
      Tensor yf = empty_layout(y.sizes(), kFloat, y.device(), is_channels_last(y));
      OptTensor bf = bias ? OptTensor(bias->to(kFloat)) : std::nullopt;
      if (dnnl_forward(x.to(kFloat), w.to(kFloat), bf, yf, g)) {
        y.copy_(yf);
        return;
      }
    }
  }
  y.copy_(fallback_forward(x, w, g));
  if (bias) {
    DimVector bs(y.dim(), 1);
    bs[1] = -1;
    y.add_(bias->view(bs));
  }
}

void backward_data_into(const Tensor& gy, const Tensor& w, Tensor& gx, const Geometry& g) {
  if (gy.dtype() == kFloat && dnnl_backward_data(gy, w, gx, g)) return;
  if (gy.dtype() == kBFloat16) {
    Tensor f = empty_layout(gx.sizes(), kFloat, gx.device(), is_channels_last(gx));
    if (dnnl_backward_data(gy.to(kFloat), w.to(kFloat), f, g)) {
      gx.copy_(f);
      return;
    }
  }
  gx.copy_(fallback_backward_data(gy, w, g));
}

void backward_weights_into(const Tensor& gy, const Tensor& x, Tensor& gw, Tensor& gb, const Geometry& g) {
  if (gy.dtype() == kFloat && gw.is_contiguous() && dnnl_backward_weights(gy, x, gw, gb, g)) return;
  if (gy.dtype() == kBFloat16) {
    Tensor f = empty(gw.sizes(), kFloat);
    Tensor fb = gb.defined() ? empty(gb.sizes(), kFloat) : Tensor();
    if (dnnl_backward_weights(gy.to(kFloat), x.to(kFloat), f, fb, g)) {
      gw.copy_(f);
      if (gb.defined()) gb.copy_(fb);
      return;
    }
  }
  gw.copy_(fallback_backward_weights(gy, x, g));
  if (gb.defined()) {
    DimVector dims;
    for (int64_t d = 0; d < gy.dim(); ++d)
      if (d != 1) dims.push_back(d);
    gb.copy_(sum(gy, dims, false, gy.dtype()));
  }
}

Geometry geometry(IntArrayRef src, IntArrayRef w, IntArrayRef dst, const Params& p) {
  return Geometry{DimVector(src), DimVector(w), DimVector(dst), &p};
}

// ================================================================ kernels
Tensor convolution_k(const Tensor& input, const Tensor& weight, const OptTensor& bias, IntArrayRef stride,
                     IntArrayRef padding, IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
                     int64_t groups) {
  check_tensors("convolution", input, weight, bias);
  EMBER_CHECK(input.dim() >= 3 && input.dim() <= 5, RuntimeError, "convolution(): expected a 3-D, 4-D or 5-D input, got ",
              input.dim(), "-D input of size ", input.sizes());
  const Params p = make_params(input.dim() - 2, stride, padding, dilation, transposed, output_padding, groups);
  // PyTorch 1.13's convolution op has no complex derivative (its conv1d/2d/3d decompose
  // complex operands into real convolutions first, as the composites below do): it raises.
  const bool grad = autograd::GradMode::is_enabled() &&
                    (autograd::requires_grad(input) || autograd::requires_grad(weight) ||
                     (bias && autograd::requires_grad(*bias)));
  EMBER_CHECK(!(input.is_complex() && grad), RuntimeError, "\"slow_conv", transposed ? "_transpose" : "",
              input.dim() - 2, "d", transposed ? "_out" : "", "_cpu\" not implemented for '", input.dtype(), "'");
  const DimVector out_shape = check_forward(input, weight, bias, p);
  Tensor out = empty_layout(out_shape, input.dtype(), input.device(), channels_last_call(input, weight));
  if (input.is_meta() || out.numel() == 0) return out;
  if (input.numel() == 0 || weight.numel() == 0) {  // no channels to sum over
    out.zero_();
    if (bias) {
      DimVector bs(out.dim(), 1);
      bs[1] = -1;
      out.add_(bias->view(bs));
    }
    return out;
  }
  if (!transposed) {
    forward_into(input, weight, bias, out, geometry(input.sizes(), weight.sizes(), out_shape, p));
  } else {
    backward_data_into(input, weight, out, geometry(out_shape, weight.sizes(), input.sizes(), p));
    if (bias) {
      DimVector bs(out.dim(), 1);
      bs[1] = -1;
      out.add_(bias->view(bs));
    }
  }
  return out;
}

std::tuple<Tensor, Tensor, Tensor> convolution_backward_k(const Tensor& grad_output, const Tensor& input,
                                                          const Tensor& weight, IntArrayRef bias_sizes,
                                                          IntArrayRef stride, IntArrayRef padding,
                                                          IntArrayRef dilation, bool transposed,
                                                          IntArrayRef output_padding, int64_t groups,
                                                          IntArrayRef output_mask) {
  check_tensors("convolution_backward", input, weight, std::nullopt);
  EMBER_CHECK(grad_output.defined() && grad_output.dtype() == input.dtype(), RuntimeError,
              "convolution_backward(): grad_output must have the input's dtype");
  EMBER_CHECK(output_mask.size() == 3, RuntimeError, "convolution_backward(): output_mask must have 3 entries");
  const Params p = make_params(input.dim() - 2, stride, padding, dilation, transposed, output_padding, groups);
  const DimVector out_shape = check_forward(input, weight, std::nullopt, p);
  EMBER_CHECK(grad_output.sizes().equals(out_shape), RuntimeError, "convolution_backward(): grad_output of size ",
              grad_output.sizes(), " does not match the output size ", IntArrayRef(out_shape));
  const TensorOptions o = TensorOptions(input.dtype()).device(input.device());
  const bool cl = channels_last_call(input, weight);
  Tensor gi, gw, gb;
  if (output_mask[0]) gi = empty_layout(input.sizes(), input.dtype(), input.device(), cl);
  if (output_mask[1]) gw = empty(weight.sizes(), o);
  if (output_mask[2]) gb = empty({transposed ? weight.size(1) * groups : weight.size(0)}, o);
  // Outputs not asked for are empty tensors rather than undefined ones: the Autograd
  // fallback records every result of an op.
  auto finish = [&]() -> std::tuple<Tensor, Tensor, Tensor> {
    for (Tensor* t : {&gi, &gw, &gb})
      if (!t->defined()) *t = empty({0}, o);
    return {gi, gw, gb};
  };
  if (input.is_meta()) return finish();
  if (grad_output.numel() == 0 || input.numel() == 0 || weight.numel() == 0) {
    for (Tensor* t : {&gi, &gw, &gb})
      if (t->defined()) t->zero_();
    if (gb.defined() && grad_output.numel() > 0) {
      DimVector dims;
      for (int64_t d = 0; d < grad_output.dim(); ++d)
        if (d != 1) dims.push_back(d);
      gb.copy_(sum(grad_output, dims, false, grad_output.dtype()));
    }
    return finish();
  }
  // Plain: src = input, dst = grad_output. Transposed: src = its output, dst = its input.
  GyMemoScope memo;
  if (!transposed) {
    const Geometry g = geometry(input.sizes(), weight.sizes(), out_shape, p);
    if (gi.defined()) backward_data_into(grad_output, weight, gi, g);
    if (gw.defined()) {
      backward_weights_into(grad_output, input, gw, gb, g);
    } else if (gb.defined()) {
      DimVector dims;
      for (int64_t d = 0; d < grad_output.dim(); ++d)
        if (d != 1) dims.push_back(d);
      gb.copy_(sum(grad_output, dims, false, grad_output.dtype()));
    }
  } else {
    const Geometry g = geometry(out_shape, weight.sizes(), input.sizes(), p);
    if (gi.defined()) forward_into(grad_output, weight, std::nullopt, gi, g);
    if (gw.defined()) {
      Tensor none;
      backward_weights_into(input, grad_output, gw, none, g);
    }
    if (gb.defined()) {
      DimVector dims;
      for (int64_t d = 0; d < grad_output.dim(); ++d)
        if (d != 1) dims.push_back(d);
      gb.copy_(sum(grad_output, dims, false, grad_output.dtype()));
    }
  }
  return finish();
}

// ================================================================ composites
using ConvSig = Tensor(const Tensor&, const Tensor&, const OptTensor&, IntArrayRef, IntArrayRef, IntArrayRef, bool,
                       IntArrayRef, int64_t);
using ConvBwdSig = std::tuple<Tensor, Tensor, Tensor>(const Tensor&, const Tensor&, const Tensor&, IntArrayRef,
                                                      IntArrayRef, IntArrayRef, IntArrayRef, bool, IntArrayRef,
                                                      int64_t, IntArrayRef);
using ConvNdSig = Tensor(const Tensor&, const Tensor&, const OptTensor&, IntArrayRef, IntArrayRef, IntArrayRef,
                         int64_t);
using ConvNdStrSig = Tensor(const Tensor&, const Tensor&, const OptTensor&, IntArrayRef, std::string_view,
                            IntArrayRef, int64_t);
using ConvTSig = Tensor(const Tensor&, const Tensor&, const OptTensor&, IntArrayRef, IntArrayRef, IntArrayRef,
                        int64_t, IntArrayRef);

// Unbatched inputs (C x spatial) get a batch dim of 1, removed again from the result.
template <int SD>
bool batchify(const char* name, const Tensor& input) {
  EMBER_CHECK(input.defined(), ValueError, name, "(): got an undefined tensor");
  const bool batched = input.dim() == SD + 2;
  EMBER_CHECK(input.dim() == SD + 1 || batched, RuntimeError, "Expected ", SD + 1, "D (unbatched) or ", SD + 2,
              "D (batched) input to ", name, ", but got input of size: ", input.sizes());
  return batched;
}

constexpr const char* conv_name(int sd) { return sd == 1 ? "conv1d" : sd == 2 ? "conv2d" : "conv3d"; }
constexpr const char* conv_t_name(int sd) {
  return sd == 1 ? "conv_transpose1d" : sd == 2 ? "conv_transpose2d" : "conv_transpose3d";
}

// A complex convolution as three real ones (Karatsuba, as PyTorch's complex_convolution):
// with x = a + ib, w = c + id: ac - bd + i((a + b)(c + d) - ac - bd).
Tensor conv_any(const Tensor& x, const Tensor& w, const OptTensor& bias, IntArrayRef stride, IntArrayRef padding,
                IntArrayRef dilation, bool transposed, IntArrayRef output_padding, int64_t groups) {
  if (!x.is_complex() || !w.is_complex())
    return convolution(x, w, bias, stride, padding, dilation, transposed, output_padding, groups);
  EMBER_CHECK(!bias || bias->dtype() == x.dtype(), RuntimeError, "Input type (", x.dtype(), ") and bias type (",
              bias->dtype(), ") should be the same");
  EMBER_CHECK(x.dtype() == w.dtype(), RuntimeError, "expected scalar type ", x.dtype(), " but found ", w.dtype());
  const Tensor xr = x.real(), xi = x.imag(), wr = w.real(), wi = w.imag();
  auto conv = [&](const Tensor& a, const Tensor& b, const OptTensor& c) {
    return convolution(a, b, c, stride, padding, dilation, transposed, output_padding, groups);
  };
  const Tensor ac = conv(xr, wr, bias ? OptTensor(bias->real()) : std::nullopt);
  const Tensor bd = conv(xi, wi, std::nullopt);
  const Tensor k = conv(xr + xi, wr + wi, bias ? OptTensor(bias->real() + bias->imag()) : std::nullopt);
  Tensor r = (ac - bd) + (k - ac - bd) * Scalar(complex128(0, 1));
  if (!channels_last_call(x, w)) return r;
  Tensor out = empty_layout(r.sizes(), r.dtype(), r.device(), true);  // channels-last as the real case
  out.copy_(r);
  return out;
}

template <int SD>
Tensor conv_nd_k(const Tensor& input, const Tensor& weight, const OptTensor& bias, IntArrayRef stride,
                 IntArrayRef padding, IntArrayRef dilation, int64_t groups) {
  const bool batched = batchify<SD>(conv_name(SD), input);
  Tensor r = conv_any(batched ? input : input.unsqueeze(0), weight, bias, stride, padding, dilation, false, {0},
                      groups);
  return batched ? r : r.squeeze(0);
}

template <int SD>
Tensor conv_nd_str_k(const Tensor& input, const Tensor& weight, const OptTensor& bias, IntArrayRef stride,
                     std::string_view padding, IntArrayRef dilation, int64_t groups) {
  const bool batched = batchify<SD>(conv_name(SD), input);
  Tensor x = batched ? input : input.unsqueeze(0);
  DimVector pad_l(SD, 0);
  if (padding == "same") {
    for (int64_t s : expand_param("stride", stride, SD))
      EMBER_CHECK(s == 1, RuntimeError, "padding='same' is not supported for strided convolutions");
    EMBER_CHECK(weight.defined() && weight.dim() == SD + 2, RuntimeError, "Expected ", weight.defined() ? weight.dim() : 0,
                "-dimensional input for ", weight.defined() ? weight.dim() : 0, "-dimensional weight ",
                weight.defined() ? weight.sizes() : IntArrayRef(), ", but got ", x.dim(),
                "-dimensional input of size ", x.sizes(), " instead");
    const DimVector dil = expand_param("dilation", dilation, SD);
    DimVector pad_nd(2 * SD, 0);
    bool symmetric = true;
    for (int i = 0; i < SD; ++i) {
      const int64_t total = dil[i] * (weight.size(i + 2) - 1);
      pad_l[i] = total / 2;
      const int64_t right = total - pad_l[i];
      if (right != pad_l[i]) {
        symmetric = false;
        pad_nd[2 * (SD - 1 - i) + 1] = right - pad_l[i];  // the odd element goes on the right
      }
    }
    if (!symmetric) x = constant_pad_nd(x, pad_nd, 0);
  } else {
    EMBER_CHECK(padding == "valid", RuntimeError, "Invalid padding string: '", padding, "'");
  }
  Tensor r = conv_any(x, weight, bias, stride, pad_l, dilation, false, {0}, groups);
  return batched ? r : r.squeeze(0);
}

template <int SD>
Tensor conv_t_k(const Tensor& input, const Tensor& weight, const OptTensor& bias, IntArrayRef stride,
                IntArrayRef padding, IntArrayRef output_padding, int64_t groups, IntArrayRef dilation) {
  const bool batched = batchify<SD>(conv_t_name(SD), input);
  // (PyTorch 1.13 decomposes complex operands for conv_transpose1d only.)
  Tensor x = batched ? input : input.unsqueeze(0);
  Tensor r = SD == 1 ? conv_any(x, weight, bias, stride, padding, dilation, true, output_padding, groups)
                     : convolution(x, weight, bias, stride, padding, dilation, true, output_padding, groups);
  return batched ? r : r.squeeze(0);
}

template <int SD>
void define_conv_nd() {
  const std::string n = conv_name(SD), t = conv_t_name(SD), k = std::to_string(SD);
  define_op<ConvNdSig>(n + "(Tensor input, Tensor weight, Tensor? bias=None, int[" + k + "] stride=1, int[" + k +
                       "] padding=0, int[" + k + "] dilation=1, int groups=1) -> Tensor", Tag::FunctionOnly);
  define_op<ConvNdStrSig>(n + ".padding(Tensor input, Tensor weight, Tensor? bias=None, int[" + k +
                          "] stride=1, str padding=\"valid\", int[" + k + "] dilation=1, int groups=1) -> Tensor",
                          Tag::FunctionOnly);
  define_op<ConvTSig>(t + ".input(Tensor input, Tensor weight, Tensor? bias=None, int[" + k + "] stride=1, int[" + k +
                      "] padding=0, int[" + k + "] output_padding=0, int groups=1, int[" + k +
                      "] dilation=1) -> Tensor", Tag::FunctionOnly);
  register_composite<ConvNdSig, &conv_nd_k<SD>>(n);
  register_composite<ConvNdStrSig, &conv_nd_str_k<SD>>(n + ".padding");
  register_composite<ConvTSig, &conv_t_k<SD>>(t + ".input");
}

}  // namespace
}  // namespace ember::conv_detail

namespace ember {
using namespace conv_detail;

Tensor convolution(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,
                   IntArrayRef padding, IntArrayRef dilation, bool transposed, IntArrayRef output_padding,
                   int64_t groups) {
  static const TypedOp<ConvSig> op("convolution");
  return op.call(input, weight, bias, stride, padding, dilation, transposed, output_padding, groups);
}

std::tuple<Tensor, Tensor, Tensor> convolution_backward(const Tensor& grad_output, const Tensor& input,
                                                         const Tensor& weight, IntArrayRef bias_sizes,
                                                         IntArrayRef stride, IntArrayRef padding,
                                                         IntArrayRef dilation, bool transposed,
                                                         IntArrayRef output_padding, int64_t groups,
                                                         IntArrayRef output_mask) {
  static const TypedOp<ConvBwdSig> op("convolution_backward");
  return op.call(grad_output, input, weight, bias_sizes, stride, padding, dilation, transposed, output_padding,
                 groups, output_mask);
}

#define EMBER_CONV_FRONT(name)                                                                                 \
  Tensor name(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride, \
              IntArrayRef padding, IntArrayRef dilation, int64_t groups) {                                     \
    static const TypedOp<ConvNdSig> op(#name);                                                                 \
    return op.call(input, weight, bias, stride, padding, dilation, groups);                                    \
  }                                                                                                            \
  Tensor name(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride, \
              std::string_view padding, IntArrayRef dilation, int64_t groups) {                                \
    static const TypedOp<ConvNdStrSig> op(#name ".padding");                                                   \
    return op.call(input, weight, bias, stride, padding, dilation, groups);                                    \
  }
EMBER_CONV_FRONT(conv1d)
EMBER_CONV_FRONT(conv2d)
EMBER_CONV_FRONT(conv3d)
#undef EMBER_CONV_FRONT

#define EMBER_CONV_T_FRONT(name)                                                                                \
  Tensor name(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias, IntArrayRef stride,  \
              IntArrayRef padding, IntArrayRef output_padding, int64_t groups, IntArrayRef dilation) {          \
    static const TypedOp<ConvTSig> op(#name ".input");                                                          \
    return op.call(input, weight, bias, stride, padding, output_padding, groups, dilation);                     \
  }
EMBER_CONV_T_FRONT(conv_transpose1d)
EMBER_CONV_T_FRONT(conv_transpose2d)
EMBER_CONV_T_FRONT(conv_transpose3d)
#undef EMBER_CONV_T_FRONT

// Cache statistics for tests: plan hits, plan misses, weight hits.
std::tuple<int64_t, int64_t, int64_t> conv_cache_stats() {
  Caches& c = caches();
  return {c.plan_hits.load(), c.plan_misses.load(), c.weight_hits.load()};
}

EMBER_REGISTER(conv_ops) {
  define_op<ConvSig>("convolution(Tensor input, Tensor weight, Tensor? bias, int[] stride, int[] padding, "
                     "int[] dilation, bool transposed, int[] output_padding, int groups) -> Tensor",
                     Tag::FunctionOnly);
  register_cpu_meta<ConvSig, &convolution_k>("convolution");
  define_op<ConvBwdSig>("convolution_backward(Tensor grad_output, Tensor input, Tensor weight, int[] bias_sizes, "
                        "int[] stride, int[] padding, int[] dilation, bool transposed, int[] output_padding, "
                        "int groups, int[] output_mask) -> (Tensor, Tensor, Tensor)",
                        Tag::Internal);
  register_cpu_meta<ConvBwdSig, &convolution_backward_k>("convolution_backward");
  define_conv_nd<1>();
  define_conv_nd<2>();
  define_conv_nd<3>();
}

}  // namespace ember
