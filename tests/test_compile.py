"""numgrad.compile: compiled results equal eager numgrad's bit for bit, forward and backward, on
the op table's elementwise rows; guards, graph breaks, captures, modules, higher order."""
import warnings

import numpy as np
import pytest

import numgrad as torch
from numgrad.compiler import GraphBreak, explain
from numgrad.testing import OP_DB


def _tensor(a, requires_grad):
    if not isinstance(a, np.ndarray):
        return a
    t = torch.from_numpy(a.copy())
    if requires_grad and t.dtype.is_floating_point:
        t.requires_grad_(True)
    return t


def _flat(r):
    return tuple(r) if isinstance(r, (tuple, list)) else (r,)


def _assert_same(eager, compiled):
    """Equal bit for bit (NaNs in the same places), same dtype, shape and strides."""
    for e, c in zip(_flat(eager), _flat(compiled)):
        assert e.dtype == c.dtype and e.shape == c.shape and e.stride() == c.stride()
        np.testing.assert_array_equal(c.detach().numpy(), e.detach().numpy())


def _grads(outputs, inputs):
    loss = sum((o * (k + 1)).sum() for k, o in enumerate(_flat(outputs)) if o.requires_grad)
    return torch.autograd.grad(loss, inputs, allow_unused=True)


ELEMENTWISE = [row for row in OP_DB if row.kind == "elementwise"]
# Rows whose functions leave the elementwise family (float_power's cast of float32 by .to, random
# numbers): they run eagerly, and the test checks that they say so.
BREAKS = {("float_power", "float32"), ("gumbel_softmax", "float32"), ("gumbel_softmax", "float64")}
# In-place writes (here the in-place activations, on a clone) end a graph: the tracer records no mutation.
BREAKS |= {(name, d) for name in ("elu_", "celu_", "selu_", "leaky_relu_", "hardtanh_") for d in ("float32", "float64")}


@pytest.mark.parametrize("row,dtype", [(row, d) for row in ELEMENTWISE for d in ("float32", "float64")
                                       if d in row.dtypes], ids=lambda x: getattr(x, "id", x))
def test_op_table_rows_compile_bit_for_bit(row, dtype):
    sample = row.samples(dtype)[0]
    grad = dtype == "float64" and row.supports_grad
    args = [_tensor(a, grad) for a in sample.args]
    fn = torch.compile(lambda *a, **k: row.op(*a, **k))
    eager = row.op(*args, **sample.kwargs)
    fn(*args, **sample.kwargs)  # traces
    compiled = fn(*args, **sample.kwargs)
    if (row.name, dtype) in BREAKS:
        assert fn.last_break is not None
    else:
        assert fn.last_break is None, fn.last_break
    _assert_same(eager, compiled)
    inputs = [a for a in args if isinstance(a, torch.Tensor) and a.requires_grad]
    if inputs and any(o.requires_grad for o in _flat(eager)):
        if (row.name, dtype) not in BREAKS:
            # A backward that leaves the elementwise family runs eagerly, and says why.
            program = next(iter(fn._entries.values()))[0].program
            node = type(_flat(compiled)[0].grad_fn).__name__
            assert (node == "CompiledFunctionBackward") != (program.backward_reason is not None)
        for ge, gc in zip(_grads(eager, inputs), _grads(compiled, inputs)):
            assert (ge is None) == (gc is None)
            if ge is not None:
                _assert_same(ge, gc)


def chain(a, b, c):
    return torch.relu((a * b + c) * 0.5 - 1)


