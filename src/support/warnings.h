// Warnings: things kiln works around but the user should know about (a cache it
// cannot write, a dump directory it cannot create). Said once per process, since
// they would otherwise repeat on every launch.
#pragma once

#include <string_view>

namespace kiln::support {

// Prints "kiln: warning: <message>" on stderr the first time `topic` is warned
// about in this process; returns whether it printed. Thread-safe.
bool warn_once(std::string_view topic, std::string_view message);

}  // namespace kiln::support
