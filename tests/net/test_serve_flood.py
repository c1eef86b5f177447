#!/usr/bin/env python3
"""fitcheck serve as a network citizen (issue 20): while it is flooded with
idle connections, garbage, dribbled headers and a reader that never reads, a
well-formed peer keeps getting every answer within a second; a peer queued
ahead of a burst larger than the table keeps its place; replies are never
larger than asked; bad messages get one ERROR and a close; it binds only the
numeric address given; SIGTERM stops it cleanly (exit 0)."""
import os, random, select, signal, socket, struct, subprocess, sys, threading, time

FC = os.environ.get("FITCHECK_BIN", "build/fitcheck")
fails = []

def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        fails.append(what)

def msg(t, seq, payload=b""):
    return b"FCNP" + bytes([1, t, 0, 0]) + struct.pack(">II", seq, len(payload)) + payload

def recv_exact(s, n, timeout=2.0):
    s.settimeout(timeout)
    buf = b""
    while len(buf) < n:
        b = s.recv(n - len(buf))
        if not b:
            break
        buf += b
    return buf

def reply(s, timeout=2.0):
    h = recv_exact(s, 16, timeout)
    if len(h) < 16:
        return None, None, b""
    t, seq, n = h[5], struct.unpack(">I", h[8:12])[0], struct.unpack(">I", h[12:16])[0]
    return t, seq, recv_exact(s, n, timeout) if n <= 1 << 20 else b""

def connect(port):
    s = socket.create_connection(("127.0.0.1", port), timeout=2)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return s

def hello(s):
    s.sendall(msg(1, 1))
    t, _, p = reply(s)
    return t == 1 and len(p) == 16

# ---- refusals before anything runs
for bad, why in (("localhost", "a name"), ("203.0.113.7", "an address not on this machine")):
    r = subprocess.run([FC, "serve", "--bind", bad, "--port", "0"], capture_output=True, text=True, timeout=10)
    check(r.returncode == 2 and "serve" in r.stderr, f"--bind {bad} ({why}) refused with exit 2: {r.stderr.strip()[:90]}")

