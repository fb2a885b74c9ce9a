// Scans of PTX for what ptxas (CUDA 13.0) compiles wrong, each a pattern the cuda
// emitter keeps out of what it hands NVRTC (tests/unit/cuda_ptxas_workarounds_test.cpp
// says how each was found): the tests check the emitter's kernels with them, and
// tests/fuzz/cuda_ptx_hazards_test.cpp the fuzzer's programs.
#pragma once

#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace kiln::ptx_hazards {

// The PTX lines selecting between the immediates -1.0 and -0.0 (either order).
inline std::vector<std::string> hazardous_selects(const std::string& ptx) {
    static const std::regex line(R"(selp\.f32[^;]*;)");
    std::vector<std::string> found;
    for (auto it = std::sregex_iterator(ptx.begin(), ptx.end(), line); it != std::sregex_iterator(); ++it) {
        const std::string s = it->str();
        if (s.find("0fBF800000") != std::string::npos && s.find("0f80000000") != std::string::npos) found.push_back(s);
    }
    return found;
}

// The PTX lines of a signed 32-bit min or max with an operand a neg.s32 wrote:
// the pair ptxas fuses into a VIMNMX3 without the negation. (Register names are
// per function: in a module of several, a name negated in one may over-report.)
inline std::vector<std::string> negated_signed_min_max(const std::string& ptx) {
    static const std::regex neg(R"(neg\.s32\s+(%r\d+),)"), minmax(R"((min|max)\.s32\s+%r\d+,\s*(%r\d+),\s*(%r\d+);)");
    std::set<std::string> negated;
    for (auto it = std::sregex_iterator(ptx.begin(), ptx.end(), neg); it != std::sregex_iterator(); ++it) negated.insert((*it)[1]);
    std::vector<std::string> found;
    for (auto it = std::sregex_iterator(ptx.begin(), ptx.end(), minmax); it != std::sregex_iterator(); ++it)
        if (negated.count((*it)[2]) || negated.count((*it)[3])) found.push_back(it->str());
    return found;
}

// The PTX lines adding -2^31 to a register a cvt.s64.s32 wrote: NVVM's widening of
// `x ^ 0x80000000` (an i32 x - INT_MIN) to 64 bits as sext(x) - 2^31, 2^32 off for
// negative x (prelude.cpp: "NVVM and the i32 sign bit"). A program's own i64
// arithmetic can write the same pair rightly (cast<i64>(x) - 2^31), so this scans
// kernels known to hold no such arithmetic.
inline std::vector<std::string> sign_extended_sign_flips(const std::string& ptx) {
    static const std::regex cvt(R"(cvt\.s64\.s32\s+(%rd\d+),)"), add(R"(add\.s64\s+%rd\d+,\s*(%rd\d+),\s*-2147483648;)");
    std::set<std::string> widened;
    for (auto it = std::sregex_iterator(ptx.begin(), ptx.end(), cvt); it != std::sregex_iterator(); ++it) widened.insert((*it)[1]);
    std::vector<std::string> found;
    for (auto it = std::sregex_iterator(ptx.begin(), ptx.end(), add); it != std::sregex_iterator(); ++it)
        if (widened.count((*it)[1])) found.push_back(it->str());
    return found;
}

