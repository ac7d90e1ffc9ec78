// ember::optim: torch.optim's optimizers for C++ (include/ember/optim/*.h). Each takes its
// options as an aggregate (`SGD(model->parameters(), {.lr = 0.1, .momentum = 0.9})`) and runs
// its element-wise update in a fused multi-tensor op (include/ember/ops/optim.h).
#pragma once

#include "ember/optim/adadelta.h"
#include "ember/optim/adagrad.h"
#include "ember/optim/adam.h"
#include "ember/optim/adamax.h"
#include "ember/optim/lbfgs.h"
#include "ember/optim/lr_scheduler.h"
#include "ember/optim/nadam.h"
#include "ember/optim/optimizer.h"
#include "ember/optim/radam.h"
#include "ember/optim/rmsprop.h"
#include "ember/optim/sgd.h"
