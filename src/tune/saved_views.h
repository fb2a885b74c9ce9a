// The writable views of a launch, saved so that the autotuner can run one candidate
// after another on the user's own arguments and leave them as one launch would: each
// view's bytes (the span from its lowest to its highest element) are copied out
// before tuning and back before every run, wherever they live (host or CUDA device).
// After a run, the outputs are read back and compared with the first candidate's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <kiln/kernel.h>
#include <kiln/target.h>

namespace kiln::tune {

// The bytes of one view's span, with where its elements sit in them.
struct ViewBytes {
    std::size_t arg = 0;              // position in the launch's arguments
    std::int64_t lowest = 0;          // the span's first element offset (offsets are relative to it)
    std::vector<std::byte> bytes;
};

// How one run's outputs differ from the reference run's.
struct Difference {
    double relative = 0;  // largest |out - ref| / max |ref| of any output (infinite: a NaN where the other has none)
    bool ok = true;       // every output within its tolerance, and equal bits where bits must match
    std::string why;      // when not ok: the first output and element at fault
};

class SavedViews {
public:
    // Saves every writable view of `args` (read-only views and scalars are left alone).
    explicit SavedViews(const std::vector<detail::Arg>& args);
    void restore() const;                          // writes the saved bytes back
    std::vector<ViewBytes> read() const;           // the writable views as they are now
    std::size_t count() const { return saved_.size(); }

    // Compares `now` with `reference` (both from read()), element by element over
    // each view: floats by the largest difference relative to the reference's largest
    // magnitude, at most `tolerance` (< 0: the output kind's default, tune.h);
    // integers, and every element when `bitwise`, by their bits.
    Difference compare(const std::vector<ViewBytes>& now, const std::vector<ViewBytes>& reference, bool bitwise,
                       double tolerance) const;

private:
    const std::vector<detail::Arg>& args_;
    std::vector<ViewBytes> saved_;
};

// The default tolerance for outputs of `kind` (tune.h: TuneOptions::tolerance).
double default_tolerance(Kind kind);

}  // namespace kiln::tune
