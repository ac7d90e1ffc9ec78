"""default_collate and default_convert (torch.utils.data._utils.collate): samples to batches."""

import collections.abc
import re

import numpy as np

import ember

__all__ = ["default_collate", "default_convert"]

# NumPy dtypes of strings, bytes and objects, which have no tensor equivalent.
_np_str_obj_array_pattern = re.compile(r"[SaUO]")
_err_msg_format = "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"


def default_convert(data):
    """Converts NumPy arrays and scalars (also inside mappings, named tuples and sequences) to
    tensors, leaving everything else as is; the collate_fn when automatic batching is off."""
    elem_type = type(data)
    if isinstance(data, ember.Tensor):
        return data
    if elem_type.__module__ == "numpy" and elem_type.__name__ not in ("str_", "string_", "bytes_"):
        if elem_type.__name__ == "ndarray" and _np_str_obj_array_pattern.search(data.dtype.str) is not None:
            return data
        return ember.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        try:
            return elem_type({key: default_convert(data[key]) for key in data})
        except TypeError:
            return {key: default_convert(data[key]) for key in data}
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # namedtuple
        return elem_type(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]  # a list, as torch
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        try:
            return elem_type([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data


def default_collate(batch):
    """Collates a list of samples into a batch: tensors are stacked along a new first dim,
    NumPy arrays become tensors first, Python floats a float64 tensor, ints an int64 tensor
    (bools a bool one), strings stay a list; mappings, named tuples and sequences are
    collated field by field (tuples become lists, as in torch)."""
    elem = batch[0]
    elem_type = type(elem)
    if isinstance(elem, ember.Tensor):
        return ember.stack(batch, 0)
    if isinstance(elem, np.ndarray):
        if _np_str_obj_array_pattern.search(elem.dtype.str) is not None:
            raise TypeError(_err_msg_format.format(elem.dtype))
        return default_collate([ember.as_tensor(b) for b in batch])
    if isinstance(elem, (np.bool_, np.number, np.object_)):
        return ember.as_tensor(batch)
    if isinstance(elem, float):
        return ember.tensor(batch, dtype=ember.float64)
    if isinstance(elem, int):
        return ember.tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        try:
            return elem_type({key: default_collate([d[key] for d in batch]) for key in elem})
        except TypeError:
            return {key: default_collate([d[key] for d in batch]) for key in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return elem_type(*(default_collate(samples) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        it = iter(batch)
        elem_size = len(next(it))
        if not all(len(e) == elem_size for e in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))
        if isinstance(elem, tuple):
            return [default_collate(samples) for samples in transposed]  # a list, as torch
        try:
            return elem_type([default_collate(samples) for samples in transposed])
        except TypeError:
            return [default_collate(samples) for samples in transposed]
    raise TypeError(_err_msg_format.format(elem_type))
