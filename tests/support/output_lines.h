// pmukit tests -- a tool's output as its lines.
#pragma once

#include <sstream>
#include <string>
#include <vector>

namespace pmukit::test {

inline std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

}  // namespace pmukit::test
