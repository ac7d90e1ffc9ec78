// Loss functions (torch.nn.functional's losses), as ops written with other ops so that
// autograd, Meta tensors and every backend work (src/ops/loss*.cpp). `reduction` is encoded
// as in ATen: Reduction::None, Mean or Sum.
#pragma once

#include <optional>

#include "ember/tensor.h"

namespace ember {

namespace Reduction {
enum Reduction : int64_t { None = 0, Mean = 1, Sum = 2 };
}  // namespace Reduction

// ---------------------------------------------------------------- regression
Tensor mse_loss(const Tensor& self, const Tensor& target, int64_t reduction = Reduction::Mean);
Tensor l1_loss(const Tensor& self, const Tensor& target, int64_t reduction = Reduction::Mean);
// beta == 0 is l1_loss; negative beta raises.
Tensor smooth_l1_loss(const Tensor& self, const Tensor& target, int64_t reduction = Reduction::Mean,
                      double beta = 1.0);
Tensor huber_loss(const Tensor& self, const Tensor& target, int64_t reduction = Reduction::Mean, double delta = 1.0);
Tensor poisson_nll_loss(const Tensor& input, const Tensor& target, bool log_input, bool full, double eps,
                        int64_t reduction);

// ---------------------------------------------------------------- classification
// self: (C), (N, C) or (N, C, d1, ...) log-probabilities; target: class indices (int64 or
// uint8) of shape (), (N) or (N, d1, ...). The weighted mean divides by the total weight of
// the targets that are not ignore_index.
Tensor nll_loss(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight = std::nullopt,
                int64_t reduction = Reduction::Mean, int64_t ignore_index = -100);
// Class indices (as nll_loss of log_softmax) or, when target has self's shape, class
// probabilities; label_smoothing in [0, 1] as in torch 1.13.
Tensor cross_entropy_loss(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight = std::nullopt,
                          int64_t reduction = Reduction::Mean, int64_t ignore_index = -100,
                          double label_smoothing = 0.0);
// log is clamped at -100, as in torch.
Tensor binary_cross_entropy(const Tensor& self, const Tensor& target, const std::optional<Tensor>& weight = std::nullopt,
                            int64_t reduction = Reduction::Mean);
Tensor binary_cross_entropy_with_logits(const Tensor& self, const Tensor& target,
                                        const std::optional<Tensor>& weight = std::nullopt,
                                        const std::optional<Tensor>& pos_weight = std::nullopt,
                                        int64_t reduction = Reduction::Mean);
// 'batchmean' is Sum divided by the batch size (done by the caller, as torch's Python does).
Tensor kl_div(const Tensor& self, const Tensor& target, int64_t reduction = Reduction::Mean, bool log_target = false);
Tensor soft_margin_loss(const Tensor& self, const Tensor& target, int64_t reduction = Reduction::Mean);
// target: (C) or (N, C) class indices, ending at the first negative entry.
Tensor multilabel_margin_loss(const Tensor& self, const Tensor& target, int64_t reduction = Reduction::Mean);
// p: 1 or 2.
Tensor multi_margin_loss(const Tensor& self, const Tensor& target, const Scalar& p = 1, const Scalar& margin = 1,
                         const std::optional<Tensor>& weight = std::nullopt, int64_t reduction = Reduction::Mean);

// ---------------------------------------------------------------- embeddings and ranking
Tensor margin_ranking_loss(const Tensor& input1, const Tensor& input2, const Tensor& target, double margin = 0.0,
                           int64_t reduction = Reduction::Mean);
Tensor hinge_embedding_loss(const Tensor& self, const Tensor& target, double margin = 1.0,
                            int64_t reduction = Reduction::Mean);
Tensor cosine_embedding_loss(const Tensor& input1, const Tensor& input2, const Tensor& target, double margin = 0.0,
                             int64_t reduction = Reduction::Mean);
Tensor triplet_margin_loss(const Tensor& anchor, const Tensor& positive, const Tensor& negative, double margin = 1.0,
                           double p = 2, double eps = 1e-6, bool swap = false, int64_t reduction = Reduction::Mean);

// ---------------------------------------------------------------- sequences
// log_probs (T, N, C) or (T, C); targets padded (N, S) or concatenated (sum(target_lengths));
// lengths as int64 tensors or lists. The forward (alpha) recursion runs in log space with
// ops, so the loss differentiates (twice) like any composite; its gradient with respect to
// log_probs is the exact one (torch's adds exp(log_probs), which log_softmax's backward
// cancels).
Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, const Tensor& input_lengths,
                const Tensor& target_lengths, int64_t blank = 0, int64_t reduction = Reduction::Mean,
                bool zero_infinity = false);
Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets, IntArrayRef input_lengths,
                IntArrayRef target_lengths, int64_t blank = 0, int64_t reduction = Reduction::Mean,
                bool zero_infinity = false);

}  // namespace ember
