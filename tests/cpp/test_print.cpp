// Printing: Tensor::str() against strings taken from PyTorch 1.13's repr() of the same
// tensors (made with torch's functions of the same names), with "torch." replaced by "ember.".
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <sstream>

#include "ember/ops.h"
#include "ember/print.h"

using namespace ember;

namespace {

// Float constants under names of their own: ember_tests is a unity build, and test_util.h
// has double kNaN and kInf.
constexpr float kFloatNan = std::numeric_limits<float>::quiet_NaN();
constexpr float kFloatInf = std::numeric_limits<float>::infinity();

struct PrintCase {
  const char* name;
  std::function<Tensor()> make;
  const char* expected;
};

struct OptionCase {
  const char* name;
  std::function<void()> set;
  std::function<Tensor()> make;
  const char* expected;
};

// Restores the default print options however a test ends.
struct DefaultOptions {
  DefaultOptions() { set_printoptions({}, {}, {}, {}, "default"); }
  ~DefaultOptions() { set_printoptions({}, {}, {}, {}, "default"); }
};

}  // namespace

TEST(Print, MatchesTorchRepr) {
  DefaultOptions guard;
  const PrintCase cases[] = {
    {"float_basic", [] { return tensor({1.f, 2.f, 3.f}); },
     R"E(tensor([1., 2., 3.]))E"},
    {"float_frac", [] { return tensor({1.5f, -2.25f, 3.125f}); },
     R"E(tensor([ 1.5000, -2.2500,  3.1250]))E"},
    {"float_thirds", [] { return arange(6, kFloat) / 3; },
     R"E(tensor([0.0000, 0.3333, 0.6667, 1.0000, 1.3333, 1.6667]))E"},
    {"double_suffix", [] { return tensor({0.1, 0.2}); },
     R"E(tensor([0.1000, 0.2000], dtype=ember.float64))E"},
    {"int32", [] { return tensor({1, 2}, kInt32); },
     R"E(tensor([1, 2], dtype=ember.int32))E"},
    {"int64_arange", [] { return arange(10); },
     R"E(tensor([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]))E"},
    {"int8_neg", [] { return tensor(std::vector<int8_t>{-128, 5, 127}); },
     R"E(tensor([-128,    5,  127], dtype=ember.int8))E"},
    {"uint8", [] { return tensor(std::vector<uint8_t>{0, 200, 7}); },
     R"E(tensor([  0, 200,   7], dtype=ember.uint8))E"},
    {"bool", [] { return tensor({true, false, true}); },
     R"E(tensor([ True, False,  True]))E"},
    {"complex64", [] { return tensor({complex64(1, 2), complex64(-3.5, -0.5)}); },
     R"E(tensor([ 1.0000+2.0000j, -3.5000-0.5000j]))E"},
    {"complex128_sci", [] { return tensor({complex128(1e-6, 1), complex128(2e3, 0)}); },
     R"E(tensor([1.0000e-06+1.j, 2.0000e+03+0.j], dtype=ember.complex128))E"},
    {"half", [] { return tensor({0.5, 1.0, 65504.0}, kHalf); },
     R"E(tensor([5.0000e-01, 1.0000e+00, 6.5504e+04], dtype=ember.float16))E"},
    {"bfloat16", [] { return tensor({0.1, -2.5, 3.0}, kBFloat16); },
     R"E(tensor([ 0.1001, -2.5000,  3.0000], dtype=ember.bfloat16))E"},
    {"summarized_1d", [] { return arange(2000, kFloat); },
     R"E(tensor([0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 1.9970e+03, 1.9980e+03,
        1.9990e+03]))E"},
    {"summarized_1d_frac", [] { return arange(1500, kDouble) / 7; },
     R"E(tensor([0.0000e+00, 1.4286e-01, 2.8571e-01,  ..., 2.1386e+02, 2.1400e+02,
        2.1414e+02], dtype=ember.float64))E"},
    {"matrix", [] { return linspace(-1, 1, 12).view({3, 4}); },
     R"E(tensor([[-1.0000, -0.8182, -0.6364, -0.4545],
        [-0.2727, -0.0909,  0.0909,  0.2727],
        [ 0.4545,  0.6364,  0.8182,  1.0000]]))E"},
    {"cube", [] { return arange(24).view({2, 3, 4}); },
     R"E(tensor([[[ 0,  1,  2,  3],
         [ 4,  5,  6,  7],
         [ 8,  9, 10, 11]],

        [[12, 13, 14, 15],
         [16, 17, 18, 19],
         [20, 21, 22, 23]]]))E"},
    {"summarized_2d", [] { return (arange(2000, kFloat) / 3).view({40, 50}); },
     R"E(tensor([[0.0000e+00, 3.3333e-01, 6.6667e-01,  ..., 1.5667e+01, 1.6000e+01,
         1.6333e+01],
        [1.6667e+01, 1.7000e+01, 1.7333e+01,  ..., 3.2333e+01, 3.2667e+01,
         3.3000e+01],
        [3.3333e+01, 3.3667e+01, 3.4000e+01,  ..., 4.9000e+01, 4.9333e+01,
         4.9667e+01],
        ...,
        [6.1667e+02, 6.1700e+02, 6.1733e+02,  ..., 6.3233e+02, 6.3267e+02,
         6.3300e+02],
        [6.3333e+02, 6.3367e+02, 6.3400e+02,  ..., 6.4900e+02, 6.4933e+02,
         6.4967e+02],
        [6.5000e+02, 6.5033e+02, 6.5067e+02,  ..., 6.6567e+02, 6.6600e+02,
         6.6633e+02]]))E"},
    {"summarized_3d_int", [] { return arange(1200, kInt32).view({10, 12, 10}); },
     R"E(tensor([[[   0,    1,    2,  ...,    7,    8,    9],
         [  10,   11,   12,  ...,   17,   18,   19],
         [  20,   21,   22,  ...,   27,   28,   29],
         ...,
         [  90,   91,   92,  ...,   97,   98,   99],
         [ 100,  101,  102,  ...,  107,  108,  109],
         [ 110,  111,  112,  ...,  117,  118,  119]],

        [[ 120,  121,  122,  ...,  127,  128,  129],
         [ 130,  131,  132,  ...,  137,  138,  139],
         [ 140,  141,  142,  ...,  147,  148,  149],
         ...,
         [ 210,  211,  212,  ...,  217,  218,  219],
         [ 220,  221,  222,  ...,  227,  228,  229],
         [ 230,  231,  232,  ...,  237,  238,  239]],

        [[ 240,  241,  242,  ...,  247,  248,  249],
         [ 250,  251,  252,  ...,  257,  258,  259],
         [ 260,  261,  262,  ...,  267,  268,  269],
         ...,
         [ 330,  331,  332,  ...,  337,  338,  339],
         [ 340,  341,  342,  ...,  347,  348,  349],
         [ 350,  351,  352,  ...,  357,  358,  359]],

        ...,

        [[ 840,  841,  842,  ...,  847,  848,  849],
         [ 850,  851,  852,  ...,  857,  858,  859],
         [ 860,  861,  862,  ...,  867,  868,  869],
         ...,
         [ 930,  931,  932,  ...,  937,  938,  939],
         [ 940,  941,  942,  ...,  947,  948,  949],
         [ 950,  951,  952,  ...,  957,  958,  959]],

        [[ 960,  961,  962,  ...,  967,  968,  969],
         [ 970,  971,  972,  ...,  977,  978,  979],
         [ 980,  981,  982,  ...,  987,  988,  989],
         ...,
         [1050, 1051, 1052,  ..., 1057, 1058, 1059],
         [1060, 1061, 1062,  ..., 1067, 1068, 1069],
         [1070, 1071, 1072,  ..., 1077, 1078, 1079]],

        [[1080, 1081, 1082,  ..., 1087, 1088, 1089],
         [1090, 1091, 1092,  ..., 1097, 1098, 1099],
         [1100, 1101, 1102,  ..., 1107, 1108, 1109],
         ...,
         [1170, 1171, 1172,  ..., 1177, 1178, 1179],
         [1180, 1181, 1182,  ..., 1187, 1188, 1189],
         [1190, 1191, 1192,  ..., 1197, 1198, 1199]]], dtype=ember.int32))E"},
    {"sci_small", [] { return tensor({1e-5f, 1.0f, 1e5f}); },
     R"E(tensor([1.0000e-05, 1.0000e+00, 1.0000e+05]))E"},
    {"sci_int_mode", [] { return tensor({1e9f, 2e9f, -3.f}); },
     R"E(tensor([ 1.0000e+09,  2.0000e+09, -3.0000e+00]))E"},
    {"neg_zero", [] { return tensor({-0.f, 0.f, 1.f}); },
     R"E(tensor([-0., 0., 1.]))E"},
    {"neg_zero_frac", [] { return tensor({-0.f, 0.5f, -0.25f}); },
     R"E(tensor([-0.0000,  0.5000, -0.2500]))E"},
    {"nan_inf", [] { return tensor({kFloatNan, kFloatInf, -kFloatInf, 1.5f}); },
     R"E(tensor([   nan,    inf,   -inf, 1.5000]))E"},
    {"nan_int_mode", [] { return tensor({1.f, kFloatNan, 100.f}); },
     R"E(tensor([  1.,  nan, 100.]))E"},
    {"all_nan", [] { return tensor({kFloatNan, kFloatNan}); },
     R"E(tensor([nan, nan]))E"},
    {"scalar_float", [] { return scalar_tensor(3.5); },
     R"E(tensor(3.5000))E"},
    {"scalar_int", [] { return scalar_tensor(3); },
     R"E(tensor(3))E"},
    {"scalar_bool", [] { return scalar_tensor(true); },
     R"E(tensor(True))E"},
    {"scalar_complex", [] { return scalar_tensor(complex128(1.5, -2)); },
     R"E(tensor(1.5000-2.j))E"},
    {"scalar_int16", [] { return scalar_tensor(-7, kInt16); },
     R"E(tensor(-7, dtype=ember.int16))E"},
    {"empty_1d", [] { return zeros({0}); },
     R"E(tensor([]))E"},
    {"empty_2d", [] { return zeros({0, 3}); },
     R"E(tensor([], size=(0, 3)))E"},
    {"empty_int", [] { return zeros({0}, kInt64); },
     R"E(tensor([], dtype=ember.int64))E"},
    {"meta", [] { return empty({2, 3}, kMeta); },
     R"E(tensor(..., device='meta', size=(2, 3)))E"},
    {"meta_int", [] { return empty({4}, TensorOptions(kInt32).device(kMeta)); },
     R"E(tensor(..., device='meta', size=(4,), dtype=ember.int32))E"},
    {"meta_scalar", [] { return empty({}, TensorOptions(kDouble).device(kMeta)); },
     R"E(tensor(..., device='meta', size=(), dtype=ember.float64))E"},
    {"wrap_double", [] { return linspace(0, 1, 30, kDouble); },
     R"E(tensor([0.0000, 0.0345, 0.0690, 0.1034, 0.1379, 0.1724, 0.2069, 0.2414, 0.2759,
        0.3103, 0.3448, 0.3793, 0.4138, 0.4483, 0.4828, 0.5172, 0.5517, 0.5862,
        0.6207, 0.6552, 0.6897, 0.7241, 0.7586, 0.7931, 0.8276, 0.8621, 0.8966,
        0.9310, 0.9655, 1.0000], dtype=ember.float64))E"},
    {"wrap_int32_suffix", [] { return arange(100000, 100025, 1, kInt32); },
     R"E(tensor([100000, 100001, 100002, 100003, 100004, 100005, 100006, 100007, 100008,
        100009, 100010, 100011, 100012, 100013, 100014, 100015, 100016, 100017,
        100018, 100019, 100020, 100021, 100022, 100023, 100024],
       dtype=ember.int32))E"},
    {"summarized_complex", [] { return (arange(1200, kFloat) / 4).view({30, 40}).to(kComplexFloat); },
     R"E(tensor([[0.0000e+00+0.j, 2.5000e-01+0.j, 5.0000e-01+0.j,  ..., 9.2500e+00+0.j,
         9.5000e+00+0.j, 9.7500e+00+0.j],
        [1.0000e+01+0.j, 1.0250e+01+0.j, 1.0500e+01+0.j,  ..., 1.9250e+01+0.j,
         1.9500e+01+0.j, 1.9750e+01+0.j],
        [2.0000e+01+0.j, 2.0250e+01+0.j, 2.0500e+01+0.j,  ..., 2.9250e+01+0.j,
         2.9500e+01+0.j, 2.9750e+01+0.j],
        ...,
        [2.7000e+02+0.j, 2.7025e+02+0.j, 2.7050e+02+0.j,  ..., 2.7925e+02+0.j,
         2.7950e+02+0.j, 2.7975e+02+0.j],
        [2.8000e+02+0.j, 2.8025e+02+0.j, 2.8050e+02+0.j,  ..., 2.8925e+02+0.j,
         2.8950e+02+0.j, 2.8975e+02+0.j],
        [2.9000e+02+0.j, 2.9025e+02+0.j, 2.9050e+02+0.j,  ..., 2.9925e+02+0.j,
         2.9950e+02+0.j, 2.9975e+02+0.j]]))E"},
    {"large_range", [] { return tensor({1e-3f, 1.0f, 12345.678f}); },
     R"E(tensor([1.0000e-03, 1.0000e+00, 1.2346e+04]))E"},
    {"int_mode_width", [] { return tensor({100.f, -5.f}); },
     R"E(tensor([100.,  -5.]))E"},
    {"linspace_f64_sci", [] { return logspace(-10, 10, 5, 10.0, kDouble); },
     R"E(tensor([1.0000e-10, 1.0000e-05, 1.0000e+00, 1.0000e+05, 1.0000e+10],
       dtype=ember.float64))E"},
  };
  for (const PrintCase& c : cases) EXPECT_EQ(c.make().str(), c.expected) << "case " << c.name;
}

