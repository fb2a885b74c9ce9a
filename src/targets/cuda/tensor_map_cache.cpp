#include "targets/cuda/tensor_map_cache.h"

namespace kiln::cu {

std::size_t TensorMapCache::KeyHash::operator()(const Key& k) const {
    // Field by field (the struct's padding bytes are indeterminate), a multiply and
    // a rotate per 64-bit word: a lookup costs a few dozen instructions.
    std::uint64_t h = 0x9e3779b97f4a7c15ull;
    auto mix = [&](std::uint64_t v) {
        h = (h ^ v) * 0xff51afd7ed558ccdull;
        h ^= h >> 29;
    };
    const TiledMapRequest& r = k.request;
    mix(reinterpret_cast<std::uintptr_t>(k.encoder));
    mix(reinterpret_cast<std::uintptr_t>(r.base));
    mix(static_cast<std::uint64_t>(r.data_type));
    mix(static_cast<std::uint64_t>(r.rank));
    for (int i = 0; i < r.rank && i < TiledMapRequest::kMaxRank; ++i) {
        mix(r.dims[i]);
        mix(i ? r.strides[i - 1] : 0);
        mix(std::uint64_t{r.box[i]} << 32 | r.element_strides[i]);
    }
    mix(static_cast<std::uint64_t>(r.interleave) << 48 ^ static_cast<std::uint64_t>(r.swizzle) << 32 ^
        static_cast<std::uint64_t>(r.l2_promotion) << 16 ^ static_cast<std::uint64_t>(r.oob_fill));
    return static_cast<std::size_t>(h);
}

bool TensorMapCache::get(const Device& d, const TiledMapRequest& r, TensorMap& map) {
    Key key{d.api.cuTensorMapEncodeTiled, r};
    // Held across the encode too: it is host-only work of a few microseconds, and
    // holding it keeps two threads from encoding and inserting the same key.
    std::lock_guard<std::mutex> guard(mutex_);
    if (auto it = index_.find(key); it != index_.end()) {
        entries_.splice(entries_.begin(), entries_, it->second);
        map = it->second->map;
        ++counts_.hits;
        return true;
    }
    TensorMap fresh;
    if (r.rank < 1 || r.rank > TiledMapRequest::kMaxRank) return false;
    if (!key.encoder || key.encoder(fresh.words, r.data_type, static_cast<unsigned>(r.rank), r.base, r.dims, r.strides, r.box, r.element_strides, r.interleave,
                                    r.swizzle, r.l2_promotion, r.oob_fill) != CUDA_SUCCESS)
        return false;
    ++counts_.encodes;
    map = fresh;
    if (capacity_ == 0) return true;
    entries_.push_front(Entry{key, fresh});
    index_.emplace(key, entries_.begin());
    if (entries_.size() > capacity_) {
        index_.erase(entries_.back().key);
        entries_.pop_back();
    }
    return true;
}

TensorMapCache::Counts TensorMapCache::counts() const {
    std::lock_guard<std::mutex> guard(mutex_);
    return counts_;
}

std::size_t TensorMapCache::size() const {
    std::lock_guard<std::mutex> guard(mutex_);
    return entries_.size();
}

TensorMapCache& tensor_map_cache() {
    static auto* cache = new TensorMapCache(128);  // never destroyed: launches may run during exit
    return *cache;
}

}  // namespace kiln::cu
