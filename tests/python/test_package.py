"""The kiln package, built in the build tree: catalog, plans and sources, and
kernels from a user's shared library launched on NumPy arrays."""

import os
import unittest

import numpy as np

import kiln


def softmax_reference(x):
    x = x.astype(np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


class Catalog(unittest.TestCase):
    def test_list_names_the_entries(self):
        names = [name for name, _ in kiln.list()]
        self.assertIn("gemm", names)
        self.assertIn("softmax_norm", names)
        self.assertEqual(len(names), len(set(names)))

    def test_plan_source_and_ir(self):
        self.assertIn("loop parallel", kiln.ir("gemm"))
        self.assertIn("target interp", kiln.plan("copy", target="interp"))
        plan = kiln.plan("copy", target="cpu")
        self.assertIn("target cpu", plan)
        self.assertIn("kiln_", kiln.source("copy", target="cpu"))

    def test_unknown_entry_is_an_error(self):
        with self.assertRaisesRegex(ValueError, "no catalog entry named 'nosuch'"):
            kiln.plan("nosuch")

    def test_catalog_kernel_runs_on_numpy(self):
        copy = kiln.catalog("copy")
        x = np.arange(12, dtype=np.float32).reshape(3, 4)
        y = np.zeros_like(x)
        copy(x, y)
        np.testing.assert_array_equal(y, x)


class Library(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.lib = kiln.load_library(os.environ["KILN_TEST_KERNELS"])

    def test_exported_kernels_and_their_parameters(self):
        self.assertEqual(sorted(k.name for k in self.lib), ["gemm_bf16", "increment", "saxpy", "softmax"])
        params = self.lib.saxpy.params
        self.assertEqual([p["name"] for p in params], ["x", "y", "out", "a"])
        self.assertEqual(params[2]["spelling"], "View<f32, 1>")
        self.assertTrue(params[2]["writable"])
        self.assertFalse(params[3]["is_view"])
        self.assertEqual([p["name"] for p in self.lib.increment.params], ["arg0", "arg1"])

    def test_saxpy_on_numpy(self):
        rng = np.random.default_rng(5)
        x = rng.standard_normal(1000).astype(np.float32)
        y = rng.standard_normal(1000).astype(np.float32)
        out = np.zeros_like(x)
        self.lib.saxpy(x, y, out, 2.5)
        # Each element: round(round(2.5 * x) + y) in f32, as numpy's f32 ops compute it.
        np.testing.assert_array_equal(out, np.float32(2.5) * x + y)

    def test_softmax_matches_an_f64_reference(self):
        x = np.random.default_rng(1).standard_normal((37, 50)).astype(np.float32)
        for target in ("interp", "cpu"):
            y = np.zeros_like(x)
            self.lib.softmax(x, y, target=target)
            np.testing.assert_allclose(y, softmax_reference(x), rtol=2e-6, atol=1e-7)

    def test_exact_precision_matches_the_interpreter_bit_for_bit(self):
        x = np.random.default_rng(2).standard_normal((16, 300)).astype(np.float32)
        a, b = np.zeros_like(x), np.zeros_like(x)
        self.lib.softmax(x, a, target="interp")
        self.lib.softmax(x, b, target="cpu", precision="exact")
        self.assertEqual(a.tobytes(), b.tobytes())

    def test_plan_source_ir_for_the_arguments(self):
        x = np.zeros((8, 32), np.float32)
        self.assertIn("specialized", self.lib.softmax.ir(x, x.copy()))
        self.assertIn("target cpu", self.lib.softmax.plan(x, x.copy()))
        self.assertIn("kernel 'softmax'", self.lib.softmax.source(x, x.copy(), target="cpu"))

    def test_errors(self):
        x = np.zeros(8, np.float32)
        with self.assertRaisesRegex(TypeError, "takes 4 arguments, got 2"):
            self.lib.saxpy(x, x)
        with self.assertRaisesRegex(kiln.Error, "argument 0 expects View<const f32, 1>, got a view of f64 with rank 1"):
            self.lib.saxpy(np.zeros(8), x, x.copy(), 1.0)
        with self.assertRaisesRegex(ValueError, "precision 'relaxed'"):
            self.lib.saxpy(x, x, x.copy(), 1.0, precision="relaxed")
        with self.assertRaisesRegex(TypeError, "has no __dlpack__"):
            self.lib.saxpy([1.0], x, x.copy(), 1.0)
        with self.assertRaisesRegex(kiln.Error, "load_library: .*nosuch.so"):
            kiln.load_library("/nonexistent/nosuch.so")


if __name__ == "__main__":
    unittest.main()
