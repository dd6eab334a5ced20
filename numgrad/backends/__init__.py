


def require_cuda():
    """The CUDA backend module; RuntimeError when no usable GPU or backend is present."""
    from . import cuda
    if not cuda.is_available():
        raise RuntimeError("CUDA is not available: numgrad found no usable CUDA GPU (numgrad.cuda.is_available() "
                           "is False)")
    return cuda
