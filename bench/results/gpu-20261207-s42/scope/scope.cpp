// Session 42, not part of the suite: which fuzzed programs of issue 15's device
// campaigns (interp vs cuda) have a kernel that this session's emitter changes, so
// that their verdicts no longer speak for the code as it stands:
//   - bools in shared memory through volatile pointers (emitter.cpp:
//     shared_element_type, after program 6405128): a kernel whose source now
//     declares a `volatile bool*` array;
//   - EmitOptions::narrow_index_compares and nan_by_minimum_ahead on by default (for
//     campaigns run with them off): a kernel whose source differs with them off, or
//     (a superset for the spill ladder's later steps, which this does not compile)
//     a program with an i64 compare of an iota, which index_compare may narrow;
//   - for sessions 34-40's campaigns, session 40's changed casts and sums (as its
//     cast_scope.cpp: bench/results/gpu-20261207-s40/).
// The kernels are each program's first choice, emitted offline (no ptxas, so no
// ladder step) under the options its launch gets.
//
// Build (after scripts/build.sh):
//   g++ -std=c++20 -O1 -I include -I . -I src -I lib -I third_party/dlpack/include \
//     bench/results/gpu-20261207-s42/scope/scope.cpp build/fuzz/libkiln_fuzz.a build/libkiln.a -lcrypto -ldl -o /tmp/scope
// Run: /tmp/scope PRECISION KNOBS_AT_RUN S40 RANGE[,RANGE...]
//   PRECISION exact|standard; KNOBS_AT_RUN 0|1; S40 0|1 (apply session 40's scope too);
//   RANGE a..b. Prints each range's count of unaffected programs and the total;
//   SCOPE_LIST=FILE also lists their seeds.
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "fuzzed_program.h"
#include "ir/ir.h"
#include "ir/op_traits.h"
#include "targets/cuda/emitter.h"

using namespace kiln;
using detail::OpCode;

namespace {

// Session 40's scope (its cast_scope.cpp with KILN_SCOPE_ALL): a cast to f64 from
// another kind, an integer cast to f16/bf16, or a float sum of a value NVVM knows.
bool session40_changed(const ir::Program& p) {
    for (const auto& n : p.pool) {
        if (n->operands.empty()) continue;
        const Kind from = n->operands[0]->type.kind, to = n->type.kind;
        if (n->op == OpCode::cast) {
            const bool integer = from == Kind::I8 || from == Kind::I32 || from == Kind::I64;
            if ((to == Kind::F64 && from != Kind::F64) || (integer && (to == Kind::F16 || to == Kind::BF16))) return true;
        }
        if (n->op == OpCode::reduce_add && (from == Kind::F32 || from == Kind::F16 || from == Kind::BF16) && cu::compile_time_known(*n->operands[0]))
            return true;
    }
    return false;
}

bool is_index(const ir::Node* c) {
    while (c->op == OpCode::broadcast) c = c->operands[0];
    return c->op == OpCode::iota;
}

// An i64 compare with an iota (or an iota broadcast) on one side: what
// scalar_ops.cpp's index_compare may narrow, under whatever layout.
bool has_iota_compare(const ir::Program& p) {
    for (const auto& n : p.pool)
        if (ir::category(n->op) == ir::OpCategory::compare && n->operands.size() == 2 && n->operands[0]->type.kind == Kind::I64 &&
            (is_index(n->operands[0]) || is_index(n->operands[1])))
            return true;
    return false;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 5) {
        std::cerr << "usage: scope exact|standard KNOBS_AT_RUN(0|1) S40(0|1) a..b[,c..d...]\n";
        return 2;
    }
    const Precision precision = std::string(argv[1]) == "exact" ? Precision::exact : Precision::standard;
    const bool knobs_at_run = std::string(argv[2]) == "1", s40 = std::string(argv[3]) == "1";
    std::stringstream ranges(argv[4]);
    // SCOPE_LIST=FILE appends the unchanged programs' seeds to FILE, one a line: the
    // programs the counts stand on (scope/counted-*.txt.xz, as ranges), for the next
    // change's scope (digests.cpp).
    std::ofstream counted;
    if (const char* list = std::getenv("SCOPE_LIST")) counted.open(list, std::ios::app);
    // SCOPE_ONLY_S40 set: session 40's scope alone, a check of this file against its counts.
    const bool only_s40 = std::getenv("SCOPE_ONLY_S40") != nullptr;
    std::int64_t total = 0, kept = 0, by_bools = 0, by_knobs = 0, by_s40 = 0, refused = 0;
    for (std::string r; std::getline(ranges, r, ',');) {
        const auto [a, b] = scope::seed_range(r);
        std::int64_t in_range = 0;
        for (std::uint64_t seed = a; seed <= b; ++seed) {
            ++total;
            bool changed = false;
            try {
                const scope::FuzzedProgram f = scope::fuzzed_program(seed, precision);
                if (!only_s40) {
                    cu::EmitOptions o = scope::emit_options(f);
                    o.narrow_index_compares = o.nan_by_minimum_ahead = true;  // the defaults now
                    const std::string now = cu::emit_kernel(*f.program, o).source;
                    if (now.find("volatile bool*") != std::string::npos) {
                        changed = true;
                        ++by_bools;
                    }
                    if (!changed && !knobs_at_run) {
                        cu::EmitOptions off = o;
                        off.narrow_index_compares = off.nan_by_minimum_ahead = false;
                        if (has_iota_compare(*f.program) || cu::emit_kernel(*f.program, off).source != now) {
                            changed = true;
                            ++by_knobs;
                        }
                    }
                }
                if (!changed && (s40 || only_s40) && session40_changed(*f.program)) {
                    changed = true;
                    ++by_s40;
                }
            } catch (const Error&) {
                ++refused;  // refused on cuda: the campaign compared the refusal, which no change here touches
            }
            if (!changed) {
                ++kept;
                ++in_range;
                if (counted) counted << seed << "\n";
            }
        }
        std::cout << "range " << r << ": " << in_range << " of " << (b - a + 1) << " unchanged\n" << std::flush;
    }
    std::cout << "total " << total << ": " << kept << " unchanged; changed by the bools " << by_bools << ", by the knobs " << by_knobs
              << ", by session 40's casts " << by_s40 << " (" << refused << " refused on cuda, unchanged)\n";
}
