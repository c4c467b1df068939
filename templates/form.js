/* humaneval annotation form (docs/analysis.md).
   All data comes from the JSON payload and is rendered with textContent only: no innerHTML,
   document.write or eval is ever used with data. */
(function () {
  "use strict";

  var PREVIEW_ID = "ASSIGNMENT_ID_NOT_AVAILABLE";

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (k) {
        if (attrs[k] !== null && attrs[k] !== undefined && attrs[k] !== false) {
          node.setAttribute(k, attrs[k] === true ? "" : String(attrs[k]));
        }
      });
    }
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    return node;
  }

  function add(parent) {
    for (var i = 1; i < arguments.length; i++) { if (arguments[i]) { parent.appendChild(arguments[i]); } }
    return parent;
  }

  /* Trusted preset text: paragraphs split at blank lines, **bold** as <strong>, the rest as text. */
  function richText(text, className) {
    var box = el("div", { "class": className || "rich" });
    String(text || "").split(/\n\s*\n/).forEach(function (para) {
      if (!para.trim()) { return; }
      var p = el("p");
      para.split("**").forEach(function (part, k) { add(p, k % 2 ? el("strong", null, part) : document.createTextNode(part)); });
      add(box, p);
    });
    return box;
  }

  function decodePayload(raw) {
    raw = raw.trim();
    if (raw.charAt(0) === "{") { return JSON.parse(raw); }
    var b64 = raw.replace(/-/g, "+").replace(/_/g, "/");
    while (b64.length % 4) { b64 += "="; }
    var bin = atob(b64);
    var bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) { bytes[i] = bin.charCodeAt(i); }
    return JSON.parse(new TextDecoder("utf-8").decode(bytes));
  }

  /* FNV-1a 32-bit hash of the assignment id selects the slot. */
  function fnv1a(text) {
    var h = 0x811c9dc5;
    var bytes = new TextEncoder().encode(text);
    for (var i = 0; i < bytes.length; i++) {
      h ^= bytes[i];
      h = Math.imul(h, 0x01000193) >>> 0;
    }
    return h >>> 0;
  }

  var P = decodePayload(document.getElementById("hx-payload").textContent);
  /* Screens judged by several slots of a page are stored once in P.shared (forms.render.shared_screens):
     a slot's {id, ref, order} becomes the shared screen with its entries in that order. */
  if (P.shared) {
    P.slots.forEach(function (s) {
      s.screens = s.screens.map(function (sc) {
        if (!sc.ref) { return sc; }
        var base = P.shared[sc.ref];
        var copy = {};
        Object.keys(base).forEach(function (k) { copy[k] = base[k]; });
        copy.id = sc.id;
        copy.entries = sc.order.map(function (k) { return base.entries[k]; });
        return copy;
      });
    });
  }
  /* Set by the Prolific page (prolific.js): {startAt, saveScreen(index, record, ui, done(next)), finish()}. */
  var host = window.hxHost || null;
  var preset = P.preset;
  var params = new URLSearchParams(window.location.search);
  var assignmentId = params.get("assignmentId");
  var preview = assignmentId === PREVIEW_ID;
  var localTest = !assignmentId;
  var slotIndex = 0;
  if (localTest && params.get("slot")) {
    P.slots.forEach(function (s, k) { if (s.slot === params.get("slot")) { slotIndex = k; } });
  } else if (assignmentId && !preview) {
    slotIndex = fnv1a(assignmentId) % P.slots.length;
  }
  var slot = P.slots[slotIndex];
  var screens = slot.screens;
  var root = document.getElementById("hx-app");
  var saved = {};
  var order = [];
  var submitted = false;

  function submitAction() {
    var origin = P.submit.default_origin;
    var given = params.get("turkSubmitTo");
    if (given) {
      try {
        var o = new URL(given).origin;
        if (P.submit.allowed_origins.indexOf(o) >= 0) { origin = o; }
      } catch (e) { /* malformed: keep the configured origin */ }
    }
    return origin + "/mturk/externalSubmit";
  }

  var form = el("form", { method: "post", action: submitAction(), id: "hx-submit-form" });
  function setField(name, value) {
    saved[name] = String(value);
    var input = form.querySelector("input[name='" + name + "']");
    if (!input) { input = el("input", { type: "hidden", name: name }); form.appendChild(input); }
    input.value = String(value);
  }

  function guard(e) { e.preventDefault(); e.returnValue = ""; return ""; }

  function overviewText() { return String(preset.overview || "").split("{n}").join(String(screens.length)); }

  function instructions() {
    var box = el("div", { "class": "instructions" });
    add(box, richText(overviewText()));
    if (preset.definition) { add(box, el("h3", null, "Definition"), richText(preset.definition)); }
    var anchorKeys = Object.keys(preset.anchors || {});
    if (anchorKeys.length) {
      var ul = el("ul", { "class": "anchors" });
      anchorKeys.forEach(function (k) { add(ul, el("li", null, k + ": " + preset.anchors[k])); });
      add(box, el("h3", null, "Scale guide"), ul);
    }
    return box;
  }

  function startPage() {
    var page = el("section", { "class": "page start", id: "hx-start" });
    add(page, el("h1", { tabindex: "-1" }, preset.title || "Annotation task"), instructions());
    if (P.estimated_minutes) {
      add(page, el("p", { "class": "muted" }, "Estimated time: about " + P.estimated_minutes + " minutes."));
    }
    var start = el("button", { type: "button", "class": "primary", id: "hx-start-button" }, "Start");
    if (P.consent) {
      var consentId = "hx-consent";
      var box = el("div", { "class": "consent" });
      var cb = el("input", { type: "checkbox", id: consentId });
      add(box, richText(P.consent), add(el("label", { "for": consentId }), cb, document.createTextNode(" I agree")));
      var msg = el("p", { "class": "error", role: "alert" });
      add(page, box, msg);
      start.addEventListener("click", function () {
        if (!cb.checked) { msg.textContent = "If you do not agree, please return the task."; return; }
        showScreen(0);
      });
    } else {
      start.addEventListener("click", function () { showScreen(0); });
    }
    add(page, start);
    return page;
  }

  function textBlock(text, label, className) {
    var fig = el("div", { "class": className || "text-block" });
    if (label) { add(fig, el("div", { "class": "text-label" }, label)); }
    add(fig, el("div", { "class": "text" }, text));
    return fig;
  }

  function entryText(entry) { return P.texts[entry.text]; }

  /* ---- widgets: each returns {node, validate() -> {ok, focus, message}, record()} ---- */

  /* The questions asked about an entry: every criterion's for a summary of a multi-question
     form (field lk_q{m}_…), the preset's one question otherwise (checks, warm-ups). */
  function entryQuestions(entry) {
    var qs = preset.questions || [];
    if (qs.length && !entry.check && entry.field.indexOf("lk_q0_") === 0) {
      return qs.map(function (q, m) { return { q: q, m: m, field: entry.field.replace(/^lk_q0_/, "lk_q" + m + "_") }; });
    }
    return [{ q: preset, m: 0, field: entry.field }];
  }

  function likertWidget(screen, entry, k, q, field, m) {
    q = q || preset;
    field = field || entry.field;
    var fs = el("fieldset", { "class": "likert", "data-question": m ? String(m) : null });
    add(fs, el("legend", null, q.question));
    var scale = el("div", { "class": "scale" });
    var labels = q.labels || {};
    for (var p = 1; p <= q.points; p++) {
      var id = "hx-" + screen.id + "-" + k + (m ? "-q" + m : "") + "-" + p;
      var input = el("input", { type: "radio", name: field, value: p, id: id });
      var label = add(el("label", { "for": id, "class": "point" }), input, el("span", { "class": "num" }, p));
      if (labels[String(p)]) { add(label, el("span", { "class": "point-label" }, labels[String(p)])); }
      add(scale, label);
    }
    add(fs, scale);
    var anchorKeys = Object.keys(q.anchors || {});
    if (anchorKeys.length) {
      var ul = el("ul", { "class": "anchors" });
      anchorKeys.forEach(function (a) { add(ul, el("li", null, a + ": " + q.anchors[a])); });
      add(fs, ul);
    }
    var widget = {
      node: fs,
      next: null,
      validate: function () {
        var c = fs.querySelector("input:checked");
        return c ? { ok: true } : { ok: false, focus: fs.querySelector("input"), message: "Please choose a value on the scale." };
      },
      record: function () { return [[field, fs.querySelector("input:checked").value]]; }
    };
    /* digits choose a point; with several questions the focus then moves on to the next one */
    fs.addEventListener("keydown", function (e) {
      var d = parseInt(e.key, 10);
      if (d >= 1 && d <= q.points) {
        e.preventDefault();
        var r = fs.querySelector("input[value='" + d + "']");
        r.checked = true;
        if (widget.next) {
          (widget.next.querySelector("input:checked") || widget.next.querySelector("input")).focus();
        } else { r.focus(); }
      }
    });
    return widget;
  }

  function sliderWidget(screen, entry, k) {
    var fs = el("fieldset", { "class": "slider" });
    add(fs, el("legend", null, preset.question));
    var id = "hx-" + screen.id + "-" + k + "-slider";
    var input = el("input", { type: "range", min: 0, max: 100, step: 1, value: 50, id: id, "class": "untouched", name: entry.field });
    var ends = el("div", { "class": "slider-ends" });
    add(ends, el("span", null, preset.labels["0"] || "0"), el("span", null, preset.labels["100"] || "100"));
    var touched = false;
    function touch() { touched = true; input.classList.remove("untouched"); }
    input.addEventListener("input", touch);
    input.addEventListener("change", touch);
    input.addEventListener("keydown", touch);
    add(fs, el("label", { "for": id, "class": "visually-hidden" }, preset.question), input, ends);
    return {
      node: fs,
      validate: function () {
        return touched ? { ok: true } : { ok: false, focus: input, message: "Please move the slider to give your answer." };
      },
      record: function () { return [[entry.field, input.value]]; }
    };
  }

  /* Error spans: select with the mouse, or move with the arrow keys and extend with Shift+arrows;
     M (or the Mark button) marks the selection with the chosen severity and category. Offsets count
     code points (Array.from), as Python's str does. */
  function spansWidget(screen, entry, k) {
    var chars = Array.from(entryText(entry) || "");
    var n = chars.length;
    var marks = [], caret = 0, anchor = null;
    var categories = preset.categories || [];
    var box = el("div", { "class": "spans" });
    var help = "Text: arrow keys move, Shift+arrows select, M marks the selection";
    var textId = "hx-" + screen.id + "-" + k + "-text";
    var text = el("div", { "class": "span-text text", tabindex: "0", id: textId, role: "textbox",
      "aria-readonly": "true", "aria-label": help });
    var cells = chars.map(function (c, i) { var s = el("span", { "class": "ch", "data-i": String(i) }, c); add(text, s); return s; });
    var sevs = el("fieldset", { "class": "span-severity" });
    add(sevs, el("legend", null, "Severity"));
    ["minor", "major"].forEach(function (sv, j) {
      var id = "hx-" + screen.id + "-" + k + "-sev-" + sv;
      var input = el("input", { type: "radio", name: "hx-sev-" + screen.id + "-" + k, value: sv, id: id });
      if (j === 0) { input.checked = true; }
      add(sevs, add(el("label", { "for": id, "class": "point wide" }), input, el("span", null, sv)));
    });
    var catId = "hx-" + screen.id + "-" + k + "-cat";
    var cat = el("select", { id: catId });
    categories.forEach(function (c) { add(cat, el("option", { value: c }, c)); });
    var catWrap = add(el("div", { "class": "span-category" }), el("label", { "for": catId }, "Category"), cat);
    if (categories.length < 2) { catWrap.hidden = true; }
    var markBtn = el("button", { type: "button", id: "hx-" + screen.id + "-" + k + "-mark" }, "Mark");
    var status = el("p", { "class": "span-status", role: "status" });
    var list = el("ul", { "class": "span-list" });
    var slider = null, touched = false;
    function selection() {
      if (anchor === null || anchor === caret) { return null; }
      return [Math.min(anchor, caret), Math.max(anchor, caret)];
    }
    function render() {
      var sel = selection();
      cells.forEach(function (cell, i) {
        var m = null;
        marks.forEach(function (x) { if (x.start <= i && i < x.end) { m = m && m.severity === "major" ? m : x; } });
        cell.className = "ch" + (m ? " marked " + m.severity : "") + (sel && sel[0] <= i && i < sel[1] ? " pending" : "") +
          (i === caret && document.activeElement === text ? " caret" : "");
      });
      while (list.firstChild) { list.removeChild(list.firstChild); }
      marks.forEach(function (x, j) {
        var remove = el("button", { type: "button", "class": "link" }, "Remove");
        remove.addEventListener("click", function () { marks.splice(j, 1); render(); text.focus(); });
        add(list, add(el("li"), el("span", null, "\u201c" + chars.slice(x.start, x.end).join("") + "\u201d \u2014 " +
          x.severity + (categories.length > 1 ? ", " + x.category : "") + " "), remove));
      });
    }
    function mark() {
      var sel = selection();
      if (!sel) { status.textContent = "Select the words of an error first."; text.focus(); return; }
      var severity = sevs.querySelector("input:checked").value, category = cat.value;
      var clash = marks.some(function (x) { return x.category === category && x.start < sel[1] && sel[0] < x.end; });
      if (clash) { status.textContent = "This overlaps an error you marked with the same category; remove that one first."; return; }
      marks.push({ start: sel[0], end: sel[1], severity: severity, category: category });
      marks.sort(function (a, b) { return a.start - b.start || a.end - b.end; });
      status.textContent = "Marked \u201c" + chars.slice(sel[0], sel[1]).join("") + "\u201d as " + severity + ".";
      anchor = null;
      render();
    }
    text.addEventListener("keydown", function (e) {
      var moves = { ArrowLeft: -1, ArrowRight: 1, Home: -n, End: n };
      if (moves[e.key] !== undefined) {
        e.preventDefault();
        if (e.shiftKey) { if (anchor === null) { anchor = caret; } } else { anchor = null; }
        caret = Math.max(0, Math.min(n, caret + moves[e.key]));
        render();
      } else if (e.key === "Enter") {
        e.preventDefault();
        mark();
      }
    });
    box.addEventListener("keydown", function (e) {  // M marks from the text and from the severity and category
      if ((e.key === "m" || e.key === "M") && !e.ctrlKey && !e.metaKey && !e.altKey && e.target.tagName !== "SELECT") {
        e.preventDefault();
        mark();
      }
    });
    text.addEventListener("focus", render);
    text.addEventListener("blur", render);
    function position(node, offset) {
      var cell = node.nodeType === 1 ? node : node.parentNode;
      if (cell === text) { return offset >= cells.length ? n : Number(cells[offset].getAttribute("data-i")); }
      if (!cell || !cell.hasAttribute || !cell.hasAttribute("data-i")) { return null; }
      return Number(cell.getAttribute("data-i")) + (offset > 0 ? 1 : 0);
    }
    text.addEventListener("mouseup", function () {
      var s = window.getSelection();
      if (!s || s.isCollapsed) { return; }
      var a = position(s.anchorNode, s.anchorOffset), b = position(s.focusNode, s.focusOffset);
      if (a === null || b === null || a === b) { return; }
      anchor = Math.min(a, b);
      caret = Math.max(a, b);
      s.removeAllRanges();
      text.focus();
      render();
    });
    markBtn.addEventListener("click", mark);
    add(box, el("p", { "class": "question" }, preset.question), text,
      add(el("div", { "class": "span-controls" }), sevs, catWrap, markBtn), status, list);
    if (preset.esa_score) {
      var sid = "hx-" + screen.id + "-" + k + "-score";
      slider = el("input", { type: "range", min: 0, max: 100, step: 1, value: 50, id: sid, "class": "untouched" });
      var touch = function () { touched = true; slider.classList.remove("untouched"); };
      ["input", "change", "keydown"].forEach(function (ev) { slider.addEventListener(ev, touch); });
      var ends = el("div", { "class": "slider-ends" });
      add(ends, el("span", null, preset.labels["0"] || "0"), el("span", null, preset.labels["100"] || "100"));
      add(box, add(el("div", { "class": "slider" }), el("label", { "for": sid }, "Score of the text (0\u2013100)"), slider, ends));
    }
    render();
    return {
      node: box,
      validate: function () {
        if (slider && !touched) { return { ok: false, focus: slider, message: "Please move the slider to score the text." }; }
        return { ok: true };
      },
      record: function () {
        var spans = marks.map(function (x) { return [x.start, x.end, x.severity, x.category]; });
        return [[entry.field, JSON.stringify({ spans: spans, score: slider ? Number(slider.value) : null })]];
      }
    };
  }

  function rankWidget(screen) {
    var box = el("div", { "class": "ranking" });
    var entries = screen.entries;
    var n = entries.length;
    var list = el("ol", { "class": "rank-list" });
    var live = el("div", { "class": "visually-hidden", "aria-live": "polite" });
    var pos = entries.map(function (_, i) { return i; });
    var raw = entries.map(function () { return null; });
    var touched = false;
    var items = [];
    var dragFrom = null;

    function label(i) { return "Summary " + String.fromCharCode(65 + i); }

    function refresh(focusEntry, focusWhat) {
      while (list.firstChild) { list.removeChild(list.firstChild); }
      pos.forEach(function (e, p) {
        var li = items[e];
        li.select.value = raw[e] === null ? "" : String(raw[e]);
        li.up.disabled = p === 0 || preview;
        li.down.disabled = p === n - 1 || preview;
        add(list, li.node);
      });
      if (focusEntry !== undefined) {
        items[focusEntry][focusWhat || "select"].focus();
        live.textContent = label(focusEntry) + " is now at position " + (pos.indexOf(focusEntry) + 1) + " of " + n + ".";
      }
    }

    function byPosition() { pos.forEach(function (e, p) { raw[e] = p + 1; }); touched = true; }

    function moveTo(e, target, focusWhat) {
      pos.splice(pos.indexOf(e), 1);
      pos.splice(target, 0, e);
      byPosition();
      refresh(e, focusWhat);
    }

    entries.forEach(function (entry, e) {
      var li = el("li", { "class": "rank-item", draggable: "true", "data-entry": e });
      var handle = el("span", { "class": "handle", "aria-hidden": "true" }, "\u2630");
      var selId = "hx-" + screen.id + "-rank-" + e;
      var select = el("select", { id: selId });
      add(select, el("option", { value: "" }, "\u2013"));
      for (var r = 1; r <= n; r++) { add(select, el("option", { value: r }, r)); }
      var up = el("button", { type: "button", "class": "move up", "aria-label": "Move " + label(e) + " up" }, "\u2191");
      var down = el("button", { type: "button", "class": "move down", "aria-label": "Move " + label(e) + " down" }, "\u2193");
      var controls = add(el("div", { "class": "rank-controls" }),
        add(el("label", { "for": selId }), document.createTextNode("Rank ")), select, up, down);
      add(li, add(el("div", { "class": "rank-head" }), handle, el("span", { "class": "text-label" }, label(e)), controls),
        el("div", { "class": "text" }, entryText(entry)));
      up.addEventListener("click", function () { moveTo(e, pos.indexOf(e) - 1, "up"); });
      down.addEventListener("click", function () { moveTo(e, pos.indexOf(e) + 1, "down"); });
      select.addEventListener("change", function () {
        var v = select.value === "" ? null : parseInt(select.value, 10);
        if (!preset.allow_ties) {
          if (v !== null) { moveTo(e, v - 1, "select"); } else { refresh(); }
          return;
        }
        raw[e] = v;
        touched = true;
        pos.sort(function (a, b) {
          var ra = raw[a] === null ? n + 1 : raw[a], rb = raw[b] === null ? n + 1 : raw[b];
          return ra - rb || pos.indexOf(a) - pos.indexOf(b);
        });
        refresh(e, "select");
      });
      li.addEventListener("dragstart", function (ev) {
        dragFrom = e;
        ev.dataTransfer.effectAllowed = "move";
        ev.dataTransfer.setData("text/plain", String(e));
        li.classList.add("dragging");
      });
      li.addEventListener("dragend", function () { li.classList.remove("dragging"); });
      li.addEventListener("dragover", function (ev) { ev.preventDefault(); ev.dataTransfer.dropEffect = "move"; });
      li.addEventListener("drop", function (ev) {
        ev.preventDefault();
        if (dragFrom === null || dragFrom === e) { return; }
        var rect = li.getBoundingClientRect();
        var target = pos.indexOf(e);
        var from = pos.indexOf(dragFrom);
        var after = ev.clientY > rect.top + rect.height / 2;
        if (from < target && !after) { target -= 1; } else if (from > target && after) { target += 1; }
        moveTo(dragFrom, target, "select");
        dragFrom = null;
      });
      items.push({ node: li, select: select, up: up, down: down });
    });
    add(box, el("div", { "class": "rank-end top" }, "\u25B2 " + preset.rank_ends[0]), list,
      el("div", { "class": "rank-end bottom" }, "\u25BC " + preset.rank_ends[1]), live);
    refresh();
    return {
      node: box,
      validate: function () {
        var missing = raw.indexOf(null);
        if (!touched || missing >= 0) {
          return { ok: false, focus: items[missing >= 0 ? missing : pos[0]].select,
            message: "Please put the summaries in order: drag them, use the arrow buttons or choose a rank for each." };
        }
        return { ok: true };
      },
      record: function () {
        var out = [];
        var real = [];
        entries.forEach(function (entry, e) { if (entry.check) { out.push([entry.field, pos.indexOf(e) + 1]); } else { real.push(e); } });
        real.forEach(function (e) {
          var better = 0;
          real.forEach(function (f) {
            if (preset.allow_ties ? raw[f] < raw[e] : pos.indexOf(f) < pos.indexOf(e)) { better += 1; }
          });
          out.push([entries[e].field, better + 1]);
          if (preset.allow_ties) { out.push([entries[e].raw_field, raw[e]]); }
        });
        return out;
      }
    };
  }

  function bwsWidget(screen) {
    var table = el("table", { "class": "bws" });
    var head = add(el("tr"), el("th", { scope: "col" }, "Summary"),
      el("th", { scope: "col" }, preset.best_worst_labels[0]), el("th", { scope: "col" }, preset.best_worst_labels[1]));
    add(table, add(el("thead"), head));
    var body = el("tbody");
    var bestName = screen.field + "_best", worstName = screen.field + "_worst";
    screen.entries.forEach(function (entry, e) {
      var tr = el("tr");
      var cells = [bestName, worstName].map(function (name, c) {
        var id = "hx-" + screen.id + "-" + e + "-" + c;
        var input = el("input", { type: "radio", name: name, value: entry.code, id: id });
        return add(el("td", { "class": "choice" }), input,
          el("label", { "for": id, "class": "visually-hidden" }, preset.best_worst_labels[c] + ": Summary " + String.fromCharCode(65 + e)));
      });
      add(tr, add(el("td"), el("div", { "class": "text-label" }, "Summary " + String.fromCharCode(65 + e)),
        el("div", { "class": "text" }, entryText(entry))), cells[0], cells[1]);
      add(body, tr);
    });
    add(table, body);
    var wrap = add(el("fieldset", { "class": "bws-wrap" }), el("legend", null, preset.question), table);
    function chosen(name) { var c = table.querySelector("input[name='" + name + "']:checked"); return c ? c.value : null; }
    return {
      node: wrap,
      validate: function () {
        var b = chosen(bestName), w = chosen(worstName);
        if (!b || !w) { return { ok: false, focus: table.querySelector("input"), message: "Please choose one best and one worst summary." }; }
        if (b === w) { return { ok: false, focus: table.querySelector("input"), message: "Best and worst must be different summaries." }; }
        return { ok: true };
      },
      record: function () {
        var b = chosen(bestName), w = chosen(worstName);
        var out = screen.field.indexOf("ck_") === 0 ? [] : [[bestName, b], [worstName, w]];
        screen.entries.forEach(function (entry) {
          if (entry.check) { out.push([entry.field, entry.code === b ? "best" : entry.code === w ? "worst" : "none"]); }
        });
        return out;
      }
    };
  }

  function pairWidget(screen) {
    var pair = el("div", { "class": "pair" });
    screen.entries.forEach(function (entry, e) { add(pair, textBlock(entryText(entry), preset.pair_labels[e], "text-block side")); });
    var fs = add(el("fieldset", { "class": "pair-choice" }), el("legend", null, preset.question));
    var options = [["A", preset.pair_labels[0]], ["B", preset.pair_labels[1]]];
    if (preset.allow_tie) { options.push(["tie", preset.pair_labels[2]]); }
    var choices = el("div", { "class": "scale" });
    options.forEach(function (o) {
      var id = "hx-" + screen.id + "-pw-" + o[0];
      add(choices, add(el("label", { "for": id, "class": "point wide" }),
        el("input", { type: "radio", name: screen.field, value: o[0], id: id }), el("span", null, o[1])));
    });
    add(fs, choices);
    return {
      node: add(el("div"), pair, fs),
      validate: function () {
        return fs.querySelector("input:checked") ? { ok: true } :
          { ok: false, focus: fs.querySelector("input"), message: "Please choose one of the options." };
      },
      record: function () { return [[screen.field, fs.querySelector("input:checked").value]]; }
    };
  }

  /* ---- screens ---- */

  var current = null;

  function buildScreen(index) {
    var screen = screens[index];
    var page = el("section", { "class": "page screen", id: "hx-screen", "data-screen": screen.id });
    var heading = el("h2", { tabindex: "-1", id: "hx-heading" }, "Screen " + (index + 1) + " of " + screens.length);
    var bar = el("progress", { max: screens.length, value: index + 1, "aria-hidden": "true" });
    var toggle = el("button", { type: "button", "class": "link", "aria-expanded": "false", "aria-controls": "hx-instr" }, "Show instructions");
    var instr = instructions();
    instr.id = "hx-instr";
    instr.hidden = true;
    toggle.addEventListener("click", function () {
      instr.hidden = !instr.hidden;
      toggle.setAttribute("aria-expanded", String(!instr.hidden));
      toggle.textContent = instr.hidden ? "Show instructions" : "Hide instructions";
    });
    add(page, add(el("div", { "class": "topbar" }), heading, toggle), bar, instr);
    if (screen.source) { add(page, textBlock(P.texts[screen.source], "Source document", "text-block source")); }
    var widgets = [];
    if (P.method === "spans") {
      screen.entries.forEach(function (entry, k) {
        var w = spansWidget(screen, entry, k);
        widgets.push(w);
        add(page, add(el("div", { "class": "entry" }), w.node));
      });
    } else if (P.method === "likert" || P.method === "da") {
      screen.entries.forEach(function (entry, k) {
        var card = el("div", { "class": "entry" });
        if (entry.text2) {
          add(card, textBlock(entryText(entry), "Text A"), textBlock(P.texts[entry.text2], "Text B"));
        } else {
          add(card, textBlock(entryText(entry), screen.entries.length > 1 ? "Summary " + (k + 1) : "Summary"));
        }
        if (P.method === "likert") {
          var made = entryQuestions(entry).map(function (x) { return likertWidget(screen, entry, k, x.q, x.field, x.m); });
          made.forEach(function (w, i) { w.next = i + 1 < made.length ? made[i + 1].node : null; widgets.push(w); add(card, w.node); });
          add(page, card);
        } else {
          var w = sliderWidget(screen, entry, k);
          widgets.push(w);
          add(page, add(card, w.node));
        }
      });
    } else {
      if (P.method === "rank") { add(page, el("p", { "class": "question" }, preset.question)); }
      var w = P.method === "rank" ? rankWidget(screen) : P.method === "bws" ? bwsWidget(screen) : pairWidget(screen);
      widgets.push(w);
      add(page, w.node);
    }
    var cmId = "hx-comment";
    var comment = el("textarea", { id: cmId, maxlength: 2000, rows: 3 });
    add(page, add(el("div", { "class": "comment" }), el("label", { "for": cmId }, "Comments (optional)"), comment));
    var error = el("p", { "class": "error", role: "alert", id: "hx-error" });
    var last = index === screens.length - 1;
    var next = el("button", { type: "button", "class": "primary", id: "hx-next" }, last ? "Submit" : "Next");
    add(page, error, next);
    return { page: page, screen: screen, widgets: widgets, comment: comment, error: error, next: next, heading: heading };
  }

  var timing = null;
  function onVisibility() {
    if (!timing) { return; }
    var now = Date.now();
    if (document.visibilityState === "visible") { timing.visibleSince = now; }
    else {
      if (timing.visibleSince !== null) { timing.visibleMs += now - timing.visibleSince; }
      timing.visibleSince = null;
      timing.hidden += 1;
    }
  }
  document.addEventListener("visibilitychange", onVisibility);

  function showScreen(index) {
    var built = buildScreen(index);
    while (root.firstChild) { root.removeChild(root.firstChild); }
    add(root, built.page);
    current = built;
    var now = Date.now();
    timing = { shownAt: now, visibleMs: 0, visibleSince: document.visibilityState === "visible" ? now : null, hidden: 0 };
    order.push(built.screen.id);
    built.next.addEventListener("click", function () { finishScreen(index); });
    built.heading.focus();
    window.scrollTo(0, 0);
  }

  function finishScreen(index) {
    var built = current;
    for (var i = 0; i < built.widgets.length; i++) {
      var v = built.widgets[i].validate();
      if (!v.ok) {
        built.error.textContent = v.message;
        if (v.focus) { v.focus.focus(); }
        return;
      }
    }
    built.error.textContent = "";
    var now = Date.now();
    var visible = timing.visibleMs + (timing.visibleSince !== null ? now - timing.visibleSince : 0);
    var answers = {};
    built.widgets.forEach(function (w) { w.record().forEach(function (kv) { answers[kv[0]] = String(kv[1]); setField(kv[0], kv[1]); }); });
    var sid = built.screen.id;
    setField("tm_" + sid, ((now - timing.shownAt) / 1000).toFixed(3) + "," + (visible / 1000).toFixed(3) + "," + timing.hidden);
    if (built.comment.value.trim()) { setField("cm_" + sid, built.comment.value); }
    setField("order", order.join(","));
    window.addEventListener("beforeunload", guard);
    function proceed(next) { if (next < screens.length) { showScreen(next); } else if (host) { host.finish(); } else { submit(); } }
    if (!host) { proceed(index + 1); return; }
    var record = { answers: answers, comment: built.comment.value.trim() ? built.comment.value : "",
      timing: { shown_at: timing.shownAt, answered_at: now, seconds: (now - timing.shownAt) / 1000,
        visible_seconds: visible / 1000, hidden_count: timing.hidden } };
    host.saveScreen(index, record, built, function (next) { window.removeEventListener("beforeunload", guard); proceed(next); });
  }

  function submit() {
    submitted = true;
    setField("slot", slot.slot);
    setField("design_id", P.design_id);
    setField("form_version", P.form_version);
    window.removeEventListener("beforeunload", guard);
    while (root.firstChild) { root.removeChild(root.firstChild); }
    var page = add(el("section", { "class": "page end", id: "hx-end" }), el("h2", { tabindex: "-1" }, "Thank you!"));
    add(root, page);
    if (localTest) {
      add(page, el("p", null, "Local test: nothing was sent. These are the fields the form would submit:"),
        el("pre", { id: "hx-fields" }, JSON.stringify(saved, null, 1)));
      return;
    }
    add(page, el("p", null, "Submitting your answers\u2026"));
    add(form, el("input", { type: "hidden", name: "assignmentId", value: assignmentId }));
    document.body.appendChild(form);
    form.submit();
  }

  function showPreview() {
    add(root, el("p", { "class": "notice", role: "status", id: "hx-preview" }, "Preview only \u2014 accept the HIT to begin."));
    add(root, startPage());
    var built = buildScreen(0);
    add(root, built.page);
    Array.prototype.forEach.call(root.querySelectorAll("input, select, textarea, button"), function (c) { c.disabled = true; });
    Array.prototype.forEach.call(root.querySelectorAll("[draggable]"), function (c) { c.setAttribute("draggable", "false"); });
  }

  if (preview) { showPreview(); } else if (host && host.startAt > 0) { showScreen(host.startAt); } else { add(root, startPage()); }
  window.hxState = function () { return { slot: slot.slot, saved: saved, order: order, submitted: submitted }; };
})();
