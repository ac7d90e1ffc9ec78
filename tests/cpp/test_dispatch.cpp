// Invariants of the dispatcher: key order, thread-local include/exclude sets, layer
// fall-through, boxed kernels and fallbacks, composite kernels, registration checks, and the
// schema parser.
#include <gtest/gtest.h>

#include <mutex>
#include <string>
#include <vector>

#include "ember/dispatch.h"
#include "ember/ops.h"

using namespace ember;

// A named namespace: in the unity build this file is included into another, where a test
// fixture from an anonymous namespace would draw -Wsubobject-linkage.
namespace dispatch_test {

using UnarySig = Tensor(const Tensor&);
using CountSig = Tensor(int64_t);

std::vector<std::string>& calls() {
  static std::vector<std::string> log;
  return log;
}

// Ops private to these tests.
Tensor ident_cpu(const Tensor& t) {
  calls().push_back("CPU:ident");
  return t.alias();
}
Tensor ident_meta(const Tensor& t) {
  calls().push_back("Meta:ident");
  return t.alias();
}
Tensor twice_composite(const Tensor& t) { return add(t, t); }
Tensor twice_cpu(const Tensor& t) {
  calls().push_back("CPU:twice_k");
  return add(t, t);
}
// Ops that call another op, so that nested calls can be observed.
Tensor outer_cpu(const Tensor& t) {
  calls().push_back("CPU:outer");
  return TypedOp<UnarySig>("dispatch_test_cpu_only").call(t);
}
Tensor wrap_composite(const Tensor& t) { return TypedOp<UnarySig>("dispatch_test_cpu_only").call(t); }
Tensor wrong_signature(const Tensor& t, int64_t) { return t; }
Tensor count_composite(int64_t n) { return full({n}, 1.0); }
Tensor count_cpu(int64_t n) { return full({n}, 2.0); }

// A tracing layer: records the op, then runs the keys below Trace with Trace excluded, so
// that ops called by the kernels below are not recorded again.
void trace_kernel(const OpEntry& op, DispatchKeySet ks, Stack& stack) {
  calls().push_back("Trace:" + op.name());
  ExcludeKeyGuard guard(DispatchKey::Trace);
  op.call_boxed(ks & DispatchKeySet::below(DispatchKey::Trace), stack);
}
// The same without the guard: nested ops reach the layer again.
void trace_kernel_unguarded(const OpEntry& op, DispatchKeySet ks, Stack& stack) {
  calls().push_back("Trace:" + op.name());
  op.call_boxed(ks & DispatchKeySet::below(DispatchKey::Trace), stack);
}
void vmap_fallback(const OpEntry& op, DispatchKeySet ks, Stack& stack) {
  calls().push_back("Vmap:" + op.name());
  ExcludeKeyGuard guard(DispatchKey::Vmap);
  op.call_boxed(ks & DispatchKeySet::below(DispatchKey::Vmap), stack);
}

void define_test_ops() {
  static std::once_flag once;
  std::call_once(once, [] {
    define_op<UnarySig>("dispatch_test_ident(Tensor self) -> Tensor");
    register_kernel<UnarySig, &ident_cpu>("dispatch_test_ident", DispatchKey::CPU);
    register_kernel<UnarySig, &ident_meta>("dispatch_test_ident", DispatchKey::Meta);
    register_boxed_kernel("dispatch_test_ident", DispatchKey::Trace, &trace_kernel);

    define_op<UnarySig>("dispatch_test_twice(Tensor self) -> Tensor");
    register_composite<UnarySig, &twice_composite>("dispatch_test_twice");

    define_op<UnarySig>("dispatch_test_twice_k(Tensor self) -> Tensor");
    register_composite<UnarySig, &twice_composite>("dispatch_test_twice_k");
    register_kernel<UnarySig, &twice_cpu>("dispatch_test_twice_k", DispatchKey::CPU);

    define_op<UnarySig>("dispatch_test_cpu_only(Tensor self) -> Tensor");
    register_kernel<UnarySig, &ident_cpu>("dispatch_test_cpu_only", DispatchKey::CPU);

    define_op<UnarySig>("dispatch_test_outer(Tensor self) -> Tensor");
    register_kernel<UnarySig, &outer_cpu>("dispatch_test_outer", DispatchKey::CPU);
    define_op<UnarySig>("dispatch_test_wrap(Tensor self) -> Tensor");
    register_composite<UnarySig, &wrap_composite>("dispatch_test_wrap");

    define_op<CountSig>("dispatch_test_count(int n) -> Tensor");
    register_composite<CountSig, &count_composite>("dispatch_test_count");
    define_op<CountSig>("dispatch_test_count_k(int n) -> Tensor");
    register_kernel<CountSig, &count_cpu>("dispatch_test_count_k", DispatchKey::CPU);

    // A boxed kernel may be registered before its op is defined (static-init order).
    register_boxed_kernel("dispatch_test_late", DispatchKey::Trace, &trace_kernel);
    define_op<UnarySig>("dispatch_test_late(Tensor self) -> Tensor");
    register_kernel<UnarySig, &ident_cpu>("dispatch_test_late", DispatchKey::CPU);
  });
}

Tensor call_unary(const char* name, const Tensor& t) {
  return TypedOp<UnarySig>(name).call(t);
}

// Installs a fallback at a layer key for the scope, then restores what was there.
class FallbackScope {
 public:
  FallbackScope(DispatchKey k, BoxedKernel fb) : k_(k), prev_(Dispatcher::get().fallback_kernel(k).boxed) {
    Dispatcher::get().set_fallback(k, fb);
  }
  ~FallbackScope() { Dispatcher::get().set_fallback(k_, prev_); }