TEST(Print, PrintOptionsMatchTorch) {
  DefaultOptions guard;
  const OptionCase cases[] = {
    {"precision2", [] { set_printoptions(2); }, [] { return arange(6, kFloat) / 3; },
     R"E(tensor([0.00, 0.33, 0.67, 1.00, 1.33, 1.67]))E"},
    {"sci_forced", [] { set_printoptions({}, {}, {}, {}, {}, true); }, [] { return tensor({1.5f, 2.0f}); },
     R"E(tensor([1.5000e+00, 2.0000e+00]))E"},
    {"sci_off", [] { set_printoptions({}, {}, {}, {}, {}, false); }, [] { return tensor({1e-5f, 1.0f, 1e5f}); },
     R"E(tensor([    0.0000,     1.0000, 100000.0000]))E"},
    {"threshold5", [] { set_printoptions({}, 5.0); }, [] { return arange(10); },
     R"E(tensor([0, 1, 2,  ..., 7, 8, 9]))E"},
    {"edgeitems1", [] { set_printoptions({}, {}, 1); }, [] { return arange(2000).view({20, 100}); },
     R"E(tensor([[   0,  ...,   99],
        ...,
        [1900,  ..., 1999]]))E"},
    {"linewidth40", [] { set_printoptions({}, {}, {}, 40); }, [] { return linspace(0, 1, 12); },
     R"E(tensor([0.0000, 0.0909, 0.1818, 0.2727,
        0.3636, 0.4545, 0.5455, 0.6364,
        0.7273, 0.8182, 0.9091, 1.0000]))E"},
    {"short_profile", [] { set_printoptions({}, {}, {}, {}, "short"); }, [] { return arange(3000, kDouble) / 9; },
     R"E(tensor([0.00e+00, 1.11e-01,  ..., 3.33e+02, 3.33e+02], dtype=ember.float64))E"},
  };
  for (const OptionCase& c : cases) {
    set_printoptions({}, {}, {}, {}, "default");
    c.set();
    EXPECT_EQ(c.make().str(), c.expected) << "case " << c.name;
  }
}

