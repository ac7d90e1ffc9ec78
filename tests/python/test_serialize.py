"""ember.save / ember.load: bit-exact round trips, containers, atomic writes, hostile input,
and interoperability with a safetensors reader and writer written here from the spec
(struct + json + numpy), and with files written by the C++ API."""
import io
import json
import os
import pathlib
import struct

import numpy as np
import pytest

import ember

CORPUS = pathlib.Path(__file__).resolve().parent.parent / "fuzz" / "corpus" / "load"
UPDATE = bool(os.environ.get("EMBER_UPDATE_FIXTURES"))

# The safetensors dtype codes and their NumPy types (BF16 as its raw 16 bits); C128 is
# Ember's extension of the spec.
NP_TYPES = {"BOOL": np.bool_, "U8": np.uint8, "I8": np.int8, "I16": np.int16, "I32": np.int32,
            "I64": np.int64, "F16": np.float16, "BF16": np.uint16, "F32": np.float32,
            "F64": np.float64, "C64": np.complex64, "C128": np.complex128}
EMBER_TYPES = {"BOOL": ember.bool, "U8": ember.uint8, "I8": ember.int8, "I16": ember.int16,
               "I32": ember.int32, "I64": ember.int64, "F16": ember.float16, "BF16": ember.bfloat16,
               "F32": ember.float32, "F64": ember.float64, "C64": ember.complex64,
               "C128": ember.complex128}
CODES = {np.dtype(v): k for k, v in NP_TYPES.items() if k != "BF16"}


def read_safetensors(data):
    """The spec: u64 little-endian header size, JSON header, then the byte buffer."""
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n].decode("utf-8"))
    metadata = header.pop("__metadata__", {})
    buf = data[8 + n:]
    arrays = {}
    for name, info in header.items():
        begin, end = info["data_offsets"]
        dt = np.dtype(NP_TYPES[info["dtype"]]).newbyteorder("<")
        arrays[name] = np.frombuffer(buf[begin:end], dtype=dt).reshape(info["shape"])
    return arrays, metadata


def write_safetensors(arrays, metadata=None):
    header, chunks, offset = {}, [], 0
    if metadata is not None:
        header["__metadata__"] = metadata
    for name, a in arrays.items():
        b = np.ascontiguousarray(a).astype(a.dtype.newbyteorder("<")).tobytes()
        header[name] = {"dtype": CODES[a.dtype], "shape": list(a.shape), "data_offsets": [offset, offset + len(b)]}
        chunks.append(b)
        offset += len(b)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + b"".join(chunks)


def raw(t):
    """An ember tensor's bytes in element order (bfloat16 through its bits)."""
    if t.dtype == ember.bfloat16:
        t = t.view(ember.int16)
    return t.contiguous().numpy().tobytes()


def from_bits(shape, code, seed):
    """Random bytes as a tensor, starting with the bit patterns that matter for floats:
    NaN with a payload, -0.0, infinities, the largest finite, the smallest subnormal."""
    itemsize = np.dtype(NP_TYPES[code]).itemsize
    n = int(np.prod(shape, dtype=np.int64))
    b = np.random.default_rng(seed).integers(0, 256, size=n * itemsize, dtype=np.uint8)
    specials = {"F16": [0x7e01, 0x8000, 0x7c00, 0xfc00, 0x7bff, 1], "BF16": [0x7fc1, 0x8000, 0x7f80, 0xff80, 0x7f7f, 1],
                "F32": [0x7fc00123, 0x80000000, 0x7f800000, 0xff800000, 0x7f7fffff, 1],
                "F64": [0x7ff8000000000123, 1 << 63, 0x7ff0 << 48, 0xfff0 << 48, 0x7fefffffffffffff, 1]}
    part = {"C64": "F32", "C128": "F64"}.get(code, code)
    width = np.dtype(NP_TYPES[part]).itemsize
    for i, v in enumerate(specials.get(part, [])):
        if (i + 1) * width <= b.size:
            b[i * width:(i + 1) * width] = np.frombuffer(v.to_bytes(width, "little"), np.uint8)
    if code == "BOOL":
        b &= 1
    if code == "BF16":
        return ember.from_numpy(b.view(np.int16).reshape(shape).copy()).view(ember.bfloat16)
    return ember.from_numpy(b.view(NP_TYPES[code]).reshape(shape).copy())


