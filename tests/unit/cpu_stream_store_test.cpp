// Stores to views larger than the last-level cache write around the caches
// (cpu_prelude.h: stream_store; EmitOptions::stream_stores): which stores take the
// path, and that they write the interpreter's bytes. The ctest entry
// kiln_unit_tests_cpu_stream_stores runs the cpu tests again with
// KILN_CPU_STREAM_STORES=2 (every contiguous view streamed), bit for bit against
// the interpreter; the launches here are small, so in the plain run they take the
// ordinary stores.
#include <cstdlib>

#include "cpu_diff.h"
#include "cpu_source.h"
#include "targets/cpu/emit_cpp.h"
#include "targets/cpu/launch_plan.h"

using namespace kiln;
using cpu_diff::Buffer;
using cpu_diff::expect_same;
using cpu_diff::input;
using cpu_diff::output;

namespace {

bool contains(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

// y = x + v[c], four rows an instance: the broadcast add of the rows benchmark.
Kernel add_row_vector() {
    return kernel("stream_add_row_vector", [](View<const f32, 2> x, View<const f32, 1> v, View<f32, 2> y) {
        auto r = axis("r", 4), c = axis("c", x.extent(1));
        for (auto& nest : parallel(shape(axis("blocks", ceil_div(x.extent(0), 4))))) {
            auto o = coord(nest.index() * 4, 0);
            y(o, shape(r, c)).store(x[o, shape(r, c)] + v[coord(0), shape(c)]);
        }
    });
}

// The source with every view's stores streamed or none, whatever the sizes.
std::string source_with_streams(const Kernel& k, const std::vector<Buffer>& bufs, bool on, bool every_store = false) {
    std::vector<detail::Arg> args;
    for (auto& b : bufs) args.push_back(b.arg);
    auto program = detail::specialize(*k.shared_impl(), args, Loc::here());
    native::LaunchSpec spec = native::launch_spec(*program, args, {});
    for (std::size_t i = 0; i < spec.emit.stream_stores.size(); ++i) spec.emit.stream_stores[i] = on && spec.emit.unit_inner[i];
    spec.emit.stream_every_store = every_store;
    return native::emit_cpp(*program, spec.emit).source;
}

bool every_contiguous_view_streams() {
    const char* v = std::getenv("KILN_CPU_STREAM_STORES");
    return v && std::string(v) == "2";
}

}  // namespace

TEST(CpuStreamStores, LargeOutputsTakeThemAndSmallOnesDoNot) {
    // 10 x 5000 f32, ragged against the 4096-element chunks and the 64-byte lines.
    const std::vector<Buffer> bufs = {input(Kind::F32, {10, 5000}, 1), input(Kind::F32, {5000}, 2), output(Kind::F32, {10, 5000})};
    const std::string streamed = source_with_streams(add_row_vector(), bufs, true);
    EXPECT_TRUE(contains(streamed, "kiln_cpu::stream_store(stream_dst + stream_c0, stream_row, 64);")) << streamed;
    EXPECT_FALSE(contains(streamed, "prefetch_step<true>")) << "a streamed row is not prefetched for writing";
    const std::string plain = source_with_streams(add_row_vector(), bufs, false);
    EXPECT_FALSE(contains(plain.substr(plain.find("// ---- kernel")), "kiln_cpu::stream_store("));
    // This launch spans 200 KB: below any last-level cache, so only the forced mode streams it.
    EXPECT_EQ(contains(cpu_diff::cpu_source(add_row_vector(), bufs).substr(plain.find("// ---- kernel")), "kiln_cpu::stream_store("),
              every_contiguous_view_streams());
    EXPECT_GE(native::last_level_cache_bytes(), 1 << 20);
}

namespace {

// y = x / sum(x) per row: the store's value comes from a reduction over the row.
Kernel row_share() {
    return kernel("stream_row_share", [](View<const f32, 2> x, View<f32, 2> y) {
        auto r = axis("r", 1), c = axis("c", x.extent(1));
        for (auto& nest : parallel(shape(axis("rows", x.extent(0))))) {
            auto o = coord(nest.index(), 0);
            auto row = x[o, shape(r, c)];
            y(o, shape(r, c)).store(row / reduce(row, c, add));
        }
    });
}

}  // namespace

TEST(CpuStreamStores, OnlyValuesComputedInOnePassOverLoadsStream) {
    // A value fed by a reduction comes from a row the instance has just read into its
    // caches: its store stays an ordinary one (measured slower streamed).
    const std::vector<Buffer> bufs = {input(Kind::F32, {10, 5000}, 1), output(Kind::F32, {10, 5000})};
    const std::string source = source_with_streams(row_share(), bufs, true);
    EXPECT_FALSE(contains(source.substr(source.find("// ---- kernel")), "kiln_cpu::stream_store(")) << source;
    // Unless every store is asked to stream (KILN_CPU_STREAM_STORES=2: the tests' mode).
    const std::string every = source_with_streams(row_share(), bufs, true, true);
    EXPECT_TRUE(contains(every.substr(every.find("// ---- kernel")), "kiln_cpu::stream_store(")) << every;
}

TEST(CpuStreamStores, StreamedRowsWriteTheInterpretersBytes) {
    if (!every_contiguous_view_streams()) GTEST_SKIP() << "KILN_CPU_STREAM_STORES=2 runs this (ctest: kiln_unit_tests_cpu_stream_stores)";
    // Rows at every alignment (a 1-D view of 4099 elements offset by one), bf16 and f32, and a strided store.
    for (auto precision : {Precision::standard, Precision::exact}) {
        expect_same(add_row_vector(), {input(Kind::F32, {9, 4099}, 3), input(Kind::F32, {4099}, 4), output(Kind::F32, {9, 4099})},
                    {.precision = precision});
        expect_same(add_row_vector(), {input(Kind::F32, {5, 20}, 5), input(Kind::F32, {20}, 6), output(Kind::F32, {5, 20})},
                    {.precision = precision});
    }
    auto bf = kernel("stream_bf16_rows", [](View<const bf16, 2> x, View<bf16, 2> y) {
        auto r = axis("r", 1), c = axis("c", x.extent(1));
        for (auto& nest : parallel(shape(axis("rows", x.extent(0))))) {
            auto o = coord(nest.index(), 0);
            y(o, shape(r, c)).store(cast<bf16>(cast<f32>(x[o, shape(r, c)]) * 2.0f));
        }
    });
    expect_same(bf, {input(Kind::BF16, {7, 1003}, 7), output(Kind::BF16, {7, 1003})}, {.precision = Precision::exact});
}

TEST(CpuStreamStores, ThePlanNamesTheStoresThatStreamAndWhyOthersDoNot) {
    // Views spanning the last-level cache (the plan runs nothing: their data is never read).
    auto k = kernel("stream_shift_and_share", [](View<const f32, 2> x, View<const f32, 1> v, View<f32, 2> shifted, View<f32, 2> share) {
        auto r = axis("r", 1), c = axis("c", x.extent(1));
        for (auto& nest : parallel(shape(axis("rows", x.extent(0))))) {
            auto o = coord(nest.index(), 0);
            auto row = x[o, shape(r, c)];
            shifted(o, shape(r, c)).store(row + v[coord(0), shape(c)]);
            share(o, shape(r, c)).store(row / reduce(row, c, add));
        }
    });
    const std::int64_t cols = 4096, rows = native::last_level_cache_bytes() / (cols * 4) + 1;
    std::vector<detail::Arg> args;
    for (const Buffer& b : {input(Kind::F32, {2, cols}, 1), input(Kind::F32, {cols}, 2), output(Kind::F32, {2, cols}), output(Kind::F32, {2, cols})}) {
        detail::Arg a = b.arg;
        if (a.extents.size() == 2) a.extents[0] = rows;
        args.push_back(a);
    }
    if (every_contiguous_view_streams()) GTEST_SKIP() << "the plain run checks the default choice";
    const std::string plan = cpu().impl().plan(*detail::specialize(*k.shared_impl(), args, Loc::here()), args, {});
    EXPECT_TRUE(contains(plan, "spans the last-level cache; streaming stores around the caches at ")) << plan;
    EXPECT_TRUE(contains(plan, "its value is not computed in one pass over loads (a reduction or a scan feeds it")) << plan;
    EXPECT_TRUE(contains(plan, "cpu_stream_store_test.cpp:")) << "the stores are named by the user's lines\n" << plan;
    const std::string read_only = "arg0: View<const f32, 2> extents " + std::to_string(rows) + " 4096, strides 4096 1 (inner stride 1: contiguous rows)\n";
    EXPECT_TRUE(contains(plan, read_only)) << "nothing to say of a view only read\n" << plan;
}
