"""numgrad.nn modules: registration, traversal, state dicts, modes, conversions, repr and layers."""
import copy
from collections import OrderedDict

import numpy as np
import pytest

import numgrad as ng
import numgrad.nn as nn

try:
    import torch
except ImportError:
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch not installed")


class TinyModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer1 = nn.Linear(6, 4)
        self.relu = nn.ReLU()
        self.layer2 = nn.Linear(4, 3)
        self.register_buffer("steps", ng.zeros(1))

    def forward(self, x):
        return self.layer2(self.relu(self.layer1(x)))


def test_parameter_is_a_tensor_with_its_own_repr():
    p = nn.Parameter(ng.ones(2))
    assert isinstance(p, ng.Tensor) and p.requires_grad and p.is_leaf
    assert repr(p) == "Parameter containing:\ntensor([1., 1.], requires_grad=True)"
    assert type(p * 2) is ng.Tensor
    assert not nn.Parameter(ng.ones(1), requires_grad=False).requires_grad
    q = copy.deepcopy(p)
    assert isinstance(q, nn.Parameter) and q.data_ptr() != p.data_ptr()


def test_registration_and_traversal():
    m = TinyModel()
    names = [n for n, _ in m.named_parameters()]
    assert names == ["layer1.weight", "layer1.bias", "layer2.weight", "layer2.bias"]
    assert len(list(m.parameters())) == 4
    assert [n for n, _ in m.named_children()] == ["layer1", "relu", "layer2"]
    assert [n for n, _ in m.named_modules()] == ["", "layer1", "relu", "layer2"]
    assert [n for n, _ in m.named_buffers()] == ["steps"]
    assert m.get_submodule("layer1") is m.layer1
    assert m.get_parameter("layer2.bias") is m.layer2.bias
    m.layer1 = None
    assert [n for n, _ in m.named_parameters()] == ["layer2.weight", "layer2.bias"]
    with pytest.raises(TypeError):
        m.layer2.weight = ng.ones(3, 4)
    with pytest.raises(AttributeError):
        m.missing


def test_shared_parameters_listed_once():
    lin = nn.Linear(3, 3)
    seq = nn.Sequential(lin, nn.ReLU(), lin)
    assert len(list(seq.parameters())) == 2
    assert len(seq.state_dict()) == 4


def test_repr_of_the_module_tree():
    m = TinyModel()
    assert repr(m) == ("TinyModel(\n"
                       "  (layer1): Linear(in_features=6, out_features=4, bias=True)\n"
                       "  (relu): ReLU()\n"
                       "  (layer2): Linear(in_features=4, out_features=3, bias=True)\n"
                       ")")
    ml = nn.ModuleList([nn.ReLU(), nn.ReLU(), nn.Tanh()])
    assert repr(ml) == "ModuleList(\n  (0-1): 2 x ReLU()\n  (2): Tanh()\n)"
    assert repr(nn.Sequential()) == "Sequential()"


@needs_torch
def test_layer_reprs_match_torch():
    for args in [("Conv2d", 1, 2, 3), ("MaxPool2d", 2), ("AvgPool2d", 2), ("Embedding", 10, 3), ("LayerNorm", 4),
                 ("BatchNorm1d", 3), ("Dropout",), ("Flatten",), ("LeakyReLU",), ("GELU",), ("Softmax", 1),
                 ("LogSoftmax", 1), ("Identity",), ("CrossEntropyLoss",), ("Conv1d", 2, 3, 3), ("Softplus",),
                 ("Sigmoid",), ("Tanh",), ("HuberLoss",), ("BCEWithLogitsLoss",)]:
        assert repr(getattr(nn, args[0])(*args[1:])) == repr(getattr(torch.nn, args[0])(*args[1:]))
    assert repr(nn.Conv2d(1, 2, 3, stride=2, padding=1, bias=False)) == \
        repr(torch.nn.Conv2d(1, 2, 3, stride=2, padding=1, bias=False))


