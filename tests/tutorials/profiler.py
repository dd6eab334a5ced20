"""The autograd profiler section: only what does not depend on timings."""
import torch

device = torch.device('cpu')
run_on_gpu = False
if torch.cuda.is_available():
    device = torch.device('cuda')
    run_on_gpu = True
x = torch.randn(2, 3, requires_grad=True)
y = torch.rand(2, 3, requires_grad=True)
z = torch.ones(2, 3, requires_grad=True)
with torch.autograd.profiler.profile() as prf:
    for _ in range(10):
        z = (z / x) * y
table = prf.key_averages().table(sort_by='self_cpu_time_total')
print(isinstance(table, str), len(table) > 0)
print(device, run_on_gpu)
