#include "case_args.h"

#include "trace/kernel_trace.h"

namespace kiln::cli {

CaseArgs host_args(const catalog::Case& c) {
    CaseArgs out;
    for (std::size_t k = 0; k < c.args.size(); ++k) {
        const catalog::Buffer& b = *c.args[k];
        detail::Arg a;
        a.kind = b.kind;
        if (b.extents.empty()) {  // a scalar: its value comes from the case's scalars
            a.is_view = false;
            if (is_float(b.kind)) a.f = c.scalars.at(k);
            else a.i = static_cast<std::int64_t>(c.scalars.at(k));
        } else {
            a.extents = b.extents;
            a.strides = detail::row_major_strides(b.extents);
            a.read_only = !b.output;
            a.data = const_cast<std::byte*>(b.bytes.data());
        }
        out.args.push_back(std::move(a));
        out.device.push_back(nullptr);
    }
    return out;
}

CaseArgs target_args(const catalog::Case& c, const Target& target) {
    CaseArgs out = host_args(c);
    if (static_cast<Placement>(target).device != Device::cuda) return out;
    for (std::size_t k = 0; k < out.args.size(); ++k) {
        detail::Arg& a = out.args[k];
        if (!a.is_view) continue;
        const auto& bytes = c.args[k]->bytes;
        auto d = detail::device_alloc(bytes.size());
        detail::device_upload(*d, bytes.data(), bytes.size());
        a.data = detail::device_pointer(*d);
        a.device = Device::cuda;
        out.device[k] = std::move(d);
    }
    return out;
}

std::vector<catalog::Buffer> outputs(const catalog::Case& c, const CaseArgs& args) {
    std::vector<catalog::Buffer> outs;
    for (std::size_t k = 0; k < c.args.size(); ++k) {
        if (!c.args[k]->output) continue;
        catalog::Buffer b = *c.args[k];
        if (args.device[k]) detail::device_download(*args.device[k], b.bytes.data(), b.bytes.size());
        outs.push_back(std::move(b));
    }
    return outs;
}

std::shared_ptr<const ir::Program> program_for(const catalog::Case& c, const CaseArgs& args) {
    return detail::specialize(*c.kernel.shared_impl(), args.args, c.kernel.impl().loc);
}

catalog::Case first_case(const catalog::Entry& e, catalog::Size size) {
    // The inputs' values do not change the program, so any seed will do.
    auto cases = e.cases(size, 0);
    if (cases.empty()) throw Error("catalog entry '" + e.name + "' has no cases at this size");
    return std::move(cases.front());
}

}  // namespace kiln::cli
