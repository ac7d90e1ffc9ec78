#include "ops/iter.h"

#include <algorithm>

namespace ember {

bool can_cast(ScalarType from, ScalarType to) {
  if (is_complex(from) && !is_complex(to)) return false;
  if (is_floating_point(from) && is_integral(to, true)) return false;
  if (from != kBool && to == kBool) return false;
  return true;
}

namespace {

// PyTorch's promotion categories: dimensioned tensors decide unless a 0-dim tensor or a
// Python number is of a higher category (bool < integer < floating < complex).
ScalarType combine_categories(ScalarType higher, ScalarType lower) {
  if (higher == ScalarType::Undefined) return lower;
  if (lower == ScalarType::Undefined) return higher;
  if (is_complex(higher)) return higher;
  // A complex scalar keeps the precision of floating tensors: float32 with a complex128
  // 0-dim gives complex64 (float16 would give complex32, which Ember lacks: complex64).
  if (is_complex(lower)) return is_floating_point(higher) ? to_complex_type(higher) : lower;
  if (is_floating_point(higher)) return higher;
  if (higher == kBool || is_floating_point(lower)) return promote_types(higher, lower);
  return higher;
}

ScalarType promote_skip_undefined(ScalarType a, ScalarType b) {
  if (a == ScalarType::Undefined) return b;
  if (b == ScalarType::Undefined) return a;
  return promote_types(a, b);
}

struct ResultTypeState {
  ScalarType dim = ScalarType::Undefined, zero = ScalarType::Undefined,
             wrapped = ScalarType::Undefined;
  void update(const Tensor& t) {
    ScalarType cur = t.dtype();
    if (t.impl()->is_wrapped_number()) {
      if (is_complex(cur)) cur = get_default_complex_dtype();
      else if (is_floating_point(cur)) cur = get_default_dtype();
      wrapped = promote_skip_undefined(wrapped, cur);
    } else if (t.dim() == 0) {
      zero = promote_skip_undefined(zero, cur);
    } else {
      dim = promote_skip_undefined(dim, cur);
    }
  }
  ScalarType result() const { return combine_categories(dim, combine_categories(zero, wrapped)); }
};

// True when b's memory lies inside a's storage range and they are not the same view.
bool partial_overlap(const Tensor& a, const Tensor& b) {
  if (!a.is_alias_of(b) || a.numel() == 0 || b.numel() == 0) return false;
  if (a.data_ptr() == b.data_ptr() && a.sizes().equals(b.sizes()) && a.strides().equals(b.strides()))
    return false;
  auto extent = [](const Tensor& t) {
    int64_t lo = t.storage_offset(), hi = t.storage_offset();
    for (int64_t d = 0; d < t.dim(); ++d) {
      int64_t span = (t.sizes()[d] - 1) * t.strides()[d];
      if (span < 0) lo += span; else hi += span;
    }
    return std::pair<int64_t, int64_t>(lo, hi);
  };
  auto [alo, ahi] = extent(a);
  auto [blo, bhi] = extent(b);
  return alo <= bhi && blo <= ahi;
}

}  // namespace

ElementwiseIter::ElementwiseIter(const char* op, Tensor out, std::initializer_list<Tensor> inputs,
                                 const IterConfig& cfg)
    : out_(std::move(out)), out_given_(out_.defined()) {
  EMBER_INTERNAL_ASSERT(inputs.size() + 1 <= kMaxOperands);
  operands_.push_back(Tensor());
  for (const Tensor& t : inputs) {
    EMBER_CHECK(t.defined(), ValueError, op, "(): got an undefined tensor");
    operands_.push_back(t);
  }
  ntensors_ = static_cast<int>(operands_.size());
  if (try_fast_setup(cfg)) return;
  compute_shape(op);
  compute_dtype(op, cfg);
  prepare_output(op, cfg);
  if (!is_meta()) compute_loop();
}

// The common case in small-tensor code: CPU inputs of one dtype and shape, all contiguous,
// no output given. Promotion, broadcasting and dim folding are then trivial.
bool ElementwiseIter::try_fast_setup(const IterConfig& cfg) {
  if (out_.defined() || cfg.output_dtype || cfg.skip_promotion) return false;
  const TensorImpl* first = operands_[1].impl();
  ScalarType dt = first->dtype();
  if (cfg.int_to_float && is_integral(dt, true)) return false;
  if (!first->is_contiguous() || !first->device().is_cpu() || first->dim() > kMaxDims) return false;
  for (int i = 2; i < ntensors_; ++i) {
    const TensorImpl* t = operands_[i].impl();
    if (t->dtype() != dt || !t->is_contiguous() || !t->device().is_cpu() ||
        !t->sizes().equals(first->sizes()))
      return false;
  }
  compute_dtype_ = dt;
  device_ = kCPU;
  numel_ = first->numel();
  // The inputs' shape and dtype: already checked, and numel * itemsize cannot overflow.
  out_ = Tensor(TensorImpl::make_contiguous_cpu(first->sizes(), dt, numel_,
                                                static_cast<size_t>(numel_) * itemsize(dt)));
  target_ = out_;
  operands_[0] = out_;
  loop_shape_.clear();
  loop_shape_.push_back(numel_);
  for (int i = 0; i < ntensors_; ++i) {
    strides_[i * kMaxDims] = static_cast<int64_t>(itemsize(dt));
    data_[i] = operands_[i].impl()->data();
  }
  return true;
}

void ElementwiseIter::compute_shape(const char* op) {
  shape_.clear();
  for (int i = 1; i < ntensors_; ++i) {
    IntArrayRef s = operands_[i].sizes();
    if (i == 1) { shape_ = DimVector(s); continue; }
    if (s.equals(shape_)) continue;
    size_t n = std::max(shape_.size(), s.size());
    DimVector r(n);
    for (size_t k = 0; k < n; ++k) {
      int64_t a = k < n - shape_.size() ? 1 : shape_[k - (n - shape_.size())];
      int64_t b = k < n - s.size() ? 1 : s[k - (n - s.size())];
      EMBER_CHECK(a == b || a == 1 || b == 1, RuntimeError, op, "(): the size of tensor a (", a,
                  ") must match the size of tensor b (", b, ") at non-singleton dimension ", k,
                  "; shapes ", IntArrayRef(shape_), " and ", s, " cannot be broadcast");
      r[k] = a == 1 ? b : a;
    }
    shape_ = std::move(r);
  }
  EMBER_CHECK(shape_.size() <= kMaxDims, ValueError, op, "(): at most ", kMaxDims,
              " dimensions are supported, got ", shape_.size());
  numel_ = compute_numel(shape_);
}

void ElementwiseIter::compute_dtype(const char* op, const IterConfig& cfg) {
  ResultTypeState st;
  for (int i = 1 + cfg.skip_promotion; i < ntensors_; ++i) st.update(operands_[i]);
  ScalarType dt = st.result();
  if (!cfg.promote_inputs) {
    for (int i = 2 + cfg.skip_promotion; i < ntensors_; ++i)
      EMBER_CHECK(operands_[i].dtype() == operands_[1 + cfg.skip_promotion].dtype(), TypeError, op,
                  "(): expected all inputs to have the same dtype, got ",
                  operands_[1 + cfg.skip_promotion].dtype(), " and ", operands_[i].dtype());
  }
  if (cfg.int_to_float && is_integral(dt, true)) dt = get_default_dtype();
  compute_dtype_ = dt;

  // Device: the output's, else the first input that is not a CPU scalar.
  device_ = out_.defined() ? out_.device() : operands_[1].device();
  if (!out_.defined())
    for (int i = 1; i < ntensors_; ++i)
      if (!(operands_[i].dim() == 0 && operands_[i].is_cpu())) { device_ = operands_[i].device(); break; }
  for (int i = 1; i < ntensors_; ++i) {
    Tensor& t = operands_[i];
    if (t.device() != device_) {
      EMBER_CHECK(t.dim() == 0 && t.is_cpu(), RuntimeError,
                  "Expected all tensors to be on the same device, but found at least two devices, ",
                  device_, " and ", t.device(), "! (in ", op, ")");
      t = to_device(t, device_);
    }
    bool cast = cfg.cast_inputs && i > cfg.skip_promotion && t.dtype() != dt;
    // A wrapped number (a Python or formula scalar) is converted by value: the same conversion
    // as copy_'s, without dispatching to_dtype, an empty_like and a copy for one element.
    if (cast && t.impl()->is_wrapped_number() && t.is_cpu())
      t = scalar_tensor(t.item(), TensorOptions(dt).device(kCPU));
    else if (cast)
      t = to_dtype(t, dt);
  }
}

void ElementwiseIter::prepare_output(const char* op, const IterConfig& cfg) {
  ScalarType out_dtype = cfg.output_dtype ? *cfg.output_dtype : compute_dtype_;
  if (!out_.defined()) {
    // Follow the memory order of the first input that has the full shape, as PyTorch does.
    const Tensor* like = nullptr;
    for (int i = 1; i < ntensors_; ++i)
      if (operands_[i].sizes().equals(shape_) && !operands_[i].is_contiguous()) { like = &operands_[i]; break; }
    if (like && !has_internal_overlap(*like)) {
      int64_t nd = static_cast<int64_t>(shape_.size());
      DimVector perm(nd);
      for (int64_t d = 0; d < nd; ++d) perm[d] = d;
      std::stable_sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) {
        return like->strides()[a] > like->strides()[b];
      });
      DimVector strides(nd);
      int64_t s = 1;
      for (int64_t k = nd; k-- > 0;) {
        strides[perm[k]] = s;
        s *= std::max<int64_t>(shape_[perm[k]], 1);
      }
      out_ = empty_strided(shape_, strides, TensorOptions(out_dtype).device(device_));
    } else {
      out_ = empty(shape_, TensorOptions(out_dtype).device(device_));
    }
    target_ = out_;
    return;
  }
  EMBER_CHECK(!cfg.check_output_cast || can_cast(out_dtype, out_.dtype()), RuntimeError, op, "(): result type ", out_dtype,
              " can't be cast to the desired output type ", out_.dtype());
  bool in_place = false;
  for (int i = 1; i < ntensors_; ++i) in_place |= operands_[i].is_same(out_);
  if (!out_.sizes().equals(shape_)) {
    EMBER_CHECK(!in_place, RuntimeError, op, "(): output with shape ", out_.sizes(),
                " doesn't match the broadcast shape ", IntArrayRef(shape_));
    resize_(out_, shape_);
  }
  EMBER_CHECK(!has_internal_overlap(out_), RuntimeError, op,
              "(): unsupported operation: more than one element of the written-to tensor refers "
              "to a single memory location. Please clone() the tensor before performing the operation.");
  bool overlap = false;
  for (int i = 1; i < ntensors_; ++i) overlap |= partial_overlap(out_, operands_[i]);
  if (overlap || out_.dtype() != out_dtype)
    target_ = empty(shape_, TensorOptions(out_dtype).device(device_));
  else
    target_ = out_;
}

