"""Values printed in the tutorials, rebuilt from their literal numbers: the repr must lay them out
exactly as PyTorch does (scientific notation, widths, wrapping, the grad_fn and dtype suffixes)."""
import torch

print(torch.tensor([[0.0, 1.5846e+29, 0.0], [1.5846e+29, 5.6052e-45, 0.0], [0.0, 0.0, 0.0],
                    [0.0, 0.0, 0.0], [0.0, 1.5846e+29, -2.4336e+02]]))
print(torch.tensor([[0.4963, 0.7682, 0.0885], [0.1320, 0.3074, 0.6341], [0.4901, 0.8964, 0.4556]]))
print(torch.tensor([[0.6035, 0.8110, -0.0451], [0.8797, 1.0482, -0.0445], [-0.7229, 2.8663, -0.5655]]))
print(torch.tensor([1.6035, 1.8110, 0.9549, 1.8797, 2.0482, 0.9555, 0.2771, 3.8663, 0.4345,
                    1.1604, 0.9746, 2.0739, 3.2628, 0.0825, 0.7749]))
print(torch.tensor([2.3466382026672363]), torch.tensor([2.3466382026672363]).item())
print(torch.tensor([2.0000, 0.2000, 0.0200, 0.0020]))
print(torch.tensor([2.7183e+00, 7.3891e+00, 5.4598e+01, 2.9810e+03]))
print(torch.tensor([197.8760, 1628.7651, -605.4437], requires_grad=True) * 1)
print(torch.tensor([1.0240e+02, 1.0240e+03, 1.0240e-01]))
print(torch.tensor([358.2216, 1080.0546, -1546.7737]))
print(torch.tensor([4.1569, 17.4602, -7.8189, -4.2132, -14.6893, -19.3380, -2.3023, 1.5380, 18.6185,
                    -9.2201]))
print(torch.tensor([-1.5426e+00, 1.9859e+00, -1.5431e-01, 1.1749e+00, -2.2813e+00, -4.7378e+00,
                    1.0719e-03, 1.3172e+00, 1.7830e+00, -1.0519e+00]))
print(torch.tensor([[-0.4611, 62.0520, 35.2313, 4.8159], [1.2937, 2.5127, -0.2839, -0.4043]]))
print(torch.tensor([145.1727], requires_grad=True).sum())
print(torch.tensor(-0.7648, requires_grad=True), torch.tensor(204800.))
print(torch.tensor([0.0, 1e-8, 1.0]), torch.tensor([1e10, 1.0]), torch.tensor([123456789.0]))
print(torch.tensor([1111, 4]), torch.tensor([[0, 100, 2], [3, 4, 5]]), torch.tensor([-100, 3]))
print(torch.tensor([float('nan'), float('inf'), -float('inf'), 1.5]))
print(torch.tensor([True, False]), torch.tensor([], dtype=torch.long), torch.zeros(2, 0))
print(torch.tensor([[0.11111, 0.222222, 0.3333333]], dtype=torch.float64))
print(torch.tensor([1.0, 2.0], dtype=torch.float16), torch.tensor([1, 2], dtype=torch.int32))
print(torch.arange(30.0) / 7)
print(torch.arange(2000).view(2, 1000))
print(torch.ones(2, 3, 4, dtype=torch.float64) * 0.5)
print(repr(torch.tensor(3.14159)), str(torch.tensor(3.14159)), torch.tensor(3.14159).shape)
print(torch.tensor([1.0, 2.0]).dtype, torch.tensor([1, 2]).dtype, torch.Size([2, 3]), torch.float)
print(torch.tensor([[1.0, 2.0]], requires_grad=True).t())
print([torch.tensor([0.5]), torch.tensor(1)], (torch.tensor([0.9773]), torch.tensor([0.8007])))
print(type(torch.tensor([1])), torch.tensor([1]).type(), torch.tensor([1.0]).double().type())
print(f"{torch.tensor(2.5):.2f}", "{}".format(torch.tensor([1, 2])), "%s" % torch.tensor(1.5))
