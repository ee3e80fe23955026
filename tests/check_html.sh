#!/bin/sh
# SPDX-License-Identifier: MIT
# check_html.sh — output.html, the player (README "Player"), opened in a real browser:
# headless Chromium runs each page's script and dumps the DOM. For the Q_4 successive
# broadcasts, the interleaved ones under the queue policy (delays), a ring allreduce, a
# Seidel broadcast on a mesh (circuit routing), MAX on the bus (hm_out, logs), the example
# plugin built here, and a free-running run: every node's data-stored equals its stores
# at slots <= T in the event log of the same run, at several slots (the page's probe
# hook) and after the controls were pressed (step forward, step back, next conflict,
# next event of a node: the slot reached is the log's); no script error; the free run's
# page says its slots are logical clocks. The Q_8 successive page is at most 10 MB and
# opens in under 5 s; hypemu refuses a page beyond the event limit (exit 4, the message
# naming the limit and output.otf2/output.trace) and writes no file; the output budget
# counts the page to the byte but for its title; output.html that is no file name or
# another output's file is a config error (exit 2); a screenshot of the Q_4 page is a
# 1400 x 900 picture that is not blank. What each node holds (hm_show, data-held) follows
# its closed form (Q_4 recursive doubling 2^t, the ring allgather t+1); the bus shows
# P1..P8, their values and the running maximum; the linear gather's root and the chain
# broadcast hold what has come so far; payloads are on the labels and in the
# events panel; what each node knows (data-knows) follows the same closed forms, and so do
# the rows of the "who knows whom" matrix (a root's row one cell); the trail of the SBT
# broadcast on Q_3 is a spanning tree from its root. The machine view and the space-time view are measured in Chromium at every slot of eleven runs (below; Q_5 drawn with its links, Q_6 and
# larger as heat maps), with the controls on one row of a 1024 px window and the link use
# per slot equal to the log's (the binomial broadcast on Q_4: 2^k of 32 links in slot k);
# a free-clock page shows its payloads as the slotted run's.
# Skipped (77) where Chromium is missing (setup.sh installs Debian's chromium).
set -eu
: "${HM_SRCDIR:?}" "${HM_BUILDDIR:?}"
browser=""
for c in ${CHROMIUM:-} chromium chromium-browser google-chrome; do
    if command -v "$c" >/dev/null 2>&1; then
        browser=$c
        break
    fi
done
if [ -z "$browser" ]; then
    echo "SKIP: no chromium to open the player in (setup.sh installs Debian's chromium)"
    exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin="$HM_BUILDDIR/hypemu"
cfgs="$HM_SRCDIR/configs"
# The configs' own outputs (timelines, traces) land here, not in the build directory.
cd "$tmp"
fail() {
    echo "FAIL: $*" >&2
    exit 1
}
# Chromium's sandbox refuses to start as root.
sandbox=""
[ "$(id -u)" != 0 ] || sandbox=--no-sandbox

# page NAME CONFIG [--set ...]: NAME.html and NAME.jsonl from one run (exit 0 or 1).
page() {
    name=$1 cfg=$2
    shift 2
    rc=0
    "$bin" --quiet --set output.html="$tmp/$name.html" --set output.events="$tmp/$name.jsonl" \
        "$@" "$cfg" >"$tmp/$name.out" 2>"$tmp/$name.err" || rc=$?
    [ "$rc" -le 1 ] || fail "$name: exit $rc: $(cat "$tmp/$name.err")"
}
# open NAME HASH: the DOM of NAME.html#HASH once its script ran, in NAME.HASH.dom; in the
# background (two browsers at a time, each its own profile), then `wait`.
opened=0
open_page() {
    opened=$((opened + 1))
    timeout 120 "$browser" --headless $sandbox --disable-gpu --user-data-dir="$tmp/profile$opened" \
        --virtual-time-budget=2000 --dump-dom "file://$tmp/$1.html#$2" >"$tmp/$1.$2.dom" \
        2>"$tmp/browser$opened.err" &
    [ $((opened % 2)) = 1 ] || wait
}
page q4 "$cfgs/q4_successive.json"
page queue "$cfgs/q4_successive_interleaved_queue.json"
page allreduce "$cfgs/q4_allreduce_ring.json"
page mesh "$cfgs/mesh_st.json"
page bus "$cfgs/bus_max.json"
page free "$cfgs/q4_sbt_broadcast.json" --set clock.mode=free
page q8 "$cfgs/q4_successive.json" --set topology.dim=8
page allgather "$cfgs/q4_allgather_recursive_doubling.json"
page ringag "$cfgs/q4_allgather_recursive_doubling.json" --set algorithm.name=allgather-ring
page gather "$cfgs/q4_allgather_recursive_doubling.json" --set algorithm.name=gather-linear \
    --set algorithm.block=2
page chain "$cfgs/q4_allgather_recursive_doubling.json" --set algorithm.name=bcast-chain \
    --set algorithm.block=4
