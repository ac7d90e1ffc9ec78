// Random sampling beyond the basic factories of ops.h, named and defaulted as in PyTorch.
// Every function draws from `gen`, or the default generator when it is null (ember/random.h);
// results for a seed do not depend on the number of threads.
#pragma once

#include <optional>

#include "ember/tensor.h"

namespace ember {

class Generator;

// ---------------------------------------------------------------- in place
// Integers uniform over [0, 2^mantissa digits] for floating dtypes, [0, max] for integral
// ones (bool: {0, 1}).
Tensor& random_(Tensor& t, Generator* gen = nullptr);
// Integers uniform in [0, to).
Tensor& random_(Tensor& t, int64_t to, Generator* gen = nullptr);
// Integers uniform in [from, to), or from `from` to the top of random_()'s range when `to`
// is empty.
Tensor& random_(Tensor& t, int64_t from, std::optional<int64_t> to, Generator* gen = nullptr);
// Exponential with rate `lambd` (>= 0; 0 gives +inf).
Tensor& exponential_(Tensor& t, double lambd = 1.0, Generator* gen = nullptr);
// Number of Bernoulli(p) trials up to the first success: 1, 2, ...; p in (0, 1).
Tensor& geometric_(Tensor& t, double p, Generator* gen = nullptr);
// exp(N(mean, std^2)); std > 0.
Tensor& log_normal_(Tensor& t, double mean = 1.0, double std = 2.0, Generator* gen = nullptr);
Tensor& cauchy_(Tensor& t, double median = 0.0, double sigma = 1.0, Generator* gen = nullptr);

// ---------------------------------------------------------------- sampling
// Like p's shape and dtype, 1 with probability p.
Tensor bernoulli(const Tensor& self, double p, Generator* gen = nullptr);
Tensor& bernoulli_out(Tensor& out, const Tensor& p, Generator* gen = nullptr);
// Normal samples with elementwise mean and std (broadcast together); the result has mean's
// dtype (std's when mean is a number) and is contiguous.
Tensor normal(const Tensor& mean, double std = 1.0, Generator* gen = nullptr);
Tensor normal(double mean, const Tensor& std, Generator* gen = nullptr);
Tensor normal(const Tensor& mean, const Tensor& std, Generator* gen = nullptr);
Tensor normal(double mean, double std, IntArrayRef size, Generator* gen = nullptr, TensorOptions opts = {});
Tensor& normal_out(Tensor& out, const Tensor& mean, double std = 1.0, Generator* gen = nullptr);
Tensor& normal_out(Tensor& out, double mean, const Tensor& std, Generator* gen = nullptr);
Tensor& normal_out(Tensor& out, const Tensor& mean, const Tensor& std, Generator* gen = nullptr);
Tensor& normal_out(Tensor& out, double mean, double std, IntArrayRef size, Generator* gen = nullptr);
// Poisson counts with elementwise rates (float, double, bfloat16), in the rates' dtype.
Tensor poisson(const Tensor& rates, Generator* gen = nullptr);
// `num_samples` category indices (int64) per row of a 1-D or 2-D tensor of non-negative
// weights; without replacement the indices of a row are distinct and zero weights are
// drawn only once every positive one has been.
Tensor multinomial(const Tensor& self, int64_t num_samples, bool replacement = false, Generator* gen = nullptr);
Tensor& multinomial_out(Tensor& out, const Tensor& self, int64_t num_samples, bool replacement = false,
                        Generator* gen = nullptr);

// ---------------------------------------------------------------- factories with out= and *_like
Tensor& rand_out(Tensor& out, IntArrayRef size, Generator* gen = nullptr);
Tensor& randn_out(Tensor& out, IntArrayRef size, Generator* gen = nullptr);
Tensor& randint_out(Tensor& out, int64_t low, int64_t high, IntArrayRef size, Generator* gen = nullptr);
Tensor& randperm_out(Tensor& out, int64_t n, Generator* gen = nullptr);
// The shape of t; dtype and device from opts, else t's.
Tensor rand_like(const Tensor& t, TensorOptions opts);
Tensor randn_like(const Tensor& t, TensorOptions opts);
Tensor randint_like(const Tensor& t, int64_t high, TensorOptions opts = {});
Tensor randint_like(const Tensor& t, int64_t low, int64_t high, TensorOptions opts = {});

}  // namespace ember
