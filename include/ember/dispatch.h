// The dispatcher: every op is declared once (schema, tags) and gets kernels per key.
//
// A call collects the key sets of its tensor arguments, adds the thread-local included keys,
// removes the excluded ones, and runs the kernel of the highest key. A key without a kernel
// for the op uses the key's boxed fallback if it has one; a layer key without either is
// skipped; a backend key without either uses the op's composite kernel, if any.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <typeinfo>
#include <variant>
#include <vector>

#include "ember/dispatch_key.h"
#include "ember/tensor.h"

namespace ember {

// ---------------------------------------------------------------- boxed values
struct None {};
class Generator;
class IValue {
 public:
  using Value = std::variant<None, Tensor, std::vector<Tensor>, Scalar, int64_t, double, bool,
                             std::vector<int64_t>, std::vector<double>, std::string, ScalarType, Device,
                             Generator*>;
  IValue() = default;
  template <typename T>
  IValue(T&& v) : v_(std::forward<T>(v)) {}  // NOLINT

  bool is_none() const { return std::holds_alternative<None>(v_); }
  bool is_tensor() const { return std::holds_alternative<Tensor>(v_); }
  bool is_tensor_list() const { return std::holds_alternative<std::vector<Tensor>>(v_); }
  Tensor& tensor() { return std::get<Tensor>(v_); }
  const Tensor& tensor() const { return std::get<Tensor>(v_); }
  std::vector<Tensor>& tensor_list() { return std::get<std::vector<Tensor>>(v_); }
  template <typename T>
  T& get() { return std::get<T>(v_); }
  template <typename T>
  bool holds() const { return std::holds_alternative<T>(v_); }
  Value& value() { return v_; }
  const Value& value() const { return v_; }

 private:
  Value v_;
};
using Stack = std::vector<IValue>;

// ---------------------------------------------------------------- schemas
enum class Tag : uint32_t {
  Pointwise = 1, Reduction = 2, View = 4, Inplace = 8, Random = 16, Nondeterministic = 32,
  Factory = 64,
  // Python exposure (python/bindings/generic.cpp): only as a Tensor method, only as an
  // ember.* function, or not at all. In-place ops (name ending in '_') are methods only.
  MethodOnly = 128, FunctionOnly = 512, Internal = 256,
};
constexpr uint32_t operator|(Tag a, Tag b) { return static_cast<uint32_t>(a) | static_cast<uint32_t>(b); }
constexpr uint32_t operator|(uint32_t a, Tag b) { return a | static_cast<uint32_t>(b); }

struct Argument {
  std::string name;
  std::string type;  // "Tensor", "Tensor?", "Tensor[]", "Scalar", "int", "int[]", "float", ...
  std::optional<std::string> default_value;  // as written in the schema
  bool kwarg_only = false;
  bool is_write = false;  // Tensor(a!): mutated in place
  bool is_tensor() const { return type.rfind("Tensor", 0) == 0; }
};

// Parsed from "name.overload(Tensor self, *, Scalar alpha=1) -> Tensor".
struct Schema {
  std::string name;      // "add"
  std::string overload;  // "Tensor" ("" when none)
  std::vector<Argument> arguments;
  std::vector<Argument> returns;
  std::string full_name() const { return overload.empty() ? name : name + "." + overload; }
  std::string str() const;
};
Schema parse_schema(std::string_view text);  // ValueError on malformed text

// ---------------------------------------------------------------- kernels
class OpEntry;
// A kernel in boxed form: arguments on the stack in, results on the stack out.
using BoxedKernel = void (*)(const OpEntry& op, DispatchKeySet ks, Stack& stack);

// Calls an unboxed kernel with its arguments taken from the stack, results pushed back.
using StackCaller = void (*)(void* unboxed, Stack& stack);

struct KernelFunction {
  void* unboxed = nullptr;          // Ret(*)(Args...) of the op's signature, or null
  BoxedKernel boxed = nullptr;      // a kernel written against the stack (a fallback, a layer)
  StackCaller from_stack = nullptr;  // the boxed form of `unboxed`: one adapter per signature
  explicit operator bool() const { return unboxed || boxed; }
  bool has_boxed_form() const { return boxed || from_stack; }
  void call_boxed(const OpEntry& op, DispatchKeySet ks, Stack& stack) const {
    if (boxed) boxed(op, ks, stack);
    else from_stack(unboxed, stack);
  }
};

class OpEntry {
 public:
  explicit OpEntry(std::string name) : name_(std::move(name)) {}
  const std::string& name() const { return name_; }
  const Schema& schema() const { return schema_; }
  uint32_t tags() const { return tags_; }
  bool has_tag(Tag t) const { return (tags_ & static_cast<uint32_t>(t)) != 0; }
  bool is_defined() const { return defined_; }
  const KernelFunction& kernel(DispatchKey k) const { return kernels_[static_cast<int>(k)]; }
  const KernelFunction& composite() const { return composite_; }
  const std::type_info* signature() const { return signature_; }
  // Ops are numbered as they are defined; bindings try overloads in this order.
  int definition_order() const { return definition_order_; }

