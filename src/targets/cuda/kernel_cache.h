// Compiled kernels: emitted, compiled by NVRTC, cached on disk (cubin, PTX, source,
// keyed by SHA-256 over everything that determines them) and kept loaded in this
// process, so that a warm launch costs a map lookup.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "targets/cuda/driver.h"
#include "targets/cuda/emit.h"

namespace kiln::cu {

// ptxas's report for the kernel (--ptxas-options=-v).
struct Resources {
    bool known = false;
    int registers = 0;
    int stack_bytes = 0;
    int spill_store_bytes = 0;
    int spill_load_bytes = 0;
};

inline constexpr const char* kKeptSpills = "spills kept";

struct CompiledKernel {
    EmittedKernel kernel;
    std::string arch;                  // "sm_90a"
    std::string key;                   // the disk cache key
    std::string cubin, log;
    std::string ptx;                   // kept when compiled in this process; kernel_ptx() reads a cached one
    Resources resources;               // of kernel.entry
    Resources gemm_resources;          // of kernel.gemm.entry, when there is one
    Resources attention_resources;     // of kernel.attention.entry, when there is one
    bool from_disk = false;
    std::string source_override;       // the KILN_CUDA_SOURCE_DIR file compiled in place of the generated source, if any
    // What the spill feedback gave up, in order, to fit the registers (the plan's
    // "fitted to the registers" line): empty when the first compile fit. Its last line
    // starts with kKeptSpills where spills within EmitOptions::spill_tolerance or
    // layout_spill_tolerance were kept.
    std::vector<std::string> spill_feedback;
    bool kept_spills() const { return !spill_feedback.empty() && spill_feedback.back().rfind(kKeptSpills, 0) == 0; }
    // The spill tolerances of the ladder that kept this kernel (EmitOptions::spill_tolerance,
    // layout_spill_tolerance); -1 where no ladder of this process judged it.
    int ladder_spill_tolerance = -1, ladder_layout_spill_tolerance = -1;
    bool has_text = true;              // kernel has the emitter's source and plan lines (false: found through the program index)
    bool compiled = true;              // false: probe_kernel's emitted kernel, not compiled (no cubin, never loaded)
    CUfunction function = nullptr;     // loaded on the device; null when compiled offline
    CUfunction gemm_function = nullptr;  // kernel.gemm's entry, loaded likewise (emit_gemm.h)
    CUfunction attention_function = nullptr;  // kernel.attention's entry (emit_attention.h)
    // Of a kernel whose instances span clusters (kernel.cluster > 1), loaded: how many
    // of its clusters the device runs at once (0: unknown), the persistent grid's size.
    int active_clusters = 0;
    // Loaded on a device (a module beside a specialised kernel may have no generic function).
    bool loaded() const { return function || gemm_function || attention_function; }
};

// The kernel for `p` under `o`; `dev` null compiles offline for sm_90a (no load).
// A launch's kernel may come through the program index (program_index.h), without
// the emitter's text; `need_text` (plan, source) asks for a kernel that has it.
std::shared_ptr<const CompiledKernel> compiled_kernel(const ir::Program& p, const EmitOptions& o, const Device* dev, bool need_text = false,
                                                      Loc launch = {});

// What a launch learns of `p`'s kernel under `o` before deciding what to compile
// (cuda_target.cpp: a GEMM's launch tile): the kernel when this process or the
// program index has it, else the emitter's output alone (`compiled` false; NVRTC
// not run, nothing loaded or remembered). A GEMM launched at another tile than the
// program's thus compiles only the kernel it runs.
std::shared_ptr<const CompiledKernel> probe_kernel(const ir::Program& p, const EmitOptions& o, const Device* dev, bool need_text = false,
                                                   Loc launch = {});

// Makes `k` (compiled under other options: a GEMM variant) the kernel found for `p`
// under `o`, in this process and, for a device, in the program index: a later launch
// under `o` finds it without emitting (and chooses again from the same program tile).
// compiled_kernel(p, o) then also returns it (prepare, source's PTX): every variant
// computes the same function at any shape; only its tile differs.
void alias_kernel(const ir::Program& p, const EmitOptions& o, const Device* dev, const std::shared_ptr<const CompiledKernel>& k);

// A module of kernels that belong to no program (staging_kernels.h): `source`
// compiled for `arch` under the standard options, through the disk cache like a
// program's kernels; `name` names it in errors. Not loaded. A kiln::Error where
// NVRTC is missing and the cache does not hold it.
std::shared_ptr<const CompiledKernel> compiled_module(const std::string& name, const std::string& source, const std::string& arch);

// The kernel's PTX: NVRTC's output when compiled in this process, else its cache
// entry's (a launch reads only the cubin and ptxas's log). Empty when the entry has
// gone since the kernel was loaded.
std::string kernel_ptx(const CompiledKernel& k);

// The mma.sync / wgmma instructions in the kernel's PTX (the plan's count).
int tensor_core_instructions(const CompiledKernel& k);

// NVRTC's options for a compile (part of the cache key).
std::vector<std::string> nvrtc_options(const EmitOptions& o, const std::string& arch);

}  // namespace kiln::cu
