// gradcheck / gradgradcheck (include/ember/gradcheck.h): they pass on correct derivatives and
// name the output, input and both values on a wrong one, in slow and fast mode.
#include <gtest/gtest.h>

#include <string>

#include "ember/gradcheck.h"
#include "ember/ops.h"

namespace ember::gradcheck_test {

using namespace ember::autograd;

Tensor leaf(std::vector<double> v) { return set_requires_grad(tensor(v, kDouble)); }

struct WrongSquare : Function<WrongSquare> {
  static Tensor forward(AutogradContext*, const Tensor& x) { return mul(x, x); }
  static std::vector<Tensor> backward(AutogradContext*, std::vector<Tensor> g) { return {g[0]}; }  // should be 2 x g
};

TEST(Gradcheck, PassesOnCorrectDerivatives) {
  Tensor x = leaf({0.5, -1.25, 2.0}), y = leaf({1.5, 0.25, -0.75});
  GradcheckFunction f = [](const std::vector<Tensor>& in) { return std::vector<Tensor>{add(mul(tanh(in[0]), in[1]), exp(in[0]))}; };
  for (bool fast : {false, true}) {
    GradcheckOptions o;
    o.fast_mode = fast;
    EXPECT_TRUE(gradcheck(f, {x, y}, o));
    EXPECT_TRUE(gradgradcheck(f, {x, y}, std::nullopt, o));
  }
}

TEST(Gradcheck, Complex) {
  Tensor z = set_requires_grad(to_dtype(tensor(std::vector<double>{1.0, -0.5}, kDouble), kComplexDouble));
  z = set_requires_grad(detach(add(z, mul(ones_like(z), Scalar(std::complex<double>(0, 0.75))))));
  GradcheckFunction f = [](const std::vector<Tensor>& in) { return std::vector<Tensor>{add(abs(mul(in[0], in[0])), exp(in[0]))}; };
  GradcheckFunction g = [](const std::vector<Tensor>& in) { return std::vector<Tensor>{mul(mul(in[0], in[0]), conj(in[0]))}; };
  for (bool fast : {false, true}) {
    GradcheckOptions o;
    o.fast_mode = fast;
    EXPECT_TRUE(gradcheck(f, {z}, o));
    EXPECT_TRUE(gradgradcheck(g, {z}, std::nullopt, o, true));
  }
}

TEST(Gradcheck, WrongBackwardFails) {
  Tensor x = leaf({1.0, 2.0, 3.0});
  GradcheckFunction f = [](const std::vector<Tensor>& in) { return std::vector<Tensor>{WrongSquare::apply(in[0])}; };
  for (bool fast : {false, true}) {
    GradcheckOptions o;
    o.fast_mode = fast;
    try {
      gradcheck(f, {x}, o);
      ADD_FAILURE() << "no error";
    } catch (const GradcheckError& e) {
      std::string m = e.what();
      EXPECT_NE(m.find("Jacobian mismatch for output 0 with respect to input 0"), std::string::npos) << m;
      EXPECT_NE(m.find("numerical:"), std::string::npos) << m;
      EXPECT_NE(m.find("analytical:"), std::string::npos) << m;
      if (!fast) {  // d(x^2)/dx at 1
        EXPECT_NE(m.find("numerical:2\nanalytical:1"), std::string::npos) << m;
      }
    }
    o.raise_exception = false;
    EXPECT_FALSE(gradcheck(f, {x}, o));
  }
  EXPECT_THROW(gradcheck(f, {tensor(std::vector<double>{1.0}, kDouble)}), ValueError);
}

}  // namespace ember::gradcheck_test
