// wizard-sim serve: the page. Plain JavaScript, no build step, no network but this server.
"use strict";

const SUITS = ["C", "D", "H", "S"];
const SUIT_SYMBOLS = { C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660" };
const RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];
const FIRST_WIZARD = 52, FIRST_JESTER = 56, N_CARDS = 60;

const state = {
  hand: new Set(), turned: null, suit: null, position: 0, bids: [], totals: [],
  unknown: { spread: 0.5, floor: 0 }, controller: null, timer: null, ready: false,
};

const $ = (selector) => document.querySelector(selector);
const el = (tag, attributes = {}, text = "") => {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (text) node.textContent = text;
  return node;
};

// Card ids as in docs/rules.md §1: suit * 13 + rank (2..A), then 4 Wizards, then 4 Jesters.
function cardText(id) {
  if (id >= FIRST_JESTER) return "J";
  if (id >= FIRST_WIZARD) return "W";
  return RANKS[id % 13] + SUITS[Math.floor(id / 13)];
}
function cardLabel(id) {
  if (id >= FIRST_JESTER) return "Jest";
  if (id >= FIRST_WIZARD) return "Wiz";
  return RANKS[id % 13] + SUIT_SYMBOLS[SUITS[Math.floor(id / 13)]];
}

function cardGrid(container, onTap, extra) {
  container.innerHTML = "";
  for (let suit = 0; suit < 4; suit++) {
    for (let rank = 12; rank >= 0; rank--) {
      const id = suit * 13 + rank;
      const button = el("button", { type: "button", "data-card": String(id), title: cardText(id) }, cardLabel(id));
      if (suit === 1 || suit === 2) button.classList.add("red");
      button.addEventListener("click", () => onTap(id));
      container.appendChild(button);
    }
  }
  const specials = el("div", { class: "specials" });
  for (let id = FIRST_WIZARD; id < N_CARDS; id++) {
    const button = el("button", { type: "button", "data-card": String(id), title: cardText(id) }, cardLabel(id));
    button.addEventListener("click", () => onTap(id));
    specials.appendChild(button);
  }
  if (extra) specials.appendChild(extra);
  container.appendChild(specials);
}

function players() { return Number($("#players").value); }
function roundSize() { return state.hand.size; }
function lastRound() { return roundSize() * players() === N_CARDS; }

function tapHand(id) {
  if (state.hand.has(id)) state.hand.delete(id); else state.hand.add(id);
  render(); schedule();
}
function tapTurned(id) {
  state.turned = state.turned === id ? null : id;
  if (state.turned === null || state.turned < FIRST_WIZARD || state.turned >= FIRST_JESTER) state.suit = null;
  render(); schedule();
}

function renderSeat() {
  const n = players();
  if (state.position >= n) state.position = n - 1;
  const positions = $("#position");
  positions.innerHTML = "";
  for (let p = 0; p < n; p++) {
    const label = p === n - 1 ? "dealer (bids last)" : p === 0 ? "1st to bid" : `${p + 1}${["", "nd", "rd"][p] || "th"} to bid`;
    const button = el("button", { type: "button", "data-position": String(p) }, label);
    if (p === state.position) button.classList.add("on");
    button.addEventListener("click", () => { state.position = p; renderSeat(); schedule(); });
    positions.appendChild(button);
  }
  const open = $("#bidding").value === "open";
  $("#bids-section").hidden = !open || state.position === 0;
  const bids = $("#bids");
  bids.innerHTML = "";
  state.bids.length = open ? state.position : 0;
  for (let p = 0; p < state.bids.length; p++) {
    if (state.bids[p] === undefined) state.bids[p] = 0;
    const label = el("label", {}, p === 0 ? "1st" : `${p + 1}${["", "nd", "rd"][p] || "th"}`);
    const input = el("input", { type: "number", min: "0", step: "1", "data-position": String(p), inputmode: "numeric" });
    input.value = String(state.bids[p]);
    input.addEventListener("input", () => { state.bids[p] = input.value; schedule(); });
    label.appendChild(input);
    bids.appendChild(label);
  }
  const totals = $("#totals");
  totals.innerHTML = "";
  state.totals.length = n;
  for (let p = 0; p < n; p++) {
    if (state.totals[p] === undefined) state.totals[p] = 0;
    const label = el("label", {}, p === state.position ? "you" : p === n - 1 ? "dealer" : `${p + 1}.`);
    const input = el("input", { type: "number", step: "10", "data-total": String(p), inputmode: "numeric" });
    input.value = String(state.totals[p]);
    input.addEventListener("input", () => { state.totals[p] = input.value; schedule(); });
    label.appendChild(input);
    totals.appendChild(label);
  }
}

