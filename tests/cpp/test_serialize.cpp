// ember::save / ember::load (include/ember/serialize.h): bit-exact round trips, the
// safetensors layout, containers, atomic writes and hostile input.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "ember/nn.h"
#include "ember/random.h"
#include "ember/serialize.h"
#include "test_util.h"

using namespace ember;
using ember::testing::expect_error;
namespace fs = std::filesystem;

namespace {

// The tensor's elements as bytes, in logical order.
std::string ser_bytes(const Tensor& t) {
  Tensor c = t.contiguous();
  return std::string(static_cast<const char*>(c.data_ptr()), c.nbytes());
}

// A tensor whose bytes are random but start with bit patterns that matter for floats: NaN
// with a payload, -0.0, infinities, the largest finite and the smallest subnormal.
Tensor ser_from_bits(IntArrayRef shape, ScalarType dtype, unsigned seed) {
  Tensor t = empty(shape, dtype);
  std::vector<unsigned char> b(t.nbytes());
  std::mt19937 gen(seed);
  for (auto& x : b) x = static_cast<unsigned char>(gen());
  const size_t w = dtype == kComplexFloat ? 4 : dtype == kComplexDouble ? 8 : itemsize(dtype);
  const auto put = [&](size_t i, uint64_t bits) {
    if ((i + 1) * w <= b.size()) std::memcpy(b.data() + i * w, &bits, w);  // little-endian
  };
  const std::vector<uint64_t> specials =
      dtype == kHalf ? std::vector<uint64_t>{0x7e01, 0x8000, 0x7c00, 0xfc00, 0x7bff, 0x0001}
      : dtype == kBFloat16 ? std::vector<uint64_t>{0x7fc1, 0x8000, 0x7f80, 0xff80, 0x7f7f, 0x0001}
      : (w == 4 && is_floating_point(dtype)) || dtype == kComplexFloat
          ? std::vector<uint64_t>{0x7fc00123, 0x80000000, 0x7f800000, 0xff800000, 0x7f7fffff, 0x00000001}
      : w == 8 && (is_floating_point(dtype) || dtype == kComplexDouble)
          ? std::vector<uint64_t>{0x7ff8000000000123, 0x8000000000000000, 0x7ff0000000000000,
                                  0xfff0000000000000, 0x7fefffffffffffff, 0x0000000000000001}
          : std::vector<uint64_t>{0, ~uint64_t{0}, uint64_t{1} << (8 * w - 1), (uint64_t{1} << (8 * w - 1)) - 1};
  for (size_t i = 0; i < specials.size(); ++i) put(i, specials[i]);
  if (dtype == kBool)
    for (auto& x : b) x &= 1;
  std::memcpy(t.data_ptr(), b.data(), b.size());
  return t;
}

constexpr ScalarType kAllDtypes[] = {kBool, kUInt8, kInt8,  kInt16,  kInt32,        kInt64,
                                     kHalf, kBFloat16, kFloat, kDouble, kComplexFloat, kComplexDouble};

// A safetensors file from a header text and the data buffer (padded as the spec requires).
std::string ser_file(std::string header, const std::string& data = "") {
  header.append((8 - header.size() % 8) % 8, ' ');
  const uint64_t n = header.size();
  std::string out(8, '\0');
  std::memcpy(out.data(), &n, 8);
  return out + header + data;
}

Value ser_load(const std::string& bytes) { return load_from_bytes(bytes, "test.safetensors"); }

// A fresh, empty directory under the system's temporary directory.
struct ser_TempDir {
  fs::path path;
  ser_TempDir() {
    path = fs::temp_directory_path() / ("ember_serialize_test_" + std::to_string(getpid()) + "_" +
                                        std::to_string(std::random_device()()));
    fs::create_directories(path);
  }
  ~ser_TempDir() {
    std::error_code ec;
    fs::permissions(path, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(path, ec);
  }
  std::vector<std::string> listing() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(path)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }
};

std::string ser_read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace

TEST(Serialize, EveryDtypeRoundTripsBitExactly) {
  unsigned seed = 1;
  for (ScalarType dtype : kAllDtypes) {
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    Value d = Value::dict();
    d.set("vector", ser_from_bits({7}, dtype, seed++));
    d.set("scalar", ser_from_bits({}, dtype, seed++));
    d.set("empty", empty({0, 3}, dtype));
    d.set("transposed", ser_from_bits({3, 4}, dtype, seed++).t());  // non-contiguous
    const Value back = ser_load(save_to_bytes(d));
    ASSERT_EQ(back.entries().size(), 4u);
    for (const auto& [key, value] : d.entries()) {
      const Tensor& a = value.to_tensor();
      const Tensor& b = back.at(key).to_tensor();
      EXPECT_EQ(b.dtype(), dtype);
      EXPECT_EQ(b.sizes(), a.sizes());
      EXPECT_TRUE(b.is_contiguous());
      EXPECT_EQ(ser_bytes(b), ser_bytes(a)) << key.to_string();
    }
  }
}

TEST(Serialize, FlatStateDictIsPlainSafetensors) {
  Value d = Value::dict();
  d.set("weight", arange(6, kFloat).view({2, 3}));
  d.set("bias", tensor<int64_t>({-1, 2}));
  const std::string bytes = save_to_bytes(d);
  uint64_t n = 0;
  std::memcpy(&n, bytes.data(), 8);
  EXPECT_EQ(n % 8, 0u);
  const std::string header = bytes.substr(8, n);
  EXPECT_NE(header.find(R"("weight":{"data_offsets":[0,24],"dtype":"F32","shape":[2,3]})"), std::string::npos)
      << header;
  EXPECT_NE(header.find(R"("bias":{"data_offsets":[24,40],"dtype":"I64","shape":[2]})"), std::string::npos);
  EXPECT_EQ(header.find("ember.structure"), std::string::npos);
  EXPECT_EQ(bytes.size(), 8 + n + 40);
  // The data follow in the dict's order, which is the order they come back in.
  const Value back = ser_load(bytes);
  EXPECT_EQ(back.entries()[0].first, Value("weight"));
  EXPECT_EQ(back.entries()[1].first, Value("bias"));
  // A flat dict written by another tool in any data order.
  const Value other = ser_load(ser_file(
      R"({"b":{"dtype":"U8","shape":[1],"data_offsets":[1,2]},"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})",
      "\x07\x09"));
  EXPECT_EQ(other.entries()[0].first, Value("a"));
  EXPECT_EQ(other.at("b").to_tensor().item<int64_t>(), 9);
}

