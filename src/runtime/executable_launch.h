// Launches through a compiled handle (executable.cpp): run_default runs such a
// launch with run_executable while its target is still the handle's.
#pragma once

#include <kiln/target.h>

namespace kiln::detail {

bool runs_executable(const LaunchRequest& req);
void run_executable(const ExecutableImpl& e, LaunchRequest& req);

}  // namespace kiln::detail
