"""Recurrent layers: RNN, LSTM and GRU over whole sequences (padded or packed), and their
single-step cells RNNCell, LSTMCell and GRUCell.

A layer runs each direction of each layer over a flat (N, features) view of the sequence whose
step ``t`` holds ``batch_sizes[t]`` rows: a padded batch is the case of equal batch sizes, a
packed one has them decreasing. The input projection of a whole direction is one matrix
product. On the CPU the recurrence is then one node whose kernels run every step and the
backward sweep; elsewhere, and with projections (LSTM's proj_size), each step is composed of
numgrad ops.
"""
from __future__ import annotations

import math
import numbers
import warnings

from ... import creation
from ...autograd import autocast_state, grad_mode, tape
from ...autograd.engine import grad as _grad
from ...batched import intercept
from ...ops import recurrent as _R
from ...ops.linalg import addmm
from ...ops.movement import cat as _cat, stack as _stack
from ...ops.records import primitive
from .. import functional as F, init
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from .module import Module

# The steps of the cells, run by their batching rules inside vmap.
_addmm = intercept("torch.addmm", addmm)
_rnn_update = intercept("recurrent.rnn_update", _R.rnn_update)
_lstm_update = intercept("recurrent.lstm_update", _R.lstm_update)
_gru_update = intercept("recurrent.gru_update", _R.gru_update)

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def _check_type(name, value, kind):
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise TypeError(f"{name} should be of type {kind.__name__}, got: {type(value).__name__}")


def _project(x, weight, bias):
    """x @ weight.T (+ bias) for a 2-D ``x``."""
    return _addmm(bias, x, weight.t()) if bias is not None else x.matmul(weight.t())


def _step(mode, x, state, w_hh_t, b_hh, w_hr):
    """The states after one step of a ``mode`` cell, given its input projection ``x`` (with
    every bias but a GRU's ``b_hh``) and the states before, composed of numgrad ops."""
    h = state[0]
    if mode == "LSTM":
        h, c = _lstm_update(_addmm(x, h, w_hh_t), state[1])
        return (h.matmul(w_hr.t()) if w_hr is not None else h), c
    if mode == "GRU":
        hgates = _addmm(b_hh, h, w_hh_t) if b_hh is not None else h.matmul(w_hh_t)
        return (_gru_update(x, hgates, h),)
    return (_rnn_update(_addmm(x, h, w_hh_t), "tanh" if mode == "RNN_TANH" else "relu"),)


def _composite(mode, xgates, batch_sizes, initial, w_hh, b_hh, w_hr, reverse):
    """One direction of one layer composed of numgrad ops, step by step, over the flat input
    projection ``xgates`` whose step ``t`` is ``batch_sizes[t]`` rows: its (N, hidden) output
    and final states. A batch shrinking (forward) or growing (reverse) between steps is a packed
    sequence whose shorter members ended (or, reversed, have not started yet)."""
    starts, total = [], 0
    for n in batch_sizes:
        starts.append(total)
        total += n
    width = (batch_sizes[-1] if reverse else batch_sizes[0]) if batch_sizes else 0
    state = tuple(s[:width] if s.shape[0] != width else s for s in initial)
    ended, outputs, w_hh_t = [], [], w_hh.t()
    for t in (range(len(batch_sizes) - 1, -1, -1) if reverse else range(len(batch_sizes))):
        n = batch_sizes[t]
        if n < width:
            ended.append(tuple(s[n:] for s in state))
            state = tuple(s[:n] for s in state)
        elif n > width:
            state = tuple(_cat([s, s0[width:n]], 0) for s, s0 in zip(state, initial))
        width = n
        x = xgates[starts[t]:starts[t] + n] if n != xgates.shape[0] else xgates
        state = _step(mode, x, state, w_hh_t, b_hh, w_hr)
        outputs.append(state[0])
    if reverse:
        outputs.reverse()
    if ended:
        state = tuple(_cat([s] + [e[k] for e in reversed(ended)], 0) for k, s in enumerate(state))
    if not outputs:
        return xgates.new_zeros((0, initial[0].shape[-1])), state
    return (outputs[0] if len(outputs) == 1 else _cat(outputs, 0)), state


