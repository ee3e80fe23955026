/* SPDX-License-Identifier: MIT */
/* The hypemu player (README "Player"): plays the run embedded in #hm-data slot by slot.
 * Written once per page by out/html.c; no network, no library. The address's hash
 * (#slot=T&step=N&next=conflict|node&node=X&probe=T1,T2&trail=1) opens the page at slot T and
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
    /* Payloads of receipts (out/html.c "pay"): event index -> [words in all, first words]. */
    var PAY = {};
    for (i = 0; D.pay && i + 2 < D.pay.length; i += 3 + D.pay[i + 2])
        PAY[D.pay[i]] = [D.pay[i + 1], D.pay.slice(i + 3, i + 3 + D.pay[i + 2])];
    D.pay = null;
    function payload(e, shown) {
        var p = PAY[e];
        if (!p)
            return '';
        var w = p[1].slice(0, shown), more = p[0] - w.length;
        return '[' + w.join(' ') + (more > 0 ? ' \u2026 ' + p[0] + ' words' : '') + ']';
    }
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
        /* Hues 35..315: red (conflicts) is left out. */
        var h = 35 + Math.abs(Number(key) * 137.508) % 280;
        return 'hsl(' + h.toFixed(0) + ',70%,40%)';
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
        var o = el('option', {value: s}, s + '/s');
        if (s === 4)
            o.selected = true;
        speed.appendChild(o);
    });
    bar.appendChild(speed);
    var bTrail = button('trail', 'trail', 'the broadcast tree\'s trail in the machine view: ' +
                        'the packet that first brought each node news, from its slot on (T)');
    var bActive = button('nextactive', 'next active', 'next slot in which something happens (A)');
    var bBad = button('nextbad', 'next conflict', 'next slot with a conflict or delay (C)');
    bar.appendChild(el('span', {}, 'node'));
    var nodeIn = el('input', {id: 'node', type: 'number', min: 0, max: P - 1, value: 0});
    bar.appendChild(nodeIn);
    var bNode = button('nextnode', 'next event', 'next slot with an event of this node (N)');
    bar.title = 'keys: Space play or pause, \u2190 \u2192 step, Home, End, A next active, ' +
        'C next conflict, N next event, T trail, + - speed';
    app.appendChild(bar);

    var main = el('div', {id: 'main'});
    app.appendChild(main);
    function panel(title, into) {
        var p = el('div', {'class': 'panel'});
        p.appendChild(el('h2', {}, title));
        (into || main).appendChild(p);
        return p;
    }
    var topoPanel = panel('The machine: the links used in this slot, with their packets');
    var memPanel = panel('Each node\'s memory: what it holds (hm_show), the values it ' +
                         'stored so far (hm_store), and its log lines in this slot');
    var stPanel = panel('Space-time diagram (click a slot)');
    /* Beside the space-time diagram, one column: the link use, then the events. */
    var side = el('div', {'class': 'side'});
    main.appendChild(side);
    var linkPanel = panel('Link use: the links that carry a packet, per slot', side);
    var evPanel = panel('Events of this slot', side);

    /* ---- where the nodes are drawn ---- */
    /* Q_5: one step per dimension, found by a search so that every link keeps more
     * than its nodes' radius away from every other node (the pairs of cubePos pass
     * links through nodes from Q_5 on). */
    var Q5 = [[1, 0], [0, 1], [3.78, 1.89], [-2.14, 4.28], [2.99, -1.49]];
    function cubePos(x, d) {
        if (d === 5) {
            var qx = 2.14, qy = 1.49; /* every coordinate at least 0 */
            for (var q = 0; q < 5; q++)
                if ((x >> q) & 1)
                    qx += Q5[q][0], qy += Q5[q][1];
            return [qx, qy];
        }
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
    var bus = D.topology === 'bus';
    /* From Q_6 on the drawings tried pass links through nodes: the machine becomes a
     * heat map, a grid of nodes by address, each coloured by what it sends and
     * receives in the slot, with no links drawn. */
    var heat = D.topology === 'hypercube' && D.dim > 5;
    var heatCols = 1 << Math.ceil(D.dim / 2);
    function place(x) {
        if (heat) /* low address bits along x, high ones along y */
            return [x % heatCols, Math.floor(x / heatCols)];
        if (D.topology === 'hypercube')
            return cubePos(x, D.dim);
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
    var W = maxX * cell + 2 * pad, H = (maxY + (bus ? 1.6 : 0)) * cell + 2 * pad;
    function px(x) {
        return pad + pos[x][0] * cell;
    }
    function py(x) {
        return pad + pos[x][1] * cell;
    }
    var svg = el('svg', {id: 'topo', 'data-view': 'machine', 'class': heat ? 'heat' : '',
                         viewBox: '0 0 ' + W.toFixed(0) + ' ' + H.toFixed(0)}, undefined, true);
    var defs = el('defs', {}, undefined, true);
    var marker = el('marker', {id: 'arr', viewBox: '0 0 6 6', refX: 6, refY: 3,
                               markerWidth: 4, markerHeight: 4, orient: 'auto'}, undefined, true);
    marker.appendChild(el('path', {d: 'M0 0L6 3L0 6z', fill: '#222'}, undefined, true));
    defs.appendChild(marker);
    svg.appendChild(defs);
    var chanY = pad + 1.1 * cell;
    var chan = null;
    /* The bus as the paper draws it: processors P1..Pk (nodes 0..k-1) and the output
     * processor (node k) over one channel. */
    function vname(x) {
        return bus ? (x === P - 1 ? 'out' : 'P' + (x + 1)) : String(x);
    }
    if (bus) {
        chan = el('rect', {'class': 'chan', x: pad - 10, y: chanY, width: maxX * cell + 20,
                           height: 8}, undefined, true);
        svg.appendChild(chan);
        for (i = 0; i < P; i++)
            svg.appendChild(el('line', {'class': 'link', x1: px(i), y1: py(i) + rad, x2: px(i),
                                        y2: chanY}, undefined, true));
    }
    /* Is b next to a in the drawing (a line), or does the link wrap round (a bend)? */
    function bends(a, b) {
        var dx = px(b) - px(a), dy = py(b) - py(a);
        return !(D.topology === 'hypercube' || D.topology === 'ring') &&
            Math.sqrt(dx * dx + dy * dy) > 1.5 * cell;
    }
    /* One link a->b as a path from circle edge to circle edge, shifted `off` px to the
     * right of its direction (so that the two directions of a link are apart). */
    function segment(a, b, off) {
        var x1 = px(a), y1 = py(a), x2 = px(b), y2 = py(b);
        var dx = x2 - x1, dy = y2 - y1, len = Math.sqrt(dx * dx + dy * dy) || 1;
        var ux = dx / len, uy = dy / len, nx = -uy * off, ny = ux * off;
        if (!bends(a, b)) {
            var e = rad + 0.5, s = Math.sqrt(Math.max(0, e * e - off * off));
            return {d: 'M' + (x1 + ux * s + nx).toFixed(1) + ' ' + (y1 + uy * s + ny).toFixed(1) +
                    'L' + (x2 - ux * s + nx).toFixed(1) + ' ' + (y2 - uy * s + ny).toFixed(1),
                    mx: (x1 + x2) / 2 + nx, my: (y1 + y2) / 2 + ny, ux: ux, uy: uy, len: len};
        }
        var bend = 0.18 * len, cx = (x1 + x2) / 2 - uy * bend, cy = (y1 + y2) / 2 + ux * bend;
        var v1x = cx - x1, v1y = cy - y1, l1 = Math.sqrt(v1x * v1x + v1y * v1y);
        var v2x = x2 - cx, v2y = y2 - cy, l2 = Math.sqrt(v2x * v2x + v2y * v2y);
        var r = rad + 0.5, sx0 = x1 + v1x / l1 * r - uy * off, sy0 = y1 + v1y / l1 * r + ux * off;
        var ex = x2 - v2x / l2 * r - uy * off, ey = y2 - v2y / l2 * r + ux * off;
        return {d: 'M' + sx0.toFixed(1) + ' ' + sy0.toFixed(1) + 'Q' + (cx - uy * off).toFixed(1) +
                ' ' + (cy + ux * off).toFixed(1) + ' ' + ex.toFixed(1) + ' ' + ey.toFixed(1),
                mx: (x1 + 2 * cx + x2) / 4 - uy * off, my: (y1 + 2 * cy + y2) / 4 + ux * off,
                ux: ux, uy: uy, len: len};
    }
    function linkPath(a, b, cls) {
        return el('path', {'class': cls, d: segment(a, b, 0).d}, undefined, true);
    }
    /* The nodes a message passes: the link itself under packet routing; under circuit
     * routing its route (hypemu.h, hm_send_to): a mesh along the row first, then the
     * column; a hypercube the differing dimensions lowest first; a ring or a torus the
     * shorter way round. */
    function step(v, n, dir) {
        return ((v + dir) % n + n) % n;
    }
    function shorter(from, to, n, wrap) {
        if (!wrap)
            return to > from ? 1 : -1;
        var f = ((to - from) % n + n) % n;
        return f <= n - f ? 1 : -1;
    }
    function route(a, b) {
        if (!D.circuit || b === a)
            return [a, b];
        var path = [a], v = a, guard = 0;
        if (D.topology === 'hypercube') {
            for (var d = 0; d < D.dim; d++)
                if (((v ^ b) >> d) & 1)
                    v ^= 1 << d, path.push(v);
            return path;
        }
        if (D.topology === 'mesh' || D.topology === 'torus') {
            var wrap = D.topology === 'torus', r = Math.floor(a / D.cols), c = a % D.cols;
            var tr = Math.floor(b / D.cols), tc = b % D.cols;
            while (c !== tc && guard++ < P)
                c = step(c, D.cols, shorter(c, tc, D.cols, wrap)), path.push(r * D.cols + c);
            while (r !== tr && guard++ < 2 * P)
                r = step(r, D.rows, shorter(r, tr, D.rows, wrap)), path.push(r * D.cols + c);
            return path;
        }
        if (D.topology === 'ring' || D.topology === 'linear') {
            var dir = shorter(a, b, P, D.topology === 'ring');
            while (v !== b && guard++ < P)
                v = step(v, P, dir), path.push(v);
            return path;
        }
        return [a, b];
    }
    /* The idle links of a very large machine would drown it: past 20,000 only the
     * links of the slot are drawn. */
    var links = D.links.length <= 40000 ? D.links : [];
    for (i = 0; i + 1 < links.length; i += 2) {
        if (heat)
            break;
        svg.appendChild(linkPath(links[i], links[i + 1], 'link'));
    }
    var live = el('g', {}, undefined, true);
    svg.appendChild(live);
    var verts = [], held = [];
    for (i = 0; i < P; i++) {
        var g = el('g', {'data-vertex': i}, undefined, true);
        var c = el('circle', {'class': 'vertex', cx: px(i), cy: py(i), r: rad}, undefined, true);
        g.appendChild(c);
        g.appendChild(el('title', {}, bus ? vname(i) + ' (node ' + i + ')' : 'node ' + i, true));
        if (rad >= 6)
            g.appendChild(el('text', {'class': 'vlabel', x: px(i), y: py(i) + 3,
                                      'font-size': rad >= 9 ? 9 : 6.5}, vname(i), true));
        if (bus) {
            /* Each processor's value (hm_show), over its circle. */
            held.push(el('text', {'class': 'held', x: px(i), y: py(i) - rad - 4}, '', true));
            g.appendChild(held[i]);
        }
        svg.appendChild(g);
        verts.push(c);
    }
    var labels = el('g', {}, undefined, true);
    svg.appendChild(labels);
    topoPanel.appendChild(svg);
    var legend = el('div', {'class': 'legend'});
    legend.innerHTML = '<span><i class="sw" style="background:#225ea8"></i>packet (colour: ' +
        'message; label m<i>msg</i>=<i>value</i>)</span><span><i class="sw" ' +
        'style="background:#d00"></i>conflict or delay (red means nothing else)</span>' +
        '<span><i class="sw" style="background:#f08c00"></i>stall</span><span>green node: ' +
        'stored in this slot; grey: busy</span>';
    topoPanel.appendChild(legend);
    if (heat)
        legend.innerHTML = '<span>Q<sub>' + D.dim + '</sub> as a heat map: node x in column ' +
            'x mod ' + heatCols + ', row x div ' + heatCols + '; a sender is filled with its ' +
            'message\'s colour, a receiver ringed in it; no links are drawn (any drawing of ' +
            'them would pass through nodes)</span>';

    /* Packet labels go where they cover no node: a few places along the link, on
     * either side; a label with no free place is left out (the link's tooltip says it). */
    var placed = [];
    function boxFree(x0, y0, x1, y1) {
        var r = rad + 1.5;
        if (x0 < 0 || y0 < 0 || x1 > W || y1 > H)
            return false;
        for (var v = 0; v < P; v++) {
            var cx = px(v), cy = py(v);
            if (cx < x0 - r || cx > x1 + r || cy < y0 - r || cy > y1 + r)
                continue;
            var qx = Math.max(x0, Math.min(cx, x1)) - cx, qy = Math.max(y0, Math.min(cy, y1)) - cy;
            if (qx * qx + qy * qy < r * r)
                return false;
        }
        for (var k = 0; k < placed.length; k++) {
            var b = placed[k];
            if (x0 < b[2] && b[0] < x1 && y0 < b[3] && b[1] < y1)
                return false;
        }
        return true;
    }
    function putLabel(a, b, off, txt) {
        var s = segment(a, b, off), w = 5.6 * txt.length + 3, h = 11;
        var fr = [0.5, 0.35, 0.65, 0.25, 0.75], sides = [1, 2.2, -1, -2.2];
        for (var f = 0; f < fr.length; f++)
            for (var k = 0; k < sides.length; k++) {
                var along = (fr[f] - 0.5) * s.len, side = sides[k] * 7 * (off < 0 ? -1 : 1);
                var cx = s.mx + s.ux * along - s.uy * side, cy = s.my + s.uy * along + s.ux * side;
                var x0 = cx - w / 2, y0 = cy - h / 2;
                if (boxFree(x0, y0, x0 + w, y0 + h)) {
                    placed.push([x0, y0, x0 + w, y0 + h]);
                    labels.appendChild(el('text', {'class': 'plabel', x: cx.toFixed(1),
                                                   y: (cy + 3).toFixed(1)}, txt, true));
                    return true;
                }
            }
        return false;
    }

    /* ---- the space-time diagram: one row a node, one column a slot ----
     * Drawn in a window of slots (zoom: the buttons or the wheel; pan: drag), at the
     * screen's pixel density, with the slot axis on top and the nodes on the left; a
     * transmission is an arrow from its sender's row where it started to its receiver's
     * row where it was received. Beyond HEAT_ROWS nodes the rows are blocks of nodes and
     * the diagram a heat map of the transmissions each block starts. */
    var HEAT_ROWS = 256, LEFT = 40, TOP = 20, BOTTOM = 26;
    var stHeat = P > HEAT_ROWS, per = stHeat ? Math.ceil(P / 128) : 1;
    var nrows = Math.ceil(P / per);
    var wrap = el('div', {id: 'stwrap'});
    var zoomBar = el('div', {'class': 'stbar'});
    function stButton(id, lbl, title) {
        var b = el('button', {id: id, type: 'button', title: title}, lbl);
        zoomBar.appendChild(b);
        return b;
    }
    var bZin = stButton('zoomin', 'zoom +', 'fewer slots (or the mouse wheel)');
    var bZout = stButton('zoomout', 'zoom \u2212', 'more slots');
    var bZall = stButton('zoomall', 'all slots', 'the whole run');
    stPanel.appendChild(zoomBar);
    var canvas = el('canvas', {id: 'st', 'data-rows': stHeat ? 'heat' : 'nodes'});
    var cursor = el('div', {id: 'cursor'});
    wrap.appendChild(canvas);
    wrap.appendChild(cursor);
    stPanel.appendChild(wrap);
    stPanel.appendChild(el('div', {'class': 'legend'}, (stHeat ? 'Rows: blocks of ' + per +
        ' nodes, coloured by the transmissions they start (darker: more); ' : 'Rows: nodes ' +
        '0..' + (P - 1) + '; arrows: transmissions, from sender to receiver; dots: stores; ' +
        'grey: busy; orange: stall; red: conflict or delay; ') + 'columns: slots. The strip ' +
        'below: packets in flight per slot (bars; the links they use: the link-use panel) ' +
        'and the deepest mailbox, ' +
        'sampled at receipts as the OTF2 trace does (orange line). Drag to pan, wheel or buttons to zoom, click a slot.'));
    var view = {t0: 0, t1: last + 1}, cssW = 0, cssH = 0, dpr = 1;
    /* Packets in flight per slot, from the receipts (as the machine view counts them). */
    var flyN = new Float64Array(last + 2), flyMax = 1;
    for (j = 0; j < n; j++)
        if (K[j] === 1 && S[j] <= last) {
            flyN[Math.max(0, S[j] - U[j] + 1)]++;
            flyN[S[j] + 1]--;
        }
    for (i = 1; i <= last; i++)
        flyN[i] += flyN[i - 1];
    /* The deepest mailbox per slot, from the depth after each receipt (out/html.c). */
    var deep = new Float64Array(last + 1), deepMax = 0;
    for (j = 0, i = 0; j < n; j++)
        if (K[j] === 1) {
            var dq = D.depth && i < D.depth.length ? D.depth[i] : 0;
            i++;
            if (S[j] <= last && dq > deep[S[j]])
                deep[S[j]] = dq, deepMax = Math.max(deepMax, dq);
        }
    D.depth = null;
    canvas.setAttribute('data-mailbox', deepMax);
    for (i = 0; i <= last; i++)
        flyMax = Math.max(flyMax, flyN[i]);
    function slotX(t) {
        return LEFT + (t - view.t0) * (cssW - LEFT - 4) / (view.t1 - view.t0);
    }
    function niceStep(span, px) {
        var raw = span * 60 / Math.max(px, 1), p10 = Math.pow(10, Math.floor(Math.log10(raw)));
        var m = raw / p10;
        return Math.max(1, (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p10);
    }
    function sizeCanvas() {
        cssW = Math.max(300, wrap.clientWidth || 600);
        var rh = Math.max(2, Math.min(22, 420 / nrows));
        cssH = Math.ceil(TOP + rh * nrows + BOTTOM + 4);
        dpr = window.devicePixelRatio || 1;
        canvas.width = Math.round(cssW * dpr);
        canvas.height = Math.round(cssH * dpr);
        canvas.style.width = cssW + 'px';
        canvas.style.height = cssH + 'px';
        cursor.style.height = (cssH - BOTTOM) + 'px';
    }
    function drawAxes(g, rh) {
        g.fillStyle = '#333';
        g.strokeStyle = '#999';
        g.font = '10px sans-serif';
        g.textAlign = 'center';
        var step = niceStep(view.t1 - view.t0, cssW - LEFT);
        g.beginPath();
        for (var t = Math.ceil(view.t0 / step) * step; t < view.t1; t += step) {
            var x = slotX(t + 0.5);
            g.moveTo(x, TOP - 4);
            g.lineTo(x, TOP);
            g.fillText(String(t), x, TOP - 6);
        }
        g.moveTo(LEFT, TOP);
        g.lineTo(cssW, TOP);
        g.stroke();
        g.textAlign = 'right';
        var every = Math.ceil(11 / rh);
        for (var r = 0; r < nrows; r += every)
            g.fillText(stHeat ? String(r * per) : String(r), LEFT - 4, TOP + (r + 0.5) * rh + 3);
    }
    function arrow(g, x1, y1, x2, y2) {
        g.beginPath();
        g.moveTo(x1, y1);
        g.lineTo(x2, y2);
        g.stroke();
        var dx = x2 - x1, dy = y2 - y1, len = Math.sqrt(dx * dx + dy * dy);
        if (len < 8)
            return;
        var ux = dx / len, uy = dy / len, h = Math.min(6, len / 3);
        g.beginPath();
        g.moveTo(x2, y2);
        g.lineTo(x2 - ux * h - uy * h / 2, y2 - uy * h + ux * h / 2);
        g.lineTo(x2 - ux * h + uy * h / 2, y2 - uy * h - ux * h / 2);
        g.closePath();
        g.fill();
    }
    function drawEvent(g, e, rh, sw) {
        var k = K[e], y0 = TOP + (N[e] + 0.5) * rh;
        if (k === 1 && R[e] >= 0 && R[e] < P) { /* a receipt: its transmission */
            g.strokeStyle = g.fillStyle = hue(M[e]);
            arrow(g, slotX(S[e] - U[e] + 1) + 0.15 * sw, TOP + (R[e] + 0.5) * rh,
                  slotX(S[e] + 1) - 0.15 * sw, y0);
        } else if (k === 2) {
            g.fillStyle = '#222';
            g.fillRect(slotX(S[e] + 0.5) - 1, y0 - 1, 2, 2);
        } else if (k === 6) {
            g.fillStyle = 'rgba(120,120,120,.45)';
            g.fillRect(slotX(S[e]), y0 - rh * 0.3, U[e] * sw, rh * 0.6);
        } else if (k >= 3 && k <= 5) {
            g.strokeStyle = k === 3 ? '#f08c00' : '#d00';
            g.strokeRect(slotX(S[e]), y0 - rh / 2, Math.max(sw, 2), rh);
        }
    }
    function drawHeat(g, rh, from, to) {
        var cols = Math.max(1, Math.floor(cssW - LEFT - 4)), cnt = new Float64Array(cols * nrows);
        var span = view.t1 - view.t0, top = 0;
        for (var e = from; e < to; e++)
            if (K[e] === 0 && S[e] >= view.t0 && S[e] < view.t1) {
                var c = Math.min(cols - 1, Math.floor((S[e] - view.t0) * cols / span));
                var q = Math.floor(N[e] / per) * cols + c;
                top = Math.max(top, ++cnt[q]);
            }
        for (var r = 0; r < nrows; r++)
            for (c = 0; c < cols; c++)
                if (cnt[r * cols + c]) {
                    var a = 0.15 + 0.85 * cnt[r * cols + c] / top;
                    g.fillStyle = 'rgba(34,94,168,' + a.toFixed(2) + ')';
                    g.fillRect(LEFT + c, TOP + r * rh, 1, Math.max(1, rh));
                }
    }
    function drawFlying(g) {
        var y = cssH - 4, h = BOTTOM - 8;
        g.fillStyle = '#41b6c4';
        var t0 = Math.max(0, Math.floor(view.t0)), t1 = Math.min(last, Math.ceil(view.t1));
        for (var t = t0; t <= t1; t++)
            if (flyN[t] > 0) {
                var bh = h * flyN[t] / flyMax;
                g.fillRect(slotX(t), y - bh, Math.max(1, slotX(t + 1) - slotX(t)), bh);
            }
        if (deepMax > 0) { /* the deepest mailbox, a line over the bars */
            g.strokeStyle = '#e07000';
            g.lineWidth = 1.2;
            g.beginPath();
            for (t = t0; t <= t1; t++)
                g[t === t0 ? 'moveTo' : 'lineTo'](slotX(t + 0.5), y - h * deep[t] / deepMax);
            g.stroke();
        }
        g.fillStyle = '#555';
        g.textAlign = 'left';
        g.fillText('in flight (max ' + flyMax + ')' + (deepMax ? ', mailbox (max ' + deepMax +
                   ')' : ''), 2, y - h + 8);
    }
    function drawSpaceTime() {
        if (!cssW)
            sizeCanvas();
        var g = canvas.getContext('2d');
        g.setTransform(dpr, 0, 0, dpr, 0, 0);
        g.fillStyle = '#fff';
        g.fillRect(0, 0, cssW, cssH);
        var rh = (cssH - TOP - BOTTOM - 4) / nrows, sw = slotX(1) - slotX(0);
        g.fillStyle = '#f3f3f3';
        for (var r = 0; r < nrows && rh >= 4; r += 2)
            g.fillRect(LEFT, TOP + r * rh, cssW - LEFT, rh);
        var from = lower(S, view.t0 - Math.max(maxDur, maxBusy)), to = upper(S, view.t1 + maxDur);
        g.save();
        g.beginPath();
        g.rect(LEFT, 0, cssW - LEFT, cssH - BOTTOM);
        g.clip();
        g.lineWidth = sw >= 3 ? 1.2 : 0.8;
        if (stHeat)
            drawHeat(g, rh, from, to);
        else
            for (var e = from; e < to; e++)
                drawEvent(g, e, rh, sw);
        g.restore();
        drawAxes(g, rh);
        drawFlying(g);
        canvas.setAttribute('data-view', Math.floor(view.t0) + '..' + (Math.ceil(view.t1) - 1));
        placeCursor();
    }
    function placeCursor() {
        if (cur < 0)
            return;
        var x = slotX(cur), w = Math.max(2, slotX(cur + 1) - x);
        cursor.style.display = cur >= view.t0 && cur < view.t1 ? 'block' : 'none';
        cursor.style.left = x + 'px';
        cursor.style.width = w + 'px';
    }
    function zoom(f, at) {
        var span = view.t1 - view.t0, ns = Math.max(2, Math.min(last + 1, span * f));
        if (at === undefined)
            at = cur >= 0 ? cur + 0.5 : (view.t0 + view.t1) / 2;
        var t0 = at - (at - view.t0) * ns / span;
        view.t0 = Math.max(0, Math.min(last + 1 - ns, t0));
        view.t1 = view.t0 + ns;
        drawSpaceTime();
    }
    bZin.onclick = function () { zoom(0.5); };
    bZout.onclick = function () { zoom(2); };
    bZall.onclick = function () {
        view.t0 = 0, view.t1 = last + 1;
        drawSpaceTime();
    };
    function slotAt(ev) {
        var r = canvas.getBoundingClientRect(), x = ev.clientX - r.left;
        return view.t0 + (x - LEFT) * (view.t1 - view.t0) / (cssW - LEFT - 4);
    }
    canvas.addEventListener('wheel', function (ev) {
        ev.preventDefault();
        zoom(ev.deltaY < 0 ? 0.8 : 1.25, slotAt(ev));
    });
    var drag = null;
    canvas.addEventListener('mousedown', function (ev) {
        drag = {x: ev.clientX, t0: view.t0, moved: false};
    });
    window.addEventListener('mousemove', function (ev) {
        if (!drag)
            return;
        var dt = (ev.clientX - drag.x) * (view.t1 - view.t0) / (cssW - LEFT - 4);
        if (Math.abs(ev.clientX - drag.x) > 3)
            drag.moved = true;
        var span = view.t1 - view.t0;
        view.t0 = Math.max(0, Math.min(last + 1 - span, drag.t0 - dt));
        view.t1 = view.t0 + span;
        if (drag.moved)
            drawSpaceTime();
    });
    window.addEventListener('mouseup', function (ev) {
        if (drag && !drag.moved && ev.target === canvas && slotAt(ev) >= view.t0)
            go(Math.floor(slotAt(ev)));
        drag = null;
    });
    /* The communication matrix (up to 64 nodes): row the sender, column the receiver, the
     * packets received over the whole run, darker for more. */
    if (P <= 64 && !bus) {
        var cnt = new Float64Array(P * P), top = 0, total = 0;
        for (j = 0; j < n; j++)
            if (K[j] === 1 && R[j] >= 0 && R[j] < P)
                top = Math.max(top, ++cnt[R[j] * P + N[j]]), total++;
        var cs = Math.max(3, Math.min(12, Math.floor(240 / P))), mpx = 22 + cs * P;
        var mat = el('canvas', {id: 'matrix', 'data-packets': total});
        var mdpr = window.devicePixelRatio || 1;
        mat.width = Math.round(mpx * mdpr), mat.height = Math.round(mpx * mdpr);
        mat.style.width = mat.style.height = mpx + 'px';
        var mg = mat.getContext('2d');
        mg.setTransform(mdpr, 0, 0, mdpr, 0, 0);
        mg.fillStyle = '#fff';
        mg.fillRect(0, 0, mpx, mpx);
        for (var a = 0; a < P; a++)
            for (var b = 0; b < P; b++)
                if (cnt[a * P + b]) {
                    var op = 0.15 + 0.85 * cnt[a * P + b] / top;
                    mg.fillStyle = 'rgba(34,94,168,' + op.toFixed(2) + ')';
                    mg.fillRect(20 + b * cs, 20 + a * cs, cs - (cs > 4), cs - (cs > 4));
                }
        mg.fillStyle = '#333';
        mg.font = '9px sans-serif';
        mg.fillText('to \u2192', 20, 10);
        mg.fillText('from \u2193', 0, 18);
        mat.title = 'packets from node (row) to node (column) over the run: ' + total +
            ' in all, at most ' + top + ' for one pair';
        mat.addEventListener('mousemove', function (ev) {
            var r = mat.getBoundingClientRect(), col = Math.floor((ev.clientX - r.left - 20) / cs);
            var row = Math.floor((ev.clientY - r.top - 20) / cs);
            if (row >= 0 && row < P && col >= 0 && col < P)
                mat.title = 'node ' + row + ' to node ' + col + ': ' + cnt[row * P + col] + ' packets';
        });
        var mbox = el('div', {'class': 'matrix'});
        mbox.appendChild(el('div', {'class': 'legend'}, 'Communication matrix: packets from ' +
                            'each node (row) to each node (column) over the run.'));
        mbox.appendChild(mat);
        stPanel.appendChild(mbox);
    }
    window.addEventListener('resize', function () {
        cssW = 0;
        drawSpaceTime();
    });

    /* ---- memory: a row a node ---- */
    var HELD_SHOWN = 16;
    var memBox = el('div', {id: 'mem'});
    memPanel.appendChild(memBox);
    var useCells = kmax > 0 && kmax <= 64 && kmax * P <= 20000;
    memPanel.insertBefore(el('div', {'class': 'legend'}, (kmax === 0 ? 'No node stored a value. ' :
        (useCells ? 'A cell per value, in the order stored, coloured by value; a node ' +
         'stores up to ' + kmax + ' values; the outlined cells were stored in this slot. ' :
         'The share of its values each node has stored (it stores up to ' + kmax +
         '), then the last value. ')) + (D.held ? 'Held: its buffer (hm_show; its ' +
         'input until then), first ' + HELD_SHOWN + ' values.' : '') +
        (D.knows ? ' Knows: nodes heard from, itself included.' : '')), memBox);

    /* What each node holds (hm_show): D.held[x] is a flat list of changes, each
     * slot, length, start, n, then n values: from that slot on the buffer has `length`
     * values, those from `start` replaced by the n given (out/html.c). A node with no
     * change holds nothing shown. */
    var hSlot = [], hAt = [];
    for (i = 0; i < P; i++) {
        hSlot.push([]), hAt.push([]);
        var hl = D.held ? D.held[i] || [] : [];
        for (j = 0; j + 3 < hl.length; j += 4 + hl[j + 3])
            hSlot[i].push(hl[j]), hAt[i].push(j);
    }
    /* The buffer of node x after its first k changes (replayed from the last state). */
    function heldBuffer(r, x, k) {
        if (k < r.hk)
            r.hk = 0, r.buf = [];
        var hl = D.held[x];
        for (; r.hk < k; r.hk++) {
            var o = hAt[x][r.hk], len = hl[o + 1], start = hl[o + 2], cnt = hl[o + 3];
            r.buf.length = Math.min(r.buf.length, len);
            for (var q = r.buf.length; q < len; q++)
                r.buf.push(0);
            for (q = 0; q < cnt; q++)
                r.buf[start + q] = hl[o + 4 + q];
        }
        return r.buf;
    }
    /* The hook for what each node knows: D.knows[x], when the page has it, is a flat
     * list of pairs slot, count (slots ascending): from that slot on, information from
     * `count` nodes has reached node x (itself included). Without D.knows nothing is
     * drawn and the rows carry no data-knows. */
    function knowsAt(x, t) {
        var kl = D.knows[x] || [], c = 0;
        for (var q = 0; q + 1 < kl.length && kl[q] <= t; q += 2)
            c = kl[q + 1];
        return c;
    }
    /* Who knows whom (at most 64 nodes): D.knowset[x] is a flat list of pairs slot, set,
     * the set a hex string, bit u for node u (out/html.c). The matrix at slot t: row x,
     * column u filled when u's information has reached x; above each column, how many
     * nodes u has reached (a number where it fits, else a bar). data-filled lists the
     * filled cells of each row. */
    function knowsetAt(x, t) {
        var kl = D.knowset[x] || [], h = '0';
        for (var q = 0; q + 1 < kl.length && kl[q] <= t; q += 2)
            h = kl[q + 1];
        return [parseInt(h.slice(-8), 16), h.length > 8 ? parseInt(h.slice(0, -8), 16) : 0];
    }
    function hasBit(w, u) {
        return ((u < 32 ? w[0] >>> u : w[1] >>> (u - 32)) & 1) === 1;
    }
    var kmat = null, kcs = Math.max(3, Math.min(12, Math.floor(240 / P))), KTOP = 40;
    if (D.knowset && P <= 64) {
        var kbox = el('div', {'class': 'matrix'});
        kbox.appendChild(el('div', {'class': 'legend'}, 'Who knows whom at this slot: row x, ' +
                            'column u filled when u\'s information has reached x; above, ' +
                            'how many nodes each u has reached.'));
        kmat = el('canvas', {id: 'knowsmatrix'});
        var kpx = 22 + kcs * P, kdpr = window.devicePixelRatio || 1;
        kmat.width = Math.round(kpx * kdpr), kmat.height = Math.round((kpx + KTOP - 20) * kdpr);
        kmat.style.width = kpx + 'px', kmat.style.height = (kpx + KTOP - 20) + 'px';
        kbox.appendChild(kmat);
        stPanel.appendChild(kbox);
    }
    function drawKnowsMatrix(t) {
        var g = kmat.getContext('2d'), dpr = window.devicePixelRatio || 1, w = 22 + kcs * P;
        var col = new Int32Array(P), filled = [];
        g.setTransform(dpr, 0, 0, dpr, 0, 0);
        g.fillStyle = '#fff';
        g.fillRect(0, 0, w, w + KTOP);
        g.fillStyle = '#2b8a3e';
        for (var x = 0; x < P; x++) {
            var bits = knowsetAt(x, t), f = 0;
            for (var u = 0; u < P; u++)
                if (hasBit(bits, u)) {
                    g.fillRect(20 + u * kcs, KTOP + x * kcs, kcs - (kcs > 4), kcs - (kcs > 4));
                    f++, col[u]++;
                }
            filled.push(f);
        }
        g.fillStyle = '#333';
        g.font = '8px sans-serif';
        g.fillText('u \u2192', 0, 8);
        g.fillText('x \u2193', 0, KTOP - 2);
        for (u = 0; u < P; u++)
            if (kcs >= 10)
                g.fillText(String(col[u]), 20 + u * kcs, KTOP - 3);
            else
                g.fillRect(20 + u * kcs, KTOP - 2 - 24 * col[u] / P, kcs - (kcs > 4), 24 * col[u] / P);
        kmat.setAttribute('data-filled', filled.join(','));
        kmat.setAttribute('data-slot', t);
        kmat.title = 'slot ' + t + ': nodes heard from per row ' + filled.join(' ');
    }
    /* The broadcast tree's trail: for each node the packet that first brought it
     * information from another node (the last it received before the slot in which what
     * it knows first grows: a packet is read at the earliest in the slot after it
     * crossed), drawn from the slot it crossed on when the "trail" control is on. */
    var trailE = [];
    for (i = 0; D.knows && i < P; i++) {
        var kl0 = D.knows[i] || [], grow = -1;
        for (j = 0; j + 1 < kl0.length && grow < 0; j += 2)
            if (kl0[j + 1] > 1)
                grow = kl0[j];
        trailE.push({grow: grow, e: -1});
    }
    for (j = 0; D.knows && j < n; j++)
        if (K[j] === 1 && N[j] >= 0 && N[j] < P && trailE[N[j]].grow > S[j])
            trailE[N[j]].e = j;
    var anyHeld = D.held && D.held.some(function (h) {
        return h.length > 0;
    });
    var rows = [];
    function memRow(x) {
        var row = el('div', {'class': 'mem', 'data-node': x, 'data-stored': 0});
        row.appendChild(el('span', {'class': 'id'}, vname(x)));
        var r = {el: row, k: -1, got: -1, cells: [], fill: null, count: null, log: null,
                 logText: '', hk: 0, buf: [], hshown: -1, held: null, knows: null, kfill: null,
                 kc: -1};
        if (D.held) {
            r.held = el('span', {'class': 'heldbuf'});
            if (!anyHeld)
                r.held.style.display = 'none';
            row.appendChild(r.held);
        }
        if (D.knows) {
            var kb = el('span', {'class': 'bar knows'});
            r.kfill = el('span', {'class': 'fill'});
            r.kfill.style.display = 'block';
            kb.appendChild(r.kfill);
            row.appendChild(kb);
            r.knows = el('span', {'class': 'count kcount'});
            row.appendChild(r.knows);
        }
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
    function showHeld(x, t) {
        var r = rows[x], k = upper(hSlot[x], t);
        if (k === r.hshown)
            return;
        r.hshown = k;
        var buf = heldBuffer(r, x, k), txt = buf.length + ': ' + buf.slice(0, HELD_SHOWN).join(' ');
        if (buf.length > HELD_SHOWN)
            txt += ' \u2026';
        r.el.setAttribute('data-held', buf.length);
        r.held.textContent = k ? txt : '';
        r.held.title = k ? 'holds ' + buf.length + ' values since slot ' + hSlot[x][k - 1] +
            ': ' + buf.slice(0, 64).join(' ') + (buf.length > 64 ? ' \u2026 (the page has the ' +
            'first 64)' : '') : 'nothing shown yet';
        if (bus)
            held[x].textContent = k ? String(buf[buf.length - 1]) : '';
    }
    function showKnows(x, t) {
        var r = rows[x], c = knowsAt(x, t);
        if (c === r.kc)
            return;
        r.kc = c;
        r.el.setAttribute('data-knows', c);
        r.kfill.style.width = (100 * c / P).toFixed(1) + '%';
        r.knows.textContent = 'knows ' + c + '/' + P;
    }
    function showMemory(x, t) {
        var r = rows[x], k = upper(stSlot[x], t), a = stSlot[x], got = upper(rcSlot[x], t);
        if (D.held)
            showHeld(x, t);
        if (D.knows)
            showKnows(x, t);
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
    /* A packet clicked in the machine view: its whole payload (as far as the page has it). */
    var HM_PAY = 64, pktBox = el('div', {id: 'packet'});
    evPanel.appendChild(pktBox);

    /* ---- one slot ---- */
    function describe(e) {
        var k = K[e], s = 'slot ' + S[e] + ' node ' + N[e] + ' ' + KIND[k];
        if (k === 0)
            s += ' to ' + R[e] + (O[e] >= 0 ? ' port ' + O[e] : '') + ' msg ' + M[e] + ' value ' + V[e];
        else if (k === 1)
            s += ' from ' + R[e] + ' msg ' + M[e] + ' value ' + V[e] +
                (PAY[e] ? ' payload ' + payload(e, 8) : '');
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
    /* The packets crossing a slot are those received in it or later whose crossing
     * began by it: a receipt at slot s of a transmission of u slots crosses slots
     * s-u+1..s (a packet a queue delayed is drawn in the slot it crossed). */
    var rcv = [], rcvS = [], maxRcv = 1;
    for (j = 0; j < n; j++)
        if (K[j] === 1 && R[j] >= 0 && R[j] < P)
            rcv.push(j), rcvS.push(S[j]), maxRcv = Math.max(maxRcv, U[j]);
    function crossing(t) {
        var out = [], seen = {};
        for (var q = lower(rcvS, t); q < rcv.length && rcvS[q] <= t + maxRcv - 1; q++) {
            var e = rcv[q];
            if (S[e] - U[e] + 1 > t)
                continue;
            if (bus) { /* one broadcast reaches every processor: drawn once */
                var key = R[e] + ',' + M[e] + ',' + (S[e] - U[e]);
                if (seen[key])
                    continue;
                seen[key] = 1;
            }
            out.push(e);
        }
        return out;
    }
    function text(e) {
        return 'm' + M[e] + '=' + V[e] + (PAY[e] ? ' ' + payload(e, 2) : '');
    }
    function packet(e, labelled) {
        /* e is the receipt: node N[e] received from R[e]. */
        var a = R[e], b = N[e], col = hue(M[e]);
        if (bus) {
            live.appendChild(el('line', {'class': 'pkt', x1: px(a), y1: py(a) + rad, x2: px(a),
                                         y2: chanY, stroke: col, 'data-from': a,
                                         'data-msg': M[e]}, undefined, true));
            chan.setAttribute('class', 'chan on');
            labels.appendChild(el('text', {'class': 'plabel', x: px(a) + 4, y: chanY + 20},
                                  vname(a) + ' broadcasts ' + V[e], true));
            return;
        }
        if (heat) { /* the sender filled with the message's colour, the receiver ringed */
            verts[a].style.fill = col;
            verts[b].style.stroke = col;
            return;
        }
        var path = route(a, b), d = '', mid = Math.floor((path.length - 2) / 2);
        for (var q = 0; q + 1 < path.length; q++)
            d += segment(path[q], path[q + 1], 3).d;
        var l = el('path', {'class': 'pkt', d: d, stroke: col, 'marker-end': 'url(#arr)',
                            'data-from': a, 'data-to': b, 'data-msg': M[e]}, undefined, true);
        l.appendChild(el('title', {}, 'node ' + a + ' to node ' + b + ', msg ' + M[e] +
                         ', value ' + V[e] + (U[e] > 1 ? ', slots ' + (S[e] - U[e] + 1) + '..' +
                         S[e] : '') + (PAY[e] ? ', payload ' + payload(e, 8) +
                         ' (click: all)' : ''), true));
        l.addEventListener('click', function () {
            pktBox.textContent = 'Packet ' + describe(e) + (PAY[e] ? '\npayload: ' +
                payload(e, HM_PAY) : '');
        });
        live.appendChild(l);
        /* With its payload's first words if they fit, else without. */
        if (labelled && !putLabel(path[mid], path[mid + 1], 3, text(e)) && PAY[e])
            putLabel(path[mid], path[mid + 1], 3, 'm' + M[e] + '=' + V[e]);
    }
    /* A conflict or a delay marks every link involved: its own (its route), the links
     * its explanation names ("a->b"), and the packets of the slot that share a link or
     * the receiver with it. */
    function linksOf(a, b, into) {
        var p = route(a, b);
        for (var q = 0; q + 1 < p.length; q++)
            into[p[q] + '>' + p[q + 1]] = 1;
    }
    function mark(e, inSlot) {
        if (R[e] < 0 || R[e] >= P)
            return;
        if (heat) {
            verts[N[e]].style.stroke = K[e] === 3 ? '#f08c00' : '#d00';
            return;
        }
        var own = {}, all = {}, m, re = /(\d+)->(\d+)/g;
        linksOf(N[e], R[e], own);
        for (var k in own)
            all[k] = 1;
        while (T[e] && (m = re.exec(T[e])) !== null)
            if (Number(m[1]) < P && Number(m[2]) < P)
                linksOf(Number(m[1]), Number(m[2]), all);
        if (K[e] !== 3)
            inSlot.forEach(function (f) {
                var their = {};
                linksOf(R[f], N[f], their);
                var share = N[f] === R[e];
                for (var k2 in their)
                    share = share || own[k2];
                if (share)
                    for (k2 in their)
                        all[k2] = 1;
            });
        var d = '';
        for (k in all) {
            var ab = k.split('>');
            d += segment(Number(ab[0]), Number(ab[1]), 3).d;
        }
        var l = el('path', {'class': K[e] === 3 ? 'stall' : 'bad', d: d,
                            'data-links': Object.keys(all).sort().join(' ')}, undefined, true);
        l.appendChild(el('title', {}, describe(e), true));
        live.appendChild(l);
    }
    /* ---- link use over time: per slot, the links that carry a packet ----
     * A link is used in a slot when a packet crosses it then, in either direction (the
     * packets of crossing()); under circuit routing every link of a route held counts
     * (route()); on the bus the channel is the one link. A bar a slot (data-slot,
     * data-links-used); past LINK_BARS slots a bar is a block of slots, its height the
     * most links of the block. The chart's data-links is the machine's link count. */
    var LINK_BARS = 2000, nLinks = bus ? 1 : D.links.length / 2;
    var linkUse = new Int32Array(last + 1), linkMax = 0;
    function linksUsed(t) {
        var fly = crossing(t), seen = {}, c = 0;
        for (var q = 0; q < fly.length; q++) {
            var p = bus ? [0, 0] : route(R[fly[q]], N[fly[q]]);
            for (var h = 0; h + 1 < p.length; h++) {
                var key = Math.min(p[h], p[h + 1]) * P + Math.max(p[h], p[h + 1]);
                if (!seen[key])
                    seen[key] = 1, c++;
            }
        }
        return bus ? Math.min(c, 1) : c;
    }
    for (i = 0; i <= last; i++)
        linkUse[i] = linksUsed(i), linkMax = Math.max(linkMax, linkUse[i]);
    var LW = 600, LH = 90, LL = 34, LB = 14, lcols = Math.min(last + 1, LINK_BARS);
    var lper = Math.ceil((last + 1) / lcols), lbw = (LW - LL - 4) / Math.ceil((last + 1) / lper);
    var ltop = Math.max(1, linkMax);
    var lsvg = el('svg', {id: 'linkuse', viewBox: '0 0 ' + LW + ' ' + LH, 'data-links': nLinks,
                          'data-max': linkMax}, undefined, true);
    function lslotX(t) {
        return LL + Math.floor(t / lper) * lbw;
    }
    for (i = 0; i <= last; i += lper) {
        var lu = 0;
        for (j = i; j < i + lper && j <= last; j++)
            lu = Math.max(lu, linkUse[j]);
        var bh = (LH - LB - 6) * lu / ltop;
        var lbar = el('rect', {'class': 'lbar', x: lslotX(i).toFixed(2),
                               y: (LH - LB - bh).toFixed(2),
                               width: Math.max(0.5, lbw - (lbw > 3)).toFixed(2),
                               height: bh.toFixed(2), 'data-links-used': lu}, undefined, true);
        var lspan = i + '..' + Math.min(last, i + lper - 1);
        lbar.setAttribute(lper > 1 ? 'data-slots' : 'data-slot', lper > 1 ? lspan : i);
        lbar.appendChild(el('title', {}, (lper > 1 ? 'slots ' + lspan + ': at most ' : 'slot ' +
                                          i + ': ') + lu + ' of ' + nLinks + ' links', true));
        lsvg.appendChild(lbar);
    }
    lsvg.appendChild(el('line', {'class': 'laxis', x1: LL, y1: LH - LB, x2: LW - 4, y2: LH - LB},
                        undefined, true));
    lsvg.appendChild(el('text', {'class': 'ltick', x: LL - 3, y: 10, 'text-anchor': 'end'},
                        String(ltop), true));
    lsvg.appendChild(el('text', {'class': 'ltick', x: LL - 3, y: LH - LB, 'text-anchor': 'end'},
                        '0', true));
    lsvg.appendChild(el('text', {'class': 'ltick', x: LL, y: LH - 2}, 'slot 0', true));
    lsvg.appendChild(el('text', {'class': 'ltick', x: LW - 4, y: LH - 2, 'text-anchor': 'end'},
                        'slot ' + last, true));
    var lnow = el('rect', {'class': 'lnow', y: 0, height: LH - LB, width: Math.max(1, lbw)},
                  undefined, true);
    lsvg.appendChild(lnow);
    linkPanel.appendChild(lsvg);
    var lnote = el('div', {id: 'linknow', 'class': 'legend'});
    linkPanel.appendChild(lnote);
    linkPanel.appendChild(el('div', {'class': 'legend'}, 'A bar a slot' + (lper > 1 ? ' (here ' +
        'a block of ' + lper + ' slots, its busiest)' : '') + ': the links that carry a packet ' +
        'in either direction' + (D.circuit ? ', or that a circuit holds' : '') + ', of the ' +
        nLinks + (bus ? ' channel' : ' links') + ' (scale 0..' + ltop + ', the most in a slot); ' +
        'the dark band is ' +
        'the slot shown. Click a bar to go to its slot.'));
    lsvg.addEventListener('click', function (ev) {
        var r = lsvg.getBoundingClientRect(), x = (ev.clientX - r.left) * LW / r.width;
        if (x >= LL)
            go(Math.floor((x - LL) / lbw) * lper);
    });
    function showLinkUse(t) {
        lnow.setAttribute('x', lslotX(t).toFixed(2));
        lnote.setAttribute('data-slot', t);
        lnote.setAttribute('data-links-used', linkUse[t]);
        var share = 100 * linkUse[t] / Math.max(1, nLinks);
        lnote.textContent = 'slot ' + t + ': ' + linkUse[t] + ' of ' + nLinks +
            (bus ? ' channel' : ' links') + ' used (' + share.toFixed(0) +
            '%); over the run at most ' + linkMax;
    }
    var trailOn = false;
    function drawTrail(t) {
        var d = '', edges = [];
        for (var x = 0; trailOn && !heat && !bus && x < P; x++) {
            var e = trailE[x].e;
            if (e >= 0 && S[e] <= t && R[e] >= 0 && R[e] < P) {
                var p = route(R[e], x);
                for (var q = 0; q + 1 < p.length; q++)
                    d += segment(p[q], p[q + 1], 3).d;
                edges.push(R[e] + '>' + x);
            }
        }
        if (d)
            live.appendChild(el('path', {'class': 'trail', d: d, 'data-edges': edges.join(' ')},
                                undefined, true));
    }
    var cur = -1, playing = null, selected = -1, hashTimer = null;
    function render(t) {
        while (live.firstChild)
            live.removeChild(live.firstChild);
        while (labels.firstChild)
            labels.removeChild(labels.firstChild);
        placed = [];
        for (var v = 0; heat && v < P; v++)
            verts[v].style.fill = verts[v].style.stroke = '';
        if (chan)
            chan.setAttribute('class', 'chan');
        var from = lower(S, t), to = upper(S, t), nbad = 0;
        var stored = {}, logs = {}, list = [], fly = crossing(t);
        drawTrail(t);
        fly.forEach(function (e) {
            packet(e, fly.length <= 64);
        });
        for (var e = from; e < to; e++) {
            list.push(e);
            if (K[e] >= 3 && K[e] <= 5)
                mark(e, fly), nbad += K[e] !== 3;
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
        var still = fly.filter(function (f) {
            return S[f] !== t;
        });
        still.slice(0, 100).forEach(function (f) {
            shown.push('in flight (slots ' + (S[f] - U[f] + 1) + '..' + S[f] + '): node ' + R[f] +
                       ' to ' + N[f] + ' msg ' + M[f] + ' value ' + V[f]);
        });
        if (still.length > 100)
            shown.push('... and ' + (still.length - 100) + ' more in flight');
        evBox.textContent = shown.length ? shown.join('\n') : 'nothing happens in this slot';
        label.textContent = 'slot ' + t + '/' + last + ': ' + fly.length + ' in flight' +
            (nbad ? ', ' + nbad + ' conflict' + (nbad === 1 ? '' : 's') : '');
        label.title = 'slot ' + t + ' of ' + last + ': ' + fly.length +
            (bus ? ' broadcast' : ' packet') + (fly.length === 1 ? '' : 's') + ' in flight' +
            (nbad ? ', ' + nbad + ' conflicts or delays' : '');
        label.setAttribute('data-inflight', fly.length);
        if (kmat)
            drawKnowsMatrix(t);
        showLinkUse(t);
        placeCursor();
        slider.value = t;
        document.body.setAttribute('data-slot', t);
        /* The address keeps the slot (#slot=T), once stepping pauses. */
        if (hashTimer)
            clearTimeout(hashTimer);
        hashTimer = setTimeout(function () {
            hashTimer = null;
            try {
                history.replaceState(null, '', '#slot=' + cur);
            } catch (err) {
                /* a page the browser will not let change its address: keep it */
            }
        }, 150);
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
    bActive.onclick = function () { go(nextIn(S, cur)); };
    bTrail.onclick = function () {
        trailOn = !trailOn;
        bTrail.className = trailOn ? 'on' : '';
        var c = cur;
        cur = -1;
        go(c);
    };
    if (!D.knows || heat || bus)
        bTrail.style.display = 'none';
    nodeIn.onchange = function () { select(nodeIn.value); };
    bNode.onclick = function () {
        if (selected < 0)
            select(nodeIn.value);
        go(nextIn(evSlot[selected], cur));
    };
    svg.addEventListener('click', function (ev) {
        var g = ev.target.closest && ev.target.closest('[data-vertex]');
        if (g)
            select(g.getAttribute('data-vertex'));
    });
    document.addEventListener('keydown', function (ev) {
        if (ev.target && ev.target.tagName === 'INPUT' && ev.target.type === 'number')
            return;
        var keys = {' ': bPlay, ArrowLeft: bBack, ArrowRight: bFwd, Home: bFirst, End: bLast,
                    a: bActive, c: bBad, n: bNode, t: bTrail};
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
        /* For tests: the state at each of these slots, as the rows' data-stored,
         * data-held and data-knows (when the page has it). */
        var out = [];
        q.probe.split(',').forEach(function (t) {
            go(t);
            for (var x = 0; x < P; x++)
                out.push(cur + ' ' + x + ' ' + rows[x].el.getAttribute('data-stored') + ' ' +
                         rows[x].el.getAttribute('data-held') +
                         (D.knows ? ' ' + rows[x].el.getAttribute('data-knows') : '') +
                         (kmat ? ' ' + kmat.getAttribute('data-filled').split(',')[x] : ''));
        });
        app.appendChild(el('pre', {id: 'probe', hidden: ''}, out.join('\n')));
    }
    go(q.slot || 0);
    var steps = Number(q.step) || 0;
    for (i = 0; i < Math.abs(steps); i++)
        (steps > 0 ? bFwd : bBack).click();
    if (q.next === 'conflict')
        bBad.click();
    else if (q.next === 'active')
        bActive.click();
    else if (q.next === 'node')
        bNode.click();
    if (q.trail)
        bTrail.click();
    document.body.setAttribute('data-ready', '1');
    /* How long the player took to open, for the size check in tests/check_html.sh. */
    document.body.setAttribute('data-open-ms', String(Date.now() - t0));
})();
