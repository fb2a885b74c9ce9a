// Files kiln writes where someone else may have been first: never through a
// symlink, never into a file another user made, 0600, and a failure that names
// the file and the system's reason.
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "cache/private_files.h"

namespace fs = std::filesystem;
using kiln::cache::IoError;

namespace {

class PrivateFiles : public testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::path(testing::TempDir()) / ("kiln-private-files-" + std::to_string(getpid()));
        fs::remove_all(dir_);
        fs::create_directories(dir_);
        std::ofstream(dir_ / "victim") << "precious";
    }
    void TearDown() override { fs::remove_all(dir_); }

    std::string read(const fs::path& p) {
        std::ifstream in(p);
        return std::string((std::istreambuf_iterator<char>(in)), {});
    }
    unsigned mode(const fs::path& p) {
        struct stat st {};
        EXPECT_EQ(::lstat(p.c_str(), &st), 0) << p;
        return st.st_mode & 07777;
    }
    template <class F> std::string error_of(F&& f) {
        try {
            f();
        } catch (const IoError& e) {
            return e.what();
        }
        return "no error";
    }
    fs::path dir_;
};

}  // namespace

TEST_F(PrivateFiles, NewFileIsCreatedWithMode0600) {
    kiln::cache::write_new_file(dir_ / "a.cpp", "int x;\n");
    EXPECT_EQ(read(dir_ / "a.cpp"), "int x;\n");
    EXPECT_EQ(mode(dir_ / "a.cpp"), 0600u);
}

TEST_F(PrivateFiles, NewFileNeverWritesThroughASymlinkOrIntoAnExistingFile) {
    fs::create_symlink(dir_ / "victim", dir_ / "planted.cpp");
    std::string msg = error_of([&] { kiln::cache::write_new_file(dir_ / "planted.cpp", "evil"); });
    EXPECT_EQ(msg, "cannot create " + (dir_ / "planted.cpp").string() + ": File exists");
    EXPECT_EQ(read(dir_ / "victim"), "precious");
    msg = error_of([&] { kiln::cache::write_new_file(dir_ / "victim", "evil"); });
    EXPECT_EQ(msg, "cannot create " + (dir_ / "victim").string() + ": File exists");
    EXPECT_EQ(read(dir_ / "victim"), "precious");
}

TEST_F(PrivateFiles, ReplaceFileReplacesAPlantedSymlinkInsteadOfFollowingIt) {
    fs::create_symlink(dir_ / "victim", dir_ / "dump.cpp");
    auto path = kiln::cache::replace_file(dir_, "dump.cpp", "source");
    EXPECT_EQ(path, dir_ / "dump.cpp");
    EXPECT_FALSE(fs::is_symlink(path));
    EXPECT_EQ(read(path), "source");
    EXPECT_EQ(mode(path), 0600u);
    EXPECT_EQ(read(dir_ / "victim"), "precious");
    kiln::cache::replace_file(dir_, "dump.cpp", "again");  // an earlier dump is replaced
    EXPECT_EQ(read(path), "again");
    std::size_t files = 0;
    for ([[maybe_unused]] auto& e : fs::directory_iterator(dir_)) ++files;
    EXPECT_EQ(files, 2u) << "a temporary file was left behind";
}

TEST_F(PrivateFiles, PrivateDirectoryIsFreshAndOnlyOurs) {
    setenv("TMPDIR", dir_.c_str(), 1);
    auto a = kiln::cache::make_private_dir("kiln-test");
    auto b = kiln::cache::make_private_dir("kiln-test");
    unsetenv("TMPDIR");
    EXPECT_NE(a, b);
    EXPECT_EQ(a.parent_path(), dir_);
    EXPECT_EQ(a.filename().string().rfind("kiln-test-", 0), 0u);
    EXPECT_EQ(mode(a), 0700u);
    {
        kiln::cache::ScratchDir s("kiln-scratch");
        a = s.path();
        EXPECT_TRUE(fs::is_directory(a));
        kiln::cache::write_new_file(a / "x", "y");
    }
    EXPECT_FALSE(fs::exists(a));
}

TEST_F(PrivateFiles, ErrorsNameTheFileAndTheSystemsReason) {
    std::string msg = error_of([&] { kiln::cache::write_new_file(dir_ / "missing" / "kernel.cpp", "x"); });
    EXPECT_EQ(msg, "cannot create " + (dir_ / "missing" / "kernel.cpp").string() + ": No such file or directory");
    // A disk that fills up mid-write (a file size limit, in a child process).
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    pid_t pid = fork();
    if (pid == 0) {
        std::signal(SIGXFSZ, SIG_IGN);
        struct rlimit limit {1024, 1024};
        setrlimit(RLIMIT_FSIZE, &limit);
        std::string m = error_of([&] { kiln::cache::write_new_file(dir_ / "big.cpp", std::string(4096, 'x')); });
        m += fs::exists(dir_ / "big.cpp") ? " (left behind)" : "";
        (void)!::write(fds[1], m.data(), m.size());
        _exit(0);
    }
    close(fds[1]);
    std::string got;
    char buf[512];
    for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) got.append(buf, static_cast<std::size_t>(n));
    close(fds[0]);
    waitpid(pid, nullptr, 0);
    EXPECT_EQ(got, "cannot write " + (dir_ / "big.cpp").string() + ": File too large");
}
