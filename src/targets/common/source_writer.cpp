#include "targets/common/source_writer.h"

#include <kiln/error.h>

namespace kiln::targets {

void SourceWriter::line(const std::string& s) { out_ << std::string(static_cast<std::size_t>(depth_) * 4, ' ') << s << "\n"; }

void SourceWriter::open(const std::string& head) {
    line(head.empty() ? "{" : head + " {");
    ++depth_;
}

void SourceWriter::close(const std::string& tail) {
    if (depth_ == 0) internal_fail("source writer: close() without open()");
    --depth_;
    line(tail);
}

void SourceWriter::otherwise() {
    close("} else {");
    ++depth_;
}

std::string SourceWriter::capture(const std::function<void()>& body) {
    std::ostringstream saved;
    std::swap(saved, out_);
    int depth = depth_;
    body();
    if (depth_ != depth) internal_fail("source writer: a captured block left blocks open");
    std::swap(saved, out_);
    return saved.str();
}

}  // namespace kiln::targets
