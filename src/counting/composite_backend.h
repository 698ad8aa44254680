// pmukit -- the backend that runs the direct and perf backends side by side, as one.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "pmukit/counting/backend.h"

namespace pmukit::counting {

class CompositeBackend : public Backend {
 public:
  void add(std::unique_ptr<Backend> b) { parts_.push_back(std::move(b)); }
  void note(std::string n) { notes_.push_back(std::move(n)); }
  void start() override;
  void stop() override;
  void read(std::uint64_t window_ns, std::vector<Row>& into) override;
  bool rereads() const override;
  void reread(std::uint64_t window_ns, std::vector<Row>& rows, std::size_t& at) override;
  std::uint64_t max_read_period_ns() const override;
  std::vector<std::string> notes() const override;
  std::vector<std::string> summary() const override;  // its parts' notes
  std::vector<std::string> finish() override;

 private:
  std::vector<std::unique_ptr<Backend>> parts_;
  std::vector<std::string> notes_;
};

}  // namespace pmukit::counting
