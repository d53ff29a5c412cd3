"""Convolution kernels as TF's CPU kernels define them: Conv2D, Conv3D and DepthwiseConv2dNative with their
input and filter backprops (Conv2DBackpropInput/Filter, Conv3DBackpropInputV2/FilterV2,
DepthwiseConv2dNativeBackpropInput/Filter), strides, dilations, SAME, VALID and (2-D) explicit padding,
grouped Conv2D (an input depth a multiple of the filter's), and the output sizes and checks of TF's
GetWindowedOutputSizeVerbose. Every output element is a sum over its window of products; the backprops are
the adjoint sums (the input's: every window's products added back where they came from; the filter's:
products of the input's patches with the upstream summed over the batch and the output's positions).
Half types are computed in float32 and rounded once (a long sum's order differs from Eigen's and
oneDNN's anyway: properties/judge/tolerance.py bounds it by the reduction's length).

What TF's CPU kernels refuse depends on which kernel runs, decided as TF decides it (`dispatch.runs_onednn` for
the dtype): Eigen's refuse channels-first layouts (NCHW, NCDHW), dilations in Conv3D, in the Conv2D backprops and
in depthwise convolutions, unequal depthwise strides and grouped gradients; oneDNN's take them all.
"""

from __future__ import annotations

import itertools
import math

import ml_dtypes
import numpy as np

from ..dispatch import runs_onednn
from ..errors import UnimplementedError, _dims_text as dims_text

_HALF = (np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16))


def _spatial(values, rank: int, name: str) -> tuple:
    """A per-dimension attribute (strides, dilations) of length rank + 2 as its spatial part."""
    values = tuple(int(v) for v in values)
    if len(values) != rank + 2:
        raise ValueError(f"Sliding window {name} field must specify {rank + 2} dimensions")
    return values[1:-1]


def _check_attrs(op: str, rank: int, strides, dilations, data_format: str, onednn: bool) -> tuple[tuple, tuple]:
    """The spatial strides and dilations, or TF's CPU error for what its kernel (oneDNN's or Eigen's) does not do."""
    if data_format is None:  # TF's wrappers take None for the default (their gradients then fail)
        data_format = "NHWC"
    if not data_format.endswith("C"):
        if op == "Conv3D":
            raise ValueError("CPU implementation of Conv3D currently only supports the NHWC tensor format.")
        if op.startswith("Depthwise"):
            raise UnimplementedError("Depthwise convolution on CPU is only supported for NHWC format")
        if op.startswith("Conv2DBackprop"):   # reached where the forward ran on oneDNN and the backprop cannot
            raise ValueError(f"Conv2DCustom{op[len('Conv2D'):]}Op only supports NHWC.")
        raise UnimplementedError(f"The {op} op currently only supports the NHWC tensor format on the CPU. "
                                 f"The op was given the format: {data_format}")
    strides, dilations = tuple(int(s) for s in strides), tuple(int(d) for d in dilations)
    if len(strides) != rank + 2:
        raise ValueError(f"Sliding window strides field must specify {rank + 2} dimensions")
    if len(dilations) != rank + 2:
        raise ValueError(f"Sliding window dilations field must specify {rank + 2} dimensions")
    if strides[0] != 1 or strides[-1] != 1:
        raise UnimplementedError("Current implementation does not yet support strides in the batch and depth "
                                 "dimensions.")
    if dilations[0] != 1 or dilations[-1] != 1:
        raise UnimplementedError("Current implementation does not yet support dilations in the batch and depth "
                                 "dimensions.")
    if any(s < 1 for s in strides) or any(d < 1 for d in dilations):
        raise ValueError("Sliding window strides and dilations must be positive")
    if not onednn:
        _check_eigen_attrs(op, rank, strides, dilations)
    return strides[1:-1], dilations[1:-1]


def _check_eigen_attrs(op: str, rank: int, strides: tuple, dilations: tuple) -> None:
    """TF's errors for what its Eigen kernels do not do and its oneDNN kernels do."""
    if rank == 3 and any(d != 1 for d in dilations):
        raise ValueError("CPU implementation of Conv3D currently only supports dilated rates of 1.")
    if op.startswith("Depthwise") and strides[1] != strides[2]:
        raise ValueError("Current implementation only supports equal length strides in the row and column "
                         "dimensions.")
    if op.startswith("Depthwise") and any(d != 1 for d in dilations):
        raise UnimplementedError(f"Current kernel implementation does not support dilations, received "
                                 f"[{' '.join(str(d) for d in dilations)}]")
    if op.startswith("Conv2DBackprop") and any(d > 1 for d in dilations):
        raise ValueError("Current CPU implementations do not yet support dilation rates larger than 1.")


