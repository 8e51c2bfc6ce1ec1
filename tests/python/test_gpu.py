"""test_gpu.py: the package on torch CUDA tensors (the GPU path).

Skipped without torch or without a CUDA device. It passed (8 of 8) on an H200,
2026-12-04, commit 152a017 (the sm_90a tests at the end came later: not run on a GPU yet). tests/python/run.sh runs it with the rest;
on a GPU machine with torch installed in the venv it checks examples/softmax.tl
and every dtype against torch, as test_tile2cu.py does against NumPy.
"""
import os

import pytest

import tile2cu

torch = pytest.importorskip("torch")
if not torch.cuda.is_available() or not tile2cu.device_available():
    pytest.skip("no CUDA device", allow_module_level=True)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))


def test_softmax_on_torch():
    m = tile2cu.load(os.path.join(ROOT, "examples", "softmax.tl"), options=["-w"])
    X = torch.randn(37, 2100, device="cuda") * 4
    Y = torch.full_like(X, float("nan"))
    m.softmax(X, Y)
    torch.cuda.synchronize()
    torch.testing.assert_close(Y, torch.softmax(X.double(), dim=1).float(), rtol=2e-6, atol=1e-7)


@pytest.mark.parametrize("dt,s", [("f32", 0.75), ("f16", -1.5), ("bf16", 0.5), ("f64", 1e-3), ("i32", 12345),
                                  ("i64", -2**40)])
def test_dtypes_on_torch(dt, s):
    tdt = {"f32": torch.float32, "f16": torch.float16, "bf16": torch.bfloat16, "f64": torch.float64,
           "i32": torch.int32, "i64": torch.int64}[dt]
    m = tile2cu.load(os.path.join(HERE, "dtypes.tl"))
    X = (torch.randn(301, device="cuda") * 100).to(tdt)
    Y = torch.zeros_like(X)
    getattr(m, "add_" + dt)(X, Y, s)
    torch.cuda.synchronize()
    assert torch.equal(Y, X + torch.tensor(s, dtype=tdt, device="cuda"))


def test_sizes_disagree_on_torch():
    m = tile2cu.load(os.path.join(HERE, "affine.tl"))
    X = torch.zeros(4, 66, device="cuda")
    with pytest.raises(tile2cu.Error, match="size N disagrees"):
        m.affine(X, torch.zeros(1, 66, device="cuda"), torch.zeros(4, device="cuda"), torch.zeros(4, 64, device="cuda"),
                 1.0)


# ---- the sm_90a kernels (wgmma, TMA maps made by libtile2cu) on an H100/H200, at ragged sizes;
# test_tile2cu.py runs the same on the CPU backend
sm90 = pytest.mark.skipif(torch.cuda.get_device_capability() != (9, 0), reason="sm_90a needs compute capability 9.0")


@sm90
@pytest.mark.parametrize("K", [72, 77])  # K % 8 == 0: the fast body (TMA); else the general one
def test_gemm_f16_on_sm90a_on_torch(K):
    m = tile2cu.load(os.path.join(ROOT, "examples", "gemm_f16.tl"), target="sm_90a", options=["-w"])
    A = torch.randn(130, K, device="cuda").half()
    B = torch.randn(K, 136, device="cuda").half()
    C = torch.full((130, 136), float("nan"), device="cuda").half()
    m.gemm_f16(A, B, C)
    torch.cuda.synchronize()
    torch.testing.assert_close(C.double(), A.double() @ B.double(), rtol=1e-2, atol=2e-2)


@sm90
@pytest.mark.parametrize("causal", [0, 1])
def test_attention_f16_on_sm90a_on_torch(causal):
    m = tile2cu.load(os.path.join(ROOT, "examples", "attention_f16.tl"), target="sm_90a", options=["-w"])
    Q, K, V = (torch.randn(1, 2, 200, 64, device="cuda").half() for _ in range(3))
    O = torch.full_like(Q, float("nan"))
    m.attention_f16(Q, K, V, O, 0.125, causal)
    torch.cuda.synchronize()
    ref = torch.nn.functional.scaled_dot_product_attention(Q.double(), K.double(), V.double(), is_causal=bool(causal),
                                                           scale=0.125)
    torch.testing.assert_close(O.double(), ref, rtol=1e-2, atol=1e-2)

