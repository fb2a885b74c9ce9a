// GEMM benchmark (issue 11): kiln's GEMMs written as users write them (bf16 in, f32
// accumulate, bf16 out; tile 128x256x64 unless a row says otherwise) against cuBLAS
// in the same process, over the shapes, a bias + relu epilogue, X W^T
// (the weight stored [N, K]), A^T B (A stored [K, M], as a weight gradient's X^T dY), batched GEMMs (bmm),
// C^T stored and int8 (i8 x i8 -> i32, X W^T). Each row checks kiln's output against cuBLAS's
// (relative L2 over a sample; for the epilogue the host applies bias and relu to
// cuBLAS's product), then times both: warm-up, median of many CUDA-event-timed runs,
// both enqueued on one stream and timed by events on it. Prints a table; writes
// JSON to argv[1] (default bench-gemm.json); argv[2], when given, keeps only the
// rows whose name contains it (or one of its '|'-separated parts; "=NAME" the row NAME alone). With argv[3] = "tune" ("retune": ignore kept choices), kiln's row is the autotuner's
// choice over seven tiles (kiln/tune.h; the row's own tile first): the row then also
// reports the default tile's time and the tuned tile, timed in the tuning run.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <array>
#include <fstream>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <kiln/kiln.h>
#include <kiln/tune.h>

#include "cuda_timing.h"
#include <nlohmann/json.hpp>

using namespace kiln;

