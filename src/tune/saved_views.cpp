#include "tune/saved_views.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

#include "interp/run_kernel.h"
#include "targets/cuda/raw_copy.h"

namespace kiln::tune {

namespace {

// The lowest and highest element offsets a view reaches (strides may be negative).
std::pair<std::int64_t, std::int64_t> span_of(const detail::Arg& a) {
    std::int64_t lo = 0, hi = 0;
    for (std::size_t d = 0; d < a.extents.size(); ++d) {
        if (a.extents[d] == 0) return {0, -1};  // no elements
        std::int64_t reach = (a.extents[d] - 1) * a.strides[d];
        (reach < 0 ? lo : hi) += reach;
    }
    return {lo, hi};
}

std::size_t span_bytes(const detail::Arg& a) {
    auto [lo, hi] = span_of(a);
    return hi < lo ? 0 : static_cast<std::size_t>(hi - lo + 1) * static_cast<std::size_t>(kind_bytes(a.kind));
}

std::byte* span_start(const detail::Arg& a) {
    return static_cast<std::byte*>(a.data) + span_of(a).first * static_cast<std::int64_t>(kind_bytes(a.kind));
}

bool writable_view(const detail::Arg& a) { return a.is_view && !a.read_only && a.data; }

void copy_out(const detail::Arg& a, std::vector<std::byte>& to) {
    to.resize(span_bytes(a));
    if (a.device == Device::cuda) cu::copy_from_device(a.ordinal, span_start(a), to.data(), to.size(), "tune");
    else if (!to.empty()) std::memcpy(to.data(), span_start(a), to.size());
}

void copy_in(const detail::Arg& a, const std::vector<std::byte>& from) {
    if (a.device == Device::cuda) cu::copy_to_device(a.ordinal, span_start(a), from.data(), from.size(), "tune");
    else if (!from.empty()) std::memcpy(span_start(a), from.data(), from.size());
}

// Calls f(offset, index) for every element of the view, offsets relative to the span's start.
template <class F> void each_element(const detail::Arg& a, F&& f) {
    const std::size_t rank = a.extents.size();
    for (std::int64_t e : a.extents)
        if (e == 0) return;
    std::vector<std::int64_t> idx(rank, 0);
    const std::int64_t lo = span_of(a).first;
    for (std::int64_t n = 0;; ++n) {
        std::int64_t off = -lo;
        for (std::size_t d = 0; d < rank; ++d) off += idx[d] * a.strides[d];
        f(off, idx);
        std::size_t d = rank;
        while (d > 0 && ++idx[d - 1] == a.extents[d - 1]) idx[--d] = 0;
        if (d == 0) return;
    }
}

std::string index_text(const std::vector<std::int64_t>& idx) {
    std::string s = "(";
    for (std::size_t d = 0; d < idx.size(); ++d) s += (d ? ", " : "") + std::to_string(idx[d]);
    return s + ")";
}

std::string number(double v) {
    std::ostringstream o;
    o.precision(9);
    o << v;
    return o.str();
}

}  // namespace

double default_tolerance(Kind kind) {
    switch (kind) {
        case Kind::BF16: return 3e-2;
        case Kind::F16: return 4e-3;
        case Kind::F32: return 1e-4;
        case Kind::F64: return 1e-9;
        case Kind::Bool: case Kind::I8: case Kind::I32: case Kind::I64: return 0;
    }
    return 0;
}

SavedViews::SavedViews(const std::vector<detail::Arg>& args) : args_(args) {
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (!writable_view(args[i])) continue;
        ViewBytes v;
        v.arg = i;
        v.lowest = span_of(args[i]).first;
        copy_out(args[i], v.bytes);
        saved_.push_back(std::move(v));
    }
}

void SavedViews::restore() const {
    for (const ViewBytes& v : saved_) copy_in(args_[v.arg], v.bytes);
}

std::vector<ViewBytes> SavedViews::read() const {
    std::vector<ViewBytes> now;
    for (const ViewBytes& s : saved_) {
        ViewBytes v;
        v.arg = s.arg;
        v.lowest = s.lowest;
        copy_out(args_[s.arg], v.bytes);
        now.push_back(std::move(v));
    }
    return now;
}

Difference SavedViews::compare(const std::vector<ViewBytes>& now, const std::vector<ViewBytes>& reference, bool bitwise,
                               double tolerance) const {
    Difference d;
    for (std::size_t k = 0; k < now.size(); ++k) {
        const detail::Arg& a = args_[now[k].arg];
        const std::size_t size = static_cast<std::size_t>(kind_bytes(a.kind));
        detail::Arg got = a, want = a;  // element readers over the copies
        got.data = const_cast<std::byte*>(now[k].bytes.data());
        want.data = const_cast<std::byte*>(reference[k].bytes.data());
        const std::string which = "output " + std::to_string(now[k].arg);
        const bool by_bits = bitwise || !is_float(a.kind);
        if (by_bits) {
            each_element(a, [&](std::int64_t off, const std::vector<std::int64_t>& idx) {
                if (!d.ok || std::memcmp(static_cast<std::byte*>(got.data) + off * size, static_cast<std::byte*>(want.data) + off * size, size) == 0)
                    return;
                d.ok = false;
                d.why = which + " differs at " + index_text(idx) + ": " +
                        (is_float(a.kind) ? number(ref::read_float(got, off)) : std::to_string(ref::read_int(got, off))) + " where the first had " +
                        (is_float(a.kind) ? number(ref::read_float(want, off)) : std::to_string(ref::read_int(want, off))) +
                        (bitwise ? " (precision exact: bit for bit)" : "");
            });
            if (!is_float(a.kind)) continue;
        }
        double scale = 0;
        each_element(a, [&](std::int64_t off, const std::vector<std::int64_t>&) {
            double r = ref::read_float(want, off);
            if (std::isfinite(r)) scale = std::max(scale, std::fabs(r));
        });
        const double tol = tolerance >= 0 ? tolerance : default_tolerance(a.kind);
        double worst = 0;
        std::string worst_at;
        each_element(a, [&](std::int64_t off, const std::vector<std::int64_t>& idx) {
            double g = ref::read_float(got, off), r = ref::read_float(want, off);
            double rel;
            if (std::isnan(g) || std::isnan(r)) rel = std::isnan(g) == std::isnan(r) ? 0 : std::numeric_limits<double>::infinity();
            else if (std::isinf(g) || std::isinf(r)) rel = g == r ? 0 : std::numeric_limits<double>::infinity();
            else rel = scale > 0 ? std::fabs(g - r) / scale : (g == r ? 0 : std::numeric_limits<double>::infinity());
            if (rel > worst) {
                worst = rel;
                worst_at = index_text(idx) + ": " + number(g) + " where the first had " + number(r);
            }
        });
        d.relative = std::max(d.relative, worst);
        if (d.ok && worst > tol) {
            d.ok = false;
            d.why = which + " differs by " + number(worst) + " of its largest magnitude (tolerance " + number(tol) + ") at " + worst_at;
        }
    }
    return d;
}

}  // namespace kiln::tune
