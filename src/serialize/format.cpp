// The safetensors header (JSON) and the ember.structure encoding of containers; the only
// file that includes nlohmann/json (a heavy header, kept out of everything else).
#include "serialize/format.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "ember/ops.h"

namespace ember::serialize_detail {
namespace {

// nlohmann::json keeps objects in a std::map: parsing n keys costs O(n log n), where the
// insertion-ordered variant's linear key search would let a hostile header take O(n^2).
// Order is not lost: tensors come back in data-offset order, which is the order save wrote.
using Json = nlohmann::json;

static_assert(std::endian::native == std::endian::little,
              "safetensors data is little-endian; a big-endian host needs byte swapping here");

constexpr const char* kMetadataKey = "__metadata__";
constexpr const char* kStructureKey = "ember.structure";
// JSON nesting allowed while parsing: the header itself needs 3 levels; a container of
// ember.structure takes at most 3 (a dict is {"dict": [[key, value], ...]}).
constexpr int kMaxHeaderJsonDepth = 8;
constexpr int kMaxStructureJsonDepth = 3 * kMaxDepth + 4;

struct DtypeCode {
  ScalarType type;
  const char* code;
};
// The safetensors codes. "C64" is in the spec since safetensors 0.7; "C128" (two F64s per
// element) is Ember's extension, as the spec has no complex128.
constexpr DtypeCode kDtypeCodes[] = {
    {kBool, "BOOL"}, {kUInt8, "U8"},   {kInt8, "I8"},    {kInt16, "I16"},         {kInt32, "I32"},
    {kInt64, "I64"}, {kHalf, "F16"},   {kBFloat16, "BF16"}, {kFloat, "F32"},      {kDouble, "F64"},
    {kComplexFloat, "C64"}, {kComplexDouble, "C128"},
};

const char* dtype_code(ScalarType t) {
  for (const auto& d : kDtypeCodes)
    if (d.type == t) return d.code;
  EMBER_FAIL(TypeError, "ember.save: cannot save tensors of dtype ", t);
}

std::optional<ScalarType> dtype_from_code(const std::string& s) {
  for (const auto& d : kDtypeCodes)
    if (s == d.code) return d.type;
  return std::nullopt;
}

// Text from the input for an error message: non-ASCII and control bytes as \xNN, since a
// parser's message may quote a broken UTF-8 sequence (Python needs messages to be UTF-8).
std::string printable(std::string_view s, size_t max = 80) {
  std::string out;
  for (const char c : s.substr(0, max)) {
    const auto b = static_cast<unsigned char>(c);
    if (b >= 0x20 && b < 0x7f) {
      out += c;
    } else {
      const char* hex = "0123456789abcdef";
      out += {'\\', 'x', hex[b >> 4], hex[b & 15]};
    }
  }
  if (s.size() > max) out += "...";
  return out;
}

// A dict's key or a tensor's name as a path component ("state.0.exp_avg").
std::string path_part(const Value& key) {
  return key.is_string() ? key.to_string() : key.repr();
}

// ---------------------------------------------------------------- encoding
class Encoder {
 public:
  Archive run(const Value& obj) {
    Json meta = Json::object();
    meta["format"] = "pt";  // what transformers' safetensors loader expects of PyTorch files
    if (is_flat_state_dict(obj)) {
      for (const auto& [key, value] : obj.entries()) add_tensor(key.to_string(), value.to_tensor());
    } else {
      meta[kStructureKey] = dump(encode_value(obj, 0, ""));
    }
    header_[kMetadataKey] = std::move(meta);

    Archive a;
    std::string text = dump(header_);
    // Pad with spaces (JSON whitespace) so that the data starts 8-byte aligned.
    text.append((8 - (8 + text.size()) % 8) % 8, ' ');
    const uint64_t n = text.size();
    a.header.resize(8);
    std::memcpy(a.header.data(), &n, 8);
    a.header += text;
    a.tensors = std::move(tensors_);
    a.data_bytes = offset_;
    return a;
  }