def roundtrip(obj):
    f = io.BytesIO()
    ember.save(obj, f)
    f.seek(0)
    return ember.load(f)


@pytest.mark.parametrize("code", list(NP_TYPES))
def test_every_dtype_round_trips_bit_exactly(code):
    obj = {"vector": from_bits((7,), code, 1), "scalar": from_bits((), code, 2),
           "empty": ember.empty((0, 3), dtype=EMBER_TYPES[code]), "transposed": from_bits((3, 4), code, 3).t()}
    back = roundtrip(obj)
    assert list(back) == list(obj)
    for k, t in obj.items():
        assert back[k].dtype == t.dtype and tuple(back[k].shape) == tuple(t.shape)
        assert raw(back[k]) == raw(t)
    # The spec's reader sees the same elements, under the dict's keys.
    arrays, metadata = read_safetensors(ember._C._save_to_bytes(obj))
    assert set(arrays) == set(obj) and "ember.structure" not in metadata
    for k, t in obj.items():
        assert arrays[k].shape == tuple(t.shape)
        assert arrays[k].tobytes() == raw(t)


def test_file_written_by_the_spec_loads(tmp_path):
    rng = np.random.default_rng(0)
    arrays = {"b": rng.standard_normal((3, 2)).astype(np.float32), "a": np.arange(5, dtype=np.int64),
              "m": np.array([[True], [False]]), "c": (rng.standard_normal(2) + 1j).astype(np.complex128)}
    path = tmp_path / "spec.safetensors"
    path.write_bytes(write_safetensors(arrays, {"format": "np"}))
    back = ember.load(path)
    assert list(back) == list(arrays)  # data order
    for k, a in arrays.items():
        np.testing.assert_array_equal(back[k].numpy(), a)


def python_fixture():
    return {"weight": np.arange(6, dtype=np.float32).reshape(2, 3) / 4, "mask": np.array([True, False, True]),
            "ids": np.array([1, -2, 2 ** 40], dtype=np.int64), "half": np.array([1.5, -0.0, np.inf], np.float16),
            "scalar": np.array(2.5), "empty": np.zeros((0, 4), np.int16), "z": np.array([1 + 2j], np.complex64)}


def test_cross_language_fixtures():
    # python_written.safetensors is what the writer above makes; tests/cpp/test_serialize.cpp
    # loads it. cpp_written.safetensors is what that test's ember::save makes; it loads here.
    data = write_safetensors(python_fixture(), {"format": "np"})
    if UPDATE:
        (CORPUS / "python_written.safetensors").write_bytes(data)
    assert (CORPUS / "python_written.safetensors").read_bytes() == data
    back = ember.load(CORPUS / "cpp_written.safetensors")
    state = back["state"]
    assert list(state) == [0, 1] and state[0]["step"] == 3
    np.testing.assert_array_equal(state[0]["exp_avg"].numpy(), np.arange(6, dtype=np.float32).reshape(2, 3) * 0.5)
    assert state[1]["exp_avg"].dtype == ember.int64
    assert state[1]["exp_avg"].tolist() == [-1, 2 ** 40]
    assert back["shared"] is state[0]["exp_avg"]
    assert back["param_groups"] == [{"lr": 0.01, "betas": (0.9, 0.999), "params": [0, 1], "amsgrad": False,
                                     "foreach": None}]
    assert raw(back["half"]) == np.array([1.5, -0.0, np.inf], np.float16).tobytes()
    assert raw(back["bf16"]) == np.array([0x3f80, 0xc000], np.uint16).tobytes()
    assert back["z"].numpy().tolist() == [1 + 2j]


