#include <kiln/export.h>
#include "examples/attention_bf16.h"
using namespace kiln;
namespace {
// The attention bench's shapes as its kernels are made (bench/attention_bench.cpp).
Kernel full128 = catalog::make_attention_kernel<bf16>("full128", {128, 128, 1, false, 0.08838834764831845f, 0});
Kernel causal128 = catalog::make_attention_kernel<bf16>("causal128", {128, 128, 1, true, 0.08838834764831845f, 0});
Kernel full64 = catalog::make_attention_kernel<bf16>("full64", {128, 128, 4, false, 0.125f, 0});
Kernel full256 = catalog::make_attention_kernel<bf16>("full256", {128, 64, 1, false, 0.0625f, 0});
Kernel causal64x64 = catalog::make_attention_kernel<bf16>("causal64x64", {64, 64, 1, true, 0.08838834764831845f, 0});
Kernel causal128x32 = catalog::make_attention_kernel<bf16>("causal128x32", {128, 32, 1, true, 0.08838834764831845f, 0});
}
KILN_EXPORT_KERNEL(full128);
KILN_EXPORT_KERNEL(causal128);
KILN_EXPORT_KERNEL(full64);
KILN_EXPORT_KERNEL(full256);
KILN_EXPORT_KERNEL(causal64x64);
KILN_EXPORT_KERNEL(causal128x32);
// The catalog's registration and reference helpers, unused here (examples/catalog.cpp links the whole catalog).
#include "examples/catalog.h"
namespace kiln::catalog {
bool register_entry(Entry (*)()) { return true; }
}
namespace kiln::catalog {
std::shared_ptr<Buffer> input(Kind, std::vector<std::int64_t>, const std::function<double(std::int64_t)>&) { std::abort(); }
std::shared_ptr<Buffer> output(Kind, std::vector<std::int64_t>) { std::abort(); }
std::vector<double> values(const Buffer&) { std::abort(); }
std::function<double(std::int64_t)> uniform(std::uint64_t, double, double) { std::abort(); }
}
