// The operator catalog: each entry is a kernel plus an independent host reference
// (f64 formulas written separately, never the kernel run again), exercised on
// several shapes. Tests, `kiln run`, `kiln compare` and the benchmarks all use it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <array>
#include <vector>

#include <kiln/kiln.h>
#include <kiln/tune.h>

#include "error_bound.h"

namespace kiln::catalog {

enum class Size { small, medium, large };

// A host buffer of any kind (type-erased so that tools can copy, compare and move
// it to a device without knowing the element type).
struct Buffer {
    Kind kind = Kind::F32;
    std::vector<std::int64_t> extents;
    std::vector<std::byte> bytes;
    bool output = false;

    std::int64_t size() const;
    template <class T> T* data() { return reinterpret_cast<T*>(bytes.data()); }
    template <class T> const T* data() const { return reinterpret_cast<const T*>(bytes.data()); }
    double get(std::int64_t i) const;  // element i as a double (any kind)
};

// The outcome of one case on one target.
struct Check {
    bool ok = false;
    double worst = 0;        // the largest |out - ref| / bound over all elements (ok needs <= 1)
    double max_abs = 0;      // largest |out - ref|
    std::string detail;      // the first bad element, when not ok
};

// One shape of one entry: buffers, the kernel, and the reference.
struct Case {
    std::string shape;                        // "13x10x11", shown in reports
    Kernel kernel;
    std::vector<std::shared_ptr<Buffer>> args;  // launch arguments in order (scalars: extents empty)
    std::vector<double> scalars;              // values of scalar arguments, by position (NaN for views)
    // Computes the expected outputs in f64 from the inputs (independently of kiln).
    std::function<std::vector<std::vector<double>>(const Case&)> reference;
    // How far each output element may be from the reference: |out_i - ref_i| <=
    // bound_i, the errors of an analysis that restates the kernel's arithmetic on
    // Bounded values (error_bound.h, docs/catalog.md). Integer outputs, and every
    // output of an exact_integer case, must match exactly (their bounds may be empty).
    std::function<Bounds(const Case&)> error_bound;
    bool exact_integer = false;               // outputs must match exactly (ints, indices, copies)
};

struct Entry {
    std::string name;
    std::string description;
    // The cases at a size; the seed drives the random inputs (fresh per run, reproducible).
    std::function<std::vector<Case>(Size size, std::uint64_t seed)> cases;
    // What `kiln tune` searches (kiln/tune.h): configurations, the first being the
    // one the cases' kernels use, and the kernel of one. Empty: nothing to tune.
    std::vector<Config> tune_space;
    std::function<Kernel(const Config&)> tune_kernel;
};

const std::vector<Entry>& entries();
const Entry* find(const std::string& name);

// Runs a case on a target (copying to and from the device when the target needs it)
// and compares the outputs with the reference.
Check run_case(Case& c, const Target& target, const CompileOptions& options);
// Runs a case and returns its output buffers (for bit-exact comparisons of targets).
std::vector<Buffer> run_outputs(Case& c, const Target& target, const CompileOptions& options);
Check compare(const Case& c, const std::vector<Buffer>& outputs, const std::vector<std::vector<double>>& reference);
// run_outputs with the launch made by `launch` (given the arguments where the target
// runs) instead of running the case's kernel: how `kiln tune` runs a tuner on a case.
std::vector<Buffer> run_outputs_with(Case& c, const Target& target, const std::function<void(const std::vector<detail::Arg>&)>& launch);

// ---- helpers for writing entries

// A GEMM's tiles for `kiln tune`: bm x bn x bk first (the cases' kernel), then the
// tiles the Hopper lowering serves, each once: configurations {bm, bn, bk}.
std::vector<Config> gemm_tile_space(std::int64_t bm, std::int64_t bn, std::int64_t bk);

// A buffer filled from a generator of doubles (rounded to the kind).
std::shared_ptr<Buffer> input(Kind kind, std::vector<std::int64_t> extents, const std::function<double(std::int64_t)>& gen);
std::shared_ptr<Buffer> output(Kind kind, std::vector<std::int64_t> extents);
std::shared_ptr<Buffer> scalar_arg(Kind kind);  // placeholder buffer for a scalar argument
// Uniform random values in [lo, hi) from a seeded generator.
std::function<double(std::int64_t)> uniform(std::uint64_t seed, double lo, double hi);
// Values of a buffer as doubles (inputs, for references).
std::vector<double> values(const Buffer& b);

// The registry: each examples/*.cpp defines `Entry make_<name>()` and registers it
// with KILN_CATALOG_ENTRY(make_<name>); entries() lists them in the catalog's order.
bool register_entry(Entry (*make)());
#define KILN_CATALOG_ENTRY(make) [[maybe_unused]] static const bool kiln_registered_##make = ::kiln::catalog::register_entry(&make)

}  // namespace kiln::catalog
