// Packed sequences, weight_norm and spectral_norm (include/ember/nn/utils.h).
#include "ember/nn/utils.h"

#include <algorithm>
#include <numeric>

#include "ember/autograd.h"
#include "ember/ops.h"

namespace ember::nn {

// ---------------------------------------------------------------- packed sequences
namespace utils::rnn {

namespace {

std::vector<int64_t> to_vector(const Tensor& t) {
  const Tensor c = t.to(kInt64).contiguous();
  const int64_t* p = c.data_ptr<int64_t>();
  return std::vector<int64_t>(p, p + c.numel());
}

Tensor index_tensor(const std::vector<int64_t>& v) { return tensor(v, TensorOptions(kInt64)); }

}  // namespace

Tensor invert_permutation(const Tensor& permutation) {
  if (!permutation.defined()) return Tensor();
  const std::vector<int64_t> p = to_vector(permutation);
  std::vector<int64_t> q(p.size());
  for (size_t i = 0; i < p.size(); ++i) q[static_cast<size_t>(p[i])] = static_cast<int64_t>(i);
  return index_tensor(q).to(permutation.device());
}

PackedSequence pack_padded_sequence(const Tensor& input, const Tensor& lengths, bool batch_first,
                                    bool enforce_sorted) {
  EMBER_CHECK(lengths.dim() == 1, RuntimeError, "'lengths' argument should be a 1D CPU int64 tensor, but got ",
              lengths.dim(), "D ", lengths.dtype(), " tensor");
  return pack_padded_sequence(input, to_vector(lengths), batch_first, enforce_sorted);
}

PackedSequence pack_padded_sequence(const Tensor& input, const std::vector<int64_t>& lengths_in, bool batch_first,
                                    bool enforce_sorted) {
  EMBER_CHECK(input.dim() >= 2, RuntimeError, "pack_padded_sequence: expected input of shape (T, B, *)",
              batch_first ? " (batch_first: (B, T, *))" : "", ", got shape ", input.sizes());
  std::vector<int64_t> lens = lengths_in;
  Tensor x = input, sorted_indices;
  if (!enforce_sorted) {
    std::vector<int64_t> order(lens.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return lens[a] > lens[b]; });
    std::vector<int64_t> sorted(lens.size());
    for (size_t i = 0; i < order.size(); ++i) sorted[i] = lens[static_cast<size_t>(order[i])];
    lens = std::move(sorted);
    sorted_indices = index_tensor(order).to(input.device());
    if (static_cast<int64_t>(order.size()) == input.size(batch_first ? 0 : 1))
      x = index_select(x, batch_first ? 0 : 1, sorted_indices);
  }
  if (batch_first) x = x.transpose(0, 1);
  const int64_t T = x.size(0), B = x.size(1);
  EMBER_CHECK(static_cast<int64_t>(lens.size()) == B, RuntimeError,
              "Expected `len(lengths)` to be equal to batch_size, but got ", lens.size(), " (batch_size=", B, ")");
  EMBER_CHECK(B > 0 && lens.back() > 0, RuntimeError,
              "Length of all samples has to be greater than 0, but found an element in 'lengths' that is <= 0");
  for (size_t i = 1; i < lens.size(); ++i) {
    EMBER_CHECK(lens[i - 1] >= lens[i], RuntimeError,
                "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You can pass "
                "`enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep this requirement "
                "if you do not need ONNX exportability.");
  }
  EMBER_CHECK(lens[0] <= T, RuntimeError, "Expected sequence length to be at most ", T, ", but got ", lens[0]);
  // Row t * B + b of the (T * B, *) view holds step t of sequence b: one index_select packs.
  std::vector<int64_t> batch_sizes, index;
  for (int64_t t = 0; t < lens[0]; ++t) {
    int64_t n = 0;
    while (n < B && lens[static_cast<size_t>(n)] > t) ++n;
    batch_sizes.push_back(n);
    for (int64_t b = 0; b < n; ++b) index.push_back(t * B + b);
  }
  std::vector<int64_t> flat_shape = {T * B};
  for (int64_t d = 2; d < x.dim(); ++d) flat_shape.push_back(x.size(d));
  const Tensor data = index_select(x.reshape(flat_shape), 0, index_tensor(index).to(input.device()));
  return {data, index_tensor(batch_sizes), sorted_indices, invert_permutation(sorted_indices)};
}

std::tuple<Tensor, Tensor> pad_packed_sequence(const PackedSequence& sequence, bool batch_first, double padding_value,
                                               std::optional<int64_t> total_length) {
  const std::vector<int64_t> batch_sizes = to_vector(sequence.batch_sizes);
  int64_t T = static_cast<int64_t>(batch_sizes.size());
  if (total_length) {
    EMBER_CHECK(*total_length >= T, ValueError,
                "Expected total_length to be at least the length of the longest sequence in input, but got "
                "total_length=",
                *total_length, " and max sequence length being ", T);
    T = *total_length;
  }
  const Tensor& data = sequence.data;
  const int64_t B = batch_sizes.empty() ? 0 : batch_sizes[0];
  std::vector<int64_t> row_shape = {1};
  for (int64_t d = 1; d < data.dim(); ++d) row_shape.push_back(data.size(d));
  // Gather from data plus one padding row (index data.size(0)) into a (T, B) grid.
  const Tensor source =
      cat({data, full(row_shape, padding_value, TensorOptions(data.dtype()).device(data.device()))});
  std::vector<int64_t> index;
  int64_t offset = 0;
  for (int64_t t = 0; t < T; ++t) {
    const int64_t bs = t < static_cast<int64_t>(batch_sizes.size()) ? batch_sizes[static_cast<size_t>(t)] : 0;
    for (int64_t b = 0; b < B; ++b) index.push_back(b < bs ? offset + b : data.size(0));
    offset += bs;
  }
  std::vector<int64_t> shape = {T, B};
  shape.insert(shape.end(), row_shape.begin() + 1, row_shape.end());
  Tensor padded = index_select(source, 0, index_tensor(index).to(data.device())).reshape(shape);
  if (batch_first) padded = padded.transpose(0, 1);
  std::vector<int64_t> lens(static_cast<size_t>(B), 0);
  for (int64_t bs : batch_sizes)
    for (int64_t b = 0; b < bs; ++b) ++lens[static_cast<size_t>(b)];
  Tensor lengths = index_tensor(lens);
  if (sequence.unsorted_indices.defined()) {
    padded = index_select(padded, batch_first ? 0 : 1, sequence.unsorted_indices);
    lengths = index_select(lengths, 0, sequence.unsorted_indices.cpu());
  }
  return {padded, lengths};
}

Tensor pad_sequence(const std::vector<Tensor>& sequences, bool batch_first, double padding_value) {
  EMBER_CHECK(!sequences.empty(), RuntimeError, "received an empty list of sequences");
  int64_t max_len = 0;
  for (const Tensor& s : sequences) {
    EMBER_CHECK(s.dim() >= 1, RuntimeError, "pad_sequence: expected sequences of at least 1 dim, got a ", s.dim(),
                "-D tensor");
    max_len = std::max(max_len, s.size(0));
  }
  std::vector<Tensor> padded;
  for (const Tensor& s : sequences) {
    const int64_t n = max_len - s.size(0);
    if (n == 0) {
      padded.push_back(s);
      continue;
    }
    std::vector<int64_t> shape = {n};
    for (int64_t d = 1; d < s.dim(); ++d) shape.push_back(s.size(d));
    padded.push_back(cat({s, full(shape, padding_value, TensorOptions(s.dtype()).device(s.device()))}));
  }
  return stack(padded, batch_first ? 0 : 1);
}

PackedSequence pack_sequence(const std::vector<Tensor>& sequences, bool enforce_sorted) {
  std::vector<int64_t> lengths;
  for (const Tensor& s : sequences) lengths.push_back(s.dim() >= 1 ? s.size(0) : 0);
  return pack_padded_sequence(pad_sequence(sequences), lengths, false, enforce_sorted);
}

}  // namespace utils::rnn

