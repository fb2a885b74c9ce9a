#include "passes/index_width.h"

#include <limits>

namespace kiln::passes {

std::int64_t view_span(const detail::Arg& a) {
    // Launch validation has ruled out negative values and overflow of the span.
    std::int64_t last = 0;
    for (std::size_t d = 0; d < a.extents.size(); ++d) {
        if (a.extents[d] == 0) return 0;
        last += (a.extents[d] - 1) * a.strides[d];
    }
    return last;
}

bool needs_64bit_offsets(const std::vector<detail::Arg>& args) {
    for (const detail::Arg& a : args)
        if (a.is_view && view_span(a) > std::numeric_limits<std::int32_t>::max() - 1) return true;
    return false;
}

void index_width(Lowered& l) {
    if (!l.options.args) return;
    const auto& args = *l.options.args;
    l.options.index64 = needs_64bit_offsets(args);
    for (std::size_t i = 0; i < args.size(); ++i)
        if (args[i].is_view && view_span(args[i]) > std::numeric_limits<std::int32_t>::max() - 1) {
            l.index_reason = "argument " + std::to_string(i) + " spans " + std::to_string(view_span(args[i]) + 1) + " elements";
            break;
        }
}

}  // namespace kiln::passes
