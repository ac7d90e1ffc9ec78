"""MultiheadAttention (torch.nn.MultiheadAttention, 1.13)."""
from ... import _C
from .. import init
from .._functional_attention import _mha
from ..parameter import Parameter
from .linear import Linear
from .module import Module

__all__ = ["MultiheadAttention"]


class NonDynamicallyQuantizableLinear(Linear):
    """The output projection's class in PyTorch; a plain Linear here."""


class MultiheadAttention(Module):
    """Attention of num_heads heads of embed_dim // num_heads features each, with packed
    (in_proj_weight) or, when kdim or vdim differ from embed_dim, separate (q/k/v_proj_weight)
    input projections and an out_proj Linear."""

    __constants__ = ["batch_first"]

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False, add_zero_attn=False,
                 kdim=None, vdim=None, batch_first=False, device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = Parameter(_C.empty((embed_dim, embed_dim), **factory_kwargs))
            self.k_proj_weight = Parameter(_C.empty((embed_dim, self.kdim), **factory_kwargs))
            self.v_proj_weight = Parameter(_C.empty((embed_dim, self.vdim), **factory_kwargs))
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = Parameter(_C.empty((3 * embed_dim, embed_dim), **factory_kwargs))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(_C.empty(3 * embed_dim, **factory_kwargs))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, **factory_kwargs)
        if add_bias_kv:
            self.bias_k = Parameter(_C.empty((1, 1, embed_dim), **factory_kwargs))
            self.bias_v = Parameter(_C.empty((1, 1, embed_dim), **factory_kwargs))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self):
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def __setstate__(self, state):
        # Modules saved before _qkv_same_embed_dim existed.
        if "_qkv_same_embed_dim" not in state:
            state["_qkv_same_embed_dim"] = True
        super().__setstate__(state)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                average_attn_weights=True):
        """query (L, N, E), key (S, N, kdim), value (S, N, vdim) ((N, L, E)... when batch_first,
        (L, E)... unbatched) -> (output like query, weights (N, L, S) / (N, heads, L, S) or None)."""
        if query.dim() not in (2, 3):
            raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received "
                                 f"{query.dim()}-D query tensor")
        separate = not self._qkv_same_embed_dim
        # batch_first inputs go to the functional core as they are (no transposes).
        return _mha(query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias,
                    self.bias_k, self.bias_v, self.add_zero_attn, self.dropout, self.out_proj.weight,
                    self.out_proj.bias, self.training, key_padding_mask, need_weights, attn_mask, separate,
                    self.q_proj_weight, self.k_proj_weight, self.v_proj_weight, None, None,
                    average_attn_weights, self.batch_first)
