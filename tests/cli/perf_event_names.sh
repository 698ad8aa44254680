# perf's names for the uncore events perf knows (Intel's perfmon files as perf carries them, built
# in: platforms/perfmon/): on the bundled spr-2s and gnr-2s under pmu-sim, unc_m_cas_count.rd
# bare, on a PMU and in capitals counts what its encoding and the kernel's cas_count_read count;
# --list-events shows, by topic as perf list does, every event whose PMU is here.
. "$(dirname "$0")/common.sh"
PLATFORMS=$(cd "$(dirname "$0")/../../platforms" && pwd)
"$BIN/pmu-sim" create spr-2s "$T/spr" > /dev/null
sim_start "$T/spr"
# Four events on the IMC's four counters (no multiplexing): perf's name three ways, the encoding.
"$BIN/pmu-raw" --snapshot "$T/spr" -e unc_m_cas_count.rd -e uncore_imc/unc_m_cas_count.rd/ -e UNC_M_CAS_COUNT.RD \
  -e uncore_imc/event=0x05,umask=0xcf/ --duration 1 -x ";" > "$T/names"
"$BIN/pmu-raw" --snapshot "$T/spr" -e uncore_imc/event=0x05,umask=0xcf/ -e uncore_imc/cas_count_read/ \
  --duration 1 -x ";" > "$T/kernel"
# A misspelt perf name is a usage error that offers the nearest event of the PMU written.
status 2 "$BIN/pmu-raw" --snapshot "$T/spr" -e uncore_imc/unc_m_cas_count.rdd/ --duration 1 2> "$T/err"
grep -qxF "pmu-raw: error: event 'uncore_imc/unc_m_cas_count.rdd/': unknown term 'unc_m_cas_count.rdd' for pmu \
'uncore_imc' (did you mean 'unc_m_cas_count.rd'?)" "$T/err"
status 2 "$BIN/pmu-raw" --snapshot "$T/spr" -e unc_cha_clcokticks --duration 1 2> "$T/err"
grep -qxF "pmu-raw: error: event 'unc_cha_clcokticks': no event of that name (did you mean 'unc_cha_clockticks'?)" \
  "$T/err"
# A name a kernel PMU lists in sysfs (Linux's uncore_imc_free_running) is the kernel's, however near
# one of perf's JSON names (unc_m_pmm_wpq_cycles_ne): it goes to the perf backend, which says a
# snapshot's kernel PMUs are not this kernel's, instead of being refused as a misspelling.
FR="$T/spr/sys/bus/event_source/devices/uncore_imc_free_running_0"
mkdir -p "$FR/events" "$FR/format"
echo 40 > "$FR/type"
echo 0,4 > "$FR/cpumask"
echo config:0-7 > "$FR/format/event"
echo config:8-15 > "$FR/format/umask"
echo event=0xff,umask=0x20 > "$FR/events/wpq_cycles"
status 1 "$BIN/pmu-raw" --snapshot "$T/spr" -e wpq_cycles --duration 1 2> "$T/err"
grep -q "the perf backend counts this machine's kernel PMUs, not a snapshot's" "$T/err"
rm -r "$FR"
"$BIN/pmu-raw" --snapshot "$T/spr" --list-events > "$T/list"
"$BIN/pmu-raw" --snapshot "$T/spr" --list-events --names-only > "$T/names-only"
cat "$T/names" "$T/kernel"
"$PYTHON" - "$T" "$PLATFORMS/perfmon/spr_uncore_events.json" << 'PY'
import json, re, sys
t, data = sys.argv[1], sys.argv[2]
rows = [l.split(";") for l in open(f"{t}/names").read().splitlines()]
counts = [float(r[0]) for r in rows]
assert [r[2] for r in rows] == ["unc_m_cas_count.rd", "uncore_imc/unc_m_cas_count.rd/", "UNC_M_CAS_COUNT.RD",
                                "uncore_imc/event=0x05,umask=0xcf/"], rows
