// Batch rules for the in-place and out= forms of the matrix products (addmm_, addmv_,
// baddbmm_, addbmm_, and the .out overloads of those and of matmul): the out-of-place product
// runs through its own rule, and its result is copied into the written tensor. That tensor
// must be batched when any operand is (vmap's in-place error otherwise, as in functorch).
#include "ember/ops.h"
#include "functional/batched.h"

namespace ember::func::detail {

namespace {

bool product_inplace_rule(const OpEntry& op, Stack& stack, int64_t level, int64_t) {
  check_written_batched(op, stack, level);
  const auto& args = op.schema().arguments;
  size_t written = args.size();
  for (size_t i = 0; i < args.size(); ++i)
    if (args[i].is_write) written = i;
  if (written >= stack.size() || !stack[written].is_tensor()) return false;
  std::string base = op.schema().name;
  if (!base.empty() && base.back() == '_') base.pop_back();
  const OpEntry* target = Dispatcher::get().find(base);
  if (!target) return false;
  Tensor dst = stack[written].tensor();
  // The out-of-place call takes the arguments other than an out= tensor.
  Stack s;
  for (size_t i = 0; i < stack.size(); ++i)
    if (i != written || written == 0) s.push_back(static_cast<const IValue&>(stack[i]));
  redispatch(*target, s);  // back at the layer, through the product's rule
  const Tensor r = s[0].tensor();
  if (!r.sizes().equals(dst.sizes())) return false;  // the op's error (or out='s resize), per sample
  ember::copy_(dst, r);
  stack.clear();
  stack.emplace_back(dst);
  return true;
}

void set_rule(const char* name, BatchRule rule) {
  if (const OpEntry* op = Dispatcher::get().find(name)) set_batch_rule(*op, rule);
}

}  // namespace

void register_product_batch_rules() {
  for (const char* n : {"addmm_", "addmv_", "baddbmm_", "addbmm_", "addmm.out", "addmv.out", "baddbmm.out",
                        "addbmm.out", "matmul.out"})
    set_rule(n, &product_inplace_rule);
}

}  // namespace ember::func::detail
