// Compiled cpu kernels by cache key: the shared objects (targets/common/
// shared_objects.h) that export kiln_grid and kiln_run (cpu_abi.h).
#pragma once

#include <string>

#include "cache/disk_cache.h"
#include "targets/common/shared_objects.h"
#include "targets/cpu/cpu_abi.h"

namespace kiln::native {

struct Module {
    kiln_cpu::GridFn grid = nullptr;
    kiln_cpu::RunFn run = nullptr;
};

// The module for `key` if this process has loaded it or `disk` (null: no usable
// cache) holds it (a verified entry); null otherwise. Never compiles.
const Module* find_module(const cache::DiskCache* disk, const std::string& key);

// The module for `key` (a cache::KeyBuilder digest that covers `source`), built
// from `source` on a miss everywhere (load_shared_object).
const Module& load_module(const cache::DiskCache* disk, const std::string& key, const std::string& source, const std::string& kernel_name,
                          const HostCompiler& compiler);

}  // namespace kiln::native
