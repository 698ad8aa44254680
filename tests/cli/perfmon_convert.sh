# scripts/perfmon-uncore-events.py: perf's uncore event files of one platform become one data file
# of platforms/perfmon/ with what pmukit encodes (zero fields and unused ones left out), each Unit's
# topic from its file's name, and the source's provenance and per-file event counts; and the
# bundled files are what it writes (their counts add up).
. "$(dirname "$0")/common.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$T/in/testlake"
cat > "$T/in/testlake/uncore-memory.json" << 'EOF_JSON'
[
    {"BriefDescription": "read CAS", "Counter": "0,1,2,3", "EventCode": "0x05", "EventName": "UNC_M_CAS_COUNT.RD",
     "Experimental": "1", "PerPkg": "1", "PublicDescription": "long", "UMask": "0xcf", "Unit": "iMC"},
    {"BriefDescription": "ticks", "Counter": "0,1,2,3", "EventCode": "0x01", "EventName": "UNC_M_CLOCKTICKS",
     "PerPkg": "1", "UMask": "0x00", "Unit": "iMC"}
]
EOF_JSON
cat > "$T/in/testlake/uncore-io.json" << 'EOF_JSON'
[
    {"BriefDescription": "bytes", "EventCode": "0x83", "EventName": "UNC_IIO_DATA_REQ_OF_CPU.MEM_READ.PART0",
     "FCMask": "0x07", "PerPkg": "1", "PortMask": "0x0001", "UMask": "0x4", "Unit": "IIO", "Deprecated": "0"},
    {"BriefDescription": "filtered", "EventCode": "0x35", "EventName": "LLC_MISSES.MMIO_READ", "Filter": "config1=0x40040e33",
     "PerPkg": "1", "UMask": "0x21", "Unit": "IIO"}
]
EOF_JSON
"$PYTHON" "$ROOT/scripts/perfmon-uncore-events.py" --input "$T/in/testlake" --cpu-models tst,tst-d --version v9.9 \
  --repository example/perfmon --commit 0123 --output "$T/out.json" > "$T/log"
grep -q "4 events from 2 files" "$T/log"
"$PYTHON" - "$T/out.json" "$ROOT/platforms" << 'PY'
import json, sys, pathlib
doc = json.load(open(sys.argv[1]))
assert doc["cpu_models"] == ["tst", "tst-d"]
src = doc["source"]
assert (src["repository"], src["commit"], src["version"], src["licence"]) == ("example/perfmon", "0123", "v9.9", "BSD-3-Clause")
assert src["files"] == [{"file": "uncore-io.json", "events": 2}, {"file": "uncore-memory.json", "events": 2}], src
assert doc["Topics"] == {"IIO": "uncore io", "iMC": "uncore memory"}, doc["Topics"]
by = {e["EventName"]: e for e in doc["Events"]}
assert by["UNC_M_CAS_COUNT.RD"] == {"EventName": "UNC_M_CAS_COUNT.RD", "EventCode": "0x05", "UMask": "0xcf",
                                    "Unit": "iMC", "BriefDescription": "read CAS"}, by
assert "UMask" not in by["UNC_M_CLOCKTICKS"]
# perf's Filter terms (Skylake-SP/Cascade Lake CHA filters in config1) are kept as written.
assert by["LLC_MISSES.MMIO_READ"]["Filter"] == "config1=0x40040e33", by["LLC_MISSES.MMIO_READ"]
assert by["UNC_IIO_DATA_REQ_OF_CPU.MEM_READ.PART0"] == {"EventName": "UNC_IIO_DATA_REQ_OF_CPU.MEM_READ.PART0",
    "EventCode": "0x83", "UMask": "0x4", "PortMask": "0x0001", "FCMask": "0x07", "Unit": "IIO", "BriefDescription": "bytes"}
# The bundled files: made by this script (same layout), each file's events the sum of its sources'.
index = json.load(open(pathlib.Path(sys.argv[2], "index.json")))["perfmon_events"]
for model, path in index.items():
    d = json.load(open(pathlib.Path(sys.argv[2], path)))
    assert model in d["cpu_models"], (model, path)
    assert len(d["Events"]) == sum(f["events"] for f in d["source"]["files"]), path
    assert set(d) == set(doc), (path, set(d) ^ set(doc))
    assert all(set(e) <= {"EventName", "EventCode", "UMask", "PortMask", "FCMask", "Filter", "Unit", "BriefDescription",
                          "Deprecated"} for e in d["Events"]), path
    print(f"{path}: {len(d['Events'])} events ({d['source']['version']})")
PY
