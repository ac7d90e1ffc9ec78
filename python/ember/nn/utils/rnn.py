"""Packed and padded sequences (torch.nn.utils.rnn).

PyTorch does the packing in C++ kernels; here it is one index_select with a precomputed
index, so gradients flow through every function to the input sequences."""
from collections import namedtuple
from collections.abc import Iterable

from ... import _C
from ..._C import Tensor

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence",
           "pad_sequence", "unpad_sequence", "pack_sequence", "unpack_sequence"]

PackedSequence_ = namedtuple("PackedSequence_", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])


def _bind(optional, fn):
    return None if optional is None else fn(optional)


class PackedSequence(PackedSequence_):
    """Sequences of different lengths packed time step by time step: data holds step 0 of
    every sequence, then step 1 of those long enough, ...; batch_sizes[t] says how many."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        return super().__new__(cls, *_packed_sequence_init_args(data, batch_sizes, sorted_indices,
                                                                unsorted_indices))

    def to(self, *args, **kwargs):
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        kwargs = {k: v for k, v in kwargs.items() if k not in ("device", "dtype")}
        sorted_indices = _bind(self.sorted_indices, lambda t: t.to(data.device, **kwargs))
        unsorted_indices = _bind(self.unsorted_indices, lambda t: t.to(data.device, **kwargs))
        return type(self)(data, self.batch_sizes, sorted_indices, unsorted_indices)

    def cpu(self, *args, **kwargs):
        return self.to(*args, device="cpu", **kwargs)

    def double(self):
        return self.to(dtype=_C.float64)

    def float(self):
        return self.to(dtype=_C.float32)

    def half(self):
        return self.to(dtype=_C.float16)

    def long(self):
        return self.to(dtype=_C.int64)

    def int(self):
        return self.to(dtype=_C.int32)

    def short(self):
        return self.to(dtype=_C.int16)

    def char(self):
        return self.to(dtype=_C.int8)

    def byte(self):
        return self.to(dtype=_C.uint8)

    @property
    def is_cuda(self):
        return bool(getattr(self.data, "is_cuda", False))


def _packed_sequence_init_args(data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
    if unsorted_indices is None:
        unsorted_indices = invert_permutation(sorted_indices)
    if batch_sizes is not None:
        if batch_sizes.device.type != "cpu":
            raise ValueError("batch_sizes should always be on CPU. Instances of PackedSequence should never be "
                             "created manually. They should be instantiated by functions like pack_sequence "
                             "and pack_padded_sequences in nn.utils.rnn. "
                             "https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence")
        return data, batch_sizes, sorted_indices, unsorted_indices
    assert isinstance(data, (list, tuple)) and len(data) == 2
    return data[0], data[1], sorted_indices, unsorted_indices


def invert_permutation(permutation):
    """The permutation q with q[p[i]] = i."""
    if permutation is None:
        return None
    output = _C.empty_like(permutation)
    output.scatter_(0, permutation, _C.arange(0, permutation.numel(), dtype=permutation.dtype))
    return output


def _lengths_list(lengths):
    if isinstance(lengths, Tensor):
        return [int(x) for x in lengths.tolist()]
    return [int(x) for x in lengths]


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Packs a padded batch (T x B x * or B x T x *) given each sequence's length."""
    if isinstance(lengths, Tensor) and lengths.dim() != 1:
        raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got {lengths.dim()}D "
                           f"{lengths.device} {lengths.type().split('.')[-1].replace('Tensor', '')} tensor")
    lengths = _C.tensor(_lengths_list(lengths), dtype=_C.int64)
    if enforce_sorted:
        sorted_indices = None
    else:
        lengths, sorted_indices = _C.sort(lengths, descending=True, stable=True)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    if batch_first:
        input = input.transpose(0, 1)
    lens = lengths.tolist()
    batch_size = input.size(1)
    if len(lens) != batch_size:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {len(lens)} "
                           f"(batch_size={batch_size})")
    if lens and lens[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in "
                           "'lengths' that is <= 0")
    if any(a < b for a, b in zip(lens, lens[1:])):
        raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
                           "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence "
                           "to sidestep this requirement if you do not need ONNX exportability.")
    max_len = lens[0] if lens else 0
    if max_len > input.size(0):
        raise RuntimeError(f"Expected sequence length to be at most {input.size(0)}, but got {max_len}")
    batch_sizes = [sum(1 for n in lens if n > t) for t in range(max_len)]
    # Row t*B + b of the (T*B, *) view holds step t of sequence b.
    index = [t * batch_size + b for t, bs in enumerate(batch_sizes) for b in range(bs)]
    flat = input.reshape((input.size(0) * batch_size,) + tuple(input.shape[2:]))
    data = flat.index_select(0, _C.tensor(index, dtype=_C.int64))
    return PackedSequence(data, _C.tensor(batch_sizes, dtype=_C.int64), sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """Inverse of pack_padded_sequence: (padded batch, lengths) in the original order."""
    batch_sizes = [int(x) for x in sequence.batch_sizes.tolist()]
    max_seq_length = len(batch_sizes)
    if total_length is not None:
        if total_length < max_seq_length:
            raise ValueError("Expected total_length to be at least the length of the longest sequence in input, "
                             f"but got total_length={total_length} and max sequence length being {max_seq_length}")
        max_seq_length = total_length
    data = sequence.data
    batch_size = batch_sizes[0] if batch_sizes else 0
    # Gather from data plus one padding row (index len(data)) into a T x B grid.
    pad_row = _C.full((1,) + tuple(data.shape[1:]), padding_value, dtype=data.dtype)
    source = _C.cat([data, pad_row])
    index, offset = [], 0
    for t in range(max_seq_length):
        bs = batch_sizes[t] if t < len(batch_sizes) else 0
        index.extend(offset + b if b < bs else data.size(0) for b in range(batch_size))
        offset += bs
    padded = source.index_select(0, _C.tensor(index, dtype=_C.int64))
    padded = padded.reshape((max_seq_length, batch_size) + tuple(data.shape[1:]))
    if batch_first:
        padded = padded.transpose(0, 1)
    lengths = _C.tensor([sum(1 for bs in batch_sizes if bs > b) for b in range(batch_size)], dtype=_C.int64)
    if sequence.unsorted_indices is not None:
        return (padded.index_select(0 if batch_first else 1, sequence.unsorted_indices),
                lengths[sequence.unsorted_indices])
    return padded, lengths


def pad_sequence(sequences, batch_first=False, padding_value=0.0):
    """Stacks sequences of different lengths (L_i x *) into T x B x * (B x T x * with
    batch_first), padding with padding_value."""
    if not isinstance(sequences, Iterable):
        raise RuntimeError("pad_sequence: Expected iterable for input sequences, but got arg of type: "
                           f"{type(sequences)}")
    sequences = tuple(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    max_len = max(s.size(0) for s in sequences)
    padded = []
    for s in sequences:
        n = max_len - s.size(0)
        if n:
            s = _C.cat([s, _C.full((n,) + tuple(s.shape[1:]), padding_value, dtype=s.dtype)])
        padded.append(s)
    return _C.stack(padded, 0 if batch_first else 1)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """Inverse of pad_sequence: a list of the sequences (PyTorch transposes the input in
    place when not batch_first; this leaves it alone)."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [seq[:length] for seq, length in zip(padded_sequences, _lengths_list(lengths))]


def pack_sequence(sequences, enforce_sorted=True):
    """pack_padded_sequence of pad_sequence(sequences)."""
    lengths = [v.size(0) for v in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """Inverse of pack_sequence: the list of sequences."""
    padded_sequences, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded_sequences, lengths, batch_first=True)
