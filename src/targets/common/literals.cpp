#include "targets/common/literals.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace kiln::targets {

const LiteralDialect kHostDialect{"__builtin_bit_cast(float, %s)", "__builtin_bit_cast(double, %s)", "1", "0", false};
const LiteralDialect kCudaDialect{"__uint_as_float(%s)", "__longlong_as_double(%s)", "true", "false", true};

std::string literal(Kind k, double f, std::int64_t i, const LiteralDialect& d) {
    char bits[40], buf[96];
    if (k == Kind::Bool) return i ? d.true_word : d.false_word;
    if (!is_float(k)) {
        if (k == Kind::I64) return i == INT64_MIN ? "(-9223372036854775807LL - 1)" : std::to_string(i) + "LL";
        if (k == Kind::I32 && i == INT32_MIN) return "(-2147483647 - 1)";
        return std::to_string(i);
    }
    if (k == Kind::F32 || (k != Kind::F64 && d.narrow_in_float)) {
        float x = static_cast<float>(f);
        if (std::isfinite(x)) {
            std::snprintf(buf, sizeof buf, "%af", static_cast<double>(x));
            return buf;
        }
        std::uint32_t b;
        std::memcpy(&b, &x, 4);
        std::snprintf(bits, sizeof bits, "0x%08" PRIx32 "u", b);
        std::snprintf(buf, sizeof buf, d.float_from_bits, bits);
        return buf;
    }
    // f64, and f16/bf16 held in double.
    if (std::isfinite(f)) {
        std::snprintf(buf, sizeof buf, "%a", f);
        return buf;
    }
    std::uint64_t b;
    std::memcpy(&b, &f, 8);
    std::snprintf(bits, sizeof bits, "0x%016" PRIx64 "ULL", b);
    std::snprintf(buf, sizeof buf, d.double_from_bits, bits);
    return buf;
}

}  // namespace kiln::targets