 private:
  // A dict of distinct string -> distinct tensor is written as a plain safetensors file. (A
  // Value dict may repeat a key, as a hostile file can; that one keeps its structure.)
  static bool is_flat_state_dict(const Value& obj) {
    if (!obj.is_dict()) return false;
    std::unordered_set<const TensorImpl*> seen;
    std::unordered_set<std::string_view> keys;
    for (const auto& [key, value] : obj.entries()) {
      if (!key.is_string() || key.to_string() == kMetadataKey || !value.is_tensor()) return false;
      if (!value.to_tensor().defined() || !seen.insert(value.to_tensor().impl()).second) return false;
      if (!keys.insert(key.to_string()).second) return false;
    }
    return true;
  }

  static std::string dump(const Json& j) {
    try {
      return j.dump();
    } catch (const Json::type_error& e) {  // strict UTF-8 checking of every string
      EMBER_FAIL(ValueError, "ember.save: strings and dict keys must be valid UTF-8 (", printable(e.what(), 200), ")");
    }
  }

  // The name under which a tensor is stored; a tensor object met again keeps its first name.
  std::string add_tensor(const std::string& path, const Tensor& t) {
    EMBER_CHECK(t.defined(), ValueError, "ember.save: the tensor at '", path, "' is undefined");
    if (auto it = names_.find(t.impl()); it != names_.end()) return it->second;
    EMBER_CHECK(!t.is_meta(), ValueError, "ember.save: the tensor at '", path,
                "' is on the meta device and has no data");
    std::string name = path.empty() ? "tensor" : path;
    for (int k = 1; used_names_.count(name) || name == kMetadataKey; ++k) name = path + "~" + std::to_string(k);
    Tensor c = t.detach().to(kCPU).contiguous();
    const uint64_t begin = offset_;
    offset_ += c.nbytes();
    header_[name] = {{"dtype", dtype_code(c.dtype())},
                     {"shape", std::vector<int64_t>(c.sizes().begin(), c.sizes().end())},
                     {"data_offsets", {begin, offset_}}};
    tensors_.push_back(std::move(c));
    used_names_.insert(name);
    names_.emplace(t.impl(), name);
    return name;
  }

  static Json encode_scalar(const Value& v) {
    switch (v.kind()) {
      case Value::Kind::None: return nullptr;
      case Value::Kind::Bool: return v.to_bool();
      case Value::Kind::Int: return v.to_int();
      case Value::Kind::Double: {
        const double d = v.to_double();
        if (std::isfinite(d)) return d;  // shortest round-trip text; -0.0 stays -0.0
        return {{"float", std::isnan(d) ? "nan" : d > 0 ? "inf" : "-inf"}};
      }
      case Value::Kind::String: return v.to_string();
      default: EMBER_FAIL(TypeError, "ember.save: dict keys must be None, bool, int, float or str, not ",
                          Value::kind_name(v.kind()));
    }
  }

  Json encode_value(const Value& v, int depth, const std::string& path) {
    const auto child = [&](const std::string& part) { return path.empty() ? part : path + "." + part; };
    switch (v.kind()) {
      case Value::Kind::Tensor: return {{"tensor", add_tensor(path, v.to_tensor())}};
      case Value::Kind::List:
      case Value::Kind::Tuple:
      case Value::Kind::Dict: break;
      default: return encode_scalar(v);
    }
    EMBER_CHECK(depth < kMaxDepth, ValueError, "ember.save: containers nested deeper than ", kMaxDepth,
                " levels at '", path, "'");
    Json items = Json::array();
    if (v.is_dict()) {
      for (const auto& [key, value] : v.entries())
        items.push_back(Json::array({encode_scalar(key), encode_value(value, depth + 1, child(path_part(key)))}));
      return {{"dict", std::move(items)}};
    }
    const auto& elems = v.items();
    for (size_t i = 0; i < elems.size(); ++i)
      items.push_back(encode_value(elems[i], depth + 1, child(std::to_string(i))));
    if (v.is_tuple()) return {{"tuple", std::move(items)}};
    return items;
  }