# The example plugin (README "Writing node programs outside the tree"), built against the
# source tree's header: hypemu itself provides the API's symbols.
cp "$HM_SRCDIR/examples/plugin/flood.c" "$HM_SRCDIR/examples/plugin/flood.json" "$tmp/"
${CC:-cc} -shared -fPIC -I"$HM_SRCDIR/include" -I"$HM_BUILDDIR/include" -o "$tmp/flood.so" "$tmp/flood.c" ||
    fail "cannot build examples/plugin/flood.c"
page plugin "$tmp/flood.json"

open_page q4 'probe=0,1,5,16,33,34&slot=5&step=2'
open_page queue 'probe=0,4,8,40&next=conflict'
open_page allreduce 'probe=0,29,30&slot=31&step=-2'
open_page mesh 'probe=0,651,652,799,800&slot=650&step=2'
open_page bus 'probe=0,7,8&slot=4'
open_page plugin 'probe=0,1,2,3,4&slot=1&node=3&next=node'
open_page free 'probe=0,1,2,3,4&slot=1&step=2'
open_page q8 'probe=0,100,517&slot=300&step=1'
open_page allgather 'probe=0,1,2,3,4,5&slot=3&step=1'
open_page ringag 'probe=0,1,2,3,5,8,14,15&slot=14&step=1'
open_page gather 'probe=0,1,2,7,14,15'
open_page chain 'probe=0,1,2,3,4,8,15,18'
wait

