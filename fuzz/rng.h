// The fuzzer's random source: splitmix64, written out so that a seed names the
// same program on every platform and standard library (std::uniform_int_distribution
// is implementation-defined, so it cannot be part of a reproducible seed). For the
// same reason callers never draw twice in one expression: the order in which
// function arguments or operands are evaluated is unspecified.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace kiln::fuzz {

class Rng {
public:
    explicit Rng(std::uint64_t seed) : state_(seed) {}

    std::uint64_t next() {
        std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    // Uniform in [0, n); the modulo bias is irrelevant for a fuzzer.
    std::int64_t below(std::int64_t n) { return n <= 1 ? 0 : static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(n)); }
    std::int64_t between(std::int64_t lo, std::int64_t hi) { return lo + below(hi - lo + 1); }  // inclusive
    bool chance(int percent) { return below(100) < percent; }
    double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
    template <class T> const T& pick(const std::vector<T>& v) { return v[static_cast<std::size_t>(below(static_cast<std::int64_t>(v.size())))]; }
    template <class T> void shuffle(std::vector<T>& v) {  // Fisher-Yates
        for (std::size_t k = v.size(); k > 1; --k) std::swap(v[k - 1], v[static_cast<std::size_t>(below(static_cast<std::int64_t>(k)))]);
    }
    // An index drawn with the given weights (at least one positive).
    std::size_t weighted(const std::vector<int>& weights) {
        std::int64_t total = 0;
        for (int w : weights) total += w;
        std::int64_t r = below(total);
        for (std::size_t i = 0; i < weights.size(); ++i) {
            if (r < weights[i]) return i;
            r -= weights[i];
        }
        return weights.size() - 1;
    }
    // An independent stream for a sub-task, so that changing how one part draws
    // leaves the others' draws (and thus most of a seed's program) unchanged.
    Rng fork() { return Rng(next()); }

private:
    std::uint64_t state_;
};

}  // namespace kiln::fuzz
