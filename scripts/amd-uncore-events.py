#!/usr/bin/env python3
"""Makes platforms/pmus/amd.json: the AMD EPYC uncore PMU kinds, their formats and perf's named events.

The input is a directory with one subdirectory per generation, named as Linux names them in
tools/perf/pmu-events/arch/x86/ (amdzen2, amdzen3, amdzen4, amdzen5), each holding perf's event
files for that generation (*.json; cache.json, l3-cache.json, data-fabric.json,
memory-controller.json, recommended.json). Every event whose "Unit" is one of the AMD uncore units
becomes a named event of that generation's kind, by perf's name (jevents.py maps L3PMC to the
amd_l3 PMU, DFPMC to amd_df and UMCPMC to amd_umc_<n>); events of the core PMU and metrics are left
out. The terms are the event's fields as perf writes them (EventCode -> event=, UMask -> umask=,
RdWrMask -> rdwrmask=, EnAllCores -> enallcores=, EnAllSlices -> enallslices=, SliceId -> sliceid=,
ThreadMask -> threadmask=), each checked to fit the bits of its format.

The formats are those the kernel's amd_uncore driver (arch/x86/events/amd/uncore.c) writes in
sysfs format/: they are not in perf's files, so they are written below, per kind, from the driver:
event8/umask8 and threadmask8/slicemask (family 17h L3), threadmask2/coreid/enallslices/enallcores/
sliceid (family 19h and later L3), event14 (DF without PerfMonV2), event14v2/umask12 (DF with
PerfMonV2), event8/rdwrmask (UMC, PerfMonV2 only).

A file sources.json in the input directory may say where each file came from ({"amdzen4/cache.json":
"torvalds/linux 037dd13..."}); it is quoted in "about". The output is sorted (kinds by name, events
by name, JSON keys as written here), so the same input always gives the same file. Standard library
only.

Usage:
  amd-uncore-events.py --input DIR --output platforms/pmus/amd.json
"""
import argparse
import json
import sys
from pathlib import Path

# Linux arch/x86/events/amd/uncore.c DEFINE_UNCORE_FORMAT_ATTR, as each PMU's format/ shows them.
F17H_L3 = {"event": "config:0-7", "umask": "config:8-15", "slicemask": "config:48-51", "threadmask": "config:56-63"}
F19H_L3 = {
    "event": "config:0-7",
    "umask": "config:8-15",
    "coreid": "config:42-44",
    "enallslices": "config:46",
    "enallcores": "config:47",
    "sliceid": "config:48-50",
    "threadmask": "config:56-57",
}
DF_V1 = {"event": "config:0-7,32-35,59-60", "umask": "config:8-15"}
DF_V2 = {"event": "config:0-7,32-37", "umask": "config:8-15,24-27"}
UMC = {"event": "config:0-7", "rdwrmask": "config:8-9"}

L3_HELP_F17H = {
    "slicemask": "L3 slices counted, one bit each; the driver sets all four when it is 0",
    "threadmask": "threads counted, one bit per thread of the CCX; the driver sets all eight when it is 0",
}
L3_HELP_F19H = {
    "threadmask": "threads of the selected core(s); when 0 the driver counts every core, thread and slice "
    "(threadmask=3, enallcores=1, enallslices=1)",
    "coreid": "the core counted when enallcores=0",
    "enallcores": "1: count every core of the CCX",
    "sliceid": "the L3 slice counted when enallslices=0",
    "enallslices": "1: count every L3 slice",
}
UMC_HELP = {"rdwrmask": "1: reads only, 2: writes only, 0: both"}

# kind -> (perf's directory, perf's Unit, formats, format help, description)
KINDS = {
    "amd_l3_zen2": ("amdzen2", "L3PMC", F17H_L3, L3_HELP_F17H, "AMD family 17h (Zen 2, EPYC 7002 Rome) L3 cache (amd_l3)"),
    "amd_l3_zen3": ("amdzen3", "L3PMC", F19H_L3, L3_HELP_F19H, "AMD family 19h (Zen 3, EPYC 7003 Milan) L3 cache (amd_l3)"),
    "amd_l3_zen4": ("amdzen4", "L3PMC", F19H_L3, L3_HELP_F19H, "AMD family 19h (Zen 4, EPYC 9004 Genoa) L3 cache (amd_l3)"),
    "amd_l3_zen5": ("amdzen5", "L3PMC", F19H_L3, L3_HELP_F19H, "AMD family 1Ah (Zen 5, EPYC 9005 Turin) L3 cache (amd_l3)"),
    "amd_df_zen2": ("amdzen2", "DFPMC", DF_V1, {}, "AMD family 17h (Zen 2) Data Fabric (amd_df), no PerfMonV2"),
    "amd_df_zen3": ("amdzen3", "DFPMC", DF_V1, {}, "AMD family 19h (Zen 3) Data Fabric (amd_df), no PerfMonV2"),
    "amd_df_zen4": ("amdzen4", "DFPMC", DF_V2, {}, "AMD family 19h (Zen 4) Data Fabric (amd_df), PerfMonV2"),
    "amd_df_zen5": ("amdzen5", "DFPMC", DF_V2, {}, "AMD family 1Ah (Zen 5) Data Fabric (amd_df), PerfMonV2"),
    "amd_umc_zen4": ("amdzen4", "UMCPMC", UMC, UMC_HELP, "AMD family 19h (Zen 4) memory controller channel (amd_umc_<n>)"),
    "amd_umc_zen5": ("amdzen5", "UMCPMC", UMC, UMC_HELP, "AMD family 1Ah (Zen 5) memory controller channel (amd_umc_<n>)"),
}

