// pmukit tests -- loading hand-written platform files the way the database loads its own.
#include "support/platform_files.h"

#include "pmukit/platform/database.h"
#include "pmukit/util/error.h"

namespace pmukit::test {

std::string database_load_error(const std::vector<std::pair<std::string, std::string>>& files) {
  try {
    platform::Database::from_files(files);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace pmukit::test