  Json header_ = Json::object();
  std::vector<Tensor> tensors_;
  uint64_t offset_ = 0;
  std::unordered_map<const TensorImpl*, std::string> names_;
  std::unordered_set<std::string> used_names_;
};

// ---------------------------------------------------------------- decoding
struct DepthExceeded {};

struct Entry {
  std::string name;
  ScalarType dtype;
  std::vector<int64_t> shape;
  uint64_t begin, end;
};

class Decoder {
 public:
  Decoder(const Source& src, const std::string& name) : src_(src), name_(name) {}

  Value run() {
    const uint64_t size = src_.size();
    if (size < 8) fail("too short (", size, " bytes) for the 8-byte header length");
    uint64_t n = 0;
    src_.read(0, &n, 8);
    if (n > kMaxHeaderBytes) fail("header length ", n, " exceeds the limit of ", kMaxHeaderBytes, " bytes");
    if (n > size - 8) fail("header length ", n, " runs past the end of the file (", size, " bytes)");
    std::string text(n, '\0');
    src_.read(8, text.data(), n);
    if (text.empty() || text[0] != '{') fail("the header does not start with '{'");
    const Json header = parse(text, kMaxHeaderJsonDepth, "header");
    if (!header.is_object()) fail("the header is not a JSON object");

    std::vector<Entry> entries;
    const Json* structure_text = nullptr;
    for (const auto& [key, info] : header.items()) {
      if (key == kMetadataKey) {
        if (!info.is_object()) fail("__metadata__ is not an object");
        for (const auto& [mk, mv] : info.items())
          if (!mv.is_string()) fail("__metadata__ value '", printable(mk), "' is not a string");
        if (auto it = info.find(kStructureKey); it != info.end()) structure_text = &*it;
      } else {
        entries.push_back(parse_entry(key, info));
      }
    }
    check_layout(entries, size - 8 - n);
    // Parsed (and so checked) before any tensor is allocated.
    Json structure;
    if (structure_text)
      structure = parse(structure_text->get_ref<const std::string&>(), kMaxStructureJsonDepth, kStructureKey);

    std::unordered_map<std::string, Tensor> tensors;
    Value flat = Value::dict();
    for (const Entry& e : entries) {
      Tensor t = read_tensor(e, 8 + n);
      if (!structure_text) flat.entries().emplace_back(Value(e.name), Value(t));
      tensors.emplace(e.name, std::move(t));
    }
    if (!structure_text) return flat;
    std::unordered_set<std::string> used;
    Value result = decode_value(structure, 0, tensors, used);
    for (const Entry& e : entries)
      if (!used.count(e.name)) fail("tensor '", printable(e.name), "' is not referenced by ", kStructureKey);
    return result;
  }

 private:
  template <class... Args>
  [[noreturn]] void fail(const Args&... args) const {
    detail::raise<RuntimeError>("ember.load: ", name_, ": ", args...);
  }

  Json parse(const std::string& text, int max_depth, const char* what) const {
    // The callback sees every value with its nesting depth; deep input is refused early.
    const auto limit = [max_depth](int depth, Json::parse_event_t, Json&) {
      if (depth > max_depth) throw DepthExceeded{};
      return true;
    };
    try {
      return Json::parse(text, limit);
    } catch (const DepthExceeded&) {
      fail(what, " nests JSON deeper than ", max_depth, " levels");
    } catch (const Json::exception& e) {  // syntax errors and ill-formed UTF-8
      fail(what, " is not valid JSON: ", printable(e.what(), 200));
    }
  }

  // A JSON unsigned integer, or a failure naming the field.
  uint64_t unsigned_field(const Json& j, const std::string& tensor, const char* field) const {
    if (j.is_number_unsigned()) return j.get<uint64_t>();
    if (j.is_number_integer())
      fail("tensor '", printable(tensor), "': ", field, " holds the negative number ", j.get<int64_t>());
    fail("tensor '", printable(tensor), "': ", field, " holds ", j.type_name(), " where an integer belongs");
  }

