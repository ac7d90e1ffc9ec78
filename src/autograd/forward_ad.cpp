// Forward-mode AD: dual levels, tangents on tensors, and the tangent computation the Autograd
// layer runs for ops whose inputs have tangents (see include/ember/forward_ad.h).
//
// Tangents live in the tensor's AutogradMeta with the generation of the level that set them;
// a level's exit bumps nothing on the tensors: a tangent of an older generation is simply not
// seen, and goes with its tensor. A tangent always has its primal's strides (make_dual and the
// results' tangents are copied to that layout when they differ), so the tangent of a view is
// the same geometry taken on the base's tangent, and in-place writes through views update the
// base's tangent as they update the base.
#include <atomic>
#include <charconv>
#include <cmath>
#include <complex>
#include <mutex>
#include <unordered_map>

#include "autograd/forward_ad_impl.h"
#include "autograd/meta.h"
#include "autograd/view.h"
#include "functional/batched.h"
#include "ember/error.h"
#include "ember/ops.h"

namespace ember::autograd {
// fallback.cpp: the op's backward formula (its functional op's for an in-place op), or null.
const Derivative* derivative_for(const OpEntry& op, bool in_place);
}  // namespace ember::autograd

namespace ember::autograd::forward_ad {

// ---------------------------------------------------------------- levels
namespace {
std::mutex g_level_mutex;
std::atomic<bool> g_live{false};
std::atomic<uint64_t> g_generation{0};  // of the live level; each level gets a new one
thread_local int t_suppressed = 0;

uint64_t live_generation() { return g_live.load(std::memory_order_acquire) ? g_generation.load(std::memory_order_relaxed) : 0; }
}  // namespace

int64_t enter_dual_level() {
  std::lock_guard<std::mutex> lock(g_level_mutex);
  EMBER_CHECK(!g_live.load(), RuntimeError, "Nested forward mode AD is not supported at the moment");
  g_generation.fetch_add(1);
  g_live.store(true, std::memory_order_release);
  return 0;
}

void exit_dual_level(std::optional<int64_t> level) {
  std::lock_guard<std::mutex> lock(g_level_mutex);
  const int64_t l = level.value_or(g_live.load() ? 0 : -1);
  EMBER_CHECK(l >= 0, RuntimeError, "Dual level must be a positive number.");
  EMBER_CHECK(g_live.load() && l == 0, RuntimeError,
              "Trying to exit a forward AD level that was not the last one that was created. This is not supported.");
  g_live.store(false, std::memory_order_release);
}

bool is_active() { return g_live.load(std::memory_order_relaxed) && t_suppressed == 0; }

namespace detail {

SuppressGuard::SuppressGuard() { ++t_suppressed; }
SuppressGuard::~SuppressGuard() { --t_suppressed; }

Tensor get_tangent(const Tensor& t) {
  const AutogradMeta* m = meta_of(t);
  if (!m || !m->fw_grad.defined()) return Tensor();
  const uint64_t gen = live_generation();
  return gen != 0 && m->fw_generation == gen ? m->fw_grad : Tensor();
}

void set_tangent(const Tensor& t, const Tensor& tangent) {
  AutogradMeta& m = materialize_meta(t);
  m.fw_grad = tangent;
  m.fw_generation = live_generation();
  t.impl()->add_keys(DispatchKeySet(DispatchKey::Autograd));
}

void copy_tangent(const Tensor& from, const Tensor& to) {
  if (Tensor tg = get_tangent(from); tg.defined()) set_tangent(to, tg);
}

}  // namespace detail

}  // namespace ember::autograd::forward_ad

