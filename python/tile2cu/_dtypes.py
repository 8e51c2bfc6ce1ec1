"""_dtypes.py: the .tl element types and their NumPy, array-interface and DLPack names.

bf16 is ml_dtypes.bfloat16 when ml_dtypes is installed; a uint16 array of raw
bfloat16 bits is accepted either way. Likewise f8e4m3 and f8e5m2 are
ml_dtypes.float8_e4m3fn and float8_e5m2, or uint8 arrays of their bits.
"""
import ctypes
import struct

import numpy as np

try:
    import ml_dtypes as _ml
    BFLOAT16 = np.dtype(_ml.bfloat16)
    F8E4M3 = np.dtype(_ml.float8_e4m3fn)
    F8E5M2 = np.dtype(_ml.float8_e5m2)
except ImportError:  # raw bits
    BFLOAT16 = F8E4M3 = F8E5M2 = None

# .tl type -> the NumPy dtypes a tensor of it may have (the first is the one made)
_NUMPY = {
    "f32": [np.dtype(np.float32)],
    "f16": [np.dtype(np.float16)],
    "f64": [np.dtype(np.float64)],
    "i8": [np.dtype(np.int8)],
    "u8": [np.dtype(np.uint8)],
    "i32": [np.dtype(np.int32)],
    "u32": [np.dtype(np.uint32)],
    "i64": [np.dtype(np.int64)],
    "bool": [np.dtype(np.bool_)],
    "bf16": ([BFLOAT16] if BFLOAT16 is not None else []) + [np.dtype(np.uint16)],
    "f8e4m3": ([F8E4M3] if F8E4M3 is not None else []) + [np.dtype(np.uint8)],
    "f8e5m2": ([F8E5M2] if F8E5M2 is not None else []) + [np.dtype(np.uint8)],
}

# array-interface typestr (little-endian) -> .tl type; bf16 has none of its own
_TYPESTR = {"<f4": "f32", "<f2": "f16", "<f8": "f64", "|i1": "i8", "|u1": "u8", "<i4": "i32",
            "<u4": "u32", "<i8": "i64", "|b1": "bool", "<u2": "bf16", "<V2": "bf16"}

# DLPack (code, bits) -> .tl type: kDLInt 0, kDLUInt 1, kDLFloat 2, kDLBfloat 4, kDLBool 6
_DLPACK = {(2, 32): "f32", (2, 16): "f16", (2, 64): "f64", (0, 8): "i8", (1, 8): "u8", (0, 32): "i32",
           (1, 32): "u32", (0, 64): "i64", (6, 8): "bool", (1, 8 + 0x100): "bool", (4, 16): "bf16",
           (1, 16): "bf16"}

# torch dtype name -> .tl type
_TORCH = {"float32": "f32", "float16": "f16", "float64": "f64", "int8": "i8", "uint8": "u8",
          "int32": "i32", "uint32": "u32", "int64": "i64", "bool": "bool", "bfloat16": "bf16",
          "float8_e4m3fn": "f8e4m3", "float8_e5m2": "f8e5m2"}


def numpy_dtypes(tl):
    """The NumPy dtypes a tensor of .tl type tl may be."""
    return _NUMPY[tl]


def numpy_dtype(tl):
    """The NumPy dtype to make for .tl type tl (raw uint16 for bf16 without ml_dtypes)."""
    return _NUMPY[tl][0]


def numpy_matches(tl, dtype):
    dtype = np.dtype(dtype)
    return any(dtype == d for d in _NUMPY[tl])


def from_typestr(s):
    return _TYPESTR.get(s)


def from_dlpack(code, bits):
    return _DLPACK.get((code, bits))


def from_torch(dtype):
    return _TORCH.get(str(dtype).replace("torch.", ""))


def _bf16_bits(v):
    """v rounded to bfloat16 (round to nearest even), as its 16 bits."""
    if BFLOAT16 is not None:
        return int(np.array(v, dtype=BFLOAT16).view(np.uint16))
    (u,) = struct.unpack("<I", struct.pack("<f", v))
    if (u & 0x7F800000) == 0x7F800000 and (u & 0x7FFFFF):  # NaN stays a quiet NaN
        return (u >> 16) | 0x40
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) & 0xFFFF


_INT_RANGE = {"i8": (-2**7, 2**7 - 1), "u8": (0, 2**8 - 1), "i32": (-2**31, 2**31 - 1),
              "u32": (0, 2**32 - 1), "i64": (-2**63, 2**63 - 1)}
_CTYPE = {"f32": ctypes.c_float, "f64": ctypes.c_double, "i8": ctypes.c_int8, "u8": ctypes.c_uint8,
          "i32": ctypes.c_int32, "u32": ctypes.c_uint32, "i64": ctypes.c_int64, "bool": ctypes.c_bool}


def scalar(tl, name, v):
    """A ctypes value holding the Python number v as .tl type tl; ValueError says why not."""
    if isinstance(v, np.generic):
        v = v.item()
    if tl == "bool":
        if not isinstance(v, (bool, int)) or v not in (0, 1):
            raise ValueError("scalar %s is bool: pass True or False, not %r" % (name, v))
        return ctypes.c_bool(bool(v))
    if isinstance(v, bool):
        v = int(v)
    if tl in _INT_RANGE:
        if isinstance(v, float) and v.is_integer():
            v = int(v)
        if not isinstance(v, int):
            raise ValueError("scalar %s is %s: it takes an integer, not %r" % (name, tl, v))
        lo, hi = _INT_RANGE[tl]
        if not lo <= v <= hi:
            raise ValueError("scalar %s is %s: %d is outside [%d, %d]" % (name, tl, v, lo, hi))
        return _CTYPE[tl](v)
    if not isinstance(v, (int, float)):
        raise ValueError("scalar %s is %s: it takes a number, not %r" % (name, tl, v))
    if tl == "f16":
        return ctypes.c_uint16(int(np.array(v, dtype=np.float16).view(np.uint16)))
    if tl == "bf16":
        return ctypes.c_uint16(_bf16_bits(float(v)))
    return _CTYPE[tl](float(v))
