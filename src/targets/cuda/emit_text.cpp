// Text helpers of the CUDA emitter: C types and storage types of element kinds,
// literals, word types for vector moves, and row-major coordinates.
#include "targets/cuda/emitter.h"

#include "targets/common/literals.h"

namespace kiln::cu {

std::string ctype(Kind k) {
    switch (k) {
        case Kind::Bool: return "bool";
        case Kind::I8: case Kind::I32: return "int";
        case Kind::I64: return "long long";
        case Kind::F64: return "double";
        default: return "float";
    }
}

std::string stype(Kind k) {
    switch (k) {
        case Kind::Bool: return "unsigned char";
        case Kind::I8: return "signed char";
        case Kind::I32: return "int";
        case Kind::I64: return "long long";
        case Kind::F16: case Kind::BF16: return "unsigned short";
        case Kind::F32: return "float";
        case Kind::F64: return "double";
    }
    return "?";
}

std::string num(std::int64_t v) { return std::to_string(v); }

int register_bytes(Kind k) { return k == Kind::Bool ? 1 : k == Kind::I64 || k == Kind::F64 ? 8 : 4; }

int storage_bytes(Kind k) {
    switch (k) {
        case Kind::Bool: case Kind::I8: return 1;
        case Kind::F16: case Kind::BF16: return 2;
        case Kind::I64: case Kind::F64: return 8;
        default: return 4;
    }
}

std::string literal(Kind k, double f, std::int64_t i) { return targets::literal(k, f, i, targets::kCudaDialect); }

std::string word_type(int bytes) {
    switch (bytes) {
        case 16: return "uint4";
        case 8: return "uint2";
        case 4: return "unsigned";
        case 2: return "unsigned short";
        default: return "unsigned char";
    }
}

std::vector<std::int64_t> strides_of(const std::vector<Dim>& dims) {
    std::vector<std::int64_t> s(dims.size(), 1);
    for (std::size_t k = dims.size(); k-- > 1;) s[k - 1] = s[k] * dims[k].extent;
    return s;
}

std::string coord(const std::string& e, const std::vector<Dim>& dims, std::size_t d) {
    if (dims[d].extent == 1) return "0";
    auto s = strides_of(dims);
    std::string r = s[d] == 1 ? e : "(" + e + ") / " + num(s[d]);
    if (d > 0) r = "(" + r + ") % " + num(dims[d].extent);
    return "(" + r + ")";
}

}  // namespace kiln::cu
