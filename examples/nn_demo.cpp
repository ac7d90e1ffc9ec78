// The C++ module API: a small MLP learns a 2-D classification task with hand-written SGD,
// then an LSTM learns to continue sine waves.
// Built next to tensor_demo: build/examples/nn_demo.
#include <cstdio>
#include <iostream>

#include "ember/autograd.h"
#include "ember/nn.h"
#include "ember/ops.h"

using namespace ember;

namespace {

// A user-defined module: layers are registered children, forward is a plain method.
struct Classifier : nn::ModuleBase<Classifier> {
  std::shared_ptr<nn::Sequential> body;
  std::shared_ptr<nn::Linear> head;

  Classifier() {
    body = register_module(
        "body", std::make_shared<nn::Sequential>(nn::Linear(2, 16), nn::Tanh(), nn::Linear(16, 16), nn::Tanh()));
    head = register_module("head", nn::Linear(16, 2));
  }
  Tensor forward(const Tensor& x) { return (*head)((*body)(x)); }
};

// A sequence model: an LSTM over (L, N, 1) inputs, and a Linear reading each step's output.
struct NextStep : nn::ModuleBase<NextStep> {
  std::shared_ptr<nn::LSTM> lstm;
  std::shared_ptr<nn::Linear> head;

  NextStep() {
    lstm = register_module("lstm", nn::LSTM(nn::LSTMOptions{.input_size = 1, .hidden_size = 16}));
    head = register_module("head", nn::Linear(16, 1));
  }
  Tensor forward(const Tensor& x) { return (*head)(std::get<0>((*lstm)(x))); }
};

// Trains NextStep to predict sin(0.3 (t + 1) + phase) from the values up to step t.
void sequence_demo() {
  const Tensor t = arange(21, TensorOptions(kFloat)).view({21, 1, 1});
  const Tensor phase = (rand({1, 32, 1}) * 6.2832);
  const Tensor wave = sin(t * 0.3 + phase);  // (21, 32, 1)
  const Tensor x = wave.narrow(0, 0, 20), target = wave.narrow(0, 1, 20);

  auto model = std::make_shared<NextStep>();
  std::cout << "\n" << *model << "\n";
  nn::MSELoss loss_fn;
  const double lr = 0.3;
  for (int step = 0; step <= 150; ++step) {
    model->zero_grad();
    Tensor loss = loss_fn((*model)(x), target);
    autograd::backward({loss});
    {
      autograd::NoGradGuard no_grad;
      for (Tensor p : model->parameters()) p.sub_(autograd::grad(p), lr);
    }
    if (step % 25 == 0) std::printf("step %3d  sequence loss %.5f\n", step, loss.item<double>());
  }
}

}  // namespace

int main() {
  try {
    manual_seed(0);
    // Points in [-1, 1]^2, labelled by which side of a circle they fall on.
    Tensor x = rand({256, 2}) * 2 - 1;
    Tensor label = lt(sum(mul(x, x), {1}), 0.5).to(kInt64);

    auto model = std::make_shared<Classifier>();
    std::cout << *model << "\n";
    std::printf("%zu parameters in %zu tensors\n\n",
                static_cast<size_t>(nn::utils::parameters_to_vector(model->parameters()).numel()),
                model->parameters().size());

    nn::CrossEntropyLoss loss_fn;
    const double lr = 0.5;
    for (int step = 0; step <= 300; ++step) {
      model->zero_grad();
      Tensor logits = (*model)(x);
      Tensor loss = loss_fn(logits, label);
      autograd::backward({loss});
      {
        autograd::NoGradGuard no_grad;
        for (Tensor p : model->parameters()) p.sub_(autograd::grad(p), lr);
      }
      if (step % 50 == 0) {
        auto [_, predicted] = max(logits, 1);
        const double accuracy = mean(eq(predicted, label).to(kFloat)).item<double>();
        std::printf("step %3d  loss %.4f  accuracy %.3f\n", step, loss.item<double>(), accuracy);
      }
    }

    // Evaluation mode, and a state_dict round trip into a fresh model.
    model->eval();
    auto copy = std::make_shared<Classifier>();
    copy->load_state_dict(model->state_dict());
    std::printf("\nstate_dict keys:");
    for (const auto& key : model->state_dict().keys()) std::printf(" %s", key.c_str());
    std::printf("\nreloaded model agrees: %s\n", equal((*copy)(x), (*model)(x)) ? "yes" : "no");

    sequence_demo();
  } catch (const Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
