// The example backend end to end: its own kernels, the CPU fallback for everything else,
// device checks and memory accounting.
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "ember/backend.h"
#include "ember/dispatch.h"
#include "ember/ops.h"
#include "example_backend.h"

using namespace ember;

namespace {

Device dev() { return Device(ember_example::device_type()); }

std::vector<float> values(const Tensor& t) {
  Tensor c = t.cpu().contiguous().to(kFloat);
  const float* p = c.data_ptr<float>();
  return std::vector<float>(p, p + c.numel());
}

Tensor iota(std::vector<int64_t> shape, float start = 1.f, ScalarType dtype = kFloat) {
  std::vector<float> v(static_cast<size_t>(compute_numel(shape)));
  std::iota(v.begin(), v.end(), start);
  return tensor(v).view(shape).to(dtype);
}

ember_example::Stats stats() { return ember_example::stats(); }

}  // namespace

TEST(ExampleBackend, RegistersByNameAndPrints) {
  EXPECT_EQ(register_example_backend(), static_cast<int>(ember_example::device_type()));
  EXPECT_EQ(register_example_backend(), register_example_backend());  // idempotent
  Device d("example");
  EXPECT_EQ(d.type, ember_example::device_type());
  EXPECT_EQ(d.str(), "example");
  EXPECT_EQ(Device("example:1").str(), "example:1");
  Tensor t = empty({2}, TensorOptions(kFloat).device(d));
  EXPECT_EQ(t.device().str(), "example");
  EXPECT_FALSE(t.is_cpu());
  EXPECT_TRUE(t.key_set().has(backend_key(d.type)));
  EXPECT_EQ(custom_backend_name(d.type), "example");
#if defined(__x86_64__)
  // Device memory is opaque to the host: its addresses are not dereferenceable there, so every
  // test below also checks that Ember reaches it only through the backend.
  EXPECT_NE(reinterpret_cast<uintptr_t>(t.data_ptr()) >> 47, 0u);
#endif
  // The name is taken now.
  EXPECT_THROW(register_backend("example", &backend_for(d.type)), RuntimeError);
}

TEST(ExampleBackend, RoundTripThroughCpu) {
  Tensor x = iota({2, 3});
  const uint64_t up = stats().bytes_to_device, down = stats().bytes_from_device;
  Tensor d = x.to(dev());
  EXPECT_EQ(d.device(), dev());
  EXPECT_EQ(d.dtype(), kFloat);
  EXPECT_TRUE(d.sizes().equals({2, 3}));
  EXPECT_EQ(stats().bytes_to_device - up, 24u);
  Tensor back = d.cpu();
  EXPECT_TRUE(back.is_cpu());
  EXPECT_EQ(stats().bytes_from_device - down, 24u);
  EXPECT_EQ(values(back), values(x));
}

TEST(ExampleBackend, CopyConvertsDtypesBroadcastsAndHandlesStrides) {
  // CPU int64 -> device float64, broadcasting a row.
  Tensor row = iota({3}, 1.f, kInt64);
  Tensor d = empty({2, 3}, TensorOptions(kDouble).device(dev()));
  d.copy_(row);
  EXPECT_EQ(d.cpu().dtype(), kDouble);
  EXPECT_EQ(values(d), (std::vector<float>{1, 2, 3, 1, 2, 3}));
  // Device -> device with another dtype, from a transposed (non-contiguous) source.
  Tensor src = iota({3, 2}).to(dev()).t();
  Tensor i32 = empty({2, 3}, TensorOptions(kInt32).device(dev()));
  i32.copy_(src);
  EXPECT_EQ(values(i32), (std::vector<float>{1, 3, 5, 2, 4, 6}));
  // Into a non-contiguous device view: only the selected column changes.
  Tensor m = zeros({2, 3}, TensorOptions(kFloat).device(dev()));
  m.select(1, 1).copy_(tensor({7.f, 8.f}));
  EXPECT_EQ(values(m), (std::vector<float>{0, 7, 0, 0, 8, 0}));
  // Device -> CPU into a strided CPU view with dtype conversion.
  Tensor host = zeros({3, 2}, kDouble);
  host.t().copy_(m);
  EXPECT_EQ(values(host), (std::vector<float>{0, 0, 7, 8, 0, 0}));
  // Overlapping views of one device tensor: the source is read before it is overwritten.
  Tensor v = iota({5}).to(dev());
  v.slice(0, 1, 5).copy_(v.slice(0, 0, 4));
  EXPECT_EQ(values(v), (std::vector<float>{1, 1, 2, 3, 4}));
  // Broadcasting errors and writes into broadcast views are refused.
  EXPECT_THROW(m.copy_(ones({4})), RuntimeError);
  Tensor e = zeros({1}, TensorOptions(kFloat).device(dev())).expand({3});
  EXPECT_THROW(e.copy_(ones({3})), RuntimeError);
}

