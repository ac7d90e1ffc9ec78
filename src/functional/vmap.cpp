// The Vmap dispatch layer: batched tensors, vmap levels, the layer kernel with its loop
// fallback, the randomness policy, and the generic (pointwise, pass-through) batch rules.
#include <algorithm>
#include <climits>
#include <cstdio>
#include <mutex>
#include <unordered_map>

#include "ember/ops.h"
#include "ember/random.h"
#include "functional/batched.h"

namespace ember::func {

using namespace detail;

Randomness parse_randomness(std::string_view s) {
  if (s == "error") return Randomness::Error;
  if (s == "different") return Randomness::Different;
  if (s == "same") return Randomness::Same;
  EMBER_FAIL(RuntimeError, "Only allowed values for randomness are 'error', 'different', or 'same'. Got ", s);
}

namespace detail {

std::vector<VmapLevel>& vmap_stack() {
  thread_local std::vector<VmapLevel> s;
  return s;
}

namespace {
std::unordered_map<const TensorImpl*, BatchInfo>& batch_table() {
  thread_local std::unordered_map<const TensorImpl*, BatchInfo> t;
  return t;
}
}  // namespace

const BatchInfo& batch_info(const Tensor& t) {
  auto& table = batch_table();
  auto it = table.find(t.impl());
  EMBER_CHECK(it != table.end(), RuntimeError, "vmap: a batched tensor was used outside of the vmap that made it "
              "(or on another thread); return it from the vmapped function instead of storing it");
  return it->second;
}

namespace {
// Levels at or above this one have applied their randomness policy to the random op being run
// (the loop of a policy calls the op again per sample; the next outer level then decides).
thread_local int64_t tls_random_floor = INT64_MAX;
struct RandomFloorGuard {
  int64_t prev;
  explicit RandomFloorGuard(int64_t level) : prev(tls_random_floor) { tls_random_floor = level; }
  ~RandomFloorGuard() { tls_random_floor = prev; }
};

std::unordered_map<const OpEntry*, BatchRule>& rule_table() {
  static auto* t = new std::unordered_map<const OpEntry*, BatchRule>();
  return *t;
}

std::function<void(const std::string&)>& warning_handler() {
  static auto* h = new std::function<void(const std::string&)>(
      [](const std::string& msg) { std::fprintf(stderr, "UserWarning: %s\n", msg.c_str()); });
  return *h;
}

int64_t top_level_of(Stack& stack) {
  int64_t level = 0;
  for_each_tensor(stack, [&](Tensor& t) {
    if (has_batch(t)) level = std::max(level, batch_info(t).level);
  });
  return level;
}

int64_t batch_size_at(Stack& stack, int64_t level) {
  int64_t b = -1;
  for_each_tensor(stack, [&](Tensor& t) {
    if (b < 0 && batched_at(t, level)) b = physical_of(t).size(0);
  });
  return b;
}

// Both floating, both complex, or both integral (bool apart): within a category a wider 0-dim
// operand does not promote a dimensioned one.
bool same_category(ScalarType a, ScalarType b) {
  if (a == ScalarType::Bool || b == ScalarType::Bool) return false;
  return is_complex(a) == is_complex(b) && is_floating_point(a) == is_floating_point(b);
}

bool has_written_args(const OpEntry& op) {
  for (const Argument& a : op.schema().arguments)
    if (a.is_write) return true;
  return false;
}

// Runs op once per sample of `level` (B samples; tensors of the level replaced by their
// sample), then stacks the results into batched tensors of the level. reset_gen: restore the
// generator before each sample, so that every sample draws the same numbers.
void run_loop(const OpEntry& op, Stack& stack, int64_t level, int64_t B, bool reset_gen) {
  const bool writes = has_written_args(op);
  EMBER_CHECK(B > 0 || writes, RuntimeError, "vmap: cannot run '", op.name(),
              "' without a batching rule on a batch of size 0");
  Generator* gen = nullptr;
  Tensor gen_state;
  if (reset_gen) {
    for (IValue& v : stack)
      if (v.holds<Generator*>() && v.get<Generator*>()) gen = v.get<Generator*>();
    if (!gen) gen = &default_generator();
    gen_state = gen->get_state();
  }
  std::vector<Stack> outs;
  outs.reserve(static_cast<size_t>(B));
  for (int64_t b = 0; b < B; ++b) {
    Stack s = stack;
    for_each_tensor(s, [&](Tensor& t) {
      if (!batched_at(t, level)) return;
      const Tensor& p = physical_of(t);
      // A sample of an expanded physical tensor (an input grad lifted without a copy): a
      // view would share its storage with every sample, and its gradient would reach them all.
      if (!writes && B > 1 && p.stride(0) == 0) {
        t = ember::index_select(p, 0, ember::full({1}, Scalar(b), kInt64)).squeeze(0);
      } else {
        t = p.select(0, b);
      }
    });
    if (gen) gen->set_state(gen_state);
    redispatch(op, s);
    if (!writes) outs.push_back(std::move(s));
  }
  if (writes) return;  // the samples were written through views; the stack keeps the arguments
  Stack result;
  const size_t n = outs[0].size();
  for (size_t j = 0; j < n; ++j) {
    IValue& first = outs[0][j];
    if (first.is_tensor() && first.tensor().defined()) {
      std::vector<Tensor> parts;
      for (Stack& s : outs) parts.push_back(s[j].tensor());
      result.emplace_back(make_batched(ember::stack(parts, 0), level));
    } else if (first.is_tensor_list()) {
      std::vector<Tensor> joined;
      for (size_t k = 0; k < first.tensor_list().size(); ++k) {
        std::vector<Tensor> parts;
        for (Stack& s : outs) parts.push_back(s[j].tensor_list()[k]);
        joined.push_back(make_batched(ember::stack(parts, 0), level));
      }
      result.emplace_back(std::move(joined));
    } else {
      result.push_back(first);
    }
  }
  stack = std::move(result);
}

std::mutex& warned_mutex() {
  static std::mutex mu;
  return mu;
}
// How many times the loop has run each op (the first run warns).
std::unordered_map<const OpEntry*, int64_t>& fallback_counts() {
  static auto* counts = new std::unordered_map<const OpEntry*, int64_t>();
  return *counts;
}

void warn_fallback(const OpEntry& op) {
  {
    std::lock_guard<std::mutex> lock(warned_mutex());
    if (fallback_counts()[&op]++ > 0) return;
  }
  warning_handler()("There is a performance drop because we have not yet implemented the batching rule for " +
                    op.name() + ". Please file us an issue on GitHub so that we can prioritize its implementation.");
}

void loop_fallback(const OpEntry& op, Stack& stack, int64_t level, int64_t B) {
  check_written_batched(op, stack, level);
  warn_fallback(op);
  run_loop(op, stack, level, B, false);
}

// Random ops follow the randomness of the innermost level that has not yet been applied.
void random_call(const OpEntry& op, Stack& stack) {
  const VmapLevel* top = nullptr;
  for (auto it = vmap_stack().rbegin(); it != vmap_stack().rend(); ++it)
    if (it->level < tls_random_floor) { top = &*it; break; }
  if (!top) {
    redispatch(op, stack);
    return;
  }
  const int64_t level = top->level;
  bool batched = false;
  for_each_tensor(stack, [&](Tensor& t) { batched = batched || batched_at(t, level); });
  RandomFloorGuard floor(level);
  switch (top->randomness) {
    case Randomness::Error:
      EMBER_FAIL(RuntimeError, "vmap: called random operation while in randomness error mode. Please either use "
                 "the 'same' or 'different' randomness flags on vmap or perform the randomness operation out of vmap");
    case Randomness::Same:
      if (!batched) {
        redispatch(op, stack);
      } else {
        check_written_batched(op, stack, level);
        run_loop(op, stack, level, top->batch_size, true);
      }
      return;
    case Randomness::Different: {
      const auto& args = op.schema().arguments;
      for (size_t i = 0; i < args.size() && i < stack.size(); ++i)
        EMBER_CHECK(!(args[i].is_write && stack[i].is_tensor() && !batched_at(stack[i].tensor(), level)),
                    RuntimeError, "vmap: Cannot ask for different inplace randomness on an unbatched tensor. "
                    "This will appear like same randomness. If this is necessary for your usage, please file an "
                    "issue with functorch.");
      run_loop(op, stack, level, top->batch_size, false);
      return;
    }
  }
}

}  // namespace

// The Vmap key's kernel for every op: peel the innermost level off with a batch rule, else loop.
void vmap_layer_kernel(const OpEntry& op, DispatchKeySet, Stack& stack) {
  if (op.has_tag(Tag::Random)) {
    random_call(op, stack);
    return;
  }
  const int64_t level = top_level_of(stack);
  if (level == 0) {
    redispatch(op, stack);
    return;
  }
  const int64_t B = batch_size_at(stack, level);
  auto& rules = rule_table();
  if (auto it = rules.find(&op); it != rules.end() && it->second(op, stack, level, B)) return;
  if (op.has_tag(Tag::Pointwise) && pointwise_rule(op, stack, level, B)) return;
  loop_fallback(op, stack, level, B);
}

namespace {
EMBER_REGISTER(vmap_layer) { Dispatcher::get().set_fallback(DispatchKey::Vmap, &vmap_layer_kernel); }
}  // namespace

void set_batch_rule(const OpEntry& op, BatchRule rule) {
  rule_table()[&op] = rule;
  register_boxed_kernel(op.name(), DispatchKey::Vmap, &vmap_layer_kernel);
}

Tensor make_batched(const Tensor& physical, int64_t level) {
  EMBER_INTERNAL_ASSERT(physical.dim() >= 1, "a batched tensor needs a batch dim");
  IntArrayRef sz = physical.sizes(), st = physical.strides();
  auto impl = Ref<TensorImpl>::make(physical.storage(), physical.dtype(), sz.slice(1, sz.size() - 1), st.slice(1, st.size() - 1),
                                    physical.storage_offset());
  impl->add_keys(DispatchKeySet(physical.key_set().highest_backend()).add(DispatchKey::Vmap));
  impl->set_inference(physical.is_inference());
  Tensor t(std::move(impl));
  batch_table()[t.impl()] = BatchInfo{physical, level};
  return t;
}

Tensor batched_view(const Tensor& base, IntArrayRef sizes, IntArrayRef strides, int64_t offset,
                    std::optional<ScalarType> dtype) {
  Tensor phys = physical_of(base);  // a copy: the table may rehash below
  const ScalarType t = dtype.value_or(base.dtype());
  DimVector psz{phys.size(0)}, pst{phys.stride(0)};
  // view_as_real / view_as_complex change the element size: the batch stride scales with it.
  if (itemsize(t) != itemsize(phys.dtype()))
    pst[0] = pst[0] * static_cast<int64_t>(itemsize(phys.dtype())) / static_cast<int64_t>(itemsize(t));
  for (int64_t s : sizes) psz.push_back(s);
  for (int64_t s : strides) pst.push_back(s);
  Tensor pview;
  if (t == phys.dtype()) {
    pview = phys.as_strided(psz, pst, offset);  // recorded by autograd when phys takes part
  } else {
    auto impl = Ref<TensorImpl>::make(phys.storage(), t, psz, pst, offset);
    impl->add_keys(DispatchKeySet(phys.key_set().highest_backend()));
    pview = Tensor(std::move(impl));
  }
  return make_batched(pview, batch_info(base).level);
}

void redispatch(const OpEntry& op, Stack& stack) {
  DispatchKeySet ks;
  for_each_tensor(stack, [&](Tensor& t) {
    if (t.defined()) ks = ks | t.key_set();
  });
  const bool batched = ks.has(DispatchKey::Vmap);
  const LocalDispatchKeySet& local = tls_local_dispatch_keys();
  ks = (ks | local.included) - local.excluded;
  if (!batched) ks = ks.remove(DispatchKey::Vmap);
  op.call_boxed(ks, stack);
}

void wrap_results(Stack& stack, int64_t level) {
  for (IValue& v : stack) {
    if (v.is_tensor() && v.tensor().defined()) {
      v = IValue(make_batched(v.tensor(), level));  // NOLINT
    } else if (v.is_tensor_list()) {
      for (Tensor& t : v.tensor_list())
        if (t.defined()) t = make_batched(t, level);
    }
  }
}

void fail_inplace(const OpEntry& op) {
  const std::string& n = op.schema().name;
  EMBER_FAIL(RuntimeError, "vmap: ", n, "(self, *extra_args) is not possible because there exists a Tensor `other` "
             "in extra_args that has more elements than `self`. This happened due to `other` being vmapped over "
             "but `self` not being vmapped over in a vmap. Please try to use out-of-place operators instead of ", n,
             ". If said operator is being called inside the PyTorch framework, please file a bug report instead.");
}

void check_written_batched(const OpEntry& op, const Stack& stack, int64_t level) {
  const auto& args = op.schema().arguments;
  for (size_t i = 0; i < args.size() && i < stack.size(); ++i)
    if (args[i].is_write && stack[i].is_tensor() && stack[i].tensor().defined() &&
        !batched_at(stack[i].tensor(), level))
      fail_inplace(op);
}

// Runs op on the stack's physical tensors; an op that writes its arguments returns them as it
// was given them (`orig`, logical), any other gets its results wrapped at `level`.
static void redispatch_wrapped(const OpEntry& op, Stack& stack, Stack&& orig, bool writes, int64_t level) {
  redispatch(op, stack);
  if (writes) {
    stack = std::move(orig);
  } else {
    wrap_results(stack, level);
  }
}

bool pointwise_rule(const OpEntry& op, Stack& stack, int64_t level, int64_t) {
  check_written_batched(op, stack, level);
  int64_t rank = 0;
  for_each_tensor(stack, [&](Tensor& t) {
    if (t.defined()) rank = std::max(rank, t.dim());
  });
  const bool writes = has_written_args(op);
  Stack orig = writes ? stack : Stack();
  // A batched 0-dim operand promotes as a 0-dim tensor per sample, but its physical tensor has
  // a dim: where that changes the result type, it enters the op in the per-sample result type.
  std::vector<Tensor> logical;
  bool scalar_batched = false;
  for_each_tensor(stack, [&](Tensor& t) {
    if (!t.defined()) return;
    logical.push_back(t);
    scalar_batched = scalar_batched || (batched_at(t, level) && t.dim() == 0);
  });
  std::optional<ScalarType> cast_to;
  if (scalar_batched && !writes && logical.size() >= 2) cast_to = result_type(logical);
  // Broadcasting aligns trailing dims: pad batched operands to the common rank behind the batch dim.
  for_each_tensor(stack, [&](Tensor& t) {
    if (!batched_at(t, level)) return;
    const int64_t r = t.dim();
    Tensor p = physical_of(t);
    if (r == 0 && cast_to && p.dtype() != *cast_to && same_category(p.dtype(), *cast_to)) p = p.to(*cast_to);
    for (int64_t k = r; k < rank; ++k) p = p.unsqueeze(1);
    t = p;
  });
  redispatch_wrapped(op, stack, std::move(orig), writes, level);
  return true;
}

bool passthrough_rule(const OpEntry& op, Stack& stack, int64_t level, int64_t) {
  int n = 0;
  bool first = true, ok = true;
  for_each_tensor(stack, [&](Tensor& t) {
    if (!t.defined()) return;
    if (batched_at(t, level)) {
      ok = ok && first;
      ++n;
    }
    first = false;
  });
  if (!ok || n != 1) return false;
  check_written_batched(op, stack, level);
  const bool writes = has_written_args(op);
  Stack orig = writes ? stack : Stack();
  for_each_tensor(stack, [&](Tensor& t) {
    if (batched_at(t, level)) t = physical_of(t);
  });
  redispatch_wrapped(op, stack, std::move(orig), writes, level);
  return true;
}

// Ops that treat every leading dim as a batch dim, with several tensor operands (linalg
// solves, the backward ops of pooling and upsampling): operands of one logical rank are
// expanded over the batch, which is then one more leading dim of each. Operands of different
// ranks would broadcast their per-sample leading dims against the batch dim: only a batched
// first operand alone, of the highest rank (pass-through), is safe then.
bool leading_dims_rule(const OpEntry& op, Stack& stack, int64_t level, int64_t B) {
  if (has_written_args(op)) return passthrough_rule(op, stack, level, B);
  int64_t rank = -1;
  bool same_rank = true;
  for_each_tensor(stack, [&](Tensor& t) {
    if (!t.defined()) return;
    if (rank < 0) rank = t.dim();
    same_rank = same_rank && t.dim() == rank;
  });
  if (!same_rank) {
    // A lone batched first operand of the highest rank: the others broadcast behind its batch dim.
    int64_t max_rank = 0;
    for_each_tensor(stack, [&](Tensor& t) {
      if (t.defined()) max_rank = std::max(max_rank, t.dim());
    });
    return rank == max_rank && passthrough_rule(op, stack, level, B);
  }
  for_each_tensor(stack, [&](Tensor& t) {
    if (t.defined()) t = physical_or_expanded(t, level, B);
  });
  redispatch(op, stack);
  // A result without the batch dim is an empty placeholder (linalg_qr's Q in mode 'r'): the
  // same for every sample.
  for (IValue& v : stack) {
    if (!v.is_tensor() || !v.tensor().defined()) continue;
    Tensor r = v.tensor();
    if ((r.dim() == 0 || r.size(0) != B) && r.numel() == 0) {
      DimVector sz{B};
      for (int64_t s : r.sizes()) sz.push_back(s);
      r = r.unsqueeze(0).expand(sz);
    }
    v = IValue(make_batched(r, level));
  }
  return true;
}

}  // namespace detail

// ---------------------------------------------------------------- levels and batch dims

// The rules are registered on the first vmap (or inventory), once every op is defined.
static void ensure_batch_rules() {
  static std::once_flag once;
  std::call_once(once, [] { register_batch_rules(); });
}

int64_t vmap_increment_nesting(int64_t batch_size, Randomness randomness) {
  ensure_batch_rules();
  auto& s = vmap_stack();
  const int64_t level = s.empty() ? 1 : s.back().level + 1;
  s.push_back({level, batch_size, randomness});
  return level;
}

void vmap_decrement_nesting() {
  auto& s = vmap_stack();
  EMBER_CHECK(!s.empty(), RuntimeError, "vmap: decrement_nesting without a matching increment_nesting");
  const int64_t level = s.back().level;
  s.pop_back();
  auto& table = batch_table();
  for (auto it = table.begin(); it != table.end();) it = it->second.level >= level ? table.erase(it) : std::next(it);
}

int64_t current_vmap_level() {
  auto& s = vmap_stack();
  return s.empty() ? 0 : s.back().level;
}

int64_t vmap_batch_size(int64_t level) {
  for (const VmapLevel& l : vmap_stack())
    if (l.level == level) return l.batch_size;
  EMBER_FAIL(RuntimeError, "vmap: level ", level, " is not active");
}

Tensor add_batch_dim(const Tensor& t, int64_t in_dim, int64_t level) {
  EMBER_CHECK(t.defined(), ValueError, "vmap: cannot batch an undefined tensor");
  EMBER_CHECK(in_dim >= -t.dim() && in_dim < t.dim(), ValueError, "vmap: in_dim ", in_dim,
              " is out of range for a tensor with ", t.dim(), " dims");
  Tensor p = in_dim == 0 ? t : ember::movedim(t, in_dim, 0);
  return make_batched(p, level);
}

Tensor remove_batch_dim(const Tensor& t, int64_t level, int64_t batch_size, int64_t out_dim) {
  if (batched_at(t, level)) {
    Tensor p = physical_of(t);
    const int64_t d = wrap_dim(out_dim, p.dim(), "vmap");
    return d == 0 ? p : ember::movedim(p, 0, d);
  }
  const int64_t d = wrap_dim(out_dim, t.dim() + 1, "vmap");
  DimVector sz(t.sizes());
  sz.insert(static_cast<size_t>(d), batch_size);
  return t.unsqueeze(d).expand(sz);
}

Tensor like_batched(const Tensor& t, const std::function<Tensor(const Tensor&)>& make) {
  const BatchInfo& info = batch_info(t);
  const int64_t level = info.level;
  return make_batched(make(Tensor(info.physical)), level);
}

bool is_batched(const Tensor& t) { return has_batch(t); }
int64_t batch_level(const Tensor& t) { return has_batch(t) ? batch_info(t).level : 0; }

void check_not_batched(const Tensor& t, std::string_view what) {
  if (!is_batched(t)) return;
  if (what == "item")
    EMBER_FAIL(RuntimeError, "vmap: It looks like you're calling .item() on a Tensor. We don't support vmap over "
               "calling .item() on a Tensor, please try to rewrite what you're doing with other operations.");
  EMBER_FAIL(RuntimeError, "vmap: It looks like you're attempting to use a Tensor in some data-dependent control flow "
             "(", what, "). We don't support that yet, please shout over at "
             "https://github.com/pytorch/functorch/issues/257 .");
}

void set_vmap_warning_handler(std::function<void(const std::string&)> handler) {
  detail::warning_handler() = std::move(handler);
}

std::vector<std::pair<std::string, std::string>> vmap_op_coverage() {
  ensure_batch_rules();
  std::vector<std::pair<std::string, std::string>> out;
  for (const OpEntry* op : Dispatcher::get().all_ops()) {
    if (!op->is_defined()) continue;
    const char* kind = "loop";
    if (op->has_tag(Tag::Random)) {
      kind = "random";
    } else if (rule_table().count(op)) {
      kind = "rule";
    } else if (op->kernel(DispatchKey::Vmap) || op->composite()) {
      kind = "composite";  // a Vmap kernel other than a rule's is not registered; composites decompose
    } else if (op->has_tag(Tag::Pointwise)) {
      kind = "pointwise";
    }
    out.emplace_back(op->name(), kind);
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::pair<std::string, int64_t>> vmap_fallback_counts() {
  std::lock_guard<std::mutex> lock(warned_mutex());
  std::vector<std::pair<std::string, int64_t>> out;
  for (const auto& [op, n] : fallback_counts()) out.emplace_back(op->name(), n);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace ember::func