TEST(Print, OptionsPersistAndSciModeResets) {
  DefaultOptions guard;
  set_printoptions(2, {}, {}, {}, {}, true);
  EXPECT_EQ(get_printoptions().precision, 2);
  EXPECT_EQ(get_printoptions().sci_mode, std::optional<bool>(true));
  set_printoptions({}, {}, 5);  // precision kept, sci_mode back to automatic (as torch)
  EXPECT_EQ(get_printoptions().precision, 2);
  EXPECT_EQ(get_printoptions().edgeitems, 5);
  EXPECT_FALSE(get_printoptions().sci_mode.has_value());
  set_printoptions({}, {}, {}, {}, "full");
  EXPECT_TRUE(std::isinf(get_printoptions().threshold));
  EXPECT_EQ(get_printoptions().precision, 4);
  EXPECT_THROW(set_printoptions({}, {}, {}, {}, "loud"), ValueError);
  EXPECT_THROW(set_printoptions(-1), ValueError);
}

TEST(Print, FullProfileDoesNotSummarize) {
  DefaultOptions guard;
  set_printoptions({}, {}, {}, {}, "full");
  const std::string s = arange(1500).str();
  EXPECT_EQ(s.find("..."), std::string::npos);
  EXPECT_NE(s.find("1499]"), std::string::npos);
}

TEST(Print, StreamAndViews) {
  DefaultOptions guard;
  std::ostringstream os;
  os << arange(4);
  EXPECT_EQ(os.str(), "tensor([0, 1, 2, 3])");
  // Non-contiguous views print their own elements.
  Tensor m = arange(6).view({2, 3});
  EXPECT_EQ(m.t().str(), "tensor([[0, 3],\n        [1, 4],\n        [2, 5]])");
  EXPECT_EQ(m.select(1, 2).str(), "tensor([2, 5])");
  EXPECT_EQ(Tensor().str(), "tensor(undefined)");
}

TEST(Print, DefaultDtypeDecidesTheSuffix) {
  DefaultOptions guard;
  set_default_dtype(kDouble);
  const std::string d = tensor({0.5, 1.5}).str();
  const std::string f = tensor({0.5f, 1.5f}).str();
  const std::string c = tensor({complex128(1, 1)}).str();
  set_default_dtype(kFloat);
  EXPECT_EQ(d, "tensor([0.5000, 1.5000])");
  EXPECT_EQ(f, "tensor([0.5000, 1.5000], dtype=ember.float32)");
  EXPECT_EQ(c, "tensor([1.+1.j])");
}
