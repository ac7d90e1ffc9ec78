// Fused multi-tensor optimizer updates (the kernels behind ember::optim and ember.optim).
// Each call updates every parameter of a list in place, with its state, in one pass over
// memory; the formulas are torch.optim's single-tensor ones (PyTorch 1.13). All lists are
// index-aligned with `params`; a state list that an option leaves unused may be empty.
// Gradients are read only. `state_steps` are one-element tensors that the call increments
// before using them, as torch.optim does; parameters with different step counts (one that
// missed some updates) get their own bias corrections.
#pragma once

#include "ember/tensor.h"

namespace ember {

// SGD. momentum_buffers: empty when momentum is 0; `fresh` lists the indices whose buffer
// is new (it is set to the gradient, as torch's first step clones it).
void _fused_sgd_(TensorList params, TensorList grads, TensorList momentum_buffers, double lr, double momentum,
                 double dampening, double weight_decay, bool nesterov, bool maximize, IntArrayRef fresh = {});
// Adam, and AdamW with decoupled_weight_decay. max_exp_avg_sqs: empty unless amsgrad.
void _fused_adam_(TensorList params, TensorList grads, TensorList exp_avgs, TensorList exp_avg_sqs,
                  TensorList max_exp_avg_sqs, TensorList state_steps, double lr, double beta1, double beta2,
                  double weight_decay, double eps, bool amsgrad, bool maximize, bool decoupled_weight_decay = false);
void _fused_adagrad_(TensorList params, TensorList grads, TensorList state_sums, TensorList state_steps, double lr,
                     double lr_decay, double weight_decay, double eps, bool maximize);
// grad_avgs: empty unless centered; momentum_buffers: empty unless momentum > 0.
void _fused_rmsprop_(TensorList params, TensorList grads, TensorList square_avgs, TensorList grad_avgs,
                     TensorList momentum_buffers, double lr, double alpha, double eps, double weight_decay,
                     double momentum, bool centered, bool maximize);
void _fused_adadelta_(TensorList params, TensorList grads, TensorList square_avgs, TensorList acc_deltas, double lr,
                      double rho, double eps, double weight_decay, bool maximize);
void _fused_adamax_(TensorList params, TensorList grads, TensorList exp_avgs, TensorList exp_infs,
                    TensorList state_steps, double lr, double beta1, double beta2, double eps, double weight_decay,
                    bool maximize);
// mu_products: one-element float32 tensors (torch's state['mu_product']), updated in place.
void _fused_nadam_(TensorList params, TensorList grads, TensorList exp_avgs, TensorList exp_avg_sqs,
                   TensorList mu_products, TensorList state_steps, double lr, double beta1, double beta2,
                   double weight_decay, double momentum_decay, double eps);
void _fused_radam_(TensorList params, TensorList grads, TensorList exp_avgs, TensorList exp_avg_sqs,
                   TensorList state_steps, double lr, double beta1, double beta2, double weight_decay, double eps);

}  // namespace ember
