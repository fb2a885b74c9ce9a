// A tuning run's result as kept on disk: the chosen configuration's index and the
// table of candidates, as text (one artifact of a DiskCache entry whose key is the
// choice's identity, so the configurations themselves need not be stored: the key
// fixes them). A record that does not parse, or names a configuration the tuner
// does not have, is not used.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <kiln/tune.h>

namespace kiln::tune {

inline constexpr const char* kRecordName = "tune-choice";

std::string encode_choice(const std::string& tuner, const TuneChoice& c);
// The choice in `text`, its configurations filled in from `configs`; nullopt when the
// text is malformed or does not fit them.
std::optional<TuneChoice> decode_choice(const std::string& text, const std::vector<Config>& configs);

}  // namespace kiln::tune