def test_nested_containers():
    shared = ember.randn(2, 2)
    other = ember.arange(3, dtype=ember.int32)
    obj = {"state": {0: {"step": 3, "exp_avg": shared}, 1: {"step": 4, "exp_avg": other}},
           "param_groups": [{"lr": 0.1, "betas": (0.9, 0.999), "params": [0, 1], "nesterov": False,
                             "name": None, "eps": -0.0, "max": float("inf"), "big": -2 ** 63, "text": "héllo"}],
           "alias": shared, None: "none key", 2.5: "float key", True: "bool key", "nested": ((), [[{}]])}
    back = roundtrip(obj)
    assert list(back) == list(obj)
    assert list(back["state"]) == [0, 1]
    assert back["state"][0]["exp_avg"] is back["alias"]  # one object, stored once
    assert raw(back["alias"]) == raw(shared)
    group = back["param_groups"][0]
    expect = dict(obj["param_groups"][0])
    assert group == expect and isinstance(group["betas"], tuple) and isinstance(group["params"], list)
    assert str(group["eps"]) == "-0.0"
    assert back[None] == "none key" and back[2.5] == "float key" and back[True] == "bool key"
    assert back["nested"] == ((), [[{}]])
    nan = roundtrip([float("nan")])[0]
    assert nan != nan
    for plain in (None, 7, 1.5, "s", True, (), []):
        assert roundtrip(plain) == plain
    # Views of one storage come back as separate tensors.
    a, b = roundtrip([shared, shared[0]])
    b.zero_()
    assert raw(a) == raw(shared)


def test_parameters_are_saved_as_tensors():
    lin = ember.nn.Linear(3, 2)
    back = roundtrip(lin.state_dict(keep_vars=True))
    assert type(back["weight"]) is ember.Tensor and not back["weight"].requires_grad
    assert raw(back["weight"]) == raw(lin.weight.detach())


def test_model_state_dict_round_trip(tmp_path):
    ember.manual_seed(0)
    model = ember.nn.Sequential(ember.nn.Linear(4, 8), ember.nn.ReLU(), ember.nn.Linear(8, 2))
    ember.save(model.state_dict(), tmp_path / "model.safetensors")
    ember.manual_seed(1)
    fresh = ember.nn.Sequential(ember.nn.Linear(4, 8), ember.nn.ReLU(), ember.nn.Linear(8, 2))
    x = ember.randn(5, 4)
    assert raw(fresh(x).detach()) != raw(model(x).detach())
    state = ember.load(tmp_path / "model.safetensors", map_location="cpu")
    assert list(state) == list(model.state_dict())
    fresh.load_state_dict(state)
    assert raw(fresh(x).detach()) == raw(model(x).detach())
    # Plain safetensors: the spec's reader sees the state dict as it is.
    arrays, _ = read_safetensors((tmp_path / "model.safetensors").read_bytes())
    assert sorted(arrays) == sorted(state)


@pytest.mark.parametrize("bad, name", [({1, 2}, "set"), (object(), "object"), (np.float64(1), "numpy.float64"),
                                       (1j, "complex"), (b"x", "bytes"), ({(1, 2): 3}, "tuple"),
                                       ([ember.nn.Linear(1, 1)], "Linear")])
def test_unsupported_objects_raise_before_writing(tmp_path, bad, name):
    path = tmp_path / "x.safetensors"
    ember.save({"ok": ember.ones(2)}, path)
    before = path.read_bytes()
    with pytest.raises(TypeError, match=name):
        ember.save({"w": ember.ones(2), "bad": bad}, path)
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["x.safetensors"]
    f = io.BytesIO()
    with pytest.raises(TypeError):
        ember.save([bad], f)
    assert f.getvalue() == b""


def test_other_refusals():
    cycle = []
    cycle.append(cycle)
    with pytest.raises(ValueError, match="nested deeper than 100"):
        roundtrip(cycle)
    with pytest.raises(ValueError, match="64 bits"):
        roundtrip(2 ** 64)
    with pytest.raises(UnicodeEncodeError):
        roundtrip("\ud800")
    with pytest.raises(ValueError, match="map_location"):
        ember.load(io.BytesIO(b""), map_location="cuda:0")


