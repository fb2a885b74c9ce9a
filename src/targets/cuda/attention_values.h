// The values of a FlashAttention program (passes/attention_match.h) as CUDA
// expressions over wgmma accumulator fragments, for the Hopper attention kernel
// (emit_attention.h), and the interval proofs that let the kernel drop a mask on
// blocks where it holds everywhere.
//
// Fragments. In a wgmma m64nN f32 accumulator, register j of thread `lane` of warp
// `w` (of the warpgroup) holds row 16w + lane/4 + 8h and column 8(j/4) + 2(lane%4)
// + j%2, with h = (j/2)%2. So each thread holds two rows (h = 0, 1) of the scores S
// and of the output O, and a row's values are spread over the four lanes 4g..4g+3.
// Every value of the program is written in one of four contexts: per CTA (index
// arithmetic), per row (arrays [2] indexed by h: the carried maximum and sum, the
// rescale), per score element (inside a fully unrolled loop over j: `h`, the key
// column `kc` within the block) or per output element (`h`, the column `oc`). The
// kernel names: kiln_s (S), kiln_o (O), kiln_m and kiln_l (the carried maximum and
// sum), kiln_t (the kernel's key block), kiln_gi and kiln_im (the row's program block
// and its row there), kiln_g<a> (the CTA's other grid indices), a<i>... (the
// parameters). Where the kernel's key block differs from the program's (the match's
// key_block_free), a score element's program key block and key within it come from
// its key's index kiln_t * block_keys + kc.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "passes/attention_match.h"

namespace kiln::cu {

class Emitter;

enum class Where { cta, row, score, out };

class FragmentValues {
public:
    FragmentValues(Emitter& E, const passes::AttentionMatch& m, int block_keys) : E_(E), m_(m), block_keys_(block_keys) {}

    // The expression of n's value at the current element of context `w`.
    std::string expr(const ir::Node* n, Where w);

    // Values a block holds in register arrays: per row (name[h]) or per score element (name[j]).
    void set_row(const ir::Node* n, std::string array) { rows_[n] = std::move(array); }
    void set_tile(const ir::Node* n, std::string array) { tiles_[n] = std::move(array); }
    // A value held in one variable (`name`) wherever it is read.
    void set_value(const ir::Node* n, std::string name) { values_[n] = std::move(name); }
    bool has_row(const ir::Node* n) const { return rows_.count(n) != 0; }
    const std::string& row(const ir::Node* n) const { return rows_.at(n); }
    void clear() {
        rows_.clear();
        tiles_.clear();
        values_.clear();
    }
    void forget(const ir::Node* n) {
        rows_.erase(n);
        tiles_.erase(n);
        values_.erase(n);
    }

    // A block-uniform condition under which every select of the loop body whose mask
    // the interval proofs cover takes its first branch ("" when none is covered).
    std::string interior_condition(const ir::Region& body);
    // While on, expr() writes those selects as their first branch.
    void set_interior(bool on) { interior_ = on; }

    // Precision fast, when on: the positive constant c of a score value x = S * c, or
    // of select(mask, S * c, -inf) (masks of causal and tail keys), nullopt for any
    // other form. Then the block's maximum is taken over S and scaled once per row
    // (c max S = max c S exactly: rounding is monotone), and exp(x - m) is
    // 2^(S (c log2 e) - m log2 e), one fma and the SFU: S * c is never formed.
    // `mode`: EmitOptions::attention_fold_scale (0 never, 1 where the key range and the
    // masks are the same for every query row, 2 also where they depend on it).
    void set_fold_scale(int mode) { fold_scale_ = mode; }
    std::optional<double> folded_scale(const ir::Node* x);
    // x's value before its folded scale (S where x has S * c).
    std::string unscaled_expr(const ir::Node* x, Where w);

private:
    struct Interval {
        std::string lo, hi;
    };
    // The interval of an integer value over the warpgroup's rows (kiln_gi_lo/hi,
    // kiln_im_lo/hi) and the block's keys (nullopt: not an index expression the proof follows).
    std::optional<Interval> interval(const ir::Node* n);
    // An expression that is true only when boolean n holds at every element of the
    // box (a sufficient condition), or nullopt.
    std::optional<std::string> proven(const ir::Node* n);
    std::string argument(const ir::Node* n, Where w) const;
    // A load of one element the same for the whole tile (AttentionMatch::tile_loads),
    // read from its view with its bounds policy.
    std::string tile_load(const ir::Node* n);
    // Whether the kernel's key blocks are the program's.
    bool program_key_blocks() const { return block_keys_ == m_.bk; }
    // A score element's key index (kernel key blocks differing from the program's).
    std::string key_index() const;
    // Whether n varies with the query row (the grid's row index, an iota over rows).
    bool depends_on_rows(const ir::Node* n) const;
    // exp(x - m) for an x with a folded scale c, `m` the maximum's expression.
    std::string scaled_exp(const ir::Node* x, double c, const std::string& m, Where w);

    Emitter& E_;
    const passes::AttentionMatch& m_;
    int block_keys_;
    std::unordered_map<const ir::Node*, std::string> rows_, tiles_, values_;
    bool interior_ = false;
    int fold_scale_ = 0;
    std::unordered_set<const ir::Node*> resolved_;  // selects whose condition interior_condition() proves
};

}  // namespace kiln::cu
