"""test_tile2cu.py: the Python package on NumPy arrays and the CPU backend.

Run by tests/python/run.sh (make python-test, part of make test) in a fresh
venv with the package installed from python/. Every expected value is
computed here with NumPy, from the inputs; every error is provoked.
"""
import os
import subprocess
import sys

import numpy as np
import pytest

import tile2cu

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
DTYPES = os.path.join(HERE, "dtypes.tl")
AFFINE = os.path.join(HERE, "affine.tl")
SOFTMAX = os.path.join(ROOT, "examples", "softmax.tl")

rng = np.random.default_rng(1234)


def softmax_ref(x):
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


# ---- installation


def test_the_installed_package_carries_its_library():
    # the package in use is the installed one, not the checkout's python/ directory,
    # and its library is the copy inside it
    pkg = os.path.dirname(tile2cu.__file__)
    assert "site-packages" in pkg, pkg
    assert tile2cu.library_path() == os.path.join(pkg, "_lib", "libtile2cu.so.0")
    assert os.path.isfile(tile2cu.library_path())
    with open(os.path.join(ROOT, "translator", "t2c.h")) as f:
        version = [l.split('"')[1] for l in f if l.startswith("#define TILE2CU_VERSION")][0]
    assert tile2cu.version() == version


def test_the_ctypes_mirrors_have_the_c_structs_fields():
    # libtile2cu fills these structs in place: a ctypes mirror that lacks a field
    # of the C struct (as KernelInfo lacked num_strides) lets the library write past it
    import re
    from tile2cu import _lib
    with open(os.path.join(ROOT, "nvrtc_driver", "tile2cu.h")) as f:
        header = f.read()
    for cname, mirror in [("t2c_kernel_info", _lib.KernelInfo), ("t2c_param_info", _lib.ParamInfo),
                          ("t2c_compile_options", _lib.CompileOptions), ("t2c_host_tensor", _lib.HostTensor),
                          ("t2c_cpu_options", _lib.CpuOptions), ("t2c_launch_options", _lib.LaunchOptions)]:
        body = re.search(r"typedef struct %s \{(.*?)\} %s;" % (cname, cname), header, re.S).group(1)
        body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
        decls = [re.sub(r"\[.*?\]", "", d).strip() for d in body.split(";") if d.strip()]
        names = [n for d in decls for n in re.findall(r"(\w+)\s*(?:,|$)", d)]
        assert [f[0] for f in mirror._fields_] == names, cname


# ---- examples/softmax.tl against NumPy


@pytest.mark.parametrize("defines", [None, {"BN": 256}])
def test_softmax_matches_numpy_at_a_ragged_size(defines):
    m = tile2cu.load(SOFTMAX, defines=defines, options=["-w"])  # no -Wbounds warnings
    X = rng.standard_normal((37, 300 if defines else 2100)).astype(np.float32) * 4
    Y = np.full_like(X, np.nan)
    m.softmax(X, Y)
    np.testing.assert_allclose(Y, softmax_ref(X), rtol=2e-6, atol=1e-7)


def test_a_module_is_translated_once_per_source_target_and_defines():
    a = tile2cu.load(SOFTMAX, defines={"BN": 256}, options=["-w"])
    assert tile2cu.load(SOFTMAX, defines={"BN": 256}, options=["-w"]) is a
    assert tile2cu.load(SOFTMAX, defines={"BN": 512}, options=["-w"]) is not a
    assert tile2cu.load(SOFTMAX, target="sm_80", defines={"BN": 256}, options=["-w"]) is not a


# ---- the sm_90a (wgmma, TMA) kernels of the examples, at ragged sizes

GEMM_F16 = os.path.join(ROOT, "examples", "gemm_f16.tl")
ATTN_F16 = os.path.join(ROOT, "examples", "attention_f16.tl")


def attention_ref(Q, K, V, scale, causal):
    s = np.einsum("bhid,bhjd->bhij", Q.astype(np.float64), K.astype(np.float64)) * scale
    if causal:
        n = s.shape[-1]
        s = np.where(np.arange(n)[None, :] <= np.arange(n)[:, None], s, -np.inf)
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    return np.einsum("bhij,bhjd->bhid", p / p.sum(axis=-1, keepdims=True), V.astype(np.float64))


