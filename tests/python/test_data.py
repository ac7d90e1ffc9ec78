"""ember.utils.data against torch.utils.data (1.13): datasets, samplers, collation and the
DataLoader's deterministic behaviour (orders, batch boundaries, lengths, dtypes, errors) are
compared with torch; random orders are compared between Ember runs (Ember's generator does
not reproduce torch's numbers). Worker threads: same batches for any number of workers,
exceptions re-raised in the iterating thread, clean shutdown. Hangs fail through timeouts."""
import collections
import gc
import os
import subprocess
import sys
import threading
import time
import warnings

import numpy as np
import pytest
import torch
import torch.utils.data as tud

import ember
import ember.utils.data as eud

Point = collections.namedtuple("Point", ["x", "y"])


def norm(x):
    """A structure comparable between torch and Ember: tensors become (dtype, shape, values)."""
    if isinstance(x, (torch.Tensor, ember.Tensor)):
        return ("tensor", str(x.dtype).split(".")[-1], tuple(x.shape), x.tolist())
    if isinstance(x, dict):
        return (type(x).__name__, {k: norm(v) for k, v in x.items()})
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, [norm(v) for v in x])
    return x


def run_with_timeout(fn, seconds=60):
    """fn() on a helper thread; a hang fails the test instead of blocking the suite."""
    out = {}

    def target():
        try:
            out["value"] = fn()
        except BaseException as e:  # noqa: B036 - re-raised below
            out["error"] = e

    t = threading.Thread(target=target, daemon=True)
    t.start()
    t.join(seconds)
    if t.is_alive():
        pytest.fail(f"did not finish within {seconds} s")
    if "error" in out:
        raise out["error"]
    return out.get("value")


