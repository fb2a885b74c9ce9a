// kiln's attention on an H200, on the shapes: B=4 H=32 S=4096 at head dims 128
// (full and causal), 64 (grouped-query, 8 KV heads) and 256, and a ragged causal
// 3000 x 3001, in bf16 and f16, with the catalog's kernel (examples/attention_bf16.h:
// an online softmax in a pipeline over 4-D views, written as a user writes it).
// Correctness first: 64 sampled query rows of every shape (first, last and random
// rows of random heads) against an f64 reference on the host, relative L2 error
// printed (the bar: <= 1e-2), with the first launch's time (the cold compile, where the
// cache is empty); then the median of 20 launches after 3 warm-ups by CUDA
// events. Peers run in the same call (bench/attention_peers.py, scripts/gpu-attention.sh).
//     kiln_attention_bench out.json [FILTER [PRECISION]]
// FILTER: rows whose label holds it ("bf16", "d128", "causal"; "" for all); PRECISION:
// standard (the default) or fast (exp on the SFU with the scale folded in, docs/semantics.md).
// FILTER "forms": instead, the same attention written other ways (tests/variants/: exp2,
// a reciprocal rescale, Q scaled first, a log-sum-exp stored too, the sequence-major
// layout; ALiBi) at bf16 4x32x4096x4096 d128, each checked against the plain form's output
// and timed beside it.
#include <chrono>
#include <functional>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <kiln/kiln.h>

#include "cuda_timing.h"
#include "examples/attention_bf16.h"
#include "tests/variants/attention_variants.h"

using namespace kiln;

namespace {

struct Problem {
    std::int64_t b, h, sq, sk, d, hkv;
    bool causal;
    std::int64_t block_q, block_k;
};

std::string label(const Problem& s, const char* kind) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "%s %lldx%lldx%lldx%lld d%lld kv%lld %s", kind, (long long)s.b, (long long)s.h, (long long)s.sq, (long long)s.sk,
                  (long long)s.d, (long long)s.hkv, s.causal ? "causal" : "full");
    return buf;
}