@pytest.mark.parametrize("K", [72, 77])  # K % 8 == 0: the fast body (TMA); else the general one
def test_gemm_f16_on_sm90a_matches_numpy(K):
    m = tile2cu.load(GEMM_F16, target="sm_90a", options=["-w"])
    A = rng.standard_normal((130, K)).astype(np.float16)
    B = rng.standard_normal((K, 136)).astype(np.float16)
    C = np.full((130, 136), np.nan, np.float16)
    m.gemm_f16(A, B, C)
    ref = A.astype(np.float64) @ B.astype(np.float64)
    np.testing.assert_allclose(C.astype(np.float64), ref, rtol=1e-2, atol=2e-2)


@pytest.mark.parametrize("causal", [0, 1])
def test_attention_f16_on_sm90a_matches_numpy(causal):
    m = tile2cu.load(ATTN_F16, target="sm_90a", options=["-w"])
    Q, K, V = (rng.standard_normal((1, 2, 200, 64)).astype(np.float16) for _ in range(3))
    O = np.full_like(Q, np.nan)
    m.attention_f16(Q, K, V, O, 0.125, causal)
    np.testing.assert_allclose(O.astype(np.float64), attention_ref(Q, K, V, 0.125, causal), rtol=1e-2, atol=1e-2)


# ---- every dtype


def _values(dt, n):
    if dt == "bool":
        return rng.integers(0, 2, n).astype(np.bool_)
    if dt in ("f32", "f64", "f16"):
        return rng.standard_normal(n).astype(tile2cu._dtypes.numpy_dtype(dt))
    lo, hi = {"i8": (-60, 60), "u8": (0, 120), "i32": (-10**9, 10**9), "u32": (0, 2**31),
              "i64": (-2**60, 2**60)}[dt]
    return rng.integers(lo, hi, n, dtype=np.int64).astype(tile2cu._dtypes.numpy_dtype(dt))


@pytest.mark.parametrize("dt,s", [("f32", 0.75), ("f16", -1.5), ("f64", 1e-3), ("i8", -7), ("u8", 100),
                                  ("i32", 12345), ("u32", 2**31 - 5), ("i64", -2**61 + 3)])
def test_every_numeric_dtype(dt, s):
    m = tile2cu.load(DTYPES)
    X = _values(dt, 301)
    Y = np.zeros_like(X)
    getattr(m, "add_" + dt)(X, Y, s)
    npdt = X.dtype.type
    np.testing.assert_array_equal(Y, X + npdt(s))
    assert Y.dtype == X.dtype


def test_bool():
    m = tile2cu.load(DTYPES)
    X = _values("bool", 257)
    for s in (True, False):
        Y = np.zeros_like(X)
        m.xor_bool(X, Y, s)
        np.testing.assert_array_equal(Y, X != s)


def _bf16_bits(f32):
    """float32 values exactly representable in bfloat16 -> their bf16 bits."""
    u = np.asarray(f32, dtype=np.float32).view(np.uint32)
    assert not (u & 0xFFFF).any()
    return (u >> 16).astype(np.uint16)


def test_bf16_as_raw_uint16():
    m = tile2cu.load(DTYPES)
    x = rng.integers(-64, 64, 300).astype(np.float32) / 8  # exact in bf16, as is x + 1.25
    X = _bf16_bits(x)
    Y = np.zeros_like(X)
    m.add_bf16(X, Y, 1.25)
    np.testing.assert_array_equal(Y, _bf16_bits(x + np.float32(1.25)))


def test_bf16_with_ml_dtypes():
    ml = pytest.importorskip("ml_dtypes")
    m = tile2cu.load(DTYPES)
    X = rng.standard_normal(300).astype(ml.bfloat16)
    Y = np.zeros_like(X)
    m.add_bf16(X, Y, 0.5)
    # bf16 + bf16 rounded once to bf16, as ml_dtypes does it
    np.testing.assert_array_equal(Y.astype(np.float32), (X.astype(np.float32) + np.float32(0.5)).astype(ml.bfloat16)
                                  .astype(np.float32))


