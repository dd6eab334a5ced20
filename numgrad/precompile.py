"""Compile the kernels common programs need, ahead of their first use.

``python -m numgrad.precompile`` fills the kernel cache (``~/.cache/numgrad`` or
``$NUMGRAD_CACHE_DIR``) with the float32 kernels of tutorial-sized work: tensor creation and
random numbers, printing, linear and convolutional layers, activations, losses, their backward
passes and the optimisers' updates. Run it once where a first run must be fast (an image
build, a course machine); numgrad also runs it by itself, as helper processes on idle cores,
the first time a program has to compile (``numgrad.backends.shared_compile``).

Each stage does a little real work on small tensors, so it compiles exactly the kernels a
program doing the same work calls, whatever their sizes.
"""
from __future__ import annotations

import argparse
import os
import sys
import threading
import time

from . import (arange, flatten, linspace, manual_seed, nn, ones, ones_like, optim, rand, randint, randn, randperm,
               sigmoid, tanh, tensor, zeros)
from .backends import codegen, shared_compile
from .nn import functional as F


def _data(*shape):
    """Made without the random generator, whose kernels the program compiles first itself."""
    n = 1
    for s in shape:
        n *= s
    return linspace(-1.0, 1.0, n).reshape(shape)


def _creation():
    manual_seed(0)
    x = randn(4, 5)
    rand(3, 2)
    randint(0, 4, (6,))
    randperm(7)
    zeros(3, 2) + ones(3, 2)
    arange(6).reshape(2, 3)
    linspace(0, 1, 5)
    tensor([[1.0, 2.0], [3.0, 4.0]])
    x[tensor([0, 2])]
    x[1:3]


def _printing():
    repr(randn(3, 4))
    repr(arange(5))
    repr(tensor(2.5))


def _init_layers():
    nn.Linear(5, 3)
    nn.Conv2d(1, 2, 3)
    nn.BatchNorm2d(2)
    nn.Embedding(7, 3)


def _reductions():
    x = _data(4, 5)
    x.sum(), x.mean(), x.sum(0), x.mean(1)


def _cross_entropy():
    F.cross_entropy(_data(6, 3).requires_grad_(), tensor([0, 1, 2, 0, 1, 2])).backward()


def _mlp():
    model = nn.Sequential(nn.Linear(5, 4), nn.ReLU(), nn.Linear(4, 3))
    nn.CrossEntropyLoss()(model(_data(6, 5)), tensor([0, 1, 2, 0, 1, 2])).backward()


def _activations():
    x, w = _data(6, 5), _data(5, 1).requires_grad_()
    nn.MSELoss()(tanh(x @ w), _data(6, 1)).backward()
    sigmoid(x @ w).mean().backward()


def _metrics():
    out, y = _data(6, 3), tensor([0, 1, 2, 0, 1, 2])
    (out.argmax(1) == y).sum().item()
    (out.argmax(1) == y).float().mean().item()
    F.softmax(out, dim=1).max(1)


def _cnn():
    conv, bn, fc = nn.Conv2d(1, 2, 3, padding=1), nn.BatchNorm2d(2), nn.Linear(8, 3)
    x = _data(2, 1, 4, 4)
    h = F.max_pool2d(F.relu(bn(conv(x))), 2)
    out = fc(flatten(h, 1))
    F.cross_entropy(out, tensor([0, 2])).backward()
    F.dropout(_data(3, 4), 0.5, training=True)


def _step(make):
    layer = nn.Linear(3, 2)
    for p in layer.parameters():
        p.grad = ones_like(p)
    opt = make(layer.parameters())
    opt.step()
    opt.step()
    opt.zero_grad()


def _adam():
    _step(lambda p: optim.Adam(p, lr=1e-3))


def _sgd():
    _step(lambda p: optim.SGD(p, lr=0.1))
    _step(lambda p: optim.SGD(p, lr=0.1, momentum=0.9))


def _adamw():
    _step(lambda p: optim.AdamW(p, lr=1e-3))


# The order helpers compile in. A training script compiles from its start (creation, layers,
# forward) and needs the rest later (the loss, backward, the optimiser's step). Helpers begin
# with the longest compilation nearly every script reaches (float32 sums), then take the later
# work, so that the script finds it compiled when it gets there; the less common work comes
# after.
STAGES = (_reductions, _adam, _sgd, _cross_entropy, _cnn, _mlp, _metrics, _activations, _adamw, _init_layers,
          _printing, _creation)


def run(stages=STAGES):
    """Run ``stages`` in order: their kernels end up compiled in the cache."""
    for stage in stages:
        stage()


def watch_parent(parent: int, exit=os._exit, poll_s: float = 0.1):
    """Call ``exit(0)`` once this process's parent is no longer ``parent`` (it exited): a helper
    stops with its program, even in the middle of a compilation (its lock goes with it)."""
    while os.getppid() == parent:
        time.sleep(poll_s)
    exit(0)


def _helper(parent: int, index: int, count: int):
    threading.Thread(target=watch_parent, args=(parent,), daemon=True).start()
    try:
        os.nice(5)  # the program the helper serves comes first
    except (AttributeError, OSError):
        pass
    try:
        run(STAGES[index::count])
    except Exception:  # noqa: BLE001 - a helper never surfaces errors: the program compiles for itself
        return
    open(shared_compile.marker_path(index, count), "w").close()


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m numgrad.precompile", description=__doc__.split("\n\n")[0])
    parser.add_argument("--helper", nargs=3, type=int, metavar=("PARENT", "INDEX", "COUNT"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.helper:
        return _helper(*args.helper)
    # From the end: the helpers this process starts on its other cores take the stages from the
    # front, and the two meet in the middle.
    run(STAGES[::-1])
    print("numgrad: kernels compiled into", codegen.cache_dir(), file=sys.stderr)


if __name__ == "__main__":
    main()
