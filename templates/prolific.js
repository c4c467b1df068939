/* humaneval Prolific page (docs/analysis.md "Client behaviour").
   Reads PROLIFIC_PID, STUDY_ID and SESSION_ID from the URL, asks the server for a slot, then runs
   the form widgets of form.js with a host that saves every screen and waits for the server's
   acknowledgement before moving on. Network failures and 5xx answers are retried after 1, 2 and
   4 s; then "Could not save - try again" re-enables the button, with the answers still on screen.
   The completion code comes from the server only after the last screen was stored. All text is
   set with textContent. */
(function () {
  "use strict";

  var cfg = JSON.parse(document.getElementById("hx-server").textContent);
  var root = document.getElementById("hx-app");
  var params = new URLSearchParams(window.location.search);
  var RETRY_MS = [1000, 2000, 4000];
  var token = null;

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) { node.textContent = text; }
    return node;
  }

  function notice(id, title, lines, link) {
    while (root.firstChild) { root.removeChild(root.firstChild); }
    var page = el("section", { "class": "page end", id: id });
    var heading = el("h1", { tabindex: "-1" }, title);
    page.appendChild(heading);
    (lines || []).forEach(function (line) { page.appendChild(el("p", null, line)); });
    if (link) { page.appendChild(el("p", null)).appendChild(el("a", { href: link, id: "hx-link" }, link)); }
    root.appendChild(page);
    heading.focus();
  }

  /* POST JSON; resolves {status, data}; rejects on network failure. */
  function post(path, body) {
    return fetch(cfg.api + path, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
      credentials: "same-origin",
      cache: "no-store"
    }).then(function (r) {
      return r.json().then(function (data) { return { status: r.status, data: data }; },
        function () { return { status: r.status, data: {} }; });
    });
  }

  /* POST with the retries of docs/analysis.md; rejects after the last failed attempt. */
  function send(path, body) {
    return new Promise(function (resolve, reject) {
      function attempt(k) {
        post(path, body).then(function (res) {
          if (res.status >= 500) { retry(k); } else { resolve(res); }
        }, function () { retry(k); });
      }
      function retry(k) {
        if (k < RETRY_MS.length) { window.setTimeout(function () { attempt(k + 1); }, RETRY_MS[k]); } else { reject(); }
      }
      attempt(0);
    });
  }

  function refused(res) {
    var code = res.data && res.data.error;
    if (res.status === 401) {
      notice("hx-refused", "This study is open in another window",
        ["Please continue in the window you opened last, or reload this page to continue here."]);
    } else if (code === "study_full") {
      notice("hx-refused", "This study is full",
        ["Sorry, all places are taken. Please return the study on Prolific."], res.data.completion_url);
    } else if (code === "wrong_study") {
      notice("hx-refused", "This link belongs to another study",
        ["Please open the study from its own page on Prolific."]);
    } else if (code === "rate_limited") {
      notice("hx-refused", "Please wait a moment",
        ["Too many people started from your network just now. Please reload this page in a minute."]);
    } else if (code === "not_eligible") {
      notice("hx-refused", "You cannot take part in this study",
        ["You took part in a related study. Please return this study on Prolific."]);
    } else {
      notice("hx-refused", "Something went wrong", ["The server answered " + res.status + " (" + code + ")."]);
    }
  }

  function saveScreen(index, record, ui, done) {
    var label = ui.next.textContent;
    ui.next.disabled = true;
    ui.next.textContent = "Saving\u2026";
    ui.error.textContent = "";
    var body = { token: token, screen_index: index, answers: record.answers, timing: record.timing, comment: record.comment };
    send("screen", body).then(function (res) {
      var code = res.data && res.data.error;
      if (res.status === 200 || code === "conflict" || code === "out_of_order") { done(res.data.next_screen); return; }
      ui.next.disabled = false;
      ui.next.textContent = label;
      if (res.status === 401) { refused(res); return; }
      ui.error.textContent = "The server did not accept this answer: " + ((res.data.details || []).join("; ") || code);
    }, function () {
      ui.next.disabled = false;
      ui.next.textContent = "Try again";
      ui.error.textContent = "Could not save \u2014 try again. Your answers are kept on this page.";
    });
  }

  function finish() {
    notice("hx-finishing", "Thank you!", ["Saving your submission\u2026"]);
    send("finish", { token: token }).then(function (res) {
      if (res.status === 409 && res.data.error === "incomplete") { window.location.reload(); return; }
      if (res.status !== 200) { refused(res); return; }
      notice("hx-end", "Thank you!", [
        "Your answers are saved. You are being sent back to Prolific.",
        "If nothing happens, your completion code is " + res.data.completion_code + "; open this link:"
      ], res.data.completion_url);
      window.location.assign(res.data.completion_url);
    }, function () {
      notice("hx-finishing", "Could not reach the server", ["Your answers are saved. Please try again."]);
      var again = el("button", { type: "button", "class": "primary", id: "hx-retry" }, "Try again");
      again.addEventListener("click", finish);
      root.firstChild.appendChild(again);
    });
  }

  function begin() {
    notice("hx-loading", "Loading\u2026");
    var pid = params.get("PROLIFIC_PID"), studyId = params.get("STUDY_ID"), session = params.get("SESSION_ID");
    var pilot = params.get("test");
    /* ?test=NAME works only on a server started with --pilot (any other refuses STUDY_ID=TEST). */
    if (pilot && !pid) { pid = "TEST_" + pilot; studyId = "TEST"; session = "TEST_" + Date.now(); }
    if (!pid || !studyId || !session) {
      notice("hx-refused", "Please open this study from Prolific",
        ["This page needs the link Prolific gives you (it identifies your submission)."]);
      return;
    }
    send("start", { prolific_pid: pid, study_id: studyId, session_id: session }).then(function (res) {
      if (res.status !== 200) { refused(res); return; }
      token = res.data.token;
      if (res.data.next_screen >= res.data.total_screens) { finish(); return; }
      while (root.firstChild) { root.removeChild(root.firstChild); }
      document.getElementById("hx-payload").textContent = JSON.stringify(res.data.form);
      window.hxHost = { startAt: res.data.next_screen, saveScreen: saveScreen, finish: finish };
      hxForm();
    }, function () {
      notice("hx-refused", "Could not reach the server", ["Please check your connection and reload this page."]);
    });
  }

  begin();
})();
