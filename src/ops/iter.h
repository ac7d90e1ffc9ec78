// ElementwiseIter: the shared front half of every elementwise op.
//
// From the operands it works out the broadcast shape, the dtype to compute in (PyTorch's
// promotion, Python numbers weak), the outputs (allocated in the inputs' memory order, or
// checked and resized when given), casts inputs that need it, and folds dimensions that are
// contiguous in every operand together. The same configuration is the op's shape and dtype
// inference: on Meta tensors it stops after allocating outputs. Backends then run a loop over
// `loop_shape` with per-operand byte strides.
#pragma once

#include "ember/tensor.h"

namespace ember {

struct IterConfig {
  // Compute in the promoted dtype of the inputs (else all inputs must share one dtype).
  bool promote_inputs = true;
  // Integer and bool inputs compute in the default float dtype (true division, sqrt, exp...).
  bool int_to_float = false;
  // Output dtype if it differs from the compute dtype (bool for comparisons).
  std::optional<ScalarType> output_dtype;
  // Cast inputs to the compute dtype before the loop. Kernels that read mixed dtypes set it
  // to false (where: the condition stays bool).
  bool cast_inputs = true;
  // Number of leading inputs excluded from promotion (where's condition).
  int skip_promotion = 0;
  // Refuse to write a result into an output of a dtype it cannot be cast to safely.
  bool check_output_cast = true;
};

class ElementwiseIter {
 public:
  static constexpr int kMaxOperands = 4;

  // `out` may be undefined (allocate) or a tensor to write (in-place and out= forms).
  ElementwiseIter(const char* op, Tensor out, std::initializer_list<Tensor> inputs,
                  const IterConfig& cfg);

  const Tensor& output() const { return out_; }     // what the op returns
  ScalarType compute_dtype() const { return compute_dtype_; }
  Device device() const { return device_; }
  bool is_meta() const { return device_.is_meta(); }
  int64_t numel() const { return numel_; }

  // Loop description: dims innermost first, strides in bytes, operand 0 the output.
  int ntensors() const { return ntensors_; }
  int ndim() const { return static_cast<int>(loop_shape_.size()); }
  const DimVector& loop_shape() const { return loop_shape_; }
  const int64_t* strides(int operand) const { return &strides_[operand * kMaxDims]; }
  char* data(int operand) const { return data_[operand]; }
  const Tensor& operand(int i) const { return operands_[i]; }

  // After the kernel ran: copy the result into the caller's `out` if a temporary was used.
  void finish();

  static constexpr int kMaxDims = 25;

 private:
  bool try_fast_setup(const IterConfig& cfg);
  void compute_shape(const char* op);
  void compute_dtype(const char* op, const IterConfig& cfg);
  void prepare_output(const char* op, const IterConfig& cfg);
  void compute_loop();

  Tensor out_;            // returned to the caller
  bool out_given_;        // in-place or out=: bump its version when done
  Tensor target_;         // what the loop writes (out_ or a temporary of the right dtype)
  SmallVector<Tensor, kMaxOperands> operands_;  // target_ then inputs
  int ntensors_ = 0;
  DimVector shape_;
  int64_t numel_ = 0;
  ScalarType compute_dtype_ = ScalarType::Undefined;
  Device device_;
  DimVector loop_shape_;
  int64_t strides_[kMaxOperands * kMaxDims];  // only the first ndim() of each row are set
  char* data_[kMaxOperands] = {};
};

// Checks that `out` may receive a `result` dtype without an unsafe cast (as PyTorch's
// in-place and out= ops do): no float into int, no complex into real.
bool can_cast(ScalarType from, ScalarType to);

// True when some element of `t` is reachable through two index tuples (a stride-0 dim of
// size > 1), so that writing through it would race. One definition for index.cpp, iter.cpp
// and shape.cpp, which a unity batch may combine.
inline bool has_internal_overlap(const Tensor& t) {
  for (int64_t d = 0; d < t.dim(); ++d)
    if (t.sizes()[d] > 1 && t.strides()[d] == 0) return true;
  return false;
}

}  // namespace ember
