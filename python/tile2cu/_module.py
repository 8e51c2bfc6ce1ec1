"""_module.py: modules (a translated .tl program) and their kernels.

A Module owns one libtile2cu program, translated once for its target and
-D defines. Calling a kernel binds the arguments to the declared parameters
(positionally, then by name), infers the size names from the tensors' shapes
and checks that they agree, and launches:

  - NumPy arrays on the CPU backend (t2c_cpu_launch): the kernel built once
    per translation by the host C++ compiler, kept in the compile cache;
  - arrays on a CUDA device (__cuda_array_interface__, DLPack, torch tensors)
    through NVRTC and the driver API (t2c_compile_args, t2c_module_load,
    t2c_launch) on the given or current stream.

Sizes, @assume and @grid are checked by the library before either launch;
every failure raises tile2cu.Error.
"""
import ctypes
import re
import threading
import warnings

import numpy as np

from . import _dtypes
from ._errors import Error, Tile2cuWarning
from ._lib import (CompileOptions, CpuOptions, HostTensor, KernelInfo, LaunchOptions, ParamInfo, fail, lib,
                   status_name, strings)


# A define given as a string: one integer or float literal as -D takes it (an optional -,
# then decimal, 0x/0b/0o digits with _ separators, a fraction, an exponent), as
# tile2cu.autotune returns them ({"BM": "64"}); the translator checks the literal itself.
_LITERAL = re.compile(r"-?(0[xX][0-9a-fA-F_]+|0[bBoO][0-9_]+|[0-9][0-9_]*(\.[0-9_]*)?([eE][+-]?[0-9_]+)?"
                      r"|\.[0-9][0-9_]*([eE][+-]?[0-9_]+)?)")


def define_options(defines):
    """{"BN": 256} or {"BN": "256"} -> ["-DBN=256"], in a stable order; Error on a bad name or value."""
    out = []
    for name, value in sorted((defines or {}).items()):
        if not isinstance(name, str) or not name.isidentifier():
            raise Error("defines: %r is not a name" % (name,))
        if isinstance(value, str) and _LITERAL.fullmatch(value):
            out.append("-D%s=%s" % (name, value))
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
            raise Error("defines: %s=%r: a define takes an integer or a float, or a string of one" % (name, value))
        out.append("-D%s=%s" % (name, repr(value.item() if isinstance(value, np.generic) else value)))
    return out


class Param:
    """A declared parameter: name, tensor or scalar, dtype, dims (a size name or an int each), written,
    strided (in @strided: any view is passed with its strides, no copy)."""

    def __init__(self, info):
        self.name = info.name.decode()
        self.is_tensor = bool(info.is_tensor)
        self.dtype = info.dtype.decode()
        self.elem_bytes = info.elem_bytes
        self.dims = tuple(info.dim_size[d].decode() if info.dim_size[d] else info.dim_const[d]
                          for d in range(info.rank))
        self.written = bool(info.written)
        self.strided = bool(info.strided)

    def __repr__(self):
        if not self.is_tensor:
            return "%s: %s" % (self.name, self.dtype)
        return "%s: tensor<%s>[%s]%s" % (self.name, self.dtype, ", ".join(str(d) for d in self.dims),
                                         " (written)" if self.written else "")


