"""The package's version, and the build facts PyTorch reports in ``torch.version``."""
__version__ = "0.1.0"

# numgrad is pure Python over Numba: no CUDA, ROCm or XPU toolkit is compiled into it (its CUDA
# kernels come from Numba at run time), and there is no debug build.
cuda = None
hip = None
rocm = None
xpu = None
debug = False
git_version = "Unknown"
