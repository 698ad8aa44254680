// pmukit tests -- loading hand-written platform files the way the database loads its own.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace pmukit::test {

// Database::from_files over (path, JSON text) pairs: the Error it throws, or "" when they load.
std::string database_load_error(const std::vector<std::pair<std::string, std::string>>& files);

}  // namespace pmukit::test
