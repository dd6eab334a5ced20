"""nn.TransformerEncoderLayer, TransformerDecoderLayer, TransformerEncoder, TransformerDecoder and
Transformer against PyTorch: parameter names, initial values, outputs and gradients."""
import warnings

import numpy as np
import pytest

import numgrad

torch = pytest.importorskip("torch")

D, H, FF = 8, 2, 16


def _pair(cls, *args, seed=0, dtype="float32", **kwargs):
    """The same module built in both libraries after the same seed."""
    numgrad.manual_seed(seed)
    torch.manual_seed(seed)
    ours = getattr(numgrad.nn, cls)(*args, **kwargs, dtype=getattr(numgrad, dtype))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch's notes about its nested-tensor fast path
        theirs = getattr(torch.nn, cls)(*args, **kwargs, dtype=getattr(torch, dtype))
    return ours, theirs


def _same_parameters(ours, theirs):
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert list(ours.state_dict()) == list(theirs.state_dict())
    for (n, p), (_, tp) in zip(ours.named_parameters(), theirs.named_parameters()):
        np.testing.assert_array_equal(p.detach().numpy(), tp.detach().numpy(), err_msg=n)


def _compare(ours, theirs, arrays, tol, **kwargs):
    """Outputs and parameter gradients of both modules on ``arrays`` (and masks in ``kwargs``)."""
    def conv(lib, v):
        return lib.tensor(v) if isinstance(v, np.ndarray) else v
    out = ours(*[numgrad.tensor(a) for a in arrays], **{k: conv(numgrad, v) for k, v in kwargs.items()})
    tout = theirs(*[torch.tensor(a) for a in arrays], **{k: conv(torch, v) for k, v in kwargs.items()})
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=tol, atol=tol)
    out.square().sum().backward()
    tout.square().sum().backward()
    for (n, p), (_, tp) in zip(ours.named_parameters(), theirs.named_parameters()):
        np.testing.assert_allclose(p.grad.numpy(), tp.grad.numpy(), rtol=tol * 10, atol=tol * 10, err_msg=n)


def _data(*shapes, dtype=np.float32, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(dtype) for s in shapes]


@pytest.mark.parametrize("dtype,tol", [("float32", 1e-4), ("float64", 1e-10)])
@pytest.mark.parametrize("options", [dict(), dict(norm_first=True, activation="gelu"), dict(batch_first=True)])
def test_encoder_layer(dtype, tol, options):
    ours, theirs = _pair("TransformerEncoderLayer", D, H, FF, dropout=0.0, dtype=dtype, **options)
    _same_parameters(ours, theirs)
    kpm = np.zeros((3, 5), bool)
    kpm[2, 3:] = True
    x, = _data((3, 5, D) if options.get("batch_first") else (5, 3, D), dtype=np.dtype(dtype))
    _compare(ours, theirs, [x], tol, src_key_padding_mask=kpm)


def test_encoder_layer_callable_activation_and_no_bias():
    ours, theirs = _pair("TransformerEncoderLayer", D, H, FF, dropout=0.0, bias=False)
    _same_parameters(ours, theirs)
    ours.activation, theirs.activation = numgrad.nn.functional.silu, torch.nn.functional.silu
    x, = _data((4, 2, D))
    _compare(ours, theirs, [x], 1e-4, src_mask=np.triu(np.ones((4, 4), bool), 1))


@pytest.mark.parametrize("options", [dict(), dict(norm_first=True, batch_first=True)])
def test_decoder_layer(options):
    ours, theirs = _pair("TransformerDecoderLayer", D, H, FF, dropout=0.0, dtype="float64", **options)
    _same_parameters(ours, theirs)
    shapes = [(3, 4, D), (3, 6, D)] if options.get("batch_first") else [(4, 3, D), (6, 3, D)]
    tgt, mem = _data(*shapes, dtype=np.float64)
    causal = np.triu(np.full((4, 4), -np.inf), 1)
    mpm = np.zeros((3, 6), bool)
    mpm[0, 4:] = True
    _compare(ours, theirs, [tgt, mem], 1e-10, tgt_mask=causal, memory_key_padding_mask=mpm)