# The machine view, measured in Chromium at every slot (README "Player", doc/pictures.md):
# a copy of the page runs this script after the player; it steps the slider over every
# slot and writes, in <pre id="measure">, the label-on-node overlaps (the bounding box of
# every text outside a <g data-vertex> against every node's circle), the links drawn
# through a node other than their ends, the packet arrows whose end is not on the
# receiver's circle edge, where the machine and memory panels end in a 1024x768 window,
# then per slot: overlaps, "in flight" count, conflict marks, packets drawn (from>to:msg).
cat >"$tmp/measure.js" <<'JS'
(function () {
    var svg = document.querySelector('svg[data-view="machine"]');
    var circles = [].map.call(svg.querySelectorAll('g[data-vertex] circle'), function (c) {
        return [Number(c.getAttribute('cx')), Number(c.getAttribute('cy')), Number(c.getAttribute('r'))];
    });
    function hits(b, c, slack) {
        var qx = Math.max(b.x, Math.min(c[0], b.x + b.width)) - c[0];
        var qy = Math.max(b.y, Math.min(c[1], b.y + b.height)) - c[1];
        return qx * qx + qy * qy < (c[2] - slack) * (c[2] - slack);
    }
    /* Links that pass through a node other than their ends. */
    var through = 0;
    [].forEach.call(svg.querySelectorAll('.link'), function (l) {
        var len = l.getTotalLength(), p0 = l.getPointAtLength(0), p1 = l.getPointAtLength(len);
        for (var s = 0; s <= len; s += 1.5) {
            var p = l.getPointAtLength(s);
            circles.forEach(function (c) {
                var d0 = Math.hypot(c[0] - p0.x, c[1] - p0.y), d1 = Math.hypot(c[0] - p1.x, c[1] - p1.y);
                if (d0 > c[2] + 2 && d1 > c[2] + 2 && Math.hypot(c[0] - p.x, c[1] - p.y) < c[2] - 0.5)
                    through++;
            });
        }
    });
    var slider = document.getElementById('slider'), last = Number(slider.max), out = [];
    var overlaps = 0, arrows = 0, badArrows = 0, labelsShown = 0, barWraps = 0, barHeight = 0;
    var bar = document.getElementById('controls'), first = document.getElementById('first');
    for (var t = 0; t <= last; t++) {
        slider.value = t;
        slider.dispatchEvent(new Event('input'));
        /* The controls on one row: nothing shown starts below the first button's bottom. */
        var fb = first.getBoundingClientRect().bottom;
        [].forEach.call(bar.children, function (c) {
            var r = c.getBoundingClientRect();
            if (r.height > 0 && r.top >= fb)
                barWraps++;
        });
        barHeight = Math.max(barHeight, bar.getBoundingClientRect().height);
        var texts = [].filter.call(svg.querySelectorAll('text'), function (x) {
            return !x.closest('g[data-vertex]');
        });
        var o = 0;
        texts.forEach(function (x) {
            var b = x.getBBox();
            labelsShown++;
            circles.forEach(function (c) {
                if (hits(b, c, 0))
                    o++;
            });
        });
        overlaps += o;
        var pk = [].map.call(svg.querySelectorAll('.pkt'), function (p) {
            if (p.hasAttribute('data-to')) {
                var e = p.getPointAtLength(p.getTotalLength()), c = circles[Number(p.getAttribute('data-to'))];
                var d = Math.hypot(e.x - c[0], e.y - c[1]);
                arrows++;
                if (d < c[2] - 0.5 || d > c[2] + 1.5)
                    badArrows++;
            }
            return (p.getAttribute('data-from') + '>' + (p.getAttribute('data-to') || 'bus') + ':' +
                    p.getAttribute('data-msg'));
        }).sort();
        var bad = svg.querySelectorAll('.bad'), links = [].map.call(bad, function (b) {
            return b.getAttribute('data-links').replace(/ /g, ',');
        });
        out.push(t + ' ' + o + ' ' + document.getElementById('slotlabel').getAttribute('data-inflight') +
                 ' ' + bad.length + ' ' + (pk.join(',') || '-') + ' ' + (links.join(';') || '-'));
    }
    var main = document.getElementById('topo').closest('.panel').getBoundingClientRect();
    var mem = document.getElementById('mem').closest('.panel').getBoundingClientRect();
    var pre = document.createElement('pre');
    pre.id = 'measure';
    pre.textContent = JSON.stringify({overlaps: overlaps, through: through, arrows: arrows,
        badArrows: badArrows, labels: labelsShown, machineBottom: main.bottom, memBottom: mem.bottom,
        barWraps: barWraps, barHeight: barHeight, buttonHeight: first.getBoundingClientRect().height,
        memRight: mem.right, innerHeight: innerHeight, innerWidth: innerWidth}) + '\n' + out.join('\n');
    /* The space-time view: its window of slots, zoomed in, then all; its pixels per CSS
     * pixel; the slot "next active" leads to from slot 0. */
    var st = document.getElementById('st'), views = [st.getAttribute('data-view')];
    document.getElementById('zoomin').click();
    views.push(st.getAttribute('data-view'));
    document.getElementById('zoomall').click();
    views.push(st.getAttribute('data-view'));
    slider.value = 0;
    slider.dispatchEvent(new Event('input'));
    document.getElementById('nextactive').click();
    var mat = document.getElementById('matrix');
    pre.textContent = JSON.stringify({views: views, rows: st.getAttribute('data-rows'),
        matrix: mat ? Number(mat.getAttribute('data-packets')) : null,
        density: st.width / parseFloat(st.style.width), dpr: devicePixelRatio,
        active: Number(document.body.getAttribute('data-slot'))}) + '\n' + pre.textContent;
    document.body.appendChild(pre);
    /* The address keeps the slot once stepping pauses. */
    setTimeout(function () {
        document.body.setAttribute('data-hash', location.hash);
    }, 600);
})();
JS
measure() {
    python3 - "$tmp/$1.html" "$tmp/measure.js" "$tmp/$1.m.html" <<'PY'
import sys
page, script = open(sys.argv[1]).read(), open(sys.argv[2]).read()
i = page.rindex("</body>")
open(sys.argv[3], "w").write(page[:i] + "<script>\n" + script + "</script>\n" + page[i:])
PY
    opened=$((opened + 1))
    timeout 120 "$browser" --headless $sandbox --disable-gpu --user-data-dir="$tmp/profile$opened" \
        --virtual-time-budget=2000 --window-size=1024,768 --force-device-scale-factor=2 \
        --dump-dom "file://$tmp/$1.m.html" \
        >"$tmp/$1.measure" 2>"$tmp/browser$opened.err" &
    [ $((opened % 2)) = 1 ] || wait
}
page sbt3 "$cfgs/q4_sbt_broadcast.json" --set topology.dim=3
page ring8 "$cfgs/ring7_allreduce_ring.json" --set topology.nodes=8
page mesh4 "$cfgs/mesh_st.json" --set topology.cols=4
page sbt9 "$cfgs/q4_sbt_broadcast.json" --set topology.dim=9
page q5 "$cfgs/q4_successive.json" --set topology.dim=5
page q6 "$cfgs/q4_successive.json" --set topology.dim=6
for name in q4 sbt3 ring8 mesh4 bus allgather queue q8 sbt9 q5 q6; do
    measure $name
done
wait
python3 - "$tmp" <<'PY'
import html, json, re, sys

tmp = sys.argv[1]
def fail(msg):
    sys.exit("FAIL: " + msg)

def attrs(dom, tag_re):
    return [dict(re.findall(r'([a-z-]+)="([^"]*)"', m)) for m in re.findall(tag_re, dom)]