def _e4m3(bits):
    """The values of e4m3 codes (OCP: bias 7, no infinities), as float32."""
    b = np.asarray(bits, dtype=np.int64)
    e, m = (b >> 3) & 15, b & 7
    v = np.where(e == 0, m / 8.0 * 2.0 ** -6, (1 + m / 8.0) * 2.0 ** (e - 7))
    return np.where(b & 0x80, -v, v).astype(np.float32)


def test_f8_as_raw_uint8():
    m = tile2cu.load(DTYPES)
    X = rng.integers(0, 256, 333).astype(np.uint8)
    X = X[(_e4m3(X) != 0) & (np.abs(_e4m3(X)) <= 64)]  # no NaN code, and x * 3 stays below 448
    Y = np.zeros_like(X)
    Z = np.zeros(X.shape, np.float32)
    m.f8(X, Y, Z)
    np.testing.assert_array_equal(Z, _e4m3(X) * np.float32(0.5))
    # x * 3 in f32, rounded to e4m3 (nearest, ties to even): the nearest code of the 254 finite ones
    codes = np.arange(256, dtype=np.uint8)
    codes = codes[(codes & 0x7F) != 0x7F]
    vals = _e4m3(codes)
    for x, y in zip(X, Y):
        t = np.float32(_e4m3([x])[0] * 3)
        d = np.abs(vals.astype(np.float64) - t)
        best = codes[d == d.min()]
        want = best[(best & 1) == 0][0] if len(best) > 1 else best[0]
        assert _e4m3([y])[0] == _e4m3([want])[0], (x, y, want)


def test_f8_with_ml_dtypes():
    ml = pytest.importorskip("ml_dtypes")
    m = tile2cu.load(DTYPES)
    X = (rng.standard_normal(300) * 8).astype(ml.float8_e4m3fn)
    Y = np.zeros_like(X)
    Z = np.zeros(X.shape, np.float32)
    m.f8(X, Y, Z)
    np.testing.assert_array_equal(Z, X.astype(np.float32) * np.float32(0.5))
    np.testing.assert_array_equal(Y.astype(np.float32), (X.astype(np.float32) * np.float32(3)).astype(ml.float8_e4m3fn)
                                  .astype(np.float32))


STRIDED = os.path.join(HERE, "strided.tl")


def test_strided_views_are_passed_without_a_copy():
    m = tile2cu.load(STRIDED)
    base = rng.standard_normal((70, 37)).astype(np.float32)
    X = base.T                                   # a transposed view: strides (1, 37) elements
    out = np.full((37, 140), np.nan, np.float32)
    Y = out[:, ::2]                              # every other column: strides (140, 2)
    assert not X.flags.c_contiguous and not Y.flags.c_contiguous
    m.scale(X, Y)
    np.testing.assert_array_equal(Y, base.T * np.float32(2) + np.float32(1))
    assert np.isnan(out[:, 1::2]).all(), "the columns between the view's stay untouched"
    assert m.scale.params[0].strided and m.scale.params[1].strided


def test_strided_negative_strides():
    m = tile2cu.load(STRIDED)
    X = rng.standard_normal((9, 40)).astype(np.float32)[::-1]  # read: copied to row-major
    Y = np.zeros((9, 40), np.float32)
    m.scale(X, Y)
    np.testing.assert_array_equal(Y, X * np.float32(2) + np.float32(1))
    with pytest.raises(tile2cu.Error, match="negative or unaligned strides"):
        m.scale(X.copy(), np.zeros((9, 40), np.float32)[::-1])