template <class T> double run(const Problem& s, const char* kind, FILE* json, bool& first, const char* filter, Precision precision) {
    if (filter && label(s, kind).find(filter) == std::string::npos) return 0;
    const std::int64_t group = s.h / s.hkv;
    Tensor<T> q({s.b, s.h, s.sq, s.d}), k({s.b, s.hkv, s.sk, s.d}), v({s.b, s.hkv, s.sk, s.d}), o({s.b, s.h, s.sq, s.d});
    std::mt19937_64 rng(static_cast<std::uint64_t>(s.sq * 131 + s.d));
    std::uniform_real_distribution<float> wide(-2, 2), unit(-1, 1);
    for (auto* t : {&q, &k}) for (auto& x : t->values()) x = T(wide(rng));
    for (auto& x : v.values()) x = T(unit(rng));
    const auto qd = q.to(cuda()), kd = k.to(cuda()), vd = v.to(cuda());
    auto od = o.to(cuda());
    catalog::AttentionConfig cfg{s.block_q, s.block_k, group, s.causal, static_cast<float>(1.0 / std::sqrt(double(s.d))), 0};
    Kernel kern = catalog::make_attention_kernel<T>("attention_bench", cfg);
    auto launch = [&] { kern.launch(cuda(), precision, qd, kd, vd, od); };
    // The first launch traces, compiles (unless KILN_CACHE_DIR holds the kernel) and runs:
    // with an empty cache its time is the cold compile a user waits for.
    const auto t0 = std::chrono::steady_clock::now();
    launch();
    Tensor<T> out = od.to(host());
    const double first_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    // Sampled rows against f64.
    double err2 = 0, ref2 = 0;
    std::uniform_int_distribution<std::int64_t> pick_bh(0, s.b * s.h - 1), pick_row(0, s.sq - 1);
    for (int r = 0; r < 64; ++r) {
        const std::int64_t bh = pick_bh(rng), i = r == 0 ? 0 : r == 1 ? s.sq - 1 : pick_row(rng);
        const std::int64_t bb = bh / s.h, hh = bh % s.h, kvh = bb * s.hkv + hh / group;
        const T* qi = q.values().data() + (bh * s.sq + i) * s.d;
        const std::int64_t visible = s.causal ? std::min(i + 1, s.sk) : s.sk;
        std::vector<double> w(static_cast<std::size_t>(visible));
        double peak = -INFINITY, total = 0;
        for (std::int64_t j = 0; j < visible; ++j) {
            const T* kj = k.values().data() + (kvh * s.sk + j) * s.d;
            double dot = 0;
            for (std::int64_t e = 0; e < s.d; ++e) dot += double(float(qi[e])) * double(float(kj[e]));
            w[j] = dot * cfg.scale;
            peak = std::max(peak, w[j]);
        }
        for (auto& x : w) total += (x = std::exp(x - peak));
        for (std::int64_t e = 0; e < s.d; ++e) {
            double ref = 0;
            for (std::int64_t j = 0; j < visible; ++j) ref += w[j] * double(float(v.values()[(kvh * s.sk + j) * s.d + e]));
            ref /= total;
            const double got = double(float(out.values()[(bh * s.sq + i) * s.d + e]));
            err2 += (got - ref) * (got - ref);
            ref2 += ref * ref;
        }
    }
    const double rel_l2 = std::sqrt(err2 / ref2);
    const double ms = median_ms(launch, 3, 20);
    const double flops = 4.0 * s.b * s.h * s.sq * s.sk * s.d / (s.causal ? 2 : 1);
    const double tflops = flops / ms / 1e9;
    std::printf("%-5s %-8s %lldx%lldx%lldx%lld d%lld kv%lld %-6s blocks %lldx%lld  %8.3f ms  %6.1f TFLOP/s  rel_l2 %.2e %s  first launch %.2f s\n", kind,
                std::string(precision_name(precision)).c_str(), (long long)s.b,
                (long long)s.h, (long long)s.sq, (long long)s.sk, (long long)s.d, (long long)s.hkv, s.causal ? "causal" : "full",
                (long long)s.block_q, (long long)s.block_k, ms, tflops, rel_l2, rel_l2 <= 1e-2 ? "ok" : "FAIL", first_s);
    std::fflush(stdout);
    std::fprintf(json, "%s{\"dtype\": \"%s\", \"precision\": \"%s\", \"shape\": \"%lldx%lldx%lldx%lld d%lld kv%lld\", \"causal\": %s, \"blocks\": \"%lldx%lld\", \"ms\": %.5f, \"tflops\": %.2f, \"rel_l2\": %.3e, \"first_launch_s\": %.3f}",
                 first ? "" : ",\n", kind, std::string(precision_name(precision)).c_str(), (long long)s.b, (long long)s.h, (long long)s.sq, (long long)s.sk, (long long)s.d, (long long)s.hkv,
                 s.causal ? "true" : "false", (long long)s.block_q, (long long)s.block_k, ms, tflops, rel_l2, first_s);
    first = false;
    return rel_l2;
}

