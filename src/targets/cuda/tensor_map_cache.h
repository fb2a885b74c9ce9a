// Encoded TMA descriptors (CUtensorMap) of the Hopper GEMM kernel's operands
// (emit_gemm.h), kept so that launches over the same buffers do not encode them
// again: a launch looks its two maps up instead of calling cuTensorMapEncodeTiled.
//
// An encoded map holds a buffer's address and layout, never its contents, and is
// a function of the encoder's inputs alone. The key is every one of those inputs
// (and the encoder itself), so a hit returns exactly the map a fresh encode would
// give: another buffer, extent, stride, box or element type is another key and is
// encoded anew, and a buffer freed and reallocated at the same address with the
// same layout correctly shares its map. Host-only: no device work, no sync.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <mutex>
#include <unordered_map>

#include "targets/cuda/driver.h"

namespace kiln::cu {

// The arguments of one cuTensorMapEncodeTiled call (enums as their values), of
// rank 2 (the GEMM's operands) up to 5 (attention's 4-D [batch, head, seq, channel]
// views, each dimension with its own bounds, so reads past a sequence's end are
// zero-filled rather than taken from the next head).
struct TiledMapRequest {
    static constexpr int kMaxRank = 5;
    int data_type = 0;
    int rank = 2;
    void* base = nullptr;
    std::uint64_t dims[kMaxRank] = {};          // elements, innermost first
    std::uint64_t strides[kMaxRank - 1] = {};   // bytes between consecutive indices of dims 1.. (the GEMM's: strides[0])
    unsigned box[kMaxRank] = {};                // elements, innermost first
    unsigned element_strides[kMaxRank] = {1, 1, 1, 1, 1};
    int interleave = 0, swizzle = 0, l2_promotion = 0, oob_fill = 0;
    bool operator==(const TiledMapRequest&) const = default;
};

// A CUtensorMap: 128 opaque bytes, 64-byte aligned where a kernel reads it.
struct TensorMap {
    alignas(64) std::uint64_t words[16] = {};
};

// A least-recently-used set of encoded maps. Thread-safe.
class TensorMapCache {
public:
    explicit TensorMapCache(std::size_t capacity) : capacity_(capacity) {}

    // The map for r: the cached one, or one encoded with d's driver (then cached).
    // False when the driver refuses r; nothing is cached then.
    bool get(const Device& d, const TiledMapRequest& r, TensorMap& map);

    struct Counts {
        std::uint64_t hits = 0;
        std::uint64_t encodes = 0;  // successful calls of the encoder
    };
    Counts counts() const;
    std::size_t size() const;

private:
    using Encoder = decltype(DriverApi::cuTensorMapEncodeTiled);
    struct Key {
        Encoder encoder;  // maps from one driver are not another's
        TiledMapRequest request;
        bool operator==(const Key&) const = default;
    };
    struct KeyHash {
        std::size_t operator()(const Key& k) const;
    };
    struct Entry {
        Key key;
        TensorMap map;
    };

    std::size_t capacity_;
    mutable std::mutex mutex_;
    std::list<Entry> entries_;  // most recently used first
    std::unordered_map<Key, std::list<Entry>::iterator, KeyHash> index_;
    Counts counts_;
};

// The process's cache, used by gemm_launch (launch_args.h): 128 maps, the operands
// of 64 GEMMs over distinct buffers.
TensorMapCache& tensor_map_cache();

}  // namespace kiln::cu
