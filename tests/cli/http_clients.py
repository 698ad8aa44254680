"""Hostile HTTP clients for cli.exporter_limits, on loopback.

  http_clients.py idle PORT N        N connections that send nothing; prints "open N" once all are
                                     connected, then holds them until killed
  http_clients.py slowloris PORT N   N connections that send a partial request, then one more byte
                                     every 50 ms; exits 0 once the server has closed every one
                                     (prints "closed N"), 1 if some are still open after 60 s

Every wait is bounded; the bounds are generous (60 s), not what the test measures.
"""
import socket
import sys
import time


def connect_all(port, n):
    return [socket.create_connection(("127.0.0.1", port), timeout=60) for _ in range(n)]


def idle(port, n):
    socks = connect_all(port, n)
    print(f"open {len(socks)}", flush=True)
    while True:
        time.sleep(60)


def closed_by_server(s):
    s.setblocking(False)
    try:
        return s.recv(4096) == b""
    except BlockingIOError:
        return False
    except OSError:
        return True
    finally:
        s.setblocking(True)


def slowloris(port, n):
    socks = connect_all(port, n)
    for s in socks:
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
    open_ = set(range(n))
    deadline = time.monotonic() + 60
    while open_ and time.monotonic() < deadline:
        for i in list(open_):
            if closed_by_server(socks[i]):
                open_.discard(i)
                continue
            try:
                socks[i].send(b"X")  # a header name growing a byte at a time, never ended
            except OSError:
                open_.discard(i)
        time.sleep(0.05)
    print(f"closed {n - len(open_)}", flush=True)
    return 0 if not open_ else 1


if __name__ == "__main__":
    mode, port, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    sys.exit(idle(port, n) if mode == "idle" else slowloris(port, n))
