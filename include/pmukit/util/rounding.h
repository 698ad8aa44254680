// pmukit -- std::round and std::llround without libm.
//
// GCC calls libm's round/lround/llround for these on x86-64 (no SSE4.1 in the baseline), and
// those calls alone made pmu-raw load libm.so.6 at every start (see parse_double in text.h).
#pragma once

#include <cmath>
#include <cstdint>

namespace pmukit {

// std::round: halfway cases away from zero, -0.4 -> -0.0, NaN and infinities as they are.
// fabs, copysign and the conversions are inline instructions, not calls.
inline double round_half_away(double x) {
  constexpr double kIntegral = 4503599627370496.0;  // 2^52: from here on every double is a whole number
  if (!(std::fabs(x) < kIntegral)) return x;
  double t = static_cast<double>(static_cast<std::int64_t>(x));  // truncated; x - t is exact
  if (std::fabs(x - t) >= 0.5) t += std::copysign(1.0, x);
  return std::copysign(t, x);
}

// std::llround for values that fit in int64_t (what the caller's range check guarantees).
inline std::int64_t round_to_int64(double x) {
  return static_cast<std::int64_t>(round_half_away(x));
}

}  // namespace pmukit
