// pmukit tests -- a global operator new that counts: test_alloc's replacement (counting_new.cpp),
// so that each of its test files can count what the code under test allocates.
#pragma once

#include <cstddef>

namespace pmukit::test {

// How many times operator new (any form) has been called in this program so far.
std::size_t allocation_count();

// How many allocations `f` makes.
template <class F>
std::size_t allocations_of(F&& f) {
  const std::size_t before = allocation_count();
  f();
  return allocation_count() - before;
}

}  // namespace pmukit::test
