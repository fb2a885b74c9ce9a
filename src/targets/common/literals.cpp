#include "targets/common/literals.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace kiln::targets {

const LiteralDialect kHostDialect{"__builtin_bit_cast(float, %s)", "__builtin_bit_cast(double, %s)", "1", "0", false};
const LiteralDialect kCudaDialect{"__uint_as_float(%s)", "__longlong_as_double(%s)", "true", "false", true};
const LiteralDialect kMetalDialect{"as_type<float>(%s)", "kf64_from_bits(%s)", "true", "false", true, "L", "UL", false, true};

std::string literal(Kind k, double f, std::int64_t i, const LiteralDialect& d) {
    char bits[40], buf[96];
    if (k == Kind::Bool) return i ? d.true_word : d.false_word;
    if (!is_float(k)) {
        if (k == Kind::I64) return i == INT64_MIN ? "(-9223372036854775807" + std::string(d.i64_suffix) + " - 1)" : std::to_string(i) + d.i64_suffix;
        if (k == Kind::I32 && i == INT32_MIN) return "(-2147483647 - 1)";
        return std::to_string(i);
    }
    if (k == Kind::F32 || (k != Kind::F64 && d.narrow_in_float)) {
        float x = static_cast<float>(f);
        if (std::isfinite(x)) {
            // 9 significant digits name one float; the exponent form is a float literal even for integers.
            std::snprintf(buf, sizeof buf, d.hex_floats ? "%af" : "%.8ef", static_cast<double>(x));
            return buf;
        }
        std::uint32_t b;
        std::memcpy(&b, &x, 4);
        std::snprintf(bits, sizeof bits, "0x%08" PRIx32 "u", b);
        std::snprintf(buf, sizeof buf, d.float_from_bits, bits);
        return buf;
    }
    // f64, and f16/bf16 held in double.
    if (std::isfinite(f) && !d.f64_as_bits) {
        std::snprintf(buf, sizeof buf, "%a", f);
        return buf;
    }
    std::uint64_t b;
    std::memcpy(&b, &f, 8);
    std::snprintf(bits, sizeof bits, "0x%016" PRIx64 "%s", b, d.u64_suffix);
    std::snprintf(buf, sizeof buf, d.double_from_bits, bits);
    return buf;
}

}  // namespace kiln::targets
