"""kiln kernels on PyTorch CPU tensors: called directly, and registered as
torch.library custom ops that torch.compile traces around (their fake
implementation). Skipped, saying so, when torch is not installed."""

import os
import unittest

import kiln

try:
    import torch
except ImportError:  # scripts/py-deps.sh installs it; KILN_WITH_TORCH=0 leaves it out
    torch = None

NO_TORCH = "torch is not installed in this Python (scripts/py-deps.sh installs it)"


@unittest.skipIf(torch is None, NO_TORCH)
class TorchTensors(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.lib = kiln.load_library(os.environ["KILN_TEST_KERNELS"])
        cls.softmax_op = kiln.torch_op(cls.lib.softmax, namespace="kiln_test")
        cls.saxpy_op = kiln.torch_op(cls.lib.saxpy, namespace="kiln_test")

    def test_direct_call_on_cpu_tensors_round_trips_without_copies(self):
        x = torch.randn(33, 70)
        y = torch.empty_like(x)
        pointer = y.data_ptr()
        self.lib.softmax(x, y)
        self.assertEqual(y.data_ptr(), pointer)
        torch.testing.assert_close(y, torch.softmax(x.double(), dim=1).float(), rtol=2e-6, atol=1e-7)

    def test_torch_to_kiln_to_torch(self):
        x = torch.arange(12, dtype=torch.int64).reshape(3, 4)
        t = kiln.from_dlpack(x)
        self.assertEqual(t.data_ptr, x.data_ptr())
        back = torch.from_dlpack(t)
        self.assertEqual(back.data_ptr(), x.data_ptr())
        x[0, 0] = 99
        self.assertEqual(back[0, 0].item(), 99)

    def test_schema(self):
        from kiln.torch_ops import schema
        self.assertEqual(schema(self.lib.saxpy, "saxpy"), "saxpy(Tensor x, Tensor y, Tensor(a!) out, float a) -> ()")
        self.assertEqual(schema(self.lib.softmax, "softmax"), "softmax(Tensor x, Tensor(a!) y) -> ()")

    def test_custom_op_runs_the_kernel(self):
        x, y = torch.randn(1000), torch.randn(1000)
        out = torch.zeros(1000)
        self.saxpy_op(x, y, out, 1.5)
        torch.testing.assert_close(out, 1.5 * x + y, rtol=0, atol=0)

    def test_fake_implementation_under_fake_tensors(self):
        from torch._subclasses.fake_tensor import FakeTensorMode
        with FakeTensorMode():
            x = torch.empty(4, 8)
            y = torch.empty(4, 8)
            self.softmax_op(x, y)  # nothing to compute: no memory to read

    def test_opcheck(self):
        x = torch.randn(6, 10)
        torch.library.opcheck(self.softmax_op, (x, torch.empty_like(x)))

    def test_torch_compile_traces_around_the_op(self):
        def f(x):
            y = torch.empty_like(x)
            self.softmax_op(x * 2, y)
            return y + 1

        compiled = torch.compile(f, backend="aot_eager", fullgraph=True)
        x = torch.randn(9, 40)
        torch.testing.assert_close(compiled(x), torch.softmax(2 * x, dim=1) + 1, rtol=1e-5, atol=1e-6)


@unittest.skipIf(torch is not None, "torch is installed")
class WithoutTorch(unittest.TestCase):
    def test_says_why_the_torch_tests_are_skipped(self):
        print(f"\nkiln: skipping the torch custom-op tests: {NO_TORCH}")


if __name__ == "__main__":
    unittest.main()