// The PTX lines subtracting C from a register a cvt.s64.s32 wrote from an `add.s32 ..,
// x, C`: NVVM's widening of x itself as sext(x + C) - C, which is 2^32 off where the
// i32 sum wrapped (prelude.cpp: "NVVM and i32 sums with a constant"; fuzz program
// 4962944: x / 29 for x = 29 + INT_MAX came out 0). NVVM writes the same pair rightly
// for index arithmetic whose sums cannot wrap (a column - 2 + j), so this scans one
// kernel known to hold none, not every fuzzed program.
inline std::vector<std::string> widened_through_constant_sums(const std::string& ptx) {
    static const std::regex sum(R"(add\.s32\s+(%r\d+),\s*%r\d+,\s*(-?\d+);)"), cvt(R"(cvt\.s64\.s32\s+(%rd\d+),\s*(%r\d+);)"),
        add(R"(add\.s64\s+%rd\d+,\s*(%rd\d+),\s*(-?\d+);)");
    std::map<std::string, long long> summed;  // i32 register -> the constant added
    for (auto it = std::sregex_iterator(ptx.begin(), ptx.end(), sum); it != std::sregex_iterator(); ++it) summed[(*it)[1]] = std::stoll((*it)[2]);
    std::map<std::string, long long> widened;  // i64 register -> the constant its i32 source had added
    for (auto it = std::sregex_iterator(ptx.begin(), ptx.end(), cvt); it != std::sregex_iterator(); ++it)
        if (auto s = summed.find((*it)[2]); s != summed.end()) widened[(*it)[1]] = s->second;
    std::vector<std::string> found;
    for (auto it = std::sregex_iterator(ptx.begin(), ptx.end(), add); it != std::sregex_iterator(); ++it)
        if (auto w = widened.find((*it)[1]); w != widened.end() && std::stoll((*it)[2]) == -w->second) found.push_back(it->str());
    return found;
}

// The PTX lines narrowing an f64 (cvt.*.f64) whose low word is a known constant: a
// select between f64 immediates with one low word (0.0, 1.0, 2.0, ...), or between
// such selects. ptxas builds those values as register pairs sharing one low register,
// and dropped narrowings of them as repeats though their high registers differed
// (prelude.cpp: "ptxas and f64 values built from halves"; fuzz program 6545841: eight
// cvt.rn.f32.f64 of selects of selects of 0.0, 1.0 and 2.0, four of them gone). Such
// selects feeding f64 arithmetic (kiln's exact math rounds with +-0.5) are common
// and were never seen wrong, so only the narrowings count.
inline std::vector<std::string> narrowed_f64_of_shared_low_words(const std::string& ptx) {
    static const std::regex select(R"(^\s*selp\.f64\s+(%fd\d+),\s*(0d[0-9A-Fa-f]{16}|%fd\d+),\s*(0d[0-9A-Fa-f]{16}|%fd\d+),)"),
        narrowing(R"(^\s*(cvt\.[a-z0-9.]*\.f64\s+%\w+,\s*(%fd\d+);))"), written(R"(^\s*[a-z][\w.]*\s+(%fd\d+),)");
    // NVVM's PTX reuses a register for the values a branch merges, so a register's
    // low word is known from its select until anything else writes it.
    std::map<std::string, std::string> low;  // f64 register -> its known low word (8 hex digits)
    auto low_of = [&](const std::string& operand) -> std::string {
        if (operand.rfind("0d", 0) == 0) return operand.substr(10);
        auto it = low.find(operand);
        return it == low.end() ? std::string() : it->second;
    };
    std::vector<std::string> found;
    std::istringstream lines(ptx);
    std::smatch m;
    for (std::string l; std::getline(lines, l);) {
        if (std::regex_search(l, m, select)) {
            const std::string a = low_of(m[2]), b = low_of(m[3]);
            if (!a.empty() && a == b) low[m[1]] = a;
            else low.erase(m[1]);
        } else if (std::regex_search(l, m, narrowing)) {
            if (low.count(m[2])) found.push_back(m[1]);
        } else if (std::regex_search(l, m, written)) {
            low.erase(m[1]);
        }
    }
    return found;
}

// The PTX lines loading vectors of bytes or halfwords from shared memory. Only bools
// sit in shared memory narrower than a word (f16 and bf16 as floats, i8 as ints), and
// NVVM merges neighbouring bool reads into such loads and picks the bytes out of them,
// which ptxas twice compiled from a register that did not hold the load (fuzz programs
// 4500528 and 6405128; emitter.cpp: shared_element_type). A single narrow load is
// not one: NVVM reads the low byte of a wider value that way where only it is used.
inline std::vector<std::string> merged_shared_subword_loads(const std::string& ptx) {
    static const std::regex load(R"(ld\.shared\.v[248]\.[usb](8|16)\s[^;]*;)");
    std::vector<std::string> found;
    for (auto it = std::sregex_iterator(ptx.begin(), ptx.end(), load); it != std::sregex_iterator(); ++it) found.push_back(it->str());
    return found;
}

}  // namespace kiln::ptx_hazards