for name in ("q4", "sbt3", "ring8", "mesh4", "bus", "allgather", "queue", "q8", "sbt9", "q5", "q6"):
    dom = open("%s/%s.measure" % (tmp, name)).read()
    m = re.search(r'<pre id="measure">([^<]*)</pre>', dom)
    if not m:
        fail("%s: the measure script wrote nothing: %s" % (name, dom[-300:]))
    st, head, *slots = html.unescape(m.group(1)).split("\n")
    g, st = json.loads(head), json.loads(st)
    if g["overlaps"] or g["through"] or g["badArrows"]:
        fail("%s: %d label-on-node overlaps, %d link samples through nodes, %d of %d arrows "
             "not ending on the circle's edge" % (name, g["overlaps"], g["through"],
                                                  g["badArrows"], g["arrows"]))
    if max(g["machineBottom"], g["memBottom"]) > g["innerHeight"] or g["memRight"] > g["innerWidth"]:
        fail("%s: machine and memory end at %s and %s px, the window is %sx%s" % (
            name, g["machineBottom"], g["memBottom"], g["innerWidth"], g["innerHeight"]))
    # The controls stay on one row of the 1024 px window at every slot (README "Player").
    if g["barWraps"] or g["barHeight"] > g["buttonHeight"] + 16:
        fail("%s: the controls wrap at 1024 px: %d controls below the first row, the bar %s px "
             "high for buttons of %s px" % (name, g["barWraps"], g["barHeight"], g["buttonHeight"]))
    if ('data-hash="#slot=%d"' % st["active"]) not in dom:
        fail("%s: the address does not say the slot shown last: %s" % (
            name, re.search(r"<body[^>]*>", dom).group(0)))
    log = [json.loads(l) for l in open("%s/%s.jsonl" % (tmp, name))]
    # The space-time view: the run, half of it zoomed in (about the shown slot), the run
    # again; drawn at the screen's density (2 here); a heat map beyond 256 nodes; "next
    # active" from slot 0 reaches the log's next slot with an event.
    last, n0 = len(slots) - 1, len(slots)
    whole = "0..%d" % last
    lo, hi = map(int, st["views"][1].split(".."))
    if st["views"][0] != whole or st["views"][2] != whole or hi - lo + 1 > n0 // 2 + 2:
        fail("%s: space-time windows %s for slots 0..%d" % (name, st["views"], last))
    if st["density"] != 2 or st["dpr"] != 2 or st["rows"] != ("heat" if name == "sbt9" else "nodes"):
        fail("%s: space-time canvas %s" % (name, st))
    # The communication matrix (at most 64 nodes, not the bus) counts every packet received.
    recvs = sum(1 for e in log if e["event"] == "recv")
    if st["matrix"] != (recvs if len({e["node"] for e in log}) <= 64 and name != "bus" else None):
        fail("%s: the communication matrix counts %s packets, the log has %d" % (
            name, st["matrix"], recvs))
    active = min([e["slot"] for e in log if e["slot"] > 0] or [0])
    if st["active"] != active:
        fail("%s: next active from slot 0 went to %d, the log's is %d" % (name, st["active"], active))
    bus = name == "bus"
    want, bad = {}, {}
    for e in log:
        if e["event"] == "recv":
            u = e.get("slots", 1)
            for t in range(e["slot"] - u + 1, e["slot"] + 1):
                key = ("%d>bus:%d" % (e["from"], e["msg"]) if bus else
                       "%d>%d:%d" % (e["from"], e["node"], e["msg"]))
                want.setdefault(t, set()).add(key)
        elif e["event"] in ("conflict", "delay"):
            bad[e["slot"]] = 1
    for line in slots:
        t, over, fly, marks, pk, marked = line.split(" ")
        t, fly, marks = int(t), int(fly), int(marks)
        drawn = set() if pk == "-" else set(pk.split(","))
        if fly != len(want.get(t, ())):
            fail("%s: slot %d: %d in flight, the log has %d" % (name, t, fly, len(want.get(t, ()))))
        if name not in ("q8", "sbt9", "q6") and drawn != want.get(t, set()):
            fail("%s: slot %d: packets drawn %s, the log says %s" % (
                name, t, sorted(drawn), sorted(want.get(t, ()))))
        if name not in ("q8", "sbt9", "q6") and (marks > 0) != (t in bad):
            fail("%s: slot %d: %d conflict marks, the log %s" % (
                name, t, marks, "has a conflict or delay" if t in bad else "has none"))
    # Link use over time: per slot the links that carry a packet in either direction
    # (under circuit routing every link of its route, along the row first), from the log;
    # the chart's link count is the machine's, in closed form.
    src = open("%s/%s.html" % (tmp, name)).read()
    data = json.loads(re.search(r'<script id="hm-data" type="application/json">\n(.*?)\n</script>',
                                src, re.S).group(1))
    p, r, c, topo = data["nodes"], data["rows"], data["cols"], data["topology"]
    links = {"hypercube": data["dim"] << max(data["dim"] - 1, 0), "ring": p, "bus": 1,
             "mesh": r * (c - 1) + c * (r - 1)}[topo]
    def route(a, b):
        if not data["circuit"]:
            return [a, b]
        if topo != "mesh":
            fail("%s: no route for a circuit on %s" % (name, topo))
        path = [a]
        while path[-1] % c != b % c:
            path.append(path[-1] + (1 if b % c > path[-1] % c else -1))
        while path[-1] != b:
            path.append(path[-1] + (c if b > path[-1] else -c))
        return path
    used = {}
    for e in log:
        if e["event"] == "recv":
            path = [0, 1] if bus else route(e["from"], e["node"])
            for t in range(e["slot"] - e.get("slots", 1) + 1, e["slot"] + 1):
                used.setdefault(t, set()).update(
                    (min(x, y), max(x, y)) for x, y in zip(path, path[1:]))
    chart = attrs(dom, r'<svg id="linkuse"([^>]*)>')
    bars = {int(b["data-slot"]): int(b["data-links-used"])
            for b in attrs(dom, r'<rect class="lbar"([^>]*)>')}
    want_use = {t: len(used.get(t, ())) for t in range(len(slots))}
    if not chart or int(chart[0]["data-links"]) != links or bars != want_use:
        fail("%s: link use %s of %s links, the log says %s of %d" % (
            name, bars, chart and chart[0].get("data-links"), want_use, links))
    now = attrs(dom, r'<div id="linknow"([^>]*)>')[0]
    if int(now["data-slot"]) != st["active"] or int(now["data-links-used"]) != want_use[st["active"]]:
        fail("%s: the link-use mark says %s" % (name, now))
    print("%s: %d slots, %d labels and %d arrows: no overlap, every packet in the slot it "
          "crossed; at most %d of %d links used in a slot, as the log says" % (
              name, len(slots), g["labels"], g["arrows"], max(want_use.values()), links))
