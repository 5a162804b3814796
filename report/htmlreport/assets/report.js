// The report's own script. Each trace's calls travel in the page as data
// blocks (gzip-compressed JSON in base64) that this script decodes, then
// lists, filters and searches: the calls when the page loads, their
// arguments and results (the bulk) when a call is first opened or a search
// first looks through them; a call's whole entry is put in the document
// when it is opened. The timeline is one Tab stop: arrow keys move between
// its calls, Enter opens the call, a drag across it selects a range of
// calls. The URL's fragment keeps the filter of the trace last filtered
// (#ID?class=F&q=text…), so that a link shows the same view. The
// conversation's messages (user prompts, assistant text, reasoning) sit
// between the calls they came between, folded to one line; the search looks
// through them, the filters about calls leave them out, and a box hides
// them (msgs=0). Every string from the data is put in the page as text,
// never as markup.
(function () {
  "use strict";
  var CLASSES = { S: ["c-semantic", "semantic"], F: ["c-file", "file-level"], E: ["c-edit", "edit"], O: ["c-other", "other"] };
  var WHO = { u: "User", a: "Assistant", t: "Reasoning" };
  var SUBAGENT = 1, FAILED = 2, GROUND = 4;
  var PAGE = 200; // the entries drawn at a time
  var SVGNS = "http://www.w3.org/2000/svg";
  var views = {};
  var pending = 0;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }
  function svgEl(tag, attrs) {
    var e = document.createElementNS(SVGNS, tag);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    return e;
  }

  function decode(text) {
    if (typeof DecompressionStream === "undefined") {
      return Promise.reject(new Error("this browser cannot decompress them (it needs DecompressionStream: Chrome 80, Firefox 113, Safari 16.4 or later)"));
    }
    var b64 = text.trim().replace(/-/g, "+").replace(/_/g, "/");
    while (b64.length % 4) b64 += "=";
    var bin = atob(b64);
    var bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).json();
  }

  function firstLine(s) {
    var i = s.indexOf("\n");
    return i < 0 ? s : s.slice(0, i);
  }
  function shorten(s, n) {
    return s.length <= n ? s : s.slice(0, n - 1) + "…";
  }

  // ---- one trace ----
  function View(section) {
    var id = section.id;
    this.id = id;
    this.section = section;
    this.list = document.getElementById(id + "-list");
    this.form = document.getElementById(id + "-filters");
    this.tl = document.getElementById(id + "-tl");
    this.tlStatus = document.getElementById(id + "-tl-status");
    this.state = {};
    this.matches = [];
    this.shown = 0;
    this.cursor = 0;
    this.details = null; // [arguments, note, result, note] of each call, once read
  }

  // loadDetails reads the arguments and results of the calls, once.
  View.prototype.loadDetails = function () {
    var v = this;
    if (!v.detailsRead) {
      var block = document.getElementById(v.id + "-details");
      v.detailsRead = (block ? decode(block.textContent) : Promise.resolve([])).then(function (d) {
        v.details = d;
        v.text = new Array(v.calls.length);
        return d;
      });
    }
    return v.detailsRead;
  };

  View.prototype.init = function (data) {
    var v = this;
    v.data = data;
    v.calls = data.calls;
    v.patterns = data.patterns || [];
    v.msgs = data.messages || [];
    v.items = []; // what the list shows, in order: {c: call} or {m: message}
    v.text = new Array(v.calls.length); // search text, made when first searched
    if (v.form) {
      v.form.hidden = false;
      var tools = {};
      v.calls.forEach(function (c) { tools[c.t] = (tools[c.t] || 0) + 1; });
      var sel = v.form.elements.tool;
      Object.keys(tools).sort(function (a, b) { return tools[b] - tools[a] || (a < b ? -1 : 1); }).forEach(function (t) {
        var o = el("option", null, t);
        o.value = t;
        o.dataset.label = t;
        sel.appendChild(o);
      });
      Array.prototype.forEach.call(v.form.querySelectorAll("select option"), function (o) {
        if (!o.dataset.label) o.dataset.label = o.textContent.replace(/ \(\d+\)$/, "");
      });
      // Typing in the search box filters once the typing pauses.
      var typing = 0;
      v.form.addEventListener("input", function (e) {
        clearTimeout(typing);
        if (e.target.name === "q" && v.calls.length > 2000) {
          typing = setTimeout(function () { v.readForm(); v.apply(true); }, 150);
          return;
        }
        v.readForm();
        v.apply(true);
      });
      v.form.addEventListener("submit", function (e) { e.preventDefault(); });
      v.form.addEventListener("click", function (e) {
        var act = e.target.dataset && e.target.dataset.act;
        if (act === "expand" || act === "collapse") {
          Array.prototype.forEach.call(v.list.querySelectorAll("details.call, li.msg details"), function (d) { d.open = act === "expand"; });
        } else if (act === "clear") {
          v.state = {};
          v.writeForm();
          v.apply(true);
        } else if (act === "unrange") {
          delete v.state.from;
          delete v.state.to;
          v.apply(true);
        }
      });
    }
    v.list.addEventListener("toggle", function (e) {
      var d = e.target;
      if (d.tagName === "DETAILS" && d.open && !d.dataset.filled && d.dataset.step) {
        d.dataset.filled = "1";
        v.loadDetails().then(function () { d.appendChild(v.body(Number(d.dataset.step) - 1)); });
      }
    }, true);
    v.list.addEventListener("click", function (e) {
      if (e.target.dataset && e.target.dataset.act === "more") v.draw(v.shown + PAGE);
    });
    if (v.tl) v.initTimeline();
    v.apply(false);
    v.list.dataset.ready = "1";
  };

  View.prototype.readForm = function () {
    var f = this.form.elements, s = this.state;
    ["q", "class", "tool", "pattern"].forEach(function (k) {
      if (f[k].value) s[k] = f[k].value; else delete s[k];
    });
    ["failed", "gt", "sub"].forEach(function (k) {
      if (f[k] && f[k].checked) s[k] = "1"; else delete s[k];
    });
    // Messages are shown unless the box is cleared.
    if (f.msgs && !f.msgs.checked) s.msgs = "0"; else delete s.msgs;
  };
  View.prototype.writeForm = function () {
    if (!this.form) return;
    var f = this.form.elements, s = this.state;
    ["q", "class", "tool", "pattern"].forEach(function (k) { f[k].value = s[k] || ""; });
    ["failed", "gt", "sub"].forEach(function (k) { if (f[k]) f[k].checked = s[k] === "1"; });
    if (f.msgs) f.msgs.checked = s.msgs !== "0";
  };

  // messageTests are the filters a message must pass, null when the
  // filter leaves messages out: a filter about calls (class, tool,
  // pattern, failed, ground truth) shows calls alone.
  View.prototype.messageTests = function () {
    var v = this, s = v.state, t = [];
    if (s["class"] || s.tool || s.pattern || s.failed || s.gt) return null;
    if (s.q) {
      var q = s.q.toLowerCase();
      t.push(function (j) {
        if (v.mtext[j] === undefined) v.mtext[j] = v.msgs[j].x.toLowerCase();
        return v.mtext[j].indexOf(q) >= 0;
      });
    }
    if (s.sub) t.push(function (j) { return (v.msgs[j].f & SUBAGENT) !== 0; });
    if (s.from || s.to) {
      // A message goes with the call after it.
      var from = Number(s.from || 1), to = Number(s.to || v.calls.length);
      t.push(function (j) { var b = v.msgs[j].b; return b + 1 >= from && (b + 1 <= to || b === v.calls.length && to === v.calls.length); });
    }
    return t;
  };

  View.prototype.searchText = function (i) {
    var t = this.text[i];
    if (t === undefined) {
      var c = this.calls[i], d = this.details ? this.details[i] : ["", "", "", ""];
      t = [c.t, c.c, c.q, d[0], d[2], (c.fl || []).map(function (f) { return f[0]; }).join("\n")].join("\n").toLowerCase();
      this.text[i] = t;
    }
    return t;
  };

  // tests are the filters of the state, each a predicate on a call index;
  // a facet's counts are of the calls that pass every other filter.
  View.prototype.tests = function () {
    var v = this, s = v.state, t = {};
    if (s.q) {
      var q = s.q.toLowerCase();
      t.q = function (i) { return v.searchText(i).indexOf(q) >= 0; };
    }
    if (s["class"]) t["class"] = function (i) { return v.calls[i].k === s["class"]; };
    if (s.tool) t.tool = function (i) { return v.calls[i].t === s.tool; };
    if (s.pattern) t.pattern = function (i) { return v.inPattern(i, s.pattern); };
    if (s.failed) t.failed = function (i) { return (v.calls[i].f & FAILED) !== 0; };
    if (s.gt) t.gt = function (i) { return (v.calls[i].f & GROUND) !== 0; };
    if (s.sub) t.sub = function (i) { return (v.calls[i].f & SUBAGENT) !== 0; };
    if (s.from || s.to) {
      var from = Number(s.from || 1), to = Number(s.to || v.calls.length);
      t.range = function (i) { return i + 1 >= from && i + 1 <= to; };
    }
    return t;
  };
  View.prototype.inPattern = function (i, name) {
    var ps = this.calls[i].p || [];
    if (name === "none") return ps.length === 0;
    for (var j = 0; j < ps.length; j++) if (this.patterns[ps[j]].n === name) return true;
    return false;
  };

  View.prototype.apply = function (record) {
    var v = this, tests = v.tests(), names = Object.keys(tests), n = v.calls.length;
    var counts = { "class": {}, tool: {}, pattern: {}, failed: 0, gt: 0, sub: 0 };
    var facetTotal = { "class": 0, tool: 0, pattern: 0 };
    v.matches = [];
    for (var i = 0; i < n; i++) {
      var failedOn = null, fails = 0;
      for (var j = 0; j < names.length && fails < 2; j++) {
        if (!tests[names[j]](i)) { fails++; failedOn = names[j]; }
      }
      if (fails > 1) continue;
      var c = v.calls[i];
      if (fails === 0) v.matches.push(i);
      // A call that fails one filter still counts for that filter's facet.
      if (fails === 0 || failedOn === "class") { counts["class"][c.k] = (counts["class"][c.k] || 0) + 1; facetTotal["class"]++; }
      if (fails === 0 || failedOn === "tool") { counts.tool[c.t] = (counts.tool[c.t] || 0) + 1; facetTotal.tool++; }
      if (fails === 0 || failedOn === "pattern") {
        facetTotal.pattern++;
        var seen = {};
        (c.p || []).forEach(function (p) { seen[v.patterns[p].n] = 1; });
        if (!c.p || !c.p.length) seen.none = 1;
        for (var name in seen) counts.pattern[name] = (counts.pattern[name] || 0) + 1;
      }
      if ((fails === 0 || failedOn === "failed") && (c.f & FAILED)) counts.failed++;
      if ((fails === 0 || failedOn === "gt") && (c.f & GROUND)) counts.gt++;
      if ((fails === 0 || failedOn === "sub") && (c.f & SUBAGENT)) counts.sub++;
    }
    // The messages that pass the filter, merged with the calls in order:
    // a message comes before the call whose index it holds.
    var mtests = v.msgs.length ? v.messageTests() : null, mcount = 0, mshown = [];
    if (!v.mtext) v.mtext = new Array(v.msgs.length);
    if (mtests) {
      for (var m = 0; m < v.msgs.length; m++) {
        var pass = true;
        for (var q = 0; q < mtests.length && pass; q++) pass = mtests[q](m);
        if (pass) mcount++;
        if (pass && v.state.msgs !== "0") mshown.push(m);
      }
    }
    v.items = [];
    for (var a = 0, b = 0; a < v.matches.length || b < mshown.length;) {
      if (b < mshown.length && (a >= v.matches.length || v.msgs[mshown[b]].b <= v.matches[a])) v.items.push({ m: mshown[b++] });
      else v.items.push({ c: v.matches[a++] });
    }
    v.shownMessages = mshown.length;
    if (v.form) {
      var f = v.form.elements;
      if (f.msgs) f.msgs.parentNode.querySelector(".n").textContent = "(" + mcount + ")";
      ["class", "tool", "pattern"].forEach(function (k) {
        Array.prototype.forEach.call(f[k].options, function (o) {
          var m = o.value === "" ? facetTotal[k] : (counts[k][o.value] || 0);
          o.textContent = o.dataset.label + " (" + m + ")";
        });
      });
      ["failed", "gt", "sub"].forEach(function (k) {
        if (f[k]) f[k].parentNode.querySelector(".n").textContent = "(" + counts[k] + ")";
      });
      var range = v.form.querySelector(".range");
      range.textContent = "";
      range.hidden = !(v.state.from || v.state.to);
      if (!range.hidden) {
        range.appendChild(document.createTextNode("steps " + (v.state.from || 1) + "–" + (v.state.to || n) + " "));
        var b = el("button", null, "all steps");
        b.type = "button";
        b.dataset.act = "unrange";
        range.appendChild(b);
      }
      var st = v.form.querySelector(".status");
      st.textContent = names.length ? "Showing " + v.matches.length + " of " + n + " calls" : "Showing all " + n + " calls";
      if (v.msgs.length) st.textContent += " and " + (mshown.length === v.msgs.length ? "all " : "") + mshown.length + " of " + v.msgs.length + " messages";
      if (v.state.q && !v.details) {
        // The arguments and results are read for the first search; it
        // runs again over them once they are.
        st.textContent += " (reading the arguments and results…)";
        if (!v.rerun) {
          v.rerun = true;
          v.loadDetails().then(function () {
            v.rerun = false;
            if (v.state.q) v.apply(false);
          });
        }
      }
    }
    v.draw(PAGE);
    v.dimMarks(names.length > 0);
    v.drawWindow();
    if (record) v.record();
  };

  // draw puts the first count matching calls in the list.
  // draw puts the first count items (calls and messages) in the list. The
  // prompt and answer stand for the conversation when the trace has no
  // messages.
  View.prototype.draw = function (count) {
    var v = this, list = v.list, filtered = v.matches.length !== v.calls.length, items = v.items;
    var ends = !filtered && !v.msgs.length;
    var frag = document.createDocumentFragment();
    if (v.shown > 0 && count > v.shown && list.lastChild && list.lastChild.classList.contains("more")) {
      list.removeChild(list.lastChild);
      if (v.answerItem && v.answerItem.parentNode) list.removeChild(v.answerItem);
    } else {
      list.textContent = "";
      v.shown = 0;
      if (ends && v.data.prompt) frag.appendChild(v.message("User prompt", v.data.prompt, "prompt"));
    }
    var end = Math.min(count, items.length);
    for (var k = v.shown; k < end; k++) frag.appendChild(items[k].m === undefined ? v.entry(items[k].c) : v.messageEntry(items[k].m));
    v.shown = end;
    if (end < items.length) {
      var li = el("li", "more");
      var b = el("button", null, "Show " + Math.min(PAGE, items.length - end) + " more (" + (items.length - end) + " not shown)");
      b.type = "button";
      b.dataset.act = "more";
      li.appendChild(b);
      frag.appendChild(li);
    } else if (ends && v.data.answer) {
      v.answerItem = v.message("Final answer", v.data.answer, "answer");
      frag.appendChild(v.answerItem);
    }
    if (!items.length) frag.appendChild(el("li", "note", "No call matches the filter."));
    list.appendChild(frag);
  };

  // messageEntry is message j folded to one line: who wrote it, its first
  // line, and where the search found it.
  View.prototype.messageEntry = function (j) {
    var m = this.msgs[j], li = el("li", "msg who-" + m.r), d = el("details"), s = el("summary");
    li.id = this.id + "-m" + (j + 1);
    s.appendChild(el("strong", null, WHO[m.r] || "Assistant"));
    if (m.f & SUBAGENT) s.appendChild(el("span", "tag", "subagent"));
    s.appendChild(el("span", "mono gist", " " + shorten(firstLine(m.x), 100)));
    var hit = this.state.q ? markHit("text", m.x, this.state.q) : null;
    if (hit) s.appendChild(hit);
    d.appendChild(s);
    var body = el("div", "msg-body");
    if (m.w) body.appendChild(el("p", "when", m.w));
    body.appendChild(el("pre", "msg-text", m.x));
    if (m.n) body.appendChild(el("span", "cut", m.n));
    d.appendChild(body);
    li.appendChild(d);
    return li;
  };

  View.prototype.message = function (title, text, cls) {
    var li = el("li", "msg " + cls), d = el("details"), s = el("summary");
    s.appendChild(el("strong", null, title));
    s.appendChild(el("span", "mono", " " + shorten(firstLine(text), 100)));
    d.appendChild(s);
    d.appendChild(el("pre", "msg-text", text));
    li.appendChild(d);
    return li;
  };

  View.prototype.gist = function (c) {
    if (c.c) return shorten(firstLine(c.c), 90);
    if (c.q) return shorten(firstLine(c.q), 90);
    if (c.fl && c.fl.length) return shorten(c.fl[0][0] + (c.fl.length > 1 ? " (+" + (c.fl.length - 1) + ")" : ""), 100);
    return "";
  };

  View.prototype.entry = function (i) {
    var c = this.calls[i], cls = CLASSES[c.k] || CLASSES.O;
    var li = el("li"), d = el("details", "call"), s = el("summary");
    d.id = this.id + "-c" + (i + 1);
    d.dataset.step = i + 1;
    s.appendChild(el("span", "step", String(i + 1)));
    var k = el("span", "cls");
    var sw = svgEl("svg", { "class": "swatch", width: 11, height: 11, "aria-hidden": "true" });
    sw.appendChild(svgEl("rect", { "class": cls[0], width: 11, height: 11 }));
    k.appendChild(sw);
    k.appendChild(document.createTextNode(" " + cls[1]));
    s.appendChild(k);
    s.appendChild(document.createTextNode(" "));
    s.appendChild(el("strong", null, c.t));
    var g = this.gist(c);
    if (g) s.appendChild(el("span", "mono gist", " " + g));
    if (c.c && c.fl && c.fl.length) s.appendChild(el("span", "found", " → " + c.fl.length + (c.fl.length === 1 ? " file" : " files")));
    if (c.f & GROUND) s.appendChild(el("span", "tag gt", "ground truth"));
    if (c.f & SUBAGENT) s.appendChild(el("span", "tag", "subagent"));
    if (c.f & FAILED) s.appendChild(el("span", "tag err", "failed"));
    var v = this;
    (c.p || []).forEach(function (p) { s.appendChild(el("span", "tag", v.patterns[p].n)); });
    var hit = this.hit(i);
    if (hit) s.appendChild(hit);
    d.appendChild(s);
    li.appendChild(d);
    return li;
  };

  // hit shows where the search found a call's text, when it is in the
  // arguments, the result or the files: the line, the match marked.
  View.prototype.hit = function (i) {
    var q = this.state.q, c = this.calls[i];
    if (!q) return null;
    var d = this.details ? this.details[i] : null;
    var places = [["ran", c.c], ["query", c.q], ["arguments", d && d[0]], ["result", d && d[2]], ["files", (c.fl || []).map(function (f) { return f[0]; }).join("\n")]];
    for (var k = 0; k < places.length; k++) {
      var p = markHit(places[k][0], places[k][1] || "", q);
      if (p) return p;
    }
    return null;
  };

  // markHit is the line of text where q is found, the match marked, with
  // where it was found; null when q is not in text.
  function markHit(where, text, q) {
    q = q.toLowerCase();
    var at = text.toLowerCase().indexOf(q);
    if (at < 0) return null;
    var start = text.lastIndexOf("\n", at) + 1, end = text.indexOf("\n", at);
    if (end < 0) end = text.length;
    var from = Math.max(start, at - 60), to = Math.min(end, at + q.length + 60);
    var p = el("span", "hit");
    p.appendChild(el("span", "where", where + ": "));
    p.appendChild(document.createTextNode((from > start ? "…" : "") + text.slice(from, at)));
    p.appendChild(el("mark", null, text.slice(at, at + q.length)));
    p.appendChild(document.createTextNode(text.slice(at + q.length, to) + (to < end ? "…" : "")));
    return p;
  }

  // body is the whole of a call, put in the page when its entry opens.
  View.prototype.body = function (i) {
    var c = this.calls[i], cls = CLASSES[c.k] || CLASSES.O, v = this;
    var div = el("div", "call-body"), dl = el("dl");
    function row(label, node) {
      dl.appendChild(el("dt", null, label));
      var dd = el("dd");
      if (typeof node === "string") dd.textContent = node; else dd.appendChild(node);
      dl.appendChild(dd);
      return dd;
    }
    row("tool", c.t + " (" + cls[1] + (c.g ? ", " + c.g : "") + ")").className = "mono";
    if (c.w) row("at", c.w);
    if (c.c) row("ran", el("pre", null, c.c));
    if (c.q) row("query", c.q).className = "mono";
    if (c.p && c.p.length) {
      var ul = el("ul", "evidence");
      c.p.forEach(function (p) { var pt = v.patterns[p]; ul.appendChild(el("li", null, pt.n + ", steps " + pt.s + "–" + pt.e + ": " + pt.d)); });
      row("patterns", ul);
    }
    if (c.y && c.y.length) row("symbols", c.y.join(", ")).className = "mono";
    if (c.fl && c.fl.length) {
      var fl = el("ul", "evidence");
      c.fl.forEach(function (f) {
        var li = el("li");
        li.appendChild(el("span", "mono", f[0]));
        if (f[1] & 1) li.appendChild(el("span", "tag gt", "ground truth"));
        if (f[1] & 2) li.appendChild(el("span", "tag", "read"));
        if (f[1] & 4) li.appendChild(el("span", "tag", "written"));
        fl.appendChild(li);
      });
      row("files", fl);
    }
    if (c.l && c.l.length) row("lines", c.l.join(", ")).className = "mono";
    var d = v.details[i] || ["", "", "", ""];
    var args = row("arguments", d[0] ? el("pre", null, d[0]) : "none");
    if (d[1]) args.appendChild(el("span", "cut", d[1]));
    var res = row("result", d[2] ? el("pre", "result", d[2]) : "");
    if (d[3]) res.appendChild(el("span", "cut", d[3]));
    div.appendChild(dl);
    return div;
  };

  // reveal opens the entry of a call (0-based), drawing it if it is not
  // drawn yet and clearing the filter if the call does not match it.
  View.prototype.reveal = function (i, focus) {
    var v = this, k = v.itemOf(i);
    if (k < 0) {
      v.state = {};
      v.writeForm();
      v.apply(true);
      k = v.itemOf(i);
    }
    if (k >= v.shown) v.draw(k + PAGE);
    var d = document.getElementById(v.id + "-c" + (i + 1));
    if (!d) return;
    openAncestors(d);
    d.open = true;
    d.scrollIntoView({ block: "start" });
    if (focus) d.querySelector("summary").focus();
    v.cursor = i;
    v.moveCursor();
  };

  // itemOf is the place of call i among the items listed, -1 when the
  // filter leaves it out.
  View.prototype.itemOf = function (i) {
    for (var k = 0; k < this.items.length; k++) if (this.items[k].c === i) return k;
    return -1;
  };

  View.prototype.record = function () {
    var p = new URLSearchParams();
    var s = this.state;
    Object.keys(s).sort().forEach(function (k) { p.set(k, s[k]); });
    var q = p.toString();
    history.replaceState(null, "", "#" + this.id + (q ? "?" + q : ""));
  };

  // ---- the timeline ----
  View.prototype.initTimeline = function () {
    var v = this, tl = v.tl, svg = tl.querySelector("svg");
    v.svg = svg;
    v.x0 = Number(tl.dataset.x0);
    v.pitch = Number(tl.dataset.pitch);
    v.marks = svg.querySelectorAll("rect.call");
    var vb = svg.viewBox.baseVal;
    v.axisY = vb.height - 30;
    v.cursorRect = svgEl("rect", { "class": "cursor", y: 1, height: v.axisY - 1, width: Math.max(v.pitch, 2), x: v.x0, visibility: "hidden" });
    v.windowRect = svgEl("rect", { "class": "window", y: 1, height: v.axisY - 1, width: 0, x: v.x0, visibility: "hidden" });
    svg.appendChild(v.windowRect);
    svg.appendChild(v.cursorRect);
    tl.tabIndex = 0;
    tl.setAttribute("role", "slider");
    tl.setAttribute("aria-label", "Timeline: arrow keys move between calls, Enter opens the call");
    tl.setAttribute("aria-valuemin", "1");
    tl.setAttribute("aria-valuemax", String(v.calls.length));
    tl.setAttribute("aria-valuenow", "1");
    tl.addEventListener("keydown", function (e) { v.key(e); });
    tl.addEventListener("keyup", function (e) {
      if (e.key === "Enter" || e.key === " ") {
        e.preventDefault();
        v.reveal(v.cursor, true);
      }
    });
    tl.addEventListener("focus", function () { v.moveCursor(); });
    // A drag across the timeline selects a range; a drag that starts inside
    // the range's window moves the window.
    var drag = null;
    svg.addEventListener("pointerdown", function (e) {
      if (e.button !== 0) return;
      e.preventDefault(); // no text selection, no native drag to cancel ours
      var at = v.stepAt(e), r = v.range();
      drag = { start: at, moved: false, move: r && at >= r[0] && at <= r[1] ? r : null };
      svg.setPointerCapture(e.pointerId);
    });
    svg.addEventListener("pointermove", function (e) {
      if (!drag) return;
      var at = v.stepAt(e);
      if (at !== drag.start) drag.moved = true;
      if (!drag.moved) return;
      if (drag.move) {
        var w = v.shifted(drag.move, at - drag.start);
        v.drawWindow(w[0], w[1]);
      } else {
        v.drawWindow(Math.min(drag.start, at), Math.max(drag.start, at));
      }
    });
    svg.addEventListener("pointercancel", function () {
      drag = null;
      v.drawWindow();
    });
    svg.addEventListener("pointerup", function (e) {
      if (!drag) return;
      var at = v.stepAt(e), d = drag;
      drag = null;
      if (d.moved) {
        v.setRange(d.move ? v.shifted(d.move, at - d.start) : [Math.min(d.start, at), Math.max(d.start, at)]);
      } else {
        var t = e.target.dataset && e.target.dataset.step;
        v.reveal(t ? Number(t) - 1 : at, false);
      }
    });
  };

  // range is the selected range of calls, 0-based, or null.
  View.prototype.range = function () {
    var s = this.state;
    if (!s.from && !s.to) return null;
    return [Number(s.from || 1) - 1, Number(s.to || this.calls.length) - 1];
  };
  View.prototype.setRange = function (r) {
    if (!r) {
      delete this.state.from;
      delete this.state.to;
    } else {
      this.state.from = String(r[0] + 1);
      this.state.to = String(r[1] + 1);
    }
    this.apply(true);
  };
  // shifted is range r moved by d calls, kept within the trace.
  View.prototype.shifted = function (r, d) {
    var n = this.calls.length;
    d = Math.max(-r[0], Math.min(n - 1 - r[1], d));
    return [r[0] + d, r[1] + d];
  };
  // zoomed is the range around the cursor f times as wide as the current
  // one (the whole trace when there is none).
  View.prototype.zoomed = function (f) {
    var n = this.calls.length, r = this.range() || [0, n - 1];
    var w = Math.max(1, Math.min(n, Math.round((r[1] - r[0] + 1) * f)));
    if (w >= n) return null;
    var a = Math.max(0, Math.min(n - w, this.cursor - Math.floor(w / 2)));
    return [a, a + w - 1];
  };

  // stepAt is the call (0-based) under a pointer event.
  View.prototype.stepAt = function (e) {
    var pt = this.svg.createSVGPoint();
    pt.x = e.clientX;
    pt.y = e.clientY;
    var p = pt.matrixTransform(this.svg.getScreenCTM().inverse());
    var i = Math.floor((p.x - this.x0) / this.pitch);
    return Math.max(0, Math.min(this.calls.length - 1, i));
  };

  View.prototype.key = function (e) {
    var v = this, n = v.calls.length;
    // With a filter, the keys move between the calls it shows.
    var steps = v.matches.length && v.matches.length < n ? v.matches : null;
    var at = steps ? Math.max(0, steps.indexOf(v.cursor)) : v.cursor, last = steps ? steps.length - 1 : n - 1;
    var by = e.shiftKey ? 10 : 1;
    switch (e.key) {
      case "ArrowRight": case "ArrowDown": at = Math.min(last, at + by); break;
      case "ArrowLeft": case "ArrowUp": at = Math.max(0, at - by); break;
      case "PageDown": at = Math.min(last, at + Math.max(10, Math.round(last / 10))); break;
      case "PageUp": at = Math.max(0, at - Math.max(10, Math.round(last / 10))); break;
      case "+": case "=": e.preventDefault(); v.setRange(v.zoomed(0.5)); return;
      case "-": e.preventDefault(); v.setRange(v.zoomed(2)); return;
      case "Home": at = 0; break;
      case "End": at = last; break;
      case "Enter": case " ":
        // The call opens when the key comes up, so that the focus it moves
        // to the call's entry does not take the key's press as well.
        e.preventDefault();
        return;
      default: return;
    }
    e.preventDefault();
    v.cursor = steps ? steps[at] : at;
    v.moveCursor();
  };

  View.prototype.describe = function (i) {
    var c = this.calls[i], cls = CLASSES[c.k] || CLASSES.O;
    var parts = ["step " + (i + 1) + " of " + this.calls.length, c.t, cls[1]];
    if (c.f & GROUND) parts.push("hits the ground truth");
    if (c.f & FAILED) parts.push("failed");
    if (c.f & SUBAGENT) parts.push("subagent");
    var g = this.gist(c);
    if (g) parts.push(g);
    return parts.join(", ");
  };

  View.prototype.moveCursor = function () {
    if (!this.tl) return;
    var i = this.cursor;
    this.cursorRect.setAttribute("x", this.x0 + i * this.pitch - (this.pitch < 2 ? 1 : 0));
    this.cursorRect.setAttribute("visibility", "visible");
    var text = this.describe(i);
    this.tl.setAttribute("aria-valuenow", String(i + 1));
    this.tl.setAttribute("aria-valuetext", text);
    this.tlStatus.textContent = text;
  };

  View.prototype.dimMarks = function (on) {
    if (!this.marks || !this.marks.length) return;
    var keep = {};
    if (on) this.matches.forEach(function (i) { keep[i + 1] = 1; });
    Array.prototype.forEach.call(this.marks, function (m) {
      m.classList.toggle("dim", on && !keep[m.dataset.step]);
    });
  };

  View.prototype.drawWindow = function (a, b) {
    if (!this.windowRect) return;
    if (a === undefined) {
      this.drawZoom();
      if (!this.state.from && !this.state.to) {
        this.windowRect.setAttribute("visibility", "hidden");
        return;
      }
      a = Number(this.state.from || 1) - 1;
      b = Number(this.state.to || this.calls.length) - 1;
    }
    this.windowRect.setAttribute("x", this.x0 + a * this.pitch);
    this.windowRect.setAttribute("width", Math.max((b - a + 1) * this.pitch, 2));
    this.windowRect.setAttribute("visibility", "visible");
  };

  // drawZoom draws the calls of the selected range in a strip under the
  // timeline, one mark per call (a column per run of calls when they
  // outnumber the strip's units), each opening its call when clicked.
  View.prototype.drawZoom = function () {
    var v = this, r = v.range();
    if (!v.zoom) {
      v.zoom = el("div", "zoom");
      v.zoom.id = v.id + "-zoom";
      v.zoom.addEventListener("click", function (e) {
        var t = e.target.dataset && e.target.dataset.step;
        if (t) v.reveal(Number(t) - 1, false);
      });
      v.tl.parentNode.insertBefore(v.zoom, v.tl.nextSibling);
    }
    v.zoom.textContent = "";
    v.zoom.hidden = !r;
    if (!r) return;
    var count = r[1] - r[0] + 1, plot = Number(v.tl.dataset.plot) || 840, x0 = v.x0;
    var per = Math.max(1, Math.ceil(count / plot)), cols = Math.ceil(count / per), pitch = plot / cols;
    var sub = v.calls.some(function (c) { return c.f & SUBAGENT; });
    var h = sub ? 86 : 60, W = x0 + plot + 12;
    var svg = svgEl("svg", { "class": "zoom", viewBox: "0 0 " + W + " " + h, width: W, height: h, role: "img", "aria-label": "Calls " + (r[0] + 1) + " to " + (r[1] + 1) + ", enlarged" });
    var label = function (text, y) { var t = svgEl("text", { "class": "row-label", x: 4, y: y }); t.textContent = text; svg.appendChild(t); };
    label("steps " + (r[0] + 1) + "–" + (r[1] + 1), 12);
    label("main agent", 34);
    if (sub) label("subagent", 60);
    for (var col = 0; col < cols; col++) {
      var from = r[0] + col * per, to = Math.min(r[1], from + per - 1);
      var x = x0 + col * pitch, w = Math.max(pitch - (pitch > 3 ? 1 : 0), 0.5);
      [false, true].forEach(function (isSub) {
        if (isSub && !sub) return;
        var y = isSub ? 48 : 22, seen = {}, n = 0, gt = false, failed = false;
        for (var i = from; i <= to; i++) {
          var c = v.calls[i];
          if (!!(c.f & SUBAGENT) !== isSub) continue;
          seen[c.k] = (seen[c.k] || 0) + 1;
          n++;
          gt = gt || (c.f & GROUND);
          failed = failed || (c.f & FAILED);
        }
        if (!n) return;
        var top = y;
        ["S", "F", "E", "O"].forEach(function (k) {
          if (!seen[k]) return;
          var hh = 20 * seen[k] / n;
          var m = svgEl("rect", { "class": CLASSES[k][0] + (failed ? " err" : ""), x: x, y: top, width: w, height: hh, "data-step": from + 1 });
          var t = svgEl("title", {});
          t.textContent = per === 1 ? v.describe(from) : "steps " + (from + 1) + "–" + (to + 1);
          m.appendChild(t);
          svg.appendChild(m);
          top += hh;
        });
        if (gt) svg.appendChild(svgEl("circle", { "class": "gt", cx: x + w / 2, cy: y - 4, r: 2.5 }));
      });
    }
    v.zoom.appendChild(svg);
  };

  // ---- the page ----
  function openAncestors(node) {
    for (var n = node.parentNode; n; n = n.parentNode) {
      if (n.tagName === "DETAILS") n.open = true;
    }
  }

  function follow(fromLoad) {
    var raw = location.hash.slice(1);
    if (!raw) return;
    // The filter's values stay encoded until URLSearchParams reads them: a
    // search for "a&b" is q=a%26b.
    var q = raw.indexOf("?");
    if (q >= 0) {
      var v = views[decodeURIComponent(raw.slice(0, q))];
      if (v && !v.calls && v.start) {
        // A folded scenario's calls: opened, read, then followed.
        openAncestors(v.section);
        v.start().then(function () { if (v.calls) follow(fromLoad); });
        return;
      }
      if (!v || !v.calls) return;
      var p = new URLSearchParams(raw.slice(q + 1));
      v.state = {};
      p.forEach(function (val, k) { v.state[k] = val; });
      v.writeForm();
      v.apply(false);
      openAncestors(v.section);
      if (fromLoad) v.section.scrollIntoView({ block: "start" });
      return;
    }
    var hash = decodeURIComponent(raw);
    var m = /^(.*)-c(\d+)$/.exec(hash);
    if (m && views[m[1]] && !views[m[1]].calls && views[m[1]].start) {
      openAncestors(views[m[1]].section);
      views[m[1]].start().then(function () { if (views[m[1]].calls) follow(fromLoad); });
      return;
    }
    if (m && views[m[1]] && views[m[1]].calls) {
      views[m[1]].reveal(Number(m[2]) - 1, false);
      return;
    }
    var target = document.getElementById(hash);
    if (target) {
      openAncestors(target);
      if (target.tagName === "DETAILS") target.open = true;
      var inner = target.querySelector(":scope > details");
      if (inner) inner.open = true;
      target.scrollIntoView({ block: "start" });
    }
  }

  function done() {
    pending--;
    if (pending === 0) ready();
  }
  // ready marks the page as drawn, for tests and benchmarks.
  function ready() {
    follow(true);
    if (window.performance && performance.mark) performance.mark("calls-drawn");
    document.documentElement.dataset.ready = "1";
  }

  // A trace's calls are read and drawn when the page loads, or, inside a
  // folded scenario (one that passed, on a check report), when it is first
  // opened: a report of many scenarios draws only those that need a look.
  Array.prototype.forEach.call(document.querySelectorAll("section.trace"), function (section) {
    var block = document.getElementById(section.id + "-data");
    if (!block) return;
    var v = new View(section);
    views[section.id] = v;
    v.start = function () {
      if (!v.started) {
        v.started = decode(block.textContent).then(function (data) { v.init(data); }).catch(function (err) {
          v.list.appendChild(el("li", "warning", "The calls could not be read: " + (err && err.message || err)));
        });
      }
      return v.started;
    };
    var folded = section.parentNode && section.parentNode.closest ? section.parentNode.closest("details") : null;
    if (folded && !folded.open) {
      folded.addEventListener("toggle", function () { if (folded.open) v.start(); });
      return;
    }
    pending++;
    v.start().then(done);
  });
  if (pending === 0) ready();
  window.addEventListener("hashchange", function () { follow(false); });
})();
