// The kiln side of the row benchmark (bench/rows_bench.py loads this library with
// ctypes, in the process that runs torch and Triton): the catalog's row kernels
// (examples/row_kernels.h) and a blocked transpose, over device buffers the
// caller owns (torch tensors), bf16 or f32.
//
// kiln_rows_prepare traces and compiles a kernel for the buffers and returns a
// handle. kiln_rows_launch launches it on a stream without waiting, so that CUDA
// events around it time the kernel alone, as they time the peers; a kiln launch
// through the public API (kiln_rows_launch_public) also waits for the kernel, and
// the benchmark times that path too, once.
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <kiln/kiln.h>

#include "examples/chunked_row_kernels.h"
#include "examples/row_kernels.h"
#include "passes/host_scalars.h"
#include "targets/common/target_impl.h"
#include "targets/cuda/driver.h"
#include "targets/cuda/kernel_cache.h"
#include "targets/cuda/launch_args.h"
#include "targets/cuda/occupancy.h"
#include "trace/kernel_trace.h"

using namespace kiln;

namespace {

// y = x^T in 64 x 64 blocks: a tile loaded, transposed through shared memory, stored.
template <Element T> Kernel transpose_blocks() {
    return kernel("transpose_blocks", [](View<const T, 2> x, View<T, 2> y) {
        constexpr std::uint32_t b = 64;
        auto gm = axis("block_m", ceil_div(x.template extent<0>(), b)), gn = axis("block_n", ceil_div(x.template extent<1>(), b));
        auto m = axis("m", b), n = axis("n", b);
        for (auto& nest : parallel(shape(gm, gn))) {
            auto m0 = nest.index(gm) * b, n0 = nest.index(gn) * b;
            y(coord(n0, m0), shape(n, m)).store(transpose(x[coord(m0, n0), shape(m, n)]));
        }
    });
}

// Rows written as loops over column chunks (examples/chunked_row_kernels.h): the
// benchmark's check that such forms reach the speed of the whole-row kernels of
// row_kernels.h. Chunks of 1024 columns.
constexpr std::int64_t kChunk = 1024;

struct Prepared {
    Kernel kernel;
    std::vector<detail::Arg> args;
    std::shared_ptr<const ir::Program> program;
    std::shared_ptr<const cu::CompiledKernel> compiled;
    cu::PackedParams params;
    unsigned grid = 0;
    std::string plan;
};

std::mutex lock;
std::vector<std::unique_ptr<Prepared>> prepared;
thread_local std::string last_error;

template <class T> detail::Arg device_view(void* p, std::vector<std::int64_t> extents, bool read_only) {
    auto strides = detail::row_major_strides(extents);
    if (read_only) return detail::to_arg(HostView<const T>{static_cast<const T*>(p), extents, strides, Device::cuda});
    return detail::to_arg(HostView<T>{static_cast<T*>(p), extents, strides, Device::cuda});
}

// The kernel and its arguments for `name` (row_kernels.h's buffers, in order).
template <Element T> void build(Prepared& p, const std::string& name, std::int64_t R, std::int64_t C, void** b, int count) {
    auto in = [&](int i, std::vector<std::int64_t> e) { return device_view<T>(b[i], std::move(e), true); };
    auto out = [&](int i, std::vector<std::int64_t> e) { return device_view<T>(b[i], std::move(e), false); };
    auto need = [&](int n) {
        if (count != n) throw Error(name + " takes " + std::to_string(n) + " buffers, not " + std::to_string(count));
    };
    namespace rk = catalog::rows;
    if (name == "softmax" || name == "log_softmax" || name == "softmax_online") {
        need(2);
        p.kernel = name == "softmax" ? rk::softmax<T>() : name == "log_softmax" ? rk::log_softmax<T>() : rk::softmax_online<T>(kChunk);
        p.args = {in(0, {R, C}), out(1, {R, C})};
    } else if (name == "layernorm" || name == "layernorm_chunked") {
        need(4);
        p.kernel = name == "layernorm" ? rk::layernorm_affine<T>() : rk::layernorm_chunked<T>(kChunk);
        p.args = {in(0, {R, C}), in(1, {C}), in(2, {C}), out(3, {R, C})};
    } else if (name == "rmsnorm") {
        need(3);
        p.kernel = rk::rmsnorm_weighted<T>();
        p.args = {in(0, {R, C}), in(1, {C}), out(2, {R, C})};
    } else if (name == "cross_entropy") {
        need(4);
        p.kernel = rk::cross_entropy<T>();
        p.args = {in(0, {R, C}), device_view<i64>(b[1], {R}, true), device_view<f32>(b[2], {R}, false), out(3, {R, C})};
    } else if (name == "residual_layernorm") {
        need(6);
        p.kernel = rk::residual_layernorm<T>();
        p.args = {in(0, {R, C}), in(1, {R, C}), in(2, {C}), in(3, {C}), out(4, {R, C}), out(5, {R, C})};
    } else if (name == "swiglu") {
        need(2);
        p.kernel = rk::swiglu<T>();
        p.args = {in(0, {R, 2 * C}), out(1, {R, C})};
    } else if (name == "column_sum") {
        need(2);
        p.kernel = rk::column_sum<T>();
        p.args = {in(0, {R, C}), device_view<f32>(b[1], {C}, false)};
    } else if (name == "transpose") {
        need(2);
        p.kernel = transpose_blocks<T>();
        p.args = {in(0, {R, C}), out(1, {C, R})};
    } else {
        throw Error("no row benchmark kernel '" + name + "'");
    }
}

// The precision code of the entry points: 0 standard, 1 exact, 2 fast.
CompileOptions options(int precision) {
    return {.precision = precision == 1 ? Precision::exact : precision == 2 ? Precision::fast : Precision::standard};
}

}  // namespace