 private:
  DispatchKey k_;
  BoxedKernel prev_;
};

class DispatchOrder : public ::testing::Test {
 protected:
  void SetUp() override {
    define_test_ops();
    calls().clear();
  }
};

std::vector<std::string> L(std::initializer_list<const char*> l) { return {l.begin(), l.end()}; }

}  // namespace dispatch_test
using namespace dispatch_test;

// ---------------------------------------------------------------- key sets
TEST(DispatchKeys, SetsAndPriorities) {
  DispatchKeySet s = DispatchKeySet(DispatchKey::CPU).add(DispatchKey::Trace).add(DispatchKey::Autograd);
  EXPECT_EQ(s.highest(), DispatchKey::Trace);
  EXPECT_EQ(s.highest_backend(), DispatchKey::CPU);
  EXPECT_EQ(s.remove(DispatchKey::Trace).highest(), DispatchKey::Autograd);
  EXPECT_TRUE(DispatchKeySet(DispatchKey::Undefined).empty());
  EXPECT_TRUE(DispatchKeySet().highest() == DispatchKey::Undefined);
  DispatchKeySet below = DispatchKeySet::below(DispatchKey::Vmap);
  EXPECT_TRUE(below.has(DispatchKey::Autograd) && below.has(DispatchKey::CPU));
  EXPECT_FALSE(below.has(DispatchKey::Vmap) || below.has(DispatchKey::Trace));
  EXPECT_FALSE(below.has(DispatchKey::Undefined));
  EXPECT_FALSE(DispatchKeySet::all_backends().has(DispatchKey::Autograd));
  EXPECT_TRUE(DispatchKeySet::all_backends().has(DispatchKey::Custom3));
  // Layers above backends, Trace on top.
  EXPECT_LT(DispatchKey::Custom3, DispatchKey::Autograd);
  EXPECT_LT(DispatchKey::Autograd, DispatchKey::Vmap);
  EXPECT_LT(DispatchKey::Vmap, DispatchKey::Trace);
  EXPECT_EQ(backend_key(DeviceType::Meta), DispatchKey::Meta);
  EXPECT_EQ(device_type_of(DispatchKey::Custom2), DeviceType::Custom2);
  EXPECT_EQ(dispatch_key_name(DispatchKey::Vmap), "Vmap");
  EXPECT_EQ(ones({2}).key_set(), DispatchKeySet(DispatchKey::CPU));
  EXPECT_EQ(empty({2}, kMeta).key_set(), DispatchKeySet(DispatchKey::Meta));
}

