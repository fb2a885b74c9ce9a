// Generated source text with indentation: what every emitter writes through.
#pragma once

#include <functional>
#include <sstream>
#include <string>

namespace kiln::targets {

class SourceWriter {
public:
    explicit SourceWriter(int depth = 0) : depth_(depth) {}
    void line(const std::string& s);
    void open(const std::string& head);            // "head {" (or "{"), one level deeper
    void close(const std::string& tail = "}");     // one level up, then tail
    void otherwise();                              // "} else {" at the open block's level
    void raw(const std::string& text) { out_ << text; }  // appended as it is
    // Runs body with its lines going to a fresh buffer (at the current depth) and
    // returns what it wrote; the writer's own text is unchanged.
    std::string capture(const std::function<void()>& body);
    std::string text() const { return out_.str(); }
    int depth() const { return depth_; }

private:
    std::ostringstream out_;
    int depth_;
};

}  // namespace kiln::targets
