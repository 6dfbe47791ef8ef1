"""The devices a PyTorch test runs on: the CPU where PyTorch is installed, CUDA where a GPU is too; each
missing one a skip that says why (the GPU machine has both: scripts/gpu-check python)."""
import pytest

import scangen

NO_TORCH = "needs PyTorch, not installed here: scripts/gpu-check python runs it on the CUDA GPU machine"


def torch_devices():
    try:
        import torch
    except ImportError:
        return [pytest.param("cpu", marks=pytest.mark.skip(reason=NO_TORCH)),
                pytest.param("cuda", marks=pytest.mark.skip(reason="needs a CUDA GPU with PyTorch"))]
    cuda_ok = torch.cuda.is_available() and scangen.runtime_info()["backend"] == "cuda"
    return ["cpu", pytest.param("cuda", marks=pytest.mark.skipif(not cuda_ok, reason="needs a CUDA GPU with PyTorch"))]
