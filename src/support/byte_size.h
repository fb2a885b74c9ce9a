// Byte counts in messages: "512 bytes", "3.0 MiB", "4.0 TiB".
#pragma once

#include <cstdint>
#include <string>

namespace kiln::support {

std::string byte_size(double bytes);

}  // namespace kiln::support