  // The kernel that serves key set ks; also returns the key it was chosen for.
  // Throws NotImplementedError naming the op and backend when nothing serves it.
  const KernelFunction& resolve(DispatchKeySet ks, DispatchKey* chosen) const;
  // Boxed call on an explicit key set (fallbacks use this to redispatch).
  void call_boxed(DispatchKeySet ks, Stack& stack) const;

 private:
  friend class Dispatcher;
  std::string name_;
  Schema schema_;
  uint32_t tags_ = 0;
  bool defined_ = false;
  int definition_order_ = 0;
  const std::type_info* signature_ = nullptr;
  KernelFunction kernels_[kNumDispatchKeys];
  KernelFunction composite_;  // works on every backend by calling other ops
};

class Dispatcher {
 public:
  static Dispatcher& get();
  // Entries are never freed, so pointers to them stay valid.
  OpEntry& entry(std::string_view full_name);
  const OpEntry* find(std::string_view full_name) const;
  std::vector<const OpEntry*> all_ops() const;

  void define(std::string_view schema, uint32_t tags, const std::type_info& sig);
  void set_kernel(std::string_view op, DispatchKey k, KernelFunction kf, const std::type_info& sig);
  void set_composite(std::string_view op, KernelFunction kf, const std::type_info& sig);
  // A boxed kernel used for every op that has no kernel of its own at key k.
  void set_fallback(DispatchKey k, BoxedKernel fallback);
  const KernelFunction& fallback_kernel(DispatchKey k) const { return fallbacks_[static_cast<int>(k)]; }
  // Forgets a kernel or fallback (tests and backend unloading).
  void clear_kernel(std::string_view op, DispatchKey k);

