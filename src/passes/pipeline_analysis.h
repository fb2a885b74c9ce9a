// Pipeline analysis: for each `pipeline` loop, which of its loads a target may
// issue ahead of the iteration that uses them (their origins depend only on the
// loop's indices and on values from outside the loop), how far ahead (the loop's
// window less one), and the shared-memory ring that takes: one buffer per stage
// in flight for each prefetched tile, reused every `window` iterations. Loads
// that depend on carried state or on other loads are named with the reason.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/ir.h"

namespace kiln::passes {

struct Lowered;

struct PipelinePlan {
    const ir::Node* loop = nullptr;
    int window = 1;                  // stages in flight
    struct Load {
        const ir::Node* load = nullptr;
        bool prefetchable = false;
        std::string why;             // when not prefetchable
        std::int64_t bytes = 0;      // one stage's buffer
    };
    std::vector<Load> loads;
    std::int64_t ring_bytes() const;  // the prefetched loads' buffers, window deep
    std::string describe() const;
};

void pipeline_analysis(Lowered& l);

}  // namespace kiln::passes
