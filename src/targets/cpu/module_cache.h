// The cpu target's compiled kernels by cache key: shared objects
// (targets/common/shared_objects.h: this process's loaded ones, backed by kiln's
// on-disk cache, backed by the host compiler) seen as their two entry points.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cache/disk_cache.h"
#include "targets/cpu/cpu_abi.h"
#include "targets/common/host_compiler.h"
#include "targets/common/shared_objects.h"

namespace kiln::native {

struct Module {
    kiln_cpu::GridFn grid = nullptr;
    kiln_cpu::RunFn run = nullptr;
};

// The module for `key` if this process has loaded it or `disk` (null: no usable
// cache) holds it (a verified entry); null otherwise. Never compiles.
const Module* find_module(const cache::DiskCache* disk, const std::string& key);

// The module for `key` (a cache::KeyBuilder digest that covers `source`). On a
// miss everywhere, compiles `source`, into the cache when it takes the entry,
// else in a private temporary directory. The compiler rejecting the source is an
// internal error quoting the compiler and naming a saved copy of the source; a
// compiler that cannot build a trivial program either is a kiln::Error.
const Module& load_module(const cache::DiskCache* disk, const std::string& key, const std::string& source, const std::string& kernel_name,
                          const HostCompiler& compiler);

// Several kernels built with one host-compiler run (a fuzz campaign's batch): one
// shared object holding every kernel of `sources` (key -> generated source) that
// this process has not loaded yet, each in a namespace of its own with its entry
// points renamed; the prelude every source begins with is compiled once. Each
// kernel then loads by its key like any other (find_module, load_module), from
// this process's memory only: the batch is not put in the on-disk cache, whose
// entries are one kernel each. Returns how many kernels were compiled.
struct BatchSource {
    std::string key, source, kernel_name;
};
int load_module_batch(const std::vector<BatchSource>& sources, const HostCompiler& compiler);

// What this process has done to get modules: targets/common/shared_objects.h's
// shared_object_stats(), which the cpu and metal targets' kernels share.

}  // namespace kiln::native
