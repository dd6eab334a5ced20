"""Random functions under vmap, as its ``randomness`` says: ``"error"`` refuses them,
``"different"`` draws each sample's numbers on their own, ``"same"`` draws one sample's numbers
for all."""
from __future__ import annotations

from .dispatch import FUNCTIONS, sample_of, stack_results, call, top_level
from .tensor import BatchedTensor, front, running

_ERROR = ("vmap: called random operation while in randomness error mode. Please either use the 'same' or "
          "'different' randomness flags on vmap or perform the randomness operation out of vmap")

# Dropout and the functions like it scale their input by a random mask: 'same' draws one mask.
_MASKED = {"F.dropout", "F.dropout1d", "F.dropout2d", "F.dropout3d", "F.alpha_dropout",
           "F.feature_alpha_dropout", "torch.dropout"}


def random(key, depth, args, kwargs):
    """``key``'s function under the vmaps up to level ``depth``."""
    if depth == 0:
        return FUNCTIONS[key](*args, **kwargs)
    if _deterministic(key, args, kwargs):
        return args[0] if args else kwargs["input"]
    mode = running.levels[depth - 1].randomness
    if mode == "error":
        raise RuntimeError(_ERROR)
    batched = top_level(args, kwargs) >= depth
    if mode == "different":
        return _different(key, depth, args, kwargs, batched)
    if not batched:
        return random(key, depth - 1, args, kwargs)
    if key in _LIKE or key in _IN_PLACE:
        # One sample's numbers, drawn as for an unbatched tensor of the sample's shape.
        x = args[0]
        shaped = call("torch.empty", tuple(x.shape), dtype=x.dtype, device=x.device)
        drawn = random(key, depth - 1, (shaped,) + tuple(args[1:]), kwargs)
        return call("Tensor.copy_", x, drawn) if key in _IN_PLACE else drawn
    if key in _MASKED and not kwargs.get("inplace") and not (len(args) > 3 and args[3]):
        x = args[0]
        ones = call("torch.ones", tuple(x.shape), dtype=x.dtype, device=x.device)
        mask = random(key, depth - 1, (ones,) + tuple(args[1:]), kwargs)
        return call("torch.mul", x, mask)
    raise RuntimeError(f"vmap: {key} with randomness='same' on a batched input is not supported; use "
                       "randomness='different', or draw the random numbers outside vmap")


# Draws shaped as their tensor argument: drawn for the whole batch at once, as the batch's value.
_LIKE = {"torch.rand_like", "torch.randn_like", "torch.randint_like"}
_IN_PLACE = {"Tensor.uniform_", "Tensor.normal_", "Tensor.bernoulli_", "Tensor.random_", "Tensor.exponential_",
             "Tensor.geometric_", "Tensor.cauchy_", "Tensor.log_normal_"}
# Factories taking the size as their trailing positional arguments.
_SIZED = {"torch.rand", "torch.randn"}


def _different(key, depth, args, kwargs, batched):
    """Each sample's own numbers: one draw for the whole batch where the function's result has
    the batch's shape, else one draw per sample."""
    size = running.levels[depth - 1].size
    if batched and (key in _LIKE or key in _IN_PLACE) and type(args[0]) is BatchedTensor and \
            args[0]._level == depth:
        x = args[0]
        drawn = random(key, depth - 1, (front(x),) + tuple(args[1:]), kwargs)
        return x if key in _IN_PLACE else BatchedTensor(drawn, 0, depth)
    if not batched and key in _SIZED and args and all(isinstance(a, int) for a in _size(args)):
        drawn = random(key, depth - 1, ((size,) + _size(args),), kwargs)
        return BatchedTensor(drawn, 0, depth)
    results = [random(key, depth - 1, sample_of(args, depth, i), sample_of(kwargs, depth, i)) for i in range(size)]
    return stack_results(results, depth, key)


def _size(args) -> tuple:
    return tuple(args[0]) if len(args) == 1 and isinstance(args[0], (tuple, list)) else tuple(args)


def _deterministic(key, args, kwargs) -> bool:
    """Dropout outside training (or with p=0) draws nothing."""
    if key not in _MASKED:
        return False
    p = kwargs.get("p", args[1] if len(args) > 1 else 0.5)
    training = kwargs.get("training", args[2] if len(args) > 2 else True)
    return not training or p == 0