// ---------------------------------------------------------------- weight_norm, spectral_norm
namespace utils {

namespace {

// Module::unregister and local_parameters are protected; naming them through a derived
// class gives the member pointers (never instantiated).
struct Access : Module {
  static bool remove(Module& m, const std::string& name) { return (m.*&Access::unregister)(name); }
  // The parameter slot `name`, undefined for one registered as None; null when there is none.
  static const Tensor* parameter_slot(const Module& m, const std::string& name) {
    return (m.*&Access::local_parameters)().find(name);
  }
};

// The hook of type H on `name` among m's forward pre-hooks (as PyTorch scans
// _forward_pre_hooks for a WeightNorm of that name), with the handle that removes it.
template <class H>
std::optional<std::pair<HookHandle, const H*>> find_hook(const Module& m, const std::string& name) {
  for (const auto& [handle, hook] : m.forward_pre_hooks())
    if (const H* h = hook->template target<H>(); h && h->name == name) return std::make_pair(handle, h);
  return std::nullopt;
}

// The parameter `name` to replace, with torch's errors: getattr's AttributeError when the
// module has no such attribute (weight_norm), the _parameters lookup's KeyError when it is
// not a parameter; both are IndexError here, C++'s lookup error. The hook needs a typed
// handle to set (or the layer would keep reading the replaced tensor).
Tensor parameter_to_replace(const Module& m, const std::string& fn, const std::string& name, bool attribute_first) {
  const Tensor* slot = Access::parameter_slot(m, name);
  if (!slot) {
    EMBER_CHECK(!attribute_first || m.tensor_attr(name).defined(), IndexError, "'", m.name(),
                "' object has no attribute '", name, "'");
    EMBER_FAIL(IndexError, "'", name, "': ", fn, " needs a parameter, and ", m.name(), " has no parameter '", name,
                "'");
  }
  EMBER_CHECK(slot->defined(), ValueError, "`", fn == "spectral_norm" ? "SpectralNorm" : "WeightNorm",
              "` cannot be applied as parameter `", name, "` is None");
  EMBER_CHECK(m.has_bound_tensor(name), ValueError, fn, ": ", m.name(), " binds no tensor handle to parameter '",
              name, "', so its forward would not see the normalized weight (Module::bind_tensor)");
  return *slot;
}

bool is_transposed_conv(const Module& m) {
  const std::string n = m.name();
  return n == "ConvTranspose1d" || n == "ConvTranspose2d" || n == "ConvTranspose3d";
}

// The pow-norm of v over every dim but dim, kept as size 1 (dim -1: the whole norm).
Tensor norm_except_dim(const Tensor& v, int64_t dim) {
  if (dim == -1) return norm(v, 2);
  dim = wrap_dim(dim, v.dim(), "weight_norm");
  std::vector<int64_t> others;
  for (int64_t d = 0; d < v.dim(); ++d)
    if (d != dim) others.push_back(d);
  if (others.empty()) return v.abs();
  return norm(v, Scalar(2), others, true);
}

struct WeightNormHook {
  std::string name;
  int64_t dim;
  Tensor compute(const Module& m) const {
    const Tensor g = m.tensor_attr(name + "_g"), v = m.tensor_attr(name + "_v");
    return mul(v, div(g, norm_except_dim(v, dim)));
  }
  std::optional<Tensors> operator()(Module& m, const Tensors&) const {
    m.set_tensor_attr(name, compute(m));
    return std::nullopt;
  }
};

Tensor normalize(const Tensor& x, double eps) { return div(x, clamp_min(norm(x, 2), eps)); }

struct SpectralNormHook {
  std::string name;
  int64_t n_power_iterations, dim;
  double eps;

