// Rows that do not start on a 16-byte boundary, moved as aligned vectors shifted
// between neighbouring lanes (the code emit_memory.cpp adds to loads and stores of
// runs in a launch whose rows may be misaligned).
//
// The lanes of a warp that hold runs of one row hold consecutive runs, so a row
// whose start is not aligned to the run's vector (a 5123-column bf16 matrix: seven
// rows in eight) still moves in aligned vectors: each lane accesses the aligned
// chunk at the start of its run, and the other part of its run comes from (or goes
// to) the next lane through shuffles; a lane whose neighbour does not hold the
// adjacent run (the row's or the warp's edge) moves that part element by element.
// Loads read only chunks that hold a byte of the run (never past an allocation,
// which is at least 16-byte aligned). A load is shifted in two steps so that no
// load waits for another: each_run issues the aligned chunks and records each
// run's misalignment; unshift_runs, where the values are first used, shuffles.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "targets/cuda/emitter.h"

namespace kiln::cu {

// Whether runs of this layout shift when misaligned (shifted_store, unshift_runs):
// only in a launch whose rows may be misaligned (EmitOptions::misaligned_rows; the
// code costs registers, and spills would reshape aligned kernels), for storage
// narrower than 4 bytes (measured on an H200, 5123-column rows: bf16 0.19 -> 0.32-0.35
// of copy; f32, whose elements move at a quarter of the instructions, was slower
// shifted: 0.54 -> 0.47), runs of one 8- or 16-byte vector, in a CTA of whole warps
// (missing lanes cannot shuffle).
bool shifts_runs(const Emitter& E, const Emitter::Layout& l, Kind storage);

// The name of the array recording the misalignment of each run of a load filling
// raw words `raw` (each_run), "" when its runs do not shift.
std::string shift_record(const Emitter& E, const Node& load, const std::string& raw);
// Declares that array.
void declare_shift_record(Emitter& E, const Node& load, const std::string& raw);

// Completes the shifted runs of a load whose raw words each_run left in `raw`: a
// run whose row is misaligned holds the aligned chunk at its start; its bytes are
// that chunk's after the misalignment and the next lane's chunk's before it (or,
// where no lane holds the next run, the run's own elements from memory).
void unshift_runs(Emitter& E, const Node& load, const std::string& raw);

// Emits the access of one whole run as `bytes`-byte vectors at pointer p.
using VectorAccess = std::function<void(const std::string& p, int bytes)>;

// Stores: this lane's run (vector() converts it into x) is split at the aligned
// boundary; the chunk after it is this run's tail and the next lane's head.
// `mis`: the run's misalignment in bytes (0: aligned, stored by the caller); every
// lane of the warp (or the instance) reaches this code.
void shifted_store(Emitter& E, const std::string& p, const std::string& mis, Kind storage, std::int64_t vec, int bytes, std::int64_t cols,
                   const VectorAccess& vector);

}  // namespace kiln::cu