// The forms (FILTER "forms"): each launched once and compared with the plain form's
// output (relative L2; the ALiBi form's scores differ, so it is timed only), then timed.
bool forms(FILE* json, bool& first, Precision precision) {
    namespace va = variants::attention;
    const std::int64_t B = 4, H = 32, S = 4096, D = 128;
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<float> wide(-2, 2), unit(-1, 1);
    Tensor<bf16> q({B, H, S, D}), k({B, H, S, D}), v({B, H, S, D}), o({B, H, S, D});
    for (auto* t : {&q, &k}) for (auto& x : t->values()) x = bf16(wide(rng));
    for (auto& x : v.values()) x = bf16(unit(rng));
    // The same tensors in the sequence-major layout [B, S, H, D].
    auto sequence_major = [&](const Tensor<bf16>& t) {
        Tensor<bf16> s({B, S, H, D});
        for (std::int64_t b = 0; b < B; ++b)
            for (std::int64_t h = 0; h < H; ++h)
                for (std::int64_t i = 0; i < S; ++i)
                    for (std::int64_t e = 0; e < D; ++e) s.values()[((b * S + i) * H + h) * D + e] = t.values()[((b * H + h) * S + i) * D + e];
        return s;
    };
    Tensor<f32> lse({B, H, S}), slopes({H});
    for (std::int64_t h = 0; h < H; ++h) slopes.values()[h] = std::exp2(-8.0f * static_cast<float>(h + 1) / static_cast<float>(H));
    const auto qd = q.to(cuda()), kd = k.to(cuda()), vd = v.to(cuda());
    const auto sd = slopes.to(cuda());
    const auto qs = sequence_major(q).to(cuda()), ks = sequence_major(k).to(cuda()), vs = sequence_major(v).to(cuda());
    auto od = o.to(cuda()), os = sequence_major(o).to(cuda());
    auto lsed = lse.to(cuda());
    const Kernel plain = va::fa_q128_k64(), exp2 = va::fa_scale_in_exp2(), recip = va::fa_alpha_recip(), scaled_q = va::fa_scale_q_bf16(),
                 with_lse = va::fa_lse(), bshd = va::fa_bshd(), alibi = va::fa_alibi();
    struct Form {
        const char* name;
        std::function<void()> launch;
        bool compared, sequence_major, causal;
    };
    const std::vector<Form> all = {
        {"plain", [&] { plain.launch(cuda(), precision, qd, kd, vd, od); }, true, false, false},
        {"exp2 (pow(2, ..))", [&] { exp2.launch(cuda(), precision, qd, kd, vd, od); }, true, false, false},
        {"rescale 1 / exp", [&] { recip.launch(cuda(), precision, qd, kd, vd, od); }, true, false, false},
        {"Q scaled first", [&] { scaled_q.launch(cuda(), precision, qd, kd, vd, od); }, true, false, false},
        {"log-sum-exp stored", [&] { with_lse.launch(cuda(), precision, qd, kd, vd, od, lsed); }, true, false, false},
        {"sequence-major", [&] { bshd.launch(cuda(), precision, qs, ks, vs, os); }, true, true, false},
        {"ALiBi, causal (timed only)", [&] { alibi.launch(cuda(), precision, qd, kd, vd, sd, od); }, false, false, true}};
    std::vector<float> reference;
    double plain_ms = 0;
    bool ok = true;
    for (const Form& f : all) {
        f.launch();
        std::vector<float> got;
        const Tensor<bf16> out = f.sequence_major ? os.to(host()) : od.to(host());
        got.reserve(static_cast<std::size_t>(out.values().size()));
        for (std::int64_t b = 0; b < B; ++b)
            for (std::int64_t h = 0; h < H; ++h)
                for (std::int64_t i = 0; i < S; ++i)
                    for (std::int64_t e = 0; e < D; ++e)
                        got.push_back(float(out.values()[f.sequence_major ? ((b * S + i) * H + h) * D + e : ((b * H + h) * S + i) * D + e]));
        double rel_l2 = 0;
        if (reference.empty()) {
            reference = got;
        } else if (f.compared) {
            double num = 0, den = 0;
            for (std::size_t i = 0; i < got.size(); ++i) {
                num += (double(got[i]) - reference[i]) * (double(got[i]) - reference[i]);
                den += double(reference[i]) * reference[i];
            }
            rel_l2 = std::sqrt(num / den);
            ok &= rel_l2 <= 1e-2;
        }
        const double ms = median_ms(f.launch, 3, 20);
        if (plain_ms == 0) plain_ms = ms;
        const double tflops = 4.0 * B * H * S * S * D / (f.causal ? 2 : 1) / ms / 1e9;
        std::printf("forms bf16 %-8s 4x32x4096x4096 d128 %-28s %8.3f ms  %6.1f TFLOP/s  %.3fx the plain form's time  rel_l2 vs plain %.2e\n",
                    std::string(precision_name(precision)).c_str(), f.name, ms, tflops, ms / plain_ms, rel_l2);
        std::fflush(stdout);
        std::fprintf(json, "%s{\"form\": \"%s\", \"precision\": \"%s\", \"shape\": \"4x32x4096x4096 d128\", \"ms\": %.5f, \"tflops\": %.2f, \"rel_l2_vs_plain\": %.3e}",
                     first ? "" : ",\n", f.name, std::string(precision_name(precision)).c_str(), ms, tflops, rel_l2);
        first = false;
    }
    return ok;
}

}  // namespace