def test_without_ml_dtypes_bf16_is_uint16():
    code = ("import sys; sys.modules['ml_dtypes'] = None\n"
            "import numpy as np, tile2cu._dtypes as d\n"
            "print(d.numpy_dtypes('bf16'))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[dtype('uint16')]"


def test_scalars_are_checked_against_their_type():
    m = tile2cu.load(DTYPES)
    X = np.zeros(10, np.int8)
    for bad, why in [(128, "outside [-128, 127]"), (1.5, "takes an integer"), ("3", "takes an integer")]:
        with pytest.raises(tile2cu.Error, match=r"scalar s is i8: .*" + why.replace("[", r"\[").replace("]", r"\]")):
            m.add_i8(X, np.zeros_like(X), bad)
    with pytest.raises(tile2cu.Error, match="scalar s is bool"):
        m.xor_bool(np.zeros(3, bool), np.zeros(3, bool), 2)


def test_dtype_mismatch():
    m = tile2cu.load(DTYPES)
    with pytest.raises(tile2cu.Error, match="tensor X is f32: expected a float32 array, not float64"):
        m.add_f32(np.zeros(10), np.zeros(10, np.float32), 1.0)


# ---- sizes, shapes, @assume, @grid


def affine_ref(X, B, W, a, scale=1.0):
    return X * np.float32(a) + B * np.float32(scale) + W[0]


def _affine_args(M, N):
    X = rng.standard_normal((M, N)).astype(np.float32)
    B = rng.standard_normal((1, N)).astype(np.float32)
    W = rng.standard_normal(4).astype(np.float32)
    return X, B, W, np.zeros((M, N), np.float32)


def test_sizes_are_inferred_from_shapes():
    m = tile2cu.load(AFFINE)
    assert m.affine.sizes == ["M", "N"]
    X, B, W, Y = _affine_args(5, 130)
    m.affine(X, B, W, Y, 2.0)
    np.testing.assert_allclose(Y, affine_ref(X, B, W, 2.0), rtol=1e-6)


def test_arguments_by_name_and_sizes_given():
    m = tile2cu.load(AFFINE)
    X, B, W, Y = _affine_args(3, 66)
    m.affine(X, B, a=-1.0, Y=Y, W=W, M=3, N=66)
    np.testing.assert_allclose(Y, affine_ref(X, B, W, -1.0), rtol=1e-6)


def test_sizes_that_disagree():
    m = tile2cu.load(AFFINE)
    X, B, W, Y = _affine_args(4, 66)
    with pytest.raises(tile2cu.Error, match=r"size N disagrees: Y.shape\[1\] is 64, but X.shape\[1\] is 66"):
        m.affine(X, B, W, Y[:, :64].copy(), 1.0)
    with pytest.raises(tile2cu.Error, match=r"size N disagrees: X.shape\[1\] is 66, but given as N=68"):
        m.affine(X, B, W, Y, 1.0, N=68)
    with pytest.raises(tile2cu.Error, match=r"tensor W: dim 0 is 5, but the kernel declares 4"):
        m.affine(X, B, np.zeros(5, np.float32), Y, 1.0)
    with pytest.raises(tile2cu.Error, match=r"tensor B has 1 dims \(66,\), but the kernel declares 2 \[1, N\]"):
        m.affine(X, B[0], W, Y, 1.0)


def test_assume_is_checked_before_the_launch():
    m = tile2cu.load(AFFINE)
    X, B, W, Y = _affine_args(2, 65)  # N % 2 != 0
    line = [l.startswith("@assume") for l in open(AFFINE)].index(True) + 1
    with pytest.raises(tile2cu.Error, match=r"@assume condition 1 of kernel 'affine' \(line %d\) is false "
                                            r"\(N = 65\)$" % line) as e:
        m.affine(X, B, W, Y, 1.0)
    assert e.value.status == "ASSUME"
    assert not Y.any()


def test_grid_from_grid_and_overridden():
    m = tile2cu.load(AFFINE)
    X, B, W, Y = _affine_args(3, 130)
    m.affine(X, B, W, Y, 1.0, grid=(1, 1))  # one block: row 0, the first BN columns only
    want = np.zeros_like(Y)
    want[0, :64] = affine_ref(X, B, W, 1.0)[0, :64]
    np.testing.assert_allclose(Y, want, rtol=1e-6)
    with pytest.raises(tile2cu.Error, match="grid takes 1 to 3 positive integers"):
        m.affine(X, B, W, Y, 1.0, grid=(0, 1))


def test_argument_errors():
    m = tile2cu.load(AFFINE)
    X, B, W, Y = _affine_args(2, 64)
    cases = [
        (lambda: m.affine(X, B, W, Y), "missing argument a"),
        (lambda: m.affine(X, B, W, Y, 1.0, 2.0), "takes 5 arguments"),
        (lambda: m.affine(X, B, W, Y, 1.0, Q=1), "has no parameter or size 'Q'"),
        (lambda: m.affine(X, B, W, Y, 1.0, X=X), "X given twice"),
        (lambda: m.affine(X, B, W, Y, 1.0, M=0), "size M=0: a size is a positive integer"),
        (lambda: m.affine(X[:0], B, W, Y[:0], 1.0), r"tensor X is empty \(X.shape\[0\] is 0\), which makes size M 0"),
        (lambda: m.affine(X.tolist(), B, W, Y, 1.0), "expected a NumPy array or a CUDA array"),
        (lambda: m.affine(X, B, W, Y[:, ::2], 1.0), "pass a C-contiguous array"),
        (lambda: m.affine(X, B, W, Y, 1.0, schedules=0), "schedules is 1 to 1000"),
        (lambda: m.nope, "has no kernel 'nope'"),
    ]
    ro = Y.copy()
    ro.flags.writeable = False
    cases.append((lambda: m.affine(X, B, W, ro, 1.0), "tensor Y is written by the kernel, but the array is read-only"))
    for call, msg in cases:
        with pytest.raises((tile2cu.Error, AttributeError), match=msg):
            call()


def test_strided_inputs_are_copied():
    m = tile2cu.load(AFFINE)
    X, B, W, Y = _affine_args(3, 128)
    Xt = np.asfortranarray(X)
    m.affine(Xt, B, W, Y, 3.0)
    np.testing.assert_allclose(Y, affine_ref(X, B, W, 3.0), rtol=1e-6)


# ---- defines


def test_defines_change_the_kernel():
    m = tile2cu.load(AFFINE, defines={"SCALE": 2.5, "BN": 32})
    X, B, W, Y = _affine_args(3, 96)
    m.affine(X, B, W, Y, 1.0)
    np.testing.assert_allclose(Y, affine_ref(X, B, W, 1.0, scale=2.5), rtol=1e-6)
    # BN=32: the grid is cdiv(N, 32) blocks wide; one block writes 32 columns
    Y2 = np.zeros_like(Y)
    m.affine(X, B, W, Y2, 1.0, grid=(1, 1))
    assert np.count_nonzero(Y2[0]) == 32 and not Y2[1:].any()


def test_defines_as_strings_as_autotune_returns_them():
    # docs/tune.md: tile2cu.load(path, defines=r["best"]["defines"]), whose values are strings
    r = tile2cu.autotune(AFFINE, "affine", {"BN": [32]}, dry_run=True)
    d = r["candidates"][0]["defines"]
    assert d == {"BN": "32"}
    m = tile2cu.load(AFFINE, defines=dict(d, SCALE="2.5"))
    assert m is not tile2cu.load(AFFINE, defines={"BN": 32, "SCALE": 2.5})  # cached by the values as given
    X, B, W, Y = _affine_args(3, 96)
    Y2 = np.zeros_like(Y)
    m.affine(X, B, W, Y2, 1.0, grid=(1, 1))  # BN=32: one block writes 32 columns
    assert np.count_nonzero(Y2[0]) == 32 and not Y2[1:].any()
    m.affine(X, B, W, Y, 1.0)
    np.testing.assert_allclose(Y, affine_ref(X, B, W, 1.0, scale=2.5), rtol=1e-6)
    # a string that is no literal the translator takes is its error, as for -D
    with pytest.raises(tile2cu.Error, match="'1_' is not an integer or float literal") as e:
        tile2cu.load(AFFINE, defines={"BN": "1_"})
    assert e.value.status == "TRANSLATE"


def test_bad_defines():
    with pytest.raises(tile2cu.Error, match="NOPE") as e:
        tile2cu.load(AFFINE, defines={"NOPE": 1})
    assert e.value.status == "TRANSLATE"
    # a -D has no place in the file: said once, without :0:0
    assert str(e.value).count("the file has no file-level const 'NOPE'") == 1 and ":0:0" not in str(e.value)
    for bad in ["", "abc", "64 -Werror", "inf", "6 4", "--64", True, None]:
        with pytest.raises(tile2cu.Error, match="a define takes an integer or a float") as e:
            tile2cu.load(AFFINE, defines={"BN": bad})
        assert e.value.status == "INVALID_VALUE"
    with pytest.raises(tile2cu.Error, match="is not a name"):
        tile2cu.load(AFFINE, defines={"B N": 64})


# ---- errors carry the diagnostics


def test_translation_errors_are_clang_style():
    src = "@launch(128)\nkernel k(X: tensor<f32>[N]) {\n  var x = X[0 :+ 128] + undefined_thing\n}\n"
    line = src[:src.index("undefined_thing")].count("\n") + 1
    col = src.index("undefined_thing") - src.rindex("\n", 0, src.index("undefined_thing"))
    with pytest.raises(tile2cu.Error) as e:
        tile2cu.compile_string(src, name="bad.tl")
    err = e.value
    assert err.status == "TRANSLATE"
    first = err.diagnostics.splitlines()[0]
    assert first.startswith("bad.tl:%d:%d: error: " % (line, col)), first
    assert "undefined_thing" in first
    lines = err.diagnostics.splitlines()
    assert lines[1] == src.splitlines()[line - 1]
    assert lines[2] == " " * (col - 1) + "^"
    assert err.diagnostics.rstrip() in str(err)


def test_missing_file_and_bad_target():
    with pytest.raises(tile2cu.Error, match="cannot open .*nothing.tl") as e:
        tile2cu.load(os.path.join(HERE, "nothing.tl"))
    assert e.value.status == "IO"
    with pytest.raises(tile2cu.Error, match="unknown target 'sm_12'") as e:
        tile2cu.load(AFFINE, target="sm_12")
    assert e.value.status == "TARGET"


def test_a_race_fails_the_launch_and_keeps_the_output():
    src = ("@launch(32)\n@grid(2)\nkernel racy(Y: tensor<f32>[N]) {\n"
           "  Y[0 :+ 32] = f32(ctx.block.x) + 1.0\n}\n")
    m = tile2cu.compile_string(src, name="racy.tl")
    Y = np.full(32, -3.0, np.float32)
    with pytest.raises(tile2cu.Error, match="race") as e:
        m.racy(Y)
    assert e.value.status == "CPU"
    assert (Y == -3.0).all()


def test_warnings_are_python_warnings():
    with pytest.warns(tile2cu.Tile2cuWarning, match=r"\[-Wbounds\]"):
        tile2cu.compile_string(open(SOFTMAX).read(), name="softmax_w.tl")


# ---- the GPU path, as far as it goes without a GPU


class FakeCudaArray:
    """Claims to be device memory; the launch must fail before touching it."""

    def __init__(self, shape, typestr="<f4"):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr, "data": (0xDEAD0000, False),
                                         "version": 3, "strides": None}