class Module:
    """A translated .tl program; its kernels are attributes (m.softmax)."""

    def __init__(self, name, source, target=None, defines=None, options=None):
        self.name = name
        self.target = target
        self.defines = dict(defines or {})
        self._opts = define_options(defines) + list(options or [])
        self._lock = threading.Lock()
        self._gpu_module = None
        L = lib()
        p = ctypes.c_void_p()
        s = L.t2c_program_from_source(name.encode(), source.encode(), ctypes.byref(p))
        self._p = p
        if s and s != 3:  # TRANSLATE is retried below with the options and target
            raise fail(s)
        if s or self._opts or target:
            arr, n = strings(self._opts)
            s = L.t2c_program_translate(p, target.encode() if target else None, arr, n)
            if s:  # the diagnostics are this translation's only when it ran (an unknown target: the first's)
                raise fail(s, self.diagnostics if status_name(s) == "TRANSLATE" else "")
        if self.diagnostics:
            warnings.warn(self.diagnostics, Tile2cuWarning, stacklevel=4)
        self._kernels = {}
        for i in range(L.t2c_program_num_kernels(p)):
            kname = L.t2c_program_kernel_name(p, i).decode()
            self._kernels[kname] = Kernel(self, kname)

    def __del__(self):
        p = getattr(self, "_p", None)
        if p is not None and p.value:
            try:
                L = lib()
                if getattr(self, "_gpu_module", None) is not None:
                    L.t2c_module_unload(self._gpu_module)
                L.t2c_program_destroy(p)
            except Exception:  # at interpreter exit
                pass
            self._p = None

    @property
    def diagnostics(self):
        """The translator's messages (warnings), clang style; "" when none."""
        return lib().t2c_program_diagnostics_text(self._p).decode("utf-8", "replace")

    @property
    def cuda_source(self):
        """The generated CUDA C++ (for the GPU; with #line directives)."""
        s = lib().t2c_program_cuda_source(self._p)
        return s.decode() if s else None

    @property
    def kernels(self):
        return dict(self._kernels)

    def __getattr__(self, name):
        kernels = self.__dict__.get("_kernels", {})
        if name in kernels:
            return kernels[name]
        raise AttributeError("%s has no kernel '%s' (kernels: %s)" % (self.__dict__.get("name", "?"), name,
                                                                      ", ".join(kernels) or "none"))

    def __dir__(self):
        return list(super().__dir__()) + list(self._kernels)

    def __repr__(self):
        return "<tile2cu.Module %s: %s>" % (self.name, ", ".join(self._kernels))

    # ---- the GPU path: compiled and loaded once
    def _gpu(self):
        with self._lock:  # the launch itself is asynchronous and needs no lock
            if self._gpu_module is None:
                L = lib()
                arr, n = strings(self._opts)
                co = CompileOptions(self.target.encode() if self.target else None, 0, 0)
                s = L.t2c_compile_args(self._p, ctypes.byref(co), arr, n)
                if s:
                    raise fail(s, self.diagnostics)
                m = ctypes.c_void_p()
                s = L.t2c_module_load(self._p, ctypes.byref(m))
                if s:
                    raise fail(s)
                self._gpu_module = m
            return self._gpu_module