  Entry parse_entry(const std::string& name, const Json& info) const {
    if (!info.is_object()) fail("tensor '", printable(name), "': expected an object, got ", info.type_name());
    const auto field = [&](const char* key) -> const Json& {
      auto it = info.find(key);
      if (it == info.end()) fail("tensor '", printable(name), "': missing \"", key, "\"");
      return *it;
    };
    Entry e{name, kFloat, {}, 0, 0};
    const Json& dtype = field("dtype");
    if (!dtype.is_string()) fail("tensor '", printable(name), "': dtype is ", dtype.type_name(), ", not a string");
    auto st = dtype_from_code(dtype.get_ref<const std::string&>());
    if (!st)
      fail("tensor '", printable(name), "': unsupported dtype \"", printable(dtype.get_ref<const std::string&>()), "\"");
    e.dtype = *st;

    const Json& shape = field("shape");
    if (!shape.is_array()) fail("tensor '", printable(name), "': shape is ", shape.type_name(), ", not an array");
    if (shape.size() > static_cast<size_t>(kMaxDims))
      fail("tensor '", printable(name), "': ", shape.size(), " dimensions, more than ", kMaxDims);
    // numel, and the extent with zero-size dims counted as 1 (what strides reach), must fit.
    uint64_t numel = 1, extent = 1;
    constexpr uint64_t kMax = std::numeric_limits<int64_t>::max();
    for (const Json& d : shape) {
      const uint64_t v = unsigned_field(d, name, "shape");
      if (v > kMax || __builtin_mul_overflow(extent, std::max<uint64_t>(v, 1), &extent) || extent > kMax)
        fail("tensor '", printable(name), "': shape ", shape.dump(), " overflows 64-bit sizes");
      numel *= v;
      e.shape.push_back(static_cast<int64_t>(v));
    }
    uint64_t nbytes = 0;
    if (__builtin_mul_overflow(numel, itemsize(e.dtype), &nbytes) || nbytes > kMax)
      fail("tensor '", printable(name), "': shape ", shape.dump(), " overflows 64-bit byte counts");

    const Json& offsets = field("data_offsets");
    if (!offsets.is_array() || offsets.size() != 2)
      fail("tensor '", printable(name), "': data_offsets must be an array of two integers");
    e.begin = unsigned_field(offsets[0], name, "data_offsets");
    e.end = unsigned_field(offsets[1], name, "data_offsets");
    if (e.end < e.begin)
      fail("tensor '", printable(name), "': data_offsets [", e.begin, ", ", e.end, "] end before they begin");
    if (e.end - e.begin != nbytes)
      fail("tensor '", printable(name), "': data_offsets [", e.begin, ", ", e.end, "] hold ", e.end - e.begin,
           " bytes, but ",
           dtype.get_ref<const std::string&>(), " of shape ", shape.dump(), " needs ", nbytes);
    return e;
  }

  // The safetensors rule: the tensors tile the data buffer exactly, no holes, no overlap.
  void check_layout(std::vector<Entry>& entries, uint64_t buffer) const {
    std::sort(entries.begin(), entries.end(),
              [](const Entry& a, const Entry& b) { return a.begin != b.begin ? a.begin < b.begin : a.end < b.end; });
    uint64_t expect = 0;
    for (const Entry& e : entries) {
      if (e.begin < expect)
        fail("tensor '", printable(e.name), "' overlaps the previous tensor's data (starts at ", e.begin, ", before ",
             expect, ")");
      if (e.begin > expect)
        fail("a hole in the data buffer before tensor '", printable(e.name), "' (bytes ", expect, " to ", e.begin, ")");
      expect = e.end;
    }
    if (expect != buffer) fail("the tensors cover ", expect, " bytes but the data buffer holds ", buffer);
  }

  Tensor read_tensor(const Entry& e, uint64_t data_start) const {
    Tensor t = empty(e.shape, e.dtype);
    const uint64_t nbytes = e.end - e.begin;
    if (nbytes == 0) return t;
    src_.read(data_start + e.begin, t.data_ptr(), nbytes);
    if (e.dtype == kBool) {  // any other byte is not a valid bool (undefined behaviour in kernels)
      const auto* p = static_cast<const unsigned char*>(t.data_ptr());
      if (std::any_of(p, p + nbytes, [](unsigned char b) { return b > 1; }))
        fail("BOOL tensor '", printable(e.name), "' holds a byte other than 0 and 1");
    }
    return t;
  }

