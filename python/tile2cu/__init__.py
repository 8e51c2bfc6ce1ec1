"""tile2cu: run .tl kernels from Python (docs/python.md).

    import numpy as np, tile2cu
    m = tile2cu.load("examples/softmax.tl", defines={"BN": 256})
    X = np.random.rand(100, 300).astype(np.float32)
    Y = np.empty_like(X)
    m.softmax(X, Y)          # NumPy arrays: the CPU backend; CUDA arrays: the GPU

A module is translated once per (source, target, defines, options) in a
process; the CPU backend's build and NVRTC's cubin are kept in the compile
cache ($TILE2CU_CACHE_DIR, else ~/.cache/tile2cu), so later processes build
nothing either.
"""
import os
import threading

from ._errors import Error, Tile2cuWarning
from ._lib import library_path
from ._module import Kernel, Module

__all__ = ["Error", "Tile2cuWarning", "Kernel", "Module", "load", "compile_string", "version", "library_path",
           "device_available"]

_cache = {}
_cache_lock = threading.Lock()


def _module(name, source, target, defines, options):
    key = (name, source, target, tuple(sorted((defines or {}).items())), tuple(options or ()))
    with _cache_lock:
        m = _cache.get(key)
        if m is None:
            m = _cache[key] = Module(name, source, target, defines, options)
        return m


def load(path, target=None, defines=None, options=None):
    """The kernels of the .tl file at path.

    target   "sm_90", "sm_80", ...: the target config; None: sm_90 for NumPy
             arrays, the device's for the GPU
    defines  {"BN": 256}: file-level consts set as with -D BN=256
    options  more translator options as on the command line ("-Wno-bounds", "-Werror")
    """
    path = os.fspath(path)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise Error("cannot open %s: %s" % (path, e.strerror), status="IO") from None
    try:
        source = data.decode("utf-8")
    except UnicodeDecodeError:
        raise Error("%s is not UTF-8 text" % path, status="IO") from None
    if "\0" in source:
        raise Error("%s holds a NUL byte" % path, status="IO")
    return _module(path, source, target, defines, options)


def compile_string(source, name="<string>", target=None, defines=None, options=None):
    """The kernels of .tl source text; name appears in diagnostics."""
    if not isinstance(source, str):
        raise Error("compile_string takes the source as a str, not %s" % type(source).__name__)
    if "\0" in source:
        raise Error("%s: the source holds a NUL character" % name, status="IO")
    return _module(name, source, target, defines, options)


def version():
    """libtile2cu's version."""
    from ._lib import lib
    return lib().t2c_version().decode()


def device_available():
    """Whether libtile2cu finds a CUDA driver and device."""
    from ._lib import lib
    return lib().t2c_device_available() == 0


from ._tune import autotune  # noqa: E402

__all__.append("autotune")