PY
# A conflict marks every link involved: at slot 4 node 7 cannot emit msg 2 on 7->6 while
# it receives msg 3 on 3->7 (shout): one mark covers both links.
grep -q '^4 .* \([^ ]*;\)\?\([^ ;]*,\)\?3&gt;7,7&gt;6\(,[^ ;]*\)\?\(;[^ ]*\)\?$' "$tmp/queue.measure" ||
    fail "queue: the delay at slot 4 does not mark both 3->7 and 7->6: $(grep '^4 ' "$tmp/queue.measure")"
# The queued packet: 7->6 msg 2 is delayed at slot 4 and crosses in slot 5.
grep -q '^4 .*13&gt;12:2' "$tmp/queue.measure" && ! grep -q '^4 .*7&gt;6:2' "$tmp/queue.measure" &&
    grep -q '^5 .*7&gt;6:2' "$tmp/queue.measure" || fail "queue: msg 2 on 7->6 not drawn in slot 5 only"

# A packet's payload: at slot 2 of the Q_4 allgather every packet carries 4 words (blocks
# of 1): the labels give the first two (or, where such a label finds no room off the
# nodes, none), the events panel the receipts with theirs.
timeout 120 "$browser" --headless $sandbox --disable-gpu --user-data-dir="$tmp/profile-pay" \
    --virtual-time-budget=2000 --dump-dom "file://$tmp/allgather.html#slot=2" >"$tmp/pay.txt" \
    2>"$tmp/browser-pay.err"
python3 - "$tmp/pay.txt" <<'PY'
import html, re, sys
dom = html.unescape(open(sys.argv[1]).read())
labels = re.findall(r'<text class="plabel"[^>]*>([^<]*)</text>', dom)
recvs = re.findall(r'node \d+ recv from \d+ msg 2 value 4 payload \[(-?\d+) (-?\d+) (-?\d+) (-?\d+)\]', dom)
full = [l for l in labels if re.fullmatch(r"m2=4 \[-?\d+ -?\d+ \u2026 4 words\]", l)]
if len(full) < 4 or any(l not in full and l != "m2=4" for l in labels) or len(recvs) != 16:
    sys.exit("FAIL: allgather slot 2: labels %s, %d receipts with their payload" % (labels, len(recvs)))
PY

# A payload under the free-running clock (clock.mode free): the ring allgather's receipts
# at slot 2 (the nodes' logical clocks) carry one word each, the words of the slotted run.
page ringfree "$cfgs/q4_allgather_recursive_doubling.json" --set algorithm.name=allgather-ring \
    --set clock.mode=free
for name in ringfree ringag; do
    timeout 120 "$browser" --headless $sandbox --disable-gpu --user-data-dir="$tmp/profile-$name" \
        --virtual-time-budget=2000 --dump-dom "file://$tmp/$name.html#slot=2" >"$tmp/$name.txt" \
        2>"$tmp/browser-$name.err"
done
python3 - "$tmp/ringfree.txt" "$tmp/ringag.txt" <<'PY'
import html, re, sys
def receipts(path):
    dom = html.unescape(open(path).read())
    return sorted(re.findall(r'node \d+ recv from \d+ msg 2 value 1 payload \[-?\d+\]', dom))
free, slotted = receipts(sys.argv[1]), receipts(sys.argv[2])
if len(free) != 16 or free != slotted:
    sys.exit("FAIL: ringfree slot 2: receipts with payloads %s, the slotted run's %s" % (free, slotted))
print("ringfree: the 16 receipts of slot 2 show their payloads, as in the slotted run")
PY

