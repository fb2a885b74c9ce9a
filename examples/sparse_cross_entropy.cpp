// sparse_cross_entropy: per row, loss = logsumexp(logits) - logits[label] and its
// gradient softmax(logits) - one_hot(label), labels i64 (seed 004, section 6). gather
// picks the labelled logit out of the loaded tile; no second memory read.
#include <algorithm>
#include <cmath>

#include "catalog.h"

namespace kiln::catalog {
namespace {

Kernel make_kernel() {
    return kernel("sparse_cross_entropy", [](View<const f32, 2> logits, View<const i64, 1> labels, View<f32, 1> losses,
                                             View<f32, 2> gradient) {
        auto row = axis("row", logits.extent<0>());
        auto r = axis("local_row", 1);
        auto c = axis("class", logits.extent<1>());
        for (auto& nest : parallel(shape(row))) {
            auto origin = coord(nest.index(), 0);
            auto value = logits[origin, shape(r, c)];
            auto label = labels[coord(nest.index()), shape(r)];
            auto peak = reduce(value, c, maximum);
            auto exponentials = exp(value - peak);
            auto total = reduce(exponentials, c, add);
            auto selected = gather(value, label, c);
            losses(coord(nest.index()), shape(r)).store(log(total) + peak - selected);
            auto one_hot = ite(iota(c) == label, 1.0f, 0.0f);
            gradient(origin, shape(r, c)).store(exponentials / total - one_hot);
        }
    });
}

// The kernel's arithmetic on Bounded values (error_bound.h). The loss
// log(total) + max - z[label] is a difference of terms up to ~16: its bound follows
// their magnitudes, so a near-zero loss is bounded in absolute terms. So is the
// gradient at the label, softmax - 1, which cancels when the label wins.
Bounds error_bound(const Case& c, std::int64_t rows, std::int64_t classes) {
    auto z = values(*c.args[0]), label = values(*c.args[1]);
    Bounds out(2);
    for (std::int64_t i = 0; i < rows; ++i) {
        std::vector<Bounded> value, exponential;
        for (std::int64_t j = 0; j < classes; ++j) value.push_back(exact(z[i * classes + j]));
        Bounded peak = value.front();
        for (const auto& v : value) peak = max(peak, v);
        for (const auto& v : value) exponential.push_back(exp(v - peak));
        const Bounded total = sum(exponential, reduction_depth(classes));
        const auto y = static_cast<std::int64_t>(label[i]);
        out[0].push_back(log(total) + peak - value[y]);
        for (std::int64_t j = 0; j < classes; ++j) out[1].push_back(exponential[j] / total - (j == y ? 1.0 : 0.0));
    }
    return out;
}

Entry make_sparse_cross_entropy() {
    Entry e;
    e.name = "sparse_cross_entropy";
    e.description = "softmax cross entropy with i64 class labels: per-row loss and gradient";
    e.cases = [](Size size, std::uint64_t seed) {
        std::vector<std::array<std::int64_t, 2>> shapes;
        switch (size) {
            case Size::small: shapes = {{4, 6}, {7, 13}, {3, 1}}; break;
            case Size::medium: shapes = {{256, 100}, {100, 1000}, {33, 4097}}; break;
            case Size::large: shapes = {{8192, 1000}, {1024, 32000}, {65536, 10}}; break;
        }
        std::vector<Case> cases;
        for (auto [rows, classes] : shapes) {
            Case c;
            c.shape = std::to_string(rows) + "x" + std::to_string(classes);
            c.kernel = make_kernel();
            auto pick = uniform(seed + 1, 0, static_cast<double>(classes));
            c.args = {input(Kind::F32, {rows, classes}, uniform(seed, -8, 8)),
                      input(Kind::I64, {rows}, [pick](std::int64_t i) { return std::floor(pick(i)); }),
                      output(Kind::F32, {rows}), output(Kind::F32, {rows, classes})};
            c.scalars.assign(c.args.size(), 0);
            c.reference = [rows, classes](const Case& c) {
                auto z = values(*c.args[0]), label = values(*c.args[1]);
                std::vector<double> loss(static_cast<std::size_t>(rows)), grad(z.size());
                for (std::int64_t i = 0; i < rows; ++i) {
                    const double* v = z.data() + i * classes;
                    double peak = *std::max_element(v, v + classes), total = 0;
                    for (std::int64_t j = 0; j < classes; ++j) total += std::exp(v[j] - peak);
                    auto y = static_cast<std::int64_t>(label[i]);
                    loss[i] = std::log(total) + peak - v[y];
                    for (std::int64_t j = 0; j < classes; ++j) grad[i * classes + j] = std::exp(v[j] - peak) / total - (j == y ? 1.0 : 0.0);
                }
                return std::vector<std::vector<double>>{loss, grad};
            };
            // The loss bound is ~2e-6 at 13 classes, the gradient's ~2e-6 of each
            // probability. The wrong label's logit moves the loss by ~5 (10^6 bounds);
            // a one-hot at the wrong class moves two gradients by 1.
            c.error_bound = [rows, classes](const Case& c) { return error_bound(c, rows, classes); };
            cases.push_back(std::move(c));
        }
        return cases;
    };
    return e;
}

}  // namespace

KILN_CATALOG_ENTRY(make_sparse_cross_entropy);

}  // namespace kiln::catalog