function render() {
  for (const button of document.querySelectorAll("#hand [data-card]")) {
    button.classList.toggle("on", state.hand.has(Number(button.dataset.card)));
  }
  for (const button of document.querySelectorAll("#turned [data-card]")) {
    button.classList.toggle("on", state.turned === Number(button.dataset.card));
  }
  $("#turned [data-card='none']").classList.toggle("on", state.turned === "none");
  const size = roundSize();
  $("#hand-count").textContent = `${size} card${size === 1 ? "" : "s"}`;
  const wizard = typeof state.turned === "number" && state.turned >= FIRST_WIZARD && state.turned < FIRST_JESTER;
  $("#suit").hidden = !wizard;
  for (const button of document.querySelectorAll("#suit [data-suit]")) {
    button.classList.toggle("on", state.suit === button.dataset.suit);
  }
  let label = "";
  if (state.turned === "none") label = "nothing turned up: no trump";
  else if (typeof state.turned === "number" && state.turned >= FIRST_JESTER) label = "a Jester: no trump";
  else if (wizard) label = state.suit ? `a Wizard: trump ${SUIT_SYMBOLS[state.suit]}` : "a Wizard: which suit did the dealer choose?";
  else if (typeof state.turned === "number") label = `trump ${SUIT_SYMBOLS[SUITS[Math.floor(state.turned / 13)]]}`;
  else if (size && lastRound()) label = "last round: nothing is turned up";
  $("#trump-label").textContent = label;
  renderSeat();
}

// A field the page cannot send: its message, the field's name (as the server's answers name
// them) and the input to mark.
class InputError extends Error {
  constructor(message, field, node) { super(message); this.field = field; this.node = node; }
}

const ORDINALS = ["1st", "2nd", "3rd"];
const ordinal = (p) => ORDINALS[p] || `${p + 1}th`;

// A whole number typed in `input`; never Number(""), which is 0: an empty field, "e" or "1.5"
// (an <input type="number"> reads "" for what it cannot parse) is an error, and nothing is sent.
function wholeNumber(input, what, field, negative = false) {
  const text = input.value.trim();
  const pattern = negative ? /^-?[0-9]{1,9}$/ : /^[0-9]{1,9}$/;
  if ((input.validity && input.validity.badInput) || !pattern.test(text)) {
    throw new InputError(`${what}: give a whole number${negative ? "" : " (0 or more)"}`, field, input);
  }
  return Number(text);
}

function body() {
  const model = $("#model").value;
  const bids = [...document.querySelectorAll("#bids input")].map(
    (input, p) => wholeNumber(input, `the ${ordinal(p)} bid`, "bids"));
  const totals = [...document.querySelectorAll("#totals input")].map(
    (input, p) => wholeNumber(input, `the score of the ${ordinal(p)} player`, "totals", true));
  const request = {
    hand: [...state.hand].sort((a, b) => a - b).map(cardText).join(" "),
    players: players(), position: state.position,
    bids, bidding: $("#bidding").value, even_bids: $("#even-bids").value,
    totals, samples: Number($("#samples").value), seed: 0,
  };
  if (state.turned === "none") request.no_trump = false;
  else if (typeof state.turned === "number") {
    const wizard = state.turned >= FIRST_WIZARD && state.turned < FIRST_JESTER;
    request.trump = wizard ? "W" : cardText(state.turned);
    if (wizard && state.suit) request.trump_suit = state.suit;
  }
  if (model === "unknown") Object.assign(request, state.unknown);  // spread, floor, wide, wide_spread
  if (model === "uniform") request.infer = false;
  return request;
}

function schedule() {
  clearTimeout(state.timer);
  cancelRunning();
  state.timer = setTimeout(run, 250);
}

function cancelRunning() {
  if (state.controller) { state.controller.abort(); state.controller = null; }
  $("#progress").hidden = true;
}

function markError(message, field) {
  const error = $("#error");
  error.textContent = message;
  error.hidden = !message;
  for (const node of document.querySelectorAll(".bad")) node.classList.remove("bad");
  if (message && field) {
    const target = document.querySelector(`[data-field='${field === "trump_suit" || field === "no_trump" ? "trump" : field}']`);
    if (target) {
      target.classList.add("bad");
      if (target.tagName === "DETAILS") target.open = true;
    }
  }
}