namespace {



// b_view_t: the plain kernel (B indexed [k, n]) launched with a B view over [N, K]
// storage, strides (1, K): PyTorch's `a @ w.t()` into a kernel written as A B.
// grouped: the plain product as Triton's matmul tutorial ports it, a 1-D grid whose
// pid visits the tiles in groups of 8 rows of blocks.
enum class Form { plain, bias_relu, linear, a_transposed, b_view_t, grouped };

// C = A B (B [K, N]), A B^T (B [N, K]) or A^T B (A [K, M]: `mma` contracts the shared
// axis), optionally relu(A B + bias[n]).
Kernel grouped_gemm(std::int64_t bm, std::int64_t bn, std::int64_t bk) {
    return kernel("bench_gemm_grouped", [=](View<const bf16, 2> A, View<const bf16, 2> B, View<const bf16, 1>, View<bf16, 2> C) {
        constexpr std::int64_t group = 8;
        auto num_pid_m = ceil_div(A.extent(0), bm), num_pid_n = ceil_div(B.extent(1), bn);
        auto tiles = axis("pid", num_pid_m * num_pid_n), kt = axis("k_tiles", ceil_div(A.extent(1), bk));
        auto m = axis("m", bm), n = axis("n", bn), k = axis("k", bk);
        for (auto& nest : parallel(shape(tiles))) {
            auto pid = nest.index();
            auto in_group = group * num_pid_n;
            auto first_m = (pid / in_group) * group;
            auto size_m = min(num_pid_m - first_m, group);
            auto m0 = (first_m + (pid % in_group) % size_m) * bm, n0 = ((pid % in_group) / size_m) * bn;
            auto acc = zeros<f32>(shape(m, n));
            for (auto& step : nest.pipeline(shape(kt), {.window = 3})) {
                auto k0 = step.index() * bk;
                acc = mma(A[coord(m0, k0), shape(m, k)], B[coord(k0, n0), shape(k, n)], acc);
            }
            C(coord(m0, n0), shape(m, n)).store(cast<bf16>(acc));
        }
    });
}

Kernel gemm(Form f, std::int64_t bm, std::int64_t bn, std::int64_t bk) {
    if (f == Form::grouped) return grouped_gemm(bm, bn, bk);
    bool nk = f == Form::linear, km = f == Form::a_transposed;
    return kernel("bench_gemm", [=](View<const bf16, 2> A, View<const bf16, 2> B, View<const bf16, 1> bias, View<bf16, 2> C) {
        auto gm = axis("block_m", ceil_div(A.extent(km ? 1 : 0), bm)), gn = axis("block_n", ceil_div(nk ? B.extent(0) : B.extent(1), bn));
        auto kt = axis("k_tiles", ceil_div(A.extent(km ? 0 : 1), bk));
        auto m = axis("m", bm), n = axis("n", bn), k = axis("k", bk);
        for (auto& nest : parallel(shape(gm, gn))) {
            auto m0 = nest.index(gm) * bm, n0 = nest.index(gn) * bn;
            auto acc = zeros<f32>(shape(m, n));
            for (auto& step : nest.pipeline(shape(kt), {.window = 3})) {
                auto k0 = step.index() * bk;
                auto b = nk ? B[coord(n0, k0), shape(n, k)] : B[coord(k0, n0), shape(k, n)];
                auto a = km ? A[coord(k0, m0), shape(k, m)] : A[coord(m0, k0), shape(m, k)];
                acc = mma(a, b, acc);
            }
            if (f == Form::bias_relu) acc = max(acc + cast<f32>(bias[coord(n0), shape(n)]), 0.0f);
            C(coord(m0, n0), shape(m, n)).store(cast<bf16>(acc));
        }
    });
}

struct Row {
    std::string name;
    double kiln = 0, peer = 0, err = 0;
    std::string tuned;            // the tuner's choice (tune mode)
    double default_over_tuned = 0;  // the row's own tile's median over the choice's, in the tuning run
    double kiln_tbs = 0;  // the operands' and result's bytes over kiln's time: the bound that matters for small M
};

// Rows whose name contains one of these '|'-separated parts run (argv[2]; empty: all);
// a part that starts with '=' names a row whole ("=4096^3": that row alone).
std::string g_only;
bool selected(const std::string& name) {
    for (std::size_t at = 0;;) {
        const std::size_t bar = g_only.find('|', at);
        const std::string part = g_only.substr(at, bar == std::string::npos ? std::string::npos : bar - at);
        if (part.starts_with('=') ? name == part.substr(1) : name.find(part) != std::string::npos) return true;
        if (bar == std::string::npos) return false;
        at = bar + 1;
    }
}
bool g_tune = false;    // argv[3] == "tune" or "retune"
bool g_retune = false;  // argv[3] == "retune": time every candidate again (its kernels may be in the cache already)

// The tiles the tuner tries: the row's own first.
std::vector<Config> tile_space(std::int64_t bm, std::int64_t bn, std::int64_t bk) {
    std::vector<Config> space = {Config{{"bm", bm}, {"bn", bn}, {"bk", bk}}};
    for (auto [m, n, k] : {std::array<std::int64_t, 3>{128, 256, 64}, {128, 128, 64}, {256, 128, 64}, {64, 256, 64}, {64, 128, 64}, {128, 64, 64},
                           {64, 64, 64}}) {
        Config c{{"bm", m}, {"bn", n}, {"bk", k}};
        if (!(c == space.front())) space.push_back(c);
    }
    return space;
}
// The stream every row enqueues on (created in main).
cudaStream_t g_stream = nullptr;

// A cuBLAS handle enqueuing on `stream`, for one row.
struct CublasOn {
    cublasHandle_t handle = nullptr;
    explicit CublasOn(cudaStream_t stream) {
        cublasCreate(&handle);
        cublasSetStream(handle, stream);
    }
    ~CublasOn() { cublasDestroy(handle); }
    CublasOn(const CublasOn&) = delete;
    CublasOn& operator=(const CublasOn&) = delete;
};

// The relative L2 error of kiln's output against cuBLAS's over a sample of `count`
// elements (`ref(i, w)`: the reference at element i from cuBLAS's value w there).
template <class Ref> double sampled_rel_l2(const Tensor<bf16>& got, const Tensor<bf16>& want, std::int64_t count, Ref ref) {
    double num = 0, den = 0;
    const std::int64_t step = std::max<std::int64_t>(1, count / 200000);
    for (std::int64_t i = 0; i < count; i += step) {
        const double w = ref(i, want.values()[static_cast<std::size_t>(i)].to_double()), x = got.values()[static_cast<std::size_t>(i)].to_double();
        if (!std::isfinite(x)) num = INFINITY;
        num += (x - w) * (x - w);
        den += w * w;
    }
    return std::sqrt(num / den);
}

// Times kiln's launch and cuBLAS's (warm-up, medians) into r: `flops` of work, `bytes`
// of operands and results (kiln's TB/s, the bound that matters for small M).
void time_row(Row& r, const std::function<void()>& launch, const std::function<void()>& cublas, double flops, double bytes, cudaStream_t stream) {
    const int reps = flops > 1e12 ? 20 : 50;
    const double kiln_ms = median_ms(launch, 3, reps, stream);
    r.kiln = flops / kiln_ms / 1e9;
    r.peer = flops / median_ms(cublas, 3, reps, stream) / 1e9;
    r.kiln_tbs = bytes / kiln_ms / 1e9;
}

void print_row(const Row& r) {
    std::printf("%-40s kiln %7.1f  cuBLAS %7.1f TFLOP/s  ratio %.3f  kiln %.2f TB/s  (rel L2 %.1e)", r.name.c_str(), r.kiln, r.peer, r.kiln / r.peer,
                r.kiln_tbs, r.err);
    if (!r.tuned.empty()) std::printf("  tuned %s, default tile %.3fx its time", r.tuned.c_str(), r.default_over_tuned);
    std::printf("\n");
    std::fflush(stdout);
}

// A row's operands: packed, or with leading dimensions rounded up to 64 elements
// (128 bytes: every TMA box row on whole cache lines), the padding unused.
enum class Lead { packed, padded };

Row run(const std::string& name, Form f, int M, int N, int K, std::int64_t bm = 128, std::int64_t bn = 256, std::int64_t bk = 64,
        Lead lead = Lead::packed) {
    if (!selected(name)) return {};
    std::mt19937 g(M * 31 + N * 7 + K);
    std::uniform_real_distribution<double> d(-1, 1);
    auto ld = [&](std::int64_t x) { return lead == Lead::padded ? (x + 63) / 64 * 64 : x; };
    const bool km = f == Form::a_transposed;
    const bool nk_storage = f == Form::linear || f == Form::b_view_t;  // B stored [N, K]
    const std::int64_t lda = km ? ld(M) : ld(K), ldb = nk_storage ? ld(K) : ld(N);
    Tensor<bf16> A(km ? std::vector<std::int64_t>{K, lda} : std::vector<std::int64_t>{M, lda}), B(nk_storage ? std::vector<std::int64_t>{N, ldb} : std::vector<std::int64_t>{K, ldb}), bias({N}), C({M, N});
    for (auto* t : {&A, &B, &bias})
        for (auto& x : t->values()) x = bf16(d(g));
    const auto Ap = A.to(cuda()), Bp = B.to(cuda()), biasd = bias.to(cuda());
    const HostView<const bf16> Ad = km ? HostView<const bf16>{Ap.data(), {K, M}, {lda, 1}, Device::cuda, 0}
                                       : HostView<const bf16>{Ap.data(), {M, K}, {lda, 1}, Device::cuda, 0};
    const HostView<const bf16> Bd = f == Form::linear     ? HostView<const bf16>{Bp.data(), {N, K}, {ldb, 1}, Device::cuda, 0}
                                   : f == Form::b_view_t ? HostView<const bf16>{Bp.data(), {K, N}, {1, ldb}, Device::cuda, 0}
                                                         : HostView<const bf16>{Bp.data(), {K, N}, {ldb, 1}, Device::cuda, 0};
    auto Cd = C.to(cuda()), Cref = C.to(cuda());
    auto k = gemm(f, bm, bn, bk);
    std::optional<Tuner> tuner;
    if (g_tune) {
        TuneOptions o;
        o.reps = 10;
        o.retune = g_retune;
        tuner.emplace("bench_gemm " + std::to_string(static_cast<int>(f)), tile_space(bm, bn, bk),
                      [f](const Config& c) { return gemm(f, c["bm"], c["bn"], c["bk"]); }, o);
    }
    // Both libraries enqueue on one stream without waiting, as inside a PyTorch
    // program: a synchronous launch would add its wait (~7 us) to every call,
    // which decides the small shapes and is not the kernel's.
    cudaStream_t stream = g_stream;
    const Target on_stream = cuda(Stream::wrap(stream));
    auto launch = [&] {
        if (tuner) tuner->launch(on_stream, Ad, Bd, biasd, Cd);
        else k.launch(on_stream, Ad, Bd, biasd, Cd);
    };
    launch();
    const CublasOn blas(stream);
    const cublasHandle_t h = blas.handle;
    float one = 1, zero = 0;
    // Row-major C = A B is column-major C^T = B^T A^T; with B [N, K] it is (B A^T)^T;
    // with A [K, M] (column-major A^T), C^T = B^T A.
    auto cublas = [&] {
        if (km)
            cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_T, N, M, K, &one, Bd.data, CUDA_R_16BF, ldb, Ad.data, CUDA_R_16BF, lda, &zero, Cref.data(),
                         CUDA_R_16BF, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
        else if (nk_storage)
            cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &one, Bd.data, CUDA_R_16BF, ldb, Ad.data, CUDA_R_16BF, lda, &zero, Cref.data(),
                         CUDA_R_16BF, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
        else
            cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, Bd.data, CUDA_R_16BF, ldb, Ad.data, CUDA_R_16BF, lda, &zero, Cref.data(),
                         CUDA_R_16BF, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    };
    cublas();
    CHECK_CUDA(cudaStreamSynchronize(stream));
    auto got = Cd.to(host()), want = Cref.to(host());
    Row r{name};
    r.err = sampled_rel_l2(got, want, static_cast<std::int64_t>(M) * N,
                           [&](std::int64_t i, double w) { return f == Form::bias_relu ? std::max(w + bias[i % N].to_double(), 0.0) : w; });
    if (tuner) {
        const TuneChoice& c = *tuner->last_choice();
        r.tuned = c.config.text();
        r.default_over_tuned = c.candidates[0].median / c.candidates[c.index].median;
    }
    time_row(r, launch, cublas, 2.0 * M * N * static_cast<double>(K), (static_cast<double>(M) * K + static_cast<double>(K) * N + 2.0 * M * N) * 2, stream);
    CHECK_CUDA(cudaStreamSynchronize(stream));
    print_row(r);
    return r;
}

// A batched GEMM as a user writes it (torch.bmm's C[b] = A[b] B[b]): 3-D views, the batch
// a grid axis, each [1, m, k] tile reshaped to [m, k]; or, with `transposed_out`, a 2-D
// GEMM storing C^T (Ct [N, M], Ct[n0, m0] of the tile: the store takes the tile's axes in
// the view's order). Against cublasGemmStridedBatchedEx / cublasGemmEx writing the same.
Kernel batched_gemm(std::int64_t bm, std::int64_t bn, std::int64_t bk) {
    return kernel("bench_bmm", [=](View<const bf16, 3> A, View<const bf16, 3> B, View<bf16, 3> C) {
        auto gb = axis("batch", A.extent(0)), gm = axis("block_m", ceil_div(A.extent(1), bm)), gn = axis("block_n", ceil_div(B.extent(2), bn));
        auto kt = axis("k_tiles", ceil_div(A.extent(2), bk));
        auto one = axis("one", 1), m = axis("m", bm), n = axis("n", bn), k = axis("k", bk);
        for (auto& nest : parallel(shape(gb, gm, gn))) {
            auto b = nest.index(gb), m0 = nest.index(gm) * bm, n0 = nest.index(gn) * bn;
            auto acc = zeros<f32>(shape(m, n));
            for (auto& step : nest.pipeline(shape(kt), {.window = 3})) {
                auto k0 = step.index() * bk;
                acc = mma(reshape(A[coord(b, m0, k0), shape(one, m, k)], shape(m, k)), reshape(B[coord(b, k0, n0), shape(one, k, n)], shape(k, n)), acc);
            }
            C(coord(b, m0, n0), shape(one, m, n)).store(reshape(cast<bf16>(acc), shape(one, m, n)));
        }
    });
}
Kernel transposed_out_gemm(std::int64_t bm, std::int64_t bn, std::int64_t bk) {
    return kernel("bench_gemm_ct", [=](View<const bf16, 2> A, View<const bf16, 2> B, View<bf16, 2> Ct) {
        auto gm = axis("block_m", ceil_div(A.extent(0), bm)), gn = axis("block_n", ceil_div(B.extent(1), bn)), kt = axis("k_tiles", ceil_div(A.extent(1), bk));
        auto m = axis("m", bm), n = axis("n", bn), k = axis("k", bk);
        for (auto& nest : parallel(shape(gm, gn))) {
            auto m0 = nest.index(gm) * bm, n0 = nest.index(gn) * bn;
            auto acc = zeros<f32>(shape(m, n));
            for (auto& step : nest.pipeline(shape(kt), {.window = 3})) {
                auto k0 = step.index() * bk;
                acc = mma(A[coord(m0, k0), shape(m, k)], B[coord(k0, n0), shape(k, n)], acc);
            }
            Ct(coord(n0, m0), shape(n, m)).store(cast<bf16>(acc));
        }
    });
}

// `batch` GEMMs of M x N x K (batch 0: one GEMM storing C^T). `pitch` > 0: every
// matrix's rows `pitch` elements apart (a multiple of 64: whole 128-byte lines), to
// tell the cost of rows that straddle lines from that of the ragged extents.
Row run_batched(const std::string& name, int batch, int M, int N, int K, int pitch = 0) {
    if (!selected(name)) return {};
    const bool ct = batch == 0;
    const std::int64_t nb = ct ? 1 : batch, pa = pitch ? pitch : K, pb = pitch ? pitch : N, pc = pitch ? pitch : N;
    std::mt19937 g(M * 31 + N * 7 + K + batch);
    std::uniform_real_distribution<double> d(-1, 1);
    Tensor<bf16> A({nb, M, pa}), B({nb, K, pb}), C({nb, M, pc});
    for (auto* t : {&A, &B})
        for (auto& x : t->values()) x = bf16(d(g));
    const auto Ad = A.to(cuda()), Bd = B.to(cuda());
    auto Cd = C.to(cuda()), Cref = C.to(cuda());
    cudaStream_t stream = g_stream;
    const Target on_stream = cuda(Stream::wrap(stream));
    const Kernel k = ct ? transposed_out_gemm(128, 128, 64) : batched_gemm(128, 256, 64);
    const HostView<const bf16> A2{Ad.data(), {M, K}, {K, 1}, Device::cuda, 0}, B2{Bd.data(), {K, N}, {N, 1}, Device::cuda, 0};
    const HostView<bf16> Ct2{Cd.data(), {N, M}, {M, 1}, Device::cuda, 0};
    const HostView<const bf16> A3{Ad.data(), {nb, M, K}, {M * pa, pa, 1}, Device::cuda, 0}, B3{Bd.data(), {nb, K, N}, {K * pb, pb, 1}, Device::cuda, 0};
    const HostView<bf16> C3{Cd.data(), {nb, M, N}, {M * pc, pc, 1}, Device::cuda, 0};
    auto launch = [&] {
        if (ct) k.launch(on_stream, A2, B2, Ct2);
        else k.launch(on_stream, A3, B3, C3);
    };
    launch();
    const CublasOn blas(stream);
    const cublasHandle_t h = blas.handle;
    float one = 1, zero = 0;
    // Row-major C[b] = A[b] B[b] is column-major C^T = B^T A^T per batch; C^T stored
    // row-major [N, M] is column-major C = (A^T)^T (B^T)^T.
    auto cublas = [&] {
        if (ct)
            cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_T, M, N, K, &one, Ad.data(), CUDA_R_16BF, K, Bd.data(), CUDA_R_16BF, N, &zero, Cref.data(), CUDA_R_16BF, M,
                         CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
        else
            cublasGemmStridedBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, Bd.data(), CUDA_R_16BF, pb, static_cast<long long>(K) * pb, Ad.data(),
                                       CUDA_R_16BF, pa, static_cast<long long>(M) * pa, &zero, Cref.data(), CUDA_R_16BF, pc, static_cast<long long>(M) * pc, batch,
                                       CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    };
    cublas();
    CHECK_CUDA(cudaStreamSynchronize(stream));
    auto got = Cd.to(host()), want = Cref.to(host());
    Row r{name};
    // (The padding past N in each row is zero in both: neither writes it.)
    r.err = sampled_rel_l2(got, want, nb * M * pc, [](std::int64_t, double w) { return w; });
    time_row(r, launch, cublas, 2.0 * static_cast<double>(nb) * M * N * static_cast<double>(K),
             static_cast<double>(nb) * (static_cast<double>(M) * K + static_cast<double>(K) * N + static_cast<double>(M) * N) * 2, stream);
    CHECK_CUDA(cudaStreamSynchronize(stream));
    print_row(r);
    return r;
}

// An int8 GEMM as a quantised linear layer is written: Y [M, N] (i32) = X [M, K] W^T with
// X and W [N, K] i8, tile 128x256x128 (128 bytes of k a step) unless the row says otherwise. Against cublasGemmEx with
// CUDA_R_8I operands and CUBLAS_COMPUTE_32I (TN, the layout cuBLAS's int8 kernels
// take, as wgmma's). Integer sums: kiln's output must equal cuBLAS's bit for bit
// (rel L2 reports the count of differing elements over the whole output instead).
// With `b_kn`, the weight is an i8 B stored [K, N] (Y = X B, as a plain GEMM is
// written): wgmma reads 8-bit operands K-major only, so kiln copies B transposed at
// every launch (gemm_staging.h), and the peer is still cublasGemmEx TN on B's
// transpose [N, K] made once, untimed (the layout cuBLAS's int8 kernels take).
Row run_int8(const std::string& name, int M, int N, int K, std::int64_t bm = 128, std::int64_t bn = 256, bool b_kn = false) {
    if (!selected(name)) return {};
    std::mt19937 g(M * 31 + N * 7 + K);
    std::uniform_int_distribution<int> d(-128, 127);
    Tensor<i8> X({M, K}), W({N, K}), B(b_kn ? std::vector<std::int64_t>{K, N} : std::vector<std::int64_t>{1, 1});
    Tensor<i32> Y({M, N});
    for (auto* t : {&X, &W})
        for (auto& x : t->values()) x = static_cast<std::int8_t>(d(g));
    if (b_kn)
        for (std::int64_t kk = 0; kk < K; ++kk)
            for (std::int64_t nn = 0; nn < N; ++nn) B.values()[kk * N + nn] = W.values()[nn * K + kk];
    const auto Xd = X.to(cuda()), Wd = W.to(cuda()), Bd = B.to(cuda());
    auto Yd = Y.to(cuda()), Yref = Y.to(cuda());
    auto k = kernel(b_kn ? "bench_gemm_i8_kn" : "bench_gemm_i8", [=](View<const i8, 2> x, View<const i8, 2> w, View<i32, 2> y) {
        constexpr std::int64_t bk = 128;
        auto gm = axis("block_m", ceil_div(x.extent(0), bm)), gn = axis("block_n", ceil_div(y.extent(1), bn));
        auto kt = axis("k_tiles", ceil_div(x.extent(1), bk));
        auto m = axis("m", bm), n = axis("n", bn), kk = axis("k", bk);
        for (auto& nest : parallel(shape(gm, gn))) {
            auto m0 = nest.index(gm) * bm, n0 = nest.index(gn) * bn;
            auto acc = zeros<i32>(shape(m, n));
            for (auto& step : nest.pipeline(shape(kt), {.window = 3})) {
                auto k0 = step.index() * bk;
                auto b = b_kn ? w[coord(k0, n0), shape(kk, n)] : w[coord(n0, k0), shape(n, kk)];
                acc = mma(x[coord(m0, k0), shape(m, kk)], b, acc);
            }
            y(coord(m0, n0), shape(m, n)).store(acc);
        }
    });
    cudaStream_t stream = g_stream;
    const Target on_stream = cuda(Stream::wrap(stream));
    auto launch = [&] { k.launch(on_stream, std::as_const(Xd).view(), std::as_const(b_kn ? Bd : Wd).view(), Yd.view()); };
    launch();
    const CublasOn blas(stream);
    int one = 1, zero = 0;
    // Row-major Y = X W^T is column-major Y^T = W X^T: W^T's storage is W [N, K] read transposed.
    auto cublas = [&] {
        cublasGemmEx(blas.handle, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &one, Wd.data(), CUDA_R_8I, K, Xd.data(), CUDA_R_8I, K, &zero, Yref.data(), CUDA_R_32I,
                     N, CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT);
    };
    cublas();
    CHECK_CUDA(cudaStreamSynchronize(stream));
    const auto got = Yd.to(host()), want = Yref.to(host());
    Row r{name};
    std::int64_t differ = 0;
    for (std::size_t i = 0; i < got.values().size(); ++i) differ += got.values()[i] != want.values()[i];
    r.err = static_cast<double>(differ);
    time_row(r, launch, cublas, 2.0 * M * N * static_cast<double>(K), static_cast<double>(M) * K + static_cast<double>(K) * N + 4.0 * M * N, stream);
    CHECK_CUDA(cudaStreamSynchronize(stream));
    print_row(r);
    return r;
}

// An f32 GEMM whose mma allows tf32 (Y = A B, B [K, N], as torch.matmul with
// allow_tf32; or X W^T with W [N, K]), f32 out, tile 128x256x32, against cublasGemmEx
// with CUBLAS_COMPUTE_32F_FAST_TF32 in the same layout. kiln's wgmma reads tf32
// K-major only: it copies a B [K, N] transposed at every launch (timed). Both outputs
// against an f64 product of the f32 inputs: "rel L2" is kiln's, and the row prints
// cuBLAS's beside it.
Row run_tf32(const std::string& name, int M, int N, int K, bool linear) {
    if (!selected(name)) return {};
    std::mt19937 g(M * 31 + N * 7 + K + 5);
    std::uniform_real_distribution<float> d(-1, 1);
    Tensor<f32> A({M, K}), B(linear ? std::vector<std::int64_t>{N, K} : std::vector<std::int64_t>{K, N}), C({M, N});
    for (auto* t : {&A, &B})
        for (auto& x : t->values()) x = d(g);
    const auto Ad = A.to(cuda()), Bd = B.to(cuda());
    auto Cd = C.to(cuda()), Cref = C.to(cuda());
    constexpr std::int64_t bm = 128, bn = 256, bk = 32;
    auto k = kernel(linear ? "bench_gemm_tf32_linear" : "bench_gemm_tf32", [=](View<const f32, 2> a, View<const f32, 2> b, View<f32, 2> c) {
        auto gm = axis("block_m", ceil_div(a.extent(0), bm)), gn = axis("block_n", ceil_div(c.extent(1), bn));
        auto kt = axis("k_tiles", ceil_div(a.extent(1), bk));
        auto m = axis("m", bm), n = axis("n", bn), kk = axis("k", bk);
        for (auto& nest : parallel(shape(gm, gn))) {
            auto m0 = nest.index(gm) * bm, n0 = nest.index(gn) * bn;
            auto acc = zeros<f32>(shape(m, n));
            for (auto& step : nest.pipeline(shape(kt), {.window = 3})) {
                auto k0 = step.index() * bk;
                auto w = linear ? b[coord(n0, k0), shape(n, kk)] : b[coord(k0, n0), shape(kk, n)];
                acc = mma(a[coord(m0, k0), shape(m, kk)], w, acc, MmaOptions{.allow_tf32 = true});
            }
            c(coord(m0, n0), shape(m, n)).store(acc);
        }
    });
    cudaStream_t stream = g_stream;
    const Target on_stream = cuda(Stream::wrap(stream));
    auto launch = [&] { k.launch(on_stream, std::as_const(Ad).view(), std::as_const(Bd).view(), Cd.view()); };
    launch();
    const CublasOn blas(stream);
    float one = 1, zero = 0;
    // Row-major C = A B is column-major C^T = B^T A^T; with W [N, K], C^T = W A^T read transposed.
    auto cublas = [&] {
        cublasGemmEx(blas.handle, linear ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &one, Bd.data(), CUDA_R_32F, linear ? K : N, Ad.data(),
                     CUDA_R_32F, K, &zero, Cref.data(), CUDA_R_32F, N, CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT);
    };
    cublas();
    CHECK_CUDA(cudaStreamSynchronize(stream));
    const auto got = Cd.to(host()), want = Cref.to(host());
    // An f64 reference on 4096 sampled elements.
    std::mt19937 pick(7);
    std::uniform_int_distribution<std::int64_t> at(0, static_cast<std::int64_t>(M) * N - 1);
    double e_kiln = 0, e_blas = 0, norm = 0;
    for (int s = 0; s < 4096; ++s) {
        const std::int64_t i = at(pick), r = i / N, c = i % N;
        double ref = 0;
        for (std::int64_t q = 0; q < K; ++q)
            ref += static_cast<double>(A.values()[r * K + q]) * static_cast<double>(linear ? B.values()[c * K + q] : B.values()[q * N + c]);
        e_kiln += (got.values()[i] - ref) * (got.values()[i] - ref);
        e_blas += (want.values()[i] - ref) * (want.values()[i] - ref);
        norm += ref * ref;
    }
    Row r{name};
    r.err = std::sqrt(e_kiln / norm);
    time_row(r, launch, cublas, 2.0 * M * N * static_cast<double>(K), (static_cast<double>(M) * K + static_cast<double>(K) * N + static_cast<double>(M) * N) * 4,
             stream);
    CHECK_CUDA(cudaStreamSynchronize(stream));
    print_row(r);
    std::printf("    cuBLAS rel L2 against f64 %.1e\n", std::sqrt(e_blas / norm));
    return r;
}

}  // namespace

