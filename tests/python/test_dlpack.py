"""DLPack round trips between kiln and NumPy: no copies, checked shapes, strides,
kinds and access."""

import os
import sys
import unittest

import numpy as np

import kiln


class RoundTrips(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.lib = kiln.load_library(os.environ["KILN_TEST_KERNELS"])

    def test_numpy_to_kiln_to_numpy_shares_memory(self):
        a = np.arange(6, dtype=np.float32).reshape(2, 3)
        t = kiln.from_dlpack(a)
        self.assertEqual(t.shape, (2, 3))
        self.assertEqual(t.dtype, "float32")
        self.assertEqual(t.data_ptr, a.ctypes.data)
        b = np.from_dlpack(t)
        self.assertEqual(b.ctypes.data, a.ctypes.data)
        a[1, 2] = 42
        self.assertEqual(b[1, 2], 42)

    def test_kiln_tensor_to_numpy_and_back(self):
        t = kiln.empty([4, 5], "int64")
        n = np.from_dlpack(t)
        self.assertEqual(n.shape, (4, 5))
        self.assertEqual(n.dtype, np.int64)
        n[...] = np.arange(20).reshape(4, 5)
        out = kiln.empty([4, 5], "int64")
        self.lib.increment(t, out)  # kiln reads what NumPy wrote, through the same memory
        np.testing.assert_array_equal(np.from_dlpack(out), np.arange(20).reshape(4, 5) + 1)
        self.assertEqual(kiln.from_dlpack(n).data_ptr, t.data_ptr)

    def test_the_exported_memory_outlives_the_kiln_handle(self):
        t = kiln.empty([3], "float64")
        n = np.from_dlpack(t)
        n[:] = [1.0, 2.0, 3.0]
        del t
        np.testing.assert_array_equal(n, [1.0, 2.0, 3.0])

    def test_strided_views_are_used_in_place(self):
        base = np.arange(48, dtype=np.int64).reshape(6, 8)
        x = base[::2, 1::3]  # strides (16, 3) in elements
        y = np.zeros((8, 6), np.int64).T[:3, :3]  # a transposed, column-major window
        self.lib.increment(x, y)
        np.testing.assert_array_equal(y, x + 1)

    def test_kernel_writes_numpy_in_place(self):
        x = np.random.default_rng(3).standard_normal((5, 7)).astype(np.float32)
        y = np.full_like(x, np.nan)
        address = y.ctypes.data
        self.lib.softmax(x, y)
        self.assertEqual(y.ctypes.data, address)
        np.testing.assert_allclose(y.sum(axis=1), np.ones(5), rtol=1e-6)

    def test_read_only_array_for_a_written_parameter(self):
        x = np.zeros((2, 3), np.float32)
        y = np.zeros((2, 3), np.float32)
        y.flags.writeable = False
        with self.assertRaisesRegex(kiln.Error, r"argument 1 \(View<f32, 2>\) is written, but a read-only view was passed"):
            self.lib.softmax(x, y)

    def test_unsupported_element_type(self):
        x = np.zeros((2, 3), np.uint16)
        with self.assertRaisesRegex(kiln.Error, "element type uint16 has no kiln kind"):
            self.lib.softmax(x, np.zeros((2, 3), np.float32))

    def test_negative_strides_are_refused(self):
        x = np.zeros((2, 3), np.float32)[:, ::-1]
        with self.assertRaisesRegex(kiln.Error, "negative stride -1 in dimension 1"):
            self.lib.softmax(x, np.zeros((2, 3), np.float32))

    def test_a_zero_dimensional_array_is_refused(self):
        with self.assertRaisesRegex(kiln.Error, "rank 0"):
            kiln.from_dlpack(np.array(1.0, dtype=np.float32))

    def test_dlpack_device(self):
        self.assertEqual(kiln.empty([1]).__dlpack_device__(), (1, 0))


if __name__ == "__main__":
    unittest.main()