assert counts[0] > 0 and len(set(counts)) == 1, counts
# cas_count_read is scaled to MiB by the kernel's .scale (pmu-raw --list-events shows it).
kernel = [l.split(";") for l in open(f"{t}/kernel").read().splitlines()]
listing = open(f"{t}/list").read()
scale = float(re.search(r"cas_count_read +event=0x05,umask=0xcf \(x([0-9.e-]+) MiB\)", listing).group(1))
assert float(kernel[0][0]) == counts[0], kernel
assert abs(float(kernel[1][0]) / scale - counts[0]) <= 1e-9 * counts[0], (kernel, scale)
# The listing: every non-deprecated event of the data whose PMU is here, under its topic, in order.
pmus = {l[:-1] for l in open(f"{t}/names-only").read().splitlines() if l.endswith("/") and l.count("/") == 1}
doc = json.load(open(data))
want = {}
for e in doc["Events"]:
    if e.get("Deprecated") == "1" or "uncore_" + e["Unit"].lower() not in pmus:
        continue
    want.setdefault(doc["Topics"][e["Unit"]], []).append(e["EventName"].lower())
tail = listing[listing.index("Uncore events perf knows on spr"):]
got, topic = {}, None
for line in tail.splitlines()[1:]:
    if re.fullmatch(r"uncore [a-z]+:", line):
        topic = line[:-1]
        got[topic] = []
    elif re.fullmatch(r"  \S+", line):
        got[topic].append(line.strip())
assert list(got) == sorted(want), (list(got), sorted(want))
for topic in want:
    assert got[topic] == sorted(want[topic]), topic
assert "uncore memory" in got and "uncore cache" in got and "uncore io" in got, list(got)
shown = sum(len(v) for v in want.values())
assert f"Uncore events perf knows on spr (Intel perfmon, perf's names; -e NAME or -e PMU/NAME/): {shown} for PMUs here" in tail
m = re.search(r"  unc_m_cas_count.rd\n +\[(.*)\]\n +(\S+)\n", tail)
assert m and m.group(1).endswith("Unit: uncore_imc") and m.group(2) == "uncore_imc/event=0x05,umask=0xcf/", m
names = open(f"{t}/names-only").read().splitlines()
assert "unc_m_cas_count.rd" in names and "unc_cha_clockticks" in names
print(f"spr: {counts[0]:.0f} CAS reads each way; {shown} events listed under {len(got)} topics")
PY
stop_background
SIM_PIDS=()
# GNR: its IMC counts reads per sub-channel; the same encoding, the same count.
"$BIN/pmu-sim" create gnr-2s "$T/gnr" > /dev/null
sim_start "$T/gnr"
"$BIN/pmu-raw" --snapshot "$T/gnr" -e unc_m_cas_count_sch0.rd -e uncore_imc/event=0x05,umask=0xcf/ --duration 1 -x ";" \
  > "$T/gnr.out"
cat "$T/gnr.out"
[ "$(cut -d";" -f3 "$T/gnr.out" | tr '\n' ' ')" = "unc_m_cas_count_sch0.rd uncore_imc/event=0x05,umask=0xcf/ " ]
[ "$(cut -d";" -f1 "$T/gnr.out" | sort -u | wc -l)" = 1 ]
"$BIN/pmu-raw" --snapshot "$T/gnr" --list-events > "$T/gnr.list"
grep "^Uncore events perf knows on gnr" "$T/gnr.list"
grep -A2 "^  unc_m_cas_count_sch0.rd$" "$T/gnr.list"
# A machine whose CPU model has none (Grace): the name stays unknown, nothing is listed.
"$BIN/pmu-sim" create grace-2s "$T/grace" > /dev/null
not "$BIN/pmu-raw" --snapshot "$T/grace" -e unc_m_cas_count.rd --duration 1 2> /dev/null
"$BIN/pmu-raw" --snapshot "$T/grace" --list-events > "$T/grace.list"
not grep -q "Uncore events perf knows" "$T/grace.list"
