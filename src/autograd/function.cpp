// Custom functions (autograd::Function<T> in C++, ember.autograd.Function in Python): a
// forward run without recording, and a node that calls the user's backward.
#include <algorithm>

#include "autograd/meta.h"
#include "ember/error.h"
#include "ember/ops.h"

namespace ember::autograd {

void AutogradContext::save_for_backward(std::vector<Tensor> tensors) {
  saved_ = std::move(tensors);
  saved_versions_.clear();
  for (const Tensor& t : saved_) saved_versions_.push_back(t.defined() ? t.version() : 0);
}

std::vector<Tensor> AutogradContext::get_saved_variables() const {
  EMBER_CHECK(!released_, RuntimeError,
              "Trying to backward through the graph a second time (or directly access saved tensors after they "
              "have already been freed). Specify retain_graph=True if you need to backward through the graph a "
              "second time or if you need to access saved tensors after calling backward.");
  for (size_t i = 0; i < saved_.size(); ++i) {
    const Tensor& t = saved_[i];
    EMBER_CHECK(!t.defined() || t.version() == saved_versions_[i], RuntimeError,
                "one of the variables needed for gradient computation has been modified by an inplace operation: [",
                t.dtype(), " ", t.sizes(), "] is at version ", t.version(), "; expected version ", saved_versions_[i],
                " instead.");
  }
  return saved_;
}

void AutogradContext::mark_dirty(const std::vector<Tensor>& tensors) {
  for (const Tensor& t : tensors) dirty_.push_back(t.impl());
}
void AutogradContext::mark_non_differentiable(const std::vector<Tensor>& tensors) {
  for (const Tensor& t : tensors) non_differentiable_.push_back(t.impl());
}

class FunctionNode : public Node {
 public:
  using Backward = std::function<std::vector<Tensor>(AutogradContext&, std::vector<Tensor>)>;
  FunctionNode(std::string name, std::shared_ptr<AutogradContext> ctx, Backward bw, std::vector<DimVector> out_sizes,
               std::vector<ScalarType> out_dtypes)
      : name_(std::move(name)), ctx_(std::move(ctx)), backward_(std::move(bw)), out_sizes_(std::move(out_sizes)),
        out_dtypes_(std::move(out_dtypes)) {}
  std::string name() const override { return name_; }
  std::vector<Tensor> apply(std::vector<Tensor> grads) override {
    for (size_t i = 0; i < grads.size(); ++i)  // the user's backward sees zeros, not undefined
      if (!grads[i].defined()) grads[i] = zeros(out_sizes_[i], out_dtypes_[i]);
    std::vector<Tensor> r = backward_(*ctx_, std::move(grads));
    const size_t n = next_edges_.size();
    EMBER_CHECK(r.size() >= n, RuntimeError, "function ", name_, " returned an incorrect number of gradients (expected ",
                n, ", got ", r.size(), ")");
    r.resize(n);
    for (size_t i = 0; i < n; ++i) {
      if (!r[i].defined() || !next_edges_[i].valid()) {
        r[i] = Tensor();
        continue;
      }
      EMBER_CHECK(r[i].sizes() == IntArrayRef(in_sizes_[i]), RuntimeError, "Function ", name_,
                  " returned an invalid gradient at index ", i, " - got ", r[i].sizes(), " but expected shape compatible with ",
                  in_sizes_[i]);
    }
    return r;
  }
  void release_saved() override {
    ctx_->saved_.clear();
    ctx_->released_ = true;
  }
  std::vector<DimVector> in_sizes_;

 private:
  std::string name_;
  std::shared_ptr<AutogradContext> ctx_;
  Backward backward_;
  std::vector<DimVector> out_sizes_;
  std::vector<ScalarType> out_dtypes_;
};

std::vector<Tensor> record_function(const std::string& name, const std::vector<Tensor>& inputs,
                                    std::vector<Tensor> outputs, std::shared_ptr<AutogradContext> ctx,
                                    std::function<std::vector<Tensor>(AutogradContext&, std::vector<Tensor>)> backward) {
  bool any = false;
  for (const Tensor& t : inputs) any = any || (t.defined() && requires_grad(t));
  ctx->needs_input_grad_.clear();
  for (const Tensor& t : inputs) ctx->needs_input_grad_.push_back(t.defined() && requires_grad(t));
  auto contains = [](const std::vector<TensorImpl*>& v, const Tensor& t) {
    return std::find(v.begin(), v.end(), t.impl()) != v.end();
  };
  for (Tensor& o : outputs) {
    if (!o.defined()) continue;
    const bool is_input = std::any_of(inputs.begin(), inputs.end(), [&](const Tensor& i) { return i.is_same(o); });
    if (contains(ctx->dirty_, o)) {
      EMBER_CHECK(!(any && GradMode::is_enabled() && is_leaf(o) && requires_grad(o)), RuntimeError,
                  "a leaf Variable that requires grad has been used in an in-place operation.");
    } else if (is_input) {
      o = detach(o).alias();  // an input returned as is: a new tensor, so that it gets its own history
    }
  }
  if (!any || !GradMode::is_enabled() || InferenceMode::is_enabled()) {
    for (const Tensor& o : outputs)
      if (o.defined() && !contains(ctx->dirty_, o)) o.impl()->remove_keys(DispatchKeySet(DispatchKey::Autograd));
    return outputs;
  }
  std::vector<DimVector> sizes;
  std::vector<ScalarType> dtypes;
  for (const Tensor& o : outputs) {
    sizes.emplace_back(o.defined() ? DimVector(o.sizes()) : DimVector());
    dtypes.push_back(o.defined() ? o.dtype() : kFloat);
  }
  for (const Tensor& s : ctx->saved_)
    if (s.defined()) check_savable(s);
  auto node = std::make_shared<FunctionNode>(name, ctx, std::move(backward), std::move(sizes), std::move(dtypes));
  for (const Tensor& t : inputs) {
    node->add_next_edge(t.defined() && requires_grad(t) ? gradient_edge(t) : Edge{});
    node->in_sizes_.emplace_back(t.defined() ? DimVector(t.sizes()) : DimVector());
  }
  node->set_num_inputs(static_cast<uint32_t>(outputs.size()));
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& o = outputs[i];
    if (!o.defined()) continue;
    if (!is_differentiable_dtype(o.dtype()) || contains(ctx->non_differentiable_, o)) continue;
    set_history(o, node, static_cast<uint32_t>(i));
  }
  // Saved outputs would hold their own node (a cycle): keep them as detached aliases.
  for (Tensor& s : ctx->saved_)
    for (const Tensor& o : outputs)
      if (s.defined() && s.is_same(o)) s = detach(o);
  return outputs;
}

}  // namespace ember::autograd
