#!/usr/bin/env python3
"""HTTP helpers for the pmu-exporter tests: fetch a page, wait for a server, query Prometheus's HTTP
API (https://prometheus.io/docs/prometheus/latest/querying/api/) and run a Grafana dashboard's
expressions. Waiting is a bounded number of short polls of the condition itself, never a guess."""
import json
import re
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

POLLS, POLL_S = 400, 0.025  # at most 10 s for a condition to hold


def get(url, accept=None):
    """(status, content type, body) of a GET."""
    req = urllib.request.Request(url, headers={"Accept": accept} if accept else {})
    try:
        with urllib.request.urlopen(req, timeout=5) as r:
            return r.status, r.headers.get("Content-Type", ""), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type", ""), e.read().decode()


def until(what, condition):
    """Polls condition() until it returns something true; fails naming `what` after POLLS tries."""
    last = None
    for _ in range(POLLS):
        try:
            last = condition()
            if last:
                return last
        except (OSError, ValueError) as e:  # not listening yet, or not answering yet
            last = e
        time.sleep(POLL_S)
    sys.exit(f"timed out waiting for {what} (last: {last})")


def query(prom, expr, at=None):
    """The result vector of an instant query (at: Unix seconds, default now)."""
    args = {"query": expr}
    if at is not None:
        args["time"] = at
    status, _, body = get(f"{prom}/api/v1/query?{urllib.parse.urlencode(args)}")
    reply = json.loads(body)
    if status != 200 or reply.get("status") != "success":
        sys.exit(f"query {expr!r} failed: {body}")
    return reply["data"]["result"]


def dashboard_expressions(path, substitutions):
    """Every PromQL expression of a Grafana dashboard's panels, with its variables substituted."""
    exprs = []

    def walk(panels):
        for p in panels:
            walk(p.get("panels", []))
            for t in p.get("targets", []):
                e = t["expr"]
                for k, v in substitutions.items():
                    e = e.replace(k, v)
                exprs.append((p["title"], e))

    with open(path) as f:
        walk(json.load(f)["panels"])
    return exprs


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "get":  # get URL [ACCEPT]: the body on stdout, "status content-type" on stderr
        status, ctype, body = get(args[0], args[1] if len(args) > 1 else None)
        print(f"{status} {ctype}", file=sys.stderr)
        sys.stdout.write(body)
    elif cmd == "wait-ready":  # wait-ready URL: until it answers 200
        until(args[0], lambda: get(args[0])[0] == 200)
    elif cmd == "wait-value":  # wait-value PROM EXPR VALUE: until the query's single value is VALUE
        until(f"{args[1]} == {args[2]}",
              lambda: [float(s["value"][1]) for s in query(args[0], args[1])] == [float(args[2])])
    elif cmd == "advance":  # advance PROM PMU-SIM DIR MS READS: move virtual time MS at a time until
        # pmu-exporter has read READS times, each time once Prometheus holds the previous read
        prom, sim, root, ms, reads = args[0], args[1], args[2], args[3], int(args[4])
        for k in range(1, reads + 1):
            if k > 1:
                subprocess.run([sim, "advance", root, ms], check=True)
            until(f"pmukit_reads_total == {k} in Prometheus",
                  lambda: [float(s["value"][1]) for s in query(prom, "pmukit_reads_total")] == [float(k)])
    elif cmd == "wait-sample":  # wait-sample URL SAMPLE VALUE: until the exposition has "SAMPLE VALUE"
        until(f"{args[1]} {args[2]} at {args[0]}",
              lambda: any(line.split(" ")[:2] == [args[1], args[2]] for line in get(args[0])[2].splitlines()))
    elif cmd == "query":  # query PROM EXPR [TIME]: "labels value" lines, sorted
        for s in sorted(query(args[0], args[1], args[2] if len(args) > 2 else None), key=lambda s: str(s["metric"])):
            labels = ",".join(f"{k}={v}" for k, v in sorted(s["metric"].items()))
            print(f"{{{labels}}} {s['value'][1]}")
    elif cmd == "dashboard":  # dashboard PROM FILE TIME [only=TITLE-REGEX] K=V...: each panel returns data
        # (from one of its expressions: a panel may hold the same quantity as each platform gives it,
        # or the series saying why this machine cannot give it)
        opts = dict(a.split("=", 1) for a in args[3:])
        only = re.compile(opts.pop("only", ".*"))
        series = {}
        for title, expr in dashboard_expressions(args[1], opts):
            if not only.search(title):
                continue
            n = len(query(args[0], expr, args[2]))
            print(f"{n:3} series  {title}: {expr}")
            series[title] = series.get(title, 0) + n
        empty = [t for t, n in series.items() if n == 0]
        for t in empty:
            print(f"no data: {t}")
        sys.exit(1 if empty or not series else 0)
    else:
        sys.exit(f"unknown command {cmd}")


if __name__ == "__main__":
    main()
