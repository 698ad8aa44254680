#!/usr/bin/env python3
"""Trims perf's Intel uncore event files to what pmukit needs: platforms/perfmon/<cpu>_uncore_events.json.

The input is a directory of perf's event files for one platform, as Linux carries them in
tools/perf/pmu-events/arch/x86/<platform>/uncore-*.json, or as intel/perfmon's
scripts/create_perf_json.py writes them (the script the kernel's copies are generated with). Each
event keeps EventName, EventCode, UMask (create_perf_json.py has folded UMaskExt into it above bit
7), PortMask, FCMask, Filter (perf terms such as config1=0x40433 on Skylake-SP/Cascade Lake CHAs), Unit, BriefDescription and Deprecated; every other field (PerPkg, Counter,
Experimental, PublicDescription) is left out. The topic of a unit ("uncore memory", the file
name as perf list shows it) is kept once per unit in "Topics". Standard library only.

Usage:
  perfmon-uncore-events.py --input DIR/sapphirerapids --cpu-models spr --version v1.39 \
      --repository github.com/intel/perfmon --commit SHA --generator "scripts/create_perf_json.py" \
      --output platforms/perfmon/spr_uncore_events.json
"""
import argparse
import json
import sys
from pathlib import Path

KEPT = ("EventName", "EventCode", "UMask", "PortMask", "FCMask", "Filter", "Unit", "BriefDescription", "Deprecated")


def zero(value):
    """A field perf leaves out of the terms: absent, "0" or "0x00"."""
    try:
        return int(value, 0) == 0
    except ValueError:
        return False


def trim(event):
    out = {}
    for key in KEPT:
        if key not in event:
            continue
        value = event[key]
        if key in ("UMask", "PortMask", "FCMask") and zero(value):
            continue
        if key == "Filter" and not value.strip():
            continue
        if key == "Deprecated" and value != "1":
            continue
        out[key] = value
    if "EventCode" not in out:
        out["EventCode"] = "0x00"
    return out


def convert(input_dir, args):
    files = sorted(Path(input_dir).glob("uncore-*.json"))
    if not files:
        sys.exit(f"{input_dir}: no uncore-*.json")
    events, topics, sources = [], {}, []
    for path in files:
        topic = path.stem.replace("-", " ")  # uncore-memory.json -> "uncore memory", as perf list names it
        listed = json.loads(path.read_text())
        for event in listed:
            unit = event.get("Unit", "")
            if topics.setdefault(unit, topic) != topic:
                sys.exit(f"{path}: unit {unit} is also in {topics[unit]}")
            events.append(trim(event))
        sources.append({"file": path.name, "events": len(listed)})
    events.sort(key=lambda e: (e.get("Unit", ""), e["EventName"]))
    platform = Path(input_dir).name
    return {
        "about": (f"The uncore events perf knows on {platform} (perf list, by perf's names), trimmed by "
                  "scripts/perfmon-uncore-events.py from perf's event files to the fields pmukit encodes "
                  "(EventCode, UMask with the extended umask folded in, PortMask = ch_mask, FCMask = fc_mask) "
                  "and the brief description; Topics gives each Unit's perf list heading. Each name is an "
                  "alias of the PMU perf gives its Unit (jevents.py: uncore_ + lower-case Unit)."),
        "source": {
            "repository": args.repository,
            "commit": args.commit,
            "generator": args.generator,
            "platform": platform,
            "version": args.version,
            "licence": args.licence,
            "files": sources,
        },
        "cpu_models": args.cpu_models.split(","),
        "Topics": dict(sorted(topics.items())),
        "Events": events,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--input", required=True, help="directory of perf's uncore-*.json for one platform")
    ap.add_argument("--cpu-models", required=True, help="pmukit CPU model names (platforms/cpus.json), comma separated")
    ap.add_argument("--version", required=True, help="the event files' version (mapfile.csv)")
    ap.add_argument("--repository", required=True)
    ap.add_argument("--commit", required=True)
    ap.add_argument("--generator", default="", help="how the perf files were made from the repository")
    ap.add_argument("--licence", default="BSD-3-Clause")
    ap.add_argument("--output", required=True)
    args = ap.parse_args()
    doc = convert(args.input, args)
    text = json.dumps(doc, indent=None, separators=(",", ":"), ensure_ascii=False)
    # One event a line: diffs between versions stay readable.
    text = text.replace(',"Events":[{', ',\n"Events":[\n{').replace('},{"EventName"', '},\n{"EventName"')
    Path(args.output).write_text(text + "\n")
    print(f"{args.output}: {len(doc['Events'])} events from {len(doc['source']['files'])} files")


if __name__ == "__main__":
    main()
