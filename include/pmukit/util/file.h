// pmukit -- whole-file reads and writes whose errors name the file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pmukit {

// Reads the whole file; throws Error("<path>: <reason>"). For files the user names (a FIFO from
// `<(...)` works); files of a machine tree go through Machine::files() instead.
std::string read_file(const std::filesystem::path& path);
// Reads the whole regular file without blocking (at most 256 MiB), nullopt if it does not exist,
// cannot be read or is not a regular file.
std::optional<std::string> try_read_file(const std::filesystem::path& path);
// First line without trailing whitespace; nullopt if unreadable.
std::optional<std::string> try_read_line(const std::filesystem::path& path);
// An integer sysfs attribute ("0x8086\n", "-1\n"); nullopt if unreadable or not a number.
std::optional<std::int64_t> try_read_int(const std::filesystem::path& path);

// The first line of a text, without trailing whitespace.
std::string first_line(std::string_view text);
// An integer attribute's line ("0x8086", "-1"); nullopt when it is not one.
std::optional<std::int64_t> parse_int_line(std::string_view line);

// Writes (creating parents); throws Error on failure.
void write_file(const std::filesystem::path& path, std::string_view data);

// Creates `dir` and its missing parents; throws Error naming the directory and, when the user may
// not write there, the user and the directory that refused it.
void make_directories(const std::filesystem::path& dir);

// Parses a Linux cpu list ("0-3,8,10-11"); nullopt on junk, and on more CPUs or CPU numbers
// than limits::kCpus.
std::optional<std::vector<int>> parse_cpu_list(std::string_view s);
// Writes a cpu list as Linux does (bitmap_print_to_pagebuf's "%*pbl"): ascending runs as ranges,
// "0-3,8,10-11"; `cpus` sorted and unique.
std::string format_cpu_list(const std::vector<int>& cpus);

}  // namespace pmukit
