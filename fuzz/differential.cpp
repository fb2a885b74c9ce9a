#include "fuzz/differential.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <sstream>

#include "fuzz/placement.h"
#include "fuzz/program.h"
#include "fuzz/standard_bound.h"
#include "fuzz/values.h"
#include "kiln/detail/identical.h"
#include "trace/kernel_trace.h"

namespace kiln::fuzz {

void Launch::rebind() {
    for (std::size_t p = 0; p < args.size(); ++p)
        if (args[p].is_view) args[p].data = bytes[p].data();
}

Launch make_launch(const Recipe& r) {
    Launch l;
    Rng rng(r.data_seed);
    for (const ViewPlan& v : r.views) {
        detail::Arg a;
        a.kind = v.kind;
        a.read_only = v.role == Role::input;
        for (const DimPlan& d : v.dims) a.extents.push_back(d.extent);
        a.strides = v.strides;
        std::vector<unsigned char> bytes(static_cast<std::size_t>(v.span() * kind_bytes(v.kind)));
        fill_elements(rng, v.kind, rng.chance(60) ? Style::wild : Style::tame, bytes.data(), v.span());
        l.bytes.push_back(std::move(bytes));
        l.args.push_back(a);
    }
    for (const ScalarPlan& s : r.scalars) {
        detail::Arg a;
        a.is_view = false;
        a.kind = s.kind;
        a.f = s.f;
        a.i = s.i;
        l.bytes.emplace_back();
        l.args.push_back(a);
    }
    l.rebind();
    return l;
}

std::string_view verdict_name(Verdict v) {
    switch (v) {
        case Verdict::same: return "same";
        case Verdict::differs: return "DIFFERS";
        case Verdict::invalid: return "INVALID";
        case Verdict::internal: return "INTERNAL ERROR";
    }
    return "?";
}

namespace {

// What one target did with the program.
struct Outcome {
    Launch launch;                      // the buffers afterwards
    std::optional<std::string> error;   // what it raised
    bool internal = false;
};

// Runs k on t with copies of the initial buffers placed where t runs, and brings
// them back (unless the launch raised: what the buffers hold then is unspecified).
Outcome run_on(const Kernel& k, const Target& t, const Launch& initial, const CompileOptions& options) {
    Outcome o{initial, std::nullopt, false};
    try {
        Placed placed(initial, t);
        run_kernel(k, t, placed.args(), options, Loc::here());
        placed.fetch(o.launch);
    } catch (const Error& e) {
        o.error = e.what();
    } catch (const std::exception& e) {  // InternalError, or anything else kiln should not throw
        o.error = e.what();
        o.internal = true;
    }
    return o;
}

// run_on, its wall time in `seconds` (run_on reports errors in the outcome, never throws).
Outcome timed_run_on(const Kernel& k, const Target& t, const Launch& initial, const CompileOptions& options, double& seconds) {
    const auto start = std::chrono::steady_clock::now();
    Outcome o = run_on(k, t, initial, options);
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return o;
}

std::string hex_bits(const unsigned char* p, int width) {
    static const char* digits = "0123456789abcdef";
    std::string s = "0x";
    for (int b = width - 1; b >= 0; --b) s += {digits[p[b] >> 4], digits[p[b] & 15]};  // little-endian storage
    return s;
}

std::string element_text(Kind k, const unsigned char* p) {
    double f = 0;
    std::int64_t i = 0;
    switch (k) {
        case Kind::Bool: i = p[0]; break;
        case Kind::I8: i = static_cast<std::int8_t>(p[0]); break;
        case Kind::I32: { std::int32_t x; std::memcpy(&x, p, 4); i = x; break; }
        case Kind::I64: std::memcpy(&i, p, 8); break;
        case Kind::F16: { std::uint16_t b; std::memcpy(&b, p, 2); f = f16::from_bits(b).to_double(); break; }
        case Kind::BF16: { std::uint16_t b; std::memcpy(&b, p, 2); f = bf16::from_bits(b).to_double(); break; }
        case Kind::F32: { float x; std::memcpy(&x, p, 4); f = x; break; }
        case Kind::F64: std::memcpy(&f, p, 8); break;
    }
    return (is_float(k) ? repr_float(f) : std::to_string(i)) + " (" + hex_bits(p, kind_bytes(k)) + ")";
}

// The index of storage element e in view a, when e is an element of it (not padding).
std::string index_text(const detail::Arg& a, std::int64_t e) {
    std::vector<std::size_t> order(a.extents.size());
    for (std::size_t d = 0; d < order.size(); ++d) order[d] = d;
    std::sort(order.begin(), order.end(), [&](auto x, auto y) { return a.strides[x] > a.strides[y]; });
    std::vector<std::int64_t> idx(a.extents.size());
    std::int64_t rest = e;
    for (auto d : order) {
        idx[d] = rest / a.strides[d];
        rest -= idx[d] * a.strides[d];
    }
    std::string s = "(";
    for (std::size_t d = 0; d < idx.size(); ++d) s += (d ? ", " : "") + std::to_string(idx[d]);
    return s + ")";
}

std::string difference_text(const Launch& ref, const Launch& got, std::size_t p, std::int64_t e, const std::string& ref_name,
                            const std::string& got_name) {
    const detail::Arg& a = ref.args[p];
    const auto at = static_cast<std::size_t>(e) * static_cast<std::size_t>(kind_bytes(a.kind));
    return "argument " + std::to_string(p) + " (" + std::string(kind_name(a.kind)) + ") element " + index_text(a, e) + ": " + ref_name + " " +
           element_text(a.kind, ref.bytes[p].data() + at) + ", " + got_name + " " + element_text(a.kind, got.bytes[p].data() + at);
}

// Precision exact: the first element of a written view that is not identical.
std::optional<std::string> first_difference(const Launch& ref, const Launch& got, const std::string& ref_name, const std::string& got_name) {
    for (std::size_t p = 0; p < ref.args.size(); ++p) {
        const detail::Arg& a = ref.args[p];
        if (!a.is_view || a.read_only) continue;
        const auto& x = ref.bytes[p];
        const auto& y = got.bytes[p];
        const long long e = detail::first_non_identical(a.kind, x.data(), y.data(), x.size());
        if (e >= 0) return difference_text(ref, got, p, e, ref_name, got_name);
    }
    return std::nullopt;
}

// Precision standard: the first element outside its view's bound; counts the
// elements compared within a finite bound and those without one.
std::optional<std::string> first_out_of_bound(const Launch& ref, const Launch& got, const std::vector<DifferenceBound>& bounds,
                                              const std::string& ref_name, const std::string& got_name, Result& res) {
    for (std::size_t p = 0; p < ref.args.size(); ++p) {
        const detail::Arg& a = ref.args[p];
        if (!a.is_view || a.read_only) continue;
        const auto width = static_cast<std::size_t>(kind_bytes(a.kind));
        const auto& x = ref.bytes[p];
        const auto& y = got.bytes[p];
        const auto count = static_cast<std::int64_t>(x.size() / width);
        const DifferenceBound& b = bounds[p];
        if (!b.bounded()) {
            res.unchecked += count;
            continue;
        }
        res.checked += count;
        for (std::int64_t e = 0; e < count; ++e) {
            const unsigned char *px = x.data() + static_cast<std::size_t>(e) * width, *py = y.data() + static_cast<std::size_t>(e) * width;
            if (detail::identical_elements(a.kind, px, py)) continue;
            if (!b.admits(element_value(a.kind, px), element_value(a.kind, py)))
                return difference_text(ref, got, p, e, ref_name, got_name) + " (bound " + repr_float(b.abs) + " + " + repr_float(b.rel) +
                       " |" + ref_name + "|)";
        }
    }
    return std::nullopt;
}

std::int64_t max_trips(const Recipe& r) { return std::max<std::int64_t>({1, r.loop.trips, r.loop.inner_trips}); }

}  // namespace

Result check_program(std::uint64_t seed, const std::vector<Target>& targets, const CompileOptions& options, const Limits& limits) {
    return check_recipe(make_recipe(seed, limits), targets, options);
}

Result check_recipe(const Recipe& r, const std::vector<Target>& targets, const CompileOptions& campaign) {
    CompileOptions options = campaign;
    if (r.wide_index) options.index_width = IndexWidth::wide;
    Result res;
    res.seed = r.seed;
    const Kernel k = build_kernel(r);
    const Launch initial = make_launch(r);
    res.target_seconds.assign(targets.size(), 0.0);
    const Outcome ref = timed_run_on(k, targets.at(0), initial, options, res.target_seconds[0]);
    if (ref.error && (ref.internal || !r.may_raise)) {
        res.verdict = ref.internal ? Verdict::internal : Verdict::invalid;
        res.detail = targets[0].name() + " raised: " + *ref.error;
        return res;
    }
    res.raised = ref.error.has_value();
    std::vector<DifferenceBound> bounds;
    if (options.precision == Precision::standard && !ref.error) {
        auto program = detail::specialize(*k.shared_impl(), initial.args, Loc::here());  // traced by the reference run
        bounds = standard_bounds(*program, initial.args, max_trips(r));
    }
    for (std::size_t t = 1; t < targets.size(); ++t) {
        const Outcome got = timed_run_on(k, targets[t], initial, options, res.target_seconds[t]);
        if (ref.error) {
            // A program meant to raise: every target reports the same access, in the
            // same words (what the buffers hold after an error is unspecified).
            if (got.error == ref.error) continue;
            res.verdict = got.internal ? Verdict::internal : Verdict::differs;
            res.detail = targets[0].name() + " raised: " + *ref.error + "; " + targets[t].name() +
                         (got.error ? " raised: " + *got.error : std::string(" did not raise"));
            return res;
        }
        if (got.error) {
            res.verdict = got.internal ? Verdict::internal : Verdict::differs;
            res.detail = targets[t].name() + " raised (" + targets[0].name() + " did not): " + *got.error;
            return res;
        }
        auto diff = bounds.empty() ? first_difference(ref.launch, got.launch, targets[0].name(), targets[t].name())
                                   : first_out_of_bound(ref.launch, got.launch, bounds, targets[0].name(), targets[t].name(), res);
        if (diff) {
            res.verdict = Verdict::differs;
            res.detail = *diff;
            return res;
        }
    }
    return res;
}

std::string show_program(std::uint64_t seed, const Limits& limits) { return show_recipe(make_recipe(seed, limits)); }

std::string show_recipe(const Recipe& r) {
    const Kernel k = build_kernel(r);
    const Launch l = make_launch(r);
    std::ostringstream s;
    s << "program " << r.seed << ": " << describe(r);
    try {
        s << detail::kernel_ir(k, l.args);
    } catch (const std::exception& e) {
        s << "(tracing failed: " << e.what() << ")\n";
    }
    return s.str();
}

}  // namespace kiln::fuzz