srv = subprocess.Popen([FC, "serve", "--port", "0"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
line = srv.stdout.readline()
port = int(line.split()[-1])
check("127.0.0.1" in line, f"binds loopback by default: {line.strip()}")

# ---- the well-formed peer: pings all through the flood
stop = threading.Event()
lat = []
peer_err = []
def good_peer():
    try:
        s = connect(port)
        if not hello(s):
            peer_err.append("hello")
            return
        seq = 2
        while not stop.is_set():
            pay = os.urandom(32)
            t0 = time.monotonic()
            s.sendall(msg(2, seq, pay))
            t, rs, p = reply(s, 3.0)
            lat.append(time.monotonic() - t0)
            if t != 3 or rs != seq or p != pay:
                peer_err.append(f"bad pong {t} {rs}")
                return
            seq += 1
            time.sleep(0.02)
    except OSError as e:
        peer_err.append(str(e))
threading.Thread(target=good_peer, daemon=True).start()
time.sleep(0.3)

# ---- the flood
held = []
def flood_idle(n):                 # connect and say nothing (half-open peers)
    for _ in range(n):
        try:
            held.append(connect(port))
        except OSError:
            pass
def flood_garbage(n):
    for _ in range(n):
        try:
            s = connect(port)
            s.sendall(os.urandom(random.randint(1, 4000)))
            held.append(s)
        except OSError:
            pass
def slowloris(n):
    ss = []
    for _ in range(n):
        try:
            ss.append(connect(port))
        except OSError:
            pass
    h = msg(1, 1)
    for i in range(len(h) - 1):    # never the last byte
        for s in ss:
            try:
                s.send(h[i:i + 1])
            except OSError:
                pass
        time.sleep(0.25)
    held.extend(ss)
def never_reads():                  # asks for 16 MiB and never reads it
    try:
        s = connect(port)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.sendall(msg(1, 1) + msg(5, 2, struct.pack(">I", 16 << 20)))
        held.append(s)
    except OSError:
        pass
threads = [threading.Thread(target=f, args=a, daemon=True) for f, a in
           ((flood_idle, (80,)), (flood_garbage, (60,)), (slowloris, (6,)), (never_reads, ()))]
for t in threads:
    t.start()
# a second well-formed peer arriving in the middle of the flood is served too
time.sleep(1.0)
try:
    s2 = connect(port)
    ok2 = hello(s2)
    s2.sendall(msg(2, 2, b"mid-flood"))
    t, _, p = reply(s2)
    check(ok2 and t == 3 and p == b"mid-flood", "a peer arriving mid-flood gets HELLO and PONG")
    # no amplification: a PING's answer is exactly as long as the PING
    s2.sendall(msg(2, 3, b"x" * 256))
    t, _, p = reply(s2)
    check(t == 3 and len(p) == 256, "PONG is the PING's size (256 bytes), never more")
    s2.sendall(msg(5, 4, struct.pack(">I", 1000)))
    t, _, p = reply(s2)
    check(t == 6 and len(p) == 1000, "DATA is exactly what PULL asked (1000 bytes)")
    s2.sendall(msg(5, 5, struct.pack(">I", (16 << 20) + 1)))
    t, _, p = reply(s2)
    check(t == 7 and p == b"\x04", "PULL beyond the 16 MiB cap: ERROR 'length', nothing sent")
    check(recv_exact(s2, 1, 2.0) == b"", "... and the connection is closed")
except OSError as e:
    check(False, f"mid-flood peer: {e}")
for t in threads:
    t.join(timeout=10)
time.sleep(2.5)                     # past the HELLO deadline: the idle ones are dropped
stop.set()
time.sleep(0.2)
check(not peer_err, f"the well-formed peer was answered throughout ({len(lat)} pings) {peer_err[:1]}")
check(len(lat) > 50 and max(lat) < 1.0, f"every answer within 1 s (max {max(lat) if lat else -1:.3f} s)")

# ---- a burst: the kernel hands queued connections over together (a flood's SYN
# retries land at once). With the server stopped, a real peer connects and sends
# HELLO, then NET_BACKLOG + 4 idle peers queue behind it; resumed, the server
# takes the whole queue in one go, more than its 16 slots: the real peer must
# keep its place (its HELLO is read on accept), the idle ones be turned away.
srv.send_signal(signal.SIGSTOP)
try:
    first = connect(port)
    first.sendall(msg(1, 1))
    burst = []
    for _ in range(20):
        b = socket.socket()
        b.setblocking(False)
        b.connect_ex(("127.0.0.1", port))
        burst.append(b)
    time.sleep(0.3)
finally:
    srv.send_signal(signal.SIGCONT)
try:
    t, _, p = reply(first)
    got = f"type {t}"
except OSError as e:
    t, p, got = None, b"", str(e)
check(t == 1 and len(p) == 16, f"a peer queued ahead of a burst of 20 is answered HELLO ({got})")
for b in burst:
    b.close()
first.close()

# ---- protocol errors: one ERROR, then closed
for data, code, what in ((b"GET / HTTP/1.1\r\n\r\n", 1, "HTTP at the port"),
                         (b"FCNP" + bytes([2, 1, 0, 0]) + b"\0" * 8, 2, "version 2"),
                         (msg(2, 1, b"hi"), 5, "PING before HELLO"),
                         (msg(1, 1) + b"FCNP" + bytes([1, 4, 0, 0]) + struct.pack(">II", 1, 1 << 24), 4, "PUSH of 16 MiB")):
    s = connect(port)
    s.sendall(data)
    got = b""
    s.settimeout(2)
    try:
        while True:
            b = s.recv(4096)
            if not b:
                break
            got += b
    except OSError:
        pass
    tail = got[-17:]
    check(len(tail) == 17 and tail[5] == 7 and tail[16] == code,
          f"{what}: ERROR {code} then close ({len(got)} bytes back)")

for s in held:
    s.close()
srv.send_signal(signal.SIGTERM)
try:
    rc = srv.wait(timeout=3)
except subprocess.TimeoutExpired:
    srv.kill()
    rc = -1
err = srv.stderr.read()
check(rc == 0 and "stopped" in err, f"SIGTERM: exit {rc}, {err.strip()[:150]}")
print(f"{len(fails)} failed")
sys.exit(1 if fails else 0)