def output_size(size: int, window: int, stride: int, dilation: int, padding: str,
                before: int = 0, after: int = 0) -> tuple[int, int, int]:
    """TF's GetWindowedOutputSizeVerbose: the output's size and the padding before and after."""
    effective = (window - 1) * dilation + 1
    if padding == "VALID":
        out = (size - effective + stride) // stride
        before = after = 0
    elif padding == "SAME":
        out = (size + stride - 1) // stride
        needed = max((out - 1) * stride + effective - size, 0)
        before, after = needed // 2, needed - needed // 2
    else:  # EXPLICIT
        out = (size + before + after - effective + stride) // stride
    if out < 0:
        raise ValueError(f"Computed output size would be negative: {out} [input_size: {size}, "
                         f"effective_filter_size: {effective}, stride: {stride}]")
    return out, before, after


def _explicit(explicit_paddings, rank: int, padding: str) -> list[tuple[int, int]]:
    if padding != "EXPLICIT":
        return [(0, 0)] * rank
    pads = [int(p) for p in explicit_paddings]
    if len(pads) != 2 * (rank + 2):
        raise ValueError(f"explicit_paddings attribute must contain {2 * (rank + 2)} values, but got: {len(pads)}")
    if any(p < 0 for p in pads):
        raise ValueError("All elements of explicit_paddings must be nonnegative")
    if pads[0] or pads[1] or pads[-2] or pads[-1]:
        raise UnimplementedError("Current implementation does not yet support padding in the batch and depth "
                                 "dimensions.")
    return [(pads[2 + 2 * i], pads[3 + 2 * i]) for i in range(rank)]


