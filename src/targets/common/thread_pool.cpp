// Workers are pthreads (std::thread cannot choose a stack size). They sleep until
// a job is posted, claim task numbers from a shared counter, and the last one out
// wakes the poster. A job that needs more workers or deeper stacks than the pool
// has replaces the pool first.
#include "targets/common/thread_pool.h"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <kiln/error.h>

#include "support/byte_size.h"
#include "support/environment.h"

namespace kiln::native {

int launch_threads() {
    if (auto n = support::env_integer("KILN_NUM_THREADS", 1, 4096)) return static_cast<int>(*n);
    // Asked once: glibc answers by reading /sys/devices/system/cpu/online, three
    // system calls that were most of a small launch's cost.
    static const int hardware = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    return hardware;
}

namespace {

class Pool {
public:
    Pool(int workers, std::size_t stack_bytes) : stack_bytes_(stack_bytes) {
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, stack_bytes);
        for (int w = 0; w < workers; ++w) {
            pthread_t t;
            if ((error_ = pthread_create(&t, &attr, &Pool::main, this)) != 0) break;  // run with fewer workers
            threads_.push_back(t);
        }
        pthread_attr_destroy(&attr);
    }
    ~Pool() {
        {
            std::lock_guard<std::mutex> g(m_);
            stopping_ = true;
        }
        wake_.notify_all();
        for (pthread_t t : threads_) pthread_join(t, nullptr);
    }
    int workers() const { return static_cast<int>(threads_.size()); }
    int error() const { return error_; }  // why the last worker could not start (0: all did)
    std::size_t stack_bytes() const { return stack_bytes_; }

    void run(std::int64_t tasks, int helpers, bool caller_helps, const std::function<void(std::int64_t)>& task) {
        {
            std::lock_guard<std::mutex> g(m_);
            task_ = &task;
            tasks_ = tasks;
            next_.store(0);
            seats_ = std::min(helpers, workers());
            busy_ = 0;
            ++generation_;
        }
        wake_.notify_all();
        if (caller_helps) work();
        std::unique_lock<std::mutex> g(m_);
        done_.wait(g, [&] { return seats_ == 0 && busy_ == 0; });
        task_ = nullptr;
    }

private:
    static void* main(void* self) {
        static_cast<Pool*>(self)->loop();
        return nullptr;
    }
    void loop() {
        std::uint64_t seen = 0;
        for (;;) {
            {
                std::unique_lock<std::mutex> g(m_);
                wake_.wait(g, [&] { return stopping_ || (generation_ != seen && seats_ > 0); });
                if (stopping_) return;
                seen = generation_;
                --seats_;
                ++busy_;
            }
            work();
            std::lock_guard<std::mutex> g(m_);
            if (--busy_ == 0 && seats_ == 0) done_.notify_all();
        }
    }
    void work() {
        for (std::int64_t t; (t = next_.fetch_add(1)) < tasks_;) (*task_)(t);
    }

    std::size_t stack_bytes_;
    int error_ = 0;
    std::vector<pthread_t> threads_;
    std::mutex m_;
    std::condition_variable wake_, done_;
    bool stopping_ = false;
    std::uint64_t generation_ = 0;
    const std::function<void(std::int64_t)>* task_ = nullptr;
    std::int64_t tasks_ = 0;
    std::atomic<std::int64_t> next_{0};
    int seats_ = 0;  // workers still to join this job
    int busy_ = 0;   // workers inside it
};

std::mutex g_job;  // one job at a time
std::unique_ptr<Pool> g_pool;

// A child of fork() has none of the parent's workers: it forgets the pool (whose
// threads exist only in the parent, so it cannot be joined) and starts afresh.
[[maybe_unused]] const int g_atfork = pthread_atfork(nullptr, nullptr, [] { (void)g_pool.release(); });

}  // namespace

void run_tasks(std::int64_t tasks, int threads, std::size_t stack_bytes, bool caller_helps, const std::function<void(std::int64_t)>& task) {
    if (tasks <= 0) return;
    int helpers = std::max(0, static_cast<int>(std::min<std::int64_t>(threads, tasks)) - (caller_helps ? 1 : 0));
    if (helpers == 0 && caller_helps) {
        for (std::int64_t t = 0; t < tasks; ++t) task(t);
        return;
    }
    std::lock_guard<std::mutex> job(g_job);
    if (!g_pool || g_pool->workers() < helpers || g_pool->stack_bytes() < stack_bytes) {
        int workers = std::max(helpers, g_pool ? g_pool->workers() : 0);
        std::size_t stack = std::max(stack_bytes, g_pool ? g_pool->stack_bytes() : std::size_t{0});
        g_pool.reset();
        g_pool = std::make_unique<Pool>(workers, stack);
        if (g_pool->workers() == 0 && !caller_helps)
            throw Error("cpu target: cannot start a worker thread with a " + support::byte_size(static_cast<double>(stack)) +
                        " stack for the kernel's tiles: " + std::strerror(g_pool->error()));
    }
    g_pool->run(tasks, helpers, caller_helps, task);
}

}  // namespace kiln::native