async function run() {
  if (!state.hand.size || (state.turned === null && !lastRound())) {
    markError("", null);
    $("#prompt").hidden = false;
    $("#prompt").textContent = state.hand.size ? "Tap the turned-up card." : "Tap your cards and the turned-up card.";
    return;
  }
  $("#prompt").hidden = true;
  let request;
  try {
    request = body();
  } catch (error) {
    if (!(error instanceof InputError)) throw error;
    markError(error.message, error.field);
    error.node.classList.add("bad");
    $("#outcome").hidden = true;
    return;
  }
  const controller = new AbortController();
  state.controller = controller;
  const progress = $("#progress");
  progress.hidden = false;
  progress.querySelector(".bar").style.width = "0%";
  progress.querySelector(".label").textContent = state.ready ? "sampling deals..." : "waiting for the kernels to compile...";
  try {
    const response = await fetch("/api/estimate/stream", {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify(request), signal: controller.signal,
    });
    if (!response.ok) {
      const answer = await response.json();
      markError(answer.error, answer.field);
      $("#outcome").hidden = true;
      return;
    }
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let newline;
      while ((newline = buffer.indexOf("\n")) >= 0) {
        const line = JSON.parse(buffer.slice(0, newline));
        buffer = buffer.slice(newline + 1);
        if ("progress" in line) {
          const share = line.samples ? line.progress / line.samples : 0;
          progress.querySelector(".bar").style.width = `${(100 * share).toFixed(0)}%`;
          progress.querySelector(".label").textContent =
            `${line.progress.toLocaleString("en")} of ${line.samples.toLocaleString("en")} deals`;
        } else if ("error" in line) {
          markError(line.error, line.field);
          $("#outcome").hidden = true;
        } else if ("result" in line) {
          markError("", null);
          show(line.result);
        }
      }
    }
  } catch (error) {
    if (error.name !== "AbortError") markError(`the server did not answer: ${error.message}`, null);
  } finally {
    if (state.controller === controller) { state.controller = null; progress.hidden = true; }
  }
}

const percent = (value, digits = 1) => `${(100 * value).toFixed(digits)}%`;
const signed = (value) => `${value >= 0 ? "+" : ""}${value.toFixed(1)}`;

function show(result) {
  window.lastResult = result; // for the tests and the curious
  $("#outcome").hidden = false;
  const best = result.bids[result.recommended_bid];
  $("#recommended").textContent = String(result.recommended_bid);
  $("#recommended-detail").textContent =
    `: makes it ${percent(best.p_make)} of the time, expected score ${signed(best.expected_score)}`;
  const rows = $("#bid-table tbody");
  rows.innerHTML = "";
  for (const entry of result.bids) {
    const row = el("tr", { "data-bid": String(entry.bid) });
    if (entry.bid === result.recommended_bid) row.classList.add("recommended");
    if (!entry.legal) {
      row.classList.add("illegal");
      for (const text of [entry.bid, "illegal", "", "", ""]) row.appendChild(el("td", {}, String(text)));
    } else {
      const star = entry.certain_under_exact_model_only ? "*" : "";
      for (const text of [String(entry.bid), percent(entry.p_make) + star,
        `${percent(entry.p_make_ci[0])} - ${percent(entry.p_make_ci[1])}`, signed(entry.expected_score),
        `${signed(entry.expected_score_ci[0])} - ${signed(entry.expected_score_ci[1])}`]) row.appendChild(el("td", {}, text));
    }
    rows.appendChild(row);
  }
  drawChart(result);
  $("#distribution-bid").textContent = String(result.recommended_bid);
  const distribution = $("#distribution");
  distribution.innerHTML = "";
  result.tricks_distribution.forEach((share, tricks) => {
    const bar = el("div", { title: `${tricks} tricks: ${percent(share)}`, "data-tricks": String(tricks) });
    bar.style.height = `${Math.max(1, 100 * share)}%`;
    bar.appendChild(el("span", {}, String(tricks)));
    distribution.appendChild(bar);
  });
  const assumptions = result.assumptions;
  $("#assumptions").textContent = assumptions.summary +
    (assumptions.certain_under_exact_model_only.length ? " (starred)" : "");
  $("#effective").textContent =
    `${Math.round(result.effective_samples).toLocaleString("en")} of ${result.samples.toLocaleString("en")} deals`;
}

