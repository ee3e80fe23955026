/* SPDX-License-Identifier: MIT */
/* The hypemu player (README "Player"): plays the run embedded in #hm-data slot by slot.
 * Written once per page by out/html.c; no network, no library. The address's hash
 * (#slot=T&step=N&next=conflict|node&node=X&probe=T1,T2) opens the page at slot T and
 * then presses the controls, so that a test reads the state from the DOM. */
(function () {
    'use strict';
    var t0 = Date.now();
    var D = JSON.parse(document.getElementById('hm-data').textContent);
    var P = D.nodes;
    var KIND = ['send', 'recv', 'store', 'stall', 'delay', 'conflict', 'busy', 'log'];
    var SVGNS = 'http://www.w3.org/2000/svg';

    /* ---- the events, from the flat encoding (out/html.c) into columns ---- */
    function recordLength(kind) {
        return kind === 2 || kind === 6 || kind === 7 ? 3 : 7;
    }
    var raw = D.ev, n = 0, i, j;
    for (i = 0; i < raw.length; i += recordLength(raw[i] % 8))
        n++;
    var K = new Uint8Array(n), S = new Float64Array(n), N = new Int32Array(n);
    var R = new Int32Array(n), O = new Int32Array(n), M = new Int32Array(n);
    var U = new Float64Array(n), V = new Array(n), T = new Array(n);
    var slot = 0;
    for (i = 0, j = 0; j < n; j++) {
        var k = raw[i] % 8;
        slot += (raw[i] - k) / 8;
        K[j] = k, S[j] = slot, N[j] = raw[i + 1], R[j] = -1, O[j] = -1, U[j] = 1;
        if (k === 2) {
            V[j] = raw[i + 2];
        } else if (k === 6) {
            U[j] = raw[i + 2];
        } else if (k === 7) {
            T[j] = raw[i + 2];
        } else {
            R[j] = raw[i + 2], O[j] = raw[i + 3], M[j] = raw[i + 4], V[j] = raw[i + 5];
            if (k <= 1)
                U[j] = raw[i + 6];
            else if (raw[i + 6] !== 0)
                T[j] = raw[i + 6];
        }
        i += recordLength(k);
    }
    raw = D.ev = null;
    var last = Math.max(D.slots - 1, n ? S[n - 1] : 0, 0);

    /* Per node: the slots and values of its stores, and the slots of all its events. */
    var stSlot = [], stVal = [], evSlot = [], rcSlot = [], kmax = 0, bad = [], busy = [];
    var maxBusy = 1;
    var maxDur = 1;
    for (i = 0; i < P; i++)
        stSlot.push([]), stVal.push([]), evSlot.push([]), rcSlot.push([]);
    for (j = 0; j < n; j++) {
        var x = N[j];
        if (x < 0 || x >= P)
            continue;
        if (evSlot[x].length === 0 || evSlot[x][evSlot[x].length - 1] !== S[j])
            evSlot[x].push(S[j]);
        if (K[j] === 2)
            stSlot[x].push(S[j]), stVal[x].push(V[j]);
        else if (K[j] === 1)
            rcSlot[x].push(S[j]);
        else if (K[j] === 4 || K[j] === 5)
            bad.push(S[j]);
        else if (K[j] === 6)
            busy.push(j), maxBusy = Math.max(maxBusy, U[j]);
        else if (K[j] === 0)
            maxDur = Math.max(maxDur, U[j]);
    }
    for (i = 0; i < P; i++)
        kmax = Math.max(kmax, stSlot[i].length);
    var busyS = busy.map(function (q) {
        return S[q];
    }); /* busy periods are logged in slot order */

    /* First index of a (sorted) with a[i] >= v; upper: a[i] > v. */
    function lower(a, v) {
        var lo = 0, hi = a.length;
        while (lo < hi) {
            var mid = (lo + hi) >> 1;
            if (a[mid] < v)
                lo = mid + 1;
            else
                hi = mid;
        }
        return lo;
    }
    function upper(a, v) {
        return lower(a, v + 1);
    }
    function hue(key) {
        var h = Math.abs(Number(key) * 137.508) % 360;
        return 'hsl(' + h.toFixed(0) + ',70%,42%)';
    }
    function el(tag, attrs, text, ns) {
        var e = ns ? document.createElementNS(SVGNS, tag) : document.createElement(tag);
        for (var a in attrs)
            e.setAttribute(a, attrs[a]);
        if (text !== undefined)
            e.textContent = text;
        return e;
    }

    /* ---- the page ---- */
    var app = document.getElementById('app');
    var head = el('header');
    head.appendChild(el('h1', {}, D.title));
    var notes = P + ' nodes, ' + D.topology + ' topology, ' + D.ports + ' ports, ' +
        (D.circuit ? 'circuit' : 'packet') + ' routing; ' + n + ' events, slots 0..' + last + '.';
    if (D.clock === 'free')
        notes += ' clock.mode free: the slots shown are the nodes\' logical clocks (each ' +
            'node counts its own steps), not a global time.';
    else if (D.clock === 'local')
        notes += ' clock.mode local: per-node clocks with the slotted semantics; the slots ' +
            'are those of the slotted run.';
    head.appendChild(el('div', {'class': 'note'}, notes));
    if (D.end !== 'done')
        head.appendChild(el('div', {'class': 'note warn'}, 'The run stopped (' + D.end + ')' +
            (D.reason ? ': ' + D.reason : '')));
    app.appendChild(head);

    var bar = el('div', {id: 'controls'});
    function button(id, label, title) {
        var b = el('button', {id: id, title: title, type: 'button'}, label);
        bar.appendChild(b);
        return b;
    }
    var bFirst = button('first', '|\u25c0', 'first slot (Home)');
    var bBack = button('back', '\u25c1', 'one slot back (Left)');
    var bPlay = button('play', '\u25b6', 'play or pause (Space)');
    var bFwd = button('fwd', '\u25b7', 'one slot forward (Right)');
    var bLast = button('last', '\u25b6|', 'last slot (End)');
    var slider = el('input', {id: 'slider', type: 'range', min: 0, max: last, value: 0});
    bar.appendChild(slider);
    var label = el('span', {id: 'slotlabel'});
    bar.appendChild(label);
    var speed = el('select', {id: 'speed', title: 'slots per second (+ and -)'});
    [1, 2, 4, 8, 16, 32, 64].forEach(function (s) {
        var o = el('option', {value: s}, s + ' slots/s');
        if (s === 4)
            o.selected = true;
        speed.appendChild(o);
    });
    bar.appendChild(speed);
    var bBad = button('nextbad', 'next conflict', 'next slot with a conflict or delay (C)');
    bar.appendChild(el('span', {}, 'node'));
    var nodeIn = el('input', {id: 'node', type: 'number', min: 0, max: P - 1, value: 0});
    bar.appendChild(nodeIn);
    var bNode = button('nextnode', 'next event', 'next slot with an event of this node (N)');
    bar.appendChild(el('span', {'class': 'legend'},
                        'keys: Space, \u2190 \u2192, Home, End, C, N, + -'));
    app.appendChild(bar);

    var main = el('div', {id: 'main'});
    app.appendChild(main);
    function panel(title) {
        var p = el('div', {'class': 'panel'});
        p.appendChild(el('h2', {}, title));
        main.appendChild(p);
        return p;
    }
    var topoPanel = panel('The machine: the links used in this slot, with their packets');
    var stPanel = panel('Space-time diagram (click a slot)');
    var memPanel = panel('Each node\'s memory: the values it stored so far (hm_store), ' +
                         'and its log lines in this slot');
    var evPanel = panel('Events of this slot');

    /* ---- where the nodes are drawn ---- */
    function cubePos(x, d) {
        /* Even address bits along x, odd ones along y; each pair of dimensions 2.4
         * times as long as the pair below, the upper ones skewed (as output.svg). */
        var cx = 0, cy = 0, len = 1;
        for (var b = 0; b < d; b++) {
            if (b >= 2 && b % 2 === 0)
                len *= 2.4;
            var skew = b >= 2 ? 0.25 * len : 0;
            if ((x >> b) & 1) {
                cx += b % 2 ? skew : len;
                cy += b % 2 ? len : skew;
            }
        }
        return [cx, cy];
    }
    function place(x) {
        if (D.topology === 'hypercube') {
            if (D.dim <= 6)
                return cubePos(x, D.dim);
            /* Beyond Q_6: Q_6 sub-cubes side by side, the high bits pick the tile. */
            var tiles = 1 << Math.ceil((D.dim - 6) / 2), t = x >> 6, p = cubePos(x & 63, 6);
            return [p[0] + (t % tiles) * 13.5, p[1] + Math.floor(t / tiles) * 13.5];
        }
        if (D.topology === 'mesh' || D.topology === 'torus')
            return [x % D.cols, Math.floor(x / D.cols)];
        if (D.topology === 'ring') {
            var rad = Math.max(1.5, P / 6.2832), a = 6.2832 * x / P;
            return [rad + rad * Math.sin(a), rad - rad * Math.cos(a)];
        }
        if (D.topology === 'linear')
            return [x % 32, Math.floor(x / 32) * 1.5];
        return [x, 0]; /* the bus: the processors in a row above the channel */
    }
    var pos = [], maxX = 0, maxY = 0;
    for (i = 0; i < P; i++) {
        pos.push(place(i));
        maxX = Math.max(maxX, pos[i][0]), maxY = Math.max(maxY, pos[i][1]);
    }
    var cell = Math.max(8, Math.min(60, 600 / Math.max(maxX, 1)));
    var rad = Math.max(2.5, Math.min(10, cell * 0.3)), pad = 24;
    var bus = D.topology === 'bus';
    var W = maxX * cell + 2 * pad, H = (maxY + (bus ? 1.6 : 0)) * cell + 2 * pad;
    function px(x) {
        return pad + pos[x][0] * cell;
    }
    function py(x) {
        return pad + pos[x][1] * cell;
    }
    var svg = el('svg', {id: 'topo', viewBox: '0 0 ' + W.toFixed(0) + ' ' + H.toFixed(0)},
                 undefined, true);
    svg.style.maxHeight = '560px';
    var defs = el('defs', {}, undefined, true);
    var marker = el('marker', {id: 'arr', viewBox: '0 0 6 6', refX: 6, refY: 3,
                               markerWidth: 5, markerHeight: 5, orient: 'auto'}, undefined, true);
    marker.appendChild(el('path', {d: 'M0 0L6 3L0 6z', fill: '#222'}, undefined, true));
    defs.appendChild(marker);
    svg.appendChild(defs);
    var chanY = pad + 1.1 * cell;
    var chan = null;
    if (bus) {
        chan = el('rect', {'class': 'chan', x: pad - 10, y: chanY, width: maxX * cell + 20,
                           height: 8}, undefined, true);
        svg.appendChild(chan);
        for (i = 0; i < P; i++)
            svg.appendChild(el('line', {'class': 'link', x1: px(i), y1: py(i), x2: px(i),
                                        y2: chanY}, undefined, true));
    }
    function curve(a, b, cls) {
        /* A link between neighbours in the drawing is a line; a wrap-around or long
         * link bends, so that it passes no node. */
        var x1 = px(a), y1 = py(a), x2 = px(b), y2 = py(b);
        var dx = x2 - x1, dy = y2 - y1, len = Math.sqrt(dx * dx + dy * dy);
        if (len <= 1.5 * cell || D.topology === 'hypercube' || D.topology === 'ring')
            return el('line', {'class': cls, x1: x1, y1: y1, x2: x2, y2: y2}, undefined, true);
        var bend = 0.18 * len, cx = (x1 + x2) / 2 - dy / len * bend, cy = (y1 + y2) / 2 + dx / len * bend;
        return el('path', {'class': cls, d: 'M' + x1 + ' ' + y1 + 'Q' + cx + ' ' + cy + ' ' + x2 +
                           ' ' + y2}, undefined, true);
    }
    /* The idle links of a very large machine would drown it: past 20,000 only the
     * links of the slot are drawn. */
    var links = D.links.length <= 40000 ? D.links : [];
    for (i = 0; i + 1 < links.length; i += 2) {
        if (D.topology === 'hypercube' && D.dim > 6 && (links[i] ^ links[i + 1]) >= 64)
            continue; /* between sub-cubes: drawn only while a packet crosses it */
        svg.appendChild(curve(links[i], links[i + 1], 'link'));
    }
    var live = el('g', {}, undefined, true);
    svg.appendChild(live);
    var verts = [];
    for (i = 0; i < P; i++) {
        var c = el('circle', {'class': 'vertex', cx: px(i), cy: py(i), r: rad, 'data-v': i},
                   undefined, true);
        c.appendChild(el('title', {}, 'node ' + i, true));
        svg.appendChild(c);
        verts.push(c);
        if (rad >= 6)
            svg.appendChild(el('text', {'class': 'vlabel', x: px(i), y: py(i) + 3}, String(i), true));
    }
    var labels = el('g', {}, undefined, true);
    svg.appendChild(labels);
    topoPanel.appendChild(svg);
    var legend = el('div', {'class': 'legend'});
    legend.innerHTML = '<span><i class="sw" style="background:#225ea8"></i>packet (colour: ' +
        'message; label m<i>msg</i>=<i>value</i>)</span><span><i class="sw" ' +
        'style="background:#d00"></i>conflict or delay</span><span><i class="sw" ' +
        'style="background:#f08c00"></i>stall</span><span>green node: stored in this ' +
        'slot; grey: busy</span>';
    topoPanel.appendChild(legend);

    /* ---- the space-time diagram: one row a node, one column a slot ---- */
    var stW = 620, sx = Math.min(24, stW / (last + 1)), rh = Math.min(22, 540 / P);
    stW = Math.ceil(sx * (last + 1));
    var stH = Math.ceil(rh * P) + 4;
    var wrap = el('div', {id: 'stwrap'});
    var canvas = el('canvas', {id: 'st', width: stW, height: stH});
    var cursor = el('div', {id: 'cursor'});
    cursor.style.height = stH + 'px';
    cursor.style.width = Math.max(2, sx) + 'px';
    wrap.appendChild(canvas);
    wrap.appendChild(cursor);
    stPanel.appendChild(wrap);
    stPanel.appendChild(el('div', {'class': 'legend'}, 'rows: nodes 0..' + (P - 1) +
                           ', columns: slots 0..' + last + ' (' + (sx >= 1 ? sx.toFixed(1) +
                           ' px a slot' : (1 / sx).toFixed(1) + ' slots a pixel') + ')'));
    function drawSpaceTime() {
        var g = canvas.getContext('2d');
        g.fillStyle = '#fff';
        g.fillRect(0, 0, stW, stH);
        g.fillStyle = '#f3f3f3';
        for (var r = 0; r < P && rh >= 4; r += 2)
            g.fillRect(0, r * rh, stW, rh);
        g.lineWidth = 1;
        for (var e = 0; e < n; e++) {
            var k = K[e], x0 = S[e] * sx, y0 = (N[e] + 0.5) * rh;
            if (k === 0 && R[e] >= 0 && R[e] < P) {
                g.strokeStyle = hue(M[e]);
                g.beginPath();
                g.moveTo(x0 + 0.15 * sx, y0);
                g.lineTo((S[e] + U[e] - 0.15) * sx, (R[e] + 0.5) * rh);
                g.stroke();
            } else if (k === 2) {
                g.fillStyle = '#222';
                g.fillRect(x0 + sx / 2 - 1, y0 - 1, 2, 2);
            } else if (k === 6) {
                g.fillStyle = 'rgba(120,120,120,.45)';
                g.fillRect(x0, y0 - rh * 0.3, U[e] * sx, rh * 0.6);
            } else if (k >= 3 && k <= 5) {
                g.strokeStyle = k === 3 ? '#f08c00' : '#d00';
                g.strokeRect(x0, y0 - rh / 2, Math.max(sx, 2), rh);
            }
        }
    }
    canvas.addEventListener('click', function (ev) {
        var r = canvas.getBoundingClientRect();
        go(Math.floor((ev.clientX - r.left) * (canvas.width / r.width) / sx));
    });

    /* ---- memory: a row a node ---- */
    var memBox = el('div', {id: 'mem'});
    memPanel.appendChild(memBox);
    var useCells = kmax > 0 && kmax <= 64 && kmax * P <= 20000;
    memPanel.insertBefore(el('div', {'class': 'legend'}, kmax === 0 ? 'No node stored a value.' :
        (useCells ? 'A cell per value, in the order stored, coloured by value; a node ' +
         'holds up to ' + kmax + ' values; the outlined cells were stored in this slot.' :
         'The share of its values each node has stored (it stores up to ' + kmax +
         '), then the last value.')), memBox);
    var rows = [];
    function memRow(x) {
        var row = el('div', {'class': 'mem', 'data-node': x, 'data-stored': 0});
        row.appendChild(el('span', {'class': 'id'}, String(x)));
        var r = {el: row, k: -1, got: -1, cells: [], fill: null, count: null, log: null,
                 logText: ''};
        if (useCells) {
            var box = el('span', {'class': 'cells'});
            for (var c = 0; c < stSlot[x].length; c++) {
                var ce = el('span', {'class': 'cell empty'}, '\u00b7');
                box.appendChild(ce);
                r.cells.push(ce);
            }
            row.appendChild(box);
        } else {
            var b = el('span', {'class': 'bar'});
            r.fill = el('span', {'class': 'fill'});
            r.fill.style.display = 'block';
            b.appendChild(r.fill);
            row.appendChild(b);
        }
        r.count = el('span', {'class': 'count'});
        row.appendChild(r.count);
        r.log = el('span', {'class': 'log'});
        row.appendChild(r.log);
        row.addEventListener('click', function () {
            select(x);
        });
        memBox.appendChild(row);
        return r;
    }
    for (i = 0; i < P; i++)
        rows.push(memRow(i));
    function showMemory(x, t) {
        var r = rows[x], k = upper(stSlot[x], t), a = stSlot[x], got = upper(rcSlot[x], t);
        if (k !== r.k || got !== r.got) {
            r.el.setAttribute('data-stored', k);
            r.count.textContent = k + '/' + a.length + ' stored, ' + got + ' received';
            if (!useCells) {
                r.fill.style.width = (a.length ? 100 * k / kmax : 0).toFixed(1) + '%';
                r.count.textContent += k ? ' last ' + stVal[x][k - 1] : '';
            }
            r.k = k, r.got = got;
        }
        for (var c = 0; c < r.cells.length; c++) {
            var ce = r.cells[c], on = c < k, fresh = on && a[c] === t;
            var cls = on ? (fresh ? 'cell new' : 'cell') : 'cell empty';
            if (ce.className !== cls) {
                ce.className = cls;
                ce.textContent = on ? String(stVal[x][c]) : '\u00b7';
                ce.style.background = on ? hue(stVal[x][c]) : '';
                ce.title = on ? 'value ' + stVal[x][c] + ', stored in slot ' + a[c] : '';
            }
        }
    }
    if (D.out) {
        var outPanel = panel('Output areas (hm_out) as the run left them, 32-bit words');
        var lines = [];
        D.out.nodes.forEach(function (w, x) {
            if (w.length)
                lines.push('node ' + x + ': ' + w.join(' ') +
                           (D.out.words > 64 ? ' (first 64 of ' + D.out.words + ' words)' : ''));
        });
        outPanel.appendChild(el('div', {id: 'out'}, lines.length ? lines.join('\n') :
                                'every output area is zero'));
    }
    var evBox = el('div', {id: 'events'});
    evPanel.appendChild(evBox);

    /* ---- one slot ---- */
    function describe(e) {
        var k = K[e], s = 'slot ' + S[e] + ' node ' + N[e] + ' ' + KIND[k];
        if (k === 0)
            s += ' to ' + R[e] + (O[e] >= 0 ? ' port ' + O[e] : '') + ' msg ' + M[e] + ' value ' + V[e];
        else if (k === 1)
            s += ' from ' + R[e] + ' msg ' + M[e] + ' value ' + V[e];
        else if (k === 2)
            s += ' value ' + V[e];
        else if (k === 6)
            s += ' ' + U[e] + ' slots';
        else if (k !== 7)
            s += ' to ' + R[e] + ' msg ' + M[e];
        if (k <= 1 && U[e] > 1)
            s += ' (' + U[e] + ' slots)';
        if (T[e])
            s += ': ' + T[e];
        return s;
    }
    function packet(e, t, many) {
        var a = N[e], b = R[e], col = hue(M[e]), txt = 'm' + M[e] + '=' + V[e];
        if (bus) {
            var ln = el('line', {'class': 'pkt', x1: px(a), y1: py(a), x2: px(a), y2: chanY,
                                 stroke: col}, undefined, true);
            live.appendChild(ln);
            chan.setAttribute('class', 'chan on');
            labels.appendChild(el('text', {'class': 'plabel', x: px(a) + 4, y: chanY + 20},
                                  'P' + a + ' ' + txt, true));
            return;
        }
        if (b < 0 || b >= P)
            return;
        var l = curve(a, b, 'pkt');
        l.setAttribute('stroke', col);
        l.setAttribute('marker-end', 'url(#arr)');
        l.appendChild(el('title', {}, 'node ' + a + ' to node ' + b + ', msg ' + M[e] +
                         ', value ' + V[e] + (U[e] > 1 ? ', slots ' + S[e] + '..' +
                         (S[e] + U[e] - 1) : ''), true));
        live.appendChild(l);
        if (!many)
            labels.appendChild(el('text', {'class': 'plabel', x: px(a) + 0.6 * (px(b) - px(a)),
                                           y: py(a) + 0.6 * (py(b) - py(a)) - 3}, txt, true));
    }
    function mark(e) {
        if (R[e] < 0 || R[e] >= P)
            return;
        var l = curve(N[e], R[e], K[e] === 3 ? 'stall' : 'bad');
        l.appendChild(el('title', {}, describe(e), true));
        live.appendChild(l);
    }
    var cur = -1, playing = null, selected = -1;
    function render(t) {
        while (live.firstChild)
            live.removeChild(live.firstChild);
        while (labels.firstChild)
            labels.removeChild(labels.firstChild);
        if (chan)
            chan.setAttribute('class', 'chan');
        var from = lower(S, t - maxDur + 1), to = upper(S, t), inflight = 0, nbad = 0;
        var stored = {}, logs = {}, list = [];
        for (var e = from; e < to; e++)
            if (K[e] === 0 && S[e] + U[e] > t)
                inflight++;
        for (e = from; e < to; e++) {
            if (K[e] === 0 && S[e] + U[e] > t)
                packet(e, t, inflight > 64);
            if (S[e] !== t)
                continue;
            list.push(e);
            if (K[e] >= 3 && K[e] <= 5)
                mark(e), nbad += K[e] !== 3;
            else if (K[e] === 2)
                stored[N[e]] = 1;
            else if (K[e] === 7)
                logs[N[e]] = (logs[N[e]] ? logs[N[e]] + ' | ' : '') + T[e];
        }
        var busyNow = {};
        for (var b = lower(busyS, t - maxBusy + 1); b < busy.length && busyS[b] <= t; b++)
            if (S[busy[b]] + U[busy[b]] > t)
                busyNow[N[busy[b]]] = 1;
        for (var x = 0; x < P; x++) {
            var cls = 'vertex' + (busyNow[x] ? ' busy' : '') + (stored[x] ? ' stored' : '') +
                (x === selected ? ' sel' : '');
            if (verts[x].getAttribute('class') !== cls)
                verts[x].setAttribute('class', cls);
            showMemory(x, t);
            var lt = logs[x] || '';
            if (rows[x].logText !== lt)
                rows[x].log.textContent = rows[x].logText = lt;
        }
        var shown = list.slice(0, 300).map(describe);
        if (list.length > 300)
            shown.push('... and ' + (list.length - 300) + ' more events in this slot');
        evBox.textContent = shown.length ? shown.join('\n') : 'nothing happens in this slot';
        label.textContent = 'slot ' + t + ' of ' + last + ': ' + inflight + ' in flight' +
            (nbad ? ', ' + nbad + ' conflicts or delays' : '');
        cursor.style.left = (t * sx) + 'px';
        slider.value = t;
        document.body.setAttribute('data-slot', t);
    }
    function go(t) {
        t = Math.max(0, Math.min(last, Math.floor(Number(t) || 0)));
        if (t !== cur)
            render(cur = t);
    }
    function select(x) {
        selected = Math.max(0, Math.min(P - 1, Math.floor(Number(x) || 0)));
        nodeIn.value = selected;
        for (var r = 0; r < P; r++)
            rows[r].el.className = r === selected ? 'mem sel' : 'mem';
        var c = cur;
        cur = -1;
        go(c);
    }
    function stop() {
        if (playing)
            clearInterval(playing);
        playing = null;
        bPlay.textContent = '\u25b6';
    }
    function play() {
        if (playing)
            return stop();
        if (cur >= last)
            go(0);
        bPlay.textContent = '\u25a0';
        playing = setInterval(function () {
            if (cur >= last)
                return stop();
            go(cur + 1);
        }, 1000 / Number(speed.value));
    }
    function nextIn(a, t) {
        var k = upper(a, t);
        return k < a.length ? a[k] : t;
    }
    bFirst.onclick = function () { go(0); };
    bBack.onclick = function () { go(cur - 1); };
    bFwd.onclick = function () { go(cur + 1); };
    bLast.onclick = function () { go(last); };
    bPlay.onclick = play;
    slider.oninput = function () { go(slider.value); };
    speed.onchange = function () {
        if (playing)
            stop(), play();
    };
    bBad.onclick = function () { go(nextIn(bad, cur)); };
    nodeIn.onchange = function () { select(nodeIn.value); };
    bNode.onclick = function () {
        if (selected < 0)
            select(nodeIn.value);
        go(nextIn(evSlot[selected], cur));
    };
    svg.addEventListener('click', function (ev) {
        var v = ev.target.getAttribute && ev.target.getAttribute('data-v');
        if (v !== null && v !== undefined)
            select(v);
    });
    document.addEventListener('keydown', function (ev) {
        if (ev.target && ev.target.tagName === 'INPUT' && ev.target.type === 'number')
            return;
        var keys = {' ': bPlay, ArrowLeft: bBack, ArrowRight: bFwd, Home: bFirst, End: bLast,
                    c: bBad, n: bNode};
        if (keys[ev.key]) {
            keys[ev.key].click();
            ev.preventDefault();
        } else if (ev.key === '+' || ev.key === '-') {
            var s = speed.selectedIndex + (ev.key === '+' ? 1 : -1);
            speed.selectedIndex = Math.max(0, Math.min(speed.options.length - 1, s));
            speed.onchange();
        }
    });

    /* ---- the address: #slot=T&probe=T1,T2&node=X&step=N&next=conflict|node ---- */
    var q = {};
    location.hash.replace(/^#/, '').split('&').forEach(function (kv) {
        var p = kv.split('=');
        if (p[0])
            q[p[0]] = decodeURIComponent(p[1] || '');
    });
    drawSpaceTime();
    if (q.node !== undefined)
        select(q.node);
    if (q.probe) {
        /* For tests: the state at each of these slots, as the rows' data-stored. */
        var out = [];
        q.probe.split(',').forEach(function (t) {
            go(t);
            for (var x = 0; x < P; x++)
                out.push(cur + ' ' + x + ' ' + rows[x].el.getAttribute('data-stored'));
        });
        app.appendChild(el('pre', {id: 'probe', hidden: ''}, out.join('\n')));
    }
    go(q.slot || 0);
    var steps = Number(q.step) || 0;
    for (i = 0; i < Math.abs(steps); i++)
        (steps > 0 ? bFwd : bBack).click();
    if (q.next === 'conflict')
        bBad.click();
    else if (q.next === 'node')
        bNode.click();
    document.body.setAttribute('data-ready', '1');
    /* How long the player took to open, for the size check in tests/check_html.sh. */
    document.body.setAttribute('data-open-ms', String(Date.now() - t0));
})();