TEST(Serialize, NestedContainersKeepTheirShape) {
  Tensor shared = randn({2, 2});
  Tensor other = arange(3, kInt32);
  Value state = Value::dict();
  state.set(0, Value::dict({{"step", 3}, {"exp_avg", shared}}));
  state.set(1, Value::dict({{"step", 4}, {"exp_avg", other}}));
  Value group = Value::dict({{"lr", 0.1},
                             {"betas", Value::tuple({0.9, 0.999})},
                             {"params", Value::list({0, 1})},
                             {"nesterov", false},
                             {"name", Value()},
                             {"eps", -0.0},
                             {"max", std::numeric_limits<double>::infinity()},
                             {"nan", std::nan("")},
                             {"big", std::numeric_limits<int64_t>::min()},
                             {"text", "héllo \"quoted\""}});
  Value obj = Value::dict({{"state", state}, {"param_groups", Value::list({group})}, {"alias", shared}});
  obj.set(Value(), "none key");
  obj.set(2.5, "float key");
  obj.set(true, "bool key");
  const Value back = ser_load(save_to_bytes(obj));

  const Value& s = back.at("state");
  EXPECT_EQ(s.entries()[0].first, Value(0));  // int keys stay ints
  EXPECT_EQ(s.at(1).at("step").to_int(), 4);
  const Tensor& t0 = s.at(0).at("exp_avg").to_tensor();
  EXPECT_EQ(ser_bytes(t0), ser_bytes(shared));
  EXPECT_TRUE(back.at("alias").to_tensor().is_same(t0));  // one tensor object, stored once
  const Value& g = back.at("param_groups").items()[0];
  EXPECT_TRUE(g.at("betas").is_tuple());
  EXPECT_TRUE(g.at("params").is_list());
  EXPECT_EQ(g.at("betas"), Value::tuple({0.9, 0.999}));
  EXPECT_EQ(g.at("nesterov"), Value(false));
  EXPECT_TRUE(g.at("name").is_none());
  EXPECT_TRUE(std::signbit(g.at("eps").to_double()));
  EXPECT_EQ(g.at("max").to_double(), std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isnan(g.at("nan").to_double()));
  EXPECT_EQ(g.at("big").to_int(), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(g.at("text").to_string(), "héllo \"quoted\"");
  EXPECT_EQ(back.at(Value()).to_string(), "none key");
  EXPECT_EQ(back.at(2.5).to_string(), "float key");
  EXPECT_EQ(back.at(true).to_string(), "bool key");
  // Plain values and a bare tensor at the top.
  EXPECT_EQ(ser_load(save_to_bytes(Value(42))), Value(42));
  EXPECT_EQ(ser_bytes(ser_load(save_to_bytes(Value(other))).to_tensor()), ser_bytes(other));
  // A dict of tensors holding one tensor twice is not flat: sharing is kept.
  const Value twice = ser_load(save_to_bytes(Value::dict({{"a", other}, {"b", other}})));
  EXPECT_TRUE(twice.at("a").to_tensor().is_same(twice.at("b").to_tensor()));
  // A repeated key (Value dicts allow it, and a file may hold it) is kept, not flattened away.
  Value dup = Value::dict();
  dup.entries().emplace_back(Value("a"), Value(other));
  dup.entries().emplace_back(Value("a"), Value(shared));
  const Value dup_back = ser_load(save_to_bytes(dup));
  ASSERT_EQ(dup_back.entries().size(), 2u);
  EXPECT_EQ(ser_bytes(dup_back.entries()[1].second.to_tensor()), ser_bytes(shared));
  // Views of one storage are separate tensors.
  const Value views = ser_load(save_to_bytes(Value::list({shared, shared.select(0, 0)})));
  EXPECT_FALSE(views.items()[0].to_tensor().is_alias_of(views.items()[1].to_tensor()));
}

TEST(Serialize, RefusesWhatItCannotSave) {
  expect_error<ValueError>([] { save_to_bytes(Value(Tensor())); }, "is undefined");
  expect_error<ValueError>([] { save_to_bytes(Value(empty({2}, TensorOptions(kMeta)))); }, "meta device");
  expect_error<ValueError>([] { save_to_bytes(Value("\xff\xfe")); }, "valid UTF-8");
  Value deep = Value::list();
  for (int i = 0; i < 150; ++i) deep = Value::list({deep});
  expect_error<ValueError>([&] { save_to_bytes(deep); }, "nested deeper than 100");
  expect_error<TypeError>([] { save_to_bytes(Value::dict({{Value::list(), 1}})); }, "dict keys must be");
}

TEST(Serialize, FilesAreReplacedAtomically) {
  ser_TempDir dir;
  const std::string path = (dir.path / "model.safetensors").string();
  const Tensor w = randn({4, 5});
  save(Value::dict({{"w", w}}), path);
  EXPECT_EQ(ser_bytes(load(path).at("w").to_tensor()), ser_bytes(w));
  const std::string before = ser_read_file(path);
  // An object that cannot be saved leaves the old file and nothing else.
  expect_error<ValueError>([&] { save(Value::list({w, Tensor()}), path); }, "undefined");
  EXPECT_EQ(ser_read_file(path), before);
  EXPECT_EQ(dir.listing(), std::vector<std::string>{"model.safetensors"});
  // A failing rename (the target is a directory) removes the written temporary file.
  fs::create_directories(dir.path / "taken" / "inside");
  expect_error<RuntimeError>([&] { save(Value(1), (dir.path / "taken").string()); }, "cannot replace the file");
  EXPECT_EQ(dir.listing(), (std::vector<std::string>{"model.safetensors", "taken"}));
  // A missing directory.
  expect_error<RuntimeError>([&] { save(Value(1), (dir.path / "missing" / "x.safetensors").string()); },
                             "cannot create a temporary file");
  EXPECT_FALSE(fs::exists(dir.path / "missing"));
  // A directory nobody may write to (root ignores permission bits, but not sysfs).
  fs::path readonly = dir.path / "readonly";
  if (geteuid() == 0) {
    readonly = "/sys";
  } else {
    fs::create_directories(readonly);
    fs::permissions(readonly, fs::perms::owner_read | fs::perms::owner_exec);
  }
  expect_error<RuntimeError>([&] { save(Value(1), (readonly / "x.safetensors").string()); },
                             "cannot create a temporary file");
  EXPECT_FALSE(fs::exists(readonly / "x.safetensors"));
  // Loading a missing file names it.
  expect_error<RuntimeError>([&] { load((dir.path / "nope").string()); }, "ember.load: " + (dir.path / "nope").string());
}

TEST(Serialize, EveryTruncationIsRefused) {
  const std::string bytes = save_to_bytes(Value::dict({{"a", Value::tuple({arange(3, kInt16), 1.5})}}));
  for (size_t n = 0; n < bytes.size(); ++n)
    expect_error<RuntimeError>([&] { ser_load(bytes.substr(0, n)); }, "ember.load: test.safetensors: ");
}

TEST(Serialize, HostileHeadersAreRefused) {
  const auto refused = [](const std::string& bytes, const std::string& msg) {
    expect_error<RuntimeError>([&] { ser_load(bytes); }, msg);
  };
  const auto f32 = [](const std::string& shape, const std::string& offsets) {
    return R"({"t":{"dtype":"F32","shape":)" + shape + R"(,"data_offsets":)" + offsets + "}}";
  };
  std::string huge(8, '\xff');
  refused(huge, "exceeds the limit");
  refused(std::string("\x10\0\0\0\0\0\0\0{}", 10), "runs past the end");
  refused(ser_file("[]"), "does not start with '{'");
  refused(ser_file("{"), "header is not valid JSON");
  refused(ser_file("{\"\xff\":1}"), "not valid JSON");
  refused(ser_file(R"({"a":{"b":{"c":{"d":{"e":{"f":{"g":{"h":{"i":{}}}}}}}}}})"), "deeper than");
  refused(ser_file(R"({"t":1})"), "tensor 't': expected an object, got number");
  refused(ser_file(R"({"t":{"shape":[],"data_offsets":[0,4]}})"), "missing \"dtype\"");
  refused(ser_file(R"({"t":{"dtype":7,"shape":[],"data_offsets":[0,4]}})"), "dtype is number");
  refused(ser_file(R"({"t":{"dtype":"U16","shape":[],"data_offsets":[0,2]}})", "ab"), "unsupported dtype \"U16\"");
  refused(ser_file(f32("[-1]", "[0,0]")), "negative number -1");
  refused(ser_file(f32("[1.5]", "[0,4]")), "where an integer belongs");
  refused(ser_file(f32("3", "[0,12]")), "shape is number");
  refused(ser_file(f32("[4294967296,4294967296]", "[0,0]")), "overflows 64-bit sizes");
  refused(ser_file(f32("[0,4294967296,4294967296]", "[0,0]")), "overflows 64-bit sizes");
  refused(ser_file(f32("[2305843009213693952]", "[0,0]")), "overflows 64-bit byte counts");
  std::string dims = "[1";
  for (int i = 0; i < 64; ++i) dims += ",1";
  refused(ser_file(f32(dims + "]", "[0,4]"), "abcd"), "65 dimensions, more than 64");
  refused(ser_file(f32("[1]", "[0]"), "abcd"), "array of two integers");
  refused(ser_file(f32("[1]", "[4,0]"), "abcd"), "end before they begin");
  refused(ser_file(f32("[2]", "[0,4]"), "abcd"), "hold 4 bytes, but F32 of shape [2] needs 8");
  refused(ser_file(f32("[1]", "[0,4]"), "abcdabcd"), "cover 4 bytes but the data buffer holds 8");
  refused(ser_file(f32("[1]", "[4,8]"), "abcdabcd"), "a hole in the data buffer");
  refused(ser_file(f32("[1]", "[0,4]"), "ab"), "cover 4 bytes but the data buffer holds 2");
  refused(ser_file(R"({"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},"b":{"dtype":"U8","shape":[2],"data_offsets":[1,3]}})",
                   "abc"),
          "overlaps");
  refused(ser_file(R"({"t":{"dtype":"BOOL","shape":[2],"data_offsets":[0,2]}})", std::string("\x01\x02", 2)),
          "byte other than 0 and 1");
  refused(ser_file(R"({"__metadata__":[]})"), "__metadata__ is not an object");
  refused(ser_file(R"({"__metadata__":{"format":1}})"), "value 'format' is not a string");
  const auto with_structure = [](const std::string& s) {
    return ser_file(R"({"__metadata__":{"ember.structure":)" + s +
                        R"(},"x":{"dtype":"U8","shape":[],"data_offsets":[0,1]}})",
                    "\x05");
  };
  refused(with_structure(R"("[")"), "ember.structure is not valid JSON");
  refused(with_structure(R"("[{\"tensor\":\"y\"}]")"), "missing tensor 'y'");
  refused(with_structure(R"("[1]")"), "tensor 'x' is not referenced");
  refused(with_structure(R"("{\"foo\":1}")"), "unexpected object");
  refused(with_structure(R"("{\"dict\":[[1]]}")"), "not a [key, value] pair");
  refused(with_structure(R"("{\"dict\":[[[],{\"tensor\":\"x\"}]]}")"), "unexpected array");
  refused(with_structure(R"("[18446744073709551615,{\"tensor\":\"x\"}]")"), "does not fit in 64 bits");
  refused(with_structure(R"("{\"tuple\":1}")"), "not an array");
  refused(with_structure(R"("{\"tensor\":\"x\",\"tuple\":[]}")"), "other members");
  std::string deep = "\"" + std::string(101, '[') + "{\\\"tensor\\\":\\\"x\\\"}" + std::string(101, ']') + "\"";
  refused(with_structure(deep), "nested deeper than 100");
  std::string deeper = "\"" + std::string(5000, '[') + std::string(5000, ']') + "\"";
  refused(with_structure(deeper), "nests JSON deeper than");
  // The same file with a sound structure loads.
  const Value ok = ser_load(with_structure(R"("[{\"tensor\":\"x\"},{\"float\":\"-inf\"}]")"));
  EXPECT_EQ(ok.items()[0].to_tensor().item<int64_t>(), 5);
  EXPECT_EQ(ok.items()[1].to_double(), -std::numeric_limits<double>::infinity());
}

TEST(Serialize, ModuleStateDictRoundTrip) {
  ser_TempDir dir;
  const std::string path = (dir.path / "net.safetensors").string();
  manual_seed(11);
  auto net = std::make_shared<nn::Sequential>(nn::Linear(4, 8), std::make_shared<nn::Tanh>(), nn::Linear(8, 2));
  save(*net, path);
  manual_seed(12);
  auto fresh = std::make_shared<nn::Sequential>(nn::Linear(4, 8), std::make_shared<nn::Tanh>(), nn::Linear(8, 2));
  const Tensor x = randn({3, 4});
  EXPECT_NE(ser_bytes((*fresh)(x)), ser_bytes((*net)(x)));
  const nn::LoadStateDictResult r = load(*fresh, path);
  EXPECT_TRUE(r.missing_keys.empty() && r.unexpected_keys.empty());
  EXPECT_EQ(ser_bytes((*fresh)(x)), ser_bytes((*net)(x)));
  EXPECT_EQ(to_state_dict(load(path)).keys(), net->state_dict().keys());
  expect_error<RuntimeError>([] { to_state_dict(Value::dict({{"a", 1}})); }, "dict of str to Tensor");
}

// The checked-in files that tests/python/test_serialize.py reads (cpp_written.safetensors) and
// writes with its own spec-based writer (python_written.safetensors). They are also seeds of
// the fuzzing corpus. EMBER_UPDATE_FIXTURES=1 rewrites the first.
TEST(Serialize, CrossLanguageFixtures) {
  const fs::path dir = EMBER_FUZZ_CORPUS_DIR;
  Tensor exp_avg = arange(6, kFloat).view({2, 3}).mul(0.5);
  Value state = Value::dict();
  state.set(0, Value::dict({{"step", 3}, {"exp_avg", exp_avg}}));
  state.set(1, Value::dict({{"step", 3}, {"exp_avg", tensor<int64_t>({-1, int64_t{1} << 40})}}));
  Value group = Value::dict({{"lr", 0.01}, {"betas", Value::tuple({0.9, 0.999})}, {"params", Value::list({0, 1})},
                             {"amsgrad", false}, {"foreach", Value()}});
  const Value obj = Value::dict({{"state", state},
                                 {"param_groups", Value::list({group})},
                                 {"shared", exp_avg},
                                 {"half", tensor<double>({1.5, -0.0, std::numeric_limits<double>::infinity()}).to(kHalf)},
                                 {"bf16", tensor<double>({1.0, -2.0}).to(kBFloat16)},
                                 {"z", tensor(std::vector<std::complex<double>>{{1.0, 2.0}}).to(kComplexFloat)}});
  const std::string bytes = save_to_bytes(obj);
  if (std::getenv("EMBER_UPDATE_FIXTURES")) std::ofstream(dir / "cpp_written.safetensors", std::ios::binary) << bytes;
  EXPECT_EQ(ser_read_file(dir / "cpp_written.safetensors"), bytes);

  const Value py = load((dir / "python_written.safetensors").string());
  std::vector<std::string> keys;
  for (const auto& [k, v] : py.entries()) keys.push_back(k.to_string());
  EXPECT_EQ(keys, (std::vector<std::string>{"weight", "mask", "ids", "half", "scalar", "empty", "z"}));
  EXPECT_EQ(ember::testing::values<float>(py.at("weight").to_tensor()),
            (std::vector<float>{0, 0.25, 0.5, 0.75, 1, 1.25}));
  EXPECT_EQ(py.at("weight").to_tensor().sizes(), IntArrayRef({2, 3}));
  EXPECT_EQ(ember::testing::values<bool>(py.at("mask").to_tensor()), (std::vector<bool>{true, false, true}));
  EXPECT_EQ(ember::testing::values<int64_t>(py.at("ids").to_tensor()),
            (std::vector<int64_t>{1, -2, int64_t{1} << 40}));
  EXPECT_EQ(ser_bytes(py.at("half").to_tensor()), ser_bytes(obj.at("half").to_tensor()));
  EXPECT_EQ(py.at("scalar").to_tensor().dim(), 0);
  EXPECT_EQ(py.at("scalar").to_tensor().item<double>(), 2.5);
  EXPECT_EQ(py.at("empty").to_tensor().sizes(), IntArrayRef({0, 4}));
  EXPECT_EQ(py.at("empty").to_tensor().dtype(), kInt16);
  EXPECT_EQ(ser_bytes(py.at("z").to_tensor()), ser_bytes(obj.at("z").to_tensor()));
}