TEST(ExampleBackend, OwnKernelsRun) {
  Tensor a = iota({2, 3}).to(dev()), b = iota({3}, 10.f).to(dev());
  const uint64_t adds = stats().add_calls, muls = stats().mul_calls, fb = stats().fallback_calls;
  Tensor s = a + b;  // broadcast
  EXPECT_EQ(stats().add_calls, adds + 1);
  EXPECT_EQ(s.device(), dev());
  EXPECT_EQ(values(s), (std::vector<float>{11, 13, 15, 14, 16, 18}));
  Tensor s2 = add(a, b, 2);
  EXPECT_EQ(values(s2), (std::vector<float>{21, 24, 27, 24, 27, 30}));
  Tensor p = a * b;
  EXPECT_EQ(stats().mul_calls, muls + 1);
  EXPECT_EQ(values(p), (std::vector<float>{10, 22, 36, 40, 55, 72}));
  EXPECT_EQ(stats().fallback_calls, fb);  // none of these needed the CPU
  EXPECT_THROW(a + iota({2}).to(dev()), RuntimeError);  // shapes do not broadcast
}

TEST(ExampleBackend, OtherDtypesOfOwnKernelsFallBack) {
  Tensor a = iota({3}, 1.f, kInt64).to(dev()), b = iota({3}, 1.f, kDouble).to(dev());
  const uint64_t adds = stats().add_calls, fb = stats().fallback_calls;
  Tensor s = a + b;  // int64 + float64 promotes to float64 on the CPU
  EXPECT_EQ(stats().add_calls, adds);
  EXPECT_EQ(stats().fallback_calls, fb + 1);
  EXPECT_EQ(s.device(), dev());
  EXPECT_EQ(s.dtype(), kDouble);
  EXPECT_EQ(values(s), (std::vector<float>{2, 4, 6}));
  // A Python-number operand (a wrapped CPU scalar) keeps weak promotion: float32 stays.
  Tensor f = iota({3}).to(dev());
  Tensor g = f * 2.5;
  EXPECT_EQ(g.dtype(), kFloat);
  EXPECT_EQ(g.device(), dev());
  EXPECT_EQ(values(g), (std::vector<float>{2.5, 5, 7.5}));
}

TEST(ExampleBackend, OpsWithoutKernelsUseTheCpuFallback) {
  Tensor a = iota({2, 3}).to(dev()), b = iota({2, 3}, 0.5f).to(dev());
  uint64_t fb = stats().fallback_calls;
  Tensor d = a - b;
  EXPECT_EQ(stats().fallback_calls, fb + 1);
  EXPECT_EQ(d.device(), dev());
  EXPECT_EQ(values(d), (std::vector<float>(6, 0.5f)));

  Tensor e = exp(iota({3}, 0.f).to(dev()));
  EXPECT_EQ(e.device(), dev());
  std::vector<float> ev = values(e);
  EXPECT_FLOAT_EQ(ev[0], 1.f);
  EXPECT_FLOAT_EQ(ev[1], std::exp(1.f));
  EXPECT_FLOAT_EQ(ev[2], std::exp(2.f));

  // Ops of other families, and non-contiguous inputs.
  Tensor q = div(a.t(), 2);
  EXPECT_EQ(values(q), (std::vector<float>{0.5, 2, 1, 2.5, 1.5, 3}));
  Tensor mx = maximum(a, iota({3}, 2.f).to(dev()));
  EXPECT_EQ(values(mx), (std::vector<float>{2, 3, 4, 4, 5, 6}));
  Tensor lt = a.lt(b + 1);  // b + 1 == a + 0.5
  EXPECT_EQ(lt.dtype(), kBool);
  EXPECT_EQ(lt.device(), dev());
  EXPECT_EQ(values(lt), (std::vector<float>(6, 1.f)));
  Tensor w = where(a.gt(3), a, zeros_like(a));
  EXPECT_EQ(values(w), (std::vector<float>{0, 0, 0, 4, 5, 6}));

  // BLAS-backed matmul, also on transposed device views: (a b)^T = b^T a^T.
  Tensor m1 = iota({2, 3}).to(dev()), m2 = iota({3, 2}).to(dev());
  Tensor prod = matmul(m1, m2);
  EXPECT_EQ(prod.device(), dev());
  EXPECT_EQ(values(prod), (std::vector<float>{22, 28, 49, 64}));
  EXPECT_EQ(values(matmul(m2.t(), m1.t())), (std::vector<float>{22, 49, 28, 64}));

  // Reductions, including one with two results.
  Tensor total = sum(a);
  EXPECT_EQ(total.device(), dev());
  EXPECT_EQ(total.dim(), 0);
  EXPECT_EQ(total.item<float>(), 21.f);
  EXPECT_EQ(values(sum(a.t(), {0})), (std::vector<float>{6, 15}));
  auto [mx_values, mx_indices] = max(a, 1);
  EXPECT_EQ(mx_values.device(), dev());
  EXPECT_EQ(mx_indices.device(), dev());
  EXPECT_EQ(mx_indices.dtype(), kInt64);
  EXPECT_EQ(values(mx_values), (std::vector<float>{3, 6}));
  EXPECT_EQ(values(mx_indices), (std::vector<float>{2, 2}));
}

