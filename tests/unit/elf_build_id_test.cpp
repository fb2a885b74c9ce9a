// support::elf_build_id reads the GNU build ID note of an ELF file, which the CUDA
// kernel cache uses to name NVRTC's build on every machine (targets/cuda/nvrtc.cpp).
// Checked on ELF files written here byte by byte (so the expected ID is known),
// on files that are not ELF or are cut short, and on NVRTC itself where it is
// installed (against the identity the cache keys use).
#include <gtest/gtest.h>

#include <elf.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/elf_build_id.h"
#include "targets/cuda/nvrtc.h"

using kiln::support::elf_build_id;

namespace {

namespace fs = std::filesystem;

void append(std::vector<unsigned char>& out, const void* p, std::size_t n) {
    const auto* b = static_cast<const unsigned char*>(p);
    out.insert(out.end(), b, b + n);
}

// One note: header, name padded to 4, descriptor padded to 4.
void append_note(std::vector<unsigned char>& out, std::uint32_t type, const std::string& name, const std::vector<unsigned char>& desc) {
    Elf64_Nhdr h{static_cast<Elf64_Word>(name.size() + 1), static_cast<Elf64_Word>(desc.size()), type};
    append(out, &h, sizeof h);
    append(out, name.c_str(), name.size() + 1);
    out.resize((out.size() + 3) / 4 * 4, 0);
    append(out, desc.data(), desc.size());
    out.resize((out.size() + 3) / 4 * 4, 0);
}

// A 64-bit little-endian ELF file with one PT_LOAD (ignored) and one PT_NOTE
// segment holding `notes`.
std::vector<unsigned char> elf_with_notes(const std::vector<unsigned char>& notes) {
    Elf64_Ehdr e{};
    std::memcpy(e.e_ident, ELFMAG, SELFMAG);
    e.e_ident[EI_CLASS] = ELFCLASS64;
    e.e_ident[EI_DATA] = ELFDATA2LSB;
    e.e_ident[EI_VERSION] = EV_CURRENT;
    e.e_type = ET_DYN;
    e.e_machine = EM_X86_64;
    e.e_version = EV_CURRENT;
    e.e_phoff = sizeof(Elf64_Ehdr);
    e.e_ehsize = sizeof(Elf64_Ehdr);
    e.e_phentsize = sizeof(Elf64_Phdr);
    e.e_phnum = 2;
    Elf64_Phdr load{}, note{};
    load.p_type = PT_LOAD;
    note.p_type = PT_NOTE;
    note.p_offset = sizeof(Elf64_Ehdr) + 2 * sizeof(Elf64_Phdr);
    note.p_filesz = notes.size();
    note.p_align = 4;
    std::vector<unsigned char> out;
    append(out, &e, sizeof e);
    append(out, &load, sizeof load);
    append(out, &note, sizeof note);
    out.insert(out.end(), notes.begin(), notes.end());
    return out;
}

class ElfBuildId : public ::testing::Test {
protected:
    std::string write(const std::string& name, const std::vector<unsigned char>& bytes) {
        const fs::path p = dir_ / name;
        std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
        return p.string();
    }
    void SetUp() override { fs::create_directories(dir_); }
    void TearDown() override { fs::remove_all(dir_); }
    fs::path dir_ = fs::temp_directory_path() / ("kiln-elf-build-id-" + std::to_string(::getpid()));
};

TEST_F(ElfBuildId, FoundAfterOtherNotesAsLowerCaseHex) {
    std::vector<unsigned char> notes;
    append_note(notes, NT_GNU_ABI_TAG, "GNU", {0, 0, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0});
    append_note(notes, NT_GNU_BUILD_ID, "XYZ", {0xde, 0xad});  // another owner's note of the same type
    append_note(notes, NT_GNU_BUILD_ID, "GNU", {0x65, 0xbe, 0x0d, 0xb3, 0x42, 0xad, 0x51, 0xa0, 0x68, 0x76, 0xe7, 0x1e, 0x21, 0x0b, 0xcc, 0xc5,
                                                0xaa, 0x83, 0x22, 0xcf});
    EXPECT_EQ(elf_build_id(write("lib.so", elf_with_notes(notes))), "65be0db342ad51a06876e71e210bccc5aa8322cf");
}

TEST_F(ElfBuildId, EmptyWithoutOneOrForAFileThatIsNotElfOrIsCutShort) {
    std::vector<unsigned char> notes;
    append_note(notes, NT_GNU_ABI_TAG, "GNU", {0, 0, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0});
    EXPECT_EQ(elf_build_id(write("no-id.so", elf_with_notes(notes))), "");
    EXPECT_EQ(elf_build_id(write("text.so", std::vector<unsigned char>{'h', 'e', 'l', 'l', 'o', '\n'})), "");
    EXPECT_EQ(elf_build_id((dir_ / "missing.so").string()), "");
    // A note whose sizes run past its segment: no ID, no read out of bounds.
    std::vector<unsigned char> bad;
    append_note(bad, NT_GNU_BUILD_ID, "GNU", std::vector<unsigned char>(20, 0x11));
    std::vector<unsigned char> file = elf_with_notes(bad);
    const std::size_t desc_size_at = sizeof(Elf64_Ehdr) + 2 * sizeof(Elf64_Phdr) + offsetof(Elf64_Nhdr, n_descsz);
    file[desc_size_at] = 0xff;
    file[desc_size_at + 1] = 0xff;
    EXPECT_EQ(elf_build_id(write("bad.so", file)), "");
    // The same file cut inside its note segment.
    std::vector<unsigned char> good = elf_with_notes(bad);
    good.resize(good.size() - 8);
    EXPECT_EQ(elf_build_id(write("short.so", good)), "");
}

// Where NVRTC is installed with a build ID, the cache's identity of it is that ID
// (the same on every machine with this build), not its file's inode and time.
TEST(NvrtcIdentity, NamesTheLibrarysBuildWhereItHasOne) {
    std::string why;
    const std::string& identity = kiln::cu::nvrtc_identity(&why);
    if (identity.empty()) GTEST_SKIP() << why;
    // The library kiln loads: the first of $CUDA_HOME/lib64 and /usr/local/cuda/lib64 holding it (nvrtc.cpp).
    std::vector<std::string> dirs;
    if (const char* home = std::getenv("CUDA_HOME"); home && *home) dirs.push_back(std::string(home) + "/lib64/");
    dirs.push_back("/usr/local/cuda/lib64/");
    for (const std::string& dir : dirs) {
        if (::access((dir + "libnvrtc.so.13").c_str(), R_OK) != 0) continue;
        const std::string id = elf_build_id(dir + "libnvrtc.so.13");
        if (id.empty()) GTEST_SKIP() << dir << "libnvrtc.so.13 has no build ID";
        EXPECT_EQ(identity.rfind("NVRTC build " + id, 0), 0u) << identity;
        EXPECT_EQ(identity.find("ino="), std::string::npos) << identity;
        return;
    }
    GTEST_SKIP() << "NVRTC was found through the loader's path";
}

}  // namespace
