"""A real HTTP/1.1 server for the URL tests: serves files from a directory with
byte ranges (RFC 9110 section 14), bound to 127.0.0.1 on a random port, plus
misbehaving modes chosen by the first path segment:

  /ok/F         ranges honoured (206, Content-Range, Content-Length, keep-alive)
  /redirect/F   302 to /ok/F
  /loop/F       302 to itself, forever
  /norange/F    ignores Range: 200 and the whole file
  /truncated/F  a correct 206 header, half the body, then the connection closes
  /shortlen/F   Content-Length 100 bytes short of the Content-Range it claims
  /nosize/F     Content-Range: bytes A-B/* (no file size)
  /zerostart/F  every reply starts at byte 0 whatever was asked
  /shifting/F   the file's size (Content-Range total) changes on every reply
  /slow/F       a 206 header, then one byte per second
  /gone/F       404

Every request and the body bytes sent are logged in server.log as
(mode, path, range header, bytes sent)."""
import http.server
import os
import re
import threading
import time


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def send_body(self, f, start, n, mode):
        sent = 0
        f.seek(start)
        try:
            while sent < n:
                step = 1 if mode == "slow" else min(1 << 16, n - sent)
                chunk = f.read(step)
                if not chunk:
                    break
                self.wfile.write(chunk)
                sent += len(chunk)
                if mode == "slow":
                    self.wfile.flush()
                    time.sleep(1)
        except (BrokenPipeError, ConnectionResetError):
            pass
        return sent

    def do_GET(self):
        m = re.match(r"^/([a-z]+)/(.+)$", self.path.split("?")[0])
        mode, name = (m.group(1), m.group(2)) if m else ("", "")
        srv = self.server
        path = os.path.join(srv.root, os.path.basename(name))
        rng = self.headers.get("Range", "")
        entry = [mode, name, rng, 0]
        srv.log.append(entry)
        if mode == "redirect":
            return self.redirect("/ok/" + name)
        if mode == "loop":
            return self.redirect(self.path)
        if mode == "gone" or not os.path.isfile(path):
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        size = os.path.getsize(path)
        with open(path, "rb") as f:
            r = re.match(r"^bytes=(\d+)-(\d*)$", rng)
            if mode == "norange" or not r:
                self.send_response(200)
                self.send_header("Content-Length", str(size))
                self.end_headers()
                entry[3] = self.send_body(f, 0, size, mode)
                return
            start = int(r.group(1))
            end = min(int(r.group(2)) if r.group(2) else size - 1, size - 1)
            if start >= size:
                self.send_response(416)
                self.send_header("Content-Range", "bytes */%d" % size)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            if mode == "zerostart":
                end, start = end - start, 0
            n = end - start + 1
            total = "*" if mode == "nosize" else str(size + len(srv.log) if mode == "shifting" else size)
            self.send_response(206)
            self.send_header("Content-Range", "bytes %d-%d/%s" % (start, end, total))
            length = n - 100 if mode == "shortlen" else n
            self.send_header("Content-Length", str(length))
            if mode == "truncated":
                self.send_header("Connection", "close")
            self.end_headers()
            entry[3] = self.send_body(f, start, length // 2 if mode == "truncated" else length, mode)
            if mode == "truncated":
                self.close_connection = True

    def redirect(self, to):
        self.send_response(302)
        self.send_header("Location", to)
        self.send_header("Content-Length", "0")
        self.end_headers()


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, root):
        super().__init__(("127.0.0.1", 0), Handler)
        self.root = root
        self.log = []

    @property
    def base(self):
        return "http://127.0.0.1:%d" % self.server_address[1]

    def bytes_sent(self):
        return sum(e[3] for e in self.log)

    def start(self):
        threading.Thread(target=self.serve_forever, daemon=True).start()
        return self
