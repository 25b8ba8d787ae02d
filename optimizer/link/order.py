#!/usr/bin/env python3
"""Regenerates optimizer/link/sky.order: the functions the warm commands run,
which the link of `sky` places first in .text (see link_args.rs).

Builds the release `sky` with a linker map, runs the warm commands below under
valgrind's callgrind (`--dump-instr=yes`: every instruction executed), maps the
executed addresses to the input sections the map names, and writes their
symbols in their current order. Needs cargo, valgrind and python3; runs
offline (bundled catalogs, a local stand-in for STS that answers the warm-up).

    python3 optimizer/link/order.py

`--check` only builds with the map and counts the listed names the binary no
longer has: exit 2 (a precondition of the bench recipes, not a regression)
when more than MAX_MISSING are gone. rustc names a function it makes global
for inlining across its codegen units `<symbol>.llvm.<hash of the unit>`,
and a unit mixes several modules: one edit of `kubeconfig.rs`, none of whose
functions the list names, left 49 of its 1,295 names unmatched (46 renamed)
and the warm 7-cloud launch's peak RSS 5.0 -> 6.0 MiB against the baseline
(4.6 MiB once regenerated). So regenerate after any change to the
`optimizer` crate, its dependencies or its features; the check catches what
was missed. It sees renamed and removed names only, not functions that
became hot since the list was made. Where `link_args.rs` does not order the
link (another target, `SKY_LINK_PLAIN`) it checks nothing.

    python3 optimizer/link/order.py --check
"""

import bisect
import http.server
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "optimizer/link/sky.order"

SEVEN = "aws,azure,cudo,gcp,lambda,paperspace,runpod"
CATALOG_CLOUDS = (
    "aws,azure,cudo,do,fluidstack,gcp,hyperbolic,ibm,lambda,mithril,nebius,oci,"
    "paperspace,primeintellect,runpod,scp,seeweb,shadeform,vast,verda,vsphere,yotta"
)
# (enabled clouds, words): the warm rows of benches/src/process/mod.rs.
RUNS = [
    (SEVEN, ["launch", "--dryrun", "-y", "-c", "c", "--gpus", "H100:8"]),
    (CATALOG_CLOUDS, ["launch", "--dryrun", "-y", "-c", "c", "--gpus", "H100:8"]),
    (CATALOG_CLOUDS, ["offers", "--gpus", "H100"]),
    (SEVEN, ["gpus", "list", "--all"]),
]

# The harness sandbox's credential files (harness/src/sandbox.rs).
CREDENTIALS = {
    ".config/gcloud/application_default_credentials.json": '{"type": "authorized_user", "client_id": "mock", "client_secret": "mock", "refresh_token": "mock"}\n',
    ".azure/azureProfile.json": '{"subscriptions": [{"id": "00000000-0000-0000-0000-000000000000", "name": "mock", "isDefault": true}]}\n',
    ".lambda_cloud/lambda_keys": "api_key = mock\n",
    ".runpod/config.toml": '[default]\napi_key = "mock"\n',
    ".paperspace/config.json": '{"apiKey": "mock"}\n',
    ".config/cudo/cudo.yml": "keys:\n- name: mock\n  key: mock\n",
}

IDENTITY = (
    b'<GetCallerIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">'
    b"<GetCallerIdentityResult><Arn>arn:aws:iam::123456789012:user/mock</Arn>"
    b"<UserId>AIDAMOCKUSER</UserId><Account>123456789012</Account>"
    b"</GetCallerIdentityResult><ResponseMetadata><RequestId>0</RequestId>"
    b"</ResponseMetadata></GetCallerIdentityResponse>"
)


class Sts(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get("content-length", 0)))
        self.send_response(200)
        self.send_header("content-type", "text/xml")
        self.send_header("content-length", str(len(IDENTITY)))
        self.end_headers()
        self.wfile.write(IDENTITY)

    def log_message(self, *args):
        pass


def text_sections(map_path):
    """(start, size, symbol) of every `.text.<symbol>` input section."""
    line = re.compile(
        r"^\s*([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+\d+\s+\S.*?:\(\.text\.([^)]+)\)\s*$"
    )
    sections = []
    with open(map_path) as f:
        for text in f:
            m = line.match(text)
            if m and int(m.group(2), 16):
                symbol = re.sub(r"^(unlikely|hot|startup|exit)\.", "", m.group(3))
                sections.append((int(m.group(1), 16), int(m.group(2), 16), symbol))
    sections.sort()
    return sections


def executed(callgrind_out, binary_name):
    """Addresses executed in `binary_name` (callgrind `--dump-instr=yes`)."""
    addresses = set()
    inside = False
    with open(callgrind_out) as f:
        for text in f:
            if text.startswith("ob="):
                inside = text.strip().endswith("/" + binary_name)
            elif inside and text.startswith("0x"):
                addresses.add(int(text.split(" ", 1)[0], 16))
    return addresses


# How many listed names may be missing before --check fails. Each costs the
# warm launch up to a 64 kB fault-around window of .text (the 49 above cost
# 1.4 MiB of peak RSS, ~29 kB each); five stay well inside the gate's 10 %.
MAX_MISSING = 5


