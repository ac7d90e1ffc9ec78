// A first look at Ember from C++: tensors, broadcasting, type promotion, views and
// in-place ops, shape inference on the Meta device. Run it with `make demo`.
#include <cstdio>
#include <string>
#include <vector>

#include "ember/ops.h"

using namespace ember;

namespace {

// Prints shape, dtype and values (converted to double for display).
void show(const char* label, const Tensor& t) {
  std::string shape = "[";
  for (int64_t d = 0; d < t.dim(); ++d) shape += (d ? ", " : "") + std::to_string(t.size(d));
  shape += "]";
  std::printf("%-28s shape=%-10s dtype=%-8s", label, shape.c_str(), std::string(dtype_name(t.dtype())).c_str());
  if (t.is_meta()) {
    std::printf(" (meta: no data)\n");
    return;
  }
  Tensor c = t.cpu().contiguous().to(kDouble);
  const double* p = c.data_ptr<double>();
  std::printf(" [");
  for (int64_t i = 0; i < c.numel(); ++i) std::printf(i ? ", %g" : "%g", p[i]);
  std::printf("]\n");
}

}  // namespace

int main() {
  try {
    Tensor a = tensor({1.f, 2.f, 3.f, 4.f, 5.f, 6.f}).view({2, 3});
    Tensor b = tensor({10.f, 20.f, 30.f});
    show("a", a);
    show("b", b);
    show("a + b (broadcast)", a + b);
    show("a * 2 - 1", a * 2 - 1);
    show("exp(a - 3)", exp(a - 3));

    // Integer tensors promote like in PyTorch: int / int is float, int + float is float.
    Tensor i = tensor({int64_t(7), int64_t(8), int64_t(9)});
    show("i (int64)", i);
    show("i / 2", i / 2);
    show("i + 0.5", i + 0.5);
    show("i.lt(8)", i.lt(8));

    // Views share memory: writing through a transpose changes the original.
    Tensor t = a.t();
    show("a.t()", t);
    t.select(0, 0).fill_(-1);
    show("a after a.t()[0].fill_(-1)", a);
    a.add_(b, 2);
    show("a.add_(b, alpha=2)", a);
    std::printf("%-28s %u\n", "a.version()", a.version());

    // The Meta device infers shapes and dtypes without computing anything.
    Tensor m = empty({128, 1, 64}, TensorOptions(kHalf).device(kMeta));
    show("meta: m * empty(32, 1)", m * empty({32, 1}, TensorOptions(kFloat).device(kMeta)));

    // Errors carry PyTorch's classes and messages.
    try {
      (void)(a + tensor({1.f, 2.f}));
    } catch (const RuntimeError& e) {
      std::printf("%-28s RuntimeError: %s\n", "a + [1, 2]", e.what());
    }
  } catch (const Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