void ElementwiseIter::compute_loop() {
  operands_[0] = target_;
  const int nd = static_cast<int>(shape_.size());
  // Dims of size > 1 in the output's memory order, innermost first; size-1 dims never move
  // a pointer. Byte strides per operand, 0 on broadcast dims.
  DimVector order;
  for (int d = nd; d-- > 0;)
    if (shape_[d] != 1) order.push_back(d);
  const Tensor& t0 = target_;
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return t0.strides()[a] < t0.strides()[b];
  });
  const int nloop = static_cast<int>(order.size());
  int64_t st[kMaxOperands][kMaxDims];
  for (int i = 0; i < ntensors_; ++i) {
    const Tensor& t = operands_[i];
    int64_t off = nd - t.dim();
    int64_t isz = static_cast<int64_t>(t.element_size());
    for (int d = 0; d < nloop; ++d) {
      int64_t src = order[d] - off;
      st[i][d] = (src < 0 || t.sizes()[src] == 1) ? 0 : t.strides()[src] * isz;
    }
    data_[i] = static_cast<char*>(t.data_ptr());
  }
  // Fold dim d+1 into d when every operand steps through them as one.
  loop_shape_.clear();
  int out_dims = 0;
  for (int d = 0; d < nloop; ++d) {
    int64_t size = shape_[order[d]];
    if (out_dims > 0) {
      int prev = out_dims - 1;
      bool fold = true;
      for (int i = 0; i < ntensors_ && fold; ++i)
        fold = st[i][d] == strides_[i * kMaxDims + prev] * loop_shape_[prev];
      if (fold) { loop_shape_[prev] *= size; continue; }
    }
    for (int i = 0; i < ntensors_; ++i) strides_[i * kMaxDims + out_dims] = st[i][d];
    loop_shape_.push_back(size);
    ++out_dims;
  }
  if (loop_shape_.empty()) {  // every dim has size 1: one element
    loop_shape_.push_back(numel_);
    for (int i = 0; i < ntensors_; ++i) strides_[i * kMaxDims] = 0;
  }
}