@pytest.mark.skipif(tile2cu.device_available(), reason="a CUDA device is present")
def test_cuda_arrays_without_a_device():
    m = tile2cu.load(AFFINE)
    X, B, W, Y = _affine_args(2, 64)
    with pytest.raises(tile2cu.Error) as e:
        m.affine(FakeCudaArray((2, 64)), FakeCudaArray((1, 64)), FakeCudaArray((4,)), FakeCudaArray((2, 64)), 1.0)
    assert e.value.status in ("NO_DEVICE", "NO_NVRTC"), e.value
    with pytest.raises(tile2cu.Error, match="some tensors are NumPy arrays and some are on the GPU"):
        m.affine(X, B, W, FakeCudaArray((2, 64)), 1.0)
    with pytest.raises(tile2cu.Error, match="tensor X is f32, but the device array is f64"):
        m.affine(FakeCudaArray((2, 64), "<f8"), B, W, Y, 1.0)


# ---- nothing written but the compile cache


def test_nothing_is_written_outside_the_cache(tmp_path):
    cache, home, cwd = tmp_path / "cache", tmp_path / "home", tmp_path / "cwd"
    for d in (home, cwd):
        d.mkdir()
    code = ("import numpy as np, tile2cu\n"
            "m = tile2cu.load(%r)\n"
            "X = np.ones((2, 64), np.float32); Y = np.zeros_like(X)\n"
            "m.affine(X, X[:1].copy(), np.ones(4, np.float32), Y, 2.0)\n"
            "assert (Y == 4.0).all(), Y\n" % AFFINE)
    env = dict(os.environ, TILE2CU_CACHE_DIR=str(cache), HOME=str(home), TMPDIR=str(tmp_path / "tmp"))
    env.pop("XDG_CACHE_HOME", None)
    subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, check=True)
    assert os.listdir(cwd) == [] and os.listdir(home) == []
    assert not (tmp_path / "tmp").exists()
    assert sorted(os.listdir(cache)) == ["sim"]


