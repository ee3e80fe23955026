#!/bin/sh
# SPDX-License-Identifier: MIT
# check_otf2.sh — output.otf2 (README "Outputs", doc/pictures.md) read back by the OTF2
# project's own reader, otf2-print: for every shipped config the archive holds exactly
# one MPI_SEND and one MPI_RECV per transmission of the summary, one ENTER and one
# LEAVE per busy period and per circuit of the event log, properly nested and in time
# order on every location; in slotted runs a mailbox-depth sample at every receipt; a
# second run into the same directory replaces the archive whole, with nothing left beside
# it; a target that is not such an archive is refused (exit 2) and left as it was, and a
# missing parent directory is not created (exit 4).
set -eu
if [ "${HM_HAVE_OTF2:-no}" != yes ]; then
    echo "SKIP: hypemu built without OTF2 (setup.sh installs libopen-trace-format2-dev)"
    exit 77
fi
if [ -z "${OTF2_PRINT:-}" ]; then
    echo "SKIP: otf2-print not installed (setup.sh installs otf2-tools)"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin="$HM_BUILDDIR/hypemu"
for cfg in "$HM_SRCDIR"/configs/*.json; do
    name=$(basename "$cfg" .json)
    rc=0
    (cd "$tmp" && "$bin" --json --set output.otf2="$tmp/$name.otf2" \
        --set output.events="$tmp/$name.jsonl" "$cfg" >"$tmp/$name.json" 2>/dev/null) || rc=$?
    [ "$rc" -le 1 ] || { echo "FAIL: $name exited $rc" >&2; exit 1; }
    "$OTF2_PRINT" "$tmp/$name.otf2/traces.otf2" >"$tmp/$name.print" ||
        { echo "FAIL: otf2-print cannot read $name.otf2" >&2; exit 1; }
done
# The same directory again, from another config: replaced whole.
(cd "$tmp" && "$bin" --set output.otf2="$tmp/q4_successive.otf2" \
    "$HM_SRCDIR/configs/q4_sbt_broadcast.json" >/dev/null)
"$OTF2_PRINT" "$tmp/q4_successive.otf2/traces.otf2" >"$tmp/replaced.print"
# Only an archive is replaced (README "Outputs"): a directory that is not one (a file of
# the user's in it), a regular file, a device, an archive with a file of the user's in it
# are refused with the config (exit 2, --validate too), and left as they were; a missing
# parent directory is not created (exit 4, as the other writers say it).
t="$tmp/targets"
mkdir -p "$t/dir" "$t/archive"
echo "mine" >"$t/dir/notes.txt"
echo "mine" >"$t/file"
cp -r "$tmp/q4_successive.otf2/." "$t/archive/"
echo "mine" >"$t/archive/notes.txt"
q4="$HM_SRCDIR/configs/q4_successive.json"
none="--set output.timeline=null --set output.trace=null --set output.events=null"
allowed="allowed: a path that does not exist yet, or an OTF2 archive written before (traces.otf2, traces.def and traces/ only), which the run replaces"
refused() { # refused TARGET WHAT: exit 2, this one line, for a run and for --validate
    for mode in run --validate; do
        [ "$mode" = run ] && mode=""
        rc=0
        # shellcheck disable=SC2086 # lists of options
        "$bin" $mode $none --set output.otf2="$1" "$q4" >"$t/out" 2>"$t/err" || rc=$?
        [ "$rc" = 2 ] || { echo "FAIL: output.otf2=$1 ${mode}: exit $rc, expected 2" >&2; exit 1; }
        [ "$(cat "$t/err")" = "$q4: output.otf2: found \"$1\", $2; $allowed" ] ||
            { echo "FAIL: output.otf2=$1 ${mode}: said '$(cat "$t/err")'" >&2; exit 1; }
    done
}
refused "$t/dir" "a directory that is not an OTF2 archive (no traces.otf2 in it)"
refused "$t/file" "a regular file"
refused /dev/null "a character device"
refused "$t/archive" "an OTF2 archive with \"notes.txt\" in it, which is not the archive's"
[ "$(cat "$t/dir/notes.txt" "$t/file" "$t/archive/notes.txt")" = "mine
mine
mine" ] && [ "$(ls "$t/dir")" = notes.txt ] && [ -f "$t/archive/traces.otf2" ] ||
    { echo "FAIL: a refused target was changed" >&2; exit 1; }
rc=0
# shellcheck disable=SC2086 # a list of options
"$bin" $none --set output.otf2="$t/none/x.otf2" "$q4" >/dev/null 2>"$t/err" || rc=$?
[ "$rc" = 4 ] && [ "$(cat "$t/err")" = "hypemu: cannot write $t/none/x.otf2: No such file or directory" ] &&
    [ ! -e "$t/none" ] ||
    { echo "FAIL: missing parent: exit $rc, said '$(cat "$t/err")'" >&2; exit 1; }
python3 - "$tmp" <<'PY'
import glob, json, os, re, sys

tmp = sys.argv[1]
def fail(msg):
    sys.exit("FAIL: " + msg)
def check(name, printed):
    summary = json.load(open("%s/%s.json" % (tmp, name)))
    events = [json.loads(l) for l in open("%s/%s.jsonl" % (tmp, name))]
    want_regions = sum(1 for e in events if e["event"] == "busy" or
                       (e["event"] == "send" and e.get("slots", 1) > 1))
    count = {"MPI_SEND": 0, "MPI_RECV": 0, "ENTER": 0, "LEAVE": 0}
    stack, last, recv_at, depth_at = {}, {}, set(), set()
    for line in open(printed):
        m = re.match(r"^(\w+)\s+(\d+)\s+(\d+)\s+(.*)$", line)
        if not m or m.group(1) not in count and m.group(1) != "METRIC":
            continue
        kind, loc, ts = m.group(1), int(m.group(2)), int(m.group(3))
        if ts < last.get(loc, 0):
            fail("%s: location %d goes back in time at %d" % (name, loc, ts))
        last[loc] = ts
        if kind in count:
            count[kind] += 1
        if kind == "MPI_RECV":
            recv_at.add((loc, ts))
        depth = re.search(r'"mailbox depth" <2>; UINT64; (\d+)', m.group(4))
        if depth:
            depth_at.add((loc, ts))
            if int(depth.group(1)) < 1:
                fail("%s: mailbox depth %s after a receipt" % (name, depth.group(1)))
        region = re.search(r'Region: "(\w+)"', m.group(4))
        if kind == "ENTER":
            stack.setdefault(loc, []).append(region.group(1))
        elif kind == "LEAVE":
            if not stack.get(loc) or stack[loc].pop() != region.group(1):
                fail("%s: location %d leaves %s out of order" % (name, loc, region.group(1)))
    # Slotted runs sample the receiver's mailbox depth at every receipt.
    if "free" not in summary and depth_at != recv_at:
        fail("%s: %d receipt ticks, %d mailbox depth samples" % (name, len(recv_at), len(depth_at)))
    t = summary["transmissions"]
    if count["MPI_SEND"] != t or count["MPI_RECV"] != t:
        fail("%s: %d sends, %d receives for %d transmissions" % (
            name, count["MPI_SEND"], count["MPI_RECV"], t))
    if count["ENTER"] != want_regions or count["LEAVE"] != want_regions:
        fail("%s: %d enters, %d leaves for %d busy periods and circuits" % (
            name, count["ENTER"], count["LEAVE"], want_regions))
    return count

total = 0
for printed in sorted(glob.glob(tmp + "/*.print")):
    name = os.path.basename(printed)[:-6]
    if name != "replaced":
        total += check(name, printed)["MPI_SEND"]
# q4_sbt_broadcast: a binomial tree on Q_4, 15 transmissions, replacing the 240 of the
# successive broadcasts.
sends = sum(1 for l in open(tmp + "/replaced.print") if l.startswith("MPI_SEND"))
left = [p for p in os.listdir(tmp) if ".tmp-" in p or ".old-" in p]
if sends != 15 or left:
    fail("replaced archive: %d sends (expected 15), left beside it: %s" % (sends, left))
print("%d archives read back, %d transmissions" % (len(glob.glob(tmp + "/*.print")) - 1, total))
PY
