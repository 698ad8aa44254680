# Every tool has a man page (docs/man/<tool>.<section>.scd, scdoc), and each page documents exactly
# the options its tool's --help shows (subcommands and their options too): the two cannot drift.
. "$(dirname "$0")/common.sh"
MAN=$PMUKIT_SRC/docs/man
tools=(pmu-discover pmu-raw pmu-rcmap pmu-sim pmu-report pmu-exporter)
# help_options TOOL [SUBCOMMAND]: option names of a CLI11 --help ("  -e,--event EVENT  ..."), one a line.
help_options() { "$BIN/$1" "${@:2}" --help | sed -nE 's/^ {2,4}(-[^ ]+).*/\1/p' | tr ',' '\n'; }
subcommands() { "$BIN/$1" --help | sed -n '/^Subcommands:/,$s/^  \([a-z]\+\) .*/\1/p'; }
status=0
for tool in "${tools[@]}"; do
  pages=("$MAN/$tool".[18].scd)
  [ -e "${pages[0]}" ] || { echo "$tool: no man page in docs/man" >&2; status=1; continue; }
  page=${pages[0]}
  head -1 "$page" | grep -qx "$tool([18])"
  { help_options "$tool"; for sub in $(subcommands "$tool"); do help_options "$tool" "$sub"; done; } |
    sort -u > "$T/help"
  # Options are documented as "*-e*, *--event* _EVENT_" at the start of a line.
  grep -E '^\*-' "$page" | grep -oE '\*-{1,2}[A-Za-z0-9][-A-Za-z0-9]*\*' | tr -d '*' | sort -u > "$T/man"
  diff -u --label "$tool --help" --label "$page" "$T/help" "$T/man" || { status=1; continue; }
  for sub in $(subcommands "$tool"); do
    grep -qE "^\*$sub\*" "$page" || { echo "$page: subcommand $sub is not documented" >&2; status=1; }
  done
  echo "$tool: $(wc -l < "$T/help") options, all in $(basename "$page")"
done
# No page for a tool that does not exist.
for page in "$MAN"/*.scd; do
  name=$(basename "$page"); name=${name%.*.scd}
  [ -x "$BIN/$name" ] || { echo "$page: no tool $name" >&2; status=1; }
done
exit $status
