// CudaLayout: the distribution of one value over an instance's threads
// (cuda_layout.h has the formulas), its description for plans, and a host model of
// its index expressions.
#include <algorithm>

#include "passes/cuda_layout.h"

namespace kiln::passes {

namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
std::int64_t pow2_ceil(std::int64_t x) {
    std::int64_t p = 1;
    while (p < x) p *= 2;
    return p;
}
std::string str(std::int64_t v) { return std::to_string(v); }

// The holds a layout reduces to, whatever the value's shape: a one-row tile is its
// columns, a one-column tile of single-element runs its rows.
CudaHolds effective_holds(const CudaLayout& l) {
    if (l.holds == CudaHolds::tile && l.rows == 1 && l.rows_per_round() == 1) return CudaHolds::columns;
    if (l.holds == CudaHolds::tile && l.cols == 1 && l.vec == 1 && l.row_runs == 1) return CudaHolds::rows;
    return l.holds;
}

}  // namespace

std::int64_t CudaLayout::slots() const {
    if (uniform) return 1;
    switch (holds) {
        case CudaHolds::tile: return row_rounds * row_runs * vec;
        case CudaHolds::columns: return row_runs * vec;
        case CudaHolds::rows: return row_rounds;
    }
    return 1;
}

bool CudaLayout::ragged_rows() const { return holds != CudaHolds::columns && row_rounds * rows_per_round() > rows; }
bool CudaLayout::ragged_cols() const { return holds != CudaHolds::rows && (shifted || row_runs * group * vec > cols); }

bool CudaLayout::replicated() const {
    if (uniform) return true;
    if (holds == CudaHolds::columns) return rows_per_round() > 1;
    if (holds == CudaHolds::rows) return group > 1;
    return false;
}

std::optional<std::int64_t> CudaLayout::element(int t, std::int64_t j, int shift) const {
    if (uniform) return j == 0 ? std::optional<std::int64_t>(0) : std::nullopt;
    if (j < 0 || j >= slots() || t < 0 || t >= threads) return std::nullopt;
    const std::int64_t lane = t % group, band = t / group;
    auto column = [&](std::int64_t k, std::int64_t i) { return k * group * vec + lane * vec + i - (shifted ? shift : 0); };
    switch (holds) {
        case CudaHolds::tile: {
            std::int64_t row = j / (row_runs * vec) * rows_per_round() + band, col = column(j / vec % row_runs, j % vec);
            if (row >= rows || col < 0 || col >= cols) return std::nullopt;
            return row * cols + col;
        }
        case CudaHolds::columns: {
            std::int64_t col = column(j / vec, j % vec);
            return col >= 0 && col < cols ? std::optional<std::int64_t>(col) : std::nullopt;
        }
        case CudaHolds::rows: {
            std::int64_t row = j * rows_per_round() + band;
            return row < rows ? std::optional<std::int64_t>(row) : std::nullopt;
        }
    }
    return std::nullopt;
}

bool CudaLayout::same_distribution(const CudaLayout& o) const {
    if (uniform || o.uniform) return uniform == o.uniform && count == o.count;
    CudaHolds a = effective_holds(*this), b = effective_holds(o);
    if (a != b || threads != o.threads || count != o.count || (a != CudaHolds::rows && shifted != o.shifted)) return false;
    switch (a) {
        case CudaHolds::tile:
            return rows == o.rows && cols == o.cols && vec == o.vec && group == o.group && row_runs == o.row_runs && row_rounds == o.row_rounds;
        case CudaHolds::columns: return cols == o.cols && vec == o.vec && group == o.group && row_runs == o.row_runs;
        case CudaHolds::rows: return rows == o.rows && group == o.group && row_rounds == o.row_rounds;
    }
    return false;
}

