// Accuracy of the vectorized float math (kernels/vec_math.h) against double precision, for
// every instruction set this CPU can run (each ISA's kernel is called directly from its stub
// slot, whatever EMBER_CPU_CAPABILITY says), and the in-register bfloat16/float16
// conversions of the unary and binary kernels against rounding the float results.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "backends/cpu/stubs.h"
#include "ember/ops.h"
#include "ops/iter.h"
#include "test_util.h"

using namespace ember;
using ember::testing::values;
using cpu::UnaryOp;

namespace {


// The ISAs whose kernels this CPU can run.
std::vector<int> runnable_isas() {
  std::vector<int> isas;
  for (int c = 0; c <= static_cast<int>(cpu::capability()); ++c)
    if (cpu::unary_stub.table[c]) isas.push_back(c);
  return isas;
}

Tensor run_unary(cpu::UnaryFn fn, const Tensor& x, UnaryOp op, const cpu::UnaryParams& p = {}) {
  ElementwiseIter it("test", Tensor(), {x}, IterConfig{});
  fn(it, op, p);
  it.finish();
  return it.output();
}

// Float inputs spread over the whole finite range (every 16411th bit pattern, both signs),
// plus the special values.
std::vector<float> float_sweep() {
  std::vector<float> v;
  for (uint64_t b = 0; b < 0x7f800000u; b += 16411) {
    float f;
    const auto u = static_cast<uint32_t>(b);
    std::memcpy(&f, &u, 4);
    v.push_back(f);
    v.push_back(-f);
  }
  const float inf = std::numeric_limits<float>::infinity();
  for (float s : {0.f, -0.f, inf, -inf, std::numeric_limits<float>::quiet_NaN(), 1e-45f, -1e-45f,
                  std::numeric_limits<float>::max(), std::numeric_limits<float>::min()})
    v.push_back(s);
  return v;
}

double gelu_ref(double x) { return 0.5 * x * std::erfc(-x / std::sqrt(2.0)); }
double gelu_tanh_ref(double x) {
  const double u = std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x);
  return x / (1 + std::exp(-2 * u));  // 0.5 x (1 + tanh u) without its cancellation
}

struct AccuracyCase {
  UnaryOp op;
  double (*ref)(double);
  double max_rel;  // largest relative error allowed where the result is a normal float
  // Below this x a factor of the result is itself subnormal (silu's sigmoid): the error is
  // bounded by |x| times that factor's (1e-43) instead.
  double subnormal_factor_below = -std::numeric_limits<double>::infinity();
};

const AccuracyCase kCases[] = {
    {UnaryOp::Exp, [](double x) { return std::exp(x); }, 2.5e-7},
    {UnaryOp::Log, [](double x) { return std::log(x); }, 2.5e-7},
    {UnaryOp::Tanh, [](double x) { return std::tanh(x); }, 2.5e-7},
    {UnaryOp::Sigmoid, [](double x) { return 1 / (1 + std::exp(-x)); }, 3e-7},
    {UnaryOp::Erf, [](double x) { return std::erf(x); }, 2.5e-7},
    {UnaryOp::Erfc, [](double x) { return std::erfc(x); }, 6e-7},
    {UnaryOp::Gelu, gelu_ref, 6.5e-7},  // a fit (2e-7), e^x and three roundings near x = 0
    {UnaryOp::Silu, [](double x) { return x / (1 + std::exp(-x)); }, 3e-7, -87.3},
};

}  // namespace

// Every runnable ISA: the maximum relative error against double over the whole float range
// (where the exact result is a normal float), exact special values (NaN stays NaN, overflow
// gives inf, results that round to 0 give 0).
TEST(PointwiseAccuracy, FloatMathAgainstDouble) {
  const std::vector<float> in = float_sweep();
  const Tensor x = tensor(in);
  for (int isa : runnable_isas()) {
    for (const AccuracyCase& c : kCases) {
      const std::vector<float> got = values<float>(run_unary(cpu::unary_stub.table[isa], x, c.op));
      double worst = 0;
      float worst_x = 0;
      for (size_t i = 0; i < in.size(); ++i) {
        const double want = c.ref(static_cast<double>(in[i]));
        const std::string ctx = std::string(cpu::capability_name(static_cast<cpu::Capability>(isa))) + " " +
                                cpu::unary_op_name(c.op) + "(" + std::to_string(in[i]) + ")";
        if (std::isnan(want)) {
          ASSERT_TRUE(std::isnan(got[i])) << ctx << " = " << got[i];
          continue;
        }
        if (std::abs(want) > std::numeric_limits<float>::max()) {
          ASSERT_EQ(got[i], static_cast<float>(want)) << ctx;
          continue;
        }
        if (std::abs(want) < std::numeric_limits<float>::min()) {
          // Subnormal results carry fewer bits: within 1e-43 (1e-37 for gelu's tail, whose
          // x/2 factor is applied after the rounding to a subnormal).
          ASSERT_LE(std::abs(got[i] - want), c.op == UnaryOp::Gelu ? 1e-37 : 1e-43) << ctx << " = " << got[i];
          continue;
        }
        if (in[i] < c.subnormal_factor_below) {
          ASSERT_LE(std::abs(got[i] - want), 1e-43 * std::abs(in[i])) << ctx << " = " << got[i];
          continue;
        }
        const double rel = std::abs(got[i] - want) / std::abs(want);
        if (rel > worst) {
          worst = rel;
          worst_x = in[i];
        }
      }
      EXPECT_LE(worst, c.max_rel) << cpu::capability_name(static_cast<cpu::Capability>(isa)) << " "
                                  << cpu::unary_op_name(c.op) << " worst at x = " << worst_x;
    }
  }
}

