"""DataLoader (torch.utils.data.DataLoader) with worker threads instead of processes.

Workers are threads: Ember's ops release the GIL on large tensors, so threads overlap real
work without pickling datasets or batches across processes. The iterating thread draws the
indices from the sampler and hands batch k to worker k mod num_workers (skipping workers
whose iterable dataset has ended), keeps at most prefetch_factor batches per worker in
flight, and yields results in k order, so the batches do not depend on num_workers or on
timing. See docs/ARCHITECTURE.md, "Data loading".
"""

import itertools
import queue
import threading
import warnings

import ember

from . import _collate
from ._worker import ExceptionWrapper, WorkerInfo, _set_worker_info
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader"]

# How often a waiting iterating thread checks that its workers are alive (seconds).
_STATUS_CHECK_INTERVAL = 1.0
# How long shutting down waits for each worker to finish the batch it is loading.
_JOIN_TIMEOUT = 5.0


class _InfiniteConstantSampler(Sampler):
    """The sampler of an IterableDataset: None forever (the dataset decides when to stop)."""

    def __iter__(self):
        while True:
            yield None


class _MapFetcher:
    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.dataset, self.auto_collation, self.collate_fn = dataset, auto_collation, collate_fn

    def fetch(self, index):
        if self.auto_collation:
            data = [self.dataset[i] for i in index]
        else:
            data = self.dataset[index]
        return self.collate_fn(data)


class _IterableFetcher:
    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.dataset_iter = iter(dataset)
        self.auto_collation, self.collate_fn, self.drop_last = auto_collation, collate_fn, drop_last
        self.ended = False

    def fetch(self, index):
        if self.ended:
            raise StopIteration
        if self.auto_collation:
            data = []
            for _ in index:
                try:
                    data.append(next(self.dataset_iter))
                except StopIteration:
                    self.ended = True
                    break
            if len(data) == 0 or (self.drop_last and len(data) < len(index)):
                raise StopIteration
        else:
            data = next(self.dataset_iter)
        return self.collate_fn(data)


def _make_fetcher(iterable, dataset, auto_collation, collate_fn, drop_last):
    cls = _IterableFetcher if iterable else _MapFetcher
    return cls(dataset, auto_collation, collate_fn, drop_last)


class _ResumeIteration:
    """Sent to persistent workers at a new epoch; they answer with it once ready."""


class _IterableDatasetStopIteration:
    def __init__(self, worker_id):
        self.worker_id = worker_id


def _worker_loop(iterable, dataset, index_queue, result_queue, done_event, auto_collation, collate_fn,
                 drop_last, seed, init_fn, worker_id, num_workers):
    # Runs in a worker thread. It holds no reference to the iterator, so that an abandoned
    # iterator can be garbage-collected (and shut its workers down).
    # One intra-op thread per worker, as in torch's worker processes: the workers are the
    # parallelism, and OpenMP teams inside each of them would oversubscribe the cores. The
    # setting is per thread, so the iterating thread keeps its own.
    ember.set_num_threads(1)
    _set_worker_info(WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset))
    where = f"in DataLoader worker thread {worker_id}"
    init_error = None
    fetcher = None
    try:
        if init_fn is not None:
            init_fn(worker_id)
        fetcher = _make_fetcher(iterable, dataset, auto_collation, collate_fn, drop_last)
    except Exception:
        init_error = ExceptionWrapper(where=where)
    iteration_end = False
    while True:
        r = index_queue.get()
        if isinstance(r, _ResumeIteration):
            iteration_end = False
            try:
                fetcher = _make_fetcher(iterable, dataset, auto_collation, collate_fn, drop_last)
            except Exception:
                init_error = ExceptionWrapper(where=where)
            result_queue.put((r, None))
            continue
        if r is None or done_event.is_set():
            break
        if iteration_end:
            continue  # this worker's stream ended; the iterating thread skips its tasks
        idx, index = r
        if init_error is not None:
            data, init_error = init_error, None
        else:
            try:
                data = fetcher.fetch(index)
            except StopIteration:
                if not iterable:
                    data = ExceptionWrapper(where=where)
                else:
                    data = _IterableDatasetStopIteration(worker_id)
                    iteration_end = True
            except Exception:
                data = ExceptionWrapper(where=where)
        result_queue.put((idx, data))
        del data, idx, index, r


