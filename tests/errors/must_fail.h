// The must-fail corpus's harness: programs a user gets wrong, each beside the
// message kiln must give for it, in the manner of Triton's test/Triton/invalid.mlir.
//
// A case is the line of this file where the mistake is, the program, and kiln's
// whole message after "<file>:<line>: ". The program is written on the case's own
// line, so __LINE__ names the offending call; a case whose program needs more lines
// writes `__LINE__ + n`. A case of line 0 is an error that names no line (an
// environment variable, say): its message is the whole text.
//
// Every case must throw a kiln::Error with exactly that text: not another
// exception (an internal error is kiln's bug), not a crash, not silence.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <source_location>
#include <string>
#include <vector>

#include <kiln/kiln.h>

namespace must_fail {

struct Case {
    int line = 0;
    std::function<void()> program;
    std::string message;
};

inline std::string base_name(const char* file) {
    std::string f = file;
    auto slash = f.find_last_of('/');
    return slash == std::string::npos ? f : f.substr(slash + 1);
}

// Not a macro: __LINE__ inside a macro's arguments is the line where the macro
// is invoked (GCC), not the case's own line.
inline void expect(const std::vector<Case>& cases, std::source_location at = std::source_location::current()) {
    const std::string base = base_name(at.file_name());
    for (const Case& c : cases) {
        const std::string where = base + ":" + std::to_string(c.line);
        const std::string expected = c.line ? where + ": " + c.message : c.message;
        try {
            c.program();
        } catch (const kiln::Error& e) {
            EXPECT_EQ(std::string(e.what()), expected) << "the case at " << where;
            if (c.line) EXPECT_EQ(e.loc().line, static_cast<unsigned>(c.line)) << "the case at " << where;
            continue;
        } catch (const std::exception& e) {
            ADD_FAILURE() << "the case at " << where << " threw something other than a kiln::Error: " << e.what() << "\nexpected: " << expected;
            continue;
        }
        ADD_FAILURE() << "the case at " << where << " raised nothing; expected: " << expected;
    }
}

// Launches k on `t` with an argument of extents 4 x ... x 4 for each view
// parameter (zeros; read-only where the parameter is) and 1 for each scalar: for
// cases whose mistake is in the kernel's body, found when it is traced.
inline void trace(const kiln::Kernel& k, const kiln::Target& t = kiln::interp(), std::int64_t extent = 4) {
    std::vector<std::vector<unsigned char>> storage;
    storage.reserve(k.params().size());  // no reallocation: the arguments point into it
    std::vector<kiln::detail::Arg> args;
    for (const auto& p : k.params()) {
        kiln::detail::Arg a;
        a.is_view = p.is_view;
        a.kind = p.kind;
        if (p.is_view) {
            a.read_only = !p.writable;
            std::int64_t count = 1;
            for (int d = 0; d < p.rank; ++d) a.extents.push_back(extent), count *= extent;
            a.strides = kiln::detail::row_major_strides(a.extents);
            storage.emplace_back(static_cast<std::size_t>(count * kiln::kind_bytes(p.kind)) + 8);
            a.data = storage.back().data();
        } else {
            a.f = 1;
            a.i = 1;
        }
        args.push_back(a);
    }
    kiln::run_kernel(k, t, args, {}, kiln::Loc::here());
}

}  // namespace must_fail