// The tanh form of gelu has the conditioning of its own formula (tanh of a rounded cubic), so
// it is checked over the range where its results are not vanishingly small.
TEST(PointwiseAccuracy, GeluTanhAgainstDouble) {
  std::vector<float> in;
  for (int i = -60000; i <= 60000; ++i) in.push_back(static_cast<float>(i) * 1e-4f);
  const Tensor x = tensor(in);
  for (int isa : runnable_isas()) {
    const auto got = values<float>(run_unary(cpu::unary_stub.table[isa], x, UnaryOp::GeluTanh));
    for (size_t i = 0; i < in.size(); ++i) {
      const double want = gelu_tanh_ref(in[i]);
      ASSERT_LE(std::abs(got[i] - want), 1e-5 * std::abs(want) + 1e-30) << isa << " x = " << in[i];
    }
  }
}

// bfloat16 and float16 compute through float and round once: the result must be exactly the
// float kernel's result rounded, for every ISA (the AVX builds convert in registers).
TEST(PointwiseAccuracy, ReducedFloatsRoundTheFloatResult) {
  std::vector<float> in;
  for (int i = 0; i < 5003; ++i) in.push_back(static_cast<float>(i % 1999) * 0.007f - 7.f);
  in.push_back(std::numeric_limits<float>::quiet_NaN());
  in.push_back(std::numeric_limits<float>::infinity());
  for (ScalarType dt : {kBFloat16, kHalf}) {
    const Tensor x = tensor(in).to(dt);
    const Tensor xf = x.to(kFloat);  // the exact inputs, as float
    for (int isa : runnable_isas()) {
      for (UnaryOp op : {UnaryOp::Exp, UnaryOp::Tanh, UnaryOp::Gelu, UnaryOp::Sigmoid, UnaryOp::Relu, UnaryOp::Neg}) {
        const Tensor got = run_unary(cpu::unary_stub.table[isa], x, op);
        ASSERT_EQ(got.dtype(), dt);
        const Tensor want = run_unary(cpu::unary_stub.table[isa], xf, op).to(dt);
        const auto gv = values<int64_t>(got.view(kInt16).to(kInt64));
        const auto wv = values<int64_t>(want.view(kInt16).to(kInt64));
        ASSERT_EQ(gv, wv) << cpu::unary_op_name(op) << " isa " << isa << " dtype " << dtype_name(dt);
      }
    }
  }
}

// The binary and ternary kernels' 16-bit paths (mul, add, addcmul) against float rounded
// once per op, for every ISA; also with a broadcast operand and a strided output.
TEST(PointwiseAccuracy, ReducedFloatBinaryAndTernary) {
  std::vector<float> a, b, c;
  for (int i = 0; i < 4099; ++i) {
    a.push_back(static_cast<float>(i % 977) * 0.013f - 6.f);
    b.push_back(static_cast<float>(i % 331) * -0.021f + 3.f);
    c.push_back(static_cast<float>(i % 101) * 0.5f - 20.f);
  }
  for (ScalarType dt : {kBFloat16, kHalf}) {
    const Tensor x = tensor(a).to(dt), y = tensor(b).to(dt), z = tensor(c).to(dt);
    for (int isa : runnable_isas()) {
      auto binary = [&](cpu::BinaryOp op, const Tensor& p, const Tensor& q) {
        ElementwiseIter it("test", Tensor(), {p, q}, IterConfig{});
        cpu::binary_stub.table[isa](it, op, 1);
        it.finish();
        return it.output();
      };
      const Tensor xf = x.to(kFloat), yf = y.to(kFloat), zf = z.to(kFloat);
      for (cpu::BinaryOp op : {cpu::BinaryOp::Mul, cpu::BinaryOp::Add, cpu::BinaryOp::Div}) {
        const auto got = values<int64_t>(binary(op, x, y).view(kInt16).to(kInt64));
        const auto want = values<int64_t>(binary(op, xf, yf).to(dt).view(kInt16).to(kInt64));
        ASSERT_EQ(got, want) << "binary op " << static_cast<int>(op) << " isa " << isa << " " << dtype_name(dt);
      }
      // A 0-dim operand (stride 0) goes through the broadcast fill of the conversion.
      const Tensor s = scalar_tensor(1.5, dt);
      ASSERT_EQ(values<int64_t>(binary(cpu::BinaryOp::Mul, x, s).view(kInt16).to(kInt64)),
                values<int64_t>(binary(cpu::BinaryOp::Mul, xf, s.to(kFloat)).to(dt).view(kInt16).to(kInt64)));
      // The AVX-512 build leaves the ternary kernels to the AVX2 one (CMakeLists.txt).
      if (!cpu::ternary_stub.table[isa]) continue;
      ElementwiseIter it("test", Tensor(), {z, x, y}, IterConfig{});
      cpu::ternary_stub.table[isa](it, cpu::TernaryOp::Addcmul, 1);
      it.finish();
      std::vector<float> want(a.size());
      const auto xv = values<float>(xf), yv = values<float>(yf), zv = values<float>(zf);
      for (size_t i = 0; i < a.size(); ++i) want[i] = zv[i] + xv[i] * yv[i];
      ASSERT_EQ(values<int64_t>(it.output().view(kInt16).to(kInt64)),
                values<int64_t>(tensor(want).to(dt).view(kInt16).to(kInt64)))
          << "addcmul isa " << isa << " " << dtype_name(dt);
    }
  }
}
