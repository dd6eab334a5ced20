"""AdaptiveLogSoftmaxWithLoss: a softmax over many classes, factored into a head over the frequent
classes plus one entry per cluster of rarer classes, each cluster with its own smaller softmax."""
from __future__ import annotations

from collections import namedtuple

from ...ops.movement import cat
from .. import functional as F
from .container import ModuleList, Sequential
from .linear import Linear
from .module import Module

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    """AdaptiveLogSoftmaxWithLoss(in_features, n_classes, cutoffs, div_value=4.0, head_bias=False)

    Classes below ``cutoffs[0]`` are scored by the head; the classes between consecutive cutoffs
    form clusters, each scored by a two-layer tail whose hidden size shrinks by ``div_value`` per
    cluster. ``forward(input, target)`` returns ``(output, loss)``: the target log-probabilities
    and their negated mean."""

    def __init__(self, in_features: int, n_classes: int, cutoffs, div_value: float = 4.0, head_bias: bool = False,
                 device=None, dtype=None):
        super().__init__()
        cutoffs = list(cutoffs)
        if not cutoffs:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if (cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1
                or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs)):
            raise ValueError("cutoffs should be a sequence of unique, positive integers sorted in an increasing "
                             "order, where each value is between 1 and n_classes-1")
        factory = {"device": device, "dtype": dtype}
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, **factory)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (i + 1)))
            self.tail.append(Sequential(Linear(in_features, hidden, bias=False, **factory),
                                        Linear(hidden, self.cutoffs[i + 1] - self.cutoffs[i], bias=False, **factory)))

    def reset_parameters(self) -> None:
        """Re-draw every parameter as at construction."""
        self.head.reset_parameters()
        for projection in self.tail:
            for layer in projection:
                layer.reset_parameters()

    def _check(self, input, target):
        if target.ndim == 1:
            if input.shape[0] != target.shape[0]:
                raise RuntimeError("Input and target should have the same size in the batch dimension.")
            if input.ndim != 2:
                raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with size "
                                   f"{input.shape}")
        elif target.ndim == 0:
            if input.ndim != 1:
                raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with size "
                                   f"{input.shape}")
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")

    def forward(self, input, target):
        self._check(input, target)
        batched = target.ndim > 0
        if not batched:
            input, target = input.unsqueeze(0), target.unsqueeze(0)
        if target.numel() and (target.amin().item() < 0 or target.amax().item() >= self.n_classes):
            raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but values in range "
                               f"[{target.amin().item()}, {target.amax().item()}] were found. ")
        # Cluster 0 is the shortlist; a rarer class's head entry is its cluster's.
        cluster = (target.unsqueeze(1) >= target.new_tensor(self.cutoffs[:-1])).sum(1)
        head_index = (cluster == 0) * target + (cluster > 0) * (self.shortlist_size - 1 + cluster)
        head_logprob = F.log_softmax(self.head(input), dim=1)
        output = head_logprob.gather(1, head_index.unsqueeze(1)).squeeze(1)
        for i in range(1, self.n_clusters + 1):
            rows = (cluster == i).nonzero().reshape(-1)
            if not rows.numel():
                continue
            local = target.index_select(0, rows) - self.cutoffs[i - 1]
            cluster_logprob = F.log_softmax(self.tail[i - 1](input.index_select(0, rows)), dim=1)
            output = output.index_add(0, rows, cluster_logprob.gather(1, local.unsqueeze(1)).squeeze(1))
        loss = (-output).mean()
        return _ASMoutput(output if batched else output.squeeze(0), loss)

    def _full_log_prob(self, input, head_output):
        head_logprob = F.log_softmax(head_output, dim=1)
        parts = [head_logprob[:, :self.shortlist_size]]
        for i, projection in enumerate(self.tail):
            cluster_logprob = F.log_softmax(projection(input), dim=1)
            parts.append(cluster_logprob + head_logprob[:, self.shortlist_size + i].unsqueeze(1))
        return cat(parts, 1)

    def log_prob(self, input):
        """log_prob(input) -> Tensor: the (N, n_classes) log-probabilities of every class."""
        return self._full_log_prob(input, self.head(input))

    def predict(self, input):
        """predict(input) -> Tensor: the most probable class of each row, the same as
        ``log_prob(input).argmax(1)``, computing the full distribution only for rows that need it."""
        head_output = self.head(input)
        output = head_output.argmax(1)
        outside = output >= self.shortlist_size
        if not outside.any().item():
            return output
        if outside.all().item():
            return self._full_log_prob(input, head_output).argmax(1)
        rows = outside.nonzero().reshape(-1)
        best = self._full_log_prob(input.index_select(0, rows), head_output.index_select(0, rows)).argmax(1)
        return output.index_copy(0, rows, best)