  Value decode_scalar(const Json& j) const {
    switch (j.type()) {
      case Json::value_t::null: return Value();
      case Json::value_t::boolean: return Value(j.get<bool>());
      case Json::value_t::number_integer: return Value(j.get<int64_t>());
      case Json::value_t::number_unsigned: {
        const uint64_t u = j.get<uint64_t>();
        if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
          fail(kStructureKey, ": integer ", u, " does not fit in 64 bits");
        return Value(static_cast<int64_t>(u));
      }
      case Json::value_t::number_float: return Value(j.get<double>());
      case Json::value_t::string: return Value(j.get<std::string>());
      case Json::value_t::object: {
        auto it = j.find("float");
        if (j.size() == 1 && it != j.end() && it->is_string()) {
          const auto& s = it->get_ref<const std::string&>();
          if (s == "nan") return Value(std::numeric_limits<double>::quiet_NaN());
          if (s == "inf") return Value(std::numeric_limits<double>::infinity());
          if (s == "-inf") return Value(-std::numeric_limits<double>::infinity());
        }
        break;
      }
      default: break;
    }
    fail(kStructureKey, ": unexpected ", j.type_name(), " ", printable(j.dump()));
  }

  Value decode_value(const Json& j, int depth, const std::unordered_map<std::string, Tensor>& tensors,
                     std::unordered_set<std::string>& used) const {
    if (j.is_array() || (j.is_object() && (j.contains("tuple") || j.contains("dict")))) {
      if (depth >= kMaxDepth) fail(kStructureKey, ": containers nested deeper than ", kMaxDepth, " levels");
      if (j.is_array()) return decode_items(Value::list(), j, depth, tensors, used);
      if (j.size() != 1) fail(kStructureKey, ": a tuple or dict object has other members");
      if (auto it = j.find("tuple"); it != j.end()) return decode_items(Value::tuple(), *it, depth, tensors, used);
      const Json& items = j["dict"];
      if (!items.is_array()) fail(kStructureKey, ": \"dict\" holds ", items.type_name(), ", not an array");
      Value d = Value::dict();
      d.entries().reserve(items.size());
      for (const Json& kv : items) {
        if (!kv.is_array() || kv.size() != 2) fail(kStructureKey, ": a dict entry is not a [key, value] pair");
        Value key = decode_scalar(kv[0]);
        d.entries().emplace_back(std::move(key), decode_value(kv[1], depth + 1, tensors, used));
      }
      return d;
    }
    if (j.is_object() && j.contains("tensor")) {
      const Json& ref = j["tensor"];
      if (j.size() != 1 || !ref.is_string()) fail(kStructureKey, ": malformed tensor reference ", printable(j.dump()));
      const auto& name = ref.get_ref<const std::string&>();
      auto it = tensors.find(name);
      if (it == tensors.end()) fail(kStructureKey, ": refers to the missing tensor '", printable(name), "'");
      used.insert(name);
      return Value(it->second);  // the same tensor object wherever it is referenced
    }
    return decode_scalar(j);
  }

  Value decode_items(Value out, const Json& items, int depth, const std::unordered_map<std::string, Tensor>& tensors,
                     std::unordered_set<std::string>& used) const {
    if (!items.is_array()) fail(kStructureKey, ": \"tuple\" holds ", items.type_name(), ", not an array");
    out.items().reserve(items.size());
    for (const Json& item : items) out.items().push_back(decode_value(item, depth + 1, tensors, used));
    return out;
  }

  const Source& src_;
  const std::string& name_;
};

}  // namespace

Archive encode(const Value& obj) { return Encoder().run(obj); }

Value decode(const Source& src, const std::string& name) { return Decoder(src, name).run(); }

}  // namespace ember::serialize_detail
