// The C++ side of the GPU interop check: launches the check's kernels the C++ way
// (kiln tensors copied to the device on a kiln stream, a stream-bound cuda
// target, copied back) on inputs the Python side wrote, and writes the outputs,
// so that the Python launches on PyTorch tensors can be compared with them bit
// for bit.
//
//   kiln_interop_reference softmax ROWS COLS x.bin y.bin
//   kiln_interop_reference gemm M N K a.bin b.bin c.bin        (bf16 as raw 16-bit words)
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "interop_kernels.h"

using namespace kiln;

namespace {

template <class T> std::vector<T> read(const std::string& path, std::size_t count) {
    std::vector<T> v(count);
    std::ifstream in(path, std::ios::binary);
    in.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(count * sizeof(T)));
    if (!in) throw std::runtime_error("cannot read " + std::to_string(count) + " elements from " + path);
    return v;
}

template <class T> void write(const std::string& path, const std::vector<T>& v) {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(T)));
    if (!out.flush()) throw std::runtime_error("cannot write " + path);
}

}  // namespace

int main(int argc, char** argv) try {
    std::vector<std::string> a(argv + 1, argv + argc);
    Stream stream = Stream::create();
    if (a.size() == 5 && a[0] == "softmax") {
        std::int64_t rows = std::stoll(a[1]), cols = std::stoll(a[2]);
        Tensor<f32> x({rows, cols}, read<f32>(a[3], static_cast<std::size_t>(rows * cols))), y({rows, cols});
        auto xd = x.to(cuda(stream)), yd = y.to(cuda(stream));
        gpu_check::softmax_kernel().launch(cuda(stream), std::as_const(xd).view(), yd.view());
        write(a[4], yd.to(host()).values());
        return 0;
    }
    if (a.size() == 7 && a[0] == "gemm") {
        std::int64_t m = std::stoll(a[1]), n = std::stoll(a[2]), k = std::stoll(a[3]);
        Tensor<bf16> A({m, k}, read<bf16>(a[4], static_cast<std::size_t>(m * k)));
        Tensor<bf16> B({k, n}, read<bf16>(a[5], static_cast<std::size_t>(k * n)));
        Tensor<bf16> C({m, n});
        auto ad = A.to(cuda(stream)), bd = B.to(cuda(stream)), cd = C.to(cuda(stream));
        gpu_check::gemm_kernel().launch(cuda(stream), std::as_const(ad).view(), std::as_const(bd).view(), cd.view());
        write(a[6], cd.to(host()).values());
        return 0;
    }
    std::fprintf(stderr, "usage: kiln_interop_reference softmax ROWS COLS x.bin y.bin | gemm M N K a.bin b.bin c.bin\n");
    return 2;
} catch (const std::exception& e) {
    std::fprintf(stderr, "kiln_interop_reference: %s\n", e.what());
    return 1;
}