std::string CudaLayout::describe(bool scalar) const {
    if (scalar) return "uniform scalar";
    if (uniform) return "uniform (every thread holds the element)";
    std::string runs = vec == 1 ? "cyclic over " + str(threads) + " threads" : "runs of " + str(vec) + " over " + str(threads) + " threads";
    std::string per_row = ", " + str(group) + (group == 1 ? " thread" : " threads") + " per row";
    switch (holds) {
        case CudaHolds::tile: {
            std::string s = runs + ", " + str(slots()) + "/thread" + per_row;
            if (rows_per_round() > 1 && rows > 1) s += ", " + str(rows_per_round()) + " rows at a time";
            if (shifted) s += ", runs on the row's 16-byte boundaries (its first column kiln_shift elements past one)";
            else if (ragged_cols()) s += cols % vec ? ", the last run of a row partial" : ", rows padded to " + str(row_runs * group * vec);
            return s;
        }
        case CudaHolds::columns:
            return "the columns of each thread's runs: " + runs + ", " + str(slots()) + "/thread" + per_row +
                   (shifted ? ", on the row's 16-byte boundaries" : "") + (replicated() ? " (held by each of the " + str(rows_per_round()) + " rows at a time)" : "");
        case CudaHolds::rows:
            return "the rows of each thread's slots: " + str(slots()) + "/thread" + per_row + ", " + str(rows_per_round()) + " rows at a time";
    }
    return "?";
}

CudaLayout CudaLayouts::tile(std::int64_t rows, std::int64_t cols, int v) const {
    CudaLayout l;
    l.count = rows * cols;
    l.threads = threads;
    if (l.count == 1) {
        l.uniform = true;
        return l;
    }
    l.rows = rows;
    l.cols = cols;
    while (v > 1 && v / 2 >= cols) v /= 2;  // a run is no longer than a row needs
    l.vec = v;
    const std::int64_t row_runs = ceil_div(cols, v);
    // One row: every thread works on it. Several: groups as small as a row needs.
    l.group = rows == 1 ? threads : static_cast<int>(std::min<std::int64_t>(threads, pow2_ceil(row_runs)));
    l.row_runs = ceil_div(row_runs, l.group);
    l.row_rounds = ceil_div(rows, l.rows_per_round());
    return l;
}

CudaLayout CudaLayouts::of(const ir::Node* n) const {
    auto it = values.find(n);
    if (it != values.end()) return it->second;
    std::int64_t cols = n->type.dims.empty() ? 1 : n->type.dims.back().extent;
    return tile(n->type.count() / std::max<std::int64_t>(cols, 1), cols, vec);
}

CudaDecision CudaLayouts::decision(const ir::Node* n) const {
    auto it = decisions.find(n);
    return it != decisions.end() ? it->second : CudaDecision{};
}

std::string describe(const CudaDecision& d) {
    std::string s;
    switch (d.how) {
        case CudaLowering::local: return "";
        case CudaLowering::broadcast_free: s = "broadcast in registers (the operand holds the result's projection)"; break;
        case CudaLowering::recompute: s = "recomputed per element"; break;
        case CudaLowering::row_reduce: s = "row reduction in registers"; break;
        case CudaLowering::column_reduce: s = "column reduction in registers"; break;
        case CudaLowering::full_reduce: s = "reduction in registers"; break;
        case CudaLowering::ordered_fold: s = "ordered fold through shared memory"; break;
        case CudaLowering::staged: s = "staged through shared memory"; break;
        case CudaLowering::padded_transpose: s = "transposed through shared memory in rows of an odd pitch"; break;
        case CudaLowering::vector_access: s = "in runs"; break;
        case CudaLowering::element_access: s = "element by element"; break;
    }
    return d.why.empty() ? s : s + " (" + d.why + ")";
}

std::string describe_aligned_slots(const CudaLayouts& c) {
    if (const ir::Node* source = c.aligned_to)
        return "slots aligned to the 16-byte boundaries of each instance's row of the load" + (source->loc.known() ? " at " + source->loc.str() : "") +
               " (passes/cuda_layout.h: aligned slots)";
    return c.aligned_why.empty() ? "" : "slots not aligned to the rows' 16-byte boundaries: " + c.aligned_why;
}

}  // namespace kiln::passes
