"""_lib.py: libtile2cu through ctypes (nvrtc_driver/tile2cu.h).

The library is found, in order: $TILE2CU_LIB (a path to libtile2cu.so.0);
the copy the package carries (tile2cu/_lib/libtile2cu.so.0, put there when the
package was built from a checkout where `make` had run); the build/ directory
of the checkout the package sits in (an editable install); then the system's
libtile2cu.so.0 (`make install`).
"""
import ctypes
import os

from ._errors import Error

_HERE = os.path.dirname(os.path.abspath(__file__))
_SONAME = "libtile2cu.so.0"

# t2c_status, in the order of the enum in tile2cu.h
STATUS = [
    "SUCCESS", "INVALID_VALUE", "IO", "TRANSLATE", "TARGET", "NO_NVRTC", "COMPILE", "NOT_COMPILED",
    "NO_DEVICE", "NOT_FOUND", "ASSUME", "GRID", "CUDA", "OUT_OF_MEMORY", "CPU",
]


class ParamInfo(ctypes.Structure):
    _fields_ = [
        ("name", ctypes.c_char_p),
        ("is_tensor", ctypes.c_int),
        ("dtype", ctypes.c_char_p),
        ("elem_bytes", ctypes.c_int),
        ("rank", ctypes.c_int),
        ("dim_size", ctypes.c_char_p * 4),
        ("dim_const", ctypes.c_longlong * 4),
        ("written", ctypes.c_int),
        ("strided", ctypes.c_int),
    ]


class KernelInfo(ctypes.Structure):
    _fields_ = [
        ("name", ctypes.c_char_p),
        ("threads", ctypes.c_int),
        ("shared_bytes", ctypes.c_longlong),
        ("dynamic_shared", ctypes.c_int),
        ("num_params", ctypes.c_int),
        ("num_sizes", ctypes.c_int),
        ("registers", ctypes.c_int),
        ("stack_bytes", ctypes.c_int),
        ("spill_store_bytes", ctypes.c_int),
        ("spill_load_bytes", ctypes.c_int),
        ("num_strides", ctypes.c_int),
        ("num_tensor_maps", ctypes.c_int),
    ]


class CompileOptions(ctypes.Structure):
    _fields_ = [("target", ctypes.c_char_p), ("output", ctypes.c_int), ("flags", ctypes.c_uint)]


class HostTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("rank", ctypes.c_int), ("shape", ctypes.POINTER(ctypes.c_longlong))]


class CpuOptions(ctypes.Structure):
    _fields_ = [("grid", ctypes.c_uint * 3), ("schedules", ctypes.c_int)]


class LaunchOptions(ctypes.Structure):
    _fields_ = [("grid", ctypes.c_uint * 3), ("stream", ctypes.c_void_p)]


def _candidates():
    env = os.environ.get("TILE2CU_LIB")
    if env:
        return [env]
    out = [os.path.join(_HERE, "_lib", _SONAME)]
    checkout = os.path.normpath(os.path.join(_HERE, "..", "..", "build", _SONAME))
    out.append(checkout)
    out.append(_SONAME)
    return out


def _open():
    tried = []
    for path in _candidates():
        if os.sep in path and not os.path.exists(path):
            tried.append(path + " (missing)")
            continue
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
    raise Error("cannot load libtile2cu: tried " + "; ".join(tried) +
                ". Run `make` in the tile2cu checkout and reinstall the package, or set TILE2CU_LIB",
                status="IO")


_P = ctypes.c_void_p
_I = ctypes.c_int
_S = ctypes.c_char_p
_SIGS = {
    "t2c_error_string": (_S, [_I]),
    "t2c_last_error": (_S, []),
    "t2c_version": (_S, []),
    "t2c_program_from_file": (_I, [_S, ctypes.POINTER(_P)]),
    "t2c_program_from_source": (_I, [_S, _S, ctypes.POINTER(_P)]),
    "t2c_program_destroy": (None, [_P]),
    "t2c_program_diagnostics_text": (_S, [_P]),
    "t2c_program_cuda_source": (_S, [_P]),
    "t2c_program_num_kernels": (_I, [_P]),
    "t2c_program_kernel_name": (_S, [_P, _I]),
    "t2c_program_kernel_info": (_I, [_P, _S, ctypes.POINTER(KernelInfo)]),
    "t2c_program_param_info": (_I, [_P, _S, _I, ctypes.POINTER(ParamInfo)]),
    "t2c_program_size_name": (_S, [_P, _S, _I]),
    "t2c_program_translate": (_I, [_P, _S, ctypes.POINTER(_S), _I]),
    "t2c_compile_args": (_I, [_P, ctypes.POINTER(CompileOptions), ctypes.POINTER(_S), _I]),
    "t2c_device_available": (_I, []),
    "t2c_module_load": (_I, [_P, ctypes.POINTER(_P)]),
    "t2c_module_unload": (None, [_P]),
    "t2c_launch": (_I, [_P, _S, ctypes.POINTER(_P), ctypes.POINTER(LaunchOptions)]),
    "t2c_cpu_launch": (_I, [_P, _S, ctypes.POINTER(_P), ctypes.POINTER(CpuOptions)]),
    "t2c_synchronize": (_I, []),
}

_lib = None


def lib():
    """The loaded library, its functions typed (loaded on first use)."""
    global _lib
    if _lib is None:
        handle = _open()
        for name, (res, args) in _SIGS.items():
            try:
                f = getattr(handle, name)
            except AttributeError:
                raise Error("%s has no %s: it is older than this package; rebuild it (make)" %
                            (handle._name, name), status="IO")
            f.restype = res
            f.argtypes = args
        _lib = handle
    return _lib


def library_path():
    """The path of the libtile2cu in use."""
    return lib()._name


def status_name(s):
    return STATUS[s] if 0 <= s < len(STATUS) else "UNKNOWN(%d)" % s


def fail(status, diagnostics=""):
    """An Error for a failing call: the library's last message and the diagnostics."""
    msg = (lib().t2c_last_error() or b"").decode("utf-8", "replace")
    if not msg:
        msg = lib().t2c_error_string(status).decode()
    return Error(msg, status=status_name(status), diagnostics=diagnostics)


def strings(items):
    """A (char **, count) pair for a list of str."""
    arr = (_S * max(len(items), 1))(*[s.encode() for s in items])
    return arr, len(items)
