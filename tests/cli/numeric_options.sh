#!/usr/bin/env bash
# Numbers on the command line are checked as text before any conversion: no "nan" that runs
# forever, no 1e19 seconds that overflow into an instant end, no -1 that wraps into "no limit",
# and no 309-digit bound in the message.
source "$(dirname "$0")/common.sh"
check() {  # check WANT_IN_STDERR TOOL ARGS...
  local want=$1; shift
  status 2 "$BIN/$@" 2> "$T/err"
  grep -qF -- "$want" "$T/err" || { cat "$T/err"; return 1; }
  [ "$(wc -c < "$T/err")" -lt 400 ] || { echo "message too long"; cat "$T/err"; return 1; }
}
check "'nan' is not a number of seconds in (0, 1000000000]" pmu-raw -e msr/tsc/ --duration nan
check "'1e19' is not a number of seconds in (0, 1000000000]" pmu-raw -e msr/tsc/ --duration 1e19
check "'-1' is not a number of seconds" pmu-raw -e msr/tsc/ --duration -1
check "'1e400' is not a number of seconds" pmu-raw -e msr/tsc/ --duration 1e400
check "'inf' is not a number of seconds" pmu-raw -e msr/tsc/ --duration inf
check "'-1' is not a whole number from 1 to 1000000000" pmu-raw -e msr/tsc/ -I 100 --interval-count -1
check "'0' is not a whole number from 1 to 3600000" pmu-raw -e msr/tsc/ -I 0
check "'1.5' is not a whole number from 1 to 3600000" pmu-raw -e msr/tsc/ -I 1.5
check "'0' is not a whole number from 1 to 60000" pmu-sim run "$T" --step-ms 0
check "'-5' is not a time: a whole number of ms, or with ns, us, ms or s" pmu-sim advance "$T" -5
check "'1.5s' is not a time: a whole number of ms, or with ns, us, ms or s" pmu-sim advance "$T" 1.5s
check "'18446744073709551616ns' is not a time" pmu-sim advance "$T" 18446744073709551616ns
check "'18446744073710s' is not a time" pmu-sim advance "$T" 18446744073710s
check "--metric-param 'X=nan': expected NAME=NUMBER" pmu-raw -e msr/tsc/ --metric-param X=nan --snapshot "$T"
echo ok