TEST(DispatchKeys, GuardsNestAndRestore) {
  const LocalDispatchKeySet before = tls_local_dispatch_keys();
  {
    IncludeKeyGuard a(DispatchKey::Trace);
    {
      IncludeKeyGuard b(DispatchKey::Vmap);
      ExcludeKeyGuard c(DispatchKey::Trace);
      EXPECT_TRUE(tls_local_dispatch_keys().included.has(DispatchKey::Trace));
      EXPECT_TRUE(tls_local_dispatch_keys().included.has(DispatchKey::Vmap));
      EXPECT_TRUE(tls_local_dispatch_keys().excluded.has(DispatchKey::Trace));
    }
    EXPECT_FALSE(tls_local_dispatch_keys().included.has(DispatchKey::Vmap));
    EXPECT_FALSE(tls_local_dispatch_keys().excluded.has(DispatchKey::Trace));
  }
  EXPECT_EQ(tls_local_dispatch_keys().included, before.included);
  EXPECT_EQ(tls_local_dispatch_keys().excluded, before.excluded);
}

// ---------------------------------------------------------------- dispatch order
TEST_F(DispatchOrder, LayerRunsBeforeBackendOnlyWhenIncluded) {
  Tensor x = ones({2});
  call_unary("dispatch_test_ident", x);
  EXPECT_EQ(calls(), L({"CPU:ident"}));
  calls().clear();
  {
    IncludeKeyGuard g(DispatchKey::Trace);
    Tensor r = call_unary("dispatch_test_ident", x);
    EXPECT_TRUE(r.is_alias_of(x));
  }
  EXPECT_EQ(calls(), L({"Trace:dispatch_test_ident", "CPU:ident"}));
  calls().clear();
  {  // The layer also runs above Meta.
    IncludeKeyGuard g(DispatchKey::Trace);
    call_unary("dispatch_test_ident", empty({2}, kMeta));
  }
  EXPECT_EQ(calls(), L({"Trace:dispatch_test_ident", "Meta:ident"}));
}

TEST_F(DispatchOrder, ExcludedKeysAreSkipped) {
  Tensor x = ones({2});
  IncludeKeyGuard inc(DispatchKey::Trace);
  {
    ExcludeKeyGuard exc(DispatchKey::Trace);  // exclusion wins over inclusion
    call_unary("dispatch_test_ident", x);
  }
  EXPECT_EQ(calls(), L({"CPU:ident"}));
  calls().clear();
  call_unary("dispatch_test_ident", x);
  EXPECT_EQ(calls(), L({"Trace:dispatch_test_ident", "CPU:ident"}));
}

TEST_F(DispatchOrder, LayersWithoutKernelsFallThrough) {
  Tensor x = ones({2});
  FallbackScope no_autograd(DispatchKey::Autograd, nullptr);
  FallbackScope no_vmap(DispatchKey::Vmap, nullptr);
  FallbackScope no_trace(DispatchKey::Trace, nullptr);
  {
    IncludeKeyGuard g(DispatchKeySet(DispatchKey::Autograd).add(DispatchKey::Vmap));
    call_unary("dispatch_test_ident", x);
    // An op with no layer kernel at all still reaches its backend kernel.
    Tensor s = x + x;
    EXPECT_EQ(s.data_ptr<float>()[0], 2.f);
  }
  EXPECT_EQ(calls(), L({"CPU:ident"}));
}

TEST_F(DispatchOrder, LayersRunHighestFirst) {
  Tensor x = ones({2});
  FallbackScope vmap(DispatchKey::Vmap, &vmap_fallback);
  FallbackScope no_autograd(DispatchKey::Autograd, nullptr);
  IncludeKeyGuard g(DispatchKeySet(DispatchKey::Trace).add(DispatchKey::Vmap).add(DispatchKey::Autograd));
  call_unary("dispatch_test_ident", x);
  EXPECT_EQ(calls(), L({"Trace:dispatch_test_ident", "Vmap:dispatch_test_ident", "CPU:ident"}));
}