def test_atomic_writes(tmp_path):
    target = tmp_path / "taken"
    (target / "inside").mkdir(parents=True)  # rename over a non-empty directory fails
    with pytest.raises(RuntimeError, match="cannot replace the file"):
        ember.save([1], target)
    assert os.listdir(tmp_path) == ["taken"]
    with pytest.raises(RuntimeError, match="cannot create a temporary file"):
        ember.save([1], tmp_path / "missing" / "x.safetensors")
    assert os.listdir(tmp_path) == ["taken"]
    if os.geteuid() == 0:  # root writes anywhere, but not into sysfs
        readonly = pathlib.Path("/sys")
    else:
        readonly = tmp_path / "readonly"
        readonly.mkdir(mode=0o500)
    with pytest.raises(RuntimeError, match="cannot create a temporary file"):
        ember.save([1], readonly / "x.safetensors")
    assert not (readonly / "x.safetensors").exists()
    with pytest.raises(FileNotFoundError):
        ember.load(tmp_path / "nope")


def test_paths_and_file_objects(tmp_path):
    t = ember.arange(4.0)
    ember.save({"t": t}, str(tmp_path / "a"))
    with open(tmp_path / "a", "rb") as f:
        assert raw(ember.load(f)["t"]) == raw(t)
    with open(tmp_path / "b", "wb") as f:
        ember.save(t, f)
    assert raw(ember.load(tmp_path / "b")) == raw(t)
    assert raw(ember.load(io.BytesIO((tmp_path / "b").read_bytes()))) == raw(t)


def test_every_truncation_raises():
    data = ember._C._save_to_bytes({"a": (ember.arange(3, dtype=ember.int16), 1.5)})
    for n in range(len(data)):
        with pytest.raises(RuntimeError, match="ember.load: trunc.safetensors: "):
            ember._C._load_bytes(data[:n], "trunc.safetensors")


def test_corrupted_headers_load_or_raise():
    data = bytearray(ember._C._save_to_bytes({"a": [ember.arange(3, dtype=ember.int16), {0: 1.5}]}))
    (n,) = struct.unpack("<Q", data[:8])
    for i in range(8 + n):
        for v in (0, 0x22, 0x7b, 0xff):
            bad = bytearray(data)
            bad[i] = v
            try:
                ember._C._load_bytes(bytes(bad), "corrupt")
            except RuntimeError as e:
                assert str(e).startswith("ember.load: corrupt: ")


def header_file(header, data=b""):
    text = (header if isinstance(header, bytes) else json.dumps(header).encode())
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + data


def f32(shape, offsets):
    return {"t": {"dtype": "F32", "shape": shape, "data_offsets": offsets}}


def structure(s):
    return header_file({"__metadata__": {"ember.structure": s}, "x": {"dtype": "U8", "shape": [], "data_offsets": [0, 1]}},
                       b"\x05")