class Kernel:
    """One kernel of a Module; call it with the kernel's parameters."""

    def __init__(self, module, name):
        self.module = module
        self.name = name
        L = lib()
        info = KernelInfo()
        s = L.t2c_program_kernel_info(module._p, name.encode(), ctypes.byref(info))
        if s:
            raise fail(s)
        self.threads = info.threads
        self.shared_bytes = info.shared_bytes
        self.params = []
        for i in range(info.num_params):
            pi = ParamInfo()
            s = L.t2c_program_param_info(module._p, name.encode(), i, ctypes.byref(pi))
            if s:
                raise fail(s)
            self.params.append(Param(pi))
        self.sizes = [L.t2c_program_size_name(module._p, name.encode(), i).decode() for i in range(info.num_sizes)]

    def __repr__(self):
        return "<tile2cu.Kernel %s(%s)>" % (self.name, ", ".join(repr(p) for p in self.params))

    def __call__(self, *args, grid=None, schedules=1, stream=None, **kwargs):
        """Runs the kernel. Positional arguments are the parameters in order; keywords
        name parameters or sizes (a size given is checked against the shapes).
        grid=(x, y, z) overrides @grid; schedules (CPU backend) is the number of thread
        schedules run and compared; stream (GPU) is a CUstream handle as an int."""
        values, sizes = self._bind(args, kwargs)
        tensors = [_Tensor.of(p, values[p.name]) for p in self.params if p.is_tensor]
        on_gpu = {t.on_gpu for t in tensors}
        if len(on_gpu) > 1:
            raise Error("kernel %s: some tensors are NumPy arrays and some are on the GPU; pass all of one kind"
                        % self.name)
        self._infer_sizes(tensors, sizes)
        gpu = on_gpu == {True}
        for t in tensors:
            t.check(self.name, sizes)
        argv = self._argv(values, tensors, sizes, gpu)
        g = (ctypes.c_uint * 3)(*_grid(grid))
        L = lib()
        if gpu:
            mod = self.module._gpu()
            if stream is None:
                stream = next((t.stream for t in tensors if t.stream is not None), None)
            lo = LaunchOptions(g, ctypes.c_void_p(stream or 0))
            s = L.t2c_launch(mod, self.name.encode(), argv, ctypes.byref(lo))
        else:
            if not isinstance(schedules, int) or not 1 <= schedules <= 1000:
                raise Error("kernel %s: schedules is 1 to 1000, not %r" % (self.name, schedules))
            with self.module._lock:  # one program is used by one thread at a time
                s = L.t2c_cpu_launch(self.module._p, self.name.encode(), argv, ctypes.byref(CpuOptions(g, schedules)))
        if s:
            raise fail(s, self.module.diagnostics if status_name(s) == "TRANSLATE" else "")
        for t in tensors:
            t.finish()

    # ---- binding
    def _bind(self, args, kwargs):
        names = [p.name for p in self.params]
        if len(args) > len(names):
            raise Error("kernel %s takes %d arguments (%s), %d given" % (self.name, len(names),
                                                                      ", ".join(names), len(args)))
        values = dict(zip(names, args))
        sizes = {}
        for k, v in kwargs.items():
            if k in values:
                raise Error("kernel %s: %s given twice" % (self.name, k))
            if k in names:
                values[k] = v
            elif k in self.sizes:
                if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
                    raise Error("kernel %s: size %s=%r: a size is a positive integer" % (self.name, k, v))
                sizes[k] = int(v)
            else:
                raise Error("kernel %s has no parameter or size '%s' (parameters: %s; sizes: %s)" %
                            (self.name, k, ", ".join(names), ", ".join(self.sizes) or "none"))
        missing = [n for n in names if n not in values]
        if missing:
            raise Error("kernel %s: missing argument%s %s" % (self.name, "s" if len(missing) > 1 else "",
                                                               ", ".join(missing)))
        return values, sizes

    def _infer_sizes(self, tensors, sizes):
        given = dict(sizes)
        seen = {}  # size -> (tensor, dim) that fixed it
        for t in tensors:
            p = t.param
            if len(t.shape) != len(p.dims):
                raise Error("kernel %s: tensor %s has %d dims %s, but the kernel declares %d [%s]" %
                            (self.name, p.name, len(t.shape), tuple(t.shape), len(p.dims),
                             ", ".join(str(d) for d in p.dims)))
            for d, dim in enumerate(p.dims):
                if not isinstance(dim, str):
                    continue
                n = t.shape[d]
                if n == 0 and dim not in sizes:  # no launch takes a size of 0: say which tensor made it
                    raise Error("kernel %s: tensor %s is empty (%s.shape[%d] is 0), which makes size %s 0; "
                                "sizes are from 1 to 2147483647" % (self.name, p.name, p.name, d, dim))
                if dim not in sizes:
                    sizes[dim] = n
                    seen[dim] = (p.name, d)
                elif sizes[dim] != n:
                    where = ("given as %s=%d" % (dim, given[dim]) if dim in given else
                             "%s.shape[%d] is %d" % (seen[dim][0], seen[dim][1], sizes[dim]))
                    raise Error("kernel %s: size %s disagrees: %s.shape[%d] is %d, but %s" %
                                (self.name, dim, p.name, d, n, where))
        for s in self.sizes:
            if s not in sizes:
                raise Error("kernel %s: size %s is fixed by no tensor's shape: pass %s=VALUE" % (self.name, s, s))
            if sizes[s] > 2**31 - 1:
                raise Error("kernel %s: size %s = %d does not fit an int" % (self.name, s, sizes[s]))

    def _argv(self, values, tensors, sizes, gpu):
        keep = []
        ptrs = []
        it = iter(tensors)
        for p in self.params:
            if p.is_tensor:
                t = next(it)
                v = t.argument(gpu)
            else:
                try:
                    v = _dtypes.scalar(p.dtype, p.name, values[p.name])
                except ValueError as e:
                    raise Error("kernel %s: %s" % (self.name, e)) from None
            keep.append(v)
            ptrs.append(ctypes.cast(ctypes.pointer(v), ctypes.c_void_p))
        for s in self.sizes:
            v = ctypes.c_int(sizes[s])
            keep.append(v)
            ptrs.append(ctypes.cast(ctypes.pointer(v), ctypes.c_void_p))
        for t in tensors:  # @strided tensors' strides, in elements, in parameter order
            for st in (t.strides if t.param.strided else ()):
                v = ctypes.c_longlong(st)
                keep.append(v)
                ptrs.append(ctypes.cast(ctypes.pointer(v), ctypes.c_void_p))
        argv = (ctypes.c_void_p * max(len(ptrs), 1))(*ptrs)
        argv._keep = keep  # the values live as long as the array
        return argv