TEST_F(DispatchOrder, BoxedFallbackSeesEveryOpAndGuardHidesNestedOnes) {
  Tensor x = ones({3});
  {
    FallbackScope trace(DispatchKey::Trace, &trace_kernel);
    IncludeKeyGuard g(DispatchKey::Trace);
    Tensor r = call_unary("dispatch_test_outer", x);
    EXPECT_TRUE(r.is_alias_of(x));
  }
  EXPECT_EQ(calls(), L({"Trace:dispatch_test_outer", "CPU:outer", "CPU:ident"}));
  calls().clear();
  {
    FallbackScope trace(DispatchKey::Trace, &trace_kernel_unguarded);
    IncludeKeyGuard g(DispatchKey::Trace);
    call_unary("dispatch_test_outer", x);
  }
  EXPECT_EQ(calls(), L({"Trace:dispatch_test_outer", "CPU:outer", "Trace:dispatch_test_cpu_only",
                        "CPU:ident"}));
  calls().clear();
  {  // A fallback serves ops of the library too, with their CPU kernels below it.
    Tensor a = ones({3}, kInt32), b = ones({3}, kFloat);
    FallbackScope trace(DispatchKey::Trace, &trace_kernel);
    IncludeKeyGuard g(DispatchKey::Trace);
    Tensor r = a + b;
    EXPECT_EQ(r.dtype(), kFloat);
    EXPECT_EQ(r.data_ptr<float>()[2], 2.f);
  }
  ASSERT_FALSE(calls().empty());
  EXPECT_EQ(calls()[0], "Trace:add.Tensor");
}

TEST_F(DispatchOrder, CompositeServesBackendsWithoutKernels) {
  Tensor x = ones({3});
  Tensor r = call_unary("dispatch_test_twice", x);
  EXPECT_EQ(r.data_ptr<float>()[1], 2.f);
  Tensor m = call_unary("dispatch_test_twice", empty({4, 2}, kMeta));
  EXPECT_TRUE(m.is_meta());
  EXPECT_TRUE(m.sizes().equals({4, 2}));
  // A backend kernel takes precedence over the composite on its backend only.
  call_unary("dispatch_test_twice_k", x);
  EXPECT_EQ(calls(), L({"CPU:twice_k"}));
  calls().clear();
  Tensor mk = call_unary("dispatch_test_twice_k", empty({5}, kMeta));
  EXPECT_TRUE(mk.is_meta());
  EXPECT_TRUE(calls().empty());
  // Ops without tensor arguments use their composite, else report that nothing serves them.
  Tensor c = TypedOp<CountSig>("dispatch_test_count").call(3);
  EXPECT_EQ(c.numel(), 3);
  EXPECT_THROW(TypedOp<CountSig>("dispatch_test_count_k").call(3), NotImplementedError);
}

TEST_F(DispatchOrder, CompositeDecomposesAtTheVmapLayer) {
  Tensor x = ones({2});  // before the guard: ones() runs fill_ and copy_
  FallbackScope vmap(DispatchKey::Vmap, &vmap_fallback);
  IncludeKeyGuard g(DispatchKey::Vmap);
  call_unary("dispatch_test_wrap", x);
  // The composite itself is not seen by the layer; the op it calls is.
  EXPECT_EQ(calls(), L({"Vmap:dispatch_test_cpu_only", "CPU:ident"}));
  calls().clear();
  call_unary("dispatch_test_outer", x);  // no composite: the layer sees the op itself
  EXPECT_EQ(calls(), L({"Vmap:dispatch_test_outer", "CPU:outer", "CPU:ident"}));
}

TEST_F(DispatchOrder, MissingKernelNamesOpAndBackend) {
  try {
    call_unary("dispatch_test_cpu_only", empty({2}, kMeta));
    FAIL() << "expected NotImplementedError";
  } catch (const NotImplementedError& e) {
    std::string msg = e.what();
    EXPECT_NE(msg.find("dispatch_test_cpu_only"), std::string::npos) << msg;
    EXPECT_NE(msg.find("'Meta'"), std::string::npos) << msg;
  }
}

