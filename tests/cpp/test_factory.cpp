// Factories: arange, linspace, logspace, eye. Expected values marked "torch" come from
// PyTorch 1.13 (CPU, AVX2 kernels), printed as hex floats; the float32/float64 results must
// match them bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "ember/ops.h"
#include "test_util.h"

using namespace ember;
using ember::testing::as_double;
using ember::testing::Threads;

namespace {

std::vector<int64_t> ints(const Tensor& t) {
  Tensor d = t.to(kInt64).contiguous();
  const int64_t* p = d.data_ptr<int64_t>();
  return std::vector<int64_t>(p, p + d.numel());
}

template <typename E>
void expect_error(const std::function<void()>& f, const std::string& part) {
  try {
    f();
    ADD_FAILURE() << "expected an error containing: " << part;
  } catch (const E& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

}  // namespace

TEST(Factory, ArangeDtypeInference) {
  EXPECT_EQ(arange(5).dtype(), kInt64);
  EXPECT_EQ(arange(0, 5, 1).dtype(), kInt64);
  EXPECT_EQ(arange(true).dtype(), kInt64);
  EXPECT_EQ(arange(0.0, 5).dtype(), kFloat);
  EXPECT_EQ(arange(1, 2.5, 0.5).dtype(), kFloat);
  set_default_dtype(kDouble);
  EXPECT_EQ(arange(0, 5, 0.5).dtype(), kDouble);
  set_default_dtype(kFloat);
  EXPECT_EQ(arange(5, kInt32).dtype(), kInt32);
  EXPECT_EQ(arange(0, 5, 1, kHalf).dtype(), kHalf);
}

TEST(Factory, ArangeSizesAndIntegerValues) {
  EXPECT_EQ(arange(0, 1, 0.1).numel(), 10);
  EXPECT_EQ(arange(1, 2.5, 0.5).numel(), 3);
  EXPECT_EQ(arange(0, 0).numel(), 0);
  EXPECT_EQ(ints(arange(10, 0, -3)), (std::vector<int64_t>{10, 7, 4, 1}));
  EXPECT_EQ(ints(arange(0, 10, 3)), (std::vector<int64_t>{0, 3, 6, 9}));
  // torch: the size comes from the float arguments, the values from their int64 truncations.
  EXPECT_EQ(ints(arange(-1.5, 3.7, 1.1, kInt32)), (std::vector<int64_t>{-1, 0, 1, 2, 3}));
  EXPECT_EQ(ints(arange(0.5, 3, 1, kInt64)), (std::vector<int64_t>{0, 1, 2}));
  // Narrow integer types wrap.
  EXPECT_EQ(ints(arange(250, 260, 1, kUInt8)),
            (std::vector<int64_t>{250, 251, 252, 253, 254, 255, 0, 1, 2, 3}));
  EXPECT_EQ(as_double(arange(0, 5, 1, kBFloat16)), (std::vector<double>{0, 1, 2, 3, 4}));
}

TEST(Factory, ArangeFloatMatchesTorchBits) {
  const std::vector<double> a = {  // torch.arange(0.3, 40, 0.7, dtype=torch.float64)
      0x1.3333333333333p-2, 0x1.0000000000000p+0, 0x1.b333333333333p+0, 0x1.3333333333333p+1,
      0x1.8ccccccccccccp+1, 0x1.e666666666666p+1, 0x1.2000000000000p+2, 0x1.4ccccccccccccp+2,
      0x1.7999999999999p+2, 0x1.a666666666666p+2, 0x1.d333333333332p+2, 0x1.fffffffffffffp+2,
      0x1.1666666666666p+3, 0x1.2ccccccccccccp+3, 0x1.4333333333333p+3, 0x1.5999999999999p+3,
      0x1.7000000000000p+3, 0x1.8666666666666p+3, 0x1.9cccccccccccdp+3, 0x1.b333333333333p+3,
      0x1.c999999999999p+3, 0x1.dffffffffffffp+3, 0x1.f666666666666p+3, 0x1.0666666666666p+4,
      0x1.1199999999999p+4, 0x1.1ccccccccccccp+4, 0x1.27fffffffffffp+4, 0x1.3333333333333p+4,
      0x1.3e66666666666p+4, 0x1.4999999999999p+4, 0x1.54cccccccccccp+4, 0x1.6000000000000p+4,
      0x1.6b33333333333p+4, 0x1.7666666666666p+4, 0x1.8199999999999p+4, 0x1.8cccccccccccdp+4,
      0x1.9800000000000p+4, 0x1.a333333333333p+4, 0x1.ae66666666666p+4, 0x1.b99999999999ap+4,
      0x1.c4cccccccccccp+4, 0x1.cffffffffffffp+4, 0x1.db33333333332p+4, 0x1.e666666666666p+4,
      0x1.f199999999999p+4, 0x1.fccccccccccccp+4, 0x1.0400000000000p+5, 0x1.0999999999999p+5,
      0x1.0f33333333333p+5, 0x1.14ccccccccccdp+5, 0x1.1a66666666666p+5, 0x1.2000000000000p+5,
      0x1.2599999999999p+5, 0x1.2b33333333333p+5, 0x1.30cccccccccccp+5, 0x1.3666666666666p+5,
      0x1.3c00000000000p+5};
  EXPECT_EQ(as_double(arange(0.3, 40, 0.7, kDouble)), a);
  const std::vector<double> b = {  // torch.arange(0, 1, 0.1), float32
      0x0.0p+0, 0x1.99999ap-4, 0x1.99999ap-3, 0x1.333334p-2, 0x1.99999ap-2,
      0x1.0p-1, 0x1.333334p-1, 0x1.666666p-1, 0x1.99999ap-1, 0x1.ccccccp-1};
  EXPECT_EQ(as_double(arange(0, 1, 0.1, kFloat)), b);
  const std::vector<double> h = {  // torch.arange(-3.2, 50, 0.37, dtype=torch.half)[:40]
      -0x1.998p+1, -0x1.6a4p+1, -0x1.3acp+1, -0x1.0b8p+1, -0x1.b8p+0, -0x1.598p+0, -0x1.f54p-1,
      -0x1.38p-1, -0x1.eap-3, 0x1.0bcp-3, 0x1.008p-1, 0x1.bdcp-1, 0x1.3dcp+0, 0x1.9c4p+0,
      0x1.fbp+0, 0x1.2dp+1, 0x1.5c4p+1, 0x1.8b8p+1, 0x1.bbp+1, 0x1.ea4p+1, 0x1.0ccp+2,
      0x1.248p+2, 0x1.3c4p+2, 0x1.54p+2, 0x1.6b8p+2, 0x1.834p+2, 0x1.9bp+2, 0x1.b28p+2,
      0x1.ca4p+2, 0x1.e2p+2, 0x1.f9cp+2, 0x1.08cp+3, 0x1.148p+3, 0x1.204p+3, 0x1.2c4p+3,
      0x1.38p+3, 0x1.43cp+3, 0x1.4fcp+3, 0x1.5b8p+3, 0x1.678p+3};
  std::vector<double> hv = as_double(arange(-3.2, 50, 0.37, kHalf));
  hv.resize(h.size());
  EXPECT_EQ(hv, h);
}

TEST(Factory, ArangeErrors) {
  expect_error<RuntimeError>([] { arange(0, 5, 0); }, "step must be nonzero");
  expect_error<RuntimeError>([] { arange(0, 5, 0.5, kInt64); }, "step must be nonzero");
  expect_error<RuntimeError>([] { arange(0, 5, -1); }, "upper bound and larger bound inconsistent with step sign");
  expect_error<RuntimeError>([] { arange(5, 0); }, "upper bound and larger bound inconsistent with step sign");
  expect_error<RuntimeError>([] { arange(0, INFINITY); }, "unsupported range: 0 -> inf");
  expect_error<RuntimeError>([] { arange(0, NAN); }, "unsupported range");
  expect_error<RuntimeError>([] { arange(0, 1e30, 1e5); }, "invalid size, possible overflow?");
  expect_error<RuntimeError>([] { arange(0, 1e30, 1, kInt64); }, "without overflow");
  expect_error<RuntimeError>([] { arange(3, kBool); }, "\"arange_cpu\" not implemented for 'bool'");
  expect_error<RuntimeError>([] { arange(3, kComplexFloat); }, "not implemented for 'complex64'");
}

TEST(Factory, LinspaceMatchesTorchBits) {
  const std::vector<double> c = {  // torch.linspace(-3.7, 55.1, 71, dtype=torch.float64)
      -0x1.d99999999999ap+1, -0x1.6e147ae147ae2p+1, -0x1.028f5c28f5c29p+1, -0x1.2e147ae147ae0p+0,
      -0x1.5c28f5c28f5c0p-2, 0x1.0000000000002p-1, 0x1.570a3d70a3d72p+0, 0x1.170a3d70a3d72p+1,
      0x1.828f5c28f5c2ap+1, 0x1.ee147ae147ae2p+1, 0x1.2cccccccccccep+2, 0x1.628f5c28f5c2ap+2,
      0x1.9851eb851eb86p+2, 0x1.ce147ae147ae2p+2, 0x1.01eb851eb851fp+3, 0x1.1cccccccccccep+3,
      0x1.37ae147ae147cp+3, 0x1.528f5c28f5c2ap+3, 0x1.6d70a3d70a3d8p+3, 0x1.8851eb851eb86p+3,
      0x1.a333333333334p+3, 0x1.be147ae147ae2p+3, 0x1.d8f5c28f5c290p+3, 0x1.f3d70a3d70a3ep+3,
      0x1.075c28f5c28f6p+4, 0x1.14ccccccccccdp+4, 0x1.223d70a3d70a4p+4, 0x1.2fae147ae147bp+4,
      0x1.3d1eb851eb852p+4, 0x1.4a8f5c28f5c29p+4, 0x1.5800000000000p+4, 0x1.6570a3d70a3d7p+4,
      0x1.72e147ae147afp+4, 0x1.8051eb851eb86p+4, 0x1.8dc28f5c28f5dp+4, 0x1.9b33333333334p+4,
      0x1.a8a3d70a3d70ap+4, 0x1.b6147ae147ae1p+4, 0x1.c3851eb851eb8p+4, 0x1.d0f5c28f5c28fp+4,
      0x1.de66666666666p+4, 0x1.ebd70a3d70a3dp+4, 0x1.f947ae147ae14p+4, 0x1.035c28f5c28f6p+5,
      0x1.0a147ae147ae1p+5, 0x1.10ccccccccccdp+5, 0x1.17851eb851eb8p+5, 0x1.1e3d70a3d70a4p+5,
      0x1.24f5c28f5c28fp+5, 0x1.2bae147ae147bp+5, 0x1.3266666666666p+5, 0x1.391eb851eb852p+5,
      0x1.3fd70a3d70a3dp+5, 0x1.468f5c28f5c29p+5, 0x1.4d47ae147ae14p+5, 0x1.5400000000000p+5,
      0x1.5ab851eb851ecp+5, 0x1.6170a3d70a3d8p+5, 0x1.6828f5c28f5c3p+5, 0x1.6ee147ae147afp+5,
      0x1.759999999999ap+5, 0x1.7c51eb851eb86p+5, 0x1.830a3d70a3d71p+5, 0x1.89c28f5c28f5dp+5,
      0x1.907ae147ae148p+5, 0x1.9733333333333p+5, 0x1.9deb851eb851fp+5, 0x1.a4a3d70a3d70ap+5,
      0x1.ab5c28f5c28f6p+5, 0x1.b2147ae147ae1p+5, 0x1.b8ccccccccccdp+5};
  EXPECT_EQ(as_double(linspace(-3.7, 55.1, 71, kDouble)), c);
  const std::vector<double> d = {  // torch.linspace(-3.7, 55.1, 37), float32
      -0x1.d9999ap+1, -0x1.088888p+1, -0x1.bbbbcp-2, 0x1.333334p+0, 0x1.6aaaaap+1, 0x1.1dddep+2,
      0x1.866668p+2, 0x1.eeeefp+2, 0x1.2bbbbcp+3, 0x1.6p+3, 0x1.944444p+3, 0x1.c88888p+3,
      0x1.fcccccp+3, 0x1.188888p+4, 0x1.32aaacp+4, 0x1.4cccccp+4, 0x1.66eeeep+4,
      0x1.81111p+4, 0x1.9b3332p+4, 0x1.b55554p+4, 0x1.cf7776p+4, 0x1.e99998p+4, 0x1.01dddep+5,
      0x1.0eeeeep+5, 0x1.1cp+5, 0x1.291112p+5, 0x1.362222p+5, 0x1.433334p+5, 0x1.504444p+5,
      0x1.5d5556p+5, 0x1.6a6666p+5, 0x1.777778p+5, 0x1.848888p+5, 0x1.919998p+5, 0x1.9eaaaap+5,
      0x1.abbbbap+5, 0x1.b8ccccp+5};
  EXPECT_EQ(as_double(linspace(-3.7, 55.1, 37, kFloat)), d);
  const std::vector<double> j = {  // torch.linspace(-1.25, 7.5, 21, dtype=torch.bfloat16)
      -0x1.4p+0, -0x1.ap-1, -0x1.8p-2, 0x1.0p-4, 0x1.0p-1, 0x1.ep-1, 0x1.6p+0, 0x1.dp+0, 0x1.2p+1,
      0x1.58p+1, 0x1.9p+1, 0x1.c8p+1, 0x1.0p+2, 0x1.1cp+2, 0x1.38p+2, 0x1.54p+2, 0x1.7p+2,
      0x1.8cp+2, 0x1.a8p+2, 0x1.c4p+2, 0x1.ep+2};
  EXPECT_EQ(as_double(linspace(-1.25, 7.5, 21, kBFloat16)), j);
}

TEST(Factory, LinspaceRules) {
  EXPECT_EQ(linspace(0, 10, 5).dtype(), kFloat);  // integers still give the default dtype
  EXPECT_EQ(linspace(0, 1, 0).numel(), 0);
  EXPECT_EQ(as_double(linspace(3, 10, 1)), (std::vector<double>{3}));
  EXPECT_EQ(ints(linspace(0, 10, 7, kInt64)), (std::vector<int64_t>{0, 1, 3, 5, 6, 8, 10}));
  EXPECT_EQ(ints(linspace(-3, 10, 7, kUInt8)), (std::vector<int64_t>{253, 212, 172, 131, 91, 50, 10}));
  // Both ends are exact, and the second half counts down from the end.
  Tensor big = linspace(-1.7, 3.3, 100001, kDouble);
  std::vector<double> v = as_double(big);
  EXPECT_EQ(v.front(), -1.7);
  EXPECT_EQ(v.back(), 3.3);
  EXPECT_EQ(v[50000], 0.7999999999999997);  // torch
  Tensor z = linspace(complex128(0, 0), complex128(1, 2), 5);
  EXPECT_EQ(z.dtype(), kComplexFloat);
  Tensor zd = z.to(kComplexDouble);
  EXPECT_EQ(zd.data_ptr<complex128>()[1], complex128(0.25, 0.5));
  expect_error<RuntimeError>([] { linspace(0, 10, -1); }, "number of steps must be non-negative");
  expect_error<RuntimeError>([] { linspace(0, complex128(1, 2), 5, kFloat); },
                             "inferred dtype complex64 can't be safely cast to passed dtype float32");
  expect_error<RuntimeError>([] { linspace(0, 5, 4, kBool); }, "\"linspace_cpu\" not implemented for 'bool'");
  expect_error<RuntimeError>([] { linspace(0, 70000, 4, kHalf); }, "without overflow");
}

TEST(Factory, Logspace) {
  const std::vector<double> e = {  // torch.logspace(-1.3, 2.2, 9, dtype=torch.float64)
      0x1.9a9294b8536e9p-5, 0x1.19147b320d267p-3, 0x1.80db8540212cep-2, 0x1.0779af8d53768p+0,
      0x1.68c0c59ab1567p+1, 0x1.edf25268eb756p+2, 0x1.522882d598747p+4, 0x1.cf027488e5ed0p+5,
      0x1.3cfa880d5eb43p+7};
  EXPECT_EQ(as_double(logspace(-1.3, 2.2, 9, 10.0, kDouble)), e);
  EXPECT_EQ(as_double(logspace(0, 3, 4)), (std::vector<double>{1, 10, 100, 1000}));
  EXPECT_EQ(ints(logspace(0, 3, 4, 2.0, kInt32)), (std::vector<int64_t>{1, 2, 4, 8}));
  EXPECT_EQ(ints(logspace(2, -1, 5, 10.0, kInt8)), (std::vector<int64_t>{100, 17, 3, 0, 0}));
  EXPECT_EQ(ints(logspace(0, 1, 5, 10.0, kUInt8)), (std::vector<int64_t>{1, 1, 3, 5, 10}));
  EXPECT_EQ(as_double(logspace(2, 5, 1)), (std::vector<double>{100}));
  EXPECT_EQ(logspace(0, complex128(1, 1), 3).dtype(), kComplexFloat);
  expect_error<RuntimeError>([] { logspace(0, 3, -4); }, "number of steps must be non-negative");
  expect_error<RuntimeError>([] { logspace(0, 3, 4, 10.0, kHalf); }, "\"logspace_cpu\" not implemented for 'float16'");
  expect_error<RuntimeError>([] { logspace(0, 3, 4, 10.0, kBool); }, "not implemented for 'bool'");
}

TEST(Factory, Eye) {
  Tensor i3 = eye(3);
  EXPECT_EQ(i3.dtype(), kFloat);
  EXPECT_EQ(as_double(i3), (std::vector<double>{1, 0, 0, 0, 1, 0, 0, 0, 1}));
  Tensor b = eye(2, 3, kBool);
  EXPECT_EQ(b.sizes(), IntArrayRef({2, 3}));
  EXPECT_EQ(ints(b), (std::vector<int64_t>{1, 0, 0, 0, 1, 0}));
  EXPECT_EQ(ints(eye(3, 2, kInt64)), (std::vector<int64_t>{1, 0, 0, 1, 0, 0}));
  EXPECT_EQ(eye(0, 3).sizes(), IntArrayRef({0, 3}));
  Tensor c = eye(2, std::nullopt, kComplexDouble);
  EXPECT_EQ(c.data_ptr<complex128>()[3], complex128(1, 0));
  expect_error<RuntimeError>([] { eye(-1); }, "n must be greater or equal to 0, got -1");
  expect_error<RuntimeError>([] { eye(2, -1); }, "m must be greater or equal to 0, got -1");
}

TEST(Factory, MetaDevice) {
  Tensor a = arange(0, 1, 0.1, kMeta);
  EXPECT_TRUE(a.is_meta());
  EXPECT_EQ(a.sizes(), IntArrayRef({10}));
  EXPECT_EQ(a.dtype(), kFloat);
  EXPECT_EQ(linspace(0, 1, 7, TensorOptions(kDouble).device(kMeta)).sizes(), IntArrayRef({7}));
  EXPECT_EQ(logspace(0, 1, 3, 2.0, kMeta).sizes(), IntArrayRef({3}));
  Tensor e = eye(2, 5, kMeta);
  EXPECT_TRUE(e.is_meta());
  EXPECT_EQ(e.sizes(), IntArrayRef({2, 5}));
  expect_error<RuntimeError>([] { arange(0, 1, 0, kMeta); }, "step must be nonzero");
}

TEST(Factory, LargeFillsDoNotDependOnThreads) {
  const int64_t n = 1 << 20;
  auto make = [&] {
    return std::vector<Tensor>{arange(0, n, 1, kFloat) , arange(-2.5, 1e5, 0.0931, kDouble),
                               linspace(-7.3, 11.9, n, kFloat), linspace(-7.3, 11.9, n, kDouble),
                               logspace(-2, 2, n / 8, 10.0, kDouble), arange(n, kInt64)};
  };
  std::vector<Tensor> one, two;
  {
    Threads t(1);
    one = make();
  }
  {
    Threads t(2);
    two = make();
  }
  for (size_t i = 0; i < one.size(); ++i) {
    ASSERT_EQ(one[i].nbytes(), two[i].nbytes());
    EXPECT_EQ(std::memcmp(one[i].data_ptr(), two[i].data_ptr(), one[i].nbytes()), 0) << "tensor " << i;
  }
  // Spot checks of the closed forms.
  EXPECT_EQ(one[0].data_ptr<float>()[n - 1], static_cast<float>(n - 1));
  EXPECT_EQ(one[5].data_ptr<int64_t>()[12345], 12345);
  EXPECT_EQ(one[3].data_ptr<double>()[n - 1], 11.9);
}
