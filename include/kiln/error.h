// kiln's two error kinds: a user error (kiln::Error, catchable, names the user's
// file:line and the op) and an internal error (a compiler bug; says so and where).
#pragma once

#include <source_location>
#include <stdexcept>
#include <string>
#include <string_view>

namespace kiln {

// Where a DSL call was written: the user's file and line.
struct Loc {
    const char* file = "";
    unsigned line = 0;

    static Loc here(std::source_location s = std::source_location::current()) {
        return Loc{s.file_name(), s.line()};
    }
    bool known() const { return line != 0; }
    // "gemm.cpp:42" (the file's base name keeps messages short and stable).
    std::string str() const;
};

// A user error: bad shapes, kinds, bounds, arguments, environment. The message
// reads "file:line: op: what is wrong" when the location is known.
class Error : public std::runtime_error {
public:
    Error(Loc loc, std::string_view op, std::string_view what);
    explicit Error(std::string_view what);

    const Loc& loc() const { return loc_; }
    // The message without the "file:line: " prefix: "add: shape mismatch: 2x3 vs 3x2".
    const std::string& detail() const { return detail_; }

private:
    Loc loc_;
    std::string detail_;
};

// A bug in kiln itself, never the user's fault.
class InternalError : public std::logic_error {
public:
    InternalError(std::string_view what, std::source_location where = std::source_location::current());
};

[[noreturn]] void fail(Loc loc, std::string_view op, std::string_view what);
[[noreturn]] void internal_fail(std::string_view what,
                                std::source_location where = std::source_location::current());

// KILN_ASSERT guards kiln's own invariants (not user input).
#define KILN_ASSERT(cond)                                        \
    do {                                                         \
        if (!(cond)) ::kiln::internal_fail("assertion failed: " #cond); \
    } while (0)

}  // namespace kiln
