#include "backends/cpu/pointwise_stubs.h"

namespace ember::cpu {

Stub<TernaryFn> ternary_stub;
Stub<IsCloseFn> isclose_stub;

const char* unary_op_name(UnaryOp op) {
#define EMBER_NAME_CASE(name) case UnaryOp::name: return #name;
  switch (op) { EMBER_UNARY_OPS(EMBER_NAME_CASE) }
#undef EMBER_NAME_CASE
  return "unary";
}

}  // namespace ember::cpu
