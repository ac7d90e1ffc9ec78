"""The schema-driven Python binding of C++ ops (python/bindings/generic.cpp), through a
library of probe ops (tests/python/ext/binding_test_ops.cpp) loaded like a user extension."""
import os

import pytest

import ember

LIB = os.path.join(os.path.dirname(ember.__file__), "..", "..", "testlib", "libember_binding_test_ops.so")


@pytest.fixture(scope="module", autouse=True)
def probe_ops():
    assert os.path.exists(LIB), f"build the test library first: {LIB}"
    ember.load_library(LIB)


def test_function_and_method_forms():
    x = ember.zeros(2)
    assert ember.probe(x).values.tolist() == [2.0, 2.0]  # the default int[2] size=1 is [1, 1]
    assert x.probe().indices.tolist() == [0.0, 0.0]
    assert type(ember.probe(x)) is ember.return_types.probe
    assert ember.probe.__name__ == "probe" and "probe.Scalar" in ember.probe.__doc__


def test_defaults_keywords_and_optionals():
    x = ember.zeros(1)
    # len(size)=3, keepdim, dim=2, a generator
    r = ember.probe(x, (1, 2, 3), True, dim=2, generator=ember.Generator())
    assert r.values.tolist() == [3 + 100 + 2000 + 7]
    assert ember.probe(input=x, keepdim=True).values.tolist() == [102.0]
    assert ember.probe(x, dim=None).values.tolist() == [2.0]


def test_overloads_by_argument_type():
    x = ember.zeros(1)
    assert ember.probe(x, 1.5).tolist() == [1.5 + 0.5 + 2]  # Scalar overload, defaults f, mode
    assert ember.probe(x, other=1, mode="abcd", fl=[1, 2]).tolist() == [1 + 0.5 + 4 + 20]
    assert ember.probe(x, ember.ones(1)).tolist() == [-1.0]  # Tensor overload wins for a tensor
    assert x.probe(4).values.tolist() == [2.0]  # a bare int fits int[2] size first


def test_out_tuple_and_inplace_return_the_given_objects():
    x, v, i = ember.ones(2), ember.zeros(2), ember.zeros(2)
    r = ember.probe(x, out=(v, i))
    assert r.values is v and r.indices is i
    assert v.tolist() == [1.0, 1.0] and i.tolist() == [3.0, 3.0]
    assert x.probe_(2) is x and x.tolist() == [3.0, 3.0]
    assert not hasattr(ember, "probe_")  # in-place ops are methods only
    parts = ember.repeat_list(x, 3)
    assert isinstance(parts, tuple) and len(parts) == 3 and all(p.tolist() == x.tolist() for p in parts)


def test_method_only_tag():
    x = ember.ones(1)
    assert x.probe_method().tolist() == [-1.0]
    assert not hasattr(ember, "probe_method")


@pytest.mark.parametrize("call, message", [
    (lambda x: ember.repeat_list(x), "missing required argument 'n'"),
    (lambda x: ember.repeat_list(x, 2.0), "argument 'n' must be int, not float"),
    (lambda x: ember.repeat_list(x, 2, 3), "takes 2 positional arguments but 3 were given"),
    (lambda x: ember.repeat_list(x, n=2, foo=1), "unexpected keyword argument 'foo'"),
    (lambda x: ember.probe(x, "a"), "received an invalid combination of arguments - got (Tensor, str)"),
    (lambda x: ember.probe(x, out=x), "expected one of"),
])
def test_bad_arguments_raise_type_error(call, message):
    with pytest.raises(TypeError) as e:
        call(ember.zeros(1))
    assert message in str(e.value)
