// Session 40, not part of the suite (bench/results/gpu-20261207-s40/bool_to_f64_scope.cpp):
// which fuzzed programs of the given seed ranges carry a cast whose cuda code session 40
// changed (scalar_ops.cpp: cast_expr, the only caller of kc::bool_to_double,
// int_to_double and float_to_double; passes make no casts). Other programs' kernels
// differ only by unused prelude helpers: the same SASS.
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>

#include "fuzz/differential.h"
#include "fuzz/program.h"
#include "fuzz/recipe.h"
#include "ir/ir.h"
#include "targets/cuda/emitter.h"
#include "trace/kernel_trace.h"

using namespace kiln;

TEST(ZzScope, ProgramsWithABoolToF64Cast) {
    const char* env = std::getenv("KILN_SCOPE_RANGES");
    if (!env) GTEST_SKIP();
    std::stringstream ranges(env);
    std::int64_t total = 0, affected = 0;
    for (std::string r; std::getline(ranges, r, ',');) {
        const auto dots = r.find("..");
        const std::uint64_t a = std::stoull(r.substr(0, dots)), b = std::stoull(r.substr(dots + 2));
        std::int64_t in_range = 0;
        for (std::uint64_t seed = a; seed <= b; ++seed) {
            fuzz::Limits limits;
            limits.device = true;
            const fuzz::Recipe recipe = fuzz::make_recipe(seed, limits);
            Kernel k = fuzz::build_kernel(recipe);
            fuzz::Launch l = fuzz::make_launch(recipe);
            auto program = detail::specialize(*k.shared_impl(), l.args, Loc::here());
            // Which casts' code changed: "bool" (7047e02: bool -> f64) or "all" (also
            // int and float -> f64, and int -> f16/bf16, which go through f64).
            const bool all = std::getenv("KILN_SCOPE_ALL") != nullptr;
            bool hit = false;
            for (const auto& n : program->pool) {
                if (n->op != detail::OpCode::cast || n->operands.empty()) continue;
                const Kind from = n->operands[0]->type.kind, to = n->type.kind;
                const bool integer = from == Kind::I8 || from == Kind::I32 || from == Kind::I64;
                if (to == Kind::F64 && from == Kind::Bool) hit = true;
                if (all && ((to == Kind::F64 && from != Kind::F64) || (integer && (to == Kind::F16 || to == Kind::BF16)))) hit = true;
            }
            // And (session 40's last emitter change) a float sum of a value NVVM knows, whose masked
            // slots now select through kc::select_opaque (emit_register_reduce.cpp).
            for (const auto& n : program->pool) {
                if (!all || n->op != detail::OpCode::reduce_add || n->operands.empty()) continue;
                const Kind k = n->operands[0]->type.kind;
                if ((k == Kind::F32 || k == Kind::F16 || k == Kind::BF16) && cu::compile_time_known(*n->operands[0])) hit = true;
            }
            ++total;
            if (hit) {
                ++affected;
                ++in_range;
                std::cout << "affected " << seed << "\n";
            }
        }
        std::cout << "range " << r << ": " << in_range << " of " << (b - a + 1) << "\n";
    }
    std::cout << "total " << total << ", with a changed cast " << affected << ", without " << total - affected << "\n";
}