class DataLoader:
    """Combines a dataset and a sampler and iterates over batches. Arguments, defaults and
    argument errors are torch 1.13's; num_workers > 0 starts worker threads.
    ``pin_memory`` and ``multiprocessing_context`` are accepted and have no effect."""

    __initialized = False

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=2, persistent_workers=False,
                 pin_memory_device=""):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable "
                             "multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor != 2:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 "
                             "to enable multiprocessing.")
        if prefetch_factor <= 0:
            raise AssertionError("prefetch_factor must be positive")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        if multiprocessing_context is not None and num_workers == 0:
            raise ValueError("multiprocessing_context can only be used with multi-process loading (num_workers > 0), "
                             f"but got num_workers={num_workers}")
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context

        if isinstance(dataset, IterableDataset):
            self._iterable = True
            if shuffle not in {False, None}:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle option, but got "
                                 f"shuffle={shuffle}")
            if sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified sampler option, but got "
                                 f"sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified batch_sampler option, but "
                                 f"got batch_sampler={batch_sampler}")
        else:
            shuffle = bool(shuffle)
            self._iterable = False
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and "
                                 "drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with drop_last")

        if sampler is None:
            if self._iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = _collate.default_collate if self._auto_collation else _collate.default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self.__initialized = True
        self._IterableDataset_len_called = None  # len(dataset) once __len__ was asked, for a warning
        self._iterator = None

    def __setattr__(self, attr, val):
        if self.__initialized and attr in ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
                                           "persistent_workers"):
            raise ValueError(f"{attr} attribute should not be set after {self.__class__.__name__} is initialized")
        super().__setattr__(attr, val)

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def _get_iterator(self):
        if self.num_workers == 0:
            return _SingleThreadIter(self)
        return _WorkerThreadIter(self)

    def __iter__(self):
        if self.persistent_workers and self.num_workers > 0:
            if self._iterator is None:
                self._iterator = self._get_iterator()
            else:
                self._iterator._reset(self)
            return self._iterator
        return self._get_iterator()

    def __len__(self):
        if self._iterable:
            length = self._IterableDataset_len_called = len(self.dataset)
            if self.batch_size is not None:
                length = length // self.batch_size if self.drop_last else -(-length // self.batch_size)
            return length
        return len(self._index_sampler)


class _BaseIter:
    def __init__(self, loader):
        self._dataset = loader.dataset
        self._iterable = loader._iterable
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._num_workers = loader.num_workers
        self._prefetch_factor = loader.prefetch_factor
        self._timeout = loader.timeout
        self._collate_fn = loader.collate_fn
        self._persistent_workers = loader.persistent_workers
        # Drawn before the sampler's own seed, in torch's order, so that a seed gives the
        # same shuffles as in a loop over torch's DataLoader (given the same generator).
        seed_holder = ember.empty((), dtype=ember.int64)
        if loader.generator is None:
            seed_holder.random_()
        else:
            seed_holder.random_(generator=loader.generator)
        self._base_seed = int(seed_holder.item())
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0
        self._len_called = loader._IterableDataset_len_called

    def __iter__(self):
        return self

    def __len__(self):
        return len(self._index_sampler)

    def _reset(self, loader, first_iter=False):
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0

    def _next_index(self):
        return next(self._sampler_iter)

    def __next__(self):
        data = self._next_data()
        self._num_yielded += 1
        if self._iterable and self._len_called is not None and self._num_yielded > self._len_called:
            # Compares batches with samples, as torch does; mostly catches unsharded workers.
            msg = (f"Length of IterableDataset {self._dataset} was reported to be {self._len_called} (when "
                   f"accessing len(dataloader)), but {self._num_yielded} samples have been fetched. ")
            if self._num_workers > 0:
                msg += ("With worker threads, this could be caused by not splitting the IterableDataset between "
                        "workers (see get_worker_info()).")
            warnings.warn(msg)
        return data


class _SingleThreadIter(_BaseIter):
    def __init__(self, loader):
        super().__init__(loader)
        self._fetcher = _make_fetcher(self._iterable, self._dataset, self._auto_collation, self._collate_fn,
                                      self._drop_last)

    def _next_data(self):
        index = self._next_index()  # may raise StopIteration
        return self._fetcher.fetch(index)  # may raise StopIteration


