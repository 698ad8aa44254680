# perf's names for the uncore events of Cascade Lake (and Skylake-SP, the same CPU model) and Ice
# Lake-SP, built in from perf's cascadelakex and icelakex files (platforms/perfmon/): on the bundled
# clx-2s and icx-2s under pmu-sim, unc_m_cas_count.rd counts what the kernel's cas_count_read counts,
# on every IMC, with each generation's own codes; the CHA and UPI events count too, and each count
# is what the simulator's rates (platforms/sim/rates.json) give over one simulated second.
# --list-events shows them by perf's topics.
. "$(dirname "$0")/common.sh"
PLATFORMS=$(cd "$(dirname "$0")/../../platforms" && pwd)
for M in clx-2s icx-2s; do
  "$BIN/pmu-sim" create "$M" "$T/$M" > /dev/null
  sim_start "$T/$M"
  "$BIN/pmu-raw" --snapshot "$T/$M" -e unc_m_cas_count.rd -e uncore_imc/cas_count_read/ -e UNC_M_CAS_COUNT.WR \
    -e unc_cha_clockticks -e unc_upi_txl_flits.all_data --duration 1 -x ";" > "$T/$M.out" 2> "$T/$M.err"
  # A misspelt kernel event on a running simulator: a usage error naming the PMU as written and the
  # kernel's event nearest the misspelling.
  status 2 "$BIN/pmu-raw" --snapshot "$T/$M" -e uncore_imc/cas_count_raed/ --duration 1 2> "$T/$M.typo"
  grep -qF "pmu-raw: error: event 'uncore_imc/cas_count_raed/': unknown term 'cas_count_raed' for pmu 'uncore_imc' \
(did you mean 'cas_count_read'?)" "$T/$M.typo"
  status 2 "$BIN/pmu-raw" --snapshot "$T/$M" -e unc_m_cas_count.rdd --duration 1 2> "$T/$M.typo"
  grep -qxF "pmu-raw: error: event 'unc_m_cas_count.rdd': no event of that name (did you mean 'unc_m_cas_count.rd'?)" \
    "$T/$M.typo"
  "$BIN/pmu-raw" --snapshot "$T/$M" --list-events > "$T/$M.list"
  "$BIN/pmu-raw" --snapshot "$T/$M" --list-events --names-only > "$T/$M.names"
  cat "$T/$M.out"
  stop_background
  SIM_PIDS=()
  "$PYTHON" - "$T" "$M" "$PLATFORMS" << 'PY'
import json, re, sys
t, m, platforms = sys.argv[1:]
kind_prefix, model, data = {"clx-2s": ("intel_skx", "skx", "clx"), "icx-2s": ("intel_icx", "icx", "icx")}[m]
doc = json.load(open(f"{platforms}/perfmon/{data}_uncore_events.json"))
ev = {e["EventName"].lower(): e for e in doc["Events"]}
rates = json.load(open(f"{platforms}/sim/rates.json"))
def rate(kind, code):
    for r in rates["rules"]:
        if r["kind"] == kind and r["code"] == code:
            return r["rate"]
    return rates["default"]
def code(name):  # the counter control's low 16 bits, as rates.json keys them: umask << 8 | event
    e = ev[name]
    return "0x%04x" % (int(e.get("UMask", "0"), 16) << 8 | int(e["EventCode"], 16))
# Boxes of each unit on the machine, over both sockets: pmu-raw's "uncore_imc: direct, 12 units".
disc = open(f"{t}/{m}.err").read()
def boxes(pmu):
    found = re.search(rf"^pmu-raw: {pmu}: direct, (\d+) units$", disc, re.M)
    return int(found.group(1)) if found else 0
rows = {r.split(";")[2]: float(r.split(";")[0]) for r in open(f"{t}/{m}.out").read().splitlines()}
n_imc, n_cha, n_upi = boxes("uncore_imc"), boxes("uncore_cha"), boxes("uncore_upi")
assert n_imc > 0 and n_cha > 0 and n_upi > 0, (n_imc, n_cha, n_upi, disc[:2000])
want = {
    "unc_m_cas_count.rd": n_imc * rate(kind_prefix + "_imc", code("unc_m_cas_count.rd")),
    "UNC_M_CAS_COUNT.WR": n_imc * rate(kind_prefix + "_imc", code("unc_m_cas_count.wr")),
    "unc_cha_clockticks": n_cha * rate(kind_prefix + "_cha", code("unc_cha_clockticks")),
    "unc_upi_txl_flits.all_data": n_upi * rates["default"],
}
for name, value in want.items():
    assert rows[name] == value, (m, name, rows[name], value)
# The kernel's name, scaled to MiB as the kernel's .scale says: the same CAS count.
assert abs(rows["uncore_imc/cas_count_read/"] - rows["unc_m_cas_count.rd"] * 6.103515625e-5) < 0.006, rows  # printed to 2 decimals
assert rows["unc_m_cas_count.rd"] != rows["UNC_M_CAS_COUNT.WR"], rows
listing = open(f"{t}/{m}.list").read()
tail = listing[listing.index(f"Uncore events perf knows on {model} "):]
for topic in ("uncore memory:", "uncore cache:", "uncore interconnect:", "uncore io:"):
    assert f"\n{topic}\n" in tail, (m, topic)
cas = ev["unc_m_cas_count.rd"]
enc = {"event": int(cas["EventCode"], 16), "umask": int(cas["UMask"], 16)}
mm = re.search(r"  unc_m_cas_count.rd\n +\[(.*)\]\n +uncore_imc/(\S+)/\n", tail)
assert mm and {k: int(v, 0) for k, v in (x.split("=") for x in mm.group(2).split(","))} == enc, (mm, enc)
names = open(f"{t}/{m}.names").read().splitlines()
assert "unc_m_cas_count.rd" in names and "unc_cha_clockticks" in names and "unc_upi_txl_flits.all_data" in names
print(f"{m}: {n_imc} IMC, {n_cha} CHA, {n_upi} UPI boxes; counts as the rates give; {enc}")
PY
done