# perf's event file field -> format term, in the order jevents.py writes them
FIELDS = (
    ("EventCode", "event"),
    ("UMask", "umask"),
    ("RdWrMask", "rdwrmask"),
    ("EnAllCores", "enallcores"),
    ("EnAllSlices", "enallslices"),
    ("SliceId", "sliceid"),
    ("ThreadMask", "threadmask"),
)


def width(bits):
    """How many value bits a format such as "config:0-7,32-35" takes."""
    total = 0
    for part in bits.split(":", 1)[1].split(","):
        lo, _, hi = part.partition("-")
        total += int(hi or lo) - int(lo) + 1
    return total


def terms(event, formats, where):
    out = []
    for field, term in FIELDS:
        if field not in event:
            continue
        value = int(event[field], 0)
        if value == 0 and term != "event":
            continue  # perf leaves a 0 out of the event it programs; so does the encoder
        if term not in formats:
            sys.exit(f"{where}: {field} has no format '{term}' in this kind")
        if value >> width(formats[term]):
            sys.exit(f"{where}: {term}={value:#x} does not fit {formats[term]}")
        out.append(f"{term}={value:#04x}")
    for field in event:
        if field[0].isupper() and field not in dict(FIELDS) and field not in (
                "EventName", "BriefDescription", "PublicDescription", "PerPkg", "Unit"):
            sys.exit(f"{where}: field {field} is not understood")
    return ",".join(out)


def read_events(directory, unit):
    """{name: (terms source event, file)} of one generation's events on `unit`."""
    found = {}
    for path in sorted(directory.glob("*.json")):
        for event in json.loads(path.read_text()):
            if "EventName" not in event or event.get("Unit") != unit:
                continue
            name = event["EventName"].lower()
            if name in found and found[name][0] != event:
                sys.exit(f"{path}: {name} is also in {found[name][1]} with other fields")
            found[name] = (event, f"{directory.name}/{path.name}")
    return found


def kind(name, input_dir):
    generation, unit, formats, help_, description = KINDS[name]
    events = {}
    for event_name, (event, file) in sorted(read_events(input_dir / generation, unit).items()):
        text = event.get("BriefDescription") or event.get("PublicDescription", "")
        events[event_name] = {
            "terms": terms(event, formats, f"{file} {event_name}"),
            "description": f"{text} (perf {file})",
        }
    return {
        "kind": name,
        "description": description,
        "formats": dict(formats),
        "format_help": dict(help_),
        "events": events,
    }


def about(input_dir, pmus):
    sources = input_dir / "sources.json"
    quoted = json.loads(sources.read_text()) if sources.exists() else {}
    counts = ", ".join(f"{p['kind']} {len(p['events'])}" for p in pmus)
    files = "; ".join(f"{f}: {quoted[f]}" for f in sorted(quoted))
    return (
        "AMD EPYC uncore PMUs of the Linux amd_uncore driver (arch/x86/events/amd/uncore.c): amd_l3 (one per "
        "CCX L3), amd_df (Data Fabric, one per socket) and amd_umc_<n> (one per memory channel, PerfMonV2: "
        "Zen 4 and later). Formats are the driver's format/ attributes per family: L3 event8/umask8 with "
        "slicemask and threadmask8 (family 17h) or coreid, enallslices, enallcores, sliceid and threadmask2 "
        "(family 19h and later); DF event14 'config:0-7,32-35,59-60' without PerfMonV2, event14v2 "
        "'config:0-7,32-37' and umask12 'config:8-15,24-27' with it; UMC event8 and rdwrmask 'config:8-9'. "
        "Named events are perf's, by perf's names, from tools/perf/pmu-events/arch/x86/amdzen2..amdzen5 "
        "(Unit L3PMC, DFPMC, UMCPMC), written by scripts/amd-uncore-events.py; none is added by hand. "
        f"Events per kind: {counts}. Source files: {files}"
    )


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--input", required=True, help="directory with amdzen2..amdzen5 subdirectories of perf's files")
    ap.add_argument("--output", required=True)
    args = ap.parse_args()
    input_dir = Path(args.input)
    pmus = [kind(name, input_dir) for name in sorted(KINDS)]
    doc = {"about": about(input_dir, pmus), "pmus": pmus}
    Path(args.output).write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n")
    counts = ", ".join(f"{p['kind']} {len(p['events'])}" for p in pmus)
    print(f"{args.output}: {counts}")


if __name__ == "__main__":
    main()
