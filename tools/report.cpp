#include "report.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "commands.h"

namespace kiln::cli {

std::string format_duration(double seconds) {
    char buf[32];
    if (seconds < 1e-3) std::snprintf(buf, sizeof buf, "%.1f us", seconds * 1e6);
    else if (seconds < 1.0) std::snprintf(buf, sizeof buf, "%.2f ms", seconds * 1e3);
    else std::snprintf(buf, sizeof buf, "%.2f s", seconds);
    return buf;
}

std::string format_error(double x) {
    if (x == 0) return "0";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1e", x);
    return buf;
}

std::string format_element(const catalog::Buffer& b, std::int64_t i) {
    char value[64];
    auto end = std::to_chars(value, value + sizeof value, b.get(i)).ptr;  // shortest round-trip
    const int width = kind_bytes(b.kind);
    std::uint64_t bits = 0;  // little-endian hosts: the element's bytes as an integer
    std::memcpy(&bits, b.bytes.data() + i * width, static_cast<std::size_t>(width));
    char hex[24];
    std::snprintf(hex, sizeof hex, "0x%0*llx", 2 * width, static_cast<unsigned long long>(bits));
    return std::string(value, end) + " (" + hex + ")";
}

std::string column(const std::string& s, std::size_t width) {
    return s + std::string(width > s.size() ? width - s.size() : 0, ' ') + "  ";
}

std::size_t name_width(const std::vector<const catalog::Entry*>& entries) {
    std::size_t w = 0;
    for (const auto* e : entries) w = std::max(w, e->name.size());
    return w;
}

const char* size_name(catalog::Size size) {
    switch (size) {
        case catalog::Size::small: return "small";
        case catalog::Size::medium: return "medium";
        case catalog::Size::large: return "large";
    }
    return "?";
}

void print_error(const std::exception& e) {
    std::cout.flush();  // keep the message after the results it follows
    if (dynamic_cast<const InternalError*>(&e)) std::cerr << e.what() << std::endl;
    else std::cerr << "kiln: " << e.what() << std::endl;
}

std::optional<std::vector<catalog::Case>> cases_or_report(const catalog::Entry& e, catalog::Size size, std::uint64_t seed,
                                                          std::size_t width, Progress& progress) {
    try {
        return e.cases(size, seed);
    } catch (const Error& err) {
        progress.clear();
        std::cout << column(e.name, width) << "cases could not be built" << std::endl;
        print_error(err);
        return std::nullopt;
    }
}

int for_each_case(const std::vector<const catalog::Entry*>& entries, catalog::Size size, std::uint64_t seed, std::size_t width,
                  const std::function<bool(const catalog::Entry&, catalog::Case&, Progress&)>& check) {
    Tally tally;
    Progress progress(entries.size());
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const catalog::Entry& e = *entries[i];
        progress.show(i, e.name);
        auto cases = cases_or_report(e, size, seed, width, progress);
        if (!cases) {
            tally.add(false);
            continue;
        }
        for (auto& c : *cases) {
            progress.show(i, e.name + " " + c.shape);
            tally.add(check(e, c, progress));
        }
    }
    progress.clear();
    return tally.print();
}

int Tally::print() const {
    std::cout << passed << " passed, " << failed << " failed" << std::endl;
    return failed == 0 ? kExitOk : kExitFailed;
}

}  // namespace kiln::cli