def error_of(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the type and text are compared
        return type(e), str(e)
    return None


def same_error(ember_fn, torch_fn):
    e, t = error_of(ember_fn), error_of(torch_fn)
    assert t is not None and e is not None, (e, t)
    assert e[0] is t[0], (e, t)
    assert e[1] == t[1], (e, t)


def worker_threads():
    return [t for t in threading.enumerate() if t.name.startswith("ember DataLoader worker")]


def wait_for_no_workers(seconds=20):
    deadline = time.monotonic() + seconds
    while worker_threads() and time.monotonic() < deadline:
        gc.collect()
        time.sleep(0.05)
    assert not worker_threads(), worker_threads()


class Squares(eud.Dataset):
    def __init__(self, n, fail_at=None, exc=ValueError, delay=0.0):
        self.n, self.fail_at, self.exc, self.delay = n, fail_at, exc, delay
        self.calls = 0
        self.lock = threading.Lock()

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        with self.lock:
            self.calls += 1
        if self.delay:
            time.sleep(self.delay)
        if i == self.fail_at:
            raise self.exc(f"bad index {i}")
        return {"i": i, "sq": ember.tensor([float(i * i)])}


def test_lazy_import():
    code = "import ember; print(ember.utils.data.DataLoader.__name__, ember.utils.data.read_idx.__name__)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=os.environ)
    assert out.stdout.split() == ["DataLoader", "read_idx"], out.stderr


# ---------------------------------------------------------------- datasets
def test_generic_base_classes():
    class Items(eud.Dataset[int]):
        def __getitem__(self, i):
            return i

        def __len__(self):
            return 3

    class Stream(eud.IterableDataset[int]):
        def __iter__(self):
            return iter([5])

    class Evens(eud.Sampler[int]):
        def __iter__(self):
            return iter([0, 2])

    assert [int(b) for b in eud.DataLoader(Items(), sampler=Evens())] == [0, 2]
    assert [int(b) for b in eud.DataLoader(Stream())] == [5]


def test_tensor_dataset():
    x, y = np.arange(12.0).reshape(6, 2), np.arange(6)
    e = eud.TensorDataset(ember.tensor(x), ember.tensor(y))
    t = tud.TensorDataset(torch.tensor(x), torch.tensor(y))
    assert len(e) == len(t) == 6
    assert norm(e[3]) == norm(t[3])
    assert norm(e[-1]) == norm(t[-1])
    same_error(lambda: eud.TensorDataset(ember.zeros(3), ember.zeros(4)),
               lambda: tud.TensorDataset(torch.zeros(3), torch.zeros(4)))


def test_concat_chain_subset():
    for mod, lib in ((eud, ember), (tud, torch)):
        a = mod.TensorDataset(lib.arange(3))
        b = mod.TensorDataset(lib.arange(10, 12))
        c = a + b
        assert isinstance(c, mod.ConcatDataset)
        assert len(c) == 5 and c.cumulative_sizes == [3, 5]
        assert [int(c[i][0]) for i in range(-5, 5)] == [0, 1, 2, 10, 11, 0, 1, 2, 10, 11]
        s = mod.Subset(c, [4, 0, 3])
        assert len(s) == 3 and [int(s[i][0]) for i in range(3)] == [11, 0, 10]
    same_error(lambda: eud.ConcatDataset([eud.TensorDataset(ember.arange(3))])[-4],
               lambda: tud.ConcatDataset([tud.TensorDataset(torch.arange(3))])[-4])
    same_error(lambda: eud.ConcatDataset([]), lambda: tud.ConcatDataset([]))

    class EIt(eud.IterableDataset):
        def __init__(self, r):
            self.r = r

        def __iter__(self):
            return iter(self.r)

        def __len__(self):
            return len(self.r)

    class TIt(tud.IterableDataset):
        def __init__(self, r):
            self.r = r

        def __iter__(self):
            return iter(self.r)

        def __len__(self):
            return len(self.r)

    ec, tc = EIt(range(3)) + EIt(range(5, 7)), TIt(range(3)) + TIt(range(5, 7))
    assert isinstance(ec, eud.ChainDataset)
    assert list(ec) == list(tc) == [0, 1, 2, 5, 6] and len(ec) == len(tc) == 5
    same_error(lambda: eud.ConcatDataset([EIt(range(2))]), lambda: tud.ConcatDataset([TIt(range(2))]))
    same_error(lambda: list(eud.ChainDataset([eud.TensorDataset(ember.arange(2))])),
               lambda: list(tud.ChainDataset([tud.TensorDataset(torch.arange(2))])))
    assert error_of(lambda: eud.Dataset()[0])[0] is error_of(lambda: tud.Dataset()[0])[0] is NotImplementedError


@pytest.mark.parametrize("lengths", [[3, 7], [0.3, 0.3, 0.4], [0.5, 0.5], [1], [0.25, 0.25, 0.25, 0.25], [10, 0]])
def test_random_split_lengths(lengths):
    with warnings.catch_warnings(record=True) as ew:
        warnings.simplefilter("always")
        e = eud.random_split(range(10), lengths, generator=ember.Generator().manual_seed(1))
    with warnings.catch_warnings(record=True) as tw:
        warnings.simplefilter("always")
        t = tud.random_split(range(10), lengths, generator=torch.Generator().manual_seed(1))
    assert [len(s) for s in e] == [len(s) for s in t]
    assert [str(w.message) for w in ew] == [str(w.message) for w in tw]
    assert sorted(i for s in e for i in s) == list(range(10))
    assert all(isinstance(s, eud.Subset) for s in e)
    again = eud.random_split(range(10), lengths, generator=ember.Generator().manual_seed(1))
    assert [list(s) for s in again] == [list(s) for s in e]


def test_random_split_default_generator_and_errors():
    ember.manual_seed(4)
    a = [list(s) for s in eud.random_split(range(20), [5, 15])]
    ember.manual_seed(4)
    assert [list(s) for s in eud.random_split(range(20), [5, 15])] == a
    for lengths in ([3, 8], [0.5, 0.6], [-0.5, 1.5]):
        same_error(lambda: eud.random_split(range(10), lengths), lambda: tud.random_split(range(10), lengths))


# ---------------------------------------------------------------- samplers
def test_sequential_and_batch_sampler_match_torch():
    for n in (0, 1, 7, 12):
        assert list(eud.SequentialSampler(range(n))) == list(tud.SequentialSampler(range(n)))
        for bs in (1, 3, 5, 13):
            for drop in (False, True):
                e = eud.BatchSampler(eud.SequentialSampler(range(n)), bs, drop)
                t = tud.BatchSampler(tud.SequentialSampler(range(n)), bs, drop)
                assert list(e) == list(t) and len(e) == len(t)
    for bad in (0, -1, True, 2.0):
        same_error(lambda: eud.BatchSampler(range(3), bad, False), lambda: tud.BatchSampler(range(3), bad, False))
    same_error(lambda: eud.BatchSampler(range(3), 2, 1), lambda: tud.BatchSampler(range(3), 2, 1))


def test_random_sampler():
    ember.manual_seed(3)
    s = eud.RandomSampler(range(40))
    a, b = list(s), list(s)
    assert sorted(a) == sorted(b) == list(range(40)) and a != b
    ember.manual_seed(3)
    assert list(s) == a
    g = ember.Generator().manual_seed(9)
    first = list(eud.RandomSampler(range(40), generator=g))
    assert first == list(eud.RandomSampler(range(40), generator=ember.Generator().manual_seed(9)))
    for replacement, num in ((True, 70), (False, 70), (False, 5), (True, 3)):
        e = eud.RandomSampler(range(4), replacement=replacement, num_samples=num)
        t = tud.RandomSampler(range(4), replacement=replacement, num_samples=num)
        ev = list(e)
        assert len(ev) == len(e) == len(t) == num
        assert all(0 <= i < 4 for i in ev)
        if not replacement:
            assert sorted(ev[:4]) == list(range(4)) if num >= 4 else len(set(ev)) == num
    same_error(lambda: eud.RandomSampler(range(3), replacement=1), lambda: tud.RandomSampler(range(3), replacement=1))
    same_error(lambda: eud.RandomSampler(range(0)), lambda: tud.RandomSampler(range(0)))
    same_error(lambda: eud.RandomSampler(range(3), num_samples=0), lambda: tud.RandomSampler(range(3), num_samples=0))


def test_subset_and_weighted_samplers():
    g = ember.Generator().manual_seed(2)
    e = list(eud.SubsetRandomSampler([10, 20, 30, 40], generator=g))
    assert sorted(e) == [10, 20, 30, 40]
    assert len(eud.SubsetRandomSampler([1, 2])) == 2
    w = eud.WeightedRandomSampler([0, 1, 0, 3.0], 300)
    drawn = list(w)
    assert len(drawn) == len(w) == 300 and set(drawn) <= {1, 3}
    assert sorted(eud.WeightedRandomSampler([1, 1, 1], 3, replacement=False)) == [0, 1, 2]
    for args in (([1, 2], 0), ([1, 2], True), ([1, 2], 2, 1), ([[1, 2]], 2)):
        same_error(lambda: eud.WeightedRandomSampler(*args), lambda: tud.WeightedRandomSampler(*args))


def test_distributed_sampler():
    for n in (1, 5, 10, 11):
        for replicas in (1, 2, 3, 4):
            for drop in (False, True):
                for rank in range(replicas):
                    e = eud.DistributedSampler(range(n), replicas, rank, shuffle=False, drop_last=drop)
                    t = tud.DistributedSampler(range(n), replicas, rank, shuffle=False, drop_last=drop)
                    assert list(e) == list(t) and len(e) == len(t) and e.total_size == t.total_size
    parts = [list(eud.DistributedSampler(range(10), 2, r, seed=5)) for r in range(2)]
    assert sorted(parts[0] + parts[1]) == list(range(10))
    s = eud.DistributedSampler(range(50), 2, 0, seed=5)
    e0 = list(s)
    s.set_epoch(1)
    assert list(s) != e0
    s.set_epoch(0)
    assert list(s) == e0
    assert list(eud.DistributedSampler(range(50), 2, 0, seed=6)) != e0
    same_error(lambda: eud.DistributedSampler(range(4), 2, 2), lambda: tud.DistributedSampler(range(4), 2, 2))
    same_error(lambda: eud.DistributedSampler(range(4), 2, -1), lambda: tud.DistributedSampler(range(4), 2, -1))
    with pytest.raises(RuntimeError):
        eud.DistributedSampler(range(4))


# ---------------------------------------------------------------- collation
def collate_cases(lib):
    arr = lambda *a, **k: np.array(*a, **k)  # noqa: E731
    return [
        [lib.tensor([1.0, 2.0]), lib.tensor([3.0, 4.0])],
        [lib.tensor(3, dtype=lib.int16), lib.tensor(4, dtype=lib.int16)],
        [1, 2, 3],
        [1.5, 2.5],
        [True, False],
        [1, 2.5],
        ["a", "b"],
        [arr([1, 2], dtype=np.float32), arr([3, 4], dtype=np.float32)],
        [arr([[1]], dtype=np.int16), arr([[2]], dtype=np.int16)],
        [np.float64(1.5), np.float64(2.5)],
        [np.int32(1), np.int32(2)],
        [np.bool_(True), np.bool_(False)],
        [{"a": 1, "b": lib.ones(2)}, {"a": 2, "b": lib.zeros(2)}],
        [collections.OrderedDict(x=1.0), collections.OrderedDict(x=2.0)],
        [Point(1, 2.0), Point(3, 4.0)],
        [(1, "s", [1.0, 2]), (2, "t", [3.0, 4])],
        [[1, 2], [3, 4]],
    ]


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # torch's own, for np.bool_ scalars
def test_default_collate_matches_torch():
    for e, t in zip(collate_cases(ember), collate_cases(torch)):
        eo, to = eud.default_collate(e), tud.default_collate(t)
        assert norm(eo) == norm(to), (e, eo, to)
        assert type(eo).__name__ == type(to).__name__
    out = eud.default_collate([Point(1, 2.0), Point(3, 4.0)])
    assert isinstance(out, Point) and out.x.dtype == ember.int64 and out.y.dtype == ember.float64
    same_error(lambda: eud.default_collate([[1, 2], [3]]), lambda: tud.default_collate([[1, 2], [3]]))
    same_error(lambda: eud.default_collate([np.array(["a"]), np.array(["b"])]),
               lambda: tud.default_collate([np.array(["a"]), np.array(["b"])]))
    same_error(lambda: eud.default_collate([object()]), lambda: tud.default_collate([object()]))
    with pytest.raises(RuntimeError):
        eud.default_collate([ember.zeros(2), ember.zeros(3)])


def test_default_convert_matches_torch():
    for sample in (np.arange(3, dtype=np.int16), np.float32(2.5), 3, "s", (np.arange(2), 1.0),
                   {"a": np.ones(2), "b": [np.int64(1)]}, [np.zeros((2, 2))], np.array(["x"])):
        e, t = eud.default_convert(sample), tud.default_convert(sample)
        if isinstance(sample, np.ndarray) and sample.dtype.kind == "U":
            assert e is sample and t is sample
        else:
            assert norm(e) == norm(t)
    assert isinstance(eud.default_convert(Point(np.int64(1), 2)), Point)
    t = ember.ones(2)
    assert eud.default_convert(t) is t


# ---------------------------------------------------------------- DataLoader, deterministic parts vs torch
def batches_of(loader):
    return [norm(b) for b in loader]


@pytest.mark.parametrize("num_workers", [0, 2])
def test_loader_sequential_matches_torch(num_workers):
    x = np.arange(30, dtype=np.float32).reshape(10, 3)
    y = np.arange(10)
    e_ds, t_ds = eud.TensorDataset(ember.tensor(x), ember.tensor(y)), tud.TensorDataset(torch.tensor(x), torch.tensor(y))
    for kwargs in ({}, {"batch_size": 3}, {"batch_size": 3, "drop_last": True}, {"batch_size": 10},
                   {"batch_size": 4, "drop_last": False}, {"batch_size": None},
                   {"batch_sampler": [[0, 5], [9], [1, 2, 3]]},
                   {"sampler": [9, 8, 1], "batch_size": 2}):
        e = eud.DataLoader(e_ds, num_workers=num_workers, **kwargs)
        t = tud.DataLoader(t_ds, num_workers=0, **kwargs)
        if not isinstance(kwargs.get("sampler"), list):
            assert len(e) == len(t)
        assert run_with_timeout(lambda: batches_of(e)) == batches_of(t), kwargs
    # Samples as dicts, collated by key; a custom collate_fn.
    e = eud.DataLoader(Squares(5), batch_size=2, num_workers=num_workers)
    t = tud.DataLoader([{"i": i, "sq": torch.tensor([float(i * i)])} for i in range(5)], batch_size=2)
    assert run_with_timeout(lambda: batches_of(e)) == batches_of(t)
    e = eud.DataLoader(range(7), batch_size=3, num_workers=num_workers, collate_fn=lambda b: sum(b))
    assert run_with_timeout(lambda: list(e)) == [3, 12, 6]


class EStream(eud.IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        info = eud.get_worker_info()
        if info is None:
            return iter(range(self.n))
        return iter(range(info.id, self.n, info.num_workers))

    def __len__(self):
        return self.n


class TStream(tud.IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(self.n))

    def __len__(self):
        return self.n


def test_loader_iterable_dataset():
    for kwargs in ({}, {"batch_size": 3}, {"batch_size": 3, "drop_last": True}, {"batch_size": None}):
        e, t = eud.DataLoader(EStream(10), **kwargs), tud.DataLoader(TStream(10), **kwargs)
        assert len(e) == len(t)
        assert batches_of(e) == batches_of(t)
    # Two workers, each its own shard; batches alternate between them, as in torch.
    e = eud.DataLoader(EStream(10), batch_size=2, num_workers=2)
    got = run_with_timeout(lambda: [b.tolist() for b in e])
    assert got == [[0, 2], [1, 3], [4, 6], [5, 7], [8], [9]]
    e = eud.DataLoader(EStream(10), batch_size=2, num_workers=2, drop_last=True)
    assert run_with_timeout(lambda: [b.tolist() for b in e]) == [[0, 2], [1, 3], [4, 6], [5, 7]]
    # A stream that every worker yields in full: more batches than len() said, as torch warns.
    class Unsharded(eud.IterableDataset):
        def __iter__(self):
            return iter(range(4))

        def __len__(self):
            return 4

    loader = eud.DataLoader(Unsharded(), batch_size=None, num_workers=2)
    assert len(loader) == 4
    with pytest.warns(UserWarning, match="was reported to be 4"):
        assert run_with_timeout(lambda: [int(b) for b in loader]) == [0, 0, 1, 1, 2, 2, 3, 3]
    # Streams of different lengths: the ended worker is skipped.
    e = eud.DataLoader(EStream(5), batch_size=2, num_workers=3)
    assert run_with_timeout(lambda: [b.tolist() for b in e]) == [[0, 3], [1, 4], [2]]


def test_loader_argument_errors_match_torch():
    cases = [
        dict(num_workers=-1), dict(timeout=-1), dict(prefetch_factor=3),
        dict(persistent_workers=True), dict(sampler=[0, 1], shuffle=True),
        dict(batch_sampler=[[0]], batch_size=2), dict(batch_sampler=[[0]], shuffle=True),
        dict(batch_sampler=[[0]], sampler=[0]), dict(batch_sampler=[[0]], drop_last=True),
        dict(batch_size=None, drop_last=True), dict(batch_size=0), dict(batch_size=2, drop_last=1),
    ]
    for kw in cases:
        same_error(lambda: eud.DataLoader(range(4), **kw), lambda: tud.DataLoader(range(4), **kw))
    for kw in (dict(shuffle=True), dict(sampler=[0]), dict(batch_sampler=[[0]])):
        e = error_of(lambda: eud.DataLoader(EStream(3), **kw))
        t = error_of(lambda: tud.DataLoader(TStream(3), **kw))
        assert e[0] is t[0] is ValueError
        assert e[1].split(", but got")[0] == t[1].split(", but got")[0]
    for attr in ("batch_size", "sampler", "dataset", "drop_last", "batch_sampler", "persistent_workers"):
        el, tl = eud.DataLoader(range(4)), tud.DataLoader(range(4))
        same_error(lambda: setattr(el, attr, 1), lambda: setattr(tl, attr, 1))
    el = eud.DataLoader(range(4))
    el.num_workers = 2  # not guarded, as in torch
    assert batches_of(el) == batches_of(tud.DataLoader(range(4)))


# ---------------------------------------------------------------- worker threads
@pytest.mark.parametrize("use_generator", [False, True])
def test_same_batches_for_any_worker_count(use_generator):
    x = ember.arange(103)
    ds = eud.TensorDataset(x, x * 10)
    results = []
    for num_workers in (0, 1, 3):
        if use_generator:
            loader = eud.DataLoader(ds, batch_size=8, shuffle=True, num_workers=num_workers,
                                    generator=ember.Generator().manual_seed(21))
        else:
            ember.manual_seed(21)
            loader = eud.DataLoader(ds, batch_size=8, shuffle=True, num_workers=num_workers)
        epochs = run_with_timeout(lambda: [[[t.tolist() for t in b] for b in loader] for _ in range(2)])
        results.append(epochs)
    assert results[0] == results[1] == results[2]
    first, second = results[0]
    assert first != second  # a new order each epoch
    flat = [i for b in first for i in b[0]]
    assert sorted(flat) == list(range(103)) and flat != list(range(103))
    assert all(b[1] == [10 * i for i in b[0]] for b in first)


@pytest.mark.parametrize("num_workers", [0, 2])
def test_same_shuffle_as_sampler_draws(num_workers):
    # The loader draws its base seed, then the sampler its seed, from the generator (torch's order).
    g = ember.Generator().manual_seed(5)
    got = run_with_timeout(lambda: [b.tolist() for b in eud.DataLoader(range(10), batch_size=10, shuffle=True,
                                                                        num_workers=num_workers, generator=g)])
    g2 = ember.Generator().manual_seed(5)
    ember.empty((), dtype=ember.int64).random_(generator=g2)
    assert got == [ember.randperm(10, generator=g2).tolist()]


def test_worker_exception_is_reraised_with_its_type():
    for exc in (ValueError, KeyError, IndexError):
        loader = eud.DataLoader(Squares(20, fail_at=9, exc=exc), batch_size=4, num_workers=2)

        def consume():
            it = iter(loader)
            assert next(it)["i"].tolist() == [0, 1, 2, 3]
            next(it)
            with pytest.raises(exc) as info:
                next(it)
            return str(info.value)

        msg = run_with_timeout(consume)
        assert f"Caught {exc.__name__} in DataLoader worker thread" in msg
        assert "bad index 9" in msg and "Traceback" in msg
    wait_for_no_workers()
    # Without workers the dataset's own exception passes through.
    with pytest.raises(ValueError, match="^bad index 1$"):
        list(eud.DataLoader(Squares(3, fail_at=1)))

    class OddError(Exception):
        def __init__(self, a, b):
            super().__init__(a, b)

    class Odd(eud.Dataset):
        def __getitem__(self, i):
            raise OddError(1, 2)

        def __len__(self):
            return 2

    with pytest.raises(RuntimeError, match="Caught OddError in DataLoader worker thread 0"):
        run_with_timeout(lambda: list(eud.DataLoader(Odd(), num_workers=1)))


def test_worker_info_and_init_fn():
    assert eud.get_worker_info() is None
    threads_before = ember.get_num_threads()
    seen = []

    def init(worker_id):
        info = eud.get_worker_info()
        seen.append((worker_id, info.id, info.num_workers, threading.current_thread().name))

    class Probe(eud.Dataset):
        def __getitem__(self, i):
            info = eud.get_worker_info()
            return ember.tensor([info.id, info.seed - info.id, ember.get_num_threads()])

        def __len__(self):
            return 6

    out = run_with_timeout(lambda: list(eud.DataLoader(Probe(), batch_size=1, num_workers=3, worker_init_fn=init)))
    assert sorted(s[:3] for s in seen) == [(0, 0, 3), (1, 1, 3), (2, 2, 3)]
    assert all(name.startswith("ember DataLoader worker") for *_, name in seen)
    assert [int(b[0, 0]) for b in out] == [0, 1, 2, 0, 1, 2]  # batch k goes to worker k mod 3
    assert len({int(b[0, 1]) for b in out}) == 1  # seed = base seed + worker id
    assert all(int(b[0, 2]) == 1 for b in out)  # one intra-op thread per worker, as torch
    assert ember.get_num_threads() == threads_before
    info = eud.WorkerInfo(id=1, num_workers=2, seed=3, dataset=None)
    assert repr(info) == "WorkerInfo(id=1, num_workers=2, seed=3, dataset=None)"
    with pytest.raises(RuntimeError, match="Cannot assign attributes to WorkerInfo objects"):
        info.id = 2
    # An exception in worker_init_fn reaches the iterating thread.
    with pytest.raises(ZeroDivisionError, match="Caught ZeroDivisionError in DataLoader worker thread"):
        run_with_timeout(lambda: list(eud.DataLoader(range(4), num_workers=2, worker_init_fn=lambda i: 1 / 0)))
    wait_for_no_workers()


def test_abandoned_iterator_shuts_down():
    ds = Squares(1000, delay=0.002)

    def abandon():
        loader = eud.DataLoader(ds, batch_size=2, num_workers=3, prefetch_factor=2)
        for i, _ in enumerate(loader):
            assert len(worker_threads()) == 3
            if i == 2:
                break
        # break drops the iterator: its __del__ stops and joins the workers
        assert not worker_threads()

    run_with_timeout(abandon)
    wait_for_no_workers()
    calls = ds.calls
    time.sleep(0.1)
    assert ds.calls == calls <= (3 + 3 * 2) * 2  # nothing loads after shutdown; prefetch stayed bounded
    # An iterator that is exhausted ends its workers by itself.
    it = iter(eud.DataLoader(range(10), batch_size=3, num_workers=2))
    assert run_with_timeout(lambda: len(list(it))) == 4
    wait_for_no_workers()


def test_prefetch_is_bounded():
    ds = Squares(1000, delay=0.001)
    it = iter(eud.DataLoader(ds, batch_size=1, num_workers=2, prefetch_factor=3))
    run_with_timeout(lambda: next(it))
    time.sleep(0.3)
    assert ds.calls <= 1 + 2 * 3
    del it
    wait_for_no_workers()


def test_persistent_workers():
    ember.manual_seed(8)
    loader = eud.DataLoader(range(20), batch_size=3, shuffle=True, num_workers=2, persistent_workers=True)
    run = lambda: [b.tolist() for b in loader]  # noqa: E731
    e1, e2 = run_with_timeout(run), run_with_timeout(run)
    threads = worker_threads()
    assert len(threads) == 2
    it = iter(loader)
    next(it)  # an abandoned epoch; the next one starts clean
    e3 = run_with_timeout(run)
    assert worker_threads() == threads  # the same threads served every epoch
    ember.manual_seed(8)
    plain = eud.DataLoader(range(20), batch_size=3, shuffle=True, num_workers=0)
    p1, p2 = [b.tolist() for b in plain], [b.tolist() for b in plain]
    # The first epoch matches a plain loader's; later ones differ, as in torch, because a
    # persistent iterator draws its base seed once.
    assert e1 == p1 and e2 != p2
    assert sorted(i for b in e3 for i in b) == list(range(20))
    # Iterable datasets restart their streams each epoch.
    sl = eud.DataLoader(EStream(7), batch_size=2, num_workers=2, persistent_workers=True)
    assert run_with_timeout(lambda: [[b.tolist() for b in sl] for _ in range(2)]) == [[[0, 2], [1, 3], [4, 6], [5]]] * 2
    del loader, it, sl
    wait_for_no_workers()


def test_timeout():
    loader = eud.DataLoader(Squares(4, delay=3.0), num_workers=1, timeout=0.2)
    with pytest.raises(RuntimeError, match=r"DataLoader timed out after 0.2 seconds"):
        run_with_timeout(lambda: next(iter(loader)))
    gc.collect()