def _scan_vjp(g, ans, xgates, h0, c0, w_hh, b_hh, *, needs, mode, reverse, batch_sizes, saved):
    """The cotangents (xgates, h0, c0, w_hh, b_hh) of one direction's recurrence, from one
    backward sweep of the kernels; recorded through the composite recurrence when the backward
    pass is itself differentiated (create_graph=True), so that higher derivatives exist."""
    # The output may have been given the sequence's (steps, batch, H) shape.
    g_hs, g_hn = g[0].reshape(xgates.shape[0], -1), g[1]
    if grad_mode.is_grad_enabled():
        return _recorded_grads((g_hs,) + tuple(g[1:]), (xgates, h0, c0, w_hh, b_hh), needs, mode, reverse,
                               batch_sizes)
    dc0 = db_hh = None
    if mode == "LSTM":
        dx, dh0, dc0, dw = _R.lstm_scan_backward(g_hs, g_hn, g[2], batch_sizes, w_hh, saved, reverse)
    elif mode == "GRU":
        dx, dh0, dw, db_hh = _R.gru_scan_backward(g_hs, g_hn, batch_sizes, w_hh, saved, reverse)
        db_hh = db_hh if b_hh is not None else None
    else:
        hs = ans.reshape(xgates.shape[0], -1)
        dx, dh0, dw = _R.rnn_scan_backward(g_hs, g_hn, batch_sizes, w_hh, hs, saved, mode == "RNN_RELU", reverse)
    return dx, dh0, dc0, dw, db_hh


def _recorded_grads(grads, inputs, needs, mode, reverse, batch_sizes):
    xgates, h0, c0, w_hh, b_hh = inputs
    initial = (h0, c0) if mode == "LSTM" else (h0,)
    out, final = _composite(mode, xgates, batch_sizes, initial, w_hh, b_hh, None, reverse)
    wanted = [x for x, need in zip(inputs, needs) if need]
    found = iter(_grad((out,) + final, wanted, grads[:1 + len(final)], create_graph=True, allow_unused=True))
    return tuple(next(found) if need else None for need in needs)


# One direction of one layer as one node whose rule runs the whole backward sweep. LSTM's is
# named as PyTorch's CPU node for a fused LSTM layer; PyTorch has no fused GRU or Elman node.
_SCANS = {mode: primitive(name, 5, vjp_all=_scan_vjp, kind="kernel", backward_name=backward)
          for mode, name, backward in (("LSTM", "_lstm_scan", "MkldnnRnnLayerBackward0"),
                                       ("GRU", "_gru_scan", ""),
                                       ("RNN_TANH", "_rnn_tanh_scan", ""),
                                       ("RNN_RELU", "_rnn_relu_scan", ""))}


def _scan(mode, reverse, batch_sizes, xgates, h0, c0, w_hh, b_hh, steps_batch=None):
    """One direction of one layer by the CPU kernels of ``ops/recurrent.py``, one node: the flat
    input projection ``xgates`` (N, G) whose step ``t`` is ``batch_sizes[t]`` rows, the initial
    states ``h0`` and (LSTM) ``c0``, ``w_hh`` and (GRU) ``b_hh``; returns the (N, H) output, or
    (steps, batch, H) given ``steps_batch``, and the final states."""
    if mode == "LSTM":
        hs, h_n, c_n, *saved = _R.lstm_scan(xgates, batch_sizes, h0, c0, w_hh, reverse)
        outputs = (hs, h_n, c_n)
    else:
        if mode == "GRU":
            hs, h_n, *saved = _R.gru_scan(xgates, batch_sizes, h0, w_hh, b_hh, reverse)
        else:
            hs, h_n, *saved = _R.rnn_scan(xgates, batch_sizes, h0, w_hh, mode == "RNN_RELU", reverse)
        outputs = (hs, h_n)
    if steps_batch is not None:
        # The node's own output in the sequence's shape, as PyTorch's layer node gives it.
        hidden = hs.shape[-1]
        hs = hs._view(steps_batch + (hidden,), (steps_batch[1] * hidden, hidden, 1))
        outputs = (hs,) + outputs[1:]
    inputs = (xgates, h0, c0, w_hh, b_hh)
    if tape.should_record(inputs):
        params = {"mode": mode, "reverse": reverse, "batch_sizes": batch_sizes, "saved": tuple(saved)}
        tape.record(_SCANS[mode], inputs, hs, params, outputs=outputs)
    return outputs