# Link use over time in closed form: the binomial broadcast on Q_4 uses 2^k of the 32
# links in slot k (k < 4), none after; the mark on the shown slot (2) says 4.
page bin4 "$cfgs/q4_broadcast_binomial.json"
timeout 120 "$browser" --headless $sandbox --disable-gpu --user-data-dir="$tmp/profile-bin4" \
    --virtual-time-budget=2000 --dump-dom "file://$tmp/bin4.html#slot=2" >"$tmp/bin4.txt" \
    2>"$tmp/browser-bin4.err"
python3 - "$tmp/bin4.txt" <<'PY'
import re, sys
dom = open(sys.argv[1]).read()
bars = [int(u) for u in re.findall(r'<rect class="lbar"[^>]*data-links-used="(\d+)"', dom)]
total = re.search(r'<svg id="linkuse"[^>]*data-links="(\d+)"', dom)
now = re.search(r'<div id="linknow"[^>]*data-links-used="(\d+)"', dom)
if (bars[:4] != [1, 2, 4, 8] or any(bars[4:]) or not total or total.group(1) != "32" or not now or
        now.group(1) != "4"):
    sys.exit("FAIL: bin4: links used per slot %s of %s, %s at slot 2" % (
        bars, total and total.group(1), now and now.group(1)))
print("bin4: links used per slot %s of 32" % bars)
PY

# The broadcast tree's trail (the "trail" control) on the SBT broadcast of Q_3 from node 5:
# at the last slot seven edges, one into each node but the root, along hypercube links,
# each a packet of the log that crossed before its receiver first learned something.
timeout 120 "$browser" --headless $sandbox --disable-gpu --user-data-dir="$tmp/profile-trail" \
    --virtual-time-budget=2000 --dump-dom "file://$tmp/sbt3.html#slot=3&trail=1" >"$tmp/trail.txt" \
    2>"$tmp/browser-trail.err"
python3 - "$tmp/trail.txt" "$tmp/sbt3.jsonl" <<'PY'
import html, json, re, sys
dom = html.unescape(open(sys.argv[1]).read())
m = re.search(r'<path class="trail"[^>]*data-edges="([^"]*)"', dom)
edges = [tuple(map(int, e.split(">"))) for e in (m.group(1).split() if m else [])]
sent = {(e["from"], e["node"]) for e in map(json.loads, open(sys.argv[2])) if e["event"] == "recv"}
if (sorted(b for a, b in edges) != [0, 1, 2, 3, 4, 6, 7] or
        any(bin(a ^ b).count("1") != 1 or (a, b) not in sent for a, b in edges)):
    sys.exit("FAIL: sbt3: the trail at slot 3 is %s" % edges)
print("sbt3: the trail is a spanning tree from node 5: %s" % edges)
PY

# Refused beyond the limit: an alltoall of 4,000-value blocks on Q_4 stores 16 x 16 x
# 4,000 values (1,024,128 events in all): exit 4, the message, no file.
rc=0
"$bin" --quiet --set algorithm.block=4000 --set output.html="$tmp/big.html" \
    "$cfgs/q4_alltoall_dimension_exchange.json" >/dev/null 2>"$tmp/big.err" || rc=$?
want="hypemu: $tmp/big.html: not written: the run has 1024128 events, more than the player's limit of 1000000 (README \"Player\"); for a run this big write output.otf2 (Vampir, ViTE) or output.trace (Perfetto) instead, or a smaller run"
[ "$rc" = 4 ] && [ "$(cat "$tmp/big.err")" = "$want" ] ||
    fail "over the limit: exit $rc, message $(cat "$tmp/big.err")"
for f in "$tmp"/big.html*; do
    [ ! -e "$f" ] || fail "over the limit: $f written"
done

# The output budget counts the page (README "Output budget"): to the byte but for the
# title, for which it keeps 4096 bytes; over the budget nothing is written (exit 4).
rc=0
"$bin" --quiet --set output.max_bytes=1000 --set output.html="$tmp/budget.html" \
    "$cfgs/bus_max.json" >/dev/null 2>"$tmp/budget.err" || rc=$?
est=$(sed -n 's/^  output.html (.*): about .* (\([0-9]*\) bytes)$/\1/p' "$tmp/budget.err")
size=$(wc -c <"$tmp/bus.html")
[ "$rc" = 4 ] && [ -n "$est" ] && [ ! -e "$tmp/budget.html" ] && [ "$size" -le "$est" ] &&
    [ "$size" -gt $((est - 4096)) ] ||
    fail "budget: exit $rc, estimate '$est' for a page of $size bytes: $(cat "$tmp/budget.err")"

# Config errors (exit 2): not a file name; the file another output writes.
q4cfg="$cfgs/q4_successive.json"
rc=0
msg=$("$bin" --set output.html=3 "$q4cfg" 2>&1) || rc=$?
[ "$rc" = 2 ] && [ "$msg" = "$q4cfg: output.html: found 3; allowed: a file name" ] ||
    fail "output.html=3: exit $rc, message $msg"