 private:
  Dispatcher() = default;
  KernelFunction fallbacks_[kNumDispatchKeys] = {};
};

// ---------------------------------------------------------------- boxing
namespace detail {
template <typename T> struct Boxer;  // to_ivalue / from_ivalue for each argument type

template <> struct Boxer<Tensor> {
  static IValue box(const Tensor& t) { return IValue(t); }
  static Tensor unbox(IValue& v) { return v.is_none() ? Tensor() : v.tensor(); }
};
template <> struct Boxer<std::optional<Tensor>> {
  static IValue box(const std::optional<Tensor>& t) {
    return t && t->defined() ? IValue(*t) : IValue(None{});
  }
  static std::optional<Tensor> unbox(IValue& v) {
    if (v.is_none()) return std::nullopt;
    return v.tensor();
  }
};
template <> struct Boxer<TensorList> {
  static IValue box(TensorList l) { return IValue(l.vec()); }
  static TensorList unbox(IValue& v) { return TensorList(v.tensor_list()); }
};
// Tensor?[] (index lists): boxed as a tensor list with undefined tensors for None. Unboxing
// yields an owning holder that converts to the ArrayRef for the duration of the call.
struct OptionalTensorListHolder {
  std::vector<std::optional<Tensor>> items;
  operator ArrayRef<std::optional<Tensor>>() const { return items; }  // NOLINT
};
template <> struct Boxer<ArrayRef<std::optional<Tensor>>> {
  static IValue box(ArrayRef<std::optional<Tensor>> l) {
    std::vector<Tensor> v;
    v.reserve(l.size());
    for (const auto& t : l) v.push_back(t ? *t : Tensor());
    return IValue(std::move(v));
  }
  static OptionalTensorListHolder unbox(IValue& v) {
    OptionalTensorListHolder h;
    if (v.is_none()) return h;
    h.items.reserve(v.tensor_list().size());
    for (const Tensor& t : v.tensor_list())
      h.items.push_back(t.defined() ? std::optional<Tensor>(t) : std::nullopt);
    return h;
  }
};
template <> struct Boxer<std::vector<Tensor>> {
  static IValue box(const std::vector<Tensor>& l) { return IValue(l); }
  static std::vector<Tensor> unbox(IValue& v) { return v.tensor_list(); }
};
template <> struct Boxer<IntArrayRef> {
  static IValue box(IntArrayRef l) { return IValue(l.vec()); }
  static IntArrayRef unbox(IValue& v) { return IntArrayRef(v.get<std::vector<int64_t>>()); }
};
template <> struct Boxer<ArrayRef<double>> {
  static IValue box(ArrayRef<double> l) { return IValue(l.vec()); }
  static ArrayRef<double> unbox(IValue& v) { return ArrayRef<double>(v.get<std::vector<double>>()); }
};
// Generator? arguments: None (the default generator) is a null pointer.
template <> struct Boxer<Generator*> {
  static IValue box(Generator* g) { return g ? IValue(g) : IValue(None{}); }
  static Generator* unbox(IValue& v) { return v.is_none() ? nullptr : v.get<Generator*>(); }
};
template <> struct Boxer<std::string_view> {
  static IValue box(std::string_view s) { return IValue(std::string(s)); }
  static std::string_view unbox(IValue& v) { return v.get<std::string>(); }
};
template <typename T> struct Boxer<std::optional<T>> {
  static IValue box(const std::optional<T>& o) { return o ? Boxer<T>::box(*o) : IValue(None{}); }
  static std::optional<T> unbox(IValue& v) {
    if (v.is_none()) return std::nullopt;
    return Boxer<T>::unbox(v);
  }
};
template <typename T> struct Boxer {  // plain values held by IValue directly
  static IValue box(const T& v) { return IValue(v); }
  static T unbox(IValue& v) { return v.get<T>(); }
};

template <typename T>
using bare_t = std::remove_cv_t<std::remove_reference_t<T>>;

template <typename T> struct is_tensor_tuple : std::false_type {};
template <typename... T>
struct is_tensor_tuple<std::tuple<T...>> : std::bool_constant<(std::is_same_v<bare_t<T>, Tensor> && ...)> {};
// (Tensor&, Tensor&): several out= arguments returned by reference.
template <typename T> struct is_ref_tuple : std::false_type {};
template <typename... T>
struct is_ref_tuple<std::tuple<T...>> : std::bool_constant<(std::is_same_v<T, Tensor&> && ...)> {};

// Tuples of tensors take one stack slot per element.
template <typename Ret>
void push_result(Stack& s, Ret&& r) {
  using R = bare_t<Ret>;
  if constexpr (is_tensor_tuple<R>::value) {
    std::apply([&](auto&... t) { (s.emplace_back(t), ...); }, r);
  } else {
    s.push_back(Boxer<R>::box(r));
  }
}

template <typename Ret>
Ret pop_result(Stack& s) {
  using R = bare_t<Ret>;
  if constexpr (is_tensor_tuple<R>::value) {
    return [&]<size_t... I>(std::index_sequence<I...>) {
      return R{s[I].tensor()...};
    }(std::make_index_sequence<std::tuple_size_v<R>>{});
  } else {
    return Boxer<R>::unbox(s[0]);
  }
}

void check_signature(const OpEntry& op, const std::type_info& sig);

// Collects the dispatch keys of every tensor argument.
inline void collect_keys(DispatchKeySet&) {}
template <typename T, typename... Rest>
void collect_keys(DispatchKeySet& ks, const T& first, const Rest&... rest) {
  using B = bare_t<T>;
  if constexpr (std::is_same_v<B, Tensor>) {
    if (first.defined()) ks = ks | first.key_set();
  } else if constexpr (std::is_same_v<B, std::optional<Tensor>>) {
    if (first && first->defined()) ks = ks | first->key_set();
  } else if constexpr (std::is_same_v<B, TensorList> || std::is_same_v<B, std::vector<Tensor>>) {
    for (const Tensor& t : first)
      if (t.defined()) ks = ks | t.key_set();
  } else if constexpr (std::is_same_v<B, ArrayRef<std::optional<Tensor>>>) {
    for (const std::optional<Tensor>& t : first)
      if (t && t->defined()) ks = ks | t->key_set();
  }
  collect_keys(ks, rest...);
}

}  // namespace detail

// A handle to an op with its C++ signature; the front functions in ops.h use these.
template <typename Sig> class TypedOp;
template <typename Ret, typename... Args>
class TypedOp<Ret(Args...)> {
 public:
  explicit TypedOp(std::string_view name) : op_(&Dispatcher::get().entry(name)) {}
  const OpEntry& entry() const { return *op_; }

