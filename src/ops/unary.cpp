// Unary pointwise ops: neg, abs, exp, log, sqrt, sin, cos, tanh, sigmoid, relu; functional,
// in-place and out=. Dtype rules follow PyTorch 1.13 on CPU:
//  - neg, abs, relu keep the input dtype (abs of complex gives the real dtype), and their
//    out= must have exactly that dtype; bool is rejected, relu rejects complex too.
//  - the float ops compute integer and bool inputs in the default float dtype; float16 has
//    no CPU kernel for them in PyTorch 1.13 and is rejected likewise.
#include "ops/pointwise.h"

namespace ember {

namespace {

using cpu::UnaryOp;
using UnarySig = Tensor(const Tensor&);
using UnaryInplaceSig = Tensor&(Tensor&);
using UnaryOutSig = Tensor&(const Tensor&, Tensor&);

struct UnaryInfo {
  const char* name;
  const char* inplace_name;
  bool float_op;  // integer inputs compute in the default float dtype
};

constexpr UnaryInfo info(UnaryOp op) {
  switch (op) {
    case UnaryOp::Neg: return {"neg", "neg_", false};
    case UnaryOp::Abs: return {"abs", "abs_", false};
    case UnaryOp::Exp: return {"exp", "exp_", true};
    case UnaryOp::Log: return {"log", "log_", true};
    case UnaryOp::Sqrt: return {"sqrt", "sqrt_", true};
    case UnaryOp::Sin: return {"sin", "sin_", true};
    case UnaryOp::Cos: return {"cos", "cos_", true};
    case UnaryOp::Tanh: return {"tanh", "tanh_", true};
    case UnaryOp::Sigmoid: return {"sigmoid", "sigmoid_", true};
    case UnaryOp::Relu: return {"relu", "relu_", false};
  }
  return {"unary", "unary_", false};
}

// Dtype checks that come before any allocation (so Meta tensors raise the same errors).
void check_dtype(UnaryOp op, const char* name, const Tensor& self, const Tensor& out, bool inplace) {
  const ScalarType dt = self.dtype();
  const UnaryInfo in = info(op);
  if (op == UnaryOp::Neg)
    EMBER_CHECK(dt != kBool, RuntimeError, name,
                "(): Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
                "to invert a mask, use the `~` or `logical_not()` operator instead.");
  if (op == UnaryOp::Abs) {
    EMBER_CHECK(dt != kBool, RuntimeError, name, "(): \"abs\" not implemented for 'bool'");
    EMBER_CHECK(!(inplace && is_complex(dt)), RuntimeError, name,
                "(): In-place abs is not supported for complex tensors.");
  }
  if (op == UnaryOp::Relu) {
    EMBER_CHECK(dt != kBool, RuntimeError, name, "(): Boolean inputs not supported for relu");
    EMBER_CHECK(!is_complex(dt), RuntimeError, name, "(): relu is not supported for complex types, got ", dt);
  }
  if (in.float_op || op == UnaryOp::Relu)
    EMBER_CHECK(dt != kHalf, RuntimeError, name, "(): \"", in.name, "\" not implemented for '", dt, "'");
  // Ops that keep the dtype write only into an output of exactly that dtype.
  const bool keeps_dtype = !in.float_op && !(op == UnaryOp::Abs && is_complex(dt));
  if (keeps_dtype && out.defined() && !inplace)
    EMBER_CHECK(out.dtype() == dt, RuntimeError, name, "(): Found dtype ", out.dtype(),
                " but expected ", dt);
}

Tensor unary(UnaryOp op, const Tensor& out, const Tensor& self, bool inplace) {
  const UnaryInfo in = info(op);
  const char* name = inplace ? in.inplace_name : in.name;
  EMBER_CHECK(self.defined(), ValueError, name, "(): got an undefined tensor");
  check_dtype(op, name, self, out, inplace);
  IterConfig cfg;
  cfg.int_to_float = in.float_op;
  if (op == UnaryOp::Abs && is_complex(self.dtype())) cfg.output_dtype = to_real_type(self.dtype());
  return run_pointwise(name, out, {self}, cfg, [op](const ElementwiseIter& it) { cpu::unary_stub(it, op); });
}

template <UnaryOp Op>
Tensor unary_k(const Tensor& self) {
  return unary(Op, Tensor(), self, false);
}
template <UnaryOp Op>
Tensor& unary_inplace_k(Tensor& self) {
  unary(Op, self, self, true);
  return self;
}
template <UnaryOp Op>
Tensor& unary_out_k(const Tensor& self, Tensor& out) {
  unary(Op, out, self, false);
  return out;
}

template <UnaryOp Op>
void define_unary() {
  const UnaryInfo in = info(Op);
  const uint32_t pw = static_cast<uint32_t>(Tag::Pointwise);
  const std::string n = in.name;
  define_op<UnarySig>(n + "(Tensor self) -> Tensor", pw);
  define_op<UnaryInplaceSig>(n + "_(Tensor(a!) self) -> Tensor(a!)", Tag::Pointwise | Tag::Inplace);
  define_op<UnaryOutSig>(n + ".out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)", pw);
  for (DispatchKey k : {DispatchKey::CPU, DispatchKey::Meta}) {
    register_kernel<UnarySig, &unary_k<Op>>(n, k);
    register_kernel<UnaryInplaceSig, &unary_inplace_k<Op>>(n + "_", k);
    register_kernel<UnaryOutSig, &unary_out_k<Op>>(n + ".out", k);
  }
}

}  // namespace

// Front functions and methods. The TypedOp handles are looked up once per op.
#define EMBER_UNARY_FRONT(name)                                               \
  Tensor name(const Tensor& self) {                                           \
    static const TypedOp<UnarySig> op(#name);                                 \
    return op.call(self);                                                     \
  }                                                                           \
  Tensor& name##_out(Tensor& out, const Tensor& self) {                       \
    static const TypedOp<UnaryOutSig> op(#name ".out");                       \
    return op.call(self, out);                                                \
  }                                                                           \
  Tensor Tensor::name() const { return ember::name(*this); }                  \
  Tensor& Tensor::name##_() {                                                 \
    static const TypedOp<UnaryInplaceSig> op(#name "_");                      \
    return op.call(*this);                                                    \
  }
EMBER_UNARY_FRONT(neg)
EMBER_UNARY_FRONT(abs)
EMBER_UNARY_FRONT(exp)
EMBER_UNARY_FRONT(log)
EMBER_UNARY_FRONT(sqrt)
EMBER_UNARY_FRONT(sin)
EMBER_UNARY_FRONT(cos)
EMBER_UNARY_FRONT(tanh)
EMBER_UNARY_FRONT(sigmoid)
EMBER_UNARY_FRONT(relu)
#undef EMBER_UNARY_FRONT

EMBER_REGISTER(unary_ops) {
  define_unary<UnaryOp::Neg>();
  define_unary<UnaryOp::Abs>();
  define_unary<UnaryOp::Exp>();
  define_unary<UnaryOp::Log>();
  define_unary<UnaryOp::Sqrt>();
  define_unary<UnaryOp::Sin>();
  define_unary<UnaryOp::Cos>();
  define_unary<UnaryOp::Tanh>();
  define_unary<UnaryOp::Sigmoid>();
  define_unary<UnaryOp::Relu>();
}

}  // namespace ember
