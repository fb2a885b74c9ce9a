// causal_attention: the attention kernel with the causal mask (query i sees keys
// j <= i); the diagonal block is masked elementwise (seed 000's causal_attention8,
// any head dimension and block). The kernel and cases live in attention.cpp.
#include "attention.h"

namespace kiln::catalog {
namespace {

Entry make_causal_attention() {
    Entry e;
    e.name = "causal_attention";
    e.description = "f32 causal FlashAttention-2 over [n, d] views: the diagonal key block masked";
    e.cases = [](Size size, std::uint64_t seed) { return attention_cases(size, seed, true); };
    return e;
}

}  // namespace

KILN_CATALOG_ENTRY(make_causal_attention);

}  // namespace kiln::catalog
