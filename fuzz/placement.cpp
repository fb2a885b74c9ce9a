#include "fuzz/placement.h"

#include <cstring>

#include "fuzz/any_tile.h"
#include "fuzz/differential.h"

namespace kiln::fuzz {

namespace {

// The element type a view's bytes travel in.
template <class T> using Stored = std::conditional_t<std::is_same_v<T, bool>, i8, T>;

}  // namespace

Placed::Placed(const Launch& l, Placement where) : args_(l.args) {
    tensors_.resize(l.args.size());
    for (std::size_t p = 0; p < l.args.size(); ++p) {
        detail::Arg& a = args_[p];
        if (!a.is_view) continue;
        const auto& bytes = l.bytes[p];
        with_kind(a.kind, [&](auto tag) {
            using T = Stored<typename decltype(tag)::type>;
            const auto count = static_cast<std::int64_t>(bytes.size() / sizeof(T));
            std::vector<T> values(static_cast<std::size_t>(count));
            if (!bytes.empty()) std::memcpy(values.data(), bytes.data(), bytes.size());
            Tensor<T> there = Tensor<T>({count}, std::move(values)).to(where);
            a.data = there.data();
            a.device = there.device();
            tensors_[p] = std::move(there);
        });
    }
}

void Placed::fetch(Launch& into) const {
    for (std::size_t p = 0; p < tensors_.size(); ++p)
        std::visit(
            [&](const auto& t) {
                if constexpr (!std::is_same_v<std::decay_t<decltype(t)>, std::monostate>) {
                    const auto back = t.to(host());
                    auto& bytes = into.bytes[p];
                    if (!bytes.empty()) std::memcpy(bytes.data(), back.values().data(), bytes.size());
                }
            },
            tensors_[p]);
}

}  // namespace kiln::fuzz