namespace ember::autograd {
namespace {
// Python's repr of a float (shortest round-trip digits; fixed notation for exponents in
// [-4, 16)); add_dot_0 as float's repr, not as the parts of a complex's.
std::string py_float_repr(double v, bool add_dot_0) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  const std::string sci(buf, r.ptr);  // -d.ddde+XX
  const size_t e = sci.find('e');
  const int exp = std::stoi(sci.substr(e + 1));
  std::string digits;
  for (char c : sci.substr(0, e))
    if (c != '.' && c != '-') digits += c;
  std::string out = sci[0] == '-' ? "-" : "";
  if (exp >= -4 && exp < 16) {
    if (exp < 0) return out + "0." + std::string(static_cast<size_t>(-exp - 1), '0') + digits;
    const auto whole = static_cast<size_t>(exp) + 1;
    if (digits.size() < whole) digits.append(whole - digits.size(), '0');
    out += digits.substr(0, whole);
    if (digits.size() > whole) return out + "." + digits.substr(whole);
    return add_dot_0 ? out + ".0" : out;
  }
  out += digits.substr(0, 1);
  if (digits.size() > 1) out += "." + digits.substr(1);
  const std::string ex = std::to_string(std::abs(exp));
  return out + (exp < 0 ? "e-" : "e+") + (ex.size() < 2 ? "0" : "") + ex;
}

// PyTorch formats the tangent with format(): a 0-dim tangent shows as its Python number.
std::string tangent_str(const Tensor& t) {
  if (t.dim() != 0) return t.str();
  if (!t.is_complex()) return py_float_repr(t.item<double>(), true);
  const auto z = t.to(kComplexDouble).item<std::complex<double>>();
  const std::string im = py_float_repr(z.imag(), false) + "j";
  if (z.real() == 0 && !std::signbit(z.real())) return im;
  return "(" + py_float_repr(z.real(), false) + (z.imag() >= 0 || std::isnan(z.imag()) ? "+" : "") + im + ")";
}
}  // namespace

std::string AutogradMeta::print_suffix() const {
  std::string s = grad_fn ? "grad_fn=<" + grad_fn->name() + ">" : requires_grad ? "requires_grad=True" : "";
  const uint64_t gen = forward_ad::live_generation();
  if (fw_grad.defined() && gen != 0 && fw_generation == gen) {
    if (!s.empty()) s.push_back('\0');
    s += "tangent=" + tangent_str(fw_grad);
  }
  return s;
}
}  // namespace ember::autograd