  Ret call(Args... args) const {
    DispatchKeySet ks;
    detail::collect_keys(ks, args...);
    const LocalDispatchKeySet& local = tls_local_dispatch_keys();
    ks = (ks | local.included) - local.excluded;
    return call_with_keys(ks, std::forward<Args>(args)...);
  }

  // Skip keys at or above `from` (used by layers that do not use guards).
  Ret redispatch(DispatchKeySet ks, Args... args) const {
    return call_with_keys(ks, std::forward<Args>(args)...);
  }

 private:
  Ret call_with_keys(DispatchKeySet ks, Args... args) const {
    DispatchKey chosen;
    const KernelFunction& k = op_->resolve(ks, &chosen);
    if (k.unboxed) return reinterpret_cast<Ret (*)(Args...)>(k.unboxed)(std::forward<Args>(args)...);
    return call_boxed_kernel(k, ks, std::forward<Args>(args)...);
  }

  Ret call_boxed_kernel(const KernelFunction& k, DispatchKeySet ks, Args... args) const {
    Stack stack;
    stack.reserve(sizeof...(Args));
    (stack.push_back(detail::Boxer<detail::bare_t<Args>>::box(args)), ...);
    k.call_boxed(*op_, ks, stack);
    if constexpr (std::is_void_v<Ret>) {
      return;
    } else if constexpr (std::is_lvalue_reference_v<Ret>) {
      // In-place and out= kernels return the mutated argument: the first one marked (a!).
      return *written<0>(args...);
    } else if constexpr (detail::is_ref_tuple<Ret>::value) {
      return [&]<size_t... I>(std::index_sequence<I...>) {
        return Ret(*written<I>(args...)...);
      }(std::make_index_sequence<std::tuple_size_v<Ret>>{});
    } else {
      return detail::pop_result<Ret>(stack);
    }
  }

  // The argument of the op marked (a!) `Nth` (counting from 0).
  template <size_t Nth, typename... A>
  Tensor* written(A&&... args) const {
    int want = -1;
    size_t seen = 0;
    const auto& a = op_->schema().arguments;
    for (size_t i = 0; i < a.size(); ++i)
      if (a[i].is_write && seen++ == Nth) { want = static_cast<int>(i); break; }
    EMBER_INTERNAL_ASSERT(want >= 0, "op ", op_->name(), " returns a reference but has no (a!) argument");
    Tensor* found = nullptr;
    int i = 0;
    auto visit = [&](auto&& x) {
      if constexpr (std::is_same_v<std::remove_cvref_t<decltype(x)>, Tensor>) {
        if (i == want) found = const_cast<Tensor*>(&x);
      }
      ++i;
    };
    (visit(args), ...);
    return found;
  }

