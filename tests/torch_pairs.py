"""Helpers the namespace tests share: the same data as a numgrad and a torch tensor, and their
comparison."""
import numpy as np

import numgrad


def pair(torch, array, requires_grad=False):
    return (numgrad.tensor(array, requires_grad=requires_grad),
            torch.tensor(array, requires_grad=requires_grad))


def close(result, expected, rtol=1e-5, atol=1e-6):
    """Equal shapes and dtype names, values within tolerance; sequences element by element."""
    if isinstance(expected, (tuple, list)):
        assert len(result) == len(expected)
        for r, e in zip(result, expected):
            close(r, e, rtol, atol)
        return
    assert tuple(result.shape) == tuple(expected.shape)
    assert str(result.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    np.testing.assert_allclose(result.detach().numpy(), expected.detach().numpy(), rtol=rtol, atol=atol)


def rand(shape, dtype="float64", seed=0, low=-2.0, high=2.0):
    return np.random.default_rng(seed).uniform(low, high, shape).astype(dtype)
