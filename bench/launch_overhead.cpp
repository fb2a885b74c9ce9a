// Host cost of an asynchronous kiln launch against a bare cuLaunchKernel of the
// same compiled kernel with the same parameters, both enqueued on one stream with
// no synchronisation inside the timed loops (the GPU machine's interop check;
// the bar is 1.1x). Batches of launches alternate between the two, each batch
// followed by an untimed stream synchronisation, so the queue never fills; the
// median batch gives the per-launch time. Writes JSON to argv[1].
//
// Uses kiln's own driver loader (no CUDA toolkit needed to build it).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <kiln/kiln.h>
#include <nlohmann/json.hpp>

#include "targets/cuda/driver.h"
#include "targets/cuda/kernel_cache.h"
#include "targets/cuda/launch_args.h"
#include "trace/kernel_trace.h"

using namespace kiln;
using Clock = std::chrono::steady_clock;

namespace {

Kernel tiny() {  // 32 elements: the kernel's own time is negligible next to a launch
    return kernel("overhead_tiny", [](View<const f32, 1> x, View<f32, 1> y) {
        for (auto& nest : parallel(shape(axis("one", 1))))
            y(coord(nest.index() * 32), shape(axis("n", 32))).store(x[coord(nest.index() * 32), shape(axis("n", 32))] + 1.0f);
    });
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
    std::string out = argc > 1 ? argv[1] : "launch-overhead.json";
    std::string why;
    const cu::Device* d = cu::device(&why);
    if (!d) {
        std::fprintf(stderr, "launch_overhead: %s\n", why.c_str());
        return 2;
    }
    Stream stream = Stream::create();
    Tensor<f32> x({32}), y({32});
    for (int i = 0; i < 32; ++i) x[i] = static_cast<float>(i);
    auto xd = x.to(cuda(stream)), yd = y.to(cuda(stream));
    HostView<const f32> xv = std::as_const(xd).view();
    HostView<f32> yv = yd.view();
    Kernel k = tiny();
    Executable exe = k.compile(cuda(stream));
    exe.launch(xv, yv);
    stream.synchronize();
    auto back = yd.to(host());
    bool correct = back[31] == 32.0f && back[0] == 1.0f;

    // The same CUfunction and parameters, for the bare loop.
    std::vector<detail::Arg> args = {detail::to_arg(xv), detail::to_arg(yv)};
    auto program = detail::specialize(*k.shared_impl(), args, Loc{});
    auto compiled = cu::compiled_kernel(*program, cu::EmitOptions{}, d);
    cu::InlineParams params;
    params.pack(*program, args);
    auto handle = static_cast<cu::CUstream>(stream.handle());

    const int batch = 200, batches = 51;
    std::vector<double> kiln_us, bare_us, kiln_launch_us;
    for (int b = 0; b < batches; ++b) {
        auto t0 = Clock::now();
        for (int i = 0; i < batch; ++i) exe.launch(xv, yv);
        kiln_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count() / batch);
        stream.synchronize();
        t0 = Clock::now();
        for (int i = 0; i < batch; ++i) k.launch(cuda(stream), xv, yv);
        kiln_launch_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count() / batch);
        stream.synchronize();
        t0 = Clock::now();
        for (int i = 0; i < batch; ++i)
            d->api.cuLaunchKernel(compiled->function, 1, 1, 1, static_cast<unsigned>(compiled->kernel.threads), 1, 1,
                                  static_cast<unsigned>(compiled->kernel.shared_bytes), handle, params.pointers(), nullptr);
        bare_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count() / batch);
        stream.synchronize();
    }
    double kiln = median(kiln_us), bare = median(bare_us), plain = median(kiln_launch_us);
    nlohmann::json j = {{"device", d->name},
                        {"correct", correct},
                        {"launches_per_batch", batch},
                        {"batches", batches},
                        {"bare_cuLaunchKernel_us", bare},
                        {"kiln_executable_launch_us", kiln},
                        {"kiln_kernel_launch_us", plain},
                        {"ratio_executable", kiln / bare},
                        {"ratio_kernel_launch", plain / bare},
                        {"bar", 1.1},
                        {"ok", correct && kiln / bare <= 1.1}};
    std::ofstream(out) << j.dump(2) << "\n";
    std::printf("async launch, host time: bare cuLaunchKernel %.3f us, exe.launch %.3f us (%.2fx), k.launch(cuda(stream)) %.3f us (%.2fx)%s\n",
                bare, kiln, kiln / bare, plain, plain / bare, correct ? "" : " (WRONG RESULT)");
    return j["ok"].get<bool>() ? 0 : 1;
}