TEST_F(DispatchOrder, BoxedKernelRegisteredBeforeDefinition) {
  const OpEntry* e = Dispatcher::get().find("dispatch_test_late");
  ASSERT_NE(e, nullptr);
  EXPECT_TRUE(e->kernel(DispatchKey::Trace).boxed != nullptr);
  IncludeKeyGuard g(DispatchKey::Trace);
  call_unary("dispatch_test_late", ones({1}));
  EXPECT_EQ(calls(), L({"Trace:dispatch_test_late", "CPU:ident"}));
}

// ---------------------------------------------------------------- registry
TEST_F(DispatchOrder, RegistryChecks) {
  Dispatcher& d = Dispatcher::get();
  EXPECT_EQ(d.find("no_such_op"), nullptr);
  const OpEntry* add_op = d.find("add.Tensor");
  ASSERT_NE(add_op, nullptr);
  EXPECT_TRUE(add_op->has_tag(Tag::Pointwise));
  EXPECT_FALSE(add_op->has_tag(Tag::Inplace));
  EXPECT_TRUE(d.find("add_.Tensor")->has_tag(Tag::Inplace));
  EXPECT_TRUE(add_op->kernel(DispatchKey::CPU).unboxed != nullptr);
  EXPECT_TRUE(add_op->kernel(DispatchKey::CPU).has_boxed_form());
  EXPECT_TRUE(add_op->kernel(DispatchKey::CPU).boxed == nullptr);  // its boxed form is the per-signature adapter
  bool listed = false;
  for (const OpEntry* op : d.all_ops()) listed |= op->name() == "dispatch_test_ident";
  EXPECT_TRUE(listed);
  // A kernel whose C++ signature differs from the op's is refused, as is a second definition.
  using WrongSig = Tensor(const Tensor&, int64_t);
  EXPECT_THROW((register_kernel<WrongSig, &wrong_signature>("dispatch_test_ident", DispatchKey::Meta)),
               RuntimeError);
  EXPECT_THROW(define_op<UnarySig>("dispatch_test_ident(Tensor self) -> Tensor"), RuntimeError);
  // The refused registration left the existing kernel alone.
  call_unary("dispatch_test_ident", empty({1}, kMeta));
  EXPECT_EQ(calls(), L({"Meta:ident"}));
}

TEST(DispatchBoxed, CallThroughTheStack) {
  const OpEntry* op = Dispatcher::get().find("add.Tensor");
  ASSERT_NE(op, nullptr);
  Stack stack{IValue(ones({2})), IValue(full({2}, 3.0, kFloat)), IValue(Scalar(2))};
  op->call_boxed(DispatchKeySet(DispatchKey::CPU), stack);
  ASSERT_EQ(stack.size(), 1u);
  ASSERT_TRUE(stack[0].is_tensor());
  EXPECT_EQ(stack[0].tensor().data_ptr<float>()[1], 7.f);
  // In-place through the stack: the stack keeps the mutated argument.
  Tensor x = ones({2});
  Stack s2{IValue(x), IValue(ones({2})), IValue(Scalar(1))};
  Dispatcher::get().find("add_.Tensor")->call_boxed(DispatchKeySet(DispatchKey::CPU), s2);
  EXPECT_EQ(x.data_ptr<float>()[0], 2.f);
  EXPECT_TRUE(s2[0].tensor().is_same(x));
}

// ---------------------------------------------------------------- schemas
TEST(DispatchSchema, RoundTrip) {
  const char* schemas[] = {
      "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
      "add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
      "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
      "max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
      "index.Tensor(Tensor self, Tensor?[] indices) -> Tensor",
      "sum.dim_IntList(Tensor self, int[1] dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
      "div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode=None) -> Tensor",
      "cat(Tensor[] tensors, int dim=0) -> Tensor",
      "layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, float eps=1e-05) -> Tensor",
      "set_(Tensor(a!) self, Tensor(a!)? source=None) -> ()",
      "split(Tensor self, int split_size, int dim=0) -> Tensor[]",
      "full(int[] size, Scalar fill_value, *, ScalarType? dtype=None, Device? device=None) -> Tensor",
  };
  for (const char* s : schemas) {
    Schema sc = parse_schema(s);
    EXPECT_EQ(sc.str(), s);
    EXPECT_EQ(parse_schema(sc.str()).str(), s);
  }
}

