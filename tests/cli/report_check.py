#!/usr/bin/env python3
"""Checks for pmu-report's pages, computed here from the pmu-raw JSON lines on their own.

  report_check.py plots RUN.jsonl PAGE      the page (or Chromium's DOM dump of it) has one chart per
                                            event and per metric of RUN, each an SVG with a line per series
  report_check.py summary RUN.jsonl PAGE    every min / median / max in the summary table is what RUN's
                                            intervals give (events: count per second of the interval)
  report_check.py png SHOT.png COLOURS...   prints width, height, non-white pixels and pixels of the
                                            given #rrggbb colours of a screenshot (PNG decoded with zlib)
"""
import json
import statistics
import struct
import sys
import zlib
from html.parser import HTMLParser

BYTES = {"B": 1, "Bytes": 1, "bytes": 1, "KiB": 1024, "MiB": 1024**2, "GiB": 1024**3, "TiB": 1024**4,
         "kB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12}
SI = {"k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15}


pages_inputs = False  # pmu-report --inputs: metric inputs charted too


def read_run(path):
    """Series of RUN: {(kind, name): {label: [(t, value)]}} and the interval end times."""
    charts, times, inputs = {}, set(), []
    for line in open(path):
        if not line.strip():
            continue
        r = json.loads(line)
        if "event" in r and r.get("metric-input") and not pages_inputs:
            inputs.append(r)
            continue
        if "event" in r:
            key, value = ("event", r["event"]), float(r["counter-value"])
            unit = r.get("unit", "")
        else:
            name, _, on = r["metric"].partition(" (")
            key, value, unit = ("metric", name), float(r["metric-value"]), r["metric-unit"]
        label = " ".join(x for x in (r.get("socket", ""), r.get("pmu", ""), on.rstrip(")") if "metric" in r else "") if x)
        charts.setdefault(key, {"unit": unit, "series": {}})["series"].setdefault(label, []).append((r.get("interval"), value))
        if "interval" in r:
            times.add(r["interval"])
    # An event counted only for metrics is on the page only where one of them is not.
    metrics = {k[1] for k in charts if k[0] == "metric"}
    for r in inputs:
        if not set(r["metric-input"]) <= metrics:
            charts.setdefault(("event", r["event"]), {"unit": r.get("unit", ""), "series": {}})["series"].setdefault(
                " ".join(x for x in (r.get("socket", ""), r.get("pmu", "")) if x), []).append(
                (r.get("interval"), float(r["counter-value"])))
    return charts, sorted(times)


class Page(HTMLParser):
    """Figures (with their SVG series) and summary table rows of a page."""

    def __init__(self):
        super().__init__()
        self.figures, self.rows, self._row, self._cell, self._in_table = [], [], None, None, False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "figure" and "plot" in a.get("class", "").split():
            self.figures.append({"kind": a.get("data-kind"), "svg": 0, "series": 0, "title": ""})
        elif tag == "svg" and self.figures:
            self.figures[-1]["svg"] += 1
        elif tag in ("path", "rect") and "series" in a.get("class", "").split() and self.figures:
            self.figures[-1]["series"] += 1
        elif tag == "table" and "summary" in a.get("class", ""):
            self._in_table = True
        elif tag == "tr" and self._in_table:
            self._row = []
        elif tag == "td" and self._row is not None:
            self._cell = ""

    def handle_endtag(self, tag):
        if tag == "td" and self._cell is not None:
            self._row.append(self._cell.strip())
            self._cell = None
        elif tag == "tr" and self._row:
            self.rows.append(self._row)
            self._row = None
        elif tag == "table":
            self._in_table = False

    def handle_data(self, data):
        if self._cell is not None:
            self._cell += data


def parse_page(path):
    p = Page()
    p.feed(open(path, encoding="utf-8").read())
    return p


def check_plots(run_path, page_path):
    charts, _ = read_run(run_path)
    page = parse_page(page_path)
    want = {"event": sum(k[0] == "event" for k in charts), "metric": sum(k[0] == "metric" for k in charts)}
    got = {"event": sum(f["kind"] == "event" for f in page.figures), "metric": sum(f["kind"] == "metric" for f in page.figures)}
    assert got == want, f"charts per kind: page {got}, input {want}"
    series = sorted(len(c["series"]) for c in charts.values())
    assert sorted(f["series"] for f in page.figures) == series, (page.figures, series)
    assert all(f["svg"] == 1 for f in page.figures), page.figures
    print(f"{len(page.figures)} charts ({want['event']} events, {want['metric']} metrics)")


def number(text):
    """'95.37' -> 95.37, '4.000 G' -> 4e9, '12,345' -> 12345."""
    text = text.replace(",", "").strip()
    if text[-1] in SI:
        return float(text[:-1]) * SI[text[-1]]
    return float(text)


def factor(unit, shown):
    """From RUN's unit (per second for events) to the unit the table shows."""
    unit = unit[:-2] if unit.endswith("/s") else unit
    base = shown[:-2] if shown.endswith("/s") else shown
    if unit in BYTES:
        return BYTES[unit] / BYTES[base]
    return 1.0


def check_summary(run_path, page_path):
    charts, times = read_run(run_path)
    starts = dict(zip(times, [0.0] + times[:-1]))
    page, name, checked = parse_page(page_path), None, 0
    for row in page.rows:
        name = row[0] or name
        label, shown = row[1], row[2]
        if label.startswith("sum of"):
            continue
        key = ("metric", name) if ("metric", name) in charts else ("event", name)
        chart = charts[key]
        label = "" if label == "all units" else label
        points = chart["series"][label]
        values = [v / (t - starts[t]) if key[0] == "event" else v for t, v in points]
        f = factor(chart["unit"], shown)
        for want, cell in zip((min(values), statistics.median(values), max(values)), row[3:6]):
            got = number(cell)
            assert abs(got - want * f) <= 5e-4 * abs(want * f) + 1e-9, f"{name} [{label}]: table {cell}, input {want * f}"
        checked += 1
    assert checked == sum(len(c["series"]) for c in charts.values()), f"{checked} table rows"
    print(f"{checked} series: min, median and max agree with the input")


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


def decode_png(path):
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour in (2, 6), f"PNG depth {depth} colour type {colour}"
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    bpp = 3 if colour == 2 else 4
    raw, stride, rows, prev = zlib.decompress(idat), width * bpp, [], bytearray(width * bpp)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if kind == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 0xFF
        elif kind == 2:
            line = bytearray((a + b) & 0xFF for a, b in zip(line, prev))
        elif kind == 3:
            for i in range(stride):
                line[i] = (line[i] + ((line[i - bpp] if i >= bpp else 0) + prev[i]) // 2) & 0xFF
        elif kind == 4:
            for i in range(stride):
                left, upleft = (line[i - bpp], prev[i - bpp]) if i >= bpp else (0, 0)
                line[i] = (line[i] + paeth(left, prev[i], upleft)) & 0xFF
        rows.append(line)
        prev = line
    return width, height, bpp, rows


def check_png(path, colours):
    width, height, bpp, rows = decode_png(path)
    wanted = {bytes.fromhex(c.lstrip("#")): c for c in colours}
    counts, ink = {c: 0 for c in colours}, 0
    for line in rows:
        for x in range(0, len(line), bpp):
            px = bytes(line[x:x + 3])
            if px != b"\xff\xff\xff":
                ink += 1
                if px in wanted:
                    counts[wanted[px]] += 1
    print(width, height, ink, " ".join(str(counts[c]) for c in colours))


if __name__ == "__main__":
    command, args = sys.argv[1], sys.argv[2:]
    if args and args[0] == "--inputs":
        pages_inputs, args = True, args[1:]
    {"plots": check_plots, "summary": check_summary}.get(command, lambda *a: None)(*args[:2])
    if command == "png":
        check_png(args[0], args[1:])
