// Padding (constant_pad_nd; reflect and replicate padding; circular is in Python), im2col/col2im (unfold,
// fold) and pixel_shuffle / pixel_unshuffle, with PyTorch 1.13's checks and messages.
//
// constant_pad_nd writes the fill value and copies the overlap of input and output (negative
// amounts crop), so its gradient is constant_pad_nd of the gradient with the amounts negated.
#include "ember/autograd.h"
#include "ember/dispatch.h"
#include "ember/ops.h"
#include "ember/ops/nn_conv.h"

namespace ember::pad_detail {
namespace {

// The region of `t` (of the padded or unpadded shape) that input and output share.
Tensor overlap(const Tensor& t, IntArrayRef pad, bool in_output) {
  Tensor r = t;
  const int64_t n = static_cast<int64_t>(pad.size()) / 2;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t d = t.dim() - 1 - i;
    const int64_t l = pad[2 * i], h = pad[2 * i + 1];
    // In the output the input starts at max(l, 0); in the input the output starts at max(-l, 0).
    const int64_t start = in_output ? std::max<int64_t>(l, 0) : std::max<int64_t>(-l, 0);
    const int64_t len = r.size(d) - std::max<int64_t>(in_output ? l : -l, 0) - std::max<int64_t>(in_output ? h : -h, 0);
    r = r.narrow(d, start, std::max<int64_t>(len, 0));
  }
  return r;
}

DimVector padded_shape(const Tensor& self, IntArrayRef pad) {
  EMBER_CHECK(pad.size() % 2 == 0, RuntimeError, "Length of pad must be even but instead it equals ", pad.size());
  const int64_t n = static_cast<int64_t>(pad.size()) / 2;
  EMBER_CHECK(n <= self.dim(), RuntimeError,
              "Length of pad should be no more than twice the number of dimensions of the input. Pad length is ",
              pad.size(), " while the input has ", self.dim(), " dimensions.");
  DimVector s(self.sizes());
  for (int64_t i = 0; i < n; ++i) {
    const int64_t d = self.dim() - 1 - i;
    const int64_t size = self.size(d) + pad[2 * i] + pad[2 * i + 1];
    EMBER_CHECK(size >= 0, RuntimeError, "The input size ", self.size(d), ", plus negative padding ", pad[2 * i],
                " and ", pad[2 * i + 1], " resulted in a negative output size, which is invalid. Check dimension ",
                d, " of your input.");
    s[d] = size;
  }
  return s;
}

Tensor constant_pad_nd_k(const Tensor& self, IntArrayRef pad, const Scalar& value) {
  EMBER_CHECK(self.defined(), ValueError, "constant_pad_nd(): got an undefined tensor");
  const DimVector shape = padded_shape(self, pad);
  Tensor out = empty(shape, TensorOptions(self.dtype()).device(self.device()));
  if (self.is_meta() || out.numel() == 0) return out;
  bool inside = true;  // the output lies within the input: no fill needed
  for (int64_t p : pad) inside = inside && p <= 0;
  if (!inside) out.fill_(value);
  Tensor dst = overlap(out, pad, true);
  if (dst.numel() > 0) dst.copy_(overlap(self, pad, false));
  return out;
}

using PadSig = Tensor(const Tensor&, IntArrayRef, const Scalar&);
using IdxPadSig = Tensor(const Tensor&, IntArrayRef);

// ---------------------------------------------------------------- reflect / replicate / circular
// Each padded dim is an index_select of the input with the source index of every output
// position (so the gradient is index_add, which differentiates again).
enum class Mode { Reflect, Replicate };

Tensor index_pad(const Tensor& self, IntArrayRef pad, Mode mode) {
  Tensor r = self;
  const int64_t n = static_cast<int64_t>(pad.size()) / 2;
  for (int64_t i = 0; i < n; ++i) {
    const int64_t d = self.dim() - 1 - i, size = self.size(d), l = pad[2 * i], h = pad[2 * i + 1];
    const int64_t out = size + l + h;
    if (l == 0 && h == 0) continue;
    std::vector<int64_t> idx(static_cast<size_t>(std::max<int64_t>(out, 0)));
    for (int64_t j = 0; j < out; ++j) {
      int64_t p = j - l;
      if (mode == Mode::Reflect) {
        if (p < 0) p = -p;
        if (p >= size) p = 2 * (size - 1) - p;
      } else {
        p = std::clamp<int64_t>(p, 0, size - 1);
      }
      idx[j] = p;
    }
    r = index_select(r, d, tensor(ArrayRef<int64_t>(idx), TensorOptions(kInt64).device(self.device())));
  }
  return r;
}

constexpr const char* kReflectNames[3] = {"reflection_pad1d", "reflection_pad2d", "reflection_pad3d"};
constexpr const char* kReplicateNames[3] = {"replication_pad1d", "replication_pad2d", "replication_pad3d"};

void check_pad_input(const char* name, const Tensor& self, int64_t sd, IntArrayRef pad, bool half_ok = false) {
  EMBER_CHECK(self.defined(), ValueError, name, "(): got an undefined tensor");
  EMBER_CHECK(static_cast<int64_t>(pad.size()) == 2 * sd, RuntimeError, "padding size is expected to be ", 2 * sd,
              ", but got: ", pad.size());
  const int64_t dim = self.dim();
  bool ok = dim == sd + 1 || dim == sd + 2;
  for (int64_t d = dim == sd + 2 ? 1 : 0; ok && d < dim; ++d) ok = self.size(d) != 0;
  EMBER_CHECK(ok, RuntimeError, "Expected ", sd + 1, "D or ", sd + 2,
              "D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for input, but got: ",
              self.sizes());
  const ScalarType dt = self.dtype();
  EMBER_CHECK(dt == kFloat || dt == kDouble || dt == kBFloat16 || is_complex(dt) || (half_ok && dt == kHalf),
              RuntimeError, "\"", name,
              "\" not implemented for '", dt, "'");
}

template <int SD>
Tensor reflection_k(const Tensor& self, IntArrayRef pad) {
  const char* name = kReflectNames[SD - 1];
  check_pad_input(name, self, SD, pad, /*half_ok=*/SD == 3);  // as PyTorch 1.13
  for (int64_t i = 0; i < SD; ++i) {
    const int64_t d = self.dim() - 1 - i;
    EMBER_CHECK(pad[2 * i] < self.size(d) && pad[2 * i + 1] < self.size(d), RuntimeError,
                "Argument #4: Padding size should be less than the corresponding input dimension, but got: padding (",
                pad[2 * i], ", ", pad[2 * i + 1], ") at dimension ", d, " of input ", self.sizes());
  }
  padded_shape(self, pad);
  return index_pad(self, pad, Mode::Reflect);
}

template <int SD>
Tensor replication_k(const Tensor& self, IntArrayRef pad) {
  check_pad_input(kReplicateNames[SD - 1], self, SD, pad);
  padded_shape(self, pad);
  return index_pad(self, pad, Mode::Replicate);
}

// ---------------------------------------------------------------- im2col / col2im
struct Blocks {
  int64_t k[2], d[2], p[2], s[2], in[2], out[2];
};

std::string pair(const int64_t* v) { return std::to_string(v[0]) + ", " + std::to_string(v[1]); }

Blocks make_blocks(IntArrayRef in, IntArrayRef kernel, IntArrayRef dilation, IntArrayRef padding, IntArrayRef stride) {
  Blocks b;
  for (int i = 0; i < 2; ++i) {
    b.k[i] = kernel[kernel.size() == 1 ? 0 : i];
    b.d[i] = dilation[dilation.size() == 1 ? 0 : i];
    b.p[i] = padding[padding.size() == 1 ? 0 : i];
    b.s[i] = stride[stride.size() == 1 ? 0 : i];
    b.in[i] = in[i];
  }
  EMBER_CHECK(b.k[0] > 0 && b.k[1] > 0, RuntimeError, "kernel size should be greater than zero, but got kernel_height: ",
              b.k[0], " kernel_width: ", b.k[1]);
  EMBER_CHECK(b.d[0] > 0 && b.d[1] > 0, RuntimeError, "dilation should be greater than zero, but got dilation_height: ",
              b.d[0], " dilation_width: ", b.d[1]);
  EMBER_CHECK(b.p[0] >= 0 && b.p[1] >= 0, RuntimeError, "padding should be non-negative, but got pad_height: ",
              b.p[0], " pad_width: ", b.p[1]);
  EMBER_CHECK(b.s[0] > 0 && b.s[1] > 0, RuntimeError, "stride should be greater than zero, but got stride_height: ",
              b.s[0], " stride_width: ", b.s[1]);
  for (int i = 0; i < 2; ++i) b.out[i] = (b.in[i] + 2 * b.p[i] - (b.d[i] * (b.k[i] - 1) + 1)) / b.s[i] + 1;
  return b;
}

// [N, C, in0 + 2p0, in1 + 2p1] view of the padded tensor under kernel position (i, j): [N, C, out0, out1].
Tensor block_window(const Tensor& xp, const Blocks& b, int64_t i, int64_t j) {
  return xp.as_strided({xp.size(0), xp.size(1), b.out[0], b.out[1]},
                       {xp.stride(0), xp.stride(1), xp.stride(2) * b.s[0], xp.stride(3) * b.s[1]},
                       xp.storage_offset() + i * b.d[0] * xp.stride(2) + j * b.d[1] * xp.stride(3));
}

Tensor im2col_k(const Tensor& self, IntArrayRef kernel, IntArrayRef dilation, IntArrayRef padding, IntArrayRef stride) {
  EMBER_CHECK(self.defined(), ValueError, "im2col(): got an undefined tensor");
  bool ok = self.dim() == 3 || self.dim() == 4;
  for (int64_t d = self.dim() == 4 ? 1 : 0; ok && d < self.dim(); ++d) ok = self.size(d) != 0;
  EMBER_CHECK(ok, RuntimeError, "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
              "dimensions for input, but got: ", self.sizes());
  EMBER_CHECK(is_floating_point(self.dtype()) || is_complex(self.dtype()), RuntimeError,
              "\"im2col_out_cpu\" not implemented for '", self.dtype(), "'");
  const bool batched = self.dim() == 4;
  const Tensor x = batched ? self : self.unsqueeze(0);
  const Blocks b = make_blocks(x.sizes().slice(2, 2), kernel, dilation, padding, stride);
  EMBER_CHECK(b.out[0] >= 1 && b.out[1] >= 1, RuntimeError, "Given input with spatial size (", pair(b.in),
              "), kernel_size=(", pair(b.k), "), dilation=(", pair(b.d), "), padding=(", pair(b.p),
              "), calculated shape of the array of sliding blocks as (", pair(b.out),
              "), but its components must be at least one.");
  const int64_t N = x.size(0), C = x.size(1), K = b.k[0] * b.k[1];
  Tensor cols = empty({N, C, K, b.out[0], b.out[1]}, TensorOptions(x.dtype()).device(x.device()));
  if (!x.is_meta() && cols.numel() > 0) {
    Tensor xp = zeros({N, C, b.in[0] + 2 * b.p[0], b.in[1] + 2 * b.p[1]}, TensorOptions(x.dtype()));
    xp.narrow(2, b.p[0], b.in[0]).narrow(3, b.p[1], b.in[1]).copy_(x);
    for (int64_t i = 0; i < b.k[0]; ++i)
      for (int64_t j = 0; j < b.k[1]; ++j) cols.select(2, i * b.k[1] + j).copy_(block_window(xp, b, i, j));
  }
  Tensor r = cols.view({N, C * K, b.out[0] * b.out[1]});
  return batched ? r : r.squeeze(0);
}

Tensor col2im_k(const Tensor& self, IntArrayRef output_size, IntArrayRef kernel, IntArrayRef dilation,
                IntArrayRef padding, IntArrayRef stride) {
  EMBER_CHECK(self.defined(), ValueError, "col2im(): got an undefined tensor");
  bool ok = self.dim() == 2 || self.dim() == 3;
  for (int64_t d = self.dim() == 3 ? 1 : 0; ok && d < self.dim(); ++d) ok = self.size(d) != 0;
  EMBER_CHECK(ok, RuntimeError, "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and "
              "non-zero dimensions for input, but got: ", self.sizes());
  EMBER_CHECK(is_floating_point(self.dtype()) || is_complex(self.dtype()), RuntimeError,
              "\"col2im_out_cpu\" not implemented for '", self.dtype(), "'");
  EMBER_CHECK(output_size.size() == 2, RuntimeError, "It is expected output_size equals to 2, but got size ",
              output_size.size());
  const bool batched = self.dim() == 3;
  const Tensor c = batched ? self : self.unsqueeze(0);
  const Blocks b = make_blocks(output_size, kernel, dilation, padding, stride);
  EMBER_CHECK(output_size[0] > 0 && output_size[1] > 0, RuntimeError,
              "output should be greater than zero, but got output_height: ", output_size[0], " output_width: ",
              output_size[1]);
  const int64_t K = b.k[0] * b.k[1];
  EMBER_CHECK(c.size(1) % K == 0, RuntimeError, "Expected size of input's dimension 1 to be divisible by the product "
              "of kernel_size, but got input.size(1)=", c.size(1), " and kernel_size=(", pair(b.k), ").");
  EMBER_CHECK(b.out[0] >= 1 && b.out[1] >= 1 && c.size(2) == b.out[0] * b.out[1], RuntimeError, "Given output_size=(",
              pair(b.in), "), kernel_size=(", pair(b.k), "), dilation=(", pair(b.d), "), padding=(", pair(b.p),
              "), stride=(", pair(b.s), "), expected size of input's dimension 2 to match the calculated number of ",
              "sliding blocks ", b.out[0], " * ", b.out[1], " = ", b.out[0] * b.out[1], ", but got input.size(2)=",
              c.size(2), ".");
  const int64_t N = c.size(0), C = c.size(1) / K;
  Tensor xp = zeros({N, C, b.in[0] + 2 * b.p[0], b.in[1] + 2 * b.p[1]}, TensorOptions(c.dtype()).device(c.device()));
  if (!c.is_meta() && c.numel() > 0) {
    const Tensor cols = c.reshape({N, C, K, b.out[0], b.out[1]});
    for (int64_t i = 0; i < b.k[0]; ++i)
      for (int64_t j = 0; j < b.k[1]; ++j) {
        Tensor w = block_window(xp, b, i, j);
        w.add_(cols.select(2, i * b.k[1] + j));
      }
  }
  Tensor r = xp.narrow(2, b.p[0], b.in[0]).narrow(3, b.p[1], b.in[1]).contiguous();
  return batched ? r : r.squeeze(0);
}

using Im2colSig = Tensor(const Tensor&, IntArrayRef, IntArrayRef, IntArrayRef, IntArrayRef);
using Col2imSig = Tensor(const Tensor&, IntArrayRef, IntArrayRef, IntArrayRef, IntArrayRef, IntArrayRef);

// ---------------------------------------------------------------- pixel shuffle
using ShuffleSig = Tensor(const Tensor&, int64_t);

Tensor pixel_shuffle_k(const Tensor& self, int64_t r) {
  EMBER_CHECK(self.defined(), ValueError, "pixel_shuffle(): got an undefined tensor");
  EMBER_CHECK(self.dim() >= 3, RuntimeError, "pixel_shuffle expects input to have at least 3 dimensions, but got input "
              "with ", self.dim(), " dimension(s)");
  EMBER_CHECK(r > 0, RuntimeError, "pixel_shuffle expects a positive upscale_factor, but got ", r);
  const int64_t c = self.size(-3), h = self.size(-2), w = self.size(-1);
  EMBER_CHECK(c % (r * r) == 0, RuntimeError, "pixel_shuffle expects its input's 'channel' dimension to be divisible "
              "by the square of upscale_factor, but input.size(-3)=", c, " is not divisible by ", r * r);
  DimVector lead(self.sizes().slice(0, self.dim() - 3));
  const int64_t nl = static_cast<int64_t>(lead.size());
  DimVector s5(lead);
  for (int64_t v : {c / (r * r), r, r, h, w}) s5.push_back(v);
  DimVector perm;
  for (int64_t i = 0; i < nl; ++i) perm.push_back(i);
  for (int64_t v : {0, 3, 1, 4, 2}) perm.push_back(nl + v);
  DimVector out(lead);
  for (int64_t v : {c / (r * r), h * r, w * r}) out.push_back(v);
  return self.reshape(s5).permute(perm).reshape(out);
}

Tensor pixel_unshuffle_k(const Tensor& self, int64_t r) {
  EMBER_CHECK(self.defined(), ValueError, "pixel_unshuffle(): got an undefined tensor");
  EMBER_CHECK(self.dim() >= 3, RuntimeError, "pixel_unshuffle expects input to have at least 3 dimensions, but got "
              "input with ", self.dim(), " dimension(s)");
  EMBER_CHECK(r > 0, RuntimeError, "pixel_unshuffle expects a positive downscale_factor, but got ", r);
  const int64_t c = self.size(-3), h = self.size(-2), w = self.size(-1);
  EMBER_CHECK(h % r == 0, RuntimeError, "pixel_unshuffle expects height to be divisible by downscale_factor, but "
              "input.size(-2)=", h, " is not divisible by ", r);
  EMBER_CHECK(w % r == 0, RuntimeError, "pixel_unshuffle expects width to be divisible by downscale_factor, but "
              "input.size(-1)=", w, " is not divisible by ", r);
  DimVector lead(self.sizes().slice(0, self.dim() - 3));
  const int64_t nl = static_cast<int64_t>(lead.size());
  DimVector s5(lead);
  for (int64_t v : {c, h / r, r, w / r, r}) s5.push_back(v);
  DimVector perm;
  for (int64_t i = 0; i < nl; ++i) perm.push_back(i);
  for (int64_t v : {0, 2, 4, 1, 3}) perm.push_back(nl + v);
  DimVector out(lead);
  for (int64_t v : {c * r * r, h / r, w / r}) out.push_back(v);
  return self.reshape(s5).permute(perm).reshape(out);
}

}  // namespace
}  // namespace ember::pad_detail