def test_state_dict_round_trip_and_errors():
    a, b = TinyModel(), TinyModel()
    sd = a.state_dict()
    assert list(sd) == ["steps", "layer1.weight", "layer1.bias", "layer2.weight", "layer2.bias"]
    assert isinstance(sd, OrderedDict) and not sd["layer1.weight"].requires_grad
    result = b.load_state_dict(sd)
    assert result.missing_keys == [] and result.unexpected_keys == []
    x = ng.randn(2, 6)
    np.testing.assert_array_equal(a(x).detach().numpy(), b(x).detach().numpy())
    bad = dict(sd)
    del bad["layer1.bias"]
    bad["extra"] = ng.ones(1)
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "layer1.bias"'):
        b.load_state_dict(bad)
    r = b.load_state_dict(bad, strict=False)
    assert r.missing_keys == ["layer1.bias"] and r.unexpected_keys == ["extra"]
    wrong = dict(sd, **{"layer2.bias": ng.ones(5)})
    with pytest.raises(RuntimeError, match="size mismatch for layer2.bias"):
        b.load_state_dict(wrong)


def test_train_eval_zero_grad_requires_grad_apply():
    m = nn.Sequential(nn.Linear(3, 3), nn.Dropout(0.5))
    assert m.training and m[1].training
    m.eval()
    assert not m[1].training
    x = ng.ones(4, 3)
    np.testing.assert_array_equal(m(x).detach().numpy(), m(x).detach().numpy())
    m.train()
    m(x).sum().backward()
    assert m[0].weight.grad is not None
    m.zero_grad(set_to_none=False)
    assert (m[0].weight.grad == 0).all().item()
    m.zero_grad()
    assert m[0].weight.grad is None
    m.requires_grad_(False)
    assert not any(p.requires_grad for p in m.parameters())
    seen = []
    m.apply(lambda mod: seen.append(type(mod).__name__))
    assert seen == ["Linear", "Dropout", "Sequential"]


def test_to_dtype_keeps_parameter_objects():
    m = nn.Linear(2, 2)
    w = m.weight
    m.to(ng.float64)
    assert m.weight is w and w.dtype == ng.float64 and isinstance(w, nn.Parameter)
    m.float()
    assert w.dtype == ng.float32
    with pytest.raises(TypeError):
        m.to(ng.int64)


def test_forward_hooks():
    lin = nn.Linear(2, 2)
    calls = []
    h = lin.register_forward_hook(lambda mod, args, out: calls.append(out.shape))
    lin(ng.ones(1, 2))
    h.remove()
    lin(ng.ones(1, 2))
    assert calls == [(1, 2)]


def test_containers():
    seq = nn.Sequential(OrderedDict([("fc", nn.Linear(2, 3)), ("act", nn.ReLU())]))
    assert isinstance(seq[-1], nn.ReLU) and isinstance(seq[:1], nn.Sequential) and len(seq) == 2
    assert seq.fc is seq[0]
    ml = nn.ModuleList([nn.Linear(1, 1)])
    ml.append(nn.Linear(1, 1))
    ml += [nn.ReLU()]
    assert len(ml) == 3 and len(list(ml.parameters())) == 4
    md = nn.ModuleDict({"a": nn.ReLU()})
    md["b"] = nn.Linear(1, 2)
    assert list(md.keys()) == ["a", "b"] and "b" in md
    with pytest.raises(IndexError):
        seq[5]


def test_linear_default_init_bounds():
    lin = nn.Linear(100, 50)
    assert lin.weight.shape == (50, 100)
    assert lin.weight.abs().max().item() <= 0.1 and lin.bias.abs().max().item() <= 0.1
    assert lin.weight.std().item() == pytest.approx(0.1 / 3 ** 0.5, rel=0.1)


