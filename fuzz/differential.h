// One fuzz program run on several targets from identical buffers, each placed
// where its target runs (placement.h), and what each wrote compared: in precision
// exact byte for byte, as the contract says every target writes exactly the
// interpreter's bytes (any f32/f64 NaN matching any NaN: kiln/detail/identical.h
// says why); in precision standard element by element within the bound derived
// from the program (standard_bound.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <kiln/kiln.h>

#include "fuzz/recipe.h"

namespace kiln::fuzz {

// A launch's buffers: the bytes of each view parameter (empty for scalars) and
// the arguments pointing into them.
struct Launch {
    std::vector<std::vector<unsigned char>> bytes;
    std::vector<detail::Arg> args;

    Launch() = default;
    Launch(const Launch& o) : bytes(o.bytes), args(o.args) { rebind(); }
    Launch& operator=(const Launch& o) = delete;
    void rebind();  // points the view arguments at this object's bytes
};

// The recipe's views filled from its data seed (outputs too: a kernel may read an
// inout view, and the bytes it never writes must survive on every target).
Launch make_launch(const Recipe& r);

enum class Verdict : std::uint8_t {
    same,      // every target wrote the reference's bytes
    differs,   // a target wrote other bytes, or raised where the reference did not
    invalid,   // the reference refused the program: a generator bug, not a target's
    internal,  // kiln reported an internal error (a compiler bug) on some target
};
std::string_view verdict_name(Verdict v);

struct Result {
    std::uint64_t seed = 0;
    Verdict verdict = Verdict::same;
    std::string detail;  // the first difference or the error, empty when same
    bool raised = false; // same: every target raised the same error (a bounds::check overrun)
    // Precision standard: output elements compared within a finite bound, and
    // those with none (the program's values there may differ without limit).
    std::int64_t checked = 0, unchecked = 0;
    // Wall seconds each target took (compiling unless a batch compiled it ahead,
    // placing the buffers, running, copying back), for a campaign's time report.
    std::vector<double> target_seconds;
};

// Generates program `seed` and runs it on `targets` (the first is the reference).
Result check_program(std::uint64_t seed, const std::vector<Target>& targets, const CompileOptions& options, const Limits& limits = {});
// The same for a recipe (a shrunk one: minimize.h).
Result check_recipe(const Recipe& r, const std::vector<Target>& targets, const CompileOptions& options);

// The program's recipe and IR, for a report.
std::string show_program(std::uint64_t seed, const Limits& limits = {});
std::string show_recipe(const Recipe& r);

}  // namespace kiln::fuzz
