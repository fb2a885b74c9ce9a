#include "targets/cpu/undo_log.h"

#include "ir/attrs.h"

#include <algorithm>
#include <cstring>

namespace kiln::native {

namespace {

// Calls f(byte offset, bytes) for each run of contiguous elements of the view, in
// row-major order of its indices.
template <class F> void for_each_run(const detail::Arg& a, F&& f) {
    const std::size_t rank = a.extents.size();
    for (auto e : a.extents)
        if (e <= 0) return;
    const std::int64_t width = kind_bytes(a.kind);
    const bool inner_contiguous = a.strides.back() == 1;
    const std::int64_t run = inner_contiguous ? a.extents.back() : 1;
    std::vector<std::int64_t> idx(rank, 0);
    for (;;) {
        std::int64_t off = 0;
        for (std::size_t k = 0; k < rank; ++k) off += idx[k] * a.strides[k];
        f(off * width, run * width);
        // Next index, the innermost dimension advancing by the run.
        std::size_t k = rank;
        while (k-- > 0) {
            idx[k] += k + 1 == rank ? run : 1;
            if (idx[k] < a.extents[k]) break;
            idx[k] = 0;
            if (k == 0) return;
        }
    }
}

}  // namespace

std::vector<int> views_to_restore_on_failure(const ir::Program& p) {
    bool can_fail = false;
    std::vector<int> written;
    ir::walk(p.body, [&](const ir::Node& n) {
        if (n.op != detail::OpCode::load && n.op != detail::OpCode::store) return;
        can_fail = can_fail || ir::bounds_policy(n) != bounds::zero;
        if (n.op == detail::OpCode::store && std::find(written.begin(), written.end(), ir::param_index(n)) == written.end())
            written.push_back(ir::param_index(n));
    });
    if (!can_fail) written.clear();
    return written;
}

void UndoLog::save(const detail::Arg& a) {
    Saved s{a, {}};
    for_each_run(a, [&](std::int64_t at, std::int64_t bytes) {
        const auto* from = static_cast<const unsigned char*>(a.data) + at;
        s.bytes.insert(s.bytes.end(), from, from + bytes);
    });
    saved_.push_back(std::move(s));
}

void UndoLog::restore() const {
    for (auto s = saved_.rbegin(); s != saved_.rend(); ++s) {
        std::size_t done = 0;
        for_each_run(s->view, [&](std::int64_t at, std::int64_t bytes) {
            std::memcpy(static_cast<unsigned char*>(s->view.data) + at, s->bytes.data() + done, static_cast<std::size_t>(bytes));
            done += static_cast<std::size_t>(bytes);
        });
    }
}

}  // namespace kiln::native