extern "C" {

// A handle (>= 0) for kernel `name` ("softmax", "layernorm", ...) over the buffers,
// of kind `kind` ("bf16" or "f32"), compiled in `precision` (0 standard, 1 exact, 2 fast);
// -1 on error (kiln_rows_error says why).
int kiln_rows_prepare(const char* name, const char* kind, long long rows, long long cols, void** buffers, int count, int precision) {
    try {
        auto p = std::make_unique<Prepared>();
        if (std::strcmp(kind, "bf16") == 0) build<bf16>(*p, name, rows, cols, buffers, count);
        else if (std::strcmp(kind, "f32") == 0) build<f32>(*p, name, rows, cols, buffers, count);
        else throw Error(std::string("kind '") + kind + "': bf16 or f32");
        p->program = detail::specialize(*p->kernel.shared_impl(), p->args, Loc::here());
        const cu::Device& d = cu::require_device("the row benchmark");
        p->compiled = cu::compiled_kernel(*p->program, cu::emit_options(p->args, options(precision)), &d);
        p->params = cu::pack_params(*p->program, p->args);
        p->grid = cu::grid_ctas(passes::grid_instances(*p->program, p->args), *p->compiled, d);
        p->plan = cuda().impl().plan(*p->program, p->args, options(precision));
        std::lock_guard<std::mutex> hold(lock);
        prepared.push_back(std::move(p));
        return static_cast<int>(prepared.size() - 1);
    } catch (const std::exception& e) {
        last_error = e.what();
        return -1;
    }
}

// Launches on `stream` (a CUstream; null: the legacy default stream) and returns at once.
int kiln_rows_launch(int handle, void* stream) {
    Prepared& p = *prepared.at(static_cast<std::size_t>(handle));
    const cu::Device& d = *cu::device();
    cu::make_current(d);
    const auto& k = p.compiled->kernel;
    int r = d.api.cuLaunchKernel(p.compiled->function, p.grid, 1, 1, static_cast<unsigned>(k.threads), 1, 1, static_cast<unsigned>(k.shared_bytes),
                                 static_cast<cu::CUstream>(stream), p.params.pointers.data(), nullptr);
    if (r != cu::CUDA_SUCCESS) last_error = "cuLaunchKernel failed: " + std::to_string(r);
    return r;
}

// Launches through the cuda target, as Kernel::launch does (it waits for the kernel).
int kiln_rows_launch_public(int handle, int precision) {
    try {
        Prepared& p = *prepared.at(static_cast<std::size_t>(handle));
        cuda().impl().run(*p.program, p.args, options(precision), Loc::here());
        return 0;
    } catch (const std::exception& e) {
        last_error = e.what();
        return -1;
    }
}

const char* kiln_rows_plan(int handle) { return prepared.at(static_cast<std::size_t>(handle))->plan.c_str(); }
const char* kiln_rows_error() { return last_error.c_str(); }

}  // extern "C"
