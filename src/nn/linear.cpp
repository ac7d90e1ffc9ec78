// Identity, Linear, Bilinear, Flatten, Unflatten, Embedding (include/ember/nn/linear.h).
#include "ember/nn/linear.h"

#include <cmath>

#include "ember/autograd.h"
#include "ember/nn/init.h"
#include "ember/ops.h"
#include "nn/check.h"

namespace ember::nn {

// ---------------------------------------------------------------- Linear

Linear::Linear(const LinearOptions& o) : options(o) {
  EMBER_CHECK(o.in_features >= 0 && o.out_features >= 0, ValueError,
              "Linear: in_features and out_features must be non-negative, got ", o.in_features, " and ",
              o.out_features);
  bind_tensor("weight", &Linear::weight);
  bind_tensor("bias", &Linear::bias);
  weight = register_parameter("weight", empty({o.out_features, o.in_features}, o.options));
  if (o.bias) bias = register_parameter("bias", empty({o.out_features}, o.options));
  reset_parameters();
}

void Linear::reset_parameters() {
  // kaiming_uniform_ with a = sqrt(5) is U(-1/sqrt(fan_in), 1/sqrt(fan_in)), as PyTorch.
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  if (bias.defined()) {
    const int64_t fan_in = init::calculate_fan_in_and_fan_out(weight).first;
    const double bound = fan_in > 0 ? 1 / std::sqrt(static_cast<double>(fan_in)) : 0;
    init::uniform_(bias, -bound, bound);
  }
}

Tensor Linear::forward(const Tensor& input) {
  EMBER_CHECK(input.dim() >= 1 && input.size(-1) == options.in_features, RuntimeError, name(),
              ": expected input with last dimension ", options.in_features, " (in_features), got shape ",
              input.sizes());
  detail::check_same_dtype(*this, input, weight);
  return linear(input, weight, detail::opt(bias));
}

std::string Linear::extra_repr() const {
  return "in_features=" + std::to_string(options.in_features) +
         ", out_features=" + std::to_string(options.out_features) + ", bias=" + detail::py_bool(bias.defined());
}

// ---------------------------------------------------------------- Bilinear

Bilinear::Bilinear(const BilinearOptions& o) : options(o) {
  EMBER_CHECK(o.in1_features >= 0 && o.in2_features >= 0 && o.out_features >= 0, ValueError,
              "Bilinear: feature counts must be non-negative, got ", o.in1_features, ", ", o.in2_features, " and ",
              o.out_features);
  bind_tensor("weight", &Bilinear::weight);
  bind_tensor("bias", &Bilinear::bias);
  weight = register_parameter("weight", empty({o.out_features, o.in1_features, o.in2_features}, o.options));
  if (o.bias) bias = register_parameter("bias", empty({o.out_features}, o.options));
  reset_parameters();
}

void Bilinear::reset_parameters() {
  const double bound = options.in1_features > 0 ? 1 / std::sqrt(static_cast<double>(weight.size(1))) : 0;
  init::uniform_(weight, -bound, bound);
  if (bias.defined()) init::uniform_(bias, -bound, bound);
}

Tensor Bilinear::forward(const Tensor& input1, const Tensor& input2) {
  EMBER_CHECK(input1.dim() >= 1 && input1.size(-1) == options.in1_features, RuntimeError, name(),
              ": expected input1 with last dimension ", options.in1_features, " (in1_features), got shape ",
              input1.sizes());
  EMBER_CHECK(input2.dim() >= 1 && input2.size(-1) == options.in2_features, RuntimeError, name(),
              ": expected input2 with last dimension ", options.in2_features, " (in2_features), got shape ",
              input2.sizes());
  EMBER_CHECK(input1.sizes().slice(0, input1.dim() - 1) == input2.sizes().slice(0, input2.dim() - 1), RuntimeError,
              name(), ": expected inputs with the same leading dimensions, got shapes ", input1.sizes(), " and ",
              input2.sizes());
  detail::check_same_dtype(*this, input1, weight, "input1");
  detail::check_same_dtype(*this, input2, weight, "input2");
  return bilinear(input1, input2, weight, detail::opt(bias));
}

std::string Bilinear::extra_repr() const {
  return "in1_features=" + std::to_string(options.in1_features) +
         ", in2_features=" + std::to_string(options.in2_features) +
         ", out_features=" + std::to_string(options.out_features) + ", bias=" + detail::py_bool(bias.defined());
}

// ---------------------------------------------------------------- Flatten, Unflatten

Tensor Flatten::forward(const Tensor& input) {
  const int64_t n = std::max<int64_t>(input.dim(), 1);  // a 0-dim tensor flattens like a 1-dim one
  for (int64_t d : {start_dim, end_dim}) {
    EMBER_CHECK(d >= -n && d < n, RuntimeError, name(), ": start_dim ", start_dim, " and end_dim ", end_dim,
                " must be dims of the input, got shape ", input.sizes());
  }
  return input.flatten(start_dim, end_dim);
}

std::string Flatten::extra_repr() const {
  return "start_dim=" + std::to_string(start_dim) + ", end_dim=" + std::to_string(end_dim);
}

Unflatten::Unflatten(int64_t dim, std::vector<int64_t> unflattened_size)
    : dim(dim), unflattened_size(std::move(unflattened_size)) {
  EMBER_CHECK(!this->unflattened_size.empty(), ValueError, "Unflatten: unflattened_size must be non-empty");
  int64_t inferred = 0;
  for (int64_t s : this->unflattened_size) {
    EMBER_CHECK(s >= 0 || s == -1, ValueError, "Unflatten: invalid size ", s, " in unflattened_size ",
                this->unflattened_size);
    inferred += s == -1;
  }
  EMBER_CHECK(inferred <= 1, ValueError, "Unflatten: only one size in unflattened_size can be -1, got ",
              this->unflattened_size);
}

Tensor Unflatten::forward(const Tensor& input) {
  const int64_t n = input.dim();
  EMBER_CHECK(n >= 1 && dim >= -n && dim < n, RuntimeError, name(), ": dim ", dim,
              " is not a dim of the input, got shape ", input.sizes());
  const int64_t size = input.size(dim);
  int64_t known = 1;
  bool infer = false;
  for (int64_t s : unflattened_size) {
    if (s == -1)
      infer = true;
    else
      known *= s;
  }
  const bool fits = infer ? (known != 0 && size % known == 0) : known == size;
  EMBER_CHECK(fits, RuntimeError, name(), ": cannot unflatten dim ", dim, " of size ", size, " into ",
              detail::py_tuple(unflattened_size), ", got input shape ", input.sizes());
  return input.unflatten(dim, unflattened_size);
}

std::string Unflatten::extra_repr() const {
  return "dim=" + std::to_string(dim) + ", unflattened_size=" + detail::py_tuple(unflattened_size);
}

// ---------------------------------------------------------------- Embedding

Embedding::Embedding(const EmbeddingOptions& o) : Embedding(o, Tensor()) {}

Embedding::Embedding(const EmbeddingOptions& o, const Tensor& w) : options(o) {
  EMBER_CHECK(o.num_embeddings >= 0 && o.embedding_dim >= 0, ValueError,
              "Embedding: num_embeddings and embedding_dim must be non-negative, got ", o.num_embeddings, " and ",
              o.embedding_dim);
  if (auto& p = options.padding_idx) {
    EMBER_CHECK(*p < o.num_embeddings && *p >= -o.num_embeddings, ValueError, "Embedding: padding_idx ", *p,
                " must be within num_embeddings (", o.num_embeddings, ")");
    if (*p < 0) *p += o.num_embeddings;
  }
  bind_tensor("weight", &Embedding::weight);
  if (w.defined()) {
    EMBER_CHECK(w.sizes() == IntArrayRef({o.num_embeddings, o.embedding_dim}), ValueError,
                "Embedding: shape of weight does not match num_embeddings and embedding_dim: expected [",
                o.num_embeddings, ", ", o.embedding_dim, "], got ", w.sizes());
    weight = register_parameter("weight", w.detach());
  } else {
    weight = register_parameter("weight", empty({o.num_embeddings, o.embedding_dim}, o.options));
    reset_parameters();
  }
}

void Embedding::reset_parameters() {
  init::normal_(weight);
  if (options.padding_idx) {
    autograd::NoGradGuard no_grad;
    weight.select(0, *options.padding_idx).fill_(0);
  }
}

std::shared_ptr<Embedding> Embedding::from_pretrained(const Tensor& embeddings, bool freeze,
                                                      std::optional<int64_t> padding_idx) {
  EMBER_CHECK(embeddings.dim() == 2, ValueError, "Embedding.from_pretrained: expected a 2-D tensor, got shape ",
              embeddings.sizes());
  auto e = std::make_shared<Embedding>(
      EmbeddingOptions{
          .num_embeddings = embeddings.size(0), .embedding_dim = embeddings.size(1), .padding_idx = padding_idx},
      embeddings);
  autograd::set_requires_grad(e->weight, !freeze);
  return e;
}

Tensor Embedding::forward(const Tensor& indices) {
  EMBER_CHECK(indices.dtype() == kInt64 || indices.dtype() == kInt32, TypeError, name(),
              ": expected indices of dtype int64 or int32, got ", indices.dtype());
  if (options.max_norm) {  // PyTorch's embedding_renorm_: not recorded by autograd
    autograd::NoGradGuard no_grad;
    const Tensor rows = indices.reshape({-1});  // a repeated row gets the same value twice
    const Tensor picked = index_select(weight, 0, rows);
    const Tensor norms = norm(picked, Scalar(options.norm_type), {1});
    const Tensor scale = clamp_max(div(wrapped_scalar(Scalar(*options.max_norm)), add(norms, 1e-7)), 1.0);
    index_copy_(weight, 0, rows, mul(picked, scale.unsqueeze(1)));
  }
  return embedding(weight, indices, options.padding_idx.value_or(-1), options.scale_grad_by_freq);
}

std::string Embedding::extra_repr() const {
  std::string s = std::to_string(options.num_embeddings) + ", " + std::to_string(options.embedding_dim);
  if (options.padding_idx) s += ", padding_idx=" + std::to_string(*options.padding_idx);
  if (options.max_norm) s += ", max_norm=" + detail::py_float(*options.max_norm);
  if (options.norm_type != 2.0) s += ", norm_type=" + detail::py_float(options.norm_type);
  if (options.scale_grad_by_freq) s += ", scale_grad_by_freq=True";
  return s;
}

}  // namespace ember::nn
