// Autograd's per-tensor state and the graph nodes shared by the engine and the fallback.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "ember/autograd.h"
#include "ember/tensor_impl.h"

namespace ember::autograd {

struct AutogradMeta : AutogradMetaBase {
  bool requires_grad = false;  // set on leaves; non-leaves require grad through grad_fn
  Tensor grad;
  std::shared_ptr<Node> grad_fn;
  uint32_t output_nr = 0;
  std::weak_ptr<Node> grad_accumulator;  // a leaf's AccumulateGrad, while a graph holds it
  // A non-leaf's retained gradient lives in a slot shared with the hook that fills it, so the
  // hook stays safe when the tensor dies first.
  std::shared_ptr<Tensor> retained;
  std::vector<GradHook> leaf_hooks;  // hooks of a leaf, run before accumulation
  std::map<int64_t, std::shared_ptr<bool>> hook_alive;
  std::mutex mutex;  // guards grad against concurrent backward passes
  // A view of a tensor that requires grad, made in inference mode: it requires grad but
  // leads nowhere, and may not be written in place while grad mode is on (PyTorch's rule).
  bool inference_view = false;
  // A view's: the version of its storage when its history was set. An in-place write on the
  // base or on another view changes the version, and the history is then regenerated.
  uint32_t view_version = 0;
  // Forward AD: the tangent, and the generation of the dual level that set it (forward_ad.cpp).
  Tensor fw_grad;
  uint64_t fw_generation = 0;

  // grad_fn=<...> or requires_grad=True, then tangent=... at the live dual level, separated by
  // '\0' (forward_ad.cpp).
  std::string print_suffix() const override;
};

AutogradMeta* meta_of(const Tensor& t);        // null when the tensor never took part
AutogradMeta& materialize_meta(const Tensor& t);

// Sets the history of a tensor an op produced or modified (grad_fn, output_nr) and gives
// it the Autograd key.
void set_history(const Tensor& t, std::shared_ptr<Node> fn, uint32_t output_nr);
// Whether t may carry gradients at all (floating or complex dtype).
inline bool is_differentiable_dtype(ScalarType t) { return is_floating_point(t) || is_complex(t); }

// Writes a leaf's gradient into .grad, accumulating.
class AccumulateGrad : public Node {
 public:
  explicit AccumulateGrad(Tensor leaf);
  std::string name() const override { return "AccumulateGrad"; }
  // Runs the leaf's hooks on the gradient, then accumulates it, or, during a backward pass on
  // this thread, leaves it to the pass to accumulate once it has succeeded.
  std::vector<Tensor> apply(std::vector<Tensor> grads) override;
  void accumulate(Tensor g);  // into .grad
  const Tensor& variable() const { return leaf_; }

 private:
  Tensor leaf_;
};

// The gradients a backward pass accumulates into leaves when it ends without error; the
// pass running on this thread sets its own (returns the previous one; null: none).
using PendingGrads = std::vector<std::pair<std::shared_ptr<AccumulateGrad>, Tensor>>;
PendingGrads* swap_pending_grads(PendingGrads* pending);

// A tensor saved for backward: remembers the version it had, so that a later in-place
// change is caught; a saved output does not own its grad_fn (that would be a cycle) and
// gets it back when unpacked.
class SavedTensor {
 public:
  SavedTensor() = default;
  SavedTensor(const Tensor& t, bool is_output, const std::shared_ptr<Node>& owner);
  // owner: the node that saved it (names it in errors; an output gets it back as grad_fn).
  // history=false skips that for a built-in formula run with grad mode off and no forward AD:
  // nothing it computes records, so the output's grad_fn would only cost an alias and a meta.
  Tensor unpack(const std::shared_ptr<Node>& owner, bool history = true) const;
  // Frees the tensor after a backward pass; unpacking it again then raises.
  void release() { data_ = Tensor(); }
  bool defined() const { return was_defined_; }
  const Tensor& data() const { return data_; }  // forward AD gives a saved output its tangent

 private:
  Tensor data_;  // an input itself; an output as a detached alias (same storage)
  bool was_defined_ = false;
  bool is_output_ = false;
  bool requires_grad_ = false;
  uint32_t version_ = 0;
  uint32_t output_nr_ = 0;
};

// The backward pass's state while it runs on this thread (for reentrant calls and checks).
bool in_backward_pass();

// Raises for a tensor that may not be saved for backward (an inference tensor).
void check_savable(const Tensor& t);

// Anomaly mode (anomaly.cpp): the creation traceback a new node keeps, and a node run by the
// engine with its errors and NaN gradients reported along with that traceback.
std::string capture_anomaly_trace();
std::vector<Tensor> apply_with_anomaly_checks(Node& n, std::vector<Tensor> grads);

}  // namespace ember::autograd