function drawChart(result) {
  const width = 600, height = 250, left = 44, right = 48, top = 14, bottom = 34;
  const bids = result.bids, n = bids.length, step = (width - left - right) / n;
  const legal = bids.filter((b) => b.legal);
  let low = Math.min(0, ...legal.map((b) => b.expected_score_ci[0]));
  let high = Math.max(20, ...legal.map((b) => b.expected_score_ci[1]));
  const y = (p) => top + (1 - p) * (height - top - bottom);
  const yScore = (s) => top + (high - s) / (high - low) * (height - top - bottom);
  const parts = [`<svg viewBox="0 0 ${width} ${height}" role="img" aria-label="P(make) and expected score per bid">`];
  for (const p of [0, 0.25, 0.5, 0.75, 1]) {
    parts.push(`<line x1="${left}" x2="${width - right}" y1="${y(p)}" y2="${y(p)}" stroke="#eef1f4"/>`);
    parts.push(`<text x="${left - 6}" y="${y(p) + 4}" font-size="11" text-anchor="end" fill="#5d6875">${100 * p}%</text>`);
  }
  for (const s of [low, 0, high]) {
    parts.push(`<text x="${width - right + 6}" y="${yScore(s) + 4}" font-size="11" fill="#b3541e">${signed(s)}</text>`);
  }
  parts.push(`<line x1="${left}" x2="${width - right}" y1="${yScore(0)}" y2="${yScore(0)}" stroke="#b3541e" stroke-dasharray="3 3" opacity="0.5"/>`);
  const points = [];
  bids.forEach((b, i) => {
    const x = left + i * step, centre = x + step / 2, w = step * 0.6;
    parts.push(`<text x="${centre}" y="${height - bottom + 16}" font-size="12" text-anchor="middle">${b.bid}</text>`);
    if (!b.legal) {
      parts.push(`<text x="${centre}" y="${y(0.5)}" font-size="10" text-anchor="middle" fill="#9aa4ae">illegal</text>`);
      return;
    }
    const fill = b.bid === result.recommended_bid ? "#2e7d32" : "#9cc3f0";
    parts.push(`<rect class="p-make" data-bid="${b.bid}" x="${centre - w / 2}" y="${y(b.p_make)}" width="${w}" height="${y(0) - y(b.p_make)}" fill="${fill}"/>`);
    parts.push(`<line x1="${centre}" x2="${centre}" y1="${y(b.p_make_ci[0])}" y2="${y(b.p_make_ci[1])}" stroke="#1d232b" stroke-width="1.5"/>`);
    if (b.certain_under_exact_model_only) {
      parts.push(`<text x="${centre}" y="${y(b.p_make) - 4}" font-size="14" text-anchor="middle" fill="#c62828">*</text>`);
    }
    parts.push(`<line x1="${centre + w / 2 + 3}" x2="${centre + w / 2 + 3}" y1="${yScore(b.expected_score_ci[0])}" y2="${yScore(b.expected_score_ci[1])}" stroke="#b3541e" stroke-width="1.5"/>`);
    points.push(`${centre + w / 2 + 3},${yScore(b.expected_score)}`);
    parts.push(`<circle class="score" data-bid="${b.bid}" cx="${centre + w / 2 + 3}" cy="${yScore(b.expected_score)}" r="3.5" fill="#b3541e"/>`);
  });
  parts.push(`<text x="${left}" y="${height - 4}" font-size="11" fill="#5d6875">bars: P(make) with 95% interval</text>`);
  parts.push(`<text x="${width - right}" y="${height - 4}" font-size="11" fill="#b3541e" text-anchor="end">dots: expected score</text>`);
  parts.push("</svg>");
  $("#chart").innerHTML = parts.join("");
}

async function watchStatus() {
  try {
    const status = await (await fetch("/api/status")).json();
    state.unknown = status.unknown_opponents;
    state.ready = status.ready;
    const notice = $("#notice");
    notice.hidden = status.ready && !status.warm_up_error;
    notice.textContent = status.warm_up_error ? `warming up failed: ${status.warm_up_error}`
      : status.ready ? "" : `Please wait: ${status.notice}. Your estimate runs as soon as they are ready.`;
    if (!status.ready) setTimeout(watchStatus, 1000);
  } catch (error) {
    setTimeout(watchStatus, 2000);
  }
}

function start() {
  cardGrid($("#hand"), tapHand);
  const none = el("button", { type: "button", "data-card": "none", title: "nothing (last round)" }, "none");
  none.addEventListener("click", () => { state.turned = state.turned === "none" ? null : "none"; render(); schedule(); });
  cardGrid($("#turned"), tapTurned, none);
  for (const button of document.querySelectorAll("#suit [data-suit]")) {
    button.addEventListener("click", () => { state.suit = button.dataset.suit; render(); schedule(); });
  }
  for (const id of ["#players", "#bidding", "#even-bids", "#model", "#samples"]) {
    $(id).addEventListener("change", () => { render(); schedule(); });
  }
  render();
  watchStatus();
}

start();