def build_with_map(map_path):
    """Builds the release `sky` (target/release/sky) with a linker map; exits
    2 when the build fails (cargo has said why)."""
    built = subprocess.run(
        ["cargo", "rustc", "--release", "-p", "optimizer", "--bin", "sky", "--",
         "-C", f"link-arg=-Wl,-Map={map_path}"],
        cwd=ROOT,
    )
    if built.returncode != 0:
        sys.exit(2)


def ordered_here():
    """Whether link_args.rs orders this host's link: x86_64 Linux with glibc
    (rustc's lld), and no SKY_LINK_PLAIN."""
    host = subprocess.run(["rustc", "-vV"], capture_output=True, text=True, check=True).stdout
    triple = next((l.split(": ", 1)[1] for l in host.splitlines() if l.startswith("host: ")), "")
    return triple == "x86_64-unknown-linux-gnu" and not os.environ.get("SKY_LINK_PLAIN")


def check():
    """Exits 2 when the list names more than MAX_MISSING functions the
    release binary lacks."""
    if not ordered_here():
        print(f"{OUT}: not checked: this host's link of `sky` is not ordered "
              "(see link_args.rs)", file=sys.stderr)
        return
    listed = list(dict.fromkeys(s for s in OUT.read_text().splitlines() if s))
    with tempfile.TemporaryDirectory(prefix="sky-order-") as tmp:
        map_path = Path(tmp) / "sky.map"
        build_with_map(map_path)
        present = {symbol for _, _, symbol in text_sections(map_path)}
    if not present:
        print("the linker map has no `.text.<symbol>` input sections (not lld's map "
              "format?): cannot check the link order", file=sys.stderr)
        sys.exit(2)
    missing = [s for s in listed if s not in present]
    print(f"{OUT}: {len(missing)} of {len(listed)} functions not in the binary "
          f"(at most {MAX_MISSING})", file=sys.stderr)
    if len(missing) > MAX_MISSING:
        for name in missing[:5]:
            print(f"  not in the binary: {name}", file=sys.stderr)
        print("the link order is stale: regenerate it with `just link-order` "
              "and commit optimizer/link/sky.order", file=sys.stderr)
        sys.exit(2)


def main():
    if sys.argv[1:] == ["--check"]:
        return check()
    if sys.argv[1:]:
        print(f"usage: {sys.argv[0]} [--check]", file=sys.stderr)
        sys.exit(2)
    if not ordered_here():
        print("this host's link of `sky` is not ordered (see link_args.rs): "
              "regenerate the list on x86_64 Linux with glibc", file=sys.stderr)
        sys.exit(2)
    tmp = Path(tempfile.mkdtemp(prefix="sky-order-"))
    try:
        map_path = tmp / "sky.map"
        build_with_map(map_path)
        binary = tmp / "sky"
        shutil.copy(ROOT / "target/release/sky", binary)
        home = tmp / "home"
        for rel, body in CREDENTIALS.items():
            (home / rel).parent.mkdir(parents=True, exist_ok=True)
            (home / rel).write_text(body)
        server = http.server.HTTPServer(("127.0.0.1", 0), Sts)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        sections = text_sections(map_path)
        starts = [s for s, _, _ in sections]
        hot = set()
        for i, (clouds, words) in enumerate(RUNS):
            env = {
                "PATH": "/usr/bin:/bin",
                "HOME": str(home),
                "SKY_STATE_DIR": str(tmp / "state"),
                "SKY_ENABLED_CLOUDS": clouds,
                "SKY_BUNDLED_CATALOGS": "1",
                "NO_COLOR": "1",
                "AWS_EC2_METADATA_DISABLED": "true",
                "AWS_ENDPOINT_URL_STS": f"http://127.0.0.1:{server.server_port}",
                "AWS_ACCESS_KEY_ID": "AKIDMOCKEXAMPLE",
                "AWS_SECRET_ACCESS_KEY": "mock/secret/key/EXAMPLEKEY",
                "AWS_REGION": "us-east-1",
            }
            quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
            # Warms the caches: the first run parses and stores the images,
            # the second packs the bundled ones (catalogs/pack.rs), so the
            # profiled run is the steady warm launch users repeat.
            for _ in range(2):
                subprocess.run([str(binary), *words], env=env, **quiet)
            out = tmp / f"callgrind.{i}"
            subprocess.run(
                ["valgrind", "--tool=callgrind", "--dump-instr=yes", "--compress-pos=no",
                 "--compress-strings=no", f"--callgrind-out-file={out}", str(binary), *words],
                env=env, check=True, **quiet,
            )
            for address in executed(out, binary.name):
                k = bisect.bisect_right(starts, address) - 1
                if k >= 0 and address < sections[k][0] + sections[k][1]:
                    hot.add(k)
        server.shutdown()
        symbols = list(dict.fromkeys(sections[k][2] for k in sorted(hot)))
        size = sum(sections[k][1] for k in hot)
        OUT.write_text("".join(f"{s}\n" for s in symbols))
        print(f"{OUT}: {len(symbols)} functions, {size} bytes of .text", file=sys.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
