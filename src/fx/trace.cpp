// The Trace dispatch layer (C++ tracing into ember::fx graphs), the C++ interpreter of such
// graphs (run_graph) and call_op, the boxed entry point of generated C++ source.
#include <unordered_map>

#include "ember/error.h"
#include "ember/fx/trace.h"
#include "ember/nn/module.h"
#include "ember/ops.h"
#include "fx/boxing.h"

namespace ember::fx {

namespace {

struct TraceState {
  Graph* graph = nullptr;
  Attributes* attributes = nullptr;
  std::unordered_map<const TensorImpl*, Node*> proxies;       // a value's producing node
  std::unordered_map<const TensorImpl*, std::string> names;   // attribute tensors
  std::unordered_map<const TensorImpl*, Node*> attr_nodes;    // their get_attr nodes
  std::unordered_map<const TensorImpl*, Tensor> meta_twins;   // their Meta stand-ins
  std::vector<Tensor> keep;  // holds every tensor seen, so that no address is reused
  int64_t constants = 0;

  void bind(const Tensor& t, Node* n) {
    proxies[t.impl()] = n;
    keep.push_back(t);
    n->type = "Tensor";
    n->shape = t.sizes().vec();
    n->dtype = t.dtype();
  }

  // The node of tensor t; attributes and captured constants become get_attr nodes, and t is
  // replaced by its Meta stand-in in *slot (when given) for the redispatch.
  Node* node_of(const Tensor& t, Tensor* slot) {
    if (auto it = proxies.find(t.impl()); it != proxies.end()) return it->second;
    auto nit = names.find(t.impl());
    if (nit == names.end()) {
      std::string name;
      do name = "_tensor_constant" + std::to_string(constants++);
      while (attributes->count(name));
      (*attributes)[name] = t;
      nit = names.emplace(t.impl(), name).first;
      keep.push_back(t);
    }
    Node*& n = attr_nodes[t.impl()];
    if (!n) {
      // get_attr nodes go before the first use, in the order they are first read.
      n = graph->get_attr(nit->second, "Tensor");
      n->shape = t.sizes().vec();
      n->dtype = t.dtype();
    }
    if (slot) {
      Tensor& twin = meta_twins[t.impl()];
      if (!twin.defined()) {
        ExcludeKeyGuard no_trace(DispatchKey::Trace);
        twin = empty_strided(t.sizes(), t.strides(), TensorOptions(t.dtype()).device(Device("meta")));
      }
      *slot = twin;
    }
    return n;
  }