class _WorkerThreadIter(_BaseIter):
    def __init__(self, loader):
        super().__init__(loader)
        self._shutdown = False
        self._done_event = threading.Event()
        self._result_queue = queue.Queue()
        self._index_queues = []
        self._workers = []
        for i in range(self._num_workers):
            q = queue.Queue()
            t = threading.Thread(
                target=_worker_loop, name=f"ember DataLoader worker {i}", daemon=True,
                args=(self._iterable, self._dataset, q, self._result_queue, self._done_event,
                      self._auto_collation, self._collate_fn, self._drop_last, self._base_seed + i,
                      loader.worker_init_fn, i, self._num_workers))
            t.start()
            self._index_queues.append(q)
            self._workers.append(t)
        self._reset(loader, first_iter=True)

    def _reset(self, loader, first_iter=False):
        super()._reset(loader, first_iter)
        self._send_idx = 0  # next batch number to hand out
        self._rcvd_idx = 0  # next batch number to yield
        self._task_info = {}  # batch number -> (worker,) while loading, (worker, data) when early
        self._tasks_outstanding = 0
        self._workers_status = [True] * self._num_workers
        self._worker_cycle = itertools.cycle(range(self._num_workers))
        if not first_iter:
            # Persistent workers: drop what the last epoch left in flight, restart the streams.
            for q in self._index_queues:
                q.put(_ResumeIteration())
            pending = self._num_workers
            while pending > 0:
                idx, _ = self._get_data()
                if isinstance(idx, _ResumeIteration):
                    pending -= 1
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    def _try_put_index(self):
        try:
            index = self._next_index()
        except StopIteration:
            return
        for _ in range(self._num_workers):
            worker = next(self._worker_cycle)
            if self._workers_status[worker]:
                break
        else:
            return  # every worker's stream has ended
        self._index_queues[worker].put((self._send_idx, index))
        self._task_info[self._send_idx] = (worker,)
        self._tasks_outstanding += 1
        self._send_idx += 1

    def _get_data(self):
        if self._timeout > 0:
            try:
                return self._result_queue.get(timeout=self._timeout)
            except queue.Empty:
                raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds") from None
        while True:
            try:
                return self._result_queue.get(timeout=_STATUS_CHECK_INTERVAL)
            except queue.Empty:
                dead = [i for i, w in enumerate(self._workers) if self._workers_status[i] and not w.is_alive()]
                if dead:
                    raise RuntimeError(f"DataLoader worker thread {dead[0]} exited unexpectedly") from None

    def _next_data(self):
        while True:
            # Skip batches that went to workers whose stream ended before loading them.
            while self._rcvd_idx < self._send_idx:
                info = self._task_info[self._rcvd_idx]
                if len(info) == 2 or self._workers_status[info[0]]:
                    break
                del self._task_info[self._rcvd_idx]
                self._rcvd_idx += 1
            else:
                if not self._persistent_workers:
                    self._shutdown_workers()
                raise StopIteration
            if len(self._task_info[self._rcvd_idx]) == 2:
                return self._process_data(self._task_info.pop(self._rcvd_idx)[1])
            idx, data = self._get_data()
            self._tasks_outstanding -= 1
            if isinstance(data, _IterableDatasetStopIteration):
                self._workers_status[data.worker_id] = False
                if not self._persistent_workers:
                    self._index_queues[data.worker_id].put(None)
                self._try_put_index()
                continue
            if idx != self._rcvd_idx:
                self._task_info[idx] += (data,)
            else:
                del self._task_info[idx]
                return self._process_data(data)

    def _process_data(self, data):
        self._rcvd_idx += 1
        self._try_put_index()
        if isinstance(data, ExceptionWrapper):
            data.reraise()
        return data

    def _shutdown_workers(self):
        if self._shutdown:
            return
        self._shutdown = True
        self._done_event.set()
        for q in self._index_queues:
            q.put(None)
        current = threading.current_thread()
        for w in self._workers:
            if w is not current:
                w.join(timeout=_JOIN_TIMEOUT)

    def __del__(self):
        if getattr(self, "_workers", None) is not None:
            self._shutdown_workers()
