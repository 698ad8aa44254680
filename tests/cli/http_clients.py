"""Hostile HTTP clients for cli.exporter_limits, on loopback.

  http_clients.py idle PORT N        N connections that send nothing; prints "open N" once all are
                                     connected, then holds them until killed
  http_clients.py slowloris PORT N   N connections that send a partial request, then one more byte
                                     every 50 ms; exits 0 once the server has closed every one
                                     (prints "closed N"), 1 if some are still open after 60 s
  http_clients.py keepalive PORT N PID
                                     N scrapes of /metrics on one kept-alive connection (prints
                                     "answered N"), then whether the server's side of it (process
                                     PID's socket, taken with pidfd_getfd(2): root; PID 0: not
                                     looked at) has TCP_NODELAY
                                     ("nodelay 1"): without it, Nagle's algorithm holds the end of
                                     each response until this side's delayed ACK, up to 40 ms

Every wait is bounded; the bounds are generous (60 s), not what the test measures.
"""
import ctypes
import os
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
    print(f"open {n}", flush=True)  # every connection made and its request begun
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


def read_response(s, pending):
    """One HTTP/1.1 response with a Content-Length; returns (status line, what follows it)."""
    while b"\r\n\r\n" not in pending:
        chunk = s.recv(65536)
        if not chunk:
            raise OSError("closed by the server")
        pending += chunk
    head, _, rest = pending.partition(b"\r\n\r\n")
    length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:"))
    while len(rest) < length:
        chunk = s.recv(65536)
        if not chunk:
            raise OSError("closed by the server")
        rest += chunk
    return head.split(b"\r\n")[0], rest[length:]


SYS_PIDFD_OPEN, SYS_PIDFD_GETFD = 434, 438  # x86-64 and arm64 alike (the generic syscall table)


def server_side(pid, client):
    """The socket of process PID whose peer is this client's socket, duplicated here."""
    libc = ctypes.CDLL(None, use_errno=True)
    pidfd = libc.syscall(SYS_PIDFD_OPEN, pid, 0)
    if pidfd < 0:
        raise OSError(ctypes.get_errno(), "pidfd_open")
    try:
        for name in os.listdir(f"/proc/{pid}/fd"):
            if not os.readlink(f"/proc/{pid}/fd/{name}").startswith("socket:"):
                continue
            fd = libc.syscall(SYS_PIDFD_GETFD, pidfd, int(name), 0)
            if fd < 0:
                raise OSError(ctypes.get_errno(), "pidfd_getfd")
            theirs = socket.socket(fileno=fd)
            try:
                if theirs.type == socket.SOCK_STREAM and theirs.getpeername() == client.getsockname():
                    return theirs
            except OSError:
                pass  # the listening socket has no peer
            theirs.close()
    finally:
        os.close(pidfd)
    raise OSError(f"process {pid} has no socket connected to {client.getsockname()}")


def keepalive(port, n, pid):
    s = socket.create_connection(("127.0.0.1", port), timeout=60)
    pending, answered = b"", 0
    for _ in range(n):
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        status, pending = read_response(s, pending)
        answered += status.split()[1] == b"200"
    print(f"answered {answered}", flush=True)
    if pid == 0:
        return 0  # not root: no look at the server's side
    theirs = server_side(pid, s)
    print(f"nodelay {theirs.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)}", flush=True)
    return 0


if __name__ == "__main__":
    mode, port, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    if mode == "keepalive":
        sys.exit(keepalive(port, n, int(sys.argv[4])))
    sys.exit(idle(port, n) if mode == "idle" else slowloris(port, n))