  Tensor to_matrix(const Tensor& w) const {
    Tensor wm = w;
    if (dim != 0) {
      std::vector<int64_t> perm = {dim};
      for (int64_t d = 0; d < w.dim(); ++d)
        if (d != dim) perm.push_back(d);
      wm = wm.permute(perm);
    }
    return wm.reshape({wm.size(0), -1});
  }
  Tensor compute(const Module& m, bool power_iteration) const {
    const Tensor w = m.tensor_attr(name + "_orig");
    Tensor u = m.tensor_attr(name + "_u"), v = m.tensor_attr(name + "_v");
    const Tensor wm = to_matrix(w);
    if (power_iteration) {
      {
        autograd::NoGradGuard no_grad;
        for (int64_t i = 0; i < n_power_iterations; ++i) {
          v.copy_(normalize(mv(wm.t(), u), eps));
          u.copy_(normalize(mv(wm, v), eps));
        }
      }
      // sigma's graph keeps these values, not the buffers that the next call updates.
      u = u.clone();
      v = v.clone();
    }
    return div(w, dot(u, mv(wm, v)));
  }
  std::optional<Tensors> operator()(Module& m, const Tensors&) const {
    m.set_tensor_attr(name, compute(m, m.is_training()));
    return std::nullopt;
  }
};

}  // namespace

void weight_norm(Module& m, const std::string& name, std::optional<int64_t> dim_in) {
  EMBER_CHECK(!find_hook<WeightNormHook>(m, name), RuntimeError,
              "Cannot register two weight_norm hooks on the same parameter ", name);
  const Tensor weight = parameter_to_replace(m, "weight_norm", name, true);
  const int64_t dim = dim_in.value_or(-1);
  if (dim != -1) wrap_dim(dim, weight.dim(), "weight_norm");  // checked before anything changes
  const WeightNormHook hook{name, dim};
  Tensor g;
  {
    autograd::NoGradGuard no_grad;
    g = norm_except_dim(weight, dim).detach();
  }
  Access::remove(m, name);
  m.register_parameter(name + "_g", g);
  m.register_parameter(name + "_v", weight.detach());
  m.set_tensor_attr(name, hook.compute(m));
  m.register_forward_pre_hook(hook);
}

void remove_weight_norm(Module& m, const std::string& name) {
  const auto found = find_hook<WeightNormHook>(m, name);
  EMBER_CHECK(found, ValueError, "weight_norm of '", name, "' not found in ", m.repr());
  Tensor weight;
  {
    autograd::NoGradGuard no_grad;
    weight = found->second->compute(m).detach();
  }
  HookHandle(found->first).remove();
  for (const char* suffix : {"", "_g", "_v"}) Access::remove(m, name + suffix);
  m.register_parameter(name, weight);
}

void spectral_norm(Module& m, const std::string& name, int64_t n_power_iterations, double eps,
                   std::optional<int64_t> dim_in) {
  EMBER_CHECK(!find_hook<SpectralNormHook>(m, name), RuntimeError,
              "Cannot register two spectral_norm hooks on the same parameter ", name);
  EMBER_CHECK(n_power_iterations > 0, ValueError,
              "Expected n_power_iterations to be positive, but got n_power_iterations=", n_power_iterations);
  const Tensor weight = parameter_to_replace(m, "spectral_norm", name, false);
  const int64_t dim = wrap_dim(dim_in ? *dim_in : is_transposed_conv(m) ? 1 : 0, weight.dim(), "spectral_norm");
  const SpectralNormHook hook{name, n_power_iterations, dim, eps};
  Tensor u, v;
  {
    autograd::NoGradGuard no_grad;
    const Tensor wm = hook.to_matrix(weight);
    const TensorOptions opts = TensorOptions(weight.dtype()).device(weight.device());
    u = normalize(normal(0.0, 1.0, {wm.size(0)}, nullptr, opts), eps);
    v = normalize(normal(0.0, 1.0, {wm.size(1)}, nullptr, opts), eps);
  }
  Access::remove(m, name);
  m.register_parameter(name + "_orig", weight);
  // Until the first call, the attribute is the unnormalized weight (as PyTorch's weight.data).
  m.set_tensor_attr(name, weight.detach());
  m.register_buffer(name + "_u", u);
  m.register_buffer(name + "_v", v);
  m.register_forward_pre_hook(hook);
}

void remove_spectral_norm(Module& m, const std::string& name) {
  const auto found = find_hook<SpectralNormHook>(m, name);
  EMBER_CHECK(found, ValueError, "spectral_norm of '", name, "' not found in ", m.repr());
  Tensor weight;
  {
    autograd::NoGradGuard no_grad;
    weight = found->second->compute(m, false).detach();
  }
  HookHandle(found->first).remove();
  for (const char* suffix : {"", "_u", "_v", "_orig"}) Access::remove(m, name + suffix);
  m.register_parameter(name, weight);
}

}  // namespace utils
}  // namespace ember::nn
