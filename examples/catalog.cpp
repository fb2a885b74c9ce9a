#include "catalog.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

#include "interp/run_kernel.h"

namespace kiln::catalog {

namespace {
std::vector<Entry (*)()>& makers() {
    static std::vector<Entry (*)()> m;
    return m;
}
// The catalog's order (the order users read it in); entries not listed sort last.
const std::vector<std::string> kOrder = {
    "copy", "add", "saxpy", "clamp", "exp", "rmsnorm", "reduce_sum", "reduce_max", "reduce_min", "reduce_abs",
    "scan_sum", "scan_max", "transpose", "gemm", "gemm_f16", "gemm_bf16", "gemm_i8", "gemm_epilogue", "linear", "linear_i8", "bias_gelu_residual",
    "statistics_losses", "softmax_norm", "residual_layernorm", "sparse_cross_entropy", "flash_attention", "conv2d",
    "depthwise_pool", "sobel_median", "sort_topk", "segmented_sum", "nested_regions", "manual_gemm", "vecadd",
    "block_matmul", "attention", "causal_attention", "layernorm_affine", "rmsnorm_weighted", "log_softmax", "cross_entropy",
    "residual_layernorm_bf16", "swiglu", "column_sum"};
}  // namespace

bool register_entry(Entry (*make)()) {
    makers().push_back(make);
    return true;
}

const std::vector<Entry>& entries() {
    static const std::vector<Entry> all = [] {
        std::vector<Entry> v;
        for (auto make : makers()) v.push_back(make());
        auto rank = [](const std::string& n) {
            auto it = std::find(kOrder.begin(), kOrder.end(), n);
            return it - kOrder.begin();
        };
        std::stable_sort(v.begin(), v.end(), [&](const Entry& a, const Entry& b) { return rank(a.name) < rank(b.name); });
        return v;
    }();
    return all;
}

const Entry* find(const std::string& name) {
    for (auto& e : entries())
        if (e.name == name) return &e;
    return nullptr;
}

std::int64_t Buffer::size() const {
    std::int64_t n = 1;
    for (auto e : extents) n *= e;
    return n;
}

double Buffer::get(std::int64_t i) const {
    detail::Arg a;
    a.kind = kind;
    a.data = const_cast<std::byte*>(bytes.data());
    return is_float(kind) ? ref::read_float(a, i) : static_cast<double>(ref::read_int(a, i));
}

std::shared_ptr<Buffer> output(Kind kind, std::vector<std::int64_t> extents) {
    auto b = std::make_shared<Buffer>();
    b->kind = kind;
    b->extents = std::move(extents);
    b->bytes.assign(static_cast<std::size_t>(b->size() * kind_bytes(kind)), std::byte{0});
    b->output = true;
    return b;
}

std::shared_ptr<Buffer> input(Kind kind, std::vector<std::int64_t> extents, const std::function<double(std::int64_t)>& gen) {
    auto b = output(kind, std::move(extents));
    b->output = false;
    detail::Arg a;
    a.kind = kind;
    a.data = b->bytes.data();
    for (std::int64_t i = 0; i < b->size(); ++i) {
        if (is_float(kind)) ref::write_float(a, i, gen(i));
        else ref::write_int(a, i, static_cast<std::int64_t>(gen(i)));
    }
    return b;
}

std::shared_ptr<Buffer> scalar_arg(Kind kind) {
    auto b = std::make_shared<Buffer>();
    b->kind = kind;
    return b;
}

std::function<double(std::int64_t)> uniform(std::uint64_t seed, double lo, double hi) {
    auto g = std::make_shared<std::mt19937_64>(seed);
    return [g, lo, hi](std::int64_t) { return std::uniform_real_distribution<double>(lo, hi)(*g); };
}

std::vector<double> values(const Buffer& b) {
    std::vector<double> v(static_cast<std::size_t>(b.size()));
    for (std::int64_t i = 0; i < b.size(); ++i) v[static_cast<std::size_t>(i)] = b.get(i);
    return v;
}

namespace {

std::vector<detail::Arg> launch_args(const Case& c, std::vector<std::shared_ptr<detail::DeviceBuffer>>* device) {
    std::vector<detail::Arg> args;
    for (std::size_t k = 0; k < c.args.size(); ++k) {
        const Buffer& b = *c.args[k];
        detail::Arg a;
        a.kind = b.kind;
        if (b.extents.empty()) {
            a.is_view = false;
            if (is_float(b.kind)) a.f = c.scalars.at(k);
            else a.i = static_cast<std::int64_t>(c.scalars.at(k));
        } else {
            a.extents = b.extents;
            a.strides = detail::row_major_strides(b.extents);
            a.read_only = !b.output;
            a.data = const_cast<std::byte*>(b.bytes.data());
            if (device) {
                auto d = detail::device_alloc(b.bytes.size());
                detail::device_upload(*d, b.bytes.data(), b.bytes.size());
                a.data = detail::device_pointer(*d);
                a.device = Device::cuda;
                device->push_back(d);
            }
        }
        args.push_back(a);
    }
    return args;
}

}  // namespace

std::vector<Buffer> run_outputs(Case& c, const Target& target, const CompileOptions& options) {
    return run_outputs_with(c, target, [&](const std::vector<detail::Arg>& args) { run_kernel(c.kernel, target, args, options, {}); });
}

std::vector<Buffer> run_outputs_with(Case& c, const Target& target, const std::function<void(const std::vector<detail::Arg>&)>& launch) {
    std::vector<Buffer> outs;
    bool on_device = static_cast<Placement>(target).device == Device::cuda;
    std::vector<std::shared_ptr<detail::DeviceBuffer>> device;
    // Outputs are poisoned before every run (all bits set: NaN for floats, -1 for
    // integers), so an element the kernel fails to write can never pass, and one
    // run's results never leak into the next.
    for (auto& b : c.args)
        if (b->output) std::fill(b->bytes.begin(), b->bytes.end(), std::byte{0xff});
    auto args = launch_args(c, on_device ? &device : nullptr);
    launch(args);
    std::size_t k = 0;  // index into `device`, which holds one buffer per view (inputs too)
    for (std::size_t i = 0; i < c.args.size(); ++i) {
        if (c.args[i]->extents.empty()) continue;  // a scalar: no buffer
        if (c.args[i]->output) {
            Buffer out = *c.args[i];
            if (on_device) detail::device_download(*device[k], out.bytes.data(), out.bytes.size());
            outs.push_back(std::move(out));
        }
        ++k;
    }
    return outs;
}

namespace {

// Names element i of output o with its values, for a failure's detail.
std::string element_detail(std::size_t o, std::int64_t i, double got, double want, const std::string& why) {
    std::ostringstream s;
    s.precision(17);
    s << "output " << o << " element " << i << ": got " << got << ", expected " << want << why;
    return s.str();
}

}  // namespace

Check compare(const Case& c, const std::vector<Buffer>& outputs, const std::vector<std::vector<double>>& reference) {
    Check r;
    if (outputs.size() != reference.size()) {
        r.detail = "the reference gives " + std::to_string(reference.size()) + " outputs, the kernel " + std::to_string(outputs.size());
        return r;
    }
    bool any_bounded = false;  // a float output that is compared against bounds
    for (const auto& out : outputs) any_bounded = any_bounded || (!c.exact_integer && is_float(out.kind));
    Bounds bounds;
    if (any_bounded) {
        if (!c.error_bound) {
            r.detail = "the case states no error bound for its float outputs (Case::error_bound, docs/catalog.md)";
            return r;
        }
        bounds = c.error_bound(c);
        if (bounds.size() != outputs.size()) {
            r.detail = "the error bound covers " + std::to_string(bounds.size()) + " outputs, the kernel has " + std::to_string(outputs.size());
            return r;
        }
    }
    r.ok = true;
    auto fail = [&r](std::string detail) {
        if (r.ok) r.detail = std::move(detail);
        r.ok = false;
    };
    for (std::size_t o = 0; o < outputs.size(); ++o) {
        const auto& ref = reference[o];
        const bool exact = c.exact_integer || !is_float(outputs[o].kind);
        if (static_cast<std::int64_t>(ref.size()) != outputs[o].size() ||
            (!exact && static_cast<std::int64_t>(bounds[o].size()) != outputs[o].size())) {
            r.ok = false;
            r.detail = "output " + std::to_string(o) + ": the reference or the bound does not have " + std::to_string(outputs[o].size()) +
                       " elements";
            return r;
        }
        for (std::int64_t i = 0; i < outputs[o].size(); ++i) {
            double got = outputs[o].get(i), want = ref[static_cast<std::size_t>(i)];
            if (std::isnan(got) && std::isnan(want)) continue;
            double err = std::abs(got - want);
            if (std::isinf(want) || std::isinf(got)) err = got == want ? 0 : std::numeric_limits<double>::infinity();
            if (std::isnan(err)) err = std::numeric_limits<double>::infinity();  // one side NaN
            const double bound = exact ? 0.0 : bounds[o][static_cast<std::size_t>(i)].error;
            const double ratio = err == 0 ? 0.0 : bound > 0 ? err / bound : std::numeric_limits<double>::infinity();
            if (ratio > 1) {
                std::ostringstream why;
                why.precision(3);
                if (!exact && !std::isinf(err)) why << ": error " << err << " exceeds its bound " << bound;
                fail(element_detail(o, i, got, want, why.str()));
            }
            r.worst = std::max(r.worst, ratio);
            r.max_abs = std::max(r.max_abs, err);
        }
    }
    return r;
}

std::vector<Config> gemm_tile_space(std::int64_t bm, std::int64_t bn, std::int64_t bk) {
    std::vector<Config> space = {Config{{"bm", bm}, {"bn", bn}, {"bk", bk}}};
    for (auto [m, n, k] : {std::array<std::int64_t, 3>{128, 256, 64}, {128, 128, 64}, {64, 128, 64}, {128, 64, 64}, {64, 64, 32}}) {
        Config c{{"bm", m}, {"bn", n}, {"bk", k}};
        if (!(c == space.front())) space.push_back(std::move(c));
    }
    return space;
}

Check run_case(Case& c, const Target& target, const CompileOptions& options) {
    auto outs = run_outputs(c, target, options);
    return compare(c, outs, c.reference(c));
}

}  // namespace kiln::catalog
