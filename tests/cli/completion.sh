# The bash completion (packaging/bash-completion/pmukit), run by bash itself as bash-completion
# would: COMP_WORDS/COMP_CWORD set, the registered function called, COMPREPLY checked. PMU, event
# and metric names come from the snapshot machine named on the line; options from --help, and they
# are exactly those the man pages document.
. "$(dirname "$0")/common.sh"
PATH=$BIN:$PATH
# shellcheck source=/dev/null
. "$PMUKIT_SRC/packaging/bash-completion/pmukit"
"$BIN/pmu-sim" create spr-2s "$T/spr" > /dev/null
"$BIN/pmu-sim" create grace-2s "$T/grace" > /dev/null
# complete WORD...: the completions of the last word (an interactive shell has no -e, -u or pipefail).
complete_line() {
  local fn
  fn=$(complete -p "$1" | sed -E 's/.* -F ([^ ]+) .*/\1/')
  COMP_WORDS=("$@")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMP_LINE="$*"
  COMP_POINT=${#COMP_LINE}
  COMPREPLY=()
  set +euo pipefail
  "$fn" "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
  set -euo pipefail
  printf '%s\n' "${COMPREPLY[@]}" | sort
}
# has WORD... < completions: every WORD is offered.
has() { local got; got=$(cat); for w in "$@"; do grep -qxF -- "$w" <<< "$got" || { echo "not offered: $w (got: $(echo $got))" >&2; return 1; }; done; }
# PMU names, then the events of the PMU written so far (Linux uncore_snbep.c names the SPR memory
# controllers uncore_imc_<n>, with events cas_count_read and cas_count_write).
complete_line pmu-raw --snapshot "$T/spr" -e uncore_im | has uncore_imc/ uncore_imc_0/ uncore_imc_7/
complete_line pmu-raw --snapshot "$T/spr" -e uncore_im | not grep -v '^uncore_imc'
complete_line pmu-raw --snapshot "$T/spr" -e uncore_imc/cas | has uncore_imc/cas_count_read/ uncore_imc/cas_count_write/
complete_line pmu-raw --snapshot "$T/spr" --event uncore_imc_3/ | has uncore_imc_3/cas_count_read/
# After a comma, the next event of the list.
complete_line pmu-raw --snapshot "$T/spr" -e uncore_imc/cas_count_read/,uncore_imc/cas_count_w |
  has uncore_imc/cas_count_read/,uncore_imc/cas_count_write/
# Another machine, other names: NVIDIA Grace's SCF PMUs (Linux nvidia_cspmu.c) and the Grace guide's event.
complete_line pmu-raw --snapshot "$T/grace" -e nvidia_scf | has nvidia_scf_pmu_0/ nvidia_scf_pmu_1/
complete_line pmu-raw --snapshot "$T/grace" -e nvidia_scf_pmu_0/cmem_rd | has nvidia_scf_pmu_0/cmem_rd_data/
complete_line pmu-raw --snapshot "$T/grace" -e uncore | not grep .
# Metrics that apply to the machine, and only those.
complete_line pmu-raw --snapshot "$T/spr" -M spr_dram | has spr_dram_read_bw spr_dram_write_bw
complete_line pmu-raw --snapshot "$T/spr" -M '' | not grep -q '^scf_'
complete_line pmu-raw --snapshot "$T/grace" -M scf_local_mem_read | has scf_local_mem_read_bw
# Fixed values, machines, subcommands, path parameters, files, BDFs.
test "$(complete_line pmu-raw --backend '' | tr '\n' ' ')" = "auto direct perf "
# --mux-interval: milliseconds, perf's default first among them.
complete_line pmu-raw --mux-interval '' | has 4 1
complete_line pmu-raw --mux-interval 1 | has 1 10 100
complete_line pmu-discover --machine g | has gnr-2s grace-2s
complete_line pmu-sim '' | has list create run advance
complete_line pmu-sim create '' | has spr-2s t410-2s
complete_line pmu-sim run --r | has --realtime --rate
complete_line pmu-raw -O sysfs | has sysfs.path=
mkdir "$T/dir"
complete_line pmu-report "$T/di" | has "$T/dir"
touch "$T/dir/exporter.json"
complete_line pmu-exporter --config "$T/dir/exp" | has "$T/dir/exporter.json"
complete_line pmu-exporter --listen '' | not grep .  # HOST:PORT: nothing to offer
complete_line pmu-rcmap --snapshot "$T/grace" 0008: | has 0008:00:00.0
complete_line pmu-raw -I '' | not grep .  # a number: nothing to offer, and no option names
# Options: for every tool, exactly the options its man page documents (which man_options.sh holds to --help).
for page in "$PMUKIT_SRC"/docs/man/*.scd; do
  tool=$(basename "$page"); tool=${tool%.*.scd}
  [ "$tool" = pmu-sim ] && continue  # options belong to its subcommands, checked above
  grep -E '^\*-' "$page" | grep -oE '\*-{1,2}[A-Za-z0-9][-A-Za-z0-9]*\*' | tr -d '*' | sort -u > "$T/man"
  complete_line "$tool" - | sort -u > "$T/offered"
  diff -u --label "$page" --label "completion of $tool -" "$T/man" "$T/offered"
done
