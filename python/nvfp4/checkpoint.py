"""NVFP4 weights that another tool quantized: Model Optimizer's checkpoints
(the format vLLM and TensorRT-LLM load) read as they are into decode-scaled
:class:`nvfp4.Tensor` values (docs/frontends.md, "Pre-quantized
checkpoints")."""

from __future__ import annotations

import numpy as np

from . import BLOCK_SIZE, BlockLike, Tensor, _as_u8, _block


def _host_array(x):
    """A numpy view of ``x``; a torch tensor (duck-typed, so that torch is
    not imported here) is moved to the host first, and a float8 one is
    viewed as its bytes (numpy has no float8 dtype)."""
    if isinstance(x, np.ndarray) or not hasattr(x, "detach"):
        return x
    t = x.detach()
    if "float8" in str(getattr(t, "dtype", "")):
        import torch  # only reached with a torch tensor
        t = t.view(torch.uint8)
    return t.cpu().numpy()


def from_modelopt(weight, weight_scale, weight_scale_2,
                  block: BlockLike = (1, 16)) -> Tensor:
    """An NVFP4 weight from a checkpoint that NVIDIA's Model Optimizer
    exported (the format vLLM and TensorRT-LLM load), as a decode-scaled
    :class:`Tensor` that dequantizes and multiplies bit for bit as those
    tools do.

    Args:
      weight: uint8 ``[N, K/2]``, the checkpoint's ``<layer>.weight``: two
        E2M1 codes per byte, element ``2j`` in the low nibble.
      weight_scale: ``[N, K/16]`` E4M3 block scales, row-major
        (``<layer>.weight_scale``, ``float8_e4m3fn``; uint8 bit patterns
        are accepted too).
      weight_scale_2: the per-tensor decode scale, one float32
        (``<layer>.weight_scale_2`` = amax / (6 * 448)). For a fused
        projection stored as several shards, pass their maximum, as vLLM
        does (Model Optimizer exports equal values for fused layers).
      block: ``(1, 16)`` (Model Optimizer's layout) or ``(16, 16)`` when
        every 16x16 tile's scales are equal.

    numpy arrays and torch tensors (on any device) are accepted. Element
    ``(n, k)`` of the result dequantizes to ``e2m1 * (e4m3 *
    weight_scale_2)`` in float32, Model Optimizer's ``NVFP4QTensor``
    dequantization; :func:`matmul` with it as ``B`` computes ``A @ W.T``.
    """
    data = _as_u8(_host_array(weight), "weight")
    scales = _e4m3_bytes(_host_array(weight_scale), "weight_scale")
    if data.ndim != 2:
        raise ValueError(
            f"weight must be a 2-D uint8 [N, K/2] array, got shape "
            f"{data.shape}")
    rows, cols = int(data.shape[0]), 2 * int(data.shape[1])
    if cols % BLOCK_SIZE != 0:
        raise ValueError(
            f"weight has K = {cols} (2 x {data.shape[1]} bytes a row), "
            f"which is not a multiple of {BLOCK_SIZE}")
    if scales.shape != (rows, cols // BLOCK_SIZE):
        raise ValueError(
            f"weight_scale has shape {scales.shape}, expected "
            f"{(rows, cols // BLOCK_SIZE)} for a weight of {rows} x {cols} "
            f"(row-major, not swizzled)")
    ws2 = np.asarray(_host_array(weight_scale_2))
    if ws2.size != 1:
        raise ValueError(
            f"weight_scale_2 must be one value, got shape {ws2.shape} (for "
            f"fused shards, pass their maximum)")
    blk = _block(block)
    if blk == (16, 16):
        tiles = scales.reshape(rows // 16, 16, -1) if rows % 16 == 0 else None
        if tiles is None or not np.all(tiles == tiles[:, :1, :]):
            raise ValueError(
                "block=(16, 16) needs the 16 rows of every tile to share "
                "their scales")
    return Tensor.from_components(data, scales, (rows, cols),
                                  decode_scale=ws2.reshape(()), block=blk)


def _e4m3_bytes(x, name: str) -> np.ndarray:
    """E4M3 scales as uint8 bit patterns: an array of a one-byte float8
    dtype (ml_dtypes.float8_e4m3fn; a torch float8_e4m3fn tensor) is
    reinterpreted; anything else must hold bytes."""
    arr = np.asarray(_host_array(x))
    if arr.dtype.itemsize == 1 and "float8_e4m3" in str(arr.dtype):
        return np.ascontiguousarray(arr).view(np.uint8)
    return _as_u8(arr, name)