class _Geometry:
    """Where each window of a convolution reads: the padded input's spatial sizes, the output's, and per
    window offset the strided slices of the padded input it multiplies."""

    def __init__(self, op: str, input_shape: tuple, filter_shape: tuple, strides, padding: str,
                 explicit_paddings, dilations, data_format: str, depthwise: bool, onednn: bool) -> None:
        rank = len(filter_shape) - 2
        if len(input_shape) != rank + 2:
            raise ValueError(f"{'input must be' if depthwise else 'convolution input must be'} "
                             f"{rank + 2}-dimensional: {dims_text(input_shape)}")
        if len(filter_shape) != rank + 2:
            raise ValueError(f"filter must be {rank + 2}-dimensional: {dims_text(filter_shape)}")
        self.strides, self.dilations = _check_attrs(op, rank, strides, dilations, data_format, onednn)
        self.onednn = onednn
        channels, depth = input_shape[-1], filter_shape[-2]
        if depthwise:
            if channels != depth:
                raise ValueError(f"input and filter must have the same depth: {channels} vs {depth}")
            self.groups = channels
        else:
            if depth <= 0:
                raise ValueError(f"filter depth must be stricly positive, got {depth}")
            if channels % depth:
                raise ValueError(f"input depth must be evenly divisible by filter depth: {channels} vs {depth}")
            self.groups = channels // depth
            if filter_shape[-1] % self.groups:
                raise ValueError(f"output depth must be evenly divisible by number of groups: "
                                 f"{filter_shape[-1]} vs {self.groups}")
        pads = _explicit(explicit_paddings, rank, padding)
        sizes = [output_size(n, k, s, d, padding, *p) for n, k, s, d, p in
                 zip(input_shape[1:-1], filter_shape[:-2], self.strides, self.dilations, pads)]
        self.out = tuple(o for o, _, _ in sizes)
        self.pads = tuple((b, a) for _, b, a in sizes)
        self.window = tuple(filter_shape[:-2])
        self.input_shape, self.filter_shape, self.depthwise = tuple(input_shape), tuple(filter_shape), depthwise
        self.output_shape = (input_shape[0],) + self.out + (
            channels * filter_shape[-1] if depthwise else filter_shape[-1],)

    def grouping(self) -> tuple:
        """The input's channels as (groups, channels per group)."""
        return (self.groups, self.input_shape[-1] // self.groups if self.groups else 0)

    def output_grouping(self) -> tuple:
        """The output's channels as (groups, outputs per group)."""
        outputs = self.output_shape[-1]
        return (self.groups, outputs // self.groups if self.groups else self.filter_shape[-1])

    def padded_shape(self) -> tuple:
        """The input's shape with its padding (at least large enough for every window's reach)."""
        spatial = []
        for n, (b, a), o, k, s, d in zip(self.input_shape[1:-1], self.pads, self.out, self.window, self.strides,
                                         self.dilations):
            reach = (o - 1) * s + (k - 1) * d + 1 if o else 0
            spatial.append(max(n + b + a, reach))
        return (self.input_shape[0],) + tuple(spatial) + (self.input_shape[-1],)

    def slices(self):
        """(window offset, the slices of the padded input that offset multiplies)."""
        for offset in itertools.product(*(range(k) for k in self.window)):
            yield offset, (slice(None),) + tuple(
                slice(i * d, i * d + (o - 1) * s + 1, s) if o else slice(0, 0)
                for i, d, o, s in zip(offset, self.dilations, self.out, self.strides)) + (slice(None),)

    def crop(self) -> tuple:
        return (slice(None),) + tuple(slice(b, b + n) for (b, _), n in zip(self.pads, self.input_shape[1:-1])) + (
            slice(None),)


# Where TF's CPU kernels sum half types in the half type itself (each product and each partial sum rounded to it:
# a product or a partial sum beyond float16's range is an infinity there), probed on float16 near overflow;
# the others (Conv2D, DepthwiseConv2dNative and its filter backprop) sum in float32 and round once
HALF_SUMS = frozenset({"Conv2DBackpropInput", "Conv2DBackpropFilter", "Conv3D", "DepthwiseConv2dNativeBackpropInput"})


def _working(dtype: np.dtype, op: str, T) -> np.dtype:
    """The dtype the products are summed in: the half type `T` itself where TF's kernel sums in it (half types
    reach the kernel as float32), else float32 for half types, int64 for integers."""
    dtype = np.dtype(dtype)
    half = np.dtype(T.as_numpy_dtype) if T is not None else dtype
    if half in _HALF:
        return half if op in HALF_SUMS else np.dtype(np.float32)
    return np.dtype(np.int64) if dtype.kind in "iu" else dtype


def _contract(equation: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """np.einsum of two operands; for half types, each product rounded to the type (exact in float32 first) and
    the products added one by one in it."""
    if a.dtype not in _HALF:
        return np.einsum(equation, a, b)
    inputs, output = equation.split("->")
    labels = "".join(dict.fromkeys(inputs.replace(",", "").replace(".", "")))
    ellipsis = "..." if "..." in inputs else ""
    summed = "".join(label for label in labels if label not in output)
    kept = "".join(label for label in labels if label in output)
    products = np.einsum(f"{inputs}->{ellipsis}{kept}{summed}", a.astype(np.float32), b.astype(np.float32)).astype(
        a.dtype)
    lead = products.shape[:products.ndim - len(summed)]
    terms = products.reshape(lead + (math.prod(products.shape[len(lead):]),))
    total = np.zeros(terms.shape[:-1], a.dtype)
    for i in range(terms.shape[-1]):
        total = total + terms[..., i]
    batch = total.ndim - len(kept)
    order = [kept.index(label) + batch for label in output.replace(".", "")]
    return np.transpose(total, list(range(batch)) + order)


def _patches(x: np.ndarray, geometry: _Geometry) -> np.ndarray:
    """Every window's input values: (batch, *out, window elements, channels), zeros where padded."""
    padded = np.zeros(geometry.padded_shape(), x.dtype)
    padded[geometry.crop()] = x
    taken = [padded[where] for _, where in geometry.slices()]
    shape = geometry.input_shape[:1] + geometry.out + (len(taken), geometry.input_shape[-1])
    return np.stack(taken, axis=-2).reshape(shape) if taken else np.zeros(shape, x.dtype)


def _grouped_filter(w: np.ndarray, geometry: _Geometry) -> np.ndarray:
    """The filter as (window elements, groups, channels per group, outputs per group)."""
    k = math.prod(geometry.window)
    if geometry.depthwise:
        return w.reshape(k, geometry.groups, 1, w.shape[-1])
    depth = w.shape[-2]
    per_group = w.shape[-1] // geometry.groups
    return w.reshape(k, depth, geometry.groups, per_group).transpose(0, 2, 1, 3)


def _on_onednn(op: str, padding: str, dtype: np.dtype, T) -> bool:
    """Whether TF runs the convolution's oneDNN kernel for its dtype (`T`: a half type that reaches it as float32);
    TF never sends a Conv2D backprop with explicit padding there."""
    if op.startswith("Conv2DBackprop") and padding == "EXPLICIT":
        return False
    return runs_onednn((np.dtype(T.as_numpy_dtype) if T is not None else np.dtype(dtype)).name)


def _channels_first(data_format: str | None, onednn: bool, rank: int, *shapes: tuple) -> bool:
    """A channels-first layout oneDNN's kernel takes (computed channels last, moved back), for inputs of the
    convolution's rank (others fail its checks as they stand)."""
    return (onednn and data_format is not None and not data_format.endswith("C")
            and all(len(shape) == rank + 2 for shape in shapes))


def _last(values, pairs: bool = False) -> tuple:
    """A per-dimension attribute of a channels-first layout (explicit paddings: a pair per dimension) in the
    channels-last order."""
    values = tuple(int(v) for v in values)
    if pairs:
        per = [values[i:i + 2] for i in range(0, len(values), 2)]
        return tuple(v for pair in [per[0], *per[2:], per[1]] for v in pair) if len(per) > 2 else values
    return (values[0], *values[2:], values[1]) if len(values) > 2 else values


def _moved(x: np.ndarray) -> np.ndarray:
    return np.moveaxis(x, 1, -1)


def _moved_back(x: np.ndarray) -> np.ndarray:
    return np.moveaxis(x, -1, 1)


def _forward(op, x, w, strides, padding, explicit_paddings, dilations, data_format, T, depthwise=False):
    onednn = _on_onednn(op, padding, x.dtype, T)
    if _channels_first(data_format, onednn, w.ndim - 2, x.shape):
        return _moved_back(_forward(op, _moved(x), w, _last(strides), padding, _last(explicit_paddings, True),
                                    _last(dilations), "NHWC", T, depthwise))
    geometry = _Geometry(op, x.shape, w.shape, strides, padding, explicit_paddings, dilations, data_format, depthwise,
                         onednn)
    work = _working(x.dtype, op, T)
    patches = _patches(x.astype(work), geometry)
    patches = patches.reshape(patches.shape[:-1] + geometry.grouping())  # (..., k, groups, per group)
    product = _contract("...kgc,kgco->...go", patches, _grouped_filter(w.astype(work), geometry))
    return product.reshape(geometry.output_shape).astype(x.dtype)


def _input_backprop(op, input_sizes, w, g, strides, padding, explicit_paddings, dilations, data_format, T,
                    depthwise=False):
    """The gradient of a convolution's input: each window's upstream times the filter, added back where the
    window read."""
    input_sizes = tuple(int(n) for n in input_sizes)
    onednn = _on_onednn(op, padding, g.dtype, T)
    if _channels_first(data_format, onednn, w.ndim - 2, input_sizes, g.shape):
        return _moved_back(_input_backprop(op, _last(input_sizes), w, _moved(g), _last(strides), padding,
                                           _last(explicit_paddings, True), _last(dilations), "NHWC", T, depthwise))
    geometry = _Geometry(op, input_sizes, w.shape, strides, padding, explicit_paddings, dilations, data_format,
                         depthwise, onednn)
    _check_upstream(op, g.shape, geometry)
    _check_ungrouped(geometry)
    work = _working(g.dtype, op, T)
    grouped = g.astype(work).reshape(g.shape[:-1] + geometry.output_grouping())
    windows = _contract("...go,kgco->...kgc", grouped, _grouped_filter(w.astype(work), geometry))
    windows = windows.reshape(windows.shape[:-2] + (input_sizes[-1],))
    padded = np.zeros(geometry.padded_shape(), work)
    for n, (_, where) in enumerate(geometry.slices()):
        padded[where] += windows[..., n, :]
    return padded[geometry.crop()].astype(g.dtype)


def _filter_backprop(op, x, filter_sizes, g, strides, padding, explicit_paddings, dilations, data_format, T,
                     depthwise=False):
    """The gradient of a convolution's filter: each window's input times its upstream, summed over the batch
    and the output's positions."""
    filter_sizes = tuple(int(n) for n in filter_sizes)
    onednn = _on_onednn(op, padding, x.dtype, T)
    if _channels_first(data_format, onednn, len(filter_sizes) - 2, x.shape, g.shape):
        return _filter_backprop(op, _moved(x), filter_sizes, _moved(g), _last(strides), padding,
                                _last(explicit_paddings, True), _last(dilations), "NHWC", T, depthwise)
    geometry = _Geometry(op, x.shape, filter_sizes, strides, padding, explicit_paddings, dilations, data_format,
                         depthwise, onednn)
    _check_upstream(op, g.shape, geometry)
    _check_ungrouped(geometry)
    work = _working(x.dtype, op, T)
    patches = _patches(x.astype(work), geometry)
    patches = patches.reshape(patches.shape[:-1] + geometry.grouping())
    grouped = g.astype(work).reshape(g.shape[:-1] + geometry.output_grouping())
    spatial = "".join(chr(ord("A") + i) for i in range(len(geometry.out) + 1))  # batch and output positions
    grads = _contract(f"{spatial}kgc,{spatial}go->kgco", patches, grouped)
    k = math.prod(geometry.window)
    if depthwise:
        return grads.reshape(filter_sizes).astype(x.dtype)
    return grads.transpose(0, 2, 1, 3).reshape(k, filter_sizes[-2], filter_sizes[-1]).reshape(filter_sizes).astype(
        x.dtype)


def _check_ungrouped(geometry: _Geometry) -> None:
    if geometry.groups > 1 and not geometry.depthwise and not geometry.onednn:
        raise ValueError(f"Gradients for grouped convolutions are not supported on CPU. Please file a feature request "
                         f"if you run into this issue. Computed input depth {geometry.input_shape[-1]} doesn't match "
                         f"filter input depth {geometry.filter_shape[-2]}")


def _check_upstream(op: str, shape: tuple, geometry: _Geometry) -> None:
    if tuple(shape) != geometry.output_shape:
        raise ValueError(f"{op}: Size of out_backprop doesn't match computed: actual = {dims_text(shape)}, "
                         f"computed = {dims_text(geometry.output_shape)}")


def _conv2d(x, w, strides, padding, explicit_paddings, dilations, data_format, T=None):
    return _forward("Conv2D", x, w, strides, padding, explicit_paddings, dilations, data_format, T)


def _conv2d_backprop_input(w, g, input_sizes, strides, padding, explicit_paddings, dilations, data_format, T=None):
    return _input_backprop("Conv2DBackpropInput", input_sizes, w, g, strides, padding, explicit_paddings, dilations,
                           data_format, T)


def _conv2d_backprop_filter(x, g, filter_sizes, strides, padding, explicit_paddings, dilations, data_format, T=None):
    return _filter_backprop("Conv2DBackpropFilter", x, filter_sizes, g, strides, padding, explicit_paddings,
                            dilations, data_format, T)


def _conv3d(x, w, strides, padding, dilations, data_format, T=None):
    if w.size == 0:
        raise ValueError("filter must not have zero elements (i.e. all dimensions must be non-zero)")
    return _forward("Conv3D", x, w, strides, padding, (), dilations, data_format, T)


def _conv3d_backprop_input(w, g, input_sizes, strides, padding, dilations, data_format, T=None):
    return _input_backprop("Conv3D", input_sizes, w, g, strides, padding, (), dilations, data_format, T)


def _conv3d_backprop_filter(x, g, filter_sizes, strides, padding, dilations, data_format, T=None):
    return _filter_backprop("Conv3D", x, filter_sizes, g, strides, padding, (), dilations, data_format, T)


def _depthwise(x, w, strides, padding, explicit_paddings, dilations, data_format, T=None):
    return _forward("DepthwiseConv2dNative", x, w, strides, padding, explicit_paddings, dilations, data_format, T, True)


def _depthwise_backprop_input(w, g, input_sizes, strides, padding, explicit_paddings, dilations, data_format,
                              T=None):
    return _input_backprop("DepthwiseConv2dNativeBackpropInput", input_sizes, w, g, strides, padding,
                           explicit_paddings, dilations, data_format, T, True)


def _depthwise_backprop_filter(x, g, filter_sizes, strides, padding, explicit_paddings, dilations, data_format,
                               T=None):
    return _filter_backprop("DepthwiseConv2dNativeBackpropFilter", x, filter_sizes, g, strides, padding,
                            explicit_paddings, dilations, data_format, T, True)