LAYOUTS = {
    "0-d": lambda: [torch.randn(()) for _ in range(3)],
    "empty": lambda: [torch.randn(0, 3) for _ in range(3)],
    "contiguous": lambda: [torch.randn(4, 5) for _ in range(3)],
    "transposed": lambda: [torch.randn(5, 4).t() for _ in range(3)],
    "sliced": lambda: [torch.randn(4, 10)[:, ::2] for _ in range(3)],
    "broadcast": lambda: [torch.randn(4, 1), torch.randn(5), torch.tensor(2.0)],
    "expanded": lambda: [torch.randn(1, 5).expand(4, 5), torch.randn(4, 5), torch.randn(4, 5)],
    "large": lambda: [torch.randn(1 << 20) for _ in range(3)],
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_chain_layouts_forward_and_backward(layout, dtype):
    torch.manual_seed(0)
    args = [x.to(dtype).requires_grad_() if x.is_leaf else x.to(dtype) for x in LAYOUTS[layout]()]
    leaves = [x.detach().requires_grad_() for x in args]
    fn = torch.compile(chain)
    for _ in range(3):
        out = fn(*leaves)
    assert fn.last_break is None
    eager = chain(*leaves)
    _assert_same(eager, out)
    for ge, gc in zip(_grads(eager, leaves), _grads(out, leaves)):
        _assert_same(ge, gc)


def test_python_scalars_and_mixed_dtypes():
    fn = torch.compile(lambda x, y, s: (x * s + y).exp() > s)
    x = torch.randn(6)
    y = torch.randn(6, dtype=torch.float64)
    for s in (0.5, 2, 0.5):
        fn(x, y, s)
        _assert_same((x * s + y).exp() > s, fn(x, y, s))
    assert len(fn._entries) == 2  # one signature per scalar value


def test_guards_retrace_on_new_layout_and_requires_grad():
    fn = torch.compile(chain)
    a, b, c = (torch.randn(3, 4) for _ in range(3))
    fn(a, b, c)
    fn(a, b, c)
    fn(a.t().contiguous().t(), b, c)
    fn(a[:2], b[:2], c[:2])
    a.requires_grad_()
    out = fn(a, b, c)
    assert out.requires_grad
    assert fn._count == 4


def test_graph_break_runs_eagerly_and_fullgraph_raises():
    def f(x):
        return (x * 2).sum() + 1

    fn = torch.compile(f)
    x = torch.randn(5)
    for _ in range(2):
        assert torch.equal(fn(x), f(x))
    assert "does not trace" in fn.last_break
    with pytest.raises(GraphBreak, match="does not trace"):
        torch.compile(f, fullgraph=True)(x)


def test_data_dependent_python_breaks():
    def f(x):
        y = x * 2
        return y + 1 if y.item() > 0 else y - 1

    fn = torch.compile(f)
    for v in (1.0, -1.0, 3.0, -3.0):
        x = torch.tensor(v)
        assert torch.equal(fn(x), f(x))
    assert "item()" in fn.last_break


def test_inplace_write_breaks():
    def f(x):
        y = x * 2
        y.add_(1)
        return y

    fn = torch.compile(f)
    x = torch.randn(3)
    fn(x)
    assert torch.equal(fn(x), f(x))
    assert "in place" in fn.last_break


def test_captured_tensors_are_read_at_each_call():
    w = torch.randn(4)

    def f(x):
        return x * w + 1

    fn = torch.compile(f)
    x = torch.randn(4)
    fn(x)
    fn(x)
    w.mul_(3)  # written in place: the replay reads the new values
    assert torch.equal(fn(x), f(x))
    w = torch.randn(4)  # rebound: the guard sees another object
    assert torch.equal(fn(x), f(x))


class Affine(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = torch.nn.Parameter(torch.randn(5))
        self.shift = torch.nn.Parameter(torch.randn(5))

    def forward(self, x):
        return torch.tanh(x * self.scale + self.shift)


def test_module_shares_parameters_and_trains():
    torch.manual_seed(0)
    model = Affine()
    compiled = torch.compile(model)
    assert list(compiled.state_dict()) == ["_orig_mod.scale", "_orig_mod.shift"]
    assert compiled.scale is model.scale
    x = torch.randn(3, 5)
    reference = Affine()
    reference.load_state_dict(model.state_dict())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    ref_opt = torch.optim.SGD(reference.parameters(), lr=0.1)
    for _ in range(4):
        for m, o in ((compiled, opt), (reference, ref_opt)):
            o.zero_grad()
            m(x).pow(2).sum().backward()
            o.step()
    assert compiled._compiled_call.last_break is None
    _assert_same(reference.scale, model.scale)
    _assert_same(reference.shift, model.shift)


def test_create_graph_gives_second_derivatives():
    fn = torch.compile(lambda x: torch.sin(x) * x)
    x = torch.randn(5, dtype=torch.float64, requires_grad=True)
    fn(x)
    (g,) = torch.autograd.grad(fn(x).sum(), x, create_graph=True)
    (gg,) = torch.autograd.grad(g.sum(), x)
    (ge,) = torch.autograd.grad((torch.sin(x) * x).sum(), x, create_graph=True)
    (gge,) = torch.autograd.grad(ge.sum(), x)
    _assert_same(ge, g)
    _assert_same(gge, gg)


def test_backward_checks_saved_inputs_like_eager():
    fn = torch.compile(lambda x: x * x)
    x = torch.randn(3, requires_grad=True)
    y = x * 1
    fn(y)
    out = fn(y)
    with torch.no_grad():
        y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


def test_outputs_keep_structure_and_identity():
    fn = torch.compile(lambda x, y: {"sum": x + y, "same": x, "both": (x * y, 3)})
    x, y = torch.randn(2), torch.randn(2)
    fn(x, y)
    out = fn(x, y)
    assert out["same"] is x and out["both"][1] == 3
    _assert_same(x * y, out["both"][0])


def test_cache_size_limit_warns_then_runs_eagerly():
    fn = torch.compile(lambda x: x + 1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for n in range(1, 12):
            assert torch.equal(fn(torch.ones(n)), torch.ones(n) + 1)
    assert sum("signatures" in str(w.message) for w in caught) == 1


def test_explain_lists_ops_kernels_and_breaks():
    x = torch.randn(3, requires_grad=True)
    report = explain(chain, x, torch.randn(3), torch.randn(3))
    assert report.graph_count == 1 and report.graph_break_count == 0
    assert report.ops_per_graph == [["mul", "add", "mul", "sub", "relu"]]
    assert "CompiledFunctionBackward" in str(report)
    broken = explain(lambda x: x.sum(), x)
    assert broken.graph_count == 0 and broken.graph_break_count == 1


def test_decorator_forms_and_arguments():
    @torch.compile
    def f(x):
        return x * 3

    @torch.compile(mode="reduce-overhead", dynamic=True)
    def g(x):
        return x - 3

    x = torch.randn(2)
    assert torch.equal(f(x), x * 3) and torch.equal(g(x), x - 3)
    with pytest.raises(RuntimeError, match="Unrecognized mode"):
        torch.compile(f, mode="fastest")
    assert torch.compile(chain, backend="eager") is chain
    assert not torch.compiler.is_compiling()
    torch.compiler.reset()
    assert f._count == 0


def test_profiler_names_the_compiled_call_and_vmap_runs_eagerly():
    fn = torch.compile(chain)
    a, b, c = (torch.randn(4) for _ in range(3))
    fn(a, b, c)
    with torch.autograd.profiler.profile() as prof:
        fn(a, b, c)
    assert any(e.name == "CompiledFunction[chain]" for e in prof.function_events)
    x = torch.randn(3, 4)
    _assert_same(torch.func.vmap(chain)(x, x, x), torch.func.vmap(fn)(x, x, x))


def test_untraced_write_into_an_intermediate_breaks():
    def f(x):
        y = x * 2
        y.zero_()
        return y + 1

    fn = torch.compile(f)
    x = torch.randn(3)
    fn(x)
    assert torch.equal(fn(x), f(x))
    assert "in place" in fn.last_break


SCALE = 2.0


def test_python_values_the_function_reads_are_guarded():
    def f(x):
        return x * SCALE

    fn = torch.compile(f)
    x = torch.randn(3)
    fn(x)
    fn(x)
    global SCALE
    SCALE = 3.0
    try:
        _assert_same(x * 3.0, fn(x))
    finally:
        SCALE = 2.0

    class Scaled(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.alpha = 0.5

        def forward(self, x):
            return x * self.alpha

    model = Scaled()
    compiled = torch.compile(model)
    compiled(x)
    compiled(x)
    model.alpha = 4.0
    _assert_same(x * 4.0, compiled(x))


def test_float16_operands_run_eagerly():
    fn = torch.compile(lambda x, y: x * y + 1)
    x, y = torch.randn(4).half(), torch.randn(4)
    fn(x, y)
    _assert_same(x * y + 1, fn(x, y))
    assert "float16" in fn.last_break
