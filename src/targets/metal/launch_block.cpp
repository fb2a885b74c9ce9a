#include "targets/metal/launch_block.h"

#include <algorithm>
#include <cstring>

#include "passes/host_scalars.h"

namespace kiln::mtl {

LaunchSlots launch_slots(const ir::Program& p) {
    LaunchSlots s;
    for (const auto& q : p.params) {
        s.first.push_back(s.size);
        s.size += q.is_view ? 2 * q.rank : 1;
    }
    return s;
}

std::vector<std::int64_t> launch_block(const ir::Program& p, const std::vector<detail::Arg>& args, std::int64_t instances) {
    std::vector<std::int64_t> words{instances};
    for (std::size_t k = 0; k < args.size(); ++k) {
        const detail::Arg& a = args[k];
        if (a.is_view) {
            words.insert(words.end(), a.extents.begin(), a.extents.end());
            words.insert(words.end(), a.strides.begin(), a.strides.end());
            continue;
        }
        const Kind kind = p.params[k].kind;
        std::int64_t w = 0;
        if (kind == Kind::F64) {
            const double v = passes::scalar_param_float(kind, a.f);
            std::memcpy(&w, &v, 8);
        } else if (is_float(kind)) {
            const float v = static_cast<float>(passes::scalar_param_float(kind, a.f));  // exact: rounded to the kind
            std::uint32_t b;
            std::memcpy(&b, &v, 4);
            w = b;
        } else {
            w = passes::scalar_param_int(kind, is_float(a.kind) ? static_cast<std::int64_t>(a.f) : a.i);
        }
        words.push_back(w);
    }
    return words;
}

std::int64_t dispatch_groups(bool simdgroup, int threads_per_group, std::int64_t instances) {
    return std::min(kMaxGroups, simdgroup ? instances : (instances + threads_per_group - 1) / threads_per_group);
}

}  // namespace kiln::mtl
