#include "support/elf_build_id.h"

#include <elf.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <vector>

namespace kiln::support {

namespace {

// Notes are 4-byte aligned in ELF64 files as linkers write them (the gABI's 8 is
// what few produce; glibc's readers accept both for the segment's alignment).
std::size_t padded(std::size_t n, std::size_t align) { return (n + align - 1) / align * align; }

// The build ID among the notes of one PT_NOTE segment, "" if none.
std::string build_id_in(const std::vector<unsigned char>& notes, std::size_t align) {
    std::size_t at = 0;
    while (at + sizeof(Elf64_Nhdr) <= notes.size()) {
        Elf64_Nhdr h;
        std::memcpy(&h, notes.data() + at, sizeof h);
        const std::size_t name_at = at + sizeof h, desc_at = name_at + padded(h.n_namesz, align);
        const std::size_t next = desc_at + padded(h.n_descsz, align);
        if (desc_at > notes.size() || next > notes.size() || next <= at) return "";
        if (h.n_type == NT_GNU_BUILD_ID && h.n_namesz == 4 && std::memcmp(notes.data() + name_at, "GNU", 4) == 0 && h.n_descsz > 0) {
            static const char* const kHex = "0123456789abcdef";
            std::string id;
            for (std::size_t i = 0; i < h.n_descsz; ++i) {
                const unsigned char b = notes[desc_at + i];
                id += kHex[b >> 4];
                id += kHex[b & 15];
            }
            return id;
        }
        at = next;
    }
    return "";
}

}  // namespace

std::string elf_build_id(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    Elf64_Ehdr e;
    if (!in.read(reinterpret_cast<char*>(&e), sizeof e)) return "";
    if (std::memcmp(e.e_ident, ELFMAG, SELFMAG) != 0 || e.e_ident[EI_CLASS] != ELFCLASS64 || e.e_ident[EI_DATA] != ELFDATA2LSB ||
        e.e_phentsize != sizeof(Elf64_Phdr) || e.e_phnum == 0 || e.e_phnum > 4096)
        return "";
    std::vector<Elf64_Phdr> headers(e.e_phnum);
    in.seekg(static_cast<std::streamoff>(e.e_phoff));
    if (!in.read(reinterpret_cast<char*>(headers.data()), static_cast<std::streamsize>(headers.size() * sizeof(Elf64_Phdr)))) return "";
    for (const Elf64_Phdr& p : headers) {
        if (p.p_type != PT_NOTE || p.p_filesz == 0 || p.p_filesz > (1u << 20)) continue;
        std::vector<unsigned char> notes(p.p_filesz);
        in.seekg(static_cast<std::streamoff>(p.p_offset));
        if (!in.read(reinterpret_cast<char*>(notes.data()), static_cast<std::streamsize>(notes.size()))) {
            in.clear();
            continue;
        }
        if (std::string id = build_id_in(notes, p.p_align == 8 ? 8 : 4); !id.empty()) return id;
    }
    return "";
}

}  // namespace kiln::support