int main(int argc, char** argv) {
    const char* out = argc > 1 ? argv[1] : "bench-gemm.json";
    if (argc > 2) g_only = argv[2];
    g_tune = argc > 3 && (std::string(argv[3]) == "tune" || std::string(argv[3]) == "retune");
    g_retune = argc > 3 && std::string(argv[3]) == "retune";
    CHECK_CUDA(cudaStreamCreate(&g_stream));
    if (!cuda().available()) {
        std::fprintf(stderr, "no CUDA device: %s\n", cuda().unavailable_reason().c_str());
        return 2;
    }
    std::vector<Row> rows;
    rows.push_back(run("2048^3", Form::plain, 2048, 2048, 2048));
    rows.push_back(run("4096^3", Form::plain, 4096, 4096, 4096));
    rows.push_back(run("4096^3 tile 128x128x64", Form::plain, 4096, 4096, 4096, 128, 128, 64));
    rows.push_back(run("8192^3", Form::plain, 8192, 8192, 8192));
    rows.push_back(run("3000x5000x7000", Form::plain, 3000, 5000, 7000));
    rows.push_back(run("3000x5000x7000 (leading dims padded to 128 B)", Form::plain, 3000, 5000, 7000, 128, 256, 64, Lead::padded));
    rows.push_back(run("4096x14336x4096", Form::plain, 4096, 14336, 4096));
    rows.push_back(run("128x14336x4096", Form::plain, 128, 14336, 4096));
    rows.push_back(run("16x4096x4096 (decode)", Form::plain, 16, 4096, 4096));
    rows.push_back(run("16x4096x4096 X W^T (decode, linear)", Form::linear, 16, 4096, 4096));
    rows.push_back(run("64x8192x8192 relu(A B + bias[n])", Form::bias_relu, 64, 8192, 8192));
    // More small-M shapes (the tile kiln picks for them: gemm_schedule.h, launch_tile).
    rows.push_back(run("1x4096x4096 (small M)", Form::plain, 1, 4096, 4096));
    rows.push_back(run("32x4096x4096 (small M)", Form::plain, 32, 4096, 4096));
    rows.push_back(run("64x4096x4096 (small M)", Form::plain, 64, 4096, 4096));
    rows.push_back(run("16x8192x8192 X W^T (small M)", Form::linear, 16, 8192, 8192));
    rows.push_back(run("48x14336x4096 (small M)", Form::plain, 48, 14336, 4096));
    rows.push_back(run("64x28672x8192 X W^T (small M)", Form::linear, 64, 28672, 8192));
    rows.push_back(run("16x1024x8192 (small M)", Form::plain, 16, 1024, 8192));
    // Held out: not among the shapes launch_tile's widths were fitted to.
    rows.push_back(run("8x11008x4096 (small M, held out)", Form::plain, 8, 11008, 4096));
    rows.push_back(run("40x5120x5120 X W^T (small M, held out)", Form::linear, 40, 5120, 5120));
    rows.push_back(run("24x2560x10240 (small M, held out)", Form::plain, 24, 2560, 10240));
    rows.push_back(run("56x16384x2048 relu(A B + bias[n]) (small M, held out)", Form::bias_relu, 56, 16384, 2048));
    rows.push_back(run("4096^3 relu(A B + bias[n])", Form::bias_relu, 4096, 4096, 4096));
    rows.push_back(run("4096^3 X W^T (W [N, K])", Form::linear, 4096, 4096, 4096));
    rows.push_back(run("4096x14336x4096 X W^T", Form::linear, 4096, 14336, 4096));
    // The plain kernel given B as a transposed view of [N, K] storage (strides (1, K)).
    rows.push_back(run("4096^3 A B, B a view of w.t()", Form::b_view_t, 4096, 4096, 4096));
    rows.push_back(run("4096x14336x4096 A B, B a view of w.t()", Form::b_view_t, 4096, 14336, 4096));
    rows.push_back(run("8191^3 (odd leading dimensions)", Form::plain, 8191, 8191, 8191));
    rows.push_back(run("4096^3 grouped order (Triton's tutorial, 1-D grid)", Form::grouped, 4096, 4096, 4096));
    rows.push_back(run("3000x5000x7000 grouped order (Triton's tutorial, 1-D grid)", Form::grouped, 3000, 5000, 7000));
    rows.push_back(run("4096^3 A^T B (A [K, M])", Form::a_transposed, 4096, 4096, 4096));
    rows.push_back(run("3000x5000x7000 A^T B (A [K, M])", Form::a_transposed, 3000, 5000, 7000));
    rows.push_back(run("4096x14336x4096 A^T B (A [K, M])", Form::a_transposed, 4096, 14336, 4096));
    rows.push_back(run_batched("bmm 8 x 2048^3", 8, 2048, 2048, 2048));
    rows.push_back(run_batched("bmm 64 x 512x512x512", 64, 512, 512, 512));
    rows.push_back(run_batched("bmm 32 x 1000x1000x1000 (ragged)", 32, 1000, 1000, 1000));
    rows.push_back(run_batched("bmm 32 x 1000x1000x1000 on rows of 1024", 32, 1000, 1000, 1000, 1024));
    rows.push_back(run_batched("bmm 32 x 1024x1024x1024", 32, 1024, 1024, 1024));
    // Rows of 1001 bf16 (2002 bytes): no TMA in place, A packed; rows of 3000 and 2000
    // bf16 straddle 128-byte lines, packed where the model says the copy pays.
    rows.push_back(run_batched("bmm 32 x 1000x1000x1001 (odd K)", 32, 1000, 1000, 1001));
    rows.push_back(run_batched("bmm 8 x 2000x3000x3000 (rows straddle lines)", 8, 2000, 3000, 3000));
    rows.push_back(run_batched("4096^3 C^T stored (Ct [N, M])", 0, 4096, 4096, 4096));
    // int8 (TOPS in the TFLOP/s columns; "rel L2" is the count of elements that differ).
    rows.push_back(run_int8("i8 4096^3 X W^T -> i32", 4096, 4096, 4096));
    rows.push_back(run_int8("i8 8192^3 X W^T -> i32", 8192, 8192, 8192));
    rows.push_back(run_int8("i8 4096x14336x4096 X W^T -> i32", 4096, 14336, 4096));
    rows.push_back(run_int8("i8 4096^3 X W^T -> i32 tile 128x128x128", 4096, 4096, 4096, 128, 128));
    rows.push_back(run_int8("i8 4096x14336x4096 X W^T -> i32 tile 128x128x128", 4096, 14336, 4096, 128, 128));
    rows.push_back(run_int8("i8 3000x5000x7000 X W^T -> i32 (rows of 7000 bytes, staged)", 3000, 5000, 7000));
    rows.push_back(run_int8("i8 64x8192x8192 X W^T -> i32 (small M)", 64, 8192, 8192));
    // f32 with tf32 allowed, against cuBLAS's FAST_TF32.
    rows.push_back(run_tf32("tf32 4096^3 A B (B [K, N])", 4096, 4096, 4096, false));
    rows.push_back(run_tf32("tf32 8192^3 A B (B [K, N])", 8192, 8192, 8192, false));
    rows.push_back(run_tf32("tf32 4096^3 X W^T (W [N, K])", 4096, 4096, 4096, true));
    rows.push_back(run_tf32("tf32 4096x14336x4096 X W^T", 4096, 14336, 4096, true));
    rows.push_back(run_tf32("tf32 3000x5000x7000 A B", 3000, 5000, 7000, false));
    // B stored [K, N]: copied transposed by kiln at every launch (timed), cuBLAS TN on B^T.
    rows.push_back(run_int8("i8 4096^3 X B -> i32 (B [K, N])", 4096, 4096, 4096, 128, 256, true));
    rows.push_back(run_int8("i8 8192^3 X B -> i32 (B [K, N])", 8192, 8192, 8192, 128, 256, true));
    rows.push_back(run_int8("i8 4096x14336x4096 X B -> i32 (B [K, N])", 4096, 14336, 4096, 128, 256, true));
    rows.push_back(run_int8("i8 3000x5000x7000 X B -> i32 (B [K, N])", 3000, 5000, 7000, 128, 256, true));
    nlohmann::json json = nlohmann::json::array();
    for (const Row& r : rows) {
        if (r.name.empty()) continue;
        nlohmann::json row = {{"shape", r.name}, {"kiln_tflops", r.kiln}, {"cublas_tflops", r.peer}, {"ratio", r.kiln / r.peer}, {"kiln_tbs", r.kiln_tbs}, {"rel_l2", r.err}};
        if (!r.tuned.empty()) row.update({{"tuned", r.tuned}, {"default_over_tuned", r.default_over_tuned}});
        json.push_back(std::move(row));
    }
    std::ofstream file(out);
    file << json.dump(2) << "\n";
    return file.flush() ? 0 : 1;
}