@pytest.mark.parametrize("data, msg", [
    (b"\xff" * 8, "exceeds the limit"),
    (struct.pack("<Q", 16) + b"{}", "runs past the end"),
    (header_file(b"[]"), "does not start with"),
    (header_file(b"{"), "not valid JSON"),
    (header_file(b'{"\xff":1}'), "not valid JSON"),
    (header_file({"t": 1}), "expected an object"),
    (header_file({"t": {"dtype": "U16", "shape": [1], "data_offsets": [0, 2]}}, b"ab"), "unsupported dtype"),
    (header_file({"t": {"dtype": "F32", "data_offsets": [0, 4]}}, b"abcd"), 'missing "shape"'),
    (header_file(f32([-1], [0, 0])), "negative"),
    (header_file(f32([2 ** 32, 2 ** 32], [0, 0])), "overflows"),
    (header_file(f32([1] * 65, [0, 4]), b"abcd"), "more than 64"),
    (header_file(f32([2], [0, 4]), b"abcd"), "needs 8"),
    (header_file(f32([1], [0, 4]), b"abcd" * 2), "data buffer holds 8"),
    (header_file(f32([1], [4, 8]), b"abcd" * 2), "hole"),
    (header_file({"a": {"dtype": "U8", "shape": [2], "data_offsets": [0, 2]},
                  "b": {"dtype": "U8", "shape": [2], "data_offsets": [1, 3]}}, b"abc"), "overlaps"),
    (header_file({"t": {"dtype": "BOOL", "shape": [1], "data_offsets": [0, 1]}}, b"\x07"), "other than 0 and 1"),
    (header_file({"__metadata__": {"k": 1}}), "not a string"),
    (structure("[{\"tensor\": \"y\"}]"), "missing tensor 'y'"),
    (structure("["), "ember.structure is not valid JSON"),
    (structure("[" * 101 + "{\"tensor\": \"x\"}" + "]" * 101), "nested deeper than 100"),
    (structure("[" * 10000 + "]" * 10000), "nests JSON deeper"),
    (structure("[1]"), "not referenced"),
])
def test_hostile_inputs_raise(data, msg):
    with pytest.raises(RuntimeError, match="ember.load: hostile: .*" + msg):
        ember._C._load_bytes(data, "hostile")
    f = io.BytesIO(data)
    f.name = "named.safetensors"
    with pytest.raises(RuntimeError, match="ember.load: named.safetensors: "):
        ember.load(f)


def test_fuzzing_corpus_loads_or_raises():
    """Every seed and fuzzer find loads or raises RuntimeError through the Python layer too
    (the C++ replay is the ctest test fuzz_load_corpus)."""
    files = sorted(CORPUS.iterdir())
    assert len(files) > 20
    for path in files:
        try:
            ember.load(path)
        except RuntimeError as e:
            assert str(e).startswith(f"ember.load: {path}: ")
    # A repeated dict key: the later value wins, as in Python; the tensor whose first
    # reference was dropped with the earlier value is still alive.
    back = ember.load(CORPUS / "crash_python_repeated_key_drops_shared_tensor.safetensors")
    assert back[0] == 1 and back[1].tolist() == [1]


def test_optimizer_and_scheduler_state_round_trip(tmp_path):
    """Adam's state (int keys, step tensors, betas tuples, None options) and a scheduler's
    state survive ember.save/load: a fresh pair loaded from the file continues identically."""
    def setup(seed):
        ember.manual_seed(seed)
        w = ember.randn(3, 4, requires_grad=True)
        b = ember.randn(4, requires_grad=True)
        opt = ember.optim.Adam([{"params": [w]}, {"params": [b], "lr": 0.01}], lr=0.1, amsgrad=True)
        return (w, b), opt, ember.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)

    def step(params, opt, sched):
        opt.zero_grad()
        (params[0].sum(0) * params[1]).pow(2).sum().backward()
        opt.step()
        sched.step()

    params, opt, sched = setup(0)
    for _ in range(3):
        step(params, opt, sched)
    ember.save({"params": [p.detach() for p in params], "optimizer": opt.state_dict(),
                "scheduler": sched.state_dict()}, tmp_path / "ckpt")
    state = ember.load(tmp_path / "ckpt")
    assert state["optimizer"]["param_groups"][0]["betas"] == (0.9, 0.999)
    assert sorted(state["optimizer"]["state"]) == [0, 1]
    fresh_params, fresh_opt, fresh_sched = setup(1)
    with ember.no_grad():
        for p, saved in zip(fresh_params, state["params"]):
            p.copy_(saved)
    fresh_opt.load_state_dict(state["optimizer"])
    fresh_sched.load_state_dict(state["scheduler"])
    for _ in range(3):
        step(params, opt, sched)
        step(fresh_params, fresh_opt, fresh_sched)
    for p, q in zip(params, fresh_params):
        assert raw(p.detach()) == raw(q.detach())
    assert fresh_sched.get_last_lr() == sched.get_last_lr()