namespace ember {
using namespace pad_detail;

Tensor constant_pad_nd(const Tensor& self, IntArrayRef pad, const Scalar& value) {
  static const TypedOp<PadSig> op("constant_pad_nd");
  return op.call(self, pad, value);
}

#define EMBER_PAD_FRONT(name)                              \
  Tensor name(const Tensor& self, IntArrayRef padding) {   \
    static const TypedOp<IdxPadSig> op(#name);             \
    return op.call(self, padding);                         \
  }
EMBER_PAD_FRONT(reflection_pad1d)
EMBER_PAD_FRONT(reflection_pad2d)
EMBER_PAD_FRONT(reflection_pad3d)
EMBER_PAD_FRONT(replication_pad1d)
EMBER_PAD_FRONT(replication_pad2d)
EMBER_PAD_FRONT(replication_pad3d)
#undef EMBER_PAD_FRONT

Tensor im2col(const Tensor& self, IntArrayRef kernel_size, IntArrayRef dilation, IntArrayRef padding,
              IntArrayRef stride) {
  static const TypedOp<Im2colSig> op("im2col");
  return op.call(self, kernel_size, dilation, padding, stride);
}
Tensor col2im(const Tensor& self, IntArrayRef output_size, IntArrayRef kernel_size, IntArrayRef dilation,
              IntArrayRef padding, IntArrayRef stride) {
  static const TypedOp<Col2imSig> op("col2im");
  return op.call(self, output_size, kernel_size, dilation, padding, stride);
}
Tensor pixel_shuffle(const Tensor& self, int64_t upscale_factor) {
  static const TypedOp<ShuffleSig> op("pixel_shuffle");
  return op.call(self, upscale_factor);
}
Tensor pixel_unshuffle(const Tensor& self, int64_t downscale_factor) {
  static const TypedOp<ShuffleSig> op("pixel_unshuffle");
  return op.call(self, downscale_factor);
}

EMBER_REGISTER(pad_fold_ops) {
  define_op<PadSig>("constant_pad_nd(Tensor self, int[] pad, Scalar value=0) -> Tensor", Tag::FunctionOnly);
  register_cpu_meta<PadSig, &constant_pad_nd_k>("constant_pad_nd");
  define_op<IdxPadSig>("reflection_pad1d(Tensor self, int[2] padding) -> Tensor", Tag::FunctionOnly);
  define_op<IdxPadSig>("reflection_pad2d(Tensor self, int[4] padding) -> Tensor", Tag::FunctionOnly);
  define_op<IdxPadSig>("reflection_pad3d(Tensor self, int[6] padding) -> Tensor", Tag::FunctionOnly);
  define_op<IdxPadSig>("replication_pad1d(Tensor self, int[2] padding) -> Tensor", Tag::FunctionOnly);
  define_op<IdxPadSig>("replication_pad2d(Tensor self, int[4] padding) -> Tensor", Tag::FunctionOnly);
  define_op<IdxPadSig>("replication_pad3d(Tensor self, int[6] padding) -> Tensor", Tag::FunctionOnly);
  register_composite<IdxPadSig, &reflection_k<1>>("reflection_pad1d");
  register_composite<IdxPadSig, &reflection_k<2>>("reflection_pad2d");
  register_composite<IdxPadSig, &reflection_k<3>>("reflection_pad3d");
  register_composite<IdxPadSig, &replication_k<1>>("replication_pad1d");
  register_composite<IdxPadSig, &replication_k<2>>("replication_pad2d");
  register_composite<IdxPadSig, &replication_k<3>>("replication_pad3d");
  define_op<Im2colSig>("im2col(Tensor self, int[2] kernel_size, int[2] dilation, int[2] padding, int[2] stride) "
                       "-> Tensor", Tag::FunctionOnly);
  register_cpu_meta<Im2colSig, &im2col_k>("im2col");
  define_op<Col2imSig>("col2im(Tensor self, int[2] output_size, int[2] kernel_size, int[2] dilation, "
                       "int[2] padding, int[2] stride) -> Tensor", Tag::FunctionOnly);
  register_cpu_meta<Col2imSig, &col2im_k>("col2im");
  define_op<ShuffleSig>("pixel_shuffle(Tensor self, int upscale_factor) -> Tensor", Tag::FunctionOnly);
  define_op<ShuffleSig>("pixel_unshuffle(Tensor self, int downscale_factor) -> Tensor", Tag::FunctionOnly);
  register_composite<ShuffleSig, &pixel_shuffle_k>("pixel_shuffle");
  register_composite<ShuffleSig, &pixel_unshuffle_k>("pixel_unshuffle");
}

}  // namespace ember