void ElementwiseIter::finish() {
  if (!target_.is_same(out_) && !is_meta()) copy_(out_, target_);
  if (out_given_ && !is_meta()) out_.bump_version();
}

// ---------------------------------------------------------------- public promotion helpers
// (declared in ember/ops.h; the same rules ElementwiseIter applies)
DimVector broadcast_shapes(IntArrayRef a, IntArrayRef b) {
  size_t n = std::max(a.size(), b.size());
  DimVector r(n);
  for (size_t k = 0; k < n; ++k) {
    int64_t x = k < n - a.size() ? 1 : a[k - (n - a.size())];
    int64_t y = k < n - b.size() ? 1 : b[k - (n - b.size())];
    EMBER_CHECK(x == y || x == 1 || y == 1, RuntimeError, "shape mismatch: shapes ", a, " and ", b,
                " cannot be broadcast (size ", x, " vs ", y, " at dimension ", static_cast<int64_t>(k), ")");
    r[k] = x == 1 ? y : x;
  }
  return r;
}

// As broadcast_shapes, with the message of PyTorch's infer_size (masked ops, broadcast_tensors).
DimVector broadcast_pair(IntArrayRef a, IntArrayRef b) {
  const size_t n = std::max(a.size(), b.size());
  DimVector r(n);
  for (size_t k = 0; k < n; ++k) {
    const int64_t x = k < n - a.size() ? 1 : a[k - (n - a.size())];
    const int64_t y = k < n - b.size() ? 1 : b[k - (n - b.size())];
    EMBER_CHECK(x == y || x == 1 || y == 1, RuntimeError, "The size of tensor a (", x,
                ") must match the size of tensor b (", y, ") at non-singleton dimension ", k);
    r[k] = x == 1 ? y : x;
  }
  return r;
}

ScalarType result_type(const Tensor& a, const Tensor& b) {
  ResultTypeState st;
  st.update(a);
  st.update(b);
  return st.result();
}

ScalarType result_type(TensorList tensors) {
  ResultTypeState st;
  for (const Tensor& t : tensors) st.update(t);
  return st.result();
}

}  // namespace ember
