#include "targets/metal/msl_dialect.h"

#include <cctype>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <vector>

#include <kiln/error.h>

namespace kiln::mtl {

namespace {

enum class Tok { space, comment, preprocessor, identifier, number, punct, string };

struct Token {
    Tok kind;
    std::string text;
};

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// C++ tokens, with whitespace, comments and preprocessor lines as tokens of
// their own so that the text can be put back together unchanged around them.
std::vector<Token> tokenize(std::string_view s) {
    std::vector<Token> out;
    std::size_t i = 0;
    // Whether only whitespace precedes position i on its line.
    auto line_start = [&](std::size_t i) {
        while (i > 0 && (s[i - 1] == ' ' || s[i - 1] == '\t')) --i;
        return i == 0 || s[i - 1] == '\n';
    };
    while (i < s.size()) {
        const char c = s[i];
        std::size_t j = i + 1;
        Tok kind = Tok::punct;
        if (std::isspace(static_cast<unsigned char>(c))) {
            while (j < s.size() && std::isspace(static_cast<unsigned char>(s[j]))) ++j;
            kind = Tok::space;
        } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
            j = s.find('\n', i);
            if (j == std::string_view::npos) j = s.size();
            kind = Tok::comment;
        } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
            j = s.find("*/", i + 2);
            j = j == std::string_view::npos ? s.size() : j + 2;
            kind = Tok::comment;
        } else if (c == '#' && line_start(i)) {
            // To the end of the line, with backslash continuations.
            while (j < s.size() && !(s[j] == '\n' && s[j - 1] != '\\')) ++j;
            kind = Tok::preprocessor;
        } else if (c == '"' || c == '\'') {
            while (j < s.size() && s[j] != c) j += s[j] == '\\' ? 2 : 1;
            j = std::min(j + 1, s.size());
            kind = Tok::string;
        } else if (ident_start(c)) {
            while (j < s.size() && ident_char(s[j])) ++j;
            kind = Tok::identifier;
        } else if (std::isdigit(static_cast<unsigned char>(c)) || (c == '.' && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
            // A pp-number: digits, letters, '.', and a sign after e/E/p/P.
            while (j < s.size()) {
                const char d = s[j];
                const char prev = s[j - 1];
                if (ident_char(d) || d == '.' || ((d == '+' || d == '-') && (prev == 'e' || prev == 'E' || prev == 'p' || prev == 'P'))) ++j;
                else break;
            }
            kind = Tok::number;
        }
        out.push_back({kind, std::string(s.substr(i, j - i))});
        i = j;
    }
    return out;
}

bool is_hex(const std::string& n) { return n.size() > 1 && n[0] == '0' && (n[1] == 'x' || n[1] == 'X'); }

bool is_float_literal(const std::string& n) {
    if (is_hex(n)) return n.find_first_of("pP") != std::string::npos;
    return n.find('.') != std::string::npos || n.find_first_of("eE") != std::string::npos;
}

// A double literal as the kf64 with its exact bits (strtod reads hex floats too).
std::string kf64_literal(const std::string& n) {
    char* end = nullptr;
    const double v = std::strtod(n.c_str(), &end);
    if (end != n.c_str() + n.size()) internal_fail("msl dialect: cannot read the literal " + n);
    std::uint64_t b;
    std::memcpy(&b, &v, 8);
    char buf[64];
    std::snprintf(buf, sizeof buf, "kf64_from_bits(0x%016" PRIx64 "UL)", b);
    return buf;
}

// ULL / ull -> UL, LL / ll -> L (MSL's long and ulong are 64 bits).
std::string integer_literal(std::string n) {
    auto ends = [&](const char* suffix) {
        const std::size_t k = std::strlen(suffix);
        return n.size() > k && n.compare(n.size() - k, k, suffix) == 0;
    };
    for (const char* s : {"ULL", "ull", "LLU", "llu"})
        if (ends(s)) return n.substr(0, n.size() - 3) + "UL";
    for (const char* s : {"LL", "ll"})
        if (ends(s)) return n.substr(0, n.size() - 2) + "L";
    return n;
}

class Rewriter {
public:
    explicit Rewriter(std::vector<Token> t) : t_(std::move(t)) {}

