# The guide replay: every command line, event-table row and worked example of the five vendor guides
# (docs/references.md), run as written against the bundled machines under pmu-sim (virtual time),
# each with its expected outcome. The rows are in guide_replay.table; its header says how to read
# them. Prints the totals: command lines run, event-table rows found, justified refusals. The PCM
# uncore notes print no command line; their worked example (the eight SPR IMC boxes) is
# cli.discover_dump_pcm.
. "$(dirname "$0")/common.sh"
TABLE=$(dirname "$0")/guide_replay.table

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
# A guide's own shell lines (lspci, setpci, its scripts) read the snapshot: these lspci/setpci add
# libpci's linux-sysfs path under the machine root, and awk is gawk as the scripts need.
for t in lspci setpci; do
  printf '#!/bin/sh\nexec %s -A linux-sysfs -O sysfs.path="$REPLAY_ROOT/sys/bus/pci" "$@"\n' "$(command -v $t)" > "$T/bin/$t"
  chmod +x "$T/bin/$t"
done
ln -s "$(command -v gawk)" "$T/bin/awk"

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

# line_regex "1,000,000 EVENT": perf stat's table line of that count and event ("*": any count).
line_regex() {
  local value=${1%% *} rest=${1#* }
  rest=$(printf '%s' "$rest" | sed 's/[][\.*^$/{}()+?|]/\\&/g; s/ /  */g')
  [ "$value" = "*" ] && value='[0-9][0-9,.]*'
  printf '^ *%s +%s( |$)' "$value" "$rest"
}

# near "VALUE±ERROR NAME": $T/out has NAME's line with a count within ERROR of VALUE (a guide's count
# that pmu-raw estimates, as perf does, by scaling what it counted in its turns).
near() {
  local want=${1%% *} name=${1#* } count
  local value=${want%%±*} error=${want#*±}
  value=${value//,/} error=${error//,/}
  count=$(grep -E "$(line_regex "* $name")" "$T/out" | awk '{gsub(",", "", $1); print $1; exit}')
  [ -n "$count" ] || return 1
  local diff=$((count - value))
  ((diff < 0)) && diff=$((-diff))
  ((diff <= error)) || { echo "$name: $count is $diff from $value, more than $error" >&2; return 1; }
}

runs=0 events=0 refusals=0 failures=0 row=0
declare -A LISTED
check_row() {
  local id=$1 machine=$2 kind=$3 cmd=$4 expect=$5
  start_machine "$machine"
  local root=${ROOT[$machine]} rc=0
  local -a args
  case $kind in
  skip) refusals=$((refusals + 1)); return 0 ;;
  event)
    # An event-table row: the event is known by that name with that encoding.
    [ -n "${LISTED[$machine]:-}" ] || { "$BIN/pmu-raw" --snapshot "$root" --list-events > "$T/list-$machine"; LISTED[$machine]=1; }
    grep -qE "$expect" "$T/list-$machine" || { echo "$id: no line /$expect/ in --list-events" >&2; return 1; }
    events=$((events + 1))
    return 0
    ;;
  shell)
    # A guide's shell line, run by bash on the snapshot: "= TOOL ARGS" means its output equals that
    # pmukit tool's on the same machine, anything else is regexes (";") its output must match.
    (cd "$T/work" && PATH="$T/bin:$PATH" REPLAY_ROOT=$root bash -c "$cmd") > "$T/out" 2> "$T/err" || rc=$?
    [ "$rc" -eq 0 ] || { echo "$id: exit $rc: $(head -3 "$T/err")" >&2; return 1; }
    if [[ $expect == =\ * ]]; then
      local -a tool
      read -ra tool <<< "${expect#= }"
      "$BIN/${tool[0]}" --snapshot "$root" "${tool[@]:1}" > "$T/want"
      diff -u "$T/want" "$T/out" >&2 || { echo "$id: differs from ${expect#= }" >&2; return 1; }
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
  [ "$kind" = multiplex ] && without_workload
  (cd "$T/work" && PATH="$T/bin:$PATH" REPLAY_ROOT=$root REPLAY_MS=${REPLAY_MS:-1000} \
    "$BIN/pmu-raw" --snapshot "$root" "${args[@]}") > "$T/out" 2> "$T/err" || rc=$?
  case $kind in
  count | metric | multiplex)
    local item want=0
    IFS=';' read -ra items <<< "$expect"
    for item in "${items[@]}"; do [[ $item =~ ^\ *exit\ ([0-9]+) ]] && want=${BASH_REMATCH[1]}; done
    [ "$rc" -eq "$want" ] || { echo "$id: exit $rc, not $want: $(cat "$T/err")" >&2; return 1; }
    for item in "${items[@]}"; do
      trim item
      [[ -z $item || $item == exit\ * ]] && continue
      if [[ $item == *±* ]]; then
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

# without_workload: args without the stand-in workload (from the first word that is neither an
# option nor an option's value), counted for its modelled time with --duration instead. A stand-in
# moves the virtual clock in one jump, past every turn of a multiplexed unit; --duration steps it.
without_workload() {
  local -a kept=()
  local i=0
  while ((i < ${#args[@]})); do
    case ${args[i]} in
    -e | -M | -I | -x | --event | --metrics) kept+=("${args[i]}" "${args[i + 1]}") && i=$((i + 2)) ;;
    -*) kept+=("${args[i]}") && i=$((i + 1)) ;;
    *) break ;;
    esac
  done
  local ns=${REPLAY_MS:-1000}
  [[ $ns == *ns ]] && ns=${ns%ns} || ns=$((ns * 1000000))
  args=("${kept[@]}" --duration "$((ns / 1000000000)).$(printf %09d $((ns % 1000000000)))")
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
  IFS='|' read -r id machine kind cmd expect <<< "$line"
  trim id machine kind cmd expect
  row=$((row + 1))
  REPLAY_MS=
  [[ $id == *@* ]] && REPLAY_MS=${id#*@}
  check_row "$id" "$machine" "$kind" "$cmd" "$expect" || failures=$((failures + 1))
done < "$TABLE"
echo "guide replay: $row rows: $runs command lines run as written, $events event-table rows found with their encoding, $refusals justified refusals, $failures failed"
[ "$failures" -eq 0 ]