def test_nul_in_the_source():
    with pytest.raises(tile2cu.Error, match="NUL"):
        tile2cu.compile_string("const A = 1\0\n")


# ---- autotune (tile2cu tune); the timing needs a GPU


TRANSPOSE = os.path.join(ROOT, "tests", "tune", "transpose.tl")


def test_autotune_dry_run():
    r = tile2cu.autotune(TRANSPOSE, "tr", {"BM": [0, 32, 48], "BN": [32, 256]}, {"M": 512, "N": 300}, dry_run=True)
    lines = r["output"].splitlines()
    assert len(r["candidates"]) == sum(l.startswith("candidate ") for l in lines) == 2
    assert len(r["skipped"]) == sum(l.startswith("skipped ") for l in lines) == 4
    seen = [c["defines"] for c in r["candidates"]] + [s["defines"] for s in r["skipped"]]
    assert sorted((d["BM"], d["BN"]) for d in seen) == sorted((str(m), str(n)) for m in (0, 32, 48) for n in (32, 256))
    for c in r["candidates"]:
        assert c["defines"]["BM"] == "32" and c["threads"] == 128 and c["registers"] > 0 and c["blocks_per_sm"] >= 1
    assert all("error" in s["reason"] or "@assume" in s["reason"] for s in r["skipped"])
    assert r["best"] is None and r["timed"] == []


