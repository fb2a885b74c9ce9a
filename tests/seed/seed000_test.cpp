// Every program of seed 000 ("GPU tiles"), written against kiln's surface, must
// print exactly what the seed prints.
#include <gtest/gtest.h>

#include <sstream>

#include <kiln/kiln.h>

using namespace kiln;

namespace {
struct Out {
    std::ostringstream s;
    template <class T> Out& operator<<(const T& x) {
        s << x << "\n";
        return *this;
    }
    std::string str() const { return s.str(); }
};
}  // namespace

TEST(Seed000, TilesArangeTransposeDotSum) {
    Out out;
    auto a = arange(2, 3);
    out << a;
    auto b = transpose(a);
    auto c = dot(a, b);
    out << c;
    out << sum(c);
    auto z = filled(2, 2, 1.5);
    out << sum(scale(z, 2.0));
    EXPECT_EQ(out.str(), "tile[2x3](0, 1, 2; 3, 4, 5)\ntile[2x2](5, 14; 14, 50)\n83\n12.0\n");
    // scale gave back a new tile and left z untouched.
    EXPECT_EQ(to_string(z), "tile[2x2](1.5, 1.5; 1.5, 1.5)");
}

TEST(Seed000, ShapeMismatchIsAnErrorWithTheSeedsWording) {
    auto a = zeros(2, 3);
    auto b = zeros(3, 2);
    try {
        (void)sum(add(a, b));
        FAIL() << "expected a shape error";
    } catch (const Error& e) {
        EXPECT_EQ(e.detail(), "add: shape mismatch: 2x3 vs 3x2");
        EXPECT_NE(std::string(e.what()).find("seed000_test.cpp:"), std::string::npos) << e.what();
    }
}

TEST(Seed000, NarrowKindsRoundOncePerOp) {
    Out out;
    auto f = to_f32(filled(2, 2, 0.1));
    out << f;
    out << sum(f);
    out << to_f16(filled(1, 1, 0.1));
    EXPECT_EQ(out.str(),
              "tile[2x2](0.10000000149011612, 0.10000000149011612; 0.10000000149011612, 0.10000000149011612)\n"
              "0.4000000059604645\n"
              "tile[1x1](0.0999755859375)\n");
}

TEST(Seed000, BuffersInTilesOut) {
    Out out;
    std::vector<i64> v;
    for (int i = 0; i < 10; ++i) v.push_back(i * i);
    auto t = load(v, 2, 2, 3);
    out << t;
    auto edge = load_or(v, 8, 1, 4, 0 - 1);
    out << edge;
    store_clipped(v, 8, filled(1, 4, 7));
    out << v[9];
    EXPECT_EQ(out.str(), "tile[2x3](4, 9, 16; 25, 36, 49)\ntile[1x4](64, 81, -1, -1)\n7\n");
    EXPECT_THROW(load(v, 8, 1, 4), Error);  // the strict form raises on an out-of-range window
}

namespace {
void vecadd_kernel(std::int64_t pid, const std::vector<i64>& a, const std::vector<i64>& b, std::vector<i64>& out) {
    auto ta = load(a, pid * 4, 1, 4);
    auto tb = load(b, pid * 4, 1, 4);
    store(out, pid * 4, add(ta, tb));
}
}  // namespace

TEST(Seed000, KernelsAndTheLaunchEffect) {
    Out out;
    std::vector<i64> a, b, o;
    for (int i = 0; i < 8; ++i) {
        a.push_back(i);
        b.push_back(i * 10);
        o.push_back(0);
    }
    launch(2, [&](std::int64_t pid) { vecadd_kernel(pid, a, b, o); });
    out << o[3];
    out << o[7];
    EXPECT_EQ(out.str(), "33\n77\n");
}

TEST(Seed000, AHandlerObservesTheLaunch) {
    Out out;
    std::vector<i64> o(4, 0);
    {
        auto h = handle_launch([&](LaunchRequest& req, const Next&) {
            out << "launch of " + std::to_string(req.instances) + " instances";
            run_grid(req.instances, req.closure);
        });
        launch(4, [&](std::int64_t pid) { store(o, pid, filled(1, 1, pid * pid)); });
    }
    out << o[3];
    EXPECT_EQ(out.str(), "launch of 4 instances\n9\n");
}

namespace {
void double_kernel(std::int64_t pid, std::vector<i64>& v) {
    auto t = load_or(v, pid * 4, 1, 4, 0);
    store_clipped(v, pid * 4, scale(t, 2));
}
}  // namespace

TEST(Seed000, AHandlerReplacesTheEngine) {
    // The seed's Metal handler; here a handler that replaces the engine with the
    // reference grid (kiln's Metal target is later work). The kernel does not change.
    Out out;
    std::vector<i64> v;
    for (int i = 0; i < 10; ++i) v.push_back(i + 1);
    int replaced = 0;
    {
        auto h = handle_launch([&](LaunchRequest& req, const Next&) {
            ++replaced;
            run_grid(req.instances, req.closure);
        });
        launch(3, [&](std::int64_t pid) { double_kernel(pid, v); });
    }
    out << v[9];
    EXPECT_EQ(out.str(), "20\n");
    EXPECT_EQ(replaced, 1);
}

