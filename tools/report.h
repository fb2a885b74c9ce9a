// How the tool writes results: durations, errors, element values, aligned columns
// and the summary line.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "catalog.h"
#include "progress.h"

namespace kiln::cli {

std::string format_duration(double seconds);  // "412.0 us", "3.27 ms", "1.84 s"
std::string format_error(double x);           // "3.1e-08" (0 prints as "0")
// Element i of a buffer: its value with round-trip digits and its bits in hex.
std::string format_element(const catalog::Buffer& b, std::int64_t i);
// s left-aligned in a column of the width, then a two-space gutter (so that a value
// longer than its column still stands apart from the next).
std::string column(const std::string& s, std::size_t width);
inline constexpr std::size_t kShapeWidth = 20;  // "16x16 d8 dv8 block 8"
std::size_t name_width(const std::vector<const catalog::Entry*>& entries);
const char* size_name(catalog::Size size);
// `kiln: <message>` on stderr (an internal error's message already names kiln).
void print_error(const std::exception& e);

// An entry's cases at a size; when building them raises an error, prints the entry's
// line and the error and returns nothing (the caller counts the entry as failed).
std::optional<std::vector<catalog::Case>> cases_or_report(const catalog::Entry& e, catalog::Size size, std::uint64_t seed,
                                                          std::size_t width, Progress& progress);

// Visits every case of the entries at a size, showing progress: check(entry, case)
// prints the case's line and returns whether it passed. An entry whose cases cannot
// be built counts as one failure. Prints the summary line; returns the exit status.
int for_each_case(const std::vector<const catalog::Entry*>& entries, catalog::Size size, std::uint64_t seed, std::size_t width,
                  const std::function<bool(const catalog::Entry&, catalog::Case&, Progress&)>& check);

// Tallies cases and prints the summary `N passed, M failed` alone on its line.
struct Tally {
    int passed = 0;
    int failed = 0;
    void add(bool ok) { ++(ok ? passed : failed); }
    int print() const;  // returns the exit status
};

}  // namespace kiln::cli
