


def cuda_available() -> bool:
    """True when a CUDA GPU (or Numba's CUDA simulator) and the Numba CUDA target are usable."""
    try:
        from . import cuda
        return cuda.is_available()
    except ImportError:
        return False


def require_cuda():
    """The CUDA backend module; RuntimeError when no usable GPU or backend is present."""
    from . import cuda
    if not cuda.is_available():
        raise RuntimeError("CUDA is not available: numgrad found no usable CUDA GPU (numgrad.cuda.is_available() "
                           "is False)")
    return cuda
