// The C++ module API (torch::nn's counterpart): ember::nn::Module and its containers, the
// layers, ember::nn::init and the gradient utilities. See docs/ARCHITECTURE.md, "C++ modules".
#pragma once

#include "ember/nn/module.h"
#include "ember/nn/container.h"
#include "ember/nn/init.h"
#include "ember/nn/linear.h"
#include "ember/nn/conv.h"
#include "ember/nn/norm.h"
#include "ember/nn/activation.h"
#include "ember/nn/loss.h"
#include "ember/nn/distance.h"
#include "ember/nn/functional.h"
#include "ember/nn/pooling.h"
#include "ember/nn/padding.h"
#include "ember/nn/vision.h"
#include "ember/nn/embedding_bag.h"
#include "ember/nn/rnn.h"
#include "ember/nn/transformer.h"
#include "ember/nn/utils.h"
