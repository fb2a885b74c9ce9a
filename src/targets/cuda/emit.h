// The CUDA emitter: Tile IR -> one CUDA C++ translation unit with one kernel.
//
// Execution model. A program instance (one point of the parallel nest) is a CTA;
// serial and pipeline nests are loops inside it. A tile value is held in
// registers spread over the CTA's T threads in runs of V row-major-consecutive
// elements, dealt to the threads in turn: slot j of thread t holds element
//     e = (j / V) * T * V + t * V + j % V
// (V = 1 is the plain cyclic layout e = t + j * T). V is the kernel's 16-byte
// vector length (8 for f16/bf16, 4 for f32, 2 for f64; from its global loads and
// stores), shortened for a tile until it divides the tile's element count and
// every thread has a whole run; a layout depends only on the element count, so
// elementwise ops and reshapes move nothing. A run never crosses a row when V
// divides the innermost extent: loads and stores then move runs as vectors.
// A one-element tile, like a scalar (rank 0), is uniform: every thread holds it.
// Elementwise ops are thread-local; a reduction over the trailing axes of row
// tiles combines registers, warp shuffles and a small exchange through shared
// memory; other ops that need other threads' elements (broadcast, permute, slice,
// other reductions, scan, mma, gather, reindex, sort, topk, argmax) stage their
// operands through shared memory between barriers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <kiln/kernel.h>

#include "ir/attrs.h"
#include "ir/ir.h"
#include "ir/tile_geometry.h"

