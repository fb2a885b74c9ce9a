// Names users give kernels, axes and pipeline stages reach generated source (in
// comments), file names (dumped and saved sources) and messages. One rule says
// what a name may hold, checked where the name is given; and since a name that
// slipped past it must still never become code or a path, one spelling of a name
// for each of those places.
#pragma once

#include <string>
#include <string_view>

namespace kiln::support {

// The longest name kiln accepts.
inline constexpr std::size_t kMaxNameLength = 256;

// Empty when `name` is a valid name: 1 to kMaxNameLength printable ASCII
// characters (space to '~'). Otherwise what is wrong, for a message:
// "character 5 is a newline (0x0a); names are printable ASCII".
std::string name_problem(std::string_view name);

// `text` as it may stand inside a `//` comment or a string literal of generated
// C++ or CUDA: printable ASCII other than backslash and double quote is kept,
// anything else becomes \xNN. No line break, no line continuation, no end of the
// literal, whatever the text.
std::string source_text(std::string_view text);

// `text` as part of one file-name component: letters, digits, '_' and '-' kept,
// anything else '_', at most 64 characters; "_" when nothing is left.
std::string file_name_part(std::string_view text);

// `text` quoted for a message, control characters escaped: "'a\nb'".
std::string quoted(std::string_view text);

}  // namespace kiln::support
