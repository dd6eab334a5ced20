"""``numgrad.utils.data``: datasets, samplers and the DataLoader, as ``torch.utils.data``."""
from ._collate import default_collate, default_convert
from . import distributed
from .dataloader import DataLoader, get_worker_info
from .dataset import (ChainDataset, ConcatDataset, Dataset, IterableDataset, Subset, TensorDataset,
                      random_split)
from .sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler,
                      WeightedRandomSampler)
from .distributed import DistributedSampler

__all__ = ["DataLoader", "get_worker_info", "default_collate", "default_convert", "Dataset",
           "IterableDataset", "TensorDataset", "ConcatDataset", "ChainDataset", "Subset",
           "random_split", "Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler",
           "WeightedRandomSampler", "BatchSampler", "DistributedSampler"]
