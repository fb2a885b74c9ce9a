// The calling convention between kiln's host side and a generated CPU kernel.
// The host includes this header and the emitter pastes the same text into every
// generated source, so the two sides cannot disagree. Like kround.h it includes
// nothing and uses only built-in types.
#ifndef KILN_CPU_ABI_H
#define KILN_CPU_ABI_H

namespace kiln_cpu {

enum { max_rank = 8 };

// A launch argument: a view (element pointer, extents and strides in elements)
// or a scalar (f for float kinds, i for integers and bools, as given: the
// kernel rounds or wraps it to the parameter's kind).
struct View {
    void* data;
    long long extent[max_rank];
    long long stride[max_rank];
};
struct Arg {
    View view;
    double f;
    long long i;
};

// Where an instance stopped: a load or store with bounds::check or
// bounds::assume reached an element outside its view.
enum Phase { before_grid = 0, in_grid = 1, after_grid = 2 };
struct Status {
    int access;                  // the access's number (emitter order); -1: none
    int phase;                   // Phase: orders errors as the interpreter meets them
    long long pid;               // the instance, -1 outside the grid
    long long coord[max_rank];   // the offending element's index in the view
};

// Exported by every generated kernel (extern "C"):
//   kiln_grid: writes the grid's extents (the parallel nest's domain, evaluated
//     from the arguments) and returns its rank (0: no grid, one instance), or
//     -1 with *st filled when what the extents read is out of range.
//   kiln_run: runs instances [begin, end) of `total` in pid order, plus what
//     precedes the grid (and, when end == total, what follows it). Returns 0, or
//     1 with *st filled at the first out-of-range access.
typedef int (*GridFn)(const Arg* args, long long* extents, Status* st);
typedef int (*RunFn)(const Arg* args, long long begin, long long end, long long total, Status* st);

}  // namespace kiln_cpu

#endif  // KILN_CPU_ABI_H
