#include "support/environment.h"

#include <charconv>
#include <cstdlib>
#include <string>
#include <string_view>

#include <kiln/error.h>

namespace kiln::support {

std::optional<std::int64_t> env_integer(const char* name, std::int64_t lo, std::int64_t hi) {
    const char* value = std::getenv(name);
    if (!value || !*value) return std::nullopt;
    std::string_view text = value;
    std::int64_t n = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec != std::errc() || end != text.data() + text.size() || n < lo || n > hi)
        throw Error(std::string(name) + "='" + value + "' is not a whole number from " + std::to_string(lo) + " to " + std::to_string(hi));
    return n;
}

std::optional<std::string> env_choice(const char* name, std::initializer_list<const char*> choices) {
    const char* value = std::getenv(name);
    if (!value || !*value) return std::nullopt;
    std::string list;
    for (const char* c : choices) {
        if (std::string_view(value) == c) return std::string(value);
        list += (list.empty() ? "" : ", ") + std::string(c);
    }
    throw Error(std::string(name) + "='" + value + "' is not one of: " + list);
}

}  // namespace kiln::support
