"""httpd.py - a real nginx (Debian nginx-light) on 127.0.0.1 for the remote
tests and benchmarks (tests/remote_check.py, bench/remote.py).

Nginx(www, tmp).start() serves the folder www on three ports: "plain",
"norange" (max_ranges 0: Range ignored, the whole file with 200) and "tls"
(a self-signed certificate for 127.0.0.1 made here, cert.pem in tmp). Each
has an access log of '$request_uri "$http_range" $status $body_bytes_sent',
the witness of every request and byte: log(name) gives its lines split in
fields, truncate(name) empties it. /redir/PATH on "plain" answers 302 to
/PATH, as the Hugging Face Hub sends its files to a CDN.
"""
import os
import shutil
import socket
import subprocess
import time

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"

CONF = """
{user}
worker_processes 2;
daemon off;
pid {tmp}/nginx.pid;
error_log {tmp}/error.log;
events {{ worker_connections 512; }}
http {{
    log_format ranges '$request_uri "$http_range" $status $body_bytes_sent';
    client_body_temp_path {tmp}/b; proxy_temp_path {tmp}/p; fastcgi_temp_path {tmp}/f;
    uwsgi_temp_path {tmp}/u; scgi_temp_path {tmp}/s;
    default_type application/octet-stream;
    keepalive_requests 100000;
    server {{
        listen 127.0.0.1:{plain};
        access_log {tmp}/plain.log ranges;
        root {www};
        location /redir/ {{ rewrite ^/redir/(.*)$ /$1 redirect; }}
    }}
    server {{
        listen 127.0.0.1:{norange};
        access_log {tmp}/norange.log ranges;
        root {www};
        max_ranges 0;
    }}
    server {{
        listen 127.0.0.1:{tls} ssl;
        access_log {tmp}/tls.log ranges;
        ssl_certificate {tmp}/cert.pem;
        ssl_certificate_key {tmp}/key.pem;
        root {www};
    }}
}}
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def available():
    return os.path.exists(NGINX)


class Nginx:
    def __init__(self, www, tmp):
        self.www, self.tmp = www, tmp
        self.ports = {"plain": free_port(), "norange": free_port(), "tls": free_port()}
        self.proc = None

    def start(self):
        subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days",
                        "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                        "-keyout", os.path.join(self.tmp, "key.pem"), "-out",
                        os.path.join(self.tmp, "cert.pem")], check=True, capture_output=True)
        conf = os.path.join(self.tmp, "nginx.conf")
        with open(conf, "w") as f:
            # as root, nginx's workers would run as www-data, which cannot
            # read a private temporary folder
            f.write(CONF.format(tmp=self.tmp, www=self.www,
                                user="user root;" if os.geteuid() == 0 else "", **self.ports))
        self.proc = subprocess.Popen([NGINX, "-p", self.tmp, "-c", conf],
                                     stderr=subprocess.PIPE)
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", self.ports["plain"]), 0.1).close()
                return self
            except OSError:
                if self.proc.poll() is not None:
                    raise RuntimeError("nginx failed: " + self.proc.stderr.read().decode())
                time.sleep(0.05)
        raise RuntimeError("nginx did not start")

    def stop(self):
        if self.proc:
            self.proc.terminate()
            self.proc.wait(10)

    def url(self, name="plain"):
        scheme = "https" if name == "tls" else "http"
        return "%s://127.0.0.1:%d" % (scheme, self.ports[name])

    def cert(self):
        return os.path.join(self.tmp, "cert.pem")

    def log(self, name="plain"):
        try:
            with open(os.path.join(self.tmp, name + ".log")) as f:
                return [l.split() for l in f.read().splitlines() if l.strip()]
        except FileNotFoundError:
            return []

    def truncate(self, name="plain"):
        open(os.path.join(self.tmp, name + ".log"), "w").close()
