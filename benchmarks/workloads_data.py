"""DataLoader workloads for benchmarks/run.py (imported there; each maker takes the library
module, ember or torch, and returns a zero-argument callable).

  loader_fmnist_b64    100 shuffled batches of 64 from a TensorDataset of 60000 x 784
                       float32 images and int64 labels (num_workers=0: the per-sample
                       indexing and collation the training loop pays)
  loader_fmnist_b64_w2 the same with 2 persistent worker threads (Ember) / processes (torch)
Rates count the image bytes delivered (64 x 784 x 4 per batch).
"""
import itertools

import numpy as np

BATCHES = 100


def _dataset(lib):
    g = np.random.default_rng(0)
    x = lib.from_numpy(g.standard_normal((60000, 784), dtype=np.float32))
    y = lib.from_numpy(g.integers(0, 10, 60000))
    return lib.utils.data.TensorDataset(x, y)


def _maker(num_workers):
    def make(lib):
        import importlib
        importlib.import_module(lib.__name__ + ".utils.data")
        # Persistent workers: each call is a new (abandoned) epoch, not a new set of workers.
        loader = lib.utils.data.DataLoader(_dataset(lib), batch_size=64, shuffle=True, num_workers=num_workers,
                                           persistent_workers=num_workers > 0)

        def run():
            for _ in itertools.islice(loader, BATCHES):
                pass
        return run
    return make


WORKLOADS = {
    "loader_fmnist_b64": (_maker(0), BATCHES * 64 * 784 * 4, "GB/s"),
    "loader_fmnist_b64_w2": (_maker(2), BATCHES * 64 * 784 * 4, "GB/s"),
}
