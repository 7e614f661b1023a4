// The claims ledger as a filterable, searchable table (vanilla JS; data: assets/ledger.json written by
// robeval.core.site). The table runs only on the page that holds <div id="ledger-app">; every page gets
// revealTarget (a link into a folded <details> opens it).
(function () {
  "use strict";
  var FILTERS = [
    // every executed profile's rows (issue 47, item 1); the page opens on the site's own profile
    ["profile", "profile", function (r) { return r.profile || ""; }],
    ["paper", "paper", function (r) { return r.paper; }],
    ["verdict", "verdict", function (r) { return r.verdict; }],
    ["evidence", "evidence class", function (r) { return r.evidence || ""; }],
    ["central", "central", function (r) { return r.central ? "central" : "not central"; }],
    // the single readings of an ambiguous statement sit under their combined row and are not counted, as in
    // the README and CLAIMS.md; the explorer opens on the counted rows
    ["rows", "rows", function (r) { return r.part_of ? "single readings" : "counted rows"; }],
  ];
  var DEFAULTS = { rows: "counted rows" };

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  var COLUMNS = ["notebook / id", "claim", "paper", "ours", "unit", "verdict", "rule", "why", "links"];

  function link(href, text) {
    var a = el("a", { href: href }, text);
    return a;
  }

  function hashState() {
    var state = {};
    window.location.hash.replace(/^#/, "").split("&").forEach(function (kv) {
      var i = kv.indexOf("=");
      if (i > 0) state[decodeURIComponent(kv.slice(0, i))] = decodeURIComponent(kv.slice(i + 1));
    });
    return state;
  }

  function render(app, data) {
    var rows = data.rows;
    if (data.profile) DEFAULTS.profile = data.profile;
    var several = (data.profiles || []).length > 1;
    var controls = el("div", { class: "ledger-controls" });
    var selects = {};
    FILTERS.forEach(function (f) {
      var values = [];
      rows.forEach(function (r) {
        var v = f[2](r);
        if (v !== "" && values.indexOf(v) < 0) values.push(v);
      });
      values.sort();
      var label = el("label", {}, f[1] + " ");
      var sel = el("select", { id: "filter-" + f[0], "data-filter": f[0] });
      sel.appendChild(el("option", { value: "" }, values.length ? "all" : "(none recorded)"));
      values.forEach(function (v) {
        var text = v;
        if (f[0] === "paper") {
          var named = rows.filter(function (r) { return r.paper === v; })[0];
          text = named && named.paper_name ? named.paper_name : v;
        }
        sel.appendChild(el("option", { value: v }, text));
      });
      if (!values.length) sel.disabled = true;
      label.appendChild(sel);
      controls.appendChild(label);
      selects[f[0]] = sel;
    });
    var search = el("input", { id: "ledger-search", type: "search", placeholder: "search id, claim, source, note" });
    controls.appendChild(search);
    var count = el("p", { id: "ledger-count", "aria-live": "polite" });
    var table = el("table", { id: "ledger-table", class: "robeval-ledger" });
    var head = el("tr");
    // what decides a row is shown, not hidden in a tooltip: its test (rule), and why (the margin it was held to,
    // Holm's correction, or what would decide it: `decides`)
    COLUMNS.forEach(function (h) { head.appendChild(el("th", { class: "col-" + h.split(" ")[0] }, h)); });
    var thead = el("thead");
    thead.appendChild(head);
    table.appendChild(thead);
    var tbody = el("tbody");
    table.appendChild(tbody);
    var trs = rows.map(function (r) {
      var tr = el("tr", { "data-verdict": r.verdict, "data-paper": r.paper, "data-profile": r.profile || "" });
      var idCell = el("td");
      idCell.appendChild(el("span", { class: "ledger-nb" }, r.notebook + (several ? " · " + r.profile : "")));
      idCell.appendChild(el("br"));
      idCell.appendChild(el("code", {}, r.id));
      if (r.central) idCell.appendChild(el("span", { class: "ledger-central", title: "central claim" }, " ★"));
      tr.appendChild(idCell);
      var claim = el("td", {}, r.description);
      if (r.source) claim.appendChild(el("span", { class: "ledger-src" }, " (" + r.source + ")"));
      if (r.note) claim.appendChild(el("div", { class: "ledger-note" }, r.note));
      tr.appendChild(claim);
      tr.appendChild(el("td", {}, r.paper_value));
      var ours = r.estimate + (r.ci ? " CI " + r.ci : "") + (r.n_runs !== null && r.n_runs !== undefined ? " n=" + r.n_runs : "");
      tr.appendChild(el("td", {}, ours));
      tr.appendChild(el("td", { class: "ledger-unit" }, r.unit || ""));
      var verdict = el("td", { class: "verdict verdict-" + r.verdict.replace(/\s+/g, "-") }, r.verdict);
      if (r.evidence) verdict.appendChild(el("div", { class: "ledger-evidence" }, r.evidence));
      tr.appendChild(verdict);
      tr.appendChild(el("td", { class: "ledger-rule" }, r.rule));
      tr.appendChild(el("td", { class: "ledger-why" }, r.why || ""));
      var links = el("td", { class: "ledger-links" });
      links.appendChild(link(r.cell, "cell"));
      if (r.section) { links.appendChild(document.createTextNode(" · ")); links.appendChild(link(r.section, "section")); }
      if (r.figure) { links.appendChild(document.createTextNode(" · ")); links.appendChild(link(r.figure, "figure")); }
      tr.appendChild(links);
      tr._text = [r.id, r.notebook, r.description, r.source, r.note, r.rule, r.why, r.paper_name].join(" ").toLowerCase();
      tr._row = r;
      tbody.appendChild(tr);
      return tr;
    });

    // a row's permalink (#profile=P&row=<notebook>/<id>, robeval.core.site.pages.row_fragment) shows that row of
    // that profile, its readings rows included, whatever the other filters; changing a filter leaves it
    var rowKey = "";

    function rowMatches(r) {
      return rowKey === r.notebook + "/" + r.id || rowKey === r.id;
    }

    function apply() {
      var q = search.value.trim().toLowerCase();
      var shown = 0;
      var state = [];
      var profile = selects.profile.value;
      if (rowKey) {
        trs.forEach(function (tr) {
          var ok = rowMatches(tr._row) && (!profile || tr._row.profile === profile);
          tr.hidden = !ok;
          tr.classList.toggle("ledger-target", ok);
          if (ok) shown += 1;
        });
        count.textContent = shown + (shown === 1 ? " row" : " rows") + " shown: the permalink of row " + rowKey +
          (profile ? " at profile " + profile : "") + " (change a filter to see the others)";
        count.setAttribute("data-count", String(shown));
        return;
      }
      var counted = rows.filter(function (r) { return !r.part_of && (!profile || r.profile === profile); }).length;
      var readings = rows.filter(function (r) { return r.part_of && (!profile || r.profile === profile); }).length;
      trs.forEach(function (tr) {
        var ok = FILTERS.every(function (f) {
          var want = selects[f[0]].value;
          return !want || f[2](tr._row) === want;
        });
        if (ok && q) ok = tr._text.indexOf(q) >= 0;
        tr.hidden = !ok;
        tr.classList.remove("ledger-target");
        if (ok) shown += 1;
      });
      FILTERS.forEach(function (f) {
        var v = selects[f[0]].value;
        if (v && v !== DEFAULTS[f[0]]) state.push(f[0] + "=" + encodeURIComponent(v));
        else if (!v && DEFAULTS[f[0]] !== undefined) state.push(f[0] + "=all");
      });
      if (q) state.push("q=" + encodeURIComponent(search.value.trim()));
      count.textContent = shown + " rows shown; the ledger " + (profile ? "of profile " + profile + " " : "of every profile ") +
        "counts " + counted + " rows (and " + readings +
        " single readings of ambiguous statements, under their combined rows)";
      count.setAttribute("data-count", String(shown));
      if (window.history && window.history.replaceState) {
        window.history.replaceState(null, "", state.length ? "#" + state.join("&") : window.location.pathname);
      }
    }

    // the filters from the URL's hash: on load, and again on every hash change (a link within the page, Back and
    // Forward), so a permalink or a linked filter always shows what its URL says
    function fromHash() {
      var initial = hashState();
      FILTERS.forEach(function (f) {
        var sel = selects[f[0]];
        if (initial[f[0]] !== undefined) sel.value = initial[f[0]] === "all" ? "" : initial[f[0]];
        else sel.value = DEFAULTS[f[0]] !== undefined ? DEFAULTS[f[0]] : "";
      });
      search.value = initial.q || "";
      rowKey = initial.row || "";
      apply();
      if (rowKey) {
        var target = trs.filter(function (tr) { return !tr.hidden; })[0];
        if (target) target.scrollIntoView({ block: "center" });
      }
    }

    function edited() { rowKey = ""; apply(); }

    FILTERS.forEach(function (f) { selects[f[0]].addEventListener("change", edited); });
    search.addEventListener("input", edited);
    window.addEventListener("hashchange", fromHash);
    app.appendChild(controls);
    app.appendChild(count);
    var scroller = el("div", { class: "ledger-scroll" });
    scroller.appendChild(table);
    app.appendChild(scroller);
    fromHash();
    app.setAttribute("data-ready", "1");
  }

  function start() {
    var app = document.getElementById("ledger-app");
    if (!app) return;
    fetch(app.getAttribute("data-src"))
      .then(function (resp) {
        if (!resp.ok) throw new Error("ledger.json: HTTP " + resp.status);
        return resp.json();
      })
      .then(function (data) { render(app, data); })
      .catch(function (err) {
        app.appendChild(el("p", { class: "ledger-error" },
          "Could not load the ledger (" + err.message + "). Serve the site over http, e.g. " +
          "`python -m http.server -d build/site`, or read results/CLAIMS.md."));
      });
  }

  // A link to a row or figure inside a closed <details> (the folded rows of a notebook's ledger index) opens it
  // and scrolls to the target, on every page.
  function revealTarget() {
    var id = "";
    try { id = decodeURIComponent(window.location.hash.replace(/^#/, "")); } catch (e) { return; }
    var target = id && document.getElementById(id);
    if (!target) return;
    var opened = false;
    for (var d = target.closest("details"); d; d = d.parentElement ? d.parentElement.closest("details") : null) {
      if (!d.open) { d.open = true; opened = true; }
    }
    if (opened) target.scrollIntoView();
  }

  function ready() { start(); revealTarget(); }

  window.addEventListener("hashchange", revealTarget);
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", ready);
  else ready();
})();