int main(int argc, char** argv) {
    if (!cuda().available()) {
        std::fprintf(stderr, "no CUDA device: %s\n", cuda().unavailable_reason().c_str());
        return 2;
    }
    FILE* json = std::fopen(argc > 1 ? argv[1] : "attention.json", "w");
    std::fprintf(json, "{\"rows\": [\n");
    // The peers' shapes (bench/attention_peers.py), with the blocks a user would pick.
    const std::vector<Problem> shapes = {{4, 32, 4096, 4096, 128, 32, false, 128, 128}, {4, 32, 4096, 4096, 128, 32, true, 128, 128},
                                       {4, 32, 4096, 4096, 64, 8, false, 128, 128},   {2, 16, 3000, 3001, 128, 16, true, 64, 64},
                                       {4, 32, 4096, 4096, 256, 32, false, 128, 64},
                                       // The headline causal shape as written with 64-row, 64-key blocks.
                                       {4, 32, 4096, 4096, 128, 32, true, 64, 64},
                                       // ... and with 32-key blocks from -inf (re-blocked onto the kernel's 128).
                                       {4, 32, 4096, 4096, 128, 32, true, 128, 32},
                                       // The sequence sweep at d 128: 16k tokens a batch, full and causal.
                                       {16, 32, 1024, 1024, 128, 32, false, 128, 128}, {16, 32, 1024, 1024, 128, 32, true, 128, 128},
                                       {8, 32, 2048, 2048, 128, 32, false, 128, 128},  {8, 32, 2048, 2048, 128, 32, true, 128, 128},
                                       {2, 32, 8192, 8192, 128, 32, false, 128, 128},  {2, 32, 8192, 8192, 128, 32, true, 128, 128},
                                       {1, 32, 16384, 16384, 128, 32, false, 128, 128}, {1, 32, 16384, 16384, 128, 32, true, 128, 128},
                                       // Head dims of no whole 64-channel boxes (computed padded: attention_kernel_head_dim).
                                       {4, 32, 4096, 4096, 96, 32, false, 128, 128}, {4, 32, 4096, 4096, 80, 32, true, 128, 128}};
    bool first = true, ok = true;
    const char* filter = argc > 2 && argv[2][0] ? argv[2] : nullptr;
    const auto precision = precision_named(argc > 3 ? argv[3] : "standard");
    if (!precision) {
        std::fprintf(stderr, "precision '%s': exact, standard or fast\n", argv[3]);
        return 2;
    }
    if (filter && std::string(filter) == "forms") {
        ok = forms(json, first, *precision);
    } else {
        for (const auto& s : shapes) ok &= run<bf16>(s, "bf16", json, first, filter, *precision) <= 1e-2;
        for (const auto& s : shapes) ok &= run<f16>(s, "f16", json, first, filter, *precision) <= 1e-2;
    }
    std::fprintf(json, "\n]}\n");
    std::fclose(json);
    return ok ? 0 : 1;
}
