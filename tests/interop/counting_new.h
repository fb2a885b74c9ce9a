// Global operator new and delete replaced by malloc and free that count this
// thread's allocations while asked to: how tests show that a warm launch allocates
// nothing (tests/interop/launch_allocation_test.cpp, tests/fake_cuda). Include it in
// one source file of a test executable (it defines the replaceable functions).
//
// Every form that allocates through malloc here is replaced together with the
// deletes that free it: the plain, sized and nothrow ones. A nothrow new left to the
// library (std::stable_sort's temporary buffer asks for one) paired with a delete
// replaced here was an alloc-dealloc mismatch under AddressSanitizer (session 44's
// ASan run, the fuzz campaign against the stand-in driver). The array forms call
// these; the aligned ones, neither replaced, pair with each other.
#pragma once

#include <cstdlib>
#include <new>

namespace counting_new {

inline thread_local bool counting = false;
inline thread_local long allocations = 0;

// The allocations `f` makes on this thread.
template <class F> long allocations_in(F&& f) {
    allocations = 0;
    counting = true;
    f();
    counting = false;
    return allocations;
}

}  // namespace counting_new

void* operator new(std::size_t n) {
    if (counting_new::counting) ++counting_new::allocations;
    if (void* p = std::malloc(n ? n : 1)) return p;
    throw std::bad_alloc();
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
    if (counting_new::counting) ++counting_new::allocations;
    return std::malloc(n ? n : 1);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
