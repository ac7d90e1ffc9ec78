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

// As in torch, outputs that do not require grad (computed outside autograd) are left out of
// the Jacobian; with none that do, the floating outputs must not depend on the inputs.
TEST(Gradcheck, OutputsWithoutGrad) {
  Tensor x = leaf({0.5, -1.25, 2.0});
  GradcheckFunction with_detached = [](const std::vector<Tensor>& in) {
    return std::vector<Tensor>{exp(in[0]), mul(detach(in[0]), Scalar(3.0))};
  };
  GradcheckFunction constant = [](const std::vector<Tensor>& in) { return std::vector<Tensor>{sign(detach(in[0]))}; };
  GradcheckFunction moving = [](const std::vector<Tensor>& in) { return std::vector<Tensor>{detach(exp(in[0]))}; };
  for (bool fast : {false, true}) {
    GradcheckOptions o;
    o.fast_mode = fast;
    EXPECT_TRUE(gradcheck(with_detached, {x}, o));
    EXPECT_TRUE(gradcheck(constant, {x}, o));
    try {
      gradcheck(moving, {x}, o);
      ADD_FAILURE() << "no error";
    } catch (const GradcheckError& e) {
      EXPECT_NE(std::string(e.what()).find("Numerical gradient for function expected to be zero"), std::string::npos);
    }
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
