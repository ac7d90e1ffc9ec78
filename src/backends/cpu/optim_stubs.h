// Kernel slot of the fused optimizer updates (ops/optim.cpp); kernels/optim.cpp fills it.
// One call updates every parameter of a list in one pass over memory per element: it reads
// the parameter, its gradient and its state, and writes the parameter and the state.
#pragma once

#include <cstdint>

#include "backends/cpu/capability.h"
#include "ember/dtype.h"

namespace ember::cpu {

enum class OptimKind : int { SGD, Adam, Adagrad, RMSprop, Adadelta, Adamax, NAdam, RAdam };

// Flags (OptimArgs::flags); each kind reads those it names.
inline constexpr uint32_t kOptimMaximize = 1;      // all but NAdam and RAdam: the gradient is negated first
inline constexpr uint32_t kOptimWeightDecay = 2;   // g += weight_decay * p (L2; AdamW decays p instead)
inline constexpr uint32_t kOptimDecoupled = 4;     // Adam: AdamW's p *= 1 - lr * weight_decay
inline constexpr uint32_t kOptimAmsgrad = 8;       // Adam
inline constexpr uint32_t kOptimMomentum = 16;     // SGD, RMSprop: a momentum buffer (state[0] / state[2])
inline constexpr uint32_t kOptimNesterov = 32;     // SGD
inline constexpr uint32_t kOptimCentered = 64;     // RMSprop: grad_avg in state[1]

// One parameter: contiguous param, grad and state buffers of `numel` elements, one dtype.
// coef holds what depends on the parameter's own step count (computed by the op in double).
struct OptimTensor {
  char* param = nullptr;
  const char* grad = nullptr;
  char* state[3] = {};
  int64_t numel = 0;
  double coef[3] = {};
};

// hyper[] by kind (all kinds: hyper[7] = weight_decay):
//  SGD      lr, momentum, dampening; coef[0] = 1 for a fresh buffer (set to the gradient)
//  Adam     lr, beta1, beta2, eps; coef = {-lr / bias_correction1, sqrt(bias_correction2)}
//           state = {exp_avg, exp_avg_sq, max_exp_avg_sq}
//  Adagrad  eps; coef[0] = -lr / (1 + (step - 1) * lr_decay); state = {sum}
//  RMSprop  lr, alpha, eps, momentum; state = {square_avg, grad_avg, momentum_buffer}
//  Adadelta lr, rho, eps; state = {square_avg, acc_delta}
//  Adamax   beta1, beta2, eps; coef[0] = -lr / bias_correction1; state = {exp_avg, exp_inf}
//  NAdam    beta1, beta2, eps; coef = {bias_correction2, grad factor, exp_avg factor}
//  RAdam    lr, beta1, beta2, eps; coef = {bias_correction1, sqrt(bias_correction2), rect
//           (0: the step is not rectified)}
struct OptimArgs {
  OptimKind kind = OptimKind::SGD;
  ScalarType dtype = ScalarType::Undefined;
  const OptimTensor* tensors = nullptr;
  int64_t ntensors = 0;
  double hyper[8] = {};
  uint32_t flags = 0;
};
using OptimFn = void (*)(const OptimArgs&);
extern Stub<OptimFn> optim_stub;

}  // namespace ember::cpu
