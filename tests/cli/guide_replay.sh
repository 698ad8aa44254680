# The guide replay: every command line, event-table row and worked example of the five vendor guides
# (docs/references.md), run as written against the bundled machines under pmu-sim (virtual time),
# each with its expected outcome. The rows are in guide_replay.table; its header says how to read
# them, and the outputs a guide prints are in guide_replay/ (compared whole). Prints the totals. The
# PCM uncore notes print no command line; their worked example (the eight SPR IMC boxes) is
# cli.discover_dump_pcm, and their box-type table is checked below.
. "$(dirname "$0")/common.sh"
TABLE=$(dirname "$0")/guide_replay.table
WHOLE=$(dirname "$0")/guide_replay
# A line without a workload counts until Ctrl-C: it is sent SIGINT once pmu-sim's clock, which then
# follows real time, has moved this far past where it was when the line started.
STOP_NS=100000000
# PART (the first argument): the rows of one family of machines, "grace" or "t410", or "rest" (the
# rows of every other machine: yitian, spr-2s), so that ctest runs the parts side by side (under ASan
# each row's processes take a second); none: every row.
PART=${1:-}
in_part() {
  local family=${1%%-*}
  family=${family%%+*}
  case $PART in
  '') return 0 ;;
  rest) [[ $family != grace && $family != t410 ]] ;;
  *) [ "$family" = "$PART" ] ;;
  esac
}

# The guides' workloads (fio, numactl ... dd, dd, sleep 10, cmem_write_test, ./stream.exe) stand in as
# shims that run nothing and move the machine's virtual clock instead: `sleep N` by N seconds, any
# other by REPLAY_MS (1000 ms unless a row sets it; "NNNns" is nanoseconds). Counts are then exact.
mkdir -p "$T/bin" "$T/work"
cat > "$T/bin/workload" << 'EOF'
#!/bin/bash
ms=${REPLAY_MS:-1000}
[ "$(basename "$0")" = sleep ] && ms=$(($1 * 1000))
exec "$PMUKIT_BIN/pmu-sim" advance "$REPLAY_ROOT" "$ms" > /dev/null
EOF
chmod +x "$T/bin/workload"
for w in sleep fio numactl cmem_write_test dd; do ln -s workload "$T/bin/$w"; done
for w in stream.exe xhpl.exe a.out nvbandwidth bw_mem app; do ln -s "$T/bin/workload" "$T/work/$w"; done
# A guide's own shell lines (lspci, setpci, ls, readlink, its scripts) read the snapshot as they read
# the machine they ran on: these lspci/setpci add libpci's linux-sysfs path under the machine root
# (and the IDs database without Alibaba's vendor 0x1ded, which the Yitian guide's lspci did not know
# yet: it prints "Device [1ded:8000]"), awk is gawk as the scripts need, and BASH_ENV gives the bash
# running a line functions ls and readlink that take /sys and /proc under the root, and a GLOBIGNORE
# that keeps this machine's own /sys and /proc out of the line's globs (they expand under the root).
sed '/^1ded /,/^[0-9a-f]/{/^1ded /d;/^[[:space:]#]/d}' /usr/share/misc/pci.ids > "$T/pci.ids"
for t in lspci setpci; do
  printf '#!/bin/sh\nexec %s -A linux-sysfs -O sysfs.path="$REPLAY_ROOT/sys/bus/pci" %s "$@"\n' "$(command -v $t)" \
    "$([ $t = lspci ] && echo "-i $T/pci.ids")" > "$T/bin/$t"
  chmod +x "$T/bin/$t"