def test_batchnorm_running_stats_and_eval():
    bn = nn.BatchNorm1d(3)
    x = ng.randn(8, 3) * 2 + 1
    y = bn(x)
    np.testing.assert_allclose(y.mean(0).detach().numpy(), 0, atol=1e-5)
    np.testing.assert_allclose(bn.running_mean.numpy(), 0.1 * x.mean(0).numpy(), rtol=1e-5)
    np.testing.assert_allclose(bn.running_var.numpy(), 0.9 + 0.1 * x.var(0).numpy(), rtol=1e-5)
    assert bn.num_batches_tracked.item() == 1
    bn.eval()
    z = bn(x)
    expect = (x - bn.running_mean) / (bn.running_var + 1e-5).sqrt()
    np.testing.assert_allclose(z.detach().numpy(), expect.numpy(), rtol=1e-5, atol=1e-6)
    assert set(bn.state_dict()) == {"weight", "bias", "running_mean", "running_var", "num_batches_tracked"}


@needs_torch
def test_layers_match_torch_with_copied_weights():
    ng.manual_seed(0)
    ours = nn.Sequential(nn.Conv2d(2, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(4, 3, 3), nn.Flatten(), nn.LayerNorm(3), nn.GELU(), nn.Linear(3, 5),
                         nn.LogSoftmax(1)).double()
    ref = torch.nn.Sequential(torch.nn.Conv2d(2, 4, 3, padding=1), torch.nn.BatchNorm2d(4), torch.nn.ReLU(),
                              torch.nn.MaxPool2d(2), torch.nn.Conv2d(4, 3, 3), torch.nn.Flatten(),
                              torch.nn.LayerNorm(3), torch.nn.GELU(), torch.nn.Linear(3, 5),
                              torch.nn.LogSoftmax(1)).double()
    ref.load_state_dict({k: torch.tensor(v.numpy()) for k, v in ours.state_dict().items()})
    x = np.random.default_rng(1).standard_normal((3, 2, 6, 6))
    out = ours(ng.tensor(x))
    expected = ref(torch.tensor(x))
    np.testing.assert_allclose(out.detach().numpy(), expected.detach().numpy(), rtol=1e-6, atol=1e-8)
    out.sum().backward()
    expected.sum().backward()
    for (name, p), q in zip(ours.named_parameters(), ref.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-6, atol=1e-8, err_msg=name)
    np.testing.assert_allclose(ours[1].running_var.numpy(), ref[1].running_var.numpy(), rtol=1e-6)


def test_embedding_module():
    emb = nn.Embedding(10, 3, padding_idx=0)
    assert (emb.weight[0] == 0).all().item()
    out = emb(ng.tensor([[0, 3], [9, 0]]))
    assert out.shape == (2, 2, 3)
    frozen = nn.Embedding.from_pretrained(ng.eye(3))
    assert not frozen.weight.requires_grad
    assert frozen(ng.tensor([2])).tolist() == [[0.0, 0.0, 1.0]]


def test_clip_grad_norm():
    p = nn.Parameter(ng.zeros(4))
    p.grad = ng.tensor([3.0, 4.0, 0.0, 0.0])
    total = nn.utils.clip_grad_norm_([p], 1.0)
    assert total.item() == pytest.approx(5.0)
    assert p.grad.norm().item() == pytest.approx(1.0, rel=1e-5)
    p.grad = ng.tensor([3.0, -4.0, 0.0, 0.0])
    assert nn.utils.clip_grad_norm_(p, 10.0, norm_type="inf").item() == 4.0
    assert p.grad.tolist() == [3.0, -4.0, 0.0, 0.0]


def test_init_functions():
    w = ng.empty(30, 20)
    nn.init.xavier_uniform_(w)
    assert w.abs().max().item() <= (6 / 50) ** 0.5
    nn.init.zeros_(w)
    assert (w == 0).all().item()
    nn.init.ones_(w)
    nn.init.constant_(w, 0.5)
    assert (w == 0.5).all().item()
    nn.init.kaiming_normal_(w, nonlinearity="relu")
    assert w.std().item() == pytest.approx((2 / 20) ** 0.5, rel=0.15)
    assert nn.init.calculate_gain("tanh") == pytest.approx(5 / 3)
    with pytest.raises(ValueError):
        nn.init.xavier_uniform_(ng.empty(3))