def _grid(grid):
    if grid is None:
        return (0, 0, 0)
    if isinstance(grid, int):
        grid = (grid,)
    grid = tuple(grid)
    if not 1 <= len(grid) <= 3 or any(isinstance(g, bool) or not isinstance(g, (int, np.integer)) or
                                      not 1 <= g <= 2**31 - 1 for g in grid):
        raise Error("grid takes 1 to 3 positive integers, not %r" % (grid,))
    return tuple(int(g) for g in grid) + (1,) * (3 - len(grid))


class _Tensor:
    """A tensor argument: a NumPy array (host) or device memory (GPU)."""

    def __init__(self, param, obj):
        self.param = param
        self.obj = obj
        self.on_gpu = False
        self.stream = None
        self.shape = ()
        self.array = None     # NumPy: the contiguous array (or @strided view) handed to the kernel
        self.ptr = 0          # GPU: the device pointer
        self.strides = ()     # @strided: the strides in elements

    @classmethod
    def of(cls, param, obj):
        t = cls(param, obj)
        if isinstance(obj, np.ndarray):
            t._numpy()
        elif _is_torch(obj) or hasattr(obj, "__cuda_array_interface__") or hasattr(obj, "__dlpack__"):
            t._device()
        else:
            raise Error("tensor %s: expected a NumPy array or a CUDA array (__cuda_array_interface__, DLPack), "
                        "not %s" % (param.name, type(obj).__name__))
        return t

    def _numpy(self):
        p, a = self.param, self.obj
        if not _dtypes.numpy_matches(p.dtype, a.dtype):
            want = " or ".join(str(d) for d in _dtypes.numpy_dtypes(p.dtype))
            raise Error("tensor %s is %s: expected a %s array, not %s" % (p.name, p.dtype, want, a.dtype))
        if p.written and not a.flags.writeable:
            raise Error("tensor %s is written by the kernel, but the array is read-only" % p.name)
        if p.strided and all(s >= 0 and s % a.itemsize == 0 for s in a.strides):
            # a @strided tensor takes the view as it is (transposed, sliced): no copy
            self.array, self.shape = a, tuple(a.shape)
            self.strides = tuple(s // a.itemsize for s in a.strides)
            return
        if p.strided and p.written:
            raise Error("tensor %s is written by the kernel: its view has negative or unaligned strides %s; "
                        "@strided takes strides >= 0 in whole elements" % (p.name, a.strides))
        if p.written and not a.flags.c_contiguous:
            raise Error("tensor %s is written by the kernel: pass a C-contiguous array "
                        "(np.ascontiguousarray), not a strided view" % p.name)
        self.array = a if a.flags.c_contiguous else np.ascontiguousarray(a)
        self.shape = tuple(a.shape)
        if p.strided:  # a copy (read only): row-major strides
            self.strides = tuple(s // a.itemsize for s in self.array.strides)

    def _device(self):
        p, o = self.param, self.obj
        self.on_gpu = True
        if _is_torch(o):
            if not o.is_cuda:
                raise Error("tensor %s: a torch tensor on the CPU; pass t.numpy() or move it to the GPU" % p.name)
            dt = _dtypes.from_torch(o.dtype)
            if p.strided and all(s >= 0 for s in o.stride()):
                self.strides = tuple(o.stride())
            elif not o.is_contiguous():
                raise Error("tensor %s: pass a contiguous tensor (t.contiguous())" % p.name)
            elif p.strided:
                self.strides = tuple(o.stride())
            self.ptr, self.shape = o.data_ptr(), tuple(o.shape)
            import torch
            self.stream = torch.cuda.current_stream(o.device).cuda_stream
        elif hasattr(o, "__cuda_array_interface__"):
            cai = o.__cuda_array_interface__
            dt = _dtypes.from_typestr(cai["typestr"])
            self.shape = tuple(cai["shape"])
            self.ptr = cai["data"][0]
            strides = cai.get("strides")
            if p.strided:
                bs = tuple(strides) if strides is not None else _c_strides(self.shape, p.elem_bytes)
                if any(s < 0 or s % p.elem_bytes for s in bs):
                    raise Error("tensor %s: @strided takes strides >= 0 in whole elements, not %s" % (p.name, bs))
                self.strides = tuple(s // p.elem_bytes for s in bs)
            elif strides is not None and tuple(strides) != _c_strides(self.shape, p.elem_bytes):
                raise Error("tensor %s: pass a C-contiguous device array" % p.name)
            s = cai.get("stream")
            self.stream = s if isinstance(s, int) and s > 2 else None
        else:
            dt, self.ptr, self.shape = _dlpack(p, o)
        if p.strided and not self.strides:  # contiguous: row-major strides
            self.strides = tuple(s // p.elem_bytes for s in _c_strides(self.shape, p.elem_bytes))
        if dt != p.dtype and not (dt == "u8" and p.dtype.startswith("f8")):  # f8 as raw bits
            raise Error("tensor %s is %s, but the device array is %s" % (p.name, p.dtype, dt or "another type"))

    def check(self, kernel, sizes):
        p = self.param
        for d, dim in enumerate(p.dims):
            if not isinstance(dim, str) and self.shape[d] != dim:
                raise Error("kernel %s: tensor %s: dim %d is %d, but the kernel declares %d" %
                            (kernel, p.name, d, self.shape[d], dim))

    def argument(self, gpu):
        if gpu:
            return ctypes.c_uint64(self.ptr)
        shape = (ctypes.c_longlong * max(len(self.shape), 1))(*self.shape)
        ht = HostTensor(self.array.ctypes.data, len(self.shape), shape)
        ht._keep = (shape, self.array)
        return ht

    def finish(self):
        pass


def _is_torch(o):
    return type(o).__module__.startswith("torch") and hasattr(o, "data_ptr") and hasattr(o, "is_cuda")


def _c_strides(shape, elem):
    out, s = [], elem
    for n in reversed(shape):
        out.append(s)
        s *= n
    return tuple(reversed(out))


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


def _dlpack(p, o):
    """(dtype, device pointer, shape) of a DLPack CUDA tensor; the object keeps the memory alive."""
    dev = o.__dlpack_device__() if hasattr(o, "__dlpack_device__") else None
    if dev is None or dev[0] not in (2, 13):  # kDLCUDA, kDLCUDAManaged
        raise Error("tensor %s: a DLPack tensor not on a CUDA device (device %r)" % (p.name, dev))
    cap = o.__dlpack__()
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    t = _DLTensor.from_address(get(cap, b"dltensor"))  # DLManagedTensor starts with its DLTensor
    shape = tuple(t.shape[i] for i in range(t.ndim))
    if t.strides and tuple(t.strides[i] for i in range(t.ndim)) != tuple(
            s // p.elem_bytes for s in _c_strides(shape, p.elem_bytes)):
        raise Error("tensor %s: pass a C-contiguous DLPack tensor" % p.name)
    if t.dtype.lanes != 1:
        raise Error("tensor %s: vector DLPack types are not supported" % p.name)
    return _dtypes.from_dlpack(t.dtype.code, t.dtype.bits), (t.data or 0) + t.byte_offset, shape