TEST(Seed000, OperationsAsFunctions) {
    Out out;
    std::vector<double> v{1.0, 2.0, 3.0, 0.5, 0.5, -4.0};
    auto t = to_f32(from_vec(v, 2, 3));
    out << row_max(t);
    out << softmax_rows(t);
    out << row_sum(softmax_rows(t));
    out << map(t, [](Scalar<f32> x) { return x * 0.5 + 1.0; });
    out << reduce_cols(arange(2, 3), 0, [](Scalar<i64> a, Scalar<i64> b) { return a + b; });
    EXPECT_EQ(out.str(),
              "tile[2x1](3.0; 0.5)\n"
              "tile[2x3](0.09003057330846786, 0.2447284758090973, 0.6652409434318542; 0.49723806977272034, "
              "0.49723806977272034, 0.005523815751075745)\n"
              "tile[2x1](1.0; 0.9999999403953552)\n"
              "tile[2x3](1.5, 2.0, 2.5; 1.25, 1.25, -1.0)\n"
              "tile[1x3](3, 5, 7)\n");
}

namespace {
void block_kernel(std::int64_t pid, const std::vector<double>& a, const std::vector<double>& b, std::vector<double>& c) {
    std::int64_t ti = pid / 2, tj = pid % 2;
    auto r = to_f32(filled(8, 8, 0));
    for (std::int64_t k = 0; k < 2; ++k) {
        auto ta = to_f32(load_rows(a, (ti * 8) * 16 + k * 8, 16, 8, 8, 0.0));
        auto tb = to_f32(load_rows(b, (k * 8) * 16 + tj * 8, 16, 8, 8, 0.0));
        r = add(r, dot(ta, tb));
    }
    store_rows(c, (ti * 8) * 16 + tj * 8, 16, r);
}
}  // namespace

TEST(Seed000, MatrixUnitsBlockMatmul) {
    Out out;
    std::vector<double> a, b, c;
    for (int i = 0; i < 256; ++i) {
        a.push_back(1.0);
        b.push_back(i % 17 == 0 ? 2.0 : 0.0);
        c.push_back(0.0);
    }
    launch(4, [&](std::int64_t pid) { block_kernel(pid, a, b, c); });
    out << repr(c[0]);
    out << repr(c[255]);
    EXPECT_EQ(out.str(), "2.0\n2.0\n");
}

TEST(Seed000, AttentionInnerStepAsWritten) {
    // The seed's inner step, verbatim in kiln's vocabulary, on one 8x8 block.
    std::vector<double> qv, kv, vv;
    for (int i = 0; i < 64; ++i) {
        qv.push_back(std::sin(i * 0.37));
        kv.push_back(std::cos(i * 0.11));
        vv.push_back((i % 7) * 0.25 - 0.5);
    }
    auto qb = to_f32(from_vec(qv, 8, 8)), kb = to_f32(from_vec(kv, 8, 8)), vb = to_f32(from_vec(vv, 8, 8));
    auto m = to_f32(filled(8, 1, -1e30));
    auto l = to_f32(filled(8, 1, 0.0));
    auto o = to_f32(filled(8, 8, 0.0));
    const double qk_scale8 = 1.0 / std::sqrt(8.0);
    auto s = scale(dot(qb, transpose(kb)), qk_scale8);
    auto m_new = maximum(m, row_max(s));
    auto p = exp(sub_rows(s, m_new));
    auto alpha = exp(sub(m, m_new));
    l = add(mul(l, alpha), row_sum(p));
    o = add(mul_rows(o, alpha), dot(p, vb));
    m = m_new;
    auto result = div_rows(o, l).to_vector();
    auto ref = attention_ref(std::vector<double>(qv.begin(), qv.end()), kv, vv, 8, 8, 8, 8);
    for (std::size_t k = 0; k < ref.size(); ++k) EXPECT_NEAR(result[k], ref[k], 1e-5) << k;
}

TEST(Seed000, Attention8AndCausalAgainstTheF64Definition) {
    // attention8 / causal_attention8 generalised: any head dimension and block.
    for (bool causal : {false, true}) {
        const std::int64_t n = 21, d = 8, block = 8;  // n not a multiple of the block
        std::vector<double> q, k, v;
        for (std::int64_t i = 0; i < n * d; ++i) {
            q.push_back(std::sin(i * 0.7) * 0.9);
            k.push_back(std::cos(i * 0.3));
            v.push_back(std::sin(i * 0.05) - 0.2);
        }
        auto out = attention(to_f32(from_vec(q, n, d)), to_f32(from_vec(k, n, d)), to_f32(from_vec(v, n, d)), block, causal).to_vector();
        auto ref = attention_ref(q, k, v, n, n, d, d, causal);
        // f32 rounding of q, k, v and of each step: relative error well under 1e-5.
        for (std::size_t i = 0; i < ref.size(); ++i) EXPECT_NEAR(out[i], ref[i], 2e-6 * (1 + std::abs(ref[i]))) << i << " causal=" << causal;
    }
}
