// The printed tile format (seed 000): tile[2x3](0, 1, 2; 3, 4, 5); scalars plainly.
#include <ostream>
#include <sstream>

#include <kiln/eager.h>

#include "check/shape_rules.h"

namespace kiln {

std::string repr(double x) { return repr_float(x); }
std::string repr(std::int64_t x) { return std::to_string(x); }

namespace {
std::string element(const detail::Value& v, std::size_t k) {
    if (is_float(v.type.kind)) return repr_float(v.data->floats[k]);
    if (v.type.kind == Kind::Bool) return v.data->ints[k] ? "true" : "false";
    return std::to_string(v.data->ints[k]);
}
}  // namespace

std::string to_string(const detail::Value& v) {
    if (!v.data) return "<traced " + std::string(kind_name(v.type.kind)) + " " + check::dims_str(v.type.dims) + ">";
    std::size_t count = static_cast<std::size_t>(v.type.count());
    if (v.type.dims.empty()) return element(v, 0);
    std::string s = "tile[";
    for (std::size_t d = 0; d < v.type.dims.size(); ++d) s += (d ? "x" : "") + std::to_string(v.type.dims[d].extent);
    s += "](";
    std::size_t row = static_cast<std::size_t>(v.type.dims.back().extent);
    for (std::size_t k = 0; k < count; ++k) {
        if (k) s += (v.type.dims.size() > 1 && k % row == 0) ? "; " : ", ";
        s += element(v, k);
    }
    return s + ")";
}

std::ostream& operator<<(std::ostream& os, const detail::Value& v) { return os << to_string(v); }

}  // namespace kiln
