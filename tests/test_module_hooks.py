"""Module hooks (forward pre/post with kwargs, full backward, state-dict) and nn.Buffer, beside
PyTorch's behaviour for the same calls."""
import numpy as np
import pytest

import numgrad

torch = pytest.importorskip("torch")

LIBS = [numgrad, torch]


class _Scale:
    @staticmethod
    def make(lib):
        class Scale(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.w = lib.nn.Parameter(lib.tensor([2.0, 3.0]))

            def forward(self, x, y=None, *, shift=0.0):
                out = x * self.w + shift
                return out if y is None else out * y
        return Scale()


def _record(lib):
    m = _Scale.make(lib)
    log = []
    m.register_forward_pre_hook(lambda mod, args: log.append(("pre", len(args))))
    m.register_forward_pre_hook(lambda mod, args, kwargs: log.append(("pre_kw", sorted(kwargs))) or
                                (args, {**kwargs, "shift": 1.0}), with_kwargs=True)
    m.register_forward_hook(lambda mod, args, out: log.append(("post", out.tolist())))
    m.register_forward_hook(lambda mod, args, kwargs, out: log.append(("first", kwargs["shift"])),
                            prepend=True, with_kwargs=True)
    out = m(lib.tensor([1.0, 1.0]), shift=5.0)
    return log, out.tolist()


def test_forward_hooks_with_kwargs_and_prepend():
    assert _record(numgrad) == _record(torch)


def _always(lib):
    m = _Scale.make(lib)
    seen = []
    m.register_forward_hook(lambda mod, args, out: seen.append(out), always_call=True)
    m.register_forward_hook(lambda mod, args, out: seen.append("never"))
    with pytest.raises(RuntimeError):
        m(lib.ones(3))
    return seen


def test_always_call_hook_runs_when_forward_raises():
    assert _always(numgrad) == _always(torch) == [None]


def _backward(lib):
    m = _Scale.make(lib)
    log = []

    def full(mod, gin, gout):
        log.append(("full", [None if g is None else g.tolist() for g in gin], [g.tolist() for g in gout]))
        return (gin[0] * 10, gin[1])

    def pre(mod, gout):
        log.append(("pre", [g.tolist() for g in gout]))
        return (gout[0] * 2,)
    m.register_full_backward_hook(full)
    m.register_full_backward_pre_hook(pre)
    x = lib.tensor([1.0, -1.0], requires_grad=True)
    y = lib.tensor([0.5, 4.0], requires_grad=True)
    m(x, y).sum().backward()
    return log, x.grad.tolist(), y.grad.tolist(), m.w.grad.tolist()


def test_full_backward_hooks_see_and_replace_gradients():
    assert _backward(numgrad) == _backward(torch)


def _backward_no_input_grad(lib):
    m = _Scale.make(lib)
    log = []
    m.register_full_backward_hook(lambda mod, gin, gout: log.append((gin, [g.tolist() for g in gout])))
    with pytest.warns(UserWarning, match="no inputs require gradients"):
        m(lib.tensor([1.0, 2.0])).sum().backward()
    return log, m.w.grad.tolist()


def test_full_backward_hook_without_input_gradients():
    assert _backward_no_input_grad(numgrad) == _backward_no_input_grad(torch)


def test_handle_remove_and_context():
    for lib in LIBS:
        m = _Scale.make(lib)
        calls = []
        h = m.register_forward_hook(lambda *a: calls.append(1), with_kwargs=False)
        m(lib.ones(2))
        h.remove()
        m(lib.ones(2))
        with m.register_forward_pre_hook(lambda *a: calls.append(2)):
            m(lib.ones(2))
        m(lib.ones(2))
        assert calls == [1, 2]


def _state_hooks(lib):
    m = lib.nn.Sequential(lib.nn.Linear(2, 2))
    log = []
    m[0].register_state_dict_pre_hook(lambda mod, prefix, keep_vars: log.append(("pre", prefix)))

    def post(mod, sd, prefix, meta):
        log.append(("post", prefix, sorted(sd)))
        sd[prefix + "extra"] = lib.zeros(1)
    m[0].register_state_dict_post_hook(post)
    sd = m.state_dict()

    def load_pre(mod, sd, prefix, meta, strict, missing, unexpected, errors):
        log.append(("load_pre", prefix))
        sd.pop(prefix + "extra", None)

    def load_post(mod, keys):
        log.append(("load_post", list(keys.missing_keys), list(keys.unexpected_keys)))
    m[0].register_load_state_dict_pre_hook(load_pre)
    m.register_load_state_dict_post_hook(load_post)
    result = m.load_state_dict(sd)
    return log, sorted(sd), list(result.missing_keys), list(result.unexpected_keys)


def test_state_dict_hooks():
    assert _state_hooks(numgrad) == _state_hooks(torch)


def test_buffer_assignment():
    for lib in LIBS:
        m = lib.nn.Module()
        m.kept = lib.nn.Buffer(lib.ones(2))
        m.dropped = lib.nn.Buffer(lib.zeros(2), persistent=False)
        assert sorted(m.state_dict()) == ["kept"]
        assert sorted(n for n, _ in m.named_buffers()) == ["dropped", "kept"]
        assert isinstance(m.kept, lib.Tensor)
    source = numgrad.arange(3.0)
    m = numgrad.nn.Module()
    m.b = numgrad.nn.Buffer(source)
    source.add_(1)
    np.testing.assert_array_equal(m.b.numpy(), [1.0, 2.0, 3.0])
    with pytest.raises(TypeError):
        numgrad.nn.Buffer([1.0])


def test_data_parallel_wraps_and_ddp_needs_a_process_group():
    for lib in (numgrad, torch):
        inner = lib.nn.Linear(2, 3)
        dp = lib.nn.DataParallel(inner)
        assert sorted(dp.state_dict()) == ["module.bias", "module.weight"]
        x = lib.ones(4, 2)
        assert dp(x).tolist() == inner(x).tolist()
    with pytest.raises((RuntimeError, ValueError)):
        numgrad.nn.parallel.DistributedDataParallel(numgrad.nn.Linear(2, 2))
