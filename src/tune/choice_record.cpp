#include "tune/choice_record.h"

#include <cstdio>
#include <cstdlib>
#include <utility>
#include <sstream>

namespace kiln::tune {

namespace {

// A reason on one line: backslashes and line breaks escaped.
std::string escape(const std::string& s) {
    std::string out;
    for (char ch : s) {
        if (ch == '\\') out += "\\\\";
        else if (ch == '\n') out += "\\n";
        else out += ch;
    }
    return out;
}

std::string unescape(const std::string& s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '\\' && i + 1 < s.size()) {
            out += s[i + 1] == 'n' ? '\n' : s[i + 1];
            ++i;
        } else {
            out += s[i];
        }
    }
    return out;
}

std::optional<TuneCandidate::Status> status_named(const std::string& s) {
    for (auto st : {TuneCandidate::Status::timed, TuneCandidate::Status::rejected, TuneCandidate::Status::failed})
        if (status_name(st) == s) return st;
    return std::nullopt;
}

std::string exact(double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

}  // namespace

// Format:
//   kiln-tune-choice 1
//   tuner <name, escaped>
//   choice <index>
//   candidate <index> <status> <median s> <first launch s> <difference> <why, escaped, may be empty>
std::string encode_choice(const std::string& tuner, const TuneChoice& c) {
    std::string out = "kiln-tune-choice 1\ntuner " + escape(tuner) + "\nchoice " + std::to_string(c.index) + "\n";
    for (std::size_t i = 0; i < c.candidates.size(); ++i) {
        const TuneCandidate& k = c.candidates[i];
        out += "candidate " + std::to_string(i) + " " + std::string(status_name(k.status)) + " " + exact(k.median) + " " +
               exact(k.first_launch) + " " + exact(k.difference) + " " + escape(k.why) + "\n";
    }
    return out;
}

std::optional<TuneChoice> decode_choice(const std::string& text, const std::vector<Config>& configs) {
    std::istringstream in(text);
    std::string line;
    if (!std::getline(in, line) || line != "kiln-tune-choice 1") return std::nullopt;
    if (!std::getline(in, line) || line.rfind("tuner ", 0) != 0) return std::nullopt;
    TuneChoice c;
    {
        if (!std::getline(in, line)) return std::nullopt;
        std::istringstream l(line);
        std::string word;
        if (!(l >> word >> c.index) || word != "choice" || c.index >= configs.size()) return std::nullopt;
    }
    while (std::getline(in, line)) {
        std::istringstream l(line);
        std::string word, status, median, first, difference;
        std::size_t index = 0;
        TuneCandidate k;
        if (!(l >> word >> index >> status >> median >> first >> difference) || word != "candidate" ||
            index != c.candidates.size() || index >= configs.size())
            return std::nullopt;
        // strtod, unlike operator>>, reads the "inf" a candidate that differed wrote.
        for (auto [text, to] : {std::pair{&median, &k.median}, {&first, &k.first_launch}, {&difference, &k.difference}}) {
            char* end = nullptr;
            *to = std::strtod(text->c_str(), &end);
            if (end != text->c_str() + text->size()) return std::nullopt;
        }
        auto st = status_named(status);
        if (!st) return std::nullopt;
        k.status = *st;
        std::string why;
        std::getline(l, why);
        if (!why.empty() && why[0] == ' ') why.erase(0, 1);
        k.why = unescape(why);
        k.config = configs[index];
        c.candidates.push_back(std::move(k));
    }
    if (c.candidates.size() != configs.size() || c.candidates[c.index].status != TuneCandidate::Status::timed) return std::nullopt;
    c.config = configs[c.index];
    c.from_disk = true;
    return c;
}

}  // namespace kiln::tune