TEST(ExampleBackend, InPlaceOpsThroughTheFallbackWriteBack) {
  Tensor x = iota({2, 3}).to(dev());
  const uint32_t v0 = x.version();
  void* storage_before = x.storage().get();
  uint64_t fb = stats().fallback_calls;
  Tensor& r = x.sub_(ones({2, 3}, TensorOptions(kFloat).device(dev())), 2);
  EXPECT_EQ(stats().fallback_calls, fb + 1);
  EXPECT_TRUE(r.is_same(x));
  EXPECT_EQ(x.storage().get(), storage_before);  // written in place, not rebound
  EXPECT_EQ(values(x), (std::vector<float>{-1, 0, 1, 2, 3, 4}));
  EXPECT_GT(x.version(), v0);
  // Through a view: the base sees the change.
  Tensor col = x.select(1, 2);
  col.mul_(ones({2}, TensorOptions(kFloat).device(dev())) * 10);
  EXPECT_EQ(values(x), (std::vector<float>{-1, 0, 10, 2, 3, 40}));
  x.exp_();
  EXPECT_FLOAT_EQ(values(x)[1], 1.f);
  // out= through the fallback resizes the device tensor.
  Tensor out = empty({0}, TensorOptions(kFloat).device(dev()));
  sub_out(out, iota({2, 2}).to(dev()), iota({2, 2}).to(dev()));
  EXPECT_TRUE(out.sizes().equals({2, 2}));
  EXPECT_EQ(out.device(), dev());
  EXPECT_EQ(values(out), (std::vector<float>(4, 0.f)));
  // fill_ and zero_ (composites over copy_).
  x.fill_(3);
  EXPECT_EQ(values(x), (std::vector<float>(6, 3.f)));
  x.zero_();
  EXPECT_EQ(values(x), (std::vector<float>(6, 0.f)));
}

TEST(ExampleBackend, ViewsAndCompositesStayOnTheDevice) {
  Tensor x = iota({2, 3}).to(dev());
  Tensor v = x.t();
  EXPECT_EQ(v.device(), dev());
  EXPECT_TRUE(v.is_alias_of(x));
  Tensor c = v.contiguous();
  EXPECT_EQ(c.device(), dev());
  EXPECT_FALSE(c.is_alias_of(x));
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_EQ(values(c), (std::vector<float>{1, 4, 2, 5, 3, 6}));
  Tensor k = x.clone();
  EXPECT_EQ(k.device(), dev());
  EXPECT_FALSE(k.is_alias_of(x));
  EXPECT_EQ(x.select(0, 1).select(0, 2).item<float>(), 6.f);
  EXPECT_EQ(x.to(kInt64).device(), dev());
}

TEST(ExampleBackend, MixingDevicesIsAnError) {
  Tensor d = iota({3}).to(dev());
  Tensor c = iota({3});
  auto expect_device_error = [](auto&& f) {
    try {
      f();
      ADD_FAILURE() << "expected a RuntimeError";
    } catch (const RuntimeError& e) {
      EXPECT_NE(std::string(e.what()).find("same device"), std::string::npos) << e.what();
    }
  };
  expect_device_error([&] { return d - c; });  // fallback
  expect_device_error([&] { return c - d; });
  expect_device_error([&] { return d + c; });  // own kernel
  expect_device_error([&] { return exp(d) * c; });
  // A 0-dim CPU tensor is a scalar and may be mixed in, as on any device.
  Tensor s = d - scalar_tensor(1.f);
  EXPECT_EQ(s.device(), dev());
  EXPECT_EQ(values(s), (std::vector<float>{0, 1, 2}));
}

TEST(ExampleBackend, MemoryIsFreedAndAccounted) {
  const ember_example::Stats before = stats();
  {
    Tensor a = empty({1000}, TensorOptions(kFloat).device(dev()));
    EXPECT_GE(stats().live_bytes, before.live_bytes + 4000);
    Tensor b = (a.fill_(1) - 1).exp();
    EXPECT_EQ(values(b), std::vector<float>(1000, 1.f));
    EXPECT_GT(stats().allocations, before.allocations + 1);
  }
  const ember_example::Stats after = stats();
  EXPECT_EQ(after.live_bytes, before.live_bytes);
  EXPECT_EQ(after.allocations - before.allocations, after.frees - before.frees);
  EXPECT_GE(after.peak_bytes, before.live_bytes + 4000);
}

TEST(ExampleBackend, MetaAndOtherDevicesAreRefused) {
  Tensor d = iota({3}).to(dev());
  Tensor m = empty({3}, TensorOptions(kFloat).device(kMeta));
  EXPECT_THROW(d.copy_(m), RuntimeError);
  EXPECT_THROW(d - m, RuntimeError);
  EXPECT_THROW(Device("example2"), RuntimeError);
}