  Arg to_arg(IValue& v) {
    auto& val = v.value();
    if (v.is_none()) return Arg();
    if (v.is_tensor()) {
      Tensor& t = v.tensor();
      if (!t.defined()) return Arg();
      return node_of(t, &t);
    }
    if (v.is_tensor_list()) {
      std::vector<Arg> items;
      for (Tensor& t : v.tensor_list()) items.push_back(t.defined() ? Arg(node_of(t, &t)) : Arg());
      return Arg::list(std::move(items));
    }
    if (auto* s = std::get_if<Scalar>(&val)) {
      if (s->is_bool()) return Arg(s->to<bool>());
      if (s->is_integral()) return Arg(s->to<int64_t>());
      EMBER_CHECK(s->is_floating_point(), NotImplementedError, "fx trace: complex scalar arguments are not supported");
      return Arg(s->to<double>());
    }
    if (auto* i = std::get_if<int64_t>(&val)) return Arg(*i);
    if (auto* d = std::get_if<double>(&val)) return Arg(*d);
    if (auto* b = std::get_if<bool>(&val)) return Arg(*b);
    if (auto* l = std::get_if<std::vector<int64_t>>(&val)) {
      std::vector<Arg> items(l->begin(), l->end());
      return Arg::list(std::move(items));
    }
    if (auto* l = std::get_if<std::vector<double>>(&val)) {
      std::vector<Arg> items(l->begin(), l->end());
      return Arg::list(std::move(items));
    }
    if (auto* s = std::get_if<std::string>(&val)) return Arg(*s);
    if (auto* t = std::get_if<ScalarType>(&val)) return Arg(*t);
    if (auto* d = std::get_if<Device>(&val)) return Arg(*d);
    if (std::holds_alternative<Generator*>(val)) {
      EMBER_CHECK(std::get<Generator*>(val) == nullptr, NotImplementedError,
                  "fx trace: an explicit Generator cannot be recorded; use the default generator");
      return Arg();
    }
    EMBER_FAIL(NotImplementedError, "fx trace: an argument of unsupported kind");
  }
};

thread_local TraceState* tls_trace = nullptr;

// The Trace key's fallback: record the call, then run it below Trace on Meta tensors.
void trace_fallback(const OpEntry& op, DispatchKeySet ks, Stack& stack) {
  TraceState* st = tls_trace;
  const DispatchKeySet below = ks.remove(DispatchKey::Trace);
  if (!st) {  // Trace switched on without a trace: nothing to record
    ExcludeKeyGuard g(DispatchKey::Trace);
    op.call_boxed(below, stack);
    return;
  }
  const Schema& schema = op.schema();
  std::vector<Arg> args;
  Kwargs kwargs;
  for (size_t i = 0; i < stack.size(); ++i) {
    Arg a = st->to_arg(stack[i]);
    if (i < schema.arguments.size() && schema.arguments[i].kwarg_only) kwargs.emplace_back(schema.arguments[i].name, a);
    else args.push_back(std::move(a));
  }
  // Factories run on Meta too: they take part in the computation only through their shape.
  for (size_t i = 0; i < schema.arguments.size() && i < stack.size(); ++i)
    if (schema.arguments[i].name == "device") stack[i] = IValue(Device("meta"));
  std::vector<size_t> written;
  for (size_t i = 0; i < schema.arguments.size(); ++i)
    if (schema.arguments[i].is_write) written.push_back(i);
  Stack inputs = written.empty() ? Stack() : stack;
  {
    ExcludeKeyGuard g(DispatchKey::Trace);
    DispatchKeySet ks2 = below;
    for (const IValue& v : stack)
      if (v.is_tensor() && v.tensor().defined()) ks2 = ks2 | v.tensor().key_set();
    op.call_boxed(ks2 - DispatchKeySet(DispatchKey::Trace), stack);
  }
  Node* n = st->graph->call_function(op.name(), std::move(args), std::move(kwargs));
  std::vector<Tensor> results;
  if (!written.empty()) {
    // In-place and out= ops: the written arguments now hold the node's value.
    for (size_t i : written) results.push_back(inputs[i].tensor());
  } else {
    for (IValue& v : stack) {
      if (v.is_tensor()) results.push_back(v.tensor());
      else if (v.is_tensor_list()) for (const Tensor& t : v.tensor_list()) results.push_back(t);
    }
  }
  if (results.size() == 1 && !(stack.size() == 1 && stack[0].is_tensor_list())) {
    st->bind(results[0], n);
    return;
  }
  n->type = "tuple";
  for (size_t i = 0; i < results.size(); ++i) {
    Node* g = st->graph->call_function("getitem", {n, static_cast<int64_t>(i)});
    st->bind(results[i], g);
  }
}

struct RegisterTraceFallback {
  RegisterTraceFallback() { Dispatcher::get().set_fallback(DispatchKey::Trace, &trace_fallback); }
} register_trace_fallback;

}  // namespace

std::atomic<int> detail::live_traces{0};

bool is_tracing() { return tls_trace != nullptr; }

void record_view(const Tensor& base, const Tensor& view) {
  TraceState* st = tls_trace;
  // Views made inside an op's kernels (below the Trace layer) are part of that op.
  if (!st || tls_local_dispatch_keys().excluded.has(DispatchKey::Trace)) return;
  EMBER_CHECK(view.dtype() == base.dtype(), NotImplementedError,
              "fx trace: views that reinterpret the element type (view(dtype), view_as_real) cannot be recorded");
  Node* b = st->node_of(base, nullptr);
  auto ints = [](IntArrayRef r) {
    std::vector<Arg> v(r.begin(), r.end());
    return Arg::list(std::move(v));
  };
  Node* n = st->graph->call_method("as_strided", {b, ints(view.sizes()), ints(view.strides()), view.storage_offset()});
  st->bind(view, n);
}

TraceResult trace(const std::function<std::vector<Tensor>(const std::vector<Tensor>&)>& fn,
                  const std::vector<Tensor>& example_inputs, const Attributes& attributes,
                  const std::vector<std::string>& input_names) {
  EMBER_CHECK(!tls_trace, RuntimeError, "fx::trace(): this thread is already tracing");
  TraceResult r;
  r.graph = std::make_shared<Graph>();
  r.attributes = attributes;
  TraceState st;
  st.graph = r.graph.get();
  st.attributes = &r.attributes;
  for (const auto& [name, t] : attributes) {
    st.names.emplace(t.impl(), name);
    st.keep.push_back(t);
  }
  std::vector<Tensor> proxies;
  for (size_t i = 0; i < example_inputs.size(); ++i) {
    const Tensor& x = example_inputs[i];
    EMBER_CHECK(x.defined(), ValueError, "fx::trace(): example input ", i, " is an undefined tensor");
    std::string name = i < input_names.size() ? input_names[i] : (example_inputs.size() == 1 ? "x" : "x" + std::to_string(i));
    Node* p = r.graph->placeholder(name, "Tensor");
    Tensor proxy = empty_strided(x.sizes(), x.strides(), TensorOptions(x.dtype()).device(Device("meta")));
    st.bind(proxy, p);
    proxies.push_back(proxy);
  }
  std::vector<Tensor> outs;
  {
    tls_trace = &st;
    detail::live_traces.fetch_add(1);
    struct Reset {
      ~Reset() {
        tls_trace = nullptr;
        detail::live_traces.fetch_sub(1);
      }
    } reset;
    IncludeKeyGuard on(DispatchKey::Trace);
    outs = fn(proxies);
  }
  std::vector<Arg> out_args;
  for (const Tensor& t : outs) out_args.push_back(t.defined() ? Arg(st.node_of(t, nullptr)) : Arg());
  r.graph->output(outs.size() == 1 ? out_args[0] : Arg::tuple(std::move(out_args)));
  r.graph->lint();
  return r;
}

TraceResult trace_module(nn::Module& module, const std::vector<Tensor>& example_inputs) {
  Attributes attrs;
  for (const auto& [name, t] : module.named_parameters()) attrs.emplace(name, t);
  for (const auto& [name, t] : module.named_buffers())
    if (t.defined()) attrs.emplace(name, t);
  return trace([&](const std::vector<Tensor>& in) { return module.call(in); }, example_inputs, attrs);
}

// ---------------------------------------------------------------- running graphs
Stack call_op(std::string_view full_name, Stack args) {
  const OpEntry* op = Dispatcher::get().find(full_name);
  EMBER_CHECK(op && op->is_defined(), ValueError, "fx: unknown op '", full_name, "'");
  EMBER_CHECK(args.size() == op->schema().arguments.size(), ValueError, "fx: op '", full_name, "' takes ",
              op->schema().arguments.size(), " arguments, got ", args.size());
  DispatchKeySet ks;
  for (const IValue& v : args) {
    if (v.is_tensor() && v.tensor().defined()) ks = ks | v.tensor().key_set();
    if (v.is_tensor_list())
      for (const Tensor& t : std::get<std::vector<Tensor>>(v.value()))
        if (t.defined()) ks = ks | t.key_set();
  }
  const LocalDispatchKeySet& local = tls_local_dispatch_keys();
  op->call_boxed((ks | local.included) - local.excluded, args);
  return args;
}

IValue Interpreter::value(const Node* n) const {
  const Stack& s = env_.at(n);
  EMBER_CHECK(s.size() == 1, RuntimeError, "fx::Interpreter: node '", n->name(), "' has ", s.size(),
              " results; read them with getitem");
  return s[0];
}

Stack Interpreter::placeholder(const Node&, const Tensor& input) { return {IValue(input)}; }

Stack Interpreter::get_attr(const Node& n) {
  auto it = attributes_.find(n.target());
  EMBER_CHECK(it != attributes_.end(), RuntimeError, "fx::Interpreter: node '", n.name(), "' reads attribute '",
              n.target(), "', which was not given");
  return {IValue(it->second)};
}

Stack Interpreter::call_function(const Node& n, Stack args) {
  Stack out = call_op(n.target(), std::move(args));
  const OpEntry* op = Dispatcher::get().find(n.target());
  std::vector<size_t> written;
  const auto& sa = op->schema().arguments;
  for (size_t i = 0; i < sa.size(); ++i)
    if (sa[i].is_write) written.push_back(i);
  if (written.empty()) return out;
  Stack res;  // in-place and out= ops: the written arguments
  for (size_t i : written) res.push_back(out[i]);
  return res;
}

Stack Interpreter::call_method(const Node& n, Stack args) {
  EMBER_CHECK(n.target() == "as_strided" && args.size() == 4, ValueError, "fx::Interpreter: method '", n.target(),
              "' of node '", n.name(), "' is not supported");
  return {IValue(args[0].tensor().as_strided(args[1].get<std::vector<int64_t>>(), args[2].get<std::vector<int64_t>>(),
                                             args[3].get<int64_t>()))};
}

Stack Interpreter::call_module(const Node& n, Stack) {
  EMBER_FAIL(ValueError, "fx::Interpreter: call_module node '", n.name(), "' needs the Python Interpreter");
}

std::vector<Tensor> Interpreter::run(const std::vector<Tensor>& inputs) {
  env_.clear();
  size_t next_input = 0;
  auto val = [&](Node* x) { return value(x); };
  for (const Node* n : graph_.nodes()) {
    switch (n->op()) {
      case Opcode::Placeholder:
        EMBER_CHECK(next_input < inputs.size(), ValueError, "fx::Interpreter: missing input '", n->target(), "'");
        env_[n] = placeholder(*n, inputs[next_input++]);
        break;
      case Opcode::GetAttr:
        env_[n] = get_attr(*n);
        break;
      case Opcode::CallFunction: {
        if (n->target() == "getitem") {
          const Stack& s = env_.at(n->args().at(0).to_node());
          const int64_t i = n->args().at(1).to_int();
          if (s.size() == 1 && s[0].is_tensor_list()) env_[n] = {IValue(std::get<std::vector<Tensor>>(s[0].value()).at(i))};
          else env_[n] = {s.at(i)};
          break;
        }
        const OpEntry* op = Dispatcher::get().find(n->target());
        EMBER_CHECK(op && op->is_defined(), ValueError, "fx::Interpreter: node '", n->name(), "' calls unknown op '",
                    n->target(), "'");
        env_[n] = call_function(*n, box_arguments(*op, *n, val));
        break;
      }
      case Opcode::CallMethod:
      case Opcode::CallModule: {
        Stack args;
        for (const Arg& a : n->args()) {
          if (a.is_node()) args.push_back(value(a.to_node()));
          else if (a.kind() == Arg::Kind::Int) args.push_back(IValue(a.to_int()));
          else if (a.kind() == Arg::Kind::List) {
            std::vector<int64_t> l;
            for (const Arg& x : a.items()) l.push_back(x.to_int());
            args.push_back(IValue(std::move(l)));
          } else {
            EMBER_FAIL(ValueError, "fx::Interpreter: unsupported argument of node '", n->name(), "'");
          }
        }
        env_[n] = n->op() == Opcode::CallMethod ? call_method(*n, std::move(args)) : call_module(*n, std::move(args));
        break;
      }
      case Opcode::Output: {
        std::vector<Tensor> outs;
        const Arg& a = n->args().at(0);
        auto take = [&](const Arg& x) { outs.push_back(x.is_none() ? Tensor() : value(x.to_node()).tensor()); };
        if (a.is_sequence()) for (const Arg& x : a.items()) take(x);
        else take(a);
        return outs;
      }
    }
  }
  EMBER_FAIL(ValueError, "fx::Interpreter: the graph has no output node");
}

std::vector<Tensor> run_graph(const Graph& g, const std::vector<Tensor>& inputs, const Attributes& attributes) {
  return Interpreter(g, attributes).run(inputs);
}

// ---------------------------------------------------------------- Transformer
Node* Transformer::placeholder(Graph& out, const Node& n, std::vector<Arg> args) {
  return out.create_node(Opcode::Placeholder, n.target(), std::move(args), {}, n.name(), n.type);
}
Node* Transformer::get_attr(Graph& out, const Node& n) {
  return out.create_node(Opcode::GetAttr, n.target(), {}, {}, n.name(), n.type);
}
Node* Transformer::call_function(Graph& out, const Node& n, std::vector<Arg> args, Kwargs kwargs) {
  return out.create_node(Opcode::CallFunction, n.target(), std::move(args), std::move(kwargs), n.name(), n.type,
                         n.target_object());
}
Node* Transformer::call_method(Graph& out, const Node& n, std::vector<Arg> args, Kwargs kwargs) {
  return out.create_node(Opcode::CallMethod, n.target(), std::move(args), std::move(kwargs), n.name(), n.type);
}
Node* Transformer::call_module(Graph& out, const Node& n, std::vector<Arg> args, Kwargs kwargs) {
  return out.create_node(Opcode::CallModule, n.target(), std::move(args), std::move(kwargs), n.name(), n.type);
}

std::shared_ptr<Graph> Transformer::transform() {
  auto out = std::make_shared<Graph>();
  std::unordered_map<const Node*, Node*> env;
  auto map = [&](Node* x) -> Arg { return env.at(x); };
  for (const Node* n : graph_.nodes()) {
    std::vector<Arg> args;
    for (const Arg& a : n->args()) args.push_back(a.map_nodes(map));
    Kwargs kw;
    for (const auto& [k, v] : n->kwargs()) kw.emplace_back(k, v.map_nodes(map));
    Node* m = nullptr;
    switch (n->op()) {
      case Opcode::Placeholder: m = placeholder(*out, *n, std::move(args)); break;
      case Opcode::GetAttr: m = get_attr(*out, *n); break;
      case Opcode::CallFunction: m = call_function(*out, *n, std::move(args), std::move(kw)); break;
      case Opcode::CallMethod: m = call_method(*out, *n, std::move(args), std::move(kw)); break;
      case Opcode::CallModule: m = call_module(*out, *n, std::move(args), std::move(kw)); break;
      case Opcode::Output: m = out->output(std::move(args.at(0)), n->type); break;
    }
    if (m && m != env[n]) {
      if (!m->shape) m->shape = n->shape;
      if (!m->dtype) m->dtype = n->dtype;
    }
    env[n] = m;
  }
  out->lint();
  return out;
}

}  // namespace ember::fx