def test_encoder_stack_with_causal_mask():
    numgrad.manual_seed(1)
    torch.manual_seed(1)
    layer = numgrad.nn.TransformerEncoderLayer(D, H, FF, dropout=0.0, dtype=numgrad.float64)
    tlayer = torch.nn.TransformerEncoderLayer(D, H, FF, dropout=0.0, dtype=torch.float64)
    ours = numgrad.nn.TransformerEncoder(layer, 2, norm=numgrad.nn.LayerNorm(D, dtype=numgrad.float64),
                                         enable_nested_tensor=False)
    theirs = torch.nn.TransformerEncoder(tlayer, 2, norm=torch.nn.LayerNorm(D, dtype=torch.float64),
                                         enable_nested_tensor=False)
    _same_parameters(ours, theirs)
    x, = _data((5, 2, D), dtype=np.float64)
    mask = np.triu(np.full((5, 5), -np.inf), 1)
    _compare(ours, theirs, [x], 1e-10, mask=mask)
    _compare(ours, theirs, [x], 1e-10, mask=mask, is_causal=True)


def test_decoder_stack_unbatched():
    numgrad.manual_seed(2)
    torch.manual_seed(2)
    ours = numgrad.nn.TransformerDecoder(numgrad.nn.TransformerDecoderLayer(D, H, FF, dropout=0.0), 2)
    theirs = torch.nn.TransformerDecoder(torch.nn.TransformerDecoderLayer(D, H, FF, dropout=0.0), 2)
    _same_parameters(ours, theirs)
    tgt, mem = _data((4, D), (5, D))
    _compare(ours, theirs, [tgt, mem], 1e-4)


def test_transformer_init_values_and_forward():
    ours, theirs = _pair("Transformer", D, H, 2, 2, FF, dropout=0.0, batch_first=True)
    _same_parameters(ours, theirs)
    src, tgt = _data((2, 6, D), (2, 4, D))
    mask = numgrad.nn.Transformer.generate_square_subsequent_mask(4)
    tmask = torch.nn.Transformer.generate_square_subsequent_mask(4)
    np.testing.assert_array_equal(mask.numpy(), tmask.numpy())
    _compare(ours, theirs, [src, tgt], 1e-4, tgt_mask=mask.numpy())


def test_transformer_loads_torch_state_dict():
    _, theirs = _pair("Transformer", D, H, 1, 1, FF, dropout=0.0, seed=5)
    ours = numgrad.nn.Transformer(D, H, 1, 1, FF, dropout=0.0)
    ours.load_state_dict({k: numgrad.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    src, tgt = _data((6, 2, D), (4, 2, D))
    out = ours(numgrad.tensor(src), numgrad.tensor(tgt))
    tout = theirs(torch.tensor(src), torch.tensor(tgt))
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-4, atol=1e-4)


def test_dropout_in_training_only():
    layer = numgrad.nn.TransformerEncoderLayer(D, H, FF, dropout=0.5)
    x = numgrad.randn(4, 2, D)
    assert not np.allclose(layer(x).detach().numpy(), layer(x).detach().numpy())
    layer.eval()
    np.testing.assert_array_equal(layer(x).detach().numpy(), layer(x).detach().numpy())


def test_errors():
    model = numgrad.nn.Transformer(D, H, 1, 1, FF)
    with pytest.raises(RuntimeError, match="batch number"):
        model(numgrad.randn(5, 2, D), numgrad.randn(4, 3, D))
    with pytest.raises(RuntimeError, match="d_model"):
        model(numgrad.randn(5, 2, D + 1), numgrad.randn(4, 2, D + 1))
    with pytest.raises(RuntimeError, match="relu/gelu"):
        numgrad.nn.TransformerEncoderLayer(D, H, activation="tanh")


def test_encoder_inference_zeroes_padded_positions():
    numgrad.manual_seed(3)
    torch.manual_seed(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = numgrad.nn.TransformerEncoder(numgrad.nn.TransformerEncoderLayer(D, H, FF, batch_first=True), 2,
                                             norm=numgrad.nn.LayerNorm(D)).eval()
        theirs = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(D, H, FF, batch_first=True), 2,
                                             norm=torch.nn.LayerNorm(D)).eval()
    x, = _data((2, 5, D))
    kpm = np.zeros((2, 5), bool)
    kpm[0, 3:] = True
    with numgrad.no_grad(), torch.no_grad():
        out = ours(numgrad.tensor(x), src_key_padding_mask=numgrad.tensor(kpm))
        tout = theirs(torch.tensor(x), src_key_padding_mask=torch.tensor(kpm))
    np.testing.assert_allclose(out.numpy(), tout.numpy(), rtol=1e-4, atol=1e-4)


def test_nested_tensor_warning():
    with pytest.warns(UserWarning, match="batch_first was not True"):
        numgrad.nn.TransformerEncoder(numgrad.nn.TransformerEncoderLayer(D, H, FF), 1)