done
ln -s "$(command -v gawk)" "$T/bin/awk"
cat > "$T/bash_env" << 'EOF'
GLOBIGNORE=/sys/*:/sys/*/*:/sys/*/*/*:/sys/*/*/*/*:/sys/*/*/*/*/*:/proc/*:/proc/*/*:/proc/*/*/*
_in_root() {
  local a m
  for a; do
    case $a in
    /sys/* | /proc/*)
      m=("$REPLAY_ROOT"$a)
      printf '%s\0' "${m[@]}"
      ;;
    *) printf '%s\0' "$a" ;;
    esac
  done
}
ls() { local args; mapfile -d '' args < <(_in_root "$@"); command ls "${args[@]}"; }
readlink() {
  local args root
  root=$(command readlink -f "$REPLAY_ROOT")
  mapfile -d '' args < <(_in_root "$@")
  command readlink "${args[@]}" | sed "s|^$root/|/|"
}
EOF

export PMUKIT_BIN="$BIN"

declare -A ROOT
# start_machine MACHINE[+SCENARIO]: a bundled machine under its own pmu-sim, run with the guide's
# rates below or with a bundled workload scenario (platforms/sim/scenarios/SCENARIO.json).
start_machine() {
  local key=$1 m=${1%%+*}
  [ -n "${ROOT[$key]:-}" ] && return 0
  "$BIN/pmu-sim" create "$m" "$T/$key" > /dev/null
  if [[ $key == *+* ]]; then
    sim_start "$T/$key" --scenario "${key#*+}"
  else
    sim_start "$T/$key" $(rates "$m")
  fi
  ROOT[$key]=$T/$key
}
# Rates that make the guides' own printed counts come out of a one-second window.
rates() {
  case $1 in
  yitian) echo --rate dwc_pcie:0x21=536910432 --rate dwc_pcie:0x20=288016854 \
    --rate arm_cmn:0x105:0x22@413=810164744 --rate arm_cmn:0x105:0x22@421=810632046 \
    --rate arm_cmn:0x105:0x22@429=812716494 --rate arm_cmn:0x105:0x22@437=811744534 \
    --rate arm_cmn:cycles=12213460910 ;;
  grace-2s) echo --rate nvidia_grace_scf:0x1a5=35572420 ;;
  esac
}

# pmu-raw's options that take a value, from its --help ("  -e,--event EVENT ..."): the first word of
# a line that is neither one of them nor its value is the workload.
VALUE_OPTS=" $("$BIN/pmu-raw" --help | sed -nE 's/^ {2,4}(-[^ ]+) +[A-Z][A-Z_:.]*( .*)?$/\1/p' | tr ',\n' '  ') "
has_workload() {
  local i=0 a
  while ((i < ${#args[@]})); do
    a=${args[i]}
    case $a in
    --) ((i + 1 < ${#args[@]})) && return 0 || return 1 ;;
    --*=*) i=$((i + 1)) ;;
    -?) [[ $VALUE_OPTS == *" $a "* ]] && i=$((i + 2)) || i=$((i + 1)) ;;
    --*) [[ $VALUE_OPTS == *" $a "* ]] && i=$((i + 2)) || i=$((i + 1)) ;;
    -*) i=$((i + 1)) ;; # a short option with its value attached (-e'{...}')
    *) return 0 ;;
    esac
  done
  return 1
}

# run_raw ROOT: pmu-raw on the machine with args, as written. A line without a workload runs until
# SIGINT, sent once the virtual clock has gone STOP_NS past where it was (pmu-sim now): it counts what
# it would on hardware in that time. Sets rc, and interrupted when it sent the signal; the output is
# in $T/out and $T/err.
run_raw() {
  local root=$1 start now pid
  rc=0 interrupted=0
  if has_workload; then
    (cd "$T/work" && PATH="$T/bin:$PATH" REPLAY_ROOT=$root REPLAY_MS=${REPLAY_MS:-1000} \
      "$BIN/pmu-raw" --snapshot "$root" "${args[@]}") > "$T/out" 2> "$T/err" || rc=$?
    return 0
  fi
  start=$("$BIN/pmu-sim" now "$root")
  (cd "$T/work" && exec "$BIN/pmu-raw" --snapshot "$root" "${args[@]}") > "$T/out" 2> "$T/err" &
  pid=$!
  while kill -0 "$pid" 2> /dev/null; do
    now=$("$BIN/pmu-sim" now "$root")
    if ((now - start >= STOP_NS)); then
      kill -INT "$pid" 2> /dev/null && interrupted=1
      break
    fi
    sleep 0.02 # polls the condition (the virtual time); nothing waits on real time
  done
  wait "$pid" || rc=$?
}

# line_regex "1,000,000 EVENT": perf stat's table line of that count and event ("*": any count).
line_regex() {
  local value=${1%% *} rest=${1#* }
  rest=$(printf '%s' "$rest" | sed 's/[][\.*^$/{}()+?|]/\\&/g; s/ /  */g')
  [ "$value" = "*" ] && value='[0-9][0-9,.]*'
  printf '^ *%s +%s( |$)' "$value" "$rest"
}
# count_of NAME: the count on NAME's line, without its commas.
count_of() {
  grep -E "$(line_regex "* $1")" "$T/out" | awk '{gsub(",", "", $1); print $1; exit}'
}
# elapsed_ns: perf stat's "N.NNNNNNNNN seconds time elapsed", in nanoseconds.
elapsed_ns() {
  local s
  s=$(sed -nE 's/^ *([0-9]+)\.([0-9]{9}) seconds time elapsed$/\1 \2/p' "$T/out")
  [ -n "$s" ] || return 1
  echo $((${s% *} * 1000000000 + 10#${s#* }))
}

# rate_times RATE NS: RATE (per second) times NS nanoseconds, rounded down, without overflowing 64
# bits (5,040,000,000/s over 2.1 s is 1.06e19 as RATE*NS): RATE = H*1e9 + L and NS = S*1e9 + F give
# RATE*S + H*F + L*F/1e9, each term below 2^63.
rate_times() {
  local rate=$1 ns=$2 g=1000000000
  echo $((rate * (ns / g) + rate / g * (ns % g) + rate % g * (ns % g) / g))
}

# near "VALUE±ERROR NAME": NAME's count is within ERROR of VALUE (a guide's count that pmu-raw
# estimates, as perf does, by scaling what it counted in its turns).
# "RATE/s NAME" (or "RATE/s±ERROR NAME"): the count is RATE times the elapsed time, within ERROR
# (default 0): a line counted until Ctrl-C counts its rates over however long it ran.
near() {
  local want=${1%% *} name=${1#* } count value error=0 ns
  if [[ $want == */s* ]]; then
    ns=$(elapsed_ns) || { echo "$name: no elapsed time" >&2; return 1; }
    value=${want%%/s*} && value=${value//,/}
    [[ $want == *±* ]] && error=${want#*±} && error=${error//,/}
    value=$(rate_times "$value" "$ns")
  else
    value=${want%%±*} error=${want#*±}
    value=${value//,/} error=${error//,/}
  fi
  count=$(count_of "$name")
  [ -n "$count" ] || return 1
  local diff=$((count - value))
  ((diff < 0)) && diff=$((-diff))
  ((diff <= error)) || { echo "$name: $count is $diff from $value, more than $error" >&2; return 1; }
}

# The event table of each machine: "PMU/event/ TERMS" for every PMU unit (and perf's merged family
# name, dwc_rootport) and every event of its kind, from pmu-discover --json (each unit's kind) and
# pmu-raw --list-events (each kind's events with their encoding).
declare -A INDEXED
event_index() {
  local machine=$1 root=$2
  [ -n "${INDEXED[$machine]:-}" ] && return 0
  "$BIN/pmu-discover" --snapshot "$root" --json > "$T/units-$machine.json"
  "$BIN/pmu-raw" --snapshot "$root" --list-events > "$T/list-$machine"
  "$PYTHON" - "$T/units-$machine.json" "$T/list-$machine" > "$T/events-$machine" << 'EOF'
import json, re, sys
units = json.load(open(sys.argv[1]))["units"]
events, kind = {}, None
for line in open(sys.argv[2]):
    head = re.match(r"^\S.* \[(\S+)\]$", line)
    if head:
        kind = head.group(1)
        continue
    m = re.match(r"^  (\S+) +(\S+)", line)
    if kind and m and m.group(1) != "format:":
        events.setdefault(kind, []).append((m.group(1), m.group(2)))
names = {}
for u in units:
    names[u["name"]] = u["pmu_kind"]
    family = re.match(r"^(.*)_[0-9a-f]+$", u["name"])
    if family:
        names.setdefault(family.group(1), u["pmu_kind"])
for name, k in sorted(names.items()):
    for event, terms in events.get(k, []):
        print(f"{name}/{event}/ {terms}")
EOF
  INDEXED[$machine]=1
}

runs=0 events=0 refusals=0 skipped=0 documented=0 failures=0 row=0
check_row() {
  local id=$1 machine=$2 kind=$3 cmd=$4 expect=$5
  start_machine "$machine"
  local root=${ROOT[$machine]} rc=0
  local -a args
  case $kind in
  skip) skipped=$((skipped + 1)); return 0 ;;
  event)
    # An event-table row: that PMU has the event by that name, with that encoding.
    event_index "$machine" "$root"
    grep -qxF "${cmd%% *} $expect" "$T/events-$machine" || {
      echo "$id: ${cmd%% *} is not '$expect' (pmu-raw --list-events: $(grep -F "${cmd%% *} " "$T/events-$machine"))" >&2
      return 1
    }
    events=$((events + 1))
    return 0
    ;;
  shell)
    # A guide's shell line, run by bash on the snapshot: "= TOOL ARGS": its output equals that
    # pmukit tool's on the same machine; "file NAME": it equals guide_replay/NAME.out, the guide's
    # own output (where NAME.diff exists, it differs from it by exactly that, for the reason given
    # there); anything else is regexes (";") its output must match.
    (cd "$T/work" && PATH="$T/bin:$PATH" REPLAY_ROOT=$root BASH_ENV="$T/bash_env" bash -c "$cmd") > "$T/out" 2> "$T/err" || rc=$?
    [ "$rc" -eq 0 ] || { echo "$id: exit $rc: $(head -3 "$T/err")" >&2; return 1; }
    if [[ $expect == =\ * ]]; then
      local -a tool
      read -ra tool <<< "${expect#= }"
      "$BIN/${tool[0]}" --snapshot "$root" "${tool[@]:1}" > "$T/want"
      diff -u "$T/want" "$T/out" >&2 || { echo "$id: differs from ${expect#= }" >&2; return 1; }
    elif [[ $expect == file\ * ]]; then
      local name=${expect#file }
      if [ -e "$WHOLE/$name.diff" ]; then
        diff -u --label guide --label replay "$WHOLE/$name.out" "$T/out" | grep -v '^@@' > "$T/diff" || true
        grep -v '^#' "$WHOLE/$name.diff" | diff -u - "$T/diff" >&2 || {
          echo "$id: differs from the guide's output otherwise than guide_replay/$name.diff says" >&2
          return 1
        }
        documented=$((documented + 1))
      else
        diff -u --label guide --label replay "$WHOLE/$name.out" "$T/out" >&2 || {
          echo "$id: differs from the guide's output (guide_replay/$name.out)" >&2
          return 1
        }
      fi
    else
      local item
      IFS=';' read -ra items <<< "$expect"
      for item in "${items[@]}"; do
        trim item
        grep -qE "$item" "$T/out" || { echo "$id: no line /$item/ in:" >&2; cat "$T/out" >&2; return 1; }
      done
    fi
    runs=$((runs + 1))
    return 0
    ;;
  esac
  eval "args=($cmd)"
  run_raw "$root"
  case $kind in
  count | metric)
    local item want=0
    IFS=';' read -ra items <<< "$expect"
    for item in "${items[@]}"; do [[ $item =~ ^\ *exit\ ([0-9]+) ]] && want=${BASH_REMATCH[1]}; done
    # A run the replay ended with SIGINT ends by that signal, as perf stat's does: 130 for exit 0.
    ((interrupted && want == 0 && rc == 130)) && rc=0
    [ "$rc" -eq "$want" ] || { echo "$id: exit $rc, not $want: $(cat "$T/err")" >&2; return 1; }
    if ! has_workload; then
      local ns
      ns=$(elapsed_ns) && ((ns >= STOP_NS)) || { echo "$id: counted until SIGINT, but for ${ns:-no} ns:" >&2; cat "$T/out" "$T/err" >&2; return 1; }
    fi
    for item in "${items[@]}"; do
      trim item
      [[ -z $item || $item == exit\ * ]] && continue
      if [[ ${item%% *} == *±* || ${item%% *} == */s* ]]; then
        near "$item" || { echo "$id: no line '$item' in:" >&2; cat "$T/out" >&2; return 1; }
        continue
      fi
      grep -qE "$(line_regex "$item")" "$T/out" || { echo "$id: no line '$item' in:" >&2; cat "$T/out" >&2; return 1; }
    done
    runs=$((runs + 1))
    ;;
  refuse)
    [ "$rc" -ne 0 ] || { echo "$id: ran, but the table says it is refused" >&2; return 1; }
    [ "$(head -1 "$T/err")" = "${expect//\$ROOT/$root}" ] || {
      echo "$id: refused with:" >&2
      head -1 "$T/err" >&2
      echo "$id: the table says:" >&2
      echo "$expect" >&2
      return 1
    }
    refusals=$((refusals + 1))
    ;;
  *) echo "$id: unknown kind '$kind'" >&2; return 1 ;;
  esac
}

# trim VAR...: strips the spaces around each variable's value (no subshell per row).
trim() {
  local v s
  for v; do
    s=${!v}
    s=${s#"${s%%[! ]*}"}
    printf -v "$v" '%s' "${s%"${s##*[! ]}"}"
  done
}

while IFS= read -r line; do
  case $line in '#'* | '') continue ;; esac
  line=${line//\\|/$'\x01'} # "\|": a "|" of the command line, not a column
  IFS='|' read -r id machine kind cmd expect <<< "$line"
  cmd=${cmd//$'\x01'/|} expect=${expect//$'\x01'/|}
  trim id machine kind cmd expect
  in_part "$machine" || continue
  row=$((row + 1))
  REPLAY_MS=
  [[ $id == *@* ]] && REPLAY_MS=${id#*@}
  check_row "$id" "$machine" "$kind" "$cmd" "$expect" || failures=$((failures + 1))
done < "$TABLE"
echo "guide replay${PART:+ ($PART)}: $row rows: $runs command lines run as written ($documented of them differing from the" \
  "guide's output as guide_replay/*.diff says), $events event-table rows found with their encoding," \
  "$refusals justified refusals, $skipped lines that count nothing (skipped), $failures failed"
[ "$failures" -eq 0 ]