rc=0
msg=$(cd "$tmp" && "$bin" --set output.svg=x.out --set output.html=./x.out "$q4cfg" 2>&1) || rc=$?
[ "$rc" = 2 ] && [ "$msg" = "$q4cfg: output.html: found \"./x.out\", the same file as output.svg (\"x.out\"); allowed: a file no other output writes (devices such as /dev/null may be shared)" ] ||
    fail "output.html the same file as output.svg: exit $rc, message $msg"

# The screenshot: the size asked for, and a picture (ink on a good part of it, many colours).
timeout 120 "$browser" --headless $sandbox --disable-gpu --user-data-dir="$tmp/profile" \
    --virtual-time-budget=2000 --hide-scrollbars --window-size=1400,900 \
    --screenshot="$tmp/q4.png" "file://$tmp/q4.html#slot=9" >/dev/null 2>"$tmp/browser.err" ||
    fail "$browser could not take a screenshot: $(tail -n 3 "$tmp/browser.err")"
python3 - "$tmp/q4.png" <<'PY'
import struct, sys, zlib

def rows(path):
    """The PNG's rows of pixels (8-bit RGB or RGBA, not interlaced), unfiltered."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit("FAIL: %s is not a PNG" % path)
    pos, idat = 8, b""
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    bpp = {2: 3, 6: 4}[ctype]
    raw, stride, prev, out = zlib.decompress(idat), w * bpp, bytearray(w * bpp), []
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride) if f else ():
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            else:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        out.append(bytes(line))
        prev = line
    return w, h, bpp, out

w, h, bpp, px = rows(sys.argv[1])
ink = sum(1 for r in px for x in range(0, len(r), bpp) if r[x:x + 3] != b"\xff\xff\xff")
colours = len({r[x:x + 3] for r in px[::5] for x in range(0, len(r), 5 * bpp)})
if (w, h) != (1400, 900) or ink < 0.08 * w * h or colours < 50:
    sys.exit("FAIL: screenshot %dx%d, %.1f%% not white, %d colours: blank?" % (
        w, h, 100.0 * ink / (w * h), colours))
print("screenshot: %dx%d, %.1f%% not white, %d colours" % (w, h, 100.0 * ink / (w * h), colours))
PY

python3 - "$tmp" <<'PY'
import glob, json, os, re, sys

tmp = sys.argv[1]
def fail(msg):
    sys.exit("FAIL: " + msg)

def attrs(dom, tag_re):
    return [dict(re.findall(r'([a-z-]+)="([^"]*)"', m)) for m in re.findall(tag_re, dom)]

def stored_at(log, nodes, t):
    k = [0] * nodes
    for e in log:
        if e["event"] == "store" and e["slot"] <= t:
            k[e["node"]] += 1
    return k

def inv_gray(g):
    x = 0
    while g:
        x ^= g
        g >>= 1
    return x

checked = 0
for path in sorted(glob.glob(tmp + "/*.dom")):
    name, hash_ = os.path.basename(path)[:-4].split(".", 1)
    q = dict(kv.split("=") for kv in hash_.split("&"))
    dom = open(path).read()
    if "<body" not in dom:
        fail("%s#%s: the browser dumped no page (see its messages in %s/browser*.err)" % (
            name, hash_, tmp))
    log = [json.loads(l) for l in open("%s/%s.jsonl" % (tmp, name))]
    body = attrs(dom, r"<body([^>]*)>")[0]
    if body.get("data-errors") != "0" or body.get("data-ready") != "1":
        fail("%s#%s: errors %s, ready %s: %s" % (name, hash_, body.get("data-errors"),
                                                 body.get("data-ready"), body.get("data-error")))
    rows = attrs(dom, r'<div class="mem[^"]*"([^>]*)>')
    nodes = len(rows)
    if [int(r["data-node"]) for r in rows] != list(range(nodes)) or nodes < 9:
        fail("%s: rows %s" % (name, [r.get("data-node") for r in rows][:20]))
    slots = [e["slot"] for e in log]
    last = max(slots)
    slot = min(int(q.get("slot", 0)), last)
    # The slot the controls lead to, from the log.
    if "step" in q:
        slot = max(0, min(last, slot + int(q["step"])))
    if q.get("next") == "conflict":
        slot = min(e["slot"] for e in log if e["event"] in ("conflict", "delay") and e["slot"] > slot)
    if q.get("next") == "node":
        slot = min(e["slot"] for e in log if e["node"] == int(q["node"]) and e["slot"] > slot)
    if int(body["data-slot"]) != slot:
        fail("%s#%s: at slot %s, expected %d" % (name, hash_, body["data-slot"], slot))
    want = stored_at(log, nodes, slot)
    got = [int(r["data-stored"]) for r in rows]
    if got != want:
        fail("%s#%s: data-stored %s, the log says %s" % (name, hash_, got, want))
    if "step" in q and stored_at(log, nodes, int(q["slot"])) == want:
        fail("%s#%s: a step that changes nothing checks nothing" % (name, hash_))
    if "probe" in q:
        probe = re.search(r'<pre id="probe"[^>]*>([^<]*)</pre>', dom).group(1).split("\n")
        seen, held, knows, cells = {}, {}, {}, {}
        for line in probe:
            # On at most 64 nodes a sixth number: the cells filled in the
            # node's row of the "who knows whom" matrix.
            if len(line.split()) != (6 if nodes <= 64 else 5):
                fail("%s: a probe line without data-knows or matrix cells: %s" % (name, line))
            t, x, k, h, w, *c = map(int, line.split())
            seen.setdefault(t, [0] * nodes)[x] = k
            held.setdefault(t, [0] * nodes)[x] = h
            knows.setdefault(t, [0] * nodes)[x] = w
            cells.setdefault(t, [0] * nodes)[x] = c[0] if c else w
        for t in map(int, q["probe"].split(",")):
            t = min(t, last)
            if seen.get(t) != stored_at(log, nodes, t):
                fail("%s: slot %d: data-stored %s, the log says %s" % (name, t, seen.get(t),
                                                                     stored_at(log, nodes, t)))
            checked += 1
            # What each node holds (hm_show), in closed form: recursive doubling on Q_4
            # 2^t values at slot t, the ring one more each slot (block 1), up to 16.
            form = {"allgather": min(2 ** t, 16), "ringag": min(t + 1, 16)}.get(name)
            if form is not None and held[t] != [form] * nodes:
                fail("%s: slot %d: data-held %s, expected %d on every node" % (
                    name, t, held[t], form))
            # The linear gather's root (node 0, blocks of 2) holds the blocks that have
            # come, its own first: 2(t+1) values; the others the block they pass on. The
            # chain's node at position q of the Gray-code ring (q = the inverse Gray code
            # of its number) holds the values come so far, min(t-q+1, 4) (block 4).
            per = {"gather": [min(2 * (t + 1), 32)] + [2] * 15,
                   "chain": [4] + [min(max(t - inv_gray(x) + 1, 0), 4) for x in range(1, 16)]}
            if name in per and held[t] != per[name]:
                fail("%s: slot %d: data-held %s, expected %s" % (name, t, held[t], per[name]))
            # What each node knows (the causal past of the packets it read): the same
            # closed forms, counted up to the shown slot; a broadcast's root (node 5 of
            # the SBT run) hears from no one.
            if form is not None and knows[t] != [form] * nodes:
                fail("%s: slot %d: data-knows %s, expected %d on every node" % (
                    name, t, knows[t], form))
            if name == "free" and (knows[t][5] != 1 or cells[t][5] != 1):
                fail("free: slot %d: the root knows %d nodes, its matrix row has %d cells, "
                     "expected itself alone" % (t, knows[t][5], cells[t][5]))
            # Who knows whom: each row has as many cells as the node knows nodes (Q_4
            # recursive doubling: 2^t).
            if cells[t] != knows[t]:
                fail("%s: slot %d: matrix rows with %s cells, data-knows %s" % (
                    name, t, cells[t], knows[t]))
    if name == "free" and "logical clocks" not in dom:
        fail("free: the page does not say its slots are logical clocks")
    if name == "bus" and ('<div id="out">' not in dom or "P1 broadcasts" not in open(
            "%s/bus.html" % tmp).read()):
        fail("bus: no output area, or no log line")
    # The bus as the paper draws it: P1..P8 with their values (hm_show), and the output
    # processor's running maximum at slot 4: P1, P3 and P4 have spoken (25, 34, 45).
    held_text = re.findall(r'<text class="held"[^>]*>([^<]*)</text>', dom)
    if name == "bus" and held_text != ["25", "17", "34", "45", "12", "70", "83", "75", "45"]:
        fail("bus: the values drawn at slot 4 are %s" % held_text)
    vnames = re.findall(r'<text class="vlabel"[^>]*>([^<]*)</text>', dom)
    if name == "bus" and vnames != ["P%d" % i for i in range(1, 9)] + ["out"]:
        fail("bus: the processors are named %s" % vnames)
    if name == "q8":
        size = os.path.getsize(tmp + "/q8.html")
        if size > 10_000_000 or int(body["data-open-ms"]) >= 5000:
            fail("Q_8: %d bytes, opened in %s ms: expected at most 10 MB and 5 s" % (
                size, body["data-open-ms"]))
if len(glob.glob(tmp + "/*.dom")) != 12 or checked < 55:
    fail("%d pages, %d slots probed" % (len(glob.glob(tmp + "/*.dom")), checked))
print("%d pages, %d probed slots: every node's data-stored is the log's" % (
    len(glob.glob(tmp + "/*.dom")), checked))
PY