class RNNBase(Module):
    """RNNBase(mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
    dropout=0.0, bidirectional=False, proj_size=0, device=None, dtype=None)

    The parameters, checks and sequence loop shared by :class:`RNN`, :class:`LSTM` and
    :class:`GRU`; ``mode`` is 'RNN_TANH', 'RNN_RELU', 'LSTM' or 'GRU'."""

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
                 batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
                 proj_size: int = 0, device=None, dtype=None):
        super().__init__()
        if (not isinstance(dropout, numbers.Number) or isinstance(dropout, bool)
                or not 0 <= dropout <= 1):
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                             "element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so non-zero dropout "
                          f"expects num_layers greater than 1, but got dropout={dropout} and "
                          f"num_layers={num_layers}", stacklevel=2)
        _check_type("bias", bias, bool)
        _check_type("batch_first", batch_first, bool)
        _check_type("input_size", input_size, int)
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        _check_type("hidden_size", hidden_size, int)
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        self.mode = mode
        self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
        self.bias, self.batch_first = bias, batch_first
        self.dropout, self.bidirectional, self.proj_size = float(dropout), bidirectional, proj_size
        gate_size = _GATES[mode] * hidden_size
        real_hidden = proj_size if proj_size > 0 else hidden_size
        directions = 2 if bidirectional else 1
        factory = {"device": device, "dtype": dtype}
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            layer_input = input_size if layer == 0 else real_hidden * directions
            for direction in range(directions):
                suffix = f"_l{layer}" + ("_reverse" if direction == 1 else "")
                shapes = [("weight_ih", (gate_size, layer_input)), ("weight_hh", (gate_size, real_hidden))]
                if bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                if proj_size > 0:
                    shapes.append(("weight_hr", (proj_size, hidden_size)))
                names = [name + suffix for name, _ in shapes]
                for name, (_, shape) in zip(names, shapes):
                    setattr(self, name, Parameter(creation.empty(*shape, **factory)))
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self) -> list:
        return [getattr(self, name, None) for name in self._flat_weights_names]

    @property
    def all_weights(self) -> list:
        """The parameters per layer and direction, each list in registration order."""
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def flatten_parameters(self) -> None:
        """Kept for PyTorch compatibility: numgrad's parameters need no flat buffer."""

    def reset_parameters(self) -> None:
        bound = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -bound, bound)

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    # -- checks -------------------------------------------------------------------------------

    def check_input(self, input, batch_sizes) -> None:
        weight = self._flat_weights[0]
        if input.dtype != weight.dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype ({weight.dtype}). "
                             f"Convert input: input.to({weight.dtype}), or convert model: model.to({input.dtype})")
        expected = 2 if batch_sizes is not None else 3
        if input.ndim != expected:
            raise RuntimeError(f"input must have {expected} dimensions, got {input.ndim}")
        if self.input_size != input.shape[-1]:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                               f"got {input.shape[-1]}")

    def get_expected_hidden_size(self, input, batch_sizes) -> tuple:
        if batch_sizes is not None:
            batch = int(batch_sizes[0])
        else:
            batch = input.shape[0] if self.batch_first else input.shape[1]
        size = self.proj_size if self.proj_size > 0 else self.hidden_size
        return (self.num_layers * (2 if self.bidirectional else 1), batch, size)

    def check_hidden_size(self, hx, expected_hidden_size, msg: str = "Expected hidden size {}, got {}") -> None:
        if tuple(hx.shape) != tuple(expected_hidden_size):
            raise RuntimeError(msg.format(tuple(expected_hidden_size), list(hx.shape)))

    def check_forward_args(self, input, hidden, batch_sizes) -> None:
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx, permutation):
        return hx if permutation is None else hx.index_select(1, permutation)

    # -- the sequence loop --------------------------------------------------------------------

    def _zeros(self, input, batch, size):
        return creation.zeros(self.num_layers * (2 if self.bidirectional else 1), batch, size,
                              dtype=input.dtype, device=input.device)

    def _run(self, input, states):
        """The layer over ``input`` (a PackedSequence or a 3-D tensor) from initial ``states``
        (a tuple of (layers*directions, B, *) tensors): (output, final states)."""
        packed = isinstance(input, PackedSequence)
        if packed:
            data, batch_sizes = input.data, [int(n) for n in input.batch_sizes.tolist()]
        else:
            seq = input.transpose(0, 1) if self.batch_first else input
            steps, batch = seq.shape[0], seq.shape[1]
            data = seq.reshape(steps * batch, seq.shape[2])
            batch_sizes = [batch] * steps
        directions = 2 if self.bidirectional else 1
        finals = [[] for _ in states]
        layer_input = data
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(directions):
                index = layer * directions + direction
                weights = [getattr(self, name) for name in self._all_weights[index]]
                initial = tuple(s[index] for s in states)
                last = not packed and directions == 1 and layer == self.num_layers - 1
                out, final = self._direction(layer_input, batch_sizes, initial, weights, direction == 1,
                                             (steps, batch) if last else None)
                outputs.append(out)
                for kept, f in zip(finals, final):
                    kept.append(f)
            layer_input = outputs[0] if directions == 1 else _cat(outputs, 1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_input = F.dropout(layer_input, self.dropout, True)
        final_states = tuple(_stack(kept, 0) for kept in finals)
        if packed:
            return PackedSequence(layer_input, input.batch_sizes, input.sorted_indices,
                                  input.unsorted_indices), final_states
        output = layer_input if layer_input.ndim == 3 else layer_input.reshape(steps, batch, layer_input.shape[-1])
        return (output.transpose(0, 1) if self.batch_first else output), final_states

    def _weights(self, weights):
        """(w_ih, w_hh, b_ih, b_hh, w_hr) of one layer and direction, None where absent."""
        w_ih, w_hh = weights[0], weights[1]
        b_ih, b_hh = (weights[2], weights[3]) if self.bias else (None, None)
        w_hr = weights[-1] if self.proj_size > 0 else None
        return w_ih, w_hh, b_ih, b_hh, w_hr

    def _direction(self, data, batch_sizes, initial, weights, reverse, steps_batch=None):
        """One direction of one layer over the flat ``data`` whose step ``t`` is
        ``batch_sizes[t]`` rows: its (N, hidden) output (or, when the kernels run it, of shape
        ``steps_batch + (hidden,)``) and final states."""
        if autocast_state.regions[0] and self.mode != "GRU":
            # Under autocast PyTorch runs its CPU LSTM (oneDNN's layer) and RNN cells in the lower
            # precision (both are on its list); its GRU keeps the input's dtype.
            return autocast_state.run("lower", self._run_direction,
                                      (data, batch_sizes, initial, weights, reverse, steps_batch), {})
        return self._run_direction(data, batch_sizes, initial, weights, reverse, steps_batch)

    def _run_direction(self, data, batch_sizes, initial, weights, reverse, steps_batch):
        w_ih, w_hh, b_ih, b_hh, w_hr = self._weights(weights)
        gru = self.mode == "GRU"
        if b_ih is not None and not gru:
            # Both biases add to every step's gates alike: fold them into the input projection.
            x_bias = b_ih + b_hh
        else:
            x_bias = b_ih
        projected = _project(data, w_ih, x_bias)
        b_hh = b_hh if gru else None
        if w_hr is None and _R.scan_supported(projected, w_hh) and not tape.has_tangents((projected, w_hh) + initial):
            c0 = initial[1] if self.mode == "LSTM" else None
            out, *final = _scan(self.mode, reverse, batch_sizes, projected, initial[0], c0, w_hh, b_hh,
                                steps_batch)
            return out, tuple(final)
        return _composite(self.mode, projected, batch_sizes, initial, w_hh, b_hh, w_hr, reverse)

    def _prepare(self, input, hx, name: str, lstm: bool):
        """Checks ``input`` and ``hx`` as PyTorch does and returns (input, states, batched)."""
        if isinstance(input, PackedSequence):
            batch = int(input.batch_sizes[0])
            if hx is None:
                states = [self._zeros(input.data, batch, self.proj_size or self.hidden_size)]
                if lstm:
                    states.append(self._zeros(input.data, batch, self.hidden_size))
                states = tuple(states)
            else:
                states = tuple(hx) if lstm else (hx,)
            self._check_states(input.data, input.batch_sizes, states, lstm)
            return input, tuple(self.permute_hidden(s, input.sorted_indices) for s in states), True
        if input.ndim not in (2, 3):
            tail = " instead" if lstm else " tensor instead"
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.ndim}D{tail}")
        batched = input.ndim == 3
        if not batched:
            input = input.unsqueeze(0 if self.batch_first else 1)
        batch = input.shape[0] if self.batch_first else input.shape[1]
        if hx is None:
            states = [self._zeros(input, batch, self.proj_size or self.hidden_size)]
            if lstm:
                states.append(self._zeros(input, batch, self.hidden_size))
            states = tuple(states)
        else:
            states = tuple(hx) if lstm else (hx,)
            want = 3 if batched else 2
            if any(s.ndim != want for s in states):
                kind = "batched 3-D" if batched else "unbatched 2-D"
                if lstm:
                    raise RuntimeError(f"For {kind} input, hx and cx should also be {want}-D but got "
                                       f"({states[0].ndim}-D, {states[1].ndim}-D) tensors")
                raise RuntimeError(f"For {kind} input, hx should also be {want}-D but got {states[0].ndim}-D tensor")
            if not batched:
                states = tuple(s.unsqueeze(1) for s in states)
        self._check_states(input, None, states, lstm)
        return input, states, batched

    def _check_states(self, input, batch_sizes, states, lstm):
        self.check_input(input, batch_sizes)
        expected = self.get_expected_hidden_size(input, batch_sizes)
        if not lstm:
            self.check_hidden_size(states[0], expected)
            return
        self.check_hidden_size(states[0], expected, "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(states[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def _finish(self, output, states, input, batched):
        """Final states in the caller's batch order and shape."""
        if isinstance(input, PackedSequence):
            states = tuple(self.permute_hidden(s, input.unsorted_indices) for s in states)
        elif not batched:
            output = output.squeeze(0 if self.batch_first else 1)
            states = tuple(s.squeeze(1) for s in states)
        return output, states

    def _forward(self, input, hx, name, lstm):
        prepared, states, batched = self._prepare(input, hx, name, lstm)
        output, finals = self._run(prepared, states)
        output, finals = self._finish(output, finals, input, batched)
        return output, (finals if lstm else finals[0])


class RNN(RNNBase):
    """RNN(input_size, hidden_size, num_layers=1, nonlinearity='tanh', bias=True,
    batch_first=False, dropout=0.0, bidirectional=False, device=None, dtype=None)

    An Elman RNN: h_t = tanh(W_ih x_t + b_ih + W_hh h_(t-1) + b_hh) (or relu). Input (L, N,
    H_in), (N, L, H_in) with ``batch_first``, (L, H_in) unbatched, or a PackedSequence; returns
    (output, h_n)."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            self.nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            self.nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if self.nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{self.nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__("RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU", *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward(input, hx, "RNN", False)


class LSTM(RNNBase):
    """LSTM(input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
    bidirectional=False, proj_size=0, device=None, dtype=None)

    A long short-term memory layer (gates input, forget, cell, output); with ``proj_size`` > 0
    the hidden state is projected by ``weight_hr``. Returns (output, (h_n, c_n))."""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input, batch_sizes) -> tuple:
        return self.get_expected_hidden_size(input, batch_sizes)[:2] + (self.hidden_size,)

    def forward(self, input, hx=None):
        return self._forward(input, hx, "LSTM", True)


class GRU(RNNBase):
    """GRU(input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
    bidirectional=False, device=None, dtype=None)

    A gated recurrent unit layer (gates reset, update, new). Returns (output, h_n)."""

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    def forward(self, input, hx=None):
        return self._forward(input, hx, "GRU", False)


class RNNCellBase(Module):
    """RNNCellBase(input_size, hidden_size, bias, num_chunks, device=None, dtype=None): the
    parameters of a single-step cell, weight_ih (num_chunks*hidden_size, input_size), weight_hh
    (num_chunks*hidden_size, hidden_size) and the biases bias_ih, bias_hh."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int, device=None, dtype=None):
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        factory = {"device": device, "dtype": dtype}
        self.weight_ih = Parameter(creation.empty(num_chunks * hidden_size, input_size, **factory))
        self.weight_hh = Parameter(creation.empty(num_chunks * hidden_size, hidden_size, **factory))
        if bias:
            self.bias_ih = Parameter(creation.empty(num_chunks * hidden_size, **factory))
            self.bias_hh = Parameter(creation.empty(num_chunks * hidden_size, **factory))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def reset_parameters(self) -> None:
        bound = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -bound, bound)

    def _prepare(self, input, hx: tuple, name: str):
        """(input, states, batched): 2-D input and (B, hidden) states, checked as PyTorch does."""
        if input.ndim not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.ndim}D instead")
        for k, h in enumerate(hx or ()):
            if h.ndim not in (1, 2):
                what = "hidden" if len(hx) == 1 else f"hx[{k}]"
                raise ValueError(f"{name}: Expected {what} to be 1D or 2D, got {h.ndim}D instead")
        batched = input.ndim == 2
        if not batched:
            input = input.unsqueeze(0)
        if input.shape[1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[1]} expected {self.input_size}")
        if hx is None:
            return input, None, batched
        states = tuple(h if batched else h.unsqueeze(0) for h in hx)
        for k, h in enumerate(states):
            if h.shape[0] != input.shape[0]:
                raise RuntimeError(f"Input batch size {input.shape[0]} doesn't match hidden{k} batch size {h.shape[0]}")
            if h.shape[1] != self.hidden_size:
                raise RuntimeError(f"hidden{k} has inconsistent hidden_size: got {h.shape[1]}, "
                                   f"expected {self.hidden_size}")
        return input, states, batched

    def _zeros(self, input):
        return creation.zeros(input.shape[0], self.hidden_size, dtype=input.dtype, device=input.device)


