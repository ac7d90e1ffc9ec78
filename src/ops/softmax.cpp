// softmax and log_softmax (torch.softmax / torch.log_softmax, dtype= casts first) and the
// backward ops their derivatives call, with CPU kernels in kernels/softmax.cpp. Inputs
// are made contiguous and viewed as [outer, size, inner] around the softmax dim, so one
// kernel serves every dim; the result is contiguous (as PyTorch's).
#include "backends/cpu/nn_stubs.h"
#include "ember/dispatch.h"
#include "ember/ops.h"

namespace ember {
namespace softmax_detail {
namespace {

using SoftmaxSig = Tensor(const Tensor&, int64_t, std::optional<ScalarType>);
using BackwardSig = Tensor(const Tensor&, const Tensor&, int64_t, ScalarType);

const char* name_of(bool log) { return log ? "log_softmax" : "softmax"; }

void check_dtype(const char* op, ScalarType dt) {
  EMBER_CHECK(is_floating_point(dt), RuntimeError, op, "(): expected a floating-point tensor, got ", dt,
              " (pass dtype= to compute in a floating type)");
}

cpu::SoftmaxArgs view3(const Tensor& t, int64_t dim) {
  cpu::SoftmaxArgs a;
  a.dtype = t.dtype();
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (d < dim) a.outer *= t.size(d);
    else if (d == dim) a.size = t.size(d);
    else a.inner *= t.size(d);
  }
  return a;
}

Tensor softmax_impl(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype, bool log) {
  const char* op = name_of(log);
  const Tensor x = (dtype && *dtype != self.dtype() ? self.to(*dtype) : self).contiguous();
  check_dtype(op, x.dtype());
  const int64_t d = wrap_dim(dim, std::max<int64_t>(x.dim(), 1), op);
  Tensor out = empty(x.sizes(), TensorOptions().dtype(x.dtype()).device(x.device()));
  if (x.is_meta() || x.numel() == 0) return out;
  if (x.dim() == 0) return out.fill_(log ? 0 : 1);
  cpu::SoftmaxArgs a = view3(x, d);
  a.in = static_cast<const char*>(x.data_ptr());
  a.out = static_cast<char*>(out.data_ptr());
  a.log = log;
  cpu::softmax_stub(a);
  return out;
}

Tensor backward_impl(const Tensor& grad, const Tensor& output, int64_t dim, ScalarType input_dtype, bool log) {
  const char* op = log ? "_log_softmax_backward_data" : "_softmax_backward_data";
  EMBER_CHECK(grad.sizes() == output.sizes(), RuntimeError, op, "(): grad_output of shape ", grad.sizes(),
              " does not match output of shape ", output.sizes());
  EMBER_CHECK(grad.dtype() == output.dtype(), RuntimeError, op, "(): grad_output (", grad.dtype(),
              ") and output (", output.dtype(), ") differ in dtype");
  check_dtype(op, output.dtype());
  const Tensor g = grad.contiguous(), y = output.contiguous();
  const int64_t d = wrap_dim(dim, std::max<int64_t>(y.dim(), 1), op);
  Tensor out = empty(y.sizes(), TensorOptions().dtype(y.dtype()).device(y.device()));
  if (y.is_meta() || y.numel() == 0) return out.to(input_dtype);
  if (y.dim() == 0) return (log ? sub(g, mul(exp(y), g)) : zeros_like(g)).to(input_dtype);
  cpu::SoftmaxArgs a = view3(y, d);
  a.in = static_cast<const char*>(g.data_ptr());
  a.y = static_cast<const char*>(y.data_ptr());
  a.out = static_cast<char*>(out.data_ptr());
  a.log = log;
  cpu::softmax_backward_stub(a);
  return out.to(input_dtype);
}

Tensor softmax_k(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return softmax_impl(self, dim, dtype, false);
}
Tensor log_softmax_k(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  return softmax_impl(self, dim, dtype, true);
}
Tensor softmax_backward_k(const Tensor& g, const Tensor& y, int64_t dim, ScalarType input_dtype) {
  return backward_impl(g, y, dim, input_dtype, false);
}
Tensor log_softmax_backward_k(const Tensor& g, const Tensor& y, int64_t dim, ScalarType input_dtype) {
  return backward_impl(g, y, dim, input_dtype, true);
}

}  // namespace
}  // namespace softmax_detail

using namespace softmax_detail;

Tensor softmax(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  static const TypedOp<SoftmaxSig> op("softmax.int");
  return op.call(self, dim, dtype);
}
Tensor log_softmax(const Tensor& self, int64_t dim, std::optional<ScalarType> dtype) {
  static const TypedOp<SoftmaxSig> op("log_softmax.int");
  return op.call(self, dim, dtype);
}
Tensor _softmax_backward_data(const Tensor& grad_output, const Tensor& output, int64_t dim, ScalarType input_dtype) {
  static const TypedOp<BackwardSig> op("_softmax_backward_data");
  return op.call(grad_output, output, dim, input_dtype);
}
Tensor _log_softmax_backward_data(const Tensor& grad_output, const Tensor& output, int64_t dim,
                                  ScalarType input_dtype) {
  static const TypedOp<BackwardSig> op("_log_softmax_backward_data");
  return op.call(grad_output, output, dim, input_dtype);
}

EMBER_REGISTER(softmax_ops) {
  define_op<SoftmaxSig>("softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor");
  define_op<SoftmaxSig>("log_softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor");
  register_cpu_meta<SoftmaxSig, &softmax_k>("softmax.int");
  register_cpu_meta<SoftmaxSig, &log_softmax_k>("log_softmax.int");
  define_op<BackwardSig>("_softmax_backward_data(Tensor grad_output, Tensor output, int dim, "
                         "ScalarType input_dtype) -> Tensor", Tag::FunctionOnly);
  define_op<BackwardSig>("_log_softmax_backward_data(Tensor grad_output, Tensor output, int dim, "
                         "ScalarType input_dtype) -> Tensor", Tag::FunctionOnly);
  register_cpu_meta<BackwardSig, &softmax_backward_k>("_softmax_backward_data");
  register_cpu_meta<BackwardSig, &log_softmax_backward_k>("_log_softmax_backward_data");
}

}  // namespace ember