TEST(DispatchSchema, ArgumentsDefaultsAndAnnotations) {
  Schema s = parse_schema("add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)");
  EXPECT_EQ(s.name, "add");
  EXPECT_EQ(s.overload, "out");
  EXPECT_EQ(s.full_name(), "add.out");
  ASSERT_EQ(s.arguments.size(), 4u);
  EXPECT_EQ(s.arguments[0].name, "self");
  EXPECT_EQ(s.arguments[0].type, "Tensor");
  EXPECT_FALSE(s.arguments[0].kwarg_only);
  EXPECT_FALSE(s.arguments[0].default_value.has_value());
  EXPECT_FALSE(s.arguments[0].is_write);
  EXPECT_TRUE(s.arguments[2].kwarg_only);
  EXPECT_EQ(s.arguments[2].type, "Scalar");
  EXPECT_EQ(s.arguments[2].default_value, "1");
  EXPECT_FALSE(s.arguments[2].is_tensor());
  EXPECT_TRUE(s.arguments[3].is_write);
  EXPECT_TRUE(s.arguments[3].kwarg_only);
  EXPECT_TRUE(s.arguments[3].is_tensor());
  ASSERT_EQ(s.returns.size(), 1u);
  EXPECT_TRUE(s.returns[0].is_write);
  EXPECT_TRUE(s.returns[0].name.empty());

  Schema n = parse_schema("  relu ( Tensor self ) ->  Tensor  ");
  EXPECT_EQ(n.name, "relu");
  EXPECT_EQ(n.overload, "");
  EXPECT_EQ(n.str(), "relu(Tensor self) -> Tensor");

  Schema d = parse_schema("f(int[] dims=[0, 1], str mode='a b', Tensor? w=None) -> (Tensor a, Tensor b)");
  EXPECT_EQ(d.arguments[0].type, "int[]");
  EXPECT_EQ(d.arguments[0].default_value, "[0, 1]");
  EXPECT_EQ(d.arguments[1].default_value, "'a b'");
  EXPECT_EQ(d.arguments[2].type, "Tensor?");
  EXPECT_TRUE(d.arguments[2].is_tensor());
  ASSERT_EQ(d.returns.size(), 2u);
  EXPECT_EQ(d.returns[1].name, "b");
  EXPECT_TRUE(parse_schema("g() -> ()").returns.empty());
  EXPECT_TRUE(parse_schema("g() -> ()").arguments.empty());

  // A view annotation without '!' marks an alias, not a write.
  Schema v = parse_schema("contiguous(Tensor(a) self) -> Tensor(a)");
  EXPECT_EQ(v.arguments[0].type, "Tensor");
  EXPECT_FALSE(v.arguments[0].is_write);
  // The ops' own schemas are parsed the same way.
  const OpEntry* op = Dispatcher::get().find("add_.Tensor");
  ASSERT_NE(op, nullptr);
  EXPECT_TRUE(op->schema().arguments[0].is_write);
  EXPECT_EQ(op->schema().arguments[2].default_value, "1");
}

TEST(DispatchSchema, MalformedSchemasRaiseValueError) {
  const char* bad[] = {
      "add Tensor self -> Tensor",       // no '('
      "(Tensor self) -> Tensor",         // no name
      "add(Tensor self -> Tensor",       // unbalanced
      "add(Tensor self)",                // no '->'
      "add(Tensor self) Tensor",         // no '->'
      "add(self) -> Tensor",             // argument without a type or name
      "add(Tensor self, , Tensor b) -> Tensor",
      "add(Tensor(a! self) -> Tensor",   // unclosed annotation
      "add(Tensor self) -> (Tensor",     // unbalanced return tuple
      "",
  };
  for (const char* s : bad) {
    try {
      parse_schema(s);
      ADD_FAILURE() << "accepted: " << s;
    } catch (const ValueError& e) {
      EXPECT_NE(std::string(e.what()).find("invalid schema"), std::string::npos) << e.what();
    }
  }
}