namespace ember::autograd::forward_ad {

using detail::get_tangent;
using detail::set_tangent;
using detail::SuppressGuard;

namespace {

int64_t lowest_offset(IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  for (size_t i = 0; i < sizes.size(); ++i)
    if (sizes[i] > 0 && strides[i] < 0) offset += (sizes[i] - 1) * strides[i];
  return offset;
}
int64_t highest_offset(IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  for (size_t i = 0; i < sizes.size(); ++i)
    if (sizes[i] > 0 && strides[i] > 0) offset += (sizes[i] - 1) * strides[i];
  return offset;
}
// Whether two layouts of one shape place every element alike (size-1 dims' strides aside).
bool same_layout(const Tensor& a, const Tensor& b) {
  if (a.sizes() != b.sizes()) return false;
  for (int64_t d = 0; d < a.dim(); ++d)
    if (a.sizes()[d] > 1 && a.strides()[d] != b.strides()[d]) return false;
  return true;
}

// A view of t's storage with any geometry (negative strides included), recorded as a view of t.
// A batched tangent (vmap over a dual level) gets the same view of its batched value.
Tensor raw_view(const Tensor& t, IntArrayRef sizes, IntArrayRef strides, int64_t offset) {
  if (t.key_set().has(DispatchKey::Vmap)) return func::detail::batched_view(t, sizes, strides, offset, std::nullopt);
  auto impl = Ref<TensorImpl>::make(t.storage(), t.dtype(), sizes, strides, offset);
  impl->add_keys(t.key_set());
  impl->set_inference(t.is_inference());
  impl->set_view_base(t.impl()->view_base() ? Ref<TensorImpl>(t.impl()->view_base()) : t.impl_ref());
  Tensor v(std::move(impl));
  if (t.key_set().has(DispatchKey::Autograd)) record_view(t, v);
  return v;
}

// t (of primal's shape) laid out as primal is: same strides, in a buffer spanning what the
// primal's geometry spans, so that any view of the primal maps onto it. Overlapping primals
// (expanded) keep a dense tangent.
Tensor with_layout_of(const Tensor& primal, const Tensor& t) {
  if (same_layout(primal, t)) return t;
  const Tensor src = t.sizes() == primal.sizes() ? t : t.expand(primal.sizes());
  bool overlapping = false;
  for (int64_t d = 0; d < primal.dim(); ++d) overlapping = overlapping || (primal.strides()[d] == 0 && primal.sizes()[d] > 1);
  if (overlapping || primal.numel() == 0) return src.contiguous();
  const int64_t lo = lowest_offset(primal.sizes(), primal.strides(), primal.storage_offset());
  const int64_t hi = highest_offset(primal.sizes(), primal.strides(), primal.storage_offset());
  // A batched tangent (vmap over a dual level) needs a buffer batched as it is: zeros_like is
  // batched like its argument at every level; one element widened to the span.
  Tensor buf = func::is_batched(src)
                   ? zeros_like(src).reshape({-1}).narrow(0, 0, 1).expand({hi - lo + 1}).contiguous()
                   : zeros({hi - lo + 1}, TensorOptions().dtype(src.dtype()).device(src.device()));
  Tensor out = raw_view(buf, primal.sizes(), primal.strides(), primal.storage_offset() - lo);
  out.copy_(src);
  return out;
}

// A result's tangent as the rule gave it, broadcast, cast and laid out as the result.
Tensor fit_tangent(const Tensor& t, const Tensor& result) {
  Tensor r = t;
  if (r.sizes() != result.sizes()) r = r.expand(result.sizes());
  if (r.is_complex() && !result.is_complex()) r = r.real();
  if (r.dtype() != result.dtype()) r = r.to(result.dtype());
  return with_layout_of(result, r);
}

}  // namespace

// ---------------------------------------------------------------- make_dual / unpack_dual
Tensor make_dual(const Tensor& tensor, const Tensor& tangent, std::optional<int64_t> level) {
  EMBER_CHECK(tensor.defined() && tangent.defined(), ValueError, "make_dual: expected defined tensors");
  EMBER_CHECK(g_live.load(), RuntimeError,
              "Trying to create a dual Tensor for forward AD but no level exists, make sure to enter_dual_level() first.");
  EMBER_CHECK(!level || *level == 0, RuntimeError, "Invalid level given to _make_dual");
  EMBER_CHECK(is_floating_point(tensor.dtype()) || is_complex(tensor.dtype()), ValueError,
              "Expected primal to be floating point or complex, but got: torch.", dtype_name(tensor.dtype()));
  EMBER_CHECK(is_floating_point(tangent.dtype()) || is_complex(tangent.dtype()), ValueError,
              "Expected tangent to be floating point or complex, but got: torch.", dtype_name(tangent.dtype()));
  EMBER_CHECK(!get_tangent(tensor).defined(), RuntimeError,
              "Making a dual Tensor based on a Tensor that already has a forward gradient at the same level 0 is not "
              "supported.");
  EMBER_CHECK(tangent.sizes() == tensor.sizes(), RuntimeError,
              "Trying to set a forward gradient that has a different size than that of the original Tensor, this is "
              "not supported. Tensor is of size ", tensor.sizes(), " while the given forward gradient is of size ",
              tangent.sizes(), ".");
  EMBER_CHECK(tangent.device() == tensor.device(), RuntimeError,
              "Trying to set a forward gradient that has a different device than that of the original Tensor");
  EMBER_CHECK(!get_tangent(tangent).defined(), RuntimeError,
              "Expected tangent to not have a forward gradient at the same level as the primal");
  Tensor dual, t;
  {
    SuppressGuard guard;
    dual = tensor.alias();
    t = with_layout_of(tensor, tangent);
  }
  set_tangent(dual, t);
  return dual;
}

UnpackedDual unpack_dual(const Tensor& tensor, std::optional<int64_t> level) {
  Tensor tangent = get_tangent(tensor);
  if (!tangent.defined()) return {tensor, Tensor()};  // (PyTorch checks the level only then)
  EMBER_CHECK(!level || *level == 0, RuntimeError, "Invalid level given to _fw_primal");
  SuppressGuard guard;  // the primal is a view without the tangent
  return {tensor.alias(), tangent};
}

// ---------------------------------------------------------------- rules
namespace {
std::mutex& rule_mutex() {
  static std::mutex mu;
  return mu;
}
std::unordered_map<std::string, JvpRule>& rules() {
  static auto* m = new std::unordered_map<std::string, JvpRule>();
  return *m;
}
const JvpRule* find_rule(const std::string& op) {
  std::lock_guard<std::mutex> lock(rule_mutex());
  auto it = rules().find(op);
  return it == rules().end() ? nullptr : &it->second;
}
// "mul_.Tensor" -> "mul.Tensor"
std::string functional_name(const std::string& op) {
  const size_t dot = op.find('.');
  std::string base = op.substr(0, dot);
  if (!base.empty() && base.back() == '_') base.pop_back();
  return dot == std::string::npos ? base : base + op.substr(dot);
}
// PyTorch's name of an overload in its messages: "sin.out" -> "sin_out".
std::string torch_name(const OpEntry& op) {
  const Schema& s = op.schema();
  return s.overload.empty() || s.overload == "Tensor" ? s.name : s.name + "_" + s.overload;
}
// The op's rule (its functional op's for an in-place op), looked up once per op and thread:
// entries never move, and a found one is never replaced.
const JvpRule* rule_of(const OpEntry& op, bool in_place) {
  thread_local std::unordered_map<const OpEntry*, const JvpRule*> cache;
  if (auto it = cache.find(&op); it != cache.end()) return it->second;
  const JvpRule* r = find_rule(op.name());
  if (!r && in_place) r = find_rule(functional_name(op.name()));
  if (r) cache.emplace(&op, r);
  return r;
}
}  // namespace

void register_jvp(const std::string& op, JvpRule rule) {
  std::lock_guard<std::mutex> lock(rule_mutex());
  rules()[op] = std::move(rule);
}
bool has_jvp(const std::string& op) { return find_rule(op) || find_rule(functional_name(op)); }

const Tensor& JvpContext::tensor(size_t arg) const {
  static const Tensor undefined;
  return arg < args.size() && args[arg].is_tensor() ? args[arg].tensor() : undefined;
}
const std::vector<Tensor>& JvpContext::tensor_list(size_t arg) const {
  return std::get<std::vector<Tensor>>(args[arg].value());
}
const Tensor& JvpContext::tangent(size_t arg) const {
  static const Tensor undefined;
  return arg < tangents.size() && !tangents[arg].empty() ? tangents[arg][0] : undefined;
}
Tensor JvpContext::tangent_or_zeros(size_t arg) const {
  const Tensor& t = tangent(arg);
  return t.defined() ? t : zeros_like(tensor(arg));
}
const std::vector<Tensor>& JvpContext::tangent_list(size_t arg) const { return tangents[arg]; }
Scalar JvpContext::scalar(size_t arg) const {
  const IValue& v = args[arg];
  if (v.holds<Scalar>()) return std::get<Scalar>(v.value());
  if (v.holds<double>()) return Scalar(std::get<double>(v.value()));
  if (v.holds<int64_t>()) return Scalar(std::get<int64_t>(v.value()));
  if (v.holds<bool>()) return Scalar(std::get<bool>(v.value()));
  EMBER_FAIL(RuntimeError, "JVP rule: argument ", arg, " is not a number");
}
int64_t JvpContext::int_arg(size_t arg) const { return std::get<int64_t>(args[arg].value()); }
double JvpContext::double_arg(size_t arg) const {
  const IValue& v = args[arg];
  return v.holds<double>() ? std::get<double>(v.value()) : scalar(arg).to<double>();
}
bool JvpContext::bool_arg(size_t arg) const { return std::get<bool>(args[arg].value()); }
std::vector<int64_t> JvpContext::int_list(size_t arg) const {
  const IValue& v = args[arg];
  if (v.holds<int64_t>()) return {std::get<int64_t>(v.value())};
  return std::get<std::vector<int64_t>>(v.value());
}
bool JvpContext::is_none(size_t arg) const { return arg >= args.size() || args[arg].is_none(); }
std::optional<ScalarType> JvpContext::dtype_arg(size_t arg) const {
  if (is_none(arg)) return std::nullopt;
  return std::get<ScalarType>(args[arg].value());
}
std::optional<std::string> JvpContext::string_arg(size_t arg) const {
  if (is_none(arg)) return std::nullopt;
  return std::get<std::string>(args[arg].value());
}

// ---------------------------------------------------------------- the layer's part
namespace {

// J t from the backward formula: with u a zero seed that requires grad, g = J^T u is linear in
// u, and the gradient of <g, t> (real inner product) with respect to u is J t. The op runs
// again on the primals, recorded, so that its node exists whatever required grad.
std::vector<Tensor> jvp_from_vjp(const OpEntry& op, bool in_place, detail::PendingJvp& p) {
  const OpEntry* f = &op;
  if (in_place) {
    f = Dispatcher::get().find(functional_name(op.name()));
    EMBER_CHECK(f && f->is_defined(), NotImplementedError, "Trying to use forward AD with ", torch_name(op),
                " that does not support it because it has not been implemented yet.");
  }
  const bool want_graph = GradMode::is_enabled();
  EnableGradGuard grad_on;
  Stack st(p.args);
  std::vector<Tensor> xs, ts;
  bool tangent_graph = false;
  auto prepare_input = [&](Tensor& x, const Tensor& t) {
    if (!t.defined() || !x.defined()) return;
    tangent_graph = tangent_graph || requires_grad(t) || requires_grad(x);
    if (!requires_grad(x)) {
      x = x.detach();
      set_requires_grad(x);
    }
    xs.push_back(x);
    ts.push_back(t);
  };
  for (size_t a = 0; a < st.size(); ++a) {
    if (st[a].is_tensor()) prepare_input(st[a].tensor(), p.tangents[a].empty() ? Tensor() : p.tangents[a][0]);
    else if (st[a].is_tensor_list())
      for (size_t k = 0; k < st[a].tensor_list().size(); ++k) prepare_input(st[a].tensor_list()[k], p.tangents[a][k]);
  }
  DispatchKeySet ks;
  for (const IValue& v : st) {
    if (v.is_tensor() && v.tensor().defined()) ks = ks | v.tensor().key_set();
    else if (v.is_tensor_list())
      for (const Tensor& t : std::get<std::vector<Tensor>>(v.value()))
        if (t.defined()) ks = ks | t.key_set();
  }
  // An out= form runs as itself: its results are the arguments it writes.
  std::vector<Tensor> produced;
  const bool writes = f == &op && !p.written.empty();
  if (writes)
    for (size_t w : p.written) produced.push_back(st[w].tensor());
  const LocalDispatchKeySet& local = tls_local_dispatch_keys();
  f->call_boxed((ks | local.included) - local.excluded, st);
  if (!writes)
    for (const IValue& v : st)
      if (v.is_tensor()) produced.push_back(v.tensor());
  std::vector<Tensor> ys, us;
  std::vector<size_t> where;
  size_t nres = 0;
  for (const Tensor& y : produced) {
    if (y.defined() && requires_grad(y)) {
      ys.push_back(y);
      Tensor u = zeros_like(y);
      set_requires_grad(u);
      us.push_back(u);
      where.push_back(nres);
    }
    ++nres;
  }
  std::vector<Tensor> out(nres);
  if (ys.empty()) return out;
  std::vector<Tensor> gs = grad(ys, xs, us, /*retain_graph=*/true, /*create_graph=*/true, /*allow_unused=*/true);
  // J t: the vector-Jacobian product of u -> J^T u with the tangents as cotangents (the gradient
  // of Re<J^T u, t>). The tangents are seeds, not roots, so they may be batched (vmap over a
  // dual level, as the forward-mode jacobian does).
  std::vector<Tensor> roots, seeds;
  for (size_t k = 0; k < gs.size(); ++k) {
    if (!gs[k].defined() || !requires_grad(gs[k])) continue;
    Tensor t = ts[k];
    if (t.is_complex() && !gs[k].is_complex()) t = t.real();
    if (t.dtype() != gs[k].dtype()) t = t.to(gs[k].dtype());
    roots.push_back(gs[k]);
    seeds.push_back(t);
  }
  if (roots.empty()) return out;
  std::vector<Tensor> jt = grad(roots, us, seeds, /*retain_graph=*/false, /*create_graph=*/want_graph && tangent_graph,
                                /*allow_unused=*/true);
  for (size_t i = 0; i < jt.size(); ++i) out[where[i]] = jt[i];
  return out;
}

}  // namespace

namespace detail {

bool prepare(const OpEntry& op, const Stack& stack, PendingJvp& p) {
  const auto& schema_args = op.schema().arguments;
  const size_t nargs = std::min(schema_args.size(), stack.size());
  bool any = false;
  bool out_form = false;
  p.tangents.assign(nargs, {});
  for (size_t i = 0; i < nargs; ++i) {
    if (schema_args[i].is_write) {
      p.written.push_back(i);
      out_form = out_form || schema_args[i].kwarg_only;
    }
    if (stack[i].is_tensor()) {
      Tensor t = get_tangent(stack[i].tensor());
      any = any || (t.defined() && !(schema_args[i].is_write && schema_args[i].kwarg_only));
      p.tangents[i].push_back(std::move(t));
    } else if (stack[i].is_tensor_list()) {
      for (const Tensor& x : std::get<std::vector<Tensor>>(stack[i].value())) {
        Tensor t = x.defined() ? get_tangent(x) : Tensor();
        any = any || t.defined();
        p.tangents[i].push_back(std::move(t));
      }
    }
  }
  if (!any) return false;
  // out= forms refuse dual inputs (PyTorch's message), except those with a derivative of their
  // own (norm, quantile), which the layer differentiates like in-place ops.
  const Derivative* own = out_form ? derivative_for(op, false) : nullptr;
  EMBER_CHECK(!out_form || (own && own->formula), NotImplementedError, "Trying to use forward AD with ",
              torch_name(op), " that does not support it because it is an out= function");
  const bool in_place = !p.written.empty();
  p.rule = rule_of(op, in_place);
  if (!p.rule) {
    const Derivative* d = derivative_for(op, in_place);
    if (d && !d->formula) return false;  // results that are not differentiable
    // In-place ops raise before they write; functional ones once a differentiable result shows.
    EMBER_CHECK(d || !in_place, NotImplementedError, "Trying to use forward AD with ", torch_name(op),
                " that does not support it because it has not been implemented yet.");
    p.from_vjp = d != nullptr;
    p.unsupported = d == nullptr;
  }
  p.args.assign(stack.begin(), stack.begin() + static_cast<std::ptrdiff_t>(nargs));
  if (in_place) {
    // The rule reads the written argument's value before the write.
    SuppressGuard guard;
    for (size_t w : p.written) {
      const Tensor& target = stack[w].tensor();
      Tensor old = get_tangent(target);
      const Tensor before = target.clone();
      const Tensor old_tangent = old.defined() ? old.clone() : Tensor();
      // other arguments that are the written tensor itself (x.mul_(x)) read the old value too
      for (size_t a = 0; a < nargs; ++a) {
        if (a != w && !(stack[a].is_tensor() && stack[a].tensor().impl() == target.impl())) continue;
        p.args[a] = IValue(before);
        p.tangents[a][0] = old_tangent;
      }
    }
  }
  return true;
}

void finish(const OpEntry& op, Stack& stack, PendingJvp& p) {
  std::vector<Tensor> results;
  if (p.written.empty()) {
    for (IValue& v : stack)
      if (v.is_tensor()) results.push_back(v.tensor());
  } else {
    for (size_t w : p.written) results.push_back(stack[w].tensor());
  }
  bool any_differentiable = false;
  for (const Tensor& r : results) any_differentiable = any_differentiable || (r.defined() && is_differentiable_dtype(r.dtype()));
  if (!any_differentiable) return;
  EMBER_CHECK(!p.unsupported, NotImplementedError, "Trying to use forward AD with ", torch_name(op),
              " that does not support it because it has not been implemented yet.");
  std::vector<Tensor> outs;
  {
    SuppressGuard guard;
    if (p.from_vjp) {
      outs = jvp_from_vjp(op, !p.written.empty(), p);
    } else {
      // The rule sees the results as they are (a saved-like alias for in-place: the written tensor).
      outs = (*p.rule)(JvpContext{p.args, p.tangents, results});
    }
    outs.resize(results.size());
    for (size_t i = 0; i < results.size(); ++i) {
      const Tensor& r = results[i];
      if (!r.defined() || !is_differentiable_dtype(r.dtype())) { outs[i] = Tensor(); continue; }
      if (p.written.empty() && get_tangent(r).defined()) { outs[i] = Tensor(); continue; }  // a view: has its own
      outs[i] = outs[i].defined() ? fit_tangent(outs[i], r) : zeros_like(r);
      // A rule may pass an input's tangent through (identity, copy_): the result gets its own,
      // so that in-place writes on either do not reach the other.
      for (const auto& ts : p.tangents)
        for (const Tensor& t : ts)
          if (t.defined() && outs[i].is_alias_of(t)) outs[i] = with_layout_of(r, outs[i].clone());
    }
  }
  for (size_t i = 0; i < results.size(); ++i) {
    const Tensor& r = results[i];
    if (!outs[i].defined()) continue;
    if (p.written.empty()) {
      set_tangent(r, outs[i]);
      continue;
    }
    // In place: the tangent is updated in place, so that views of it (and of the base) see it.
    Tensor cur = get_tangent(r);
    if (!cur.defined() && r.impl()->view_base()) {
      const Tensor base{Ref<TensorImpl>(r.impl()->view_base())};
      if (base.dtype() == r.dtype()) {
        SuppressGuard guard;
        Tensor bt = get_tangent(base);
        if (!bt.defined()) {
          bt = with_layout_of(base, zeros_like(base));
          set_tangent(base, bt);
        }
        cur = raw_view(bt, r.sizes(), r.strides(), bt.storage_offset() + r.storage_offset() - base.storage_offset());
        set_tangent(r, cur);
      }
    }
    if (cur.defined()) {
      SuppressGuard guard;
      cur.copy_(outs[i]);
    } else {
      set_tangent(r, outs[i]);
    }
  }
}

bool propagate_to_view(const Tensor& base, const Tensor& view) {
  if (!is_active()) return false;
  Tensor bt = get_tangent(base);
  if (!bt.defined()) return false;
  SuppressGuard guard;
  Tensor vt;
  if (view.dtype() == base.dtype()) {
    if (!same_layout(base, bt)) {  // a tangent the user unpacked keeps its old layout
      bt = with_layout_of(base, bt);
      set_tangent(base, bt);
    }
    if (bt.dtype() != base.dtype()) bt = bt.to(base.dtype());
    vt = raw_view(bt, view.sizes(), view.strides(), bt.storage_offset() + view.storage_offset() - base.storage_offset());
  } else if (base.is_complex() && !view.is_complex()) {
    if (view.dim() == base.dim() + 1) vt = bt.is_complex() ? bt.view_as_real() : stack({bt, zeros_like(bt)}, -1);
    else if (view.storage_offset() % 2 == 0) vt = bt.real();  // real(): even offsets in the real view
    else vt = bt.is_complex() ? bt.imag() : zeros_like(bt);
  } else if (!base.is_complex() && view.is_complex()) {
    vt = bt.contiguous().view_as_complex();
  } else {
    return false;  // a reinterpreting view(dtype): not differentiable
  }
  set_tangent(view, vt);
  return true;
}

}  // namespace detail
}  // namespace ember::autograd::forward_ad

