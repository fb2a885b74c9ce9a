// repr_float: kiln's float printing rule (see numeric.h).
#include <kiln/error.h>
#include <kiln/numeric.h>

#include <charconv>
#include <cmath>
#include <string>
#include <system_error>

namespace kiln {

std::string repr_float(double x) {
    if (std::isnan(x)) return "nan";
    if (std::isinf(x)) return x < 0 ? "-inf" : "inf";
    // std::to_chars without a format is the shortest round-trip form (fixed or
    // scientific, whichever is shorter), so its text is the same on every
    // platform, unlike printf's %g. 32 bytes hold the longest such form.
    char buf[32];
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, x);
    if (ec != std::errc{}) internal_fail("repr_float: to_chars buffer too small");
    std::string s(buf, end);
    bool bare_integer = true;
    for (char c : s)
        if (!(c == '-' || (c >= '0' && c <= '9'))) { bare_integer = false; break; }
    if (bare_integer) s += ".0";
    return s;
}

}  // namespace kiln
