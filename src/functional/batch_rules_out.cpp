// Batch rules for in-place and out= overloads whose functional op has a rule: the in-place
// matrix products (addmm_, addmv_, baddbmm_, addbmm_) and the out= forms (matmul.out,
// addmm.out, cumsum.out, gather.out, sort.values, ...). The functional op runs through its
// own rule and its results are copied into the written tensors, which must be batched when
// any operand is (vmap's in-place error otherwise, as in functorch).
#include <algorithm>

#include "ember/ops.h"
#include "functional/batched.h"

namespace ember::func::detail {

namespace {

std::vector<size_t> written_args(const OpEntry& op) {
  std::vector<size_t> w;
  const auto& args = op.schema().arguments;
  for (size_t i = 0; i < args.size(); ++i)
    if (args[i].is_write) w.push_back(i);
  return w;
}

// The functional overload whose results op writes: X_ -> X; X.out -> X; X.Y_out -> X.Y;
// X.values -> X; X.values_Y -> X.Y. Its arguments must be op's unwritten ones (an in-place
// op's self included), in order.
const OpEntry* functional_of(const OpEntry& op) {
  const std::string& base = op.schema().name;
  const bool inplace = !base.empty() && base.back() == '_';
  std::vector<std::string> names;
  if (inplace) {
    names.push_back(base.substr(0, base.size() - 1));
  } else {
    const std::string ov = op.name().size() > base.size() ? op.name().substr(base.size() + 1) : "";
    auto ends = [&](const std::string& suffix) {
      return ov.size() > suffix.size() && ov.compare(ov.size() - suffix.size(), suffix.size(), suffix) == 0;
    };
    if (ends("_out")) names.push_back(base + "." + ov.substr(0, ov.size() - 4));
    if (ov.rfind("values_", 0) == 0) names.push_back(base + "." + ov.substr(7));
    if (ov == "out" || ov == "values" || ends("_out")) names.push_back(base);
  }
  const auto& args = op.schema().arguments;
  for (const std::string& n : names) {
    const OpEntry* f = Dispatcher::get().find(n);
    if (!f || !f->is_defined()) continue;
    const auto& fargs = f->schema().arguments;
    size_t k = 0;
    bool same = true;
    for (size_t i = 0; i < args.size(); ++i) {
      const Argument& a = args[i];
      if (a.is_write && !(inplace && i == 0)) continue;
      same = same && k < fargs.size() && fargs[k].name == a.name && !fargs[k].is_write;
      ++k;
    }
    if (same && k == fargs.size()) return f;
  }
  return nullptr;
}

bool functional_then_copy_rule(const OpEntry& op, Stack& stack, int64_t level, int64_t) {
  check_written_batched(op, stack, level);
  const std::vector<size_t> written = written_args(op);
  const OpEntry* f = functional_of(op);
  if (!f || written.empty()) return false;
  const bool inplace = written.size() == 1 && written[0] == 0 && op.schema().name.back() == '_';
  Stack s;
  for (size_t i = 0; i < stack.size(); ++i)
    if (inplace || std::find(written.begin(), written.end(), i) == written.end())
      s.push_back(static_cast<const IValue&>(stack[i]));
  redispatch(*f, s);  // back at the layer, through the functional op's rule
  if (s.size() < written.size()) return false;
  // Results of another shape or type: the op's resize or error, per sample.
  for (size_t k = 0; k < written.size(); ++k) {
    if (!stack[written[k]].is_tensor() || !s[k].is_tensor()) return false;
    const Tensor& dst = stack[written[k]].tensor();
    const Tensor& r = s[k].tensor();
    if (!dst.defined() || !r.sizes().equals(dst.sizes()) || r.dtype() != dst.dtype()) return false;
  }
  Stack out;
  for (size_t k = 0; k < written.size(); ++k) {
    Tensor dst = stack[written[k]].tensor();
    ember::copy_(dst, s[k].tensor());
    out.emplace_back(dst);
  }
  stack = std::move(out);
  return true;
}

}  // namespace

void register_out_batch_rules() {
  for (const OpEntry* op : Dispatcher::get().all_ops()) {
    // Ops with a rule (a Vmap kernel) or a composite (which decomposes at the layer) keep them.
    // Pointwise ops keep the pointwise rule, which writes in place without a copy.
    if (!op->is_defined() || op->has_tag(Tag::Random) || op->has_tag(Tag::Pointwise) || op->kernel(DispatchKey::Vmap) ||
        op->composite())
      continue;
    const std::string& base = op->schema().name;
    static const char* products[] = {"addmm_", "addmv_", "baddbmm_", "addbmm_"};
    if (!base.empty() && base.back() == '_' &&
        std::none_of(std::begin(products), std::end(products), [&](const char* p) { return base == p; }))
      continue;  // other in-place ops have their own rules, or are pointwise
    const OpEntry* f = functional_of(*op);
    if (f && (f->kernel(DispatchKey::Vmap) || f->has_tag(Tag::Pointwise))) set_batch_rule(*op, &functional_then_copy_rule);
  }
}

}  // namespace ember::func::detail