  OpEntry* op_;
};

// ---------------------------------------------------------------- registration
namespace detail {
template <typename Sig> struct KernelAdapter;
// Adapters are per signature, not per kernel (the kernel comes in as a pointer): ~2,000
// registered kernels share a few hundred signatures, and the adapters' code was a quarter of
// the registering files' compile time.
template <typename Ret, typename... Args>
struct KernelAdapter<Ret(Args...)> {
  static void from_stack(void* unboxed, Stack& stack) {
    call(reinterpret_cast<Ret (*)(Args...)>(unboxed), stack, std::index_sequence_for<Args...>{});
  }
  template <size_t... I>
  static void call(Ret (*fn)(Args...), Stack& stack, std::index_sequence<I...>) {
    if constexpr (std::is_void_v<Ret>) {
      fn(unbox_arg<Args, I>(stack)...);
      stack.clear();
    } else if constexpr (std::is_lvalue_reference_v<Ret> || is_ref_tuple<Ret>::value) {
      // The results are mutated arguments: the stack keeps the arguments, which share their
      // TensorImpl with the caller's handles.
      fn(unbox_arg<Args, I>(stack)...);
    } else {
      auto r = fn(unbox_arg<Args, I>(stack)...);
      stack.clear();
      push_result(stack, std::move(r));
    }
  }
  // Tensor& arguments bind to the Tensor inside the stack, so kernels mutate it in place.
  template <typename A, size_t I>
  static decltype(auto) unbox_arg(Stack& stack) {
    using B = bare_t<A>;
    if constexpr (std::is_same_v<A, Tensor&>) {
      return static_cast<Tensor&>(stack[I].tensor());
    } else {
      return Boxer<B>::unbox(stack[I]);
    }
  }
};
}  // namespace detail

// Declares an op. Sig is the C++ signature every kernel and caller of it uses.
template <typename Sig>
void define_op(std::string_view schema, uint32_t tags = 0) {
  Dispatcher::get().define(schema, tags, typeid(Sig));
}
template <typename Sig>
void define_op(std::string_view schema, Tag tag) {
  define_op<Sig>(schema, static_cast<uint32_t>(tag));
}

// Registers Fn as op's kernel for key k (unboxed, plus a boxed adapter for fallbacks).
template <typename Sig, Sig* Fn>
void register_kernel(std::string_view op, DispatchKey k) {
  KernelFunction kf{reinterpret_cast<void*>(Fn), nullptr, &detail::KernelAdapter<Sig>::from_stack};
  Dispatcher::get().set_kernel(op, k, kf, typeid(Sig));
}

template <typename Sig, Sig* Fn>
void register_composite(std::string_view op) {
  KernelFunction kf{reinterpret_cast<void*>(Fn), nullptr, &detail::KernelAdapter<Sig>::from_stack};
  Dispatcher::get().set_composite(op, kf, typeid(Sig));
}

// For ops whose CPU kernel stops after shape and dtype inference on Meta tensors: the same
// function serves both keys.
template <typename Sig, Sig* Fn>
void register_cpu_meta(std::string_view op) {
  register_kernel<Sig, Fn>(op, DispatchKey::CPU);
  register_kernel<Sig, Fn>(op, DispatchKey::Meta);
}

// Registers a boxed kernel (for layers or backends written against the stack).
void register_boxed_kernel(std::string_view op, DispatchKey k, BoxedKernel kernel);

// Runs `fn` at static-initialization time: EMBER_REGISTER(my_backend) { register_kernel<...>(...); }
struct StaticRegistration {
  explicit StaticRegistration(void (*fn)()) { fn(); }
};
#define EMBER_REGISTER_CONCAT2(a, b) a##b
#define EMBER_REGISTER_CONCAT(a, b) EMBER_REGISTER_CONCAT2(a, b)
#define EMBER_REGISTER(name)                                                         \
  static void ember_register_##name();                                               \
  static ::ember::StaticRegistration EMBER_REGISTER_CONCAT(ember_reg_, __COUNTER__)( \
      &ember_register_##name);                                                       \
  static void ember_register_##name()

}  // namespace ember
