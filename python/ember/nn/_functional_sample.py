"""nn.functional's resampling: interpolate (and the deprecated upsample, upsample_nearest,
upsample_bilinear), grid_sample and affine_grid, with torch.nn.functional 1.13's signatures,
argument handling and messages. The ops are declared in C++ (src/ops/upsample.cpp,
src/ops/upsample_aa.cpp, src/ops/grid_sample.cpp)."""
import math
import warnings

from .. import _C

__all__ = ["interpolate", "upsample", "upsample_nearest", "upsample_bilinear", "grid_sample", "affine_grid"]

_MODES = "nearest | linear | bilinear | bicubic | trilinear | area | nearest-exact"

# (mode, spatial dims) -> (op, takes align_corners)
_OPS = {
    ("nearest", 1): ("upsample_nearest1d", False),
    ("nearest", 2): ("upsample_nearest2d", False),
    ("nearest", 3): ("upsample_nearest3d", False),
    ("nearest-exact", 1): ("_upsample_nearest_exact1d", False),
    ("nearest-exact", 2): ("_upsample_nearest_exact2d", False),
    ("nearest-exact", 3): ("_upsample_nearest_exact3d", False),
    ("linear", 1): ("upsample_linear1d", True),
    ("bilinear", 2): ("upsample_bilinear2d", True),
    ("bicubic", 2): ("upsample_bicubic2d", True),
    ("trilinear", 3): ("upsample_trilinear3d", True),
}

# The input rank these modes need (torch's "Got 3D input, but ..." errors; bicubic has none).
_NEEDS = {"linear": 3, "bilinear": 4, "trilinear": 5}

_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                  "Please specify align_corners=True if the old behavior is desired. "
                  "See the documentation of grid_sample for details.")


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dim = input.dim() - 2
    # Exactly one of output_size and scale_factors is set below, as a list.
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    elif size is not None:
        scale_factors = None
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got input with spatial "
                    f"dimensions of {list(input.shape[2:])} and output size of {size}. Please provide input tensor "
                    "in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format.")
            output_size = list(size)
        else:
            output_size = [size for _ in range(dim)]
    elif scale_factor is not None:
        output_size = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, but got input with "
                    f"spatial dimensions of {list(input.shape[2:])} and scale_factor of shape {scale_factor}. "
                    "Please provide input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in "
                    "(s1, s2, ...,sK) format.")
            scale_factors = list(scale_factor)
        else:
            scale_factors = [scale_factor for _ in range(dim)]
    else:
        raise ValueError("either size or scale_factor should be defined")

    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    # "area" is adaptive average pooling, which needs a size.
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor:
        # The size from the scale factors; the ops then map coordinates by the sizes alone.
        output_size = [int(math.floor(float(input.size(i + 2)) * scale_factors[i])) for i in range(dim)]
        scale_factors = None
    if antialias and not (mode in ("bilinear", "bicubic") and input.dim() == 4):
        raise ValueError("Anti-alias option is only supported for bilinear and bicubic modes")

    if mode == "area" and 1 <= dim <= 3:
        from . import _functional_conv as conv
        return getattr(conv, f"adaptive_avg_pool{dim}d")(input, output_size)
    entry = _OPS.get((mode, dim))
    if entry is None:
        needs = _NEEDS.get(mode)
        if needs is not None and input.dim() in (3, 4, 5):
            raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs {needs}D input")
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) "
                                  f"for the modes: {_MODES} (got {mode})")
    name, takes_align = entry
    if antialias:
        # PyTorch's (and PIL's) antialiased filter, widened by the scale when downscaling.
        name = f"_{name}_aa"
    if output_size is None:
        # As PyTorch's C++: the size truncated from the product, the factors kept for the map.
        output_size = [int(float(input.size(i + 2)) * scale_factors[i]) for i in range(dim)]
        scales = [float(s) for s in scale_factors]
    else:
        scales = [None] * dim
    op = getattr(_C, name)
    if takes_align:
        return op(input, output_size, align_corners, *scales)
    return op(input, output_size, *scales)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    warnings.warn("nn.functional.upsample is deprecated. Use nn.functional.interpolate instead.")
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    warnings.warn("nn.functional.upsample_nearest is deprecated. Use nn.functional.interpolate instead.")
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    warnings.warn("nn.functional.upsample_bilinear is deprecated. Use nn.functional.interpolate instead.")
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


_GRID_MODES = {"bilinear": 0, "nearest": 1, "bicubic": 2}
_GRID_PADDING = {"zeros": 0, "border": 1, "reflection": 2}


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    if mode not in _GRID_MODES:
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', "
                         f"but got: '{mode}'")
    if padding_mode not in _GRID_PADDING:
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING)
        align_corners = False
    return _C.grid_sampler(input, grid, _GRID_MODES[mode], _GRID_PADDING[padding_mode], align_corners)


def affine_grid(theta, size, align_corners=None):
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    if len(size) == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. "
                             f"Got {theta.shape}.")
        spatial_size = size[-2:]
    elif len(size) == 5:
        if theta.dim() != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {size}. "
                             f"Got {theta.shape}.")
        spatial_size = size[-3:]
    else:
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {size}.")
    if align_corners and min(spatial_size) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
                      "align_corners=True. This is not an intended use case of affine_grid. "
                      "See the documentation of affine_grid for details.")
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    return _C.affine_grid_generator(theta, list(size), align_corners)