class RNNCell(RNNCellBase):
    """RNNCell(input_size, hidden_size, bias=True, nonlinearity='tanh', device=None, dtype=None)

    h' = tanh(W_ih x + b_ih + W_hh h + b_hh) (or relu), for (N, H_in) or (H_in) input."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, nonlinearity: str = "tanh",
                 device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device, dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        input, states, batched = self._prepare(input, None if hx is None else (hx,), "RNNCell")
        h = self._zeros(input) if states is None else states[0]
        if self.nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        pre = _project(input, self.weight_ih, self.bias_ih) + _project(h, self.weight_hh, self.bias_hh)
        h = _rnn_update(pre, self.nonlinearity)
        return h if batched else h.squeeze(0)


class LSTMCell(RNNCellBase):
    """LSTMCell(input_size, hidden_size, bias=True, device=None, dtype=None)

    One LSTM step: returns (h', c') from input (N, H_in) or (H_in) and hx = (h, c)."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        input, states, batched = self._prepare(input, hx, "LSTMCell")
        if states is None:
            zeros = self._zeros(input)
            states = (zeros, zeros)
        gates = _project(input, self.weight_ih, self.bias_ih) + _project(states[0], self.weight_hh, self.bias_hh)
        h, c = _lstm_update(gates, states[1])
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """GRUCell(input_size, hidden_size, bias=True, device=None, dtype=None)

    One GRU step: returns h' from input (N, H_in) or (H_in) and hx (N, H) or (H)."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device, dtype=dtype)

    def forward(self, input, hx=None):
        input, states, batched = self._prepare(input, None if hx is None else (hx,), "GRUCell")
        h = self._zeros(input) if states is None else states[0]
        h = _gru_update(_project(input, self.weight_ih, self.bias_ih),
                          _project(h, self.weight_hh, self.bias_hh), h)
        return h if batched else h.squeeze(0)


# Inside vmap, a recurrent layer runs once per sample (its scans take plain tensors).
RNNBase._forward = intercept("nn.RNNBase._forward", RNNBase._forward)