    std::string run() {
        for (i_ = 0; i_ < t_.size(); ++i_) step();
        return out_;
    }

private:
    // The index of the next token that is not space or comment after k (t_.size() if none).
    std::size_t next(std::size_t k) const {
        for (++k; k < t_.size(); ++k)
            if (t_[k].kind != Tok::space && t_[k].kind != Tok::comment) return k;
        return t_.size();
    }
    bool is(std::size_t k, const char* text) const { return k < t_.size() && t_[k].text == text; }

    void step() {
        const Token& tok = t_[i_];
        switch (tok.kind) {
            case Tok::space: case Tok::comment: case Tok::preprocessor: case Tok::string: out_ += tok.text; return;
            case Tok::number:
                if (!is_float_literal(tok.text)) out_ += integer_literal(tok.text);
                else if (tok.text.back() == 'f' || tok.text.back() == 'F') out_ += tok.text;  // a float literal stays
                else out_ += kf64_literal(tok.text);
                return;
            case Tok::punct:
                if (tok.text == "&" && reference_declarator()) insert_thread();
                out_ += tok.text;
                return;
            case Tok::identifier: identifier(); return;
        }
    }

    // `T& name` in a declaration: & glued to a type word, then a name.
    bool reference_declarator() const {
        if (i_ == 0 || t_[i_ - 1].kind != Tok::identifier) return false;
        const std::size_t n = next(i_);
        return n < t_.size() && t_[n].kind == Tok::identifier && i_ + 1 < t_.size() && t_[i_ + 1].kind == Tok::space;
    }

    // "thread " before the parameter's type: after the last '(' or ',' written.
    void insert_thread() {
        const std::size_t at = out_.find_last_of("(,");
        if (at == std::string::npos) internal_fail("msl dialect: a reference outside a parameter list");
        std::size_t p = at + 1;
        while (p < out_.size() && std::isspace(static_cast<unsigned char>(out_[p]))) ++p;
        out_.insert(p, "thread ");
    }

    void identifier() {
        const std::string& w = t_[i_].text;
        if (w == "unsigned" && is(next(i_), "long") && is(next(next(i_)), "long")) {
            out_ += "ulong";
            i_ = next(next(i_));
        } else if (w == "long" && is(next(i_), "long")) {
            out_ += "long";
            i_ = next(i_);
        } else if (w == "double") {
            out_ += "kf64";
        } else if (w == "__builtin_sqrt") {
            out_ += "kf64_sqrt";
        } else if (w == "__builtin_bit_cast") {
            bit_cast();
        } else if (w == "static" && is(next(i_), "const")) {
            i_ = next(i_) - 1;  // drop "static" and the space after it
        } else if (w == "constexpr" && is(next(i_), "double")) {
            constants();
        } else if (constants_.count(w)) {
            out_ += w + "()";
        } else {
            out_ += w;
        }
    }

    // __builtin_bit_cast(T, x) -> kiln_bit_cast<T>(x): T is the tokens up to the first
    // comma at depth 0 (rewritten like the rest).
    void bit_cast() {
        std::size_t k = next(i_);
        if (!is(k, "(")) internal_fail("msl dialect: __builtin_bit_cast without '('");
        out_ += "kiln_bit_cast<";
        for (i_ = k + 1; i_ < t_.size() && !is(i_, ","); ++i_) step();
        out_ += ">(";
        // The rest (x and the closing parenthesis) goes through step() as usual.
    }

    // constexpr double N = v, M = w; -> one inline function per name.
    void constants() {
        std::size_t k = next(next(i_));
        for (;;) {
            if (k >= t_.size() || t_[k].kind != Tok::identifier) internal_fail("msl dialect: unexpected constexpr double declaration");
            const std::string name = t_[k].text;
            k = next(k);
            if (!is(k, "=")) internal_fail("msl dialect: constexpr double " + name + " without '='");
            k = next(k);
            if (k >= t_.size() || t_[k].kind != Tok::number) internal_fail("msl dialect: constexpr double " + name + " is not a literal");
            out_ += "inline kf64 " + name + "() { return " + kf64_literal(t_[k].text) + "; }";
            constants_.insert(name);
            k = next(k);
            if (is(k, ";")) break;
            if (!is(k, ",")) internal_fail("msl dialect: unexpected token after constexpr double " + name);
            out_ += "\n";
            k = next(k);
        }
        i_ = k;
    }

    std::vector<Token> t_;
    std::size_t i_ = 0;
    std::string out_;
    std::set<std::string> constants_;
};

}  // namespace

std::string msl_dialect(std::string_view cpp) { return Rewriter(tokenize(cpp)).run(); }

}  // namespace kiln::mtl
