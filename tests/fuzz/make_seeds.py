"""Writes the seed files of tests/fuzz/corpus/load: a small valid file per dtype, shape kind and
kind of container, and a few malformed ones. Run with PYTHONPATH=build/python; the fuzzer's
crash reproducers and cpp_written/python_written.safetensors (the tests' fixtures) live in the
same directory and are not touched."""
import pathlib

import ember

OUT = pathlib.Path(__file__).resolve().parent / "corpus" / "load"
DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
          "float64", "complex64", "complex128"]


def main():
    seeds = {}
    for name in DTYPES:
        dt = getattr(ember, name)
        seeds[f"dtype_{name}"] = {"t": (ember.arange(4) % 2).to(dt).view(2, 2)}
    seeds["scalar_and_empty"] = {"scalar": ember.tensor(1.5), "empty": ember.zeros(0, 3)}
    shared = ember.ones(2)
    seeds["optimizer_state"] = {"state": {0: {"step": 1, "exp_avg": shared}},
                                "param_groups": [{"lr": 0.1, "betas": (0.9, 0.999), "params": [0],
                                                  "nesterov": False, "foreach": None}]}
    seeds["shared_tensor"] = [shared, shared, {"alias": shared}]
    seeds["plain_values"] = [None, True, -7, 2.5, float("inf"), float("nan"), -0.0, "s", (), {}]
    seeds["key_kinds"] = {None: 0, False: 1, 2: 2, 3.5: 3, "k": ember.zeros(1, dtype=ember.int8)}
    seeds["empty_dict"] = {}
    seeds["nested"] = ((([[{"deep": (ember.zeros(1),)}]],),),)
    for name, obj in seeds.items():
        (OUT / f"{name}.safetensors").write_bytes(ember._C._save_to_bytes(obj))
    valid = ember._C._save_to_bytes({"a": ember.arange(3), "b": ember.ones(2, dtype=ember.bool)})
    (OUT / "bad_truncated.safetensors").write_bytes(valid[:-3])
    (OUT / "bad_header_length.safetensors").write_bytes(b"\xff" * 8 + valid[8:])


if __name__ == "__main__":
    main()