namespace kiln::cu {

struct EmitOptions {
    Precision precision = Precision::standard;
    bool index64 = false;  // 64-bit element offsets (a view's reachable span needs them)
    int sm = 90;           // compute capability major*10 + minor of the target
    // Threads per SM a kernel that streams large tiles through registers asks to keep
    // resident (its __launch_bounds__ minimum of CTAs, hence a register cap of
    // 65536 / this): kernel_cache.cpp halves it while ptxas spills.
    int resident_threads = 1024;
    // FlashAttention kernels overlap each block's softmax with the previous block's
    // O += P V (emit_attention.cpp) up to 128 value channels; KILN_ATTENTION_OVERLAP=0
    // writes them serially, 2 overlaps at every head dimension (A/B).
    int attention_overlap = 1;
    // Its two consumer warpgroups take turns to issue their products (FlashAttention-3's
    // ping-pong): -1 (the default) where the head dimension is above 64, 1 always, 0
    // never (KILN_ATTENTION_PINGPONG=0|1). Measured on an H200 in alternation
    // (bench/results/gpu-20261203-s16): at d 64, where the softmax (the SFU's exp2)
    // is as long as the products, issuing freely was 2-4% faster; at d 128 either.
    int attention_pingpong = -1;
    // Its CTAs take the batch and head indices in groups whose keys and values stay in
    // L2 (attention_producer.cpp); KILN_ATTENTION_L2_GROUPS=0 numbers them across all (A/B).
    bool attention_l2_groups = true;
    // Its output goes through shared memory in 16-byte chunks where it can
    // (attention_epilogue.h); KILN_ATTENTION_STAGED_STORES=0 stores element by element (A/B).
    bool attention_staged_stores = true;
    // ... or, preferred where it can, in 16-byte chunks transposed inside quads of
    // lanes, which frees the query rows' shared memory for the next tile as soon as
    // the last S = Q K^T has read it; KILN_ATTENTION_QUAD_STORES=0 stages (A/B).
    bool attention_quad_stores = true;
    // Its output, where it leaves in quads and the softmax overlaps the products, is
    // packed at a tile's end and stored in the next tile once its first S = Q K^T is
    // issued, so that the stores run under a product (emit_attention.cpp);
    // KILN_ATTENTION_DEFER_OUTPUT=1 (off: measured 1-4% slower at 1k-2k keys on an H200,
    // bench/results/gpu-20261203-s17).
    bool attention_defer_output = false;
    // Its grid is persistent: one CTA per multiprocessor, each running tiles in turn,
    // the next tile's first key/value blocks loading under the current one's last
    // products and epilogue (attention_producer.h); KILN_ATTENTION_PERSISTENT=0
    // launches one CTA per tile (A/B; the kernel is the same).
    bool attention_persistent = true;
    // A module with a Hopper GEMM or attention kernel also holds the program's generic
    // kernel, the fallback for launches the specialised one refuses (views TMA cannot
    // read), only when this is true. Launches ask for it only after a refusal
    // (cuda_target.cpp), so the first launch's NVRTC run compiles one kernel, not two
    // (the generic kernel of an attention program was about half of its compile time).
    bool generic_kernel = true;
    // The GEMM kernel stores 2-byte outputs in whole 16-byte chunks inside the bounds
    // (emit_gemm_sm90.cuh: QuadStores); KILN_GEMM_QUAD_STORES=0 stores pairs (A/B).
    bool gemm_quad_stores = true;
    // The Hopper GEMM kernel reads its warpgroup index through a shuffle
    // (emit_gemm_sm90.cuh: warpgroup_index); KILN_CUDA_UNIFORM_WARPGROUP=1 (A/B; off:
    // measured on an H200, neutral to -1%, bench/results/gpu-20261203-s16). The
    // attention kernel always does (emit_attention.cpp: +3-9%).
    bool uniform_warpgroup = false;
    // Precision fast: a positive constant score scale is folded into the row maximum
    // and the exp's fma (attention_values.h): 1 where the key range and the masks are
    // the same for every query row, 2 also where they depend on it (causal), 0 never
    // (S * c formed); -1 (the default): 2 where the program's query blocks have at
    // least 128 rows, else 1. KILN_ATTENTION_FOLD_SCALE=0|1|2. Measured on an H200:
    // on causal 4096 x 4096 d 128 with 128-row blocks 2 was 5-6% faster than 1
    // (bench/results/gpu-20261203-s16), on ragged causal 3000 x 3001 with 64-row
    // blocks 7% slower (there and in gpu-20261203-s11: -11%).
    int attention_fold_scale = -1;
    // The attention kernel's key block where the program leaves it free (the match's
    // key_block_free): 0 (the default) the program's where the kernel takes it, else
    // its own (emit_attention.cpp: choose_shape); or a multiple of 16 asked for, taken
    // where it fits (key_block_fits). KILN_ATTENTION_KEY_BLOCK (A/B).
    int attention_key_block = 0;
    // How many forms of a key block's softmax the attention kernel's main loop has
    // (emit_attention.cpp: variants): 3, the blocks with every mask proven, those
    // inside every row's key limit and the rest, also for a tile's first block; 2,
    // only the first and the last, and a tile's first block in the last: a quarter
    // less code to compile, but measured 2-10% slower at 1k-2k keys on an H200
    // (bench/results/gpu-20261203-s17). KILN_ATTENTION_BLOCK_FORMS=2|3.
    int attention_block_forms = 3;
    // The overlapped schedule rotated (emit_attention.cpp: rotated_blocks): a tile's
    // first key block runs through the loop's code instead of a prologue holding its
    // own copies of the softmax. Offline (NVRTC 13.0, sm_90a): a quarter of the SASS
    // and compile time less. Measured on an H100 (bench/results/gpu-20261205-s31):
    // first launch 1.65 -> 1.25 s at d 128, 1.17 -> 0.88 s at d 64, but 0.2-2% slower
    // to run on six of the seven shapes it changes. Off: KILN_ATTENTION_ROTATED=1.
    bool attention_rotated = false;
    // Which forms of a key block's softmax loop over S in steps of 4 elements instead
    // of unrolling all of them (emit_attention.cpp: rolled_form), over a copy of S in
    // local memory: 0 none; 1 the general form (blocks crossing a row's key limit:
    // a tail); 2 that and the blocks inside the limits whose masks are not proven (a
    // causal diagonal). Each unrolled form is a copy of the softmax for ptxas to
    // schedule; KILN_ATTENTION_ROLLED_FORMS=0|1|2.
    int attention_rolled_forms = 0;
    // passes::LowerOptions::attention_reblock_minus_infinity (KILN_ATTENTION_REBLOCK_MINUS_INFINITY=0: off).
    bool attention_reblock_minus_infinity = true;
    // Which loads of the parallel nest's body a persistent grid loads before their
    // instance (passes/grid_prefetch.h: PrefetchMode); KILN_CUDA_PREFETCH (A/B).
    int grid_prefetch = 2;
    // A loop's loads one iteration ahead (passes/loop_prefetch.h); off until an A/B on a
    // device decides: KILN_CUDA_LOOP_PREFETCH=1.
    bool loop_prefetch = false;
    // The share of a row a thread holds is divided by this (cuda_layout.h):
    // kernel_cache.cpp doubles it while ptxas spills under the register cap.
    int layout_split = 1;
    // The most elements of its largest tile a thread holds before the CTA grows past
    // 256 threads (passes/cuda_layout.cpp says why 32); KILN_CUDA_ELEMENTS_PER_THREAD
    // (1 to 4096) sets it. An option, not a knob the pass reads, so that the program
    // index (program_index.h), keyed by the options, never hands a process the kernel
    // laid out under another value (session 44's A/B of 32, 16 and 8 measured one
    // kernel three times that way).
    int elements_per_thread = 32;
    // Where the first compile spilled and giving up the shifted runs of misaligned rows
    // alone made it fit, try it once more with them at layout_split 2 and keep that if
    // it fits (kernel_cache.cpp says what the H200 showed). At 5123 columns that kept
    // bf16 LayerNorm and residual LayerNorm's shifted runs: 1.5x and 1.9x
    // (bench/results/gpu-20261205-s24/). 2: also where the loads ahead had to go after
    // the shifted runs (the try keeps them gone). KILN_CUDA_SPLIT_FIRST=0, 1 or 2 (A/B).
    int split_before_dropping = 1;
    // Float division whose divisor is one value for a thread's run (softmax's
    // e / sum) as kc::fdiv_shared: the same bits, the reciprocal once a run and no
    // special-function-unit op a quotient (prelude). Off: within noise on an H100's
    // softmax and cross-entropy rows (gpu-20261205-s27); KILN_CUDA_SHARED_DIVISOR=1 turns it on.
    bool shared_divisor = false;
    // f32 division (and f16/bf16's, held in f32) as kc::fdiv: the bits of `/`
    // (div.rn.f32) with no call to its slow path at each quotient, which made ptxas keep
    // every live value across each one (prelude: "f32 division"). Off: on an H200 it ran
    // 10 of 12 bf16 dividing rows slower (softmax at 8192 columns 0.73 -> 0.62 of copy),
    // SwiGLU at 1000 columns faster (0.41 -> 0.76: a larger share a thread fit),
    // bench/results/gpu-20261206-s32/. KILN_CUDA_INLINE_DIVISION=1.
    bool inline_division = false;
    // In precision fast, f32 division (and f16/bf16's, held in f32) as div.full.f32
    // (kc::fdiv_full, within 2 ulp of the correctly rounded quotient: docs/semantics.md):
    // the d 128 FlashAttention kernel 3-6% faster on an H200 (gpu-20261206-s32).
    // KILN_CUDA_FAST_DIVISION=0 keeps the correctly rounded quotient there too (A/B).
    bool fast_division = true;
    // Bytes of spill stores and loads (together) the kernel cache keeps in a row
    // kernel rather than give up, for them, its loads ahead, shifted runs or share
    // (kernel_cache.cpp's ladder gives them up for any spill). 0: kept spills of loads
    // ahead lost on an H100, at 160 bytes (gpu-20261206-s33) and at 16 (bf16 softmax at
    // 8192 columns in precision fast 1.01 -> 0.87 of copy, gpu-20261207-s41);
    // KILN_CUDA_SPILL_TOLERANCE (0 to 1024).
    int spill_tolerance = 0;
    // Bytes of spill stores and loads (together) kept rather than change the layout
    // for them: give up the NaN minimum, halve each thread's share of the rows, halve
    // the resident threads (the ladder's steps after the loads ahead, which go for any
    // spill beyond spill_tolerance: held through local memory they hide no latency;
    // measured, keeping them spilled lost on log_softmax, 0.96 -> 0.78 of copy). A spill
    // of a value or two costs less than half the share: twice the threads a row's
    // reductions combine, and 8-byte vectors where a thread held one run of eight
    // 16-bit elements. A/B on an H100 (gpu-20261206-s33, each value twice): bf16 SwiGLU
    // 0.82 -> 0.94 of copy at 128 columns and 0.55 -> 0.90 at 1000, cross-entropy at
    // 1000 0.45 -> 0.55, softmax at 4000 0.72 -> 0.88; f32 softmax at 8192 1.00 -> 0.97
    // (the one loss; the other problems whose plans it changes, within 1%).
    // KILN_CUDA_LAYOUT_SPILL_TOLERANCE (0 to 1024; 0: the ladder as before, the A/B).
    int layout_spill_tolerance = 16;
    // Index facts: each thread's index within its instance stated to NVVM (prelude:
    // kc::assume), so element columns take unsigned remainders, and i64 compares of
    // an iota against a value a run shares in 32 bits (scalar_ops.cpp:
    // index_compare). Fewer instructions and registers, which moves some kernels
    // across the spill ladder's steps: offline, 28 of the rows benchmark's 84 problems
    // changed their CTA size, persistence or spills (bench/results/gpu-20261205-s30/).
    // Measured on an H100 (bench/results/gpu-20261205-s31): bf16 cross-entropy at 8192
    // columns 0.57 -> 0.63 of copy, but log-softmax 0.99 -> 0.86 and SwiGLU at 4000
    // 0.97 -> 0.67 where the spill ladder moved them. So on only in launches whose
    // f16/bf16 rows are dealt an element a thread from the start (misaligned rows:
    // launch_args.cpp), where they were measured on an H200 with the whole-row path
    // (gpu-20261206-s37, 26000 x 5123 bf16): cross-entropy 0.33 -> 0.38 of copy,
    // log-softmax 0.56 -> 0.59, softmax 0.45 -> 0.47, LayerNorm 0.50 -> 0.49, the
    // others within 1.5%. KILN_CUDA_INDEX_FACTS=0 or 1 for every launch.
    bool index_facts = false;
    // The second of the index facts alone: an i64 compare of an iota with a value a
    // thread's run shares (cross-entropy's `label == iota(c)`) in 32 bits, the value
    // clamped once a run (scalar_ops.cpp: index_compare), without the thread-index fact
    // that moved other kernels' layouts. It changes only kernels holding such a compare.
    // On by default since an A/B on an H100 with nan_by_minimum_ahead (each setting twice,
    // in alternation, bf16 rows in precision fast): cross-entropy 0.75 -> 0.87 of copy at
    // 8192 columns and 0.62 -> 0.69 at 4000, the other 19 problems -1% to +2%
    // (bench/results/gpu-20261207-s42/). KILN_CUDA_NARROW_INDEX_COMPARES=0 turns it off.
    bool narrow_index_compares = true;
    // Rows too wide for one CTA span a cluster of CTAs (passes/cuda_layout.h);
    // KILN_CUDA_CLUSTER=0 keeps them in one CTA (A/B).
    bool cluster_rows = true;
    // The threads of each CTA of such a cluster: 1024 (one CTA an SM, the fewest CTAs a
    // row), or 512 or 256 (more CTAs a row, two or four resident an SM, so that one
    // row's loads overlap another's reductions and stores); 0: the layout pass chooses
    // (passes/cuda_layout.cpp, try_cluster). Measured on an H100 against 1024 at 2048 x
    // 65536 (bench/results/gpu-20261205-s31): bf16 softmax 0.50 -> 0.60 of copy, cross-entropy
    // 0.25 -> 0.29, f32 within 1%. KILN_CUDA_CLUSTER_CTA=256|512|1024 (A/B).
    int cluster_cta_threads = 0;
    // Rows spread over a cluster load ahead of their instance too (passes/grid_prefetch.h):
    // the grid becomes persistent, as many clusters as the driver says fit at once
    // (occupancy.h), each cluster's CTAs loading their part of its next row while this
    // one reduces. Without it each cluster runs one row: its loads, two cluster-wide
    // reductions and its stores in turn, with two CTAs an SM to overlap them. Where the
    // loads ahead spill they go (kernel_cache.cpp: not a smaller share a thread, which
    // lost). Measured on an H100 at 2048 x 65536 (bench/results/gpu-20261206-s35, call
    // 1): bf16 LayerNorm 0.36 -> 0.48 of copy, RMSNorm 0.47 -> 0.63, f32 RMSNorm 0.65 ->
    // 0.72; the others' loads ahead spill, and they compile as without it.
    // KILN_CUDA_CLUSTER_PREFETCH=0 (A/B).
    bool cluster_prefetch = true;
    // Some view of the launch has rows that do not start on a 16-byte boundary (its
    // base or a stride other than the innermost); chosen per launch like index64.
    // Only then do runs of f16/bf16/i8 rows carry the code that moves a misaligned
    // run as aligned vectors shifted between lanes (emit_shifted_runs.h), and runs of
    // other kinds that which moves it in narrower vectors (emit_memory.cpp:
    // narrower_vectors): aligned launches compile as if neither existed. (A compiled handle prepares
    // again only for new shapes: a base pointer that moves off or onto alignment
    // with the same shapes keeps the first launch's kernel, which is correct either
    // way, since both kernels move any run, and only slower.) KILN_CUDA_SHIFTED_RUNS=0
    // keeps it out (runs of misaligned rows element by element; A/B). Off where f16/bf16
    // rows are dealt from the start (coalesced_elements).
    bool misaligned_rows = false;
    // With misaligned_rows: whole runs that are not shifted move in narrower vectors
    // (emit_memory.cpp: narrower_vectors), else element by element with a bounds test
    // each. Measured on an H100 at 26000 x 5123 f32 (bench/results/gpu-20261205-s31):
    // softmax 0.64 -> 0.98 of copy, LayerNorm 0.68 -> 0.85. KILN_CUDA_NARROWER_VECTORS=0 (A/B).
    bool narrower_vectors = true;
    // Rows dealt one element a thread in turn (coalesced_elements, or runs of one the
    // layout chose) move, where a one-row tile lies whole in its view with a unit
    // stride, at the row's offset plus each element's column: no bounds test and no
    // offset arithmetic per element (emit_memory.cpp: each_run). Such rows are issue
    // bound: at 26000 x 5123 bf16 the softmax's loop had ~80 instructions an element,
    // ten of each load's and each store's for tests and addressing; a whole row's
    // path has 0.36-0.71 of the instructions the seven bf16 row kernels had at 5123
    // columns (SASS, offline: bench/results/gpu-20261206-s36/). KILN_CUDA_WHOLE_ROWS=0 (A/B).
    bool whole_rows = true;
    // Where the launch's rows are misaligned (launch_args.cpp: misaligned_rows_of), 1 or
    // 2: whenever such rows move element by element (misaligned_rows off, or given up by
    // the spill ladder), the layout deals one element to each thread in turn
    // (LowerOptions::max_run 1), so that a warp's accesses to a row are one contiguous
    // span, not 32 spans 16 bytes apart each read a byte pair at a time; the elements
    // move as runs of one, which may load ahead of their instance. 2: and where those
    // loads ahead spill, each thread first holds half its share (twice the threads an
    // instance) to keep them (kernel_cache.cpp's ladder); f16/bf16 rows are then dealt
    // from the start, without shifted runs. The default: 2 where an f16/bf16 view's rows
    // are misaligned, else 0 (i8 rows keep their shifted runs, f32 rows their narrower
    // vectors: neither measured dealt). Measured on an H100 at 26000 x 5123 bf16 against
    // the shifted runs (bench/results/gpu-20261206-s35, call 2; of copy): softmax 0.45 ->
    // 0.48, RMSNorm 0.50 -> 0.72, log-softmax 0.51 -> 0.55, cross-entropy 0.25 -> 0.37,
    // LayerNorm 0.40 -> 0.50, residual LayerNorm 0.51 -> 0.62, SwiGLU 0.36 -> 0.63.
    // KILN_CUDA_COALESCED_ELEMENTS=0|1|2 sets it for every launch with misaligned rows (A/B).
    int coalesced_elements = 0;
    // Where the launch's f16/bf16 rows are misaligned: an instance's row's slots start
    // on the 16-byte boundaries of that row (passes/cuda_layout.h: aligned slots), so
    // that its runs move as aligned vectors, where every value of the program is one
    // row (else the plan says why, and the kernel compiles as without it: its rows dealt,
    // coalesced_elements, or shifted between lanes, misaligned_rows). Tried before those
    // (passes/cuda_layout.cpp). KILN_CUDA_ALIGNED_SLOTS=1. Off: on an H200 at 26000 x 5123
    // bf16 it lost to the dealt rows on all seven row kernels (softmax 0.47 -> 0.42 of copy,
    // RMSNorm 0.74 -> 0.36, LayerNorm 0.49 -> 0.20, cross-entropy 0.38 -> 0.16; causes not
    // measured apart: bench/results/gpu-20261206-s38/).
    bool aligned_slots = false;
    // The Hopper GEMM kernel's tile when a launch takes another than the program's
    // (0: the program's): half the width for a launch whose full-width tiles leave
    // multiprocessors idle (128 x 14336 on 128x256 tiles: 56 for 132), 64 rows for
    // an output of at most 64 rows. Chosen per launch by gemm_schedule.h's model
    // (launch_tile); the kernel then compiles as its own variant.
    // KILN_GEMM_RETILE=0 keeps the program's tile (A/B).
    int gemm_bm = 0, gemm_bn = 0;
    // The Hopper GEMM kernel with split-K's code: only a launch whose schedule
    // splits the k range asks for it (launch_args.h: gemm_launch_choice); without
    // it the kernel compiles a third faster (0.71 -> 0.49 s, NVRTC) and every
    // launch of it runs tiles whole.
    bool gemm_split_k = false;
    // The Hopper GEMM kernel in clusters of 2 CTAs sharing B by TMA multicast (1:
    // none): chosen per launch like the tile (gemm_schedule.h: launch_cluster), a
    // variant of its own (the kernel is declared __cluster_dims__).
    int gemm_cluster = 1;
    // The Hopper GEMM kernel's operands read by its producer warpgroup's cp.async copies
    // instead of TMA (bit 0: A, bit 1: B): chosen per launch where rows straddle
    // 128-byte lines (gemm_staging.h: operand_route), a variant of its own; never
    // with clusters.
    int gemm_cp_async = 0;
    // The Hopper GEMM kernel's operands whose views lie the other way round in memory
    // from the program's indexing (bit 0: A, bit 1: B): a B indexed [k, n] passed as a
    // view with strides (1, K) (PyTorch's `w.t()`) is stored [N, K], read K-major.
    // Chosen per launch from the views' strides (launch_args.h: gemm_launch_choice), a
    // variant of its own.
    int gemm_flipped = 0;
    // Stores of f16/bf16 pairs may canonicalise NaNs with sm_90's 16-bit minimum (one
    // instruction for the pair, against six with tests of the floats: a bf16 softmax
    // 0.68 -> 0.71 of copy on an H200). Only in kernels that hold no loads ahead of
    // their instance and shift no misaligned runs: there it made ptxas spill under
    // the register cap (the spill feedback would then give up the prefetch or the
    // shifted runs, worth more). kernel_cache.cpp clears it when it spills elsewhere.
    bool nan_by_minimum = true;
    // The 16-bit minimum in kernels holding loads ahead too (persistent grids, loops'
    // loads an iteration ahead); where it then spills, kernel_cache.cpp gives it up
    // before the loads ahead. Offline (NVRTC 13.0, sm_90a) the bf16 cross-entropy at
    // 8192 columns in precision fast: 495 -> 448 instructions a row's loop on a whole
    // row's path, no spill. On by default with narrow_index_compares (the A/B above);
    // KILN_CUDA_NAN_MINIMUM_AHEAD=0 turns it off.
    bool nan_by_minimum_ahead = true;
};

// A second kernel in the same module for the canonical GEMM on Hopper
// (emit_gemm.h): the launcher takes it when the launch's views suit TMA.
struct GemmKernel {
    std::string entry;                 // empty: there is none
    int threads = 0;
    std::int64_t shared_bytes = 0;     // dynamic, per CTA
    int bm = 0, bn = 0, bk = 0;        // the kernel's tile
    int stages = 0;                    // depth of the shared-memory ring
    std::int64_t program_bm = 0, program_bn = 0, program_bk = 0;  // the program's tile
    int a = -1, b = -1;                // the view parameters A and B
    bool a_mmajor = false;             // A stored [K, M] (its TMA boxes are [bk][64 m], like B's)
    bool b_kmajor = false;             // B stored [N, K] (its TMA box is [bn][64 k], like A's)
    // Operands whose views lie the other way round in memory (EmitOptions::gemm_flipped:
    // bit 0 A, bit 1 B): a_mmajor and b_kmajor say how the program indexes them, these
    // how they are stored.
    int flipped = 0;
    bool a_stored_mmajor() const { return a_mmajor != ((flipped & 1) != 0); }
    bool b_stored_kmajor() const { return b_kmajor != ((flipped & 2) != 0); }
    // 8-bit or tf32 operands stored with k outermost (A [K, M], B [K, N]): wgmma reads
    // them K-major only, so each launch copies them transposed (gemm_staging.h:
    // stage_transposed) and the kernel reads the copies K-major.
    bool a_transposed = false, b_transposed = false;
    bool kernel_a_mmajor() const { return a_stored_mmajor() && !a_transposed; }  // how the kernel reads A
    bool kernel_b_kmajor() const { return b_stored_kmajor() || b_transposed; }   // ... and B
    bool split_k = false;              // has split-K's code (EmitOptions::gemm_split_k)
    int cluster = 1;                   // CTAs per cluster, sharing B by multicast (EmitOptions::gemm_cluster)
    int cp_async = 0;                  // operands read by cp.async, not TMA: bit 0 A, bit 1 B (EmitOptions::gemm_cp_async)
    std::vector<int> outputs;          // the views the epilogue stores (in pairs of columns)
    std::vector<int> outputs_transposed;  // per output, 1 where it is stored transposed (Ct[n0, m0]: its rows are the columns)
    int m_axis = 0, n_axis = 1;        // the parallel nest's axes of the m- and n-blocks
    // Batched (passes/gemm_match.h): the nest's batch axes, and A's and B's leading dims
    // (their ranks less 2), read by TMA with the batch's coordinates.
    bool batched = false;
    std::vector<int> batch_axes;
    int a_lead = 0, b_lead = 0;
    // A 1-D grid over the tiles (passes/gemm_match.h: tiles_per_row): 0 none (2-D),
    // 1 m-block pid / G and n-block pid % G, 2 the other way round, 3 block indices of
    // other integer arithmetic of pid (passes/gemm_match.h: tile_map_m), which the
    // launch checks visit each tile of a rectangle once (launch_args.cpp).
    int flat_grid = 0;
    int flat_split = -1;               // with flat_grid 1 or 2: the position of the m-block's pid / G or pid % G in the nest's body
    int tile_map_m = -1, tile_map_n = -1;  // with flat_grid 3: the positions of the m- and n-block indices in the nest's body
    int k_loop = -1;                   // the k loop's position in the parallel nest's body (the
                                       // launch evaluates its extent without matching again)
    Kind in = Kind::BF16;
    int epilogue_loads = 0;            // views the epilogue reads (vectors, residual tiles)
    bool quad_stores = false;          // every output 2-byte: whole 16-byte stores inside the bounds
    std::string describe() const;      // the plan's line
};
// The bytes of a GEMM operand's element: 1 for i8 (box rows of 128 elements, BK 128),
// 4 for f32 read as tf32 (box rows of 32, BK 32), else 2 (f16, bf16).
inline int gemm_operand_bytes(Kind in) { return in == Kind::I8 ? 1 : in == Kind::F32 ? 4 : 2; }
// Whether wgmma reads operands of this kind K-major only (8-bit and tf32: it transposes
// 16-bit operands alone). Such GEMMs run on lone CTAs, without split-K or cp.async.
inline bool gemm_k_major_only(Kind in) { return in == Kind::I8 || in == Kind::F32; }
// Such operands' name in the plan's lines: "8-bit" or "tf32".
inline const char* gemm_k_major_only_name(Kind in) { return in == Kind::I8 ? "8-bit" : "tf32"; }
// Threads of a CTA of the operand staging kernels (staging_kernels.h).
inline constexpr int kPackThreads = 256;

// A second kernel in the same module for FlashAttention on Hopper
// (emit_attention.h): the launcher takes it when the launch's views suit TMA.
struct AttentionKernel {
    std::string entry;                 // empty: there is none
    int threads = 0;
    std::int64_t shared_bytes = 0;     // dynamic, per CTA
    int bm = 0, bn = 0;                // query rows per CTA, keys per block
    std::int64_t program_bk = 0;       // the program's key block (bn differs where the match's key_block_free allows)
    int d = 0, dv = 0;                 // head dimensions the kernel computes with (passes::attention_kernel_head_dim)
    int program_d = 0, program_dv = 0; // the program's (the launch checks the query and key views end at program_d)
    int stages = 0;                    // depth of the key/value ring
    std::int64_t program_bq = 0;       // the program's query block
    int q = -1, k = -1, v = -1;        // the view parameters
    int q_row_dim = 0, k_row_dim = 0, v_row_dim = 0;  // each view's dim of rows or keys (AttentionMatch), the second in its tensor map
    bool k_transposed = false;         // K stored [.., channels, keys]: its map's dims the keys, then the channels (boxes [d][64 keys])
    int row_axis = 0, grid_rank = 0;   // the parallel nest's axis of query blocks, and its rank
    Kind in = Kind::BF16;
    bool overlap = true;               // softmax of block t + 1 overlapping O += P_t V_t
    bool pingpong = true;              // the consumer warpgroups take turns to issue products
    bool staged_output = false;        // the output goes out through shared memory in 16-byte chunks (attention_epilogue.h)
    bool quad_output = false;          // ... or in 16-byte chunks transposed inside quads of lanes (then not staged)
    bool l2_groups = true;             // CTAs take (batch, head) in groups that share L2 (attention_producer.cpp)
    bool persistent = true;            // one CTA per multiprocessor running tiles in turn (else one per tile)
    bool defer_output = false;         // a tile's output stored under the next tile's first product (EmitOptions::attention_defer_output)
    int fold_scale = 0;                // fast: where a constant score scale is folded (EmitOptions::attention_fold_scale's modes; 0: nowhere)
    int block_forms = 3;               // forms of a key block's softmax (EmitOptions::attention_block_forms)
    bool rotated = false;              // a tile's first block run by the loop's code (EmitOptions::attention_rotated)
    int rolled_forms = 0;              // softmax forms looping over S rather than unrolled (EmitOptions::attention_rolled_forms)
    bool first_block_nan = false;      // re-blocked from a -inf row maximum: rows the program's first block hides made NaN (the match's first_block_nan)
    std::string describe() const;      // the plan's line
};

struct EmittedKernel {
    std::string source;               // complete translation unit
    std::string entry;                // the __global__ function's name (the generic kernel)
    bool generic = true;              // whether the source holds it (EmitOptions::generic_kernel; always without a specialised kernel)
    int threads = 0;                  // per CTA
    int instances_per_cta = 1;        // program instances a CTA runs side by side (the grid has ceil(instances / this) CTAs)
    int min_ctas = 0;                 // the __launch_bounds__ minimum of resident CTAs per SM (0: none asked)
    bool persistent = false;          // a CTA runs its instances in turn, prefetching: launch no more CTAs than fit at once
    bool loads_ahead_in_loops = false;  // some loop's loads go one iteration ahead (passes/loop_prefetch.h)
    bool nan_by_minimum = false;      // some store canonicalises NaNs with the 16-bit minimum (EmitOptions::nan_by_minimum)
    int cluster = 1;                  // CTAs per instance (__cluster_dims__): the grid has `cluster` CTAs per instance
    std::string packing_why;          // why instances are not packed several per CTA ("" when they are, or need not be)
    std::string aligned_slots;        // with EmitOptions::aligned_slots: which load's rows the slots align to, or why they do not
    std::int64_t shared_bytes = 0;    // dynamic shared memory per CTA
    std::string shared_site;          // the op that needs the most of it ("mma at gemm.cpp:31")
    std::string shared_op;            // that op ("mma") and its line, which a too-large kernel's error names
    Loc shared_loc;
    std::vector<std::string> values;  // plan lines: each value's layout and lowering
    int tensor_core_mmas = 0;         // mma ops lowered to tensor cores
    GemmKernel gemm;                  // the Hopper GEMM kernel, when the program is one
    AttentionKernel attention;        // the Hopper FlashAttention kernel, when the program is one
    std::vector<std::string> contractions;  // how each mma is computed, and why not faster
    // Why no GEMM or attention kernel took the program ("not FlashAttention: ...";
    // empty when one did, or when it has no mma): errors about the ordinary kernel add it.
    std::string specialised_why;
};

// Fails with kiln::Error naming the user's line for programs the target cannot
// run (bounds::check, unsupported ops); internal errors for kiln's own bugs.
EmittedKernel emit_kernel(const ir::Program& p, const EmitOptions& o);

// The kernel's parameters, in order: for a view, its element pointer then its
// extents and its strides (long long each); for a scalar, its value in the
// register type (float for f16/bf16/f32, double for f64, int for bool/i8/i32,
// long long for i64). The launcher packs arguments this way.
std::string kernel_signature(const ir::Program& p);

}  // namespace kiln::cu