namespace ember::func {

std::pair<std::vector<Tensor>, std::vector<Tensor>> jvp(
    const std::function<std::vector<Tensor>(const std::vector<Tensor>&)>& f, const std::vector<Tensor>& primals,
    const std::vector<Tensor>& tangents) {
  EMBER_CHECK(primals.size() == tangents.size(), RuntimeError,
              "jvp(f, primals, tangents): Expected primals and tangents to have the same python structure. For "
              "example, if primals is a tuple of 3 tensors, tangents also must be. Got ", primals.size(),
              " primals and ", tangents.size(), " tangents");
  autograd::forward_ad::DualLevel level;
  std::vector<Tensor> duals;
  duals.reserve(primals.size());
  for (size_t i = 0; i < primals.size(); ++i) duals.push_back(autograd::forward_ad::make_dual(primals[i], tangents[i]));
  std::vector<Tensor> outs = f(duals);
  std::pair<std::vector<Tensor>, std::vector<Tensor>> r;
  for (const Tensor& o : outs) {
    autograd::forward_ad::UnpackedDual u = autograd::forward_ad::unpack_dual(o);
    r.first.push_back(u.primal);
    r.second.push_back(u.tangent.defined() ? u.tangent : zeros_like(u.primal));
  }
  return r;
}

}  // namespace ember::func