def test_autotune_without_a_gpu(monkeypatch):
    monkeypatch.setenv("TILE2CU_LIBCUDA", "/nonexistent/libcuda.so.1")
    with pytest.raises(tile2cu.Error, match="timing needs a GPU") as e:
        tile2cu.autotune(TRANSPOSE, "tr", "BM=32,64", "M=512 N=300")
    assert e.value.status == "NO_DEVICE"
    with pytest.raises(tile2cu.Error, match="--kernel NAME is required|unknown or incomplete"):
        tile2cu.autotune(TRANSPOSE, "tr", "BM=32", "M=512 N=300", options=["--bogus"])


def test_autotune_missing_executable():
    # exe= naming no file: a tile2cu.Error, as every failure (it was a FileNotFoundError)
    with pytest.raises(tile2cu.Error, match="cannot run /nonexistent/tile2cu") as e:
        tile2cu.autotune(TRANSPOSE, "tr", "BM=32", "M=512 N=300", dry_run=True, exe="/nonexistent/tile2cu")
    assert e.value.status == "INVALID_VALUE"


def test_unknown_target_has_no_diagnostics():
    # the error is the target's: no diagnostics of the translation for the default target before it
    with pytest.raises(tile2cu.Error, match="unknown target 'sm_99'") as e:
        tile2cu.load(os.path.join(ROOT, "examples", "squares.tl"), target="sm_99")
    assert e.value.diagnostics == "" and "warning" not in str(e.value)
