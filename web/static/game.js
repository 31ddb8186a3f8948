// cribcam scoreboard page. Plain JavaScript, no libraries.
// The server keeps the game (its log of entries, /api/games); this page only draws the state
// it answers with and sends what the players enter. The game's id is in the address
// (/game/ID), so a reload, or another device, continues the same game.
import { $, announce, capitalise, fieldError, send } from "./counting.js";

const SVG = "http://www.w3.org/2000/svg";
const COLOURS = ["#c0262d", "#0b6bcb", "#1d7a3c"]; // one per side: red, blue, green
const STEP = 11; // between holes
const STREET = 7; // extra space between streets of five holes
const ROW = 15; // between the two rows of one side's track
const TRACK = 44; // between the tracks of two sides
const LEFT = 34; // where the first hole is; the start and game holes sit left of it
const TOP = 16;
const LAP = 60; // holes once around a track
const GAMES_PER_PAGE = 10; // in the list of games kept
// On a narrow screen (a phone) the board is drawn in rows of fifteen holes instead of thirty,
// so that it fits the width at a size whose holes and pegs can be told apart.
const NARROW = window.matchMedia("(max-width: 600px)");

let game = null; // the state the server answered last
let showSource = "typed"; // where the cards in the show field came from: typed or photo

const postJSON = (url, payload) => send(url, {
  method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(payload ?? {}),
});

// ---- the board -------------------------------------------------------------------------
// Drawn like the classic board: each side's track runs out along its first row of thirty
// holes and back along its second, into the game hole beside the start; a game of 121 goes
// twice around. On a phone each lap is folded into four rows of fifteen, there and back
// twice. Street lines part every five holes. Two pegs a side: the front one at the score,
// the back one where the score was before the last points, so the gap between them shows
// the last score.

function el(name, attributes, parent) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  if (parent) parent.append(node);
  return node;
}

function holeX(index) { // index 0 is the first hole of a row
  return LEFT + index * STEP + Math.floor(index / 5) * STREET;
}

// The shape of the board: holes in a row (30, or 15 on a phone), rows a side's lap takes.
function boardShape() {
  const perRow = NARROW.matches ? LAP / 4 : LAP / 2;
  const rows = LAP / perRow;
  return { perRow, rows, sideHeight: (rows - 1) * ROW + TRACK - ROW };
}

function holePosition(hole, side, target, shape) {
  const { perRow, rows, sideHeight } = shape;
  const y = TOP + side * sideHeight;
  if (hole <= 0) return [LEFT - 22, y]; // the start hole
  if (hole >= target) return [LEFT - 22, y + (rows - 1) * ROW]; // the game hole
  const around = (hole - 1) % LAP; // 0 to 59, on every lap
  const row = Math.floor(around / perRow); // out along the even rows, back along the odd
  const along = around % perRow;
  return [holeX(row % 2 === 0 ? along : perRow - 1 - along), y + row * ROW];
}

function drawBoard(state) {
  const board = $("board");
  const target = state.setup.target;
  const shape = boardShape();
  const width = holeX(shape.perRow - 1) + 20;
  const height = TOP + state.sides.length * shape.sideHeight;
  board.setAttribute("viewBox", `0 0 ${width} ${height}`);
  board.dataset.rowHoles = shape.perRow;
  board.replaceChildren();
  el("rect", { x: 0, y: 0, width, height, rx: 10, class: "wood" }, board);
  for (let street = 5; street < shape.perRow; street += 5) { // across every track, every 5 holes
    const x = (holeX(street - 1) + holeX(street)) / 2;
    el("line", { x1: x, y1: TOP - 9, x2: x, y2: height - 12, class: "street" }, board);
  }
  state.sides.forEach((side, i) => {
    const colour = COLOURS[i % COLOURS.length];
    const track = el("g", { class: "track", "data-side": side.name }, board);
    for (let hole = 1; hole <= LAP; hole += 1) {
      const [x, y] = holePosition(hole, i, target, shape);
      el("circle", { cx: x, cy: y, r: 2.4, class: "hole" }, track);
    }
    const [sx, sy] = holePosition(0, i, target, shape);
    el("circle", { cx: sx, cy: sy, r: 3, class: "hole start" }, track);
    const [gx, gy] = holePosition(target, i, target, shape);
    el("circle", { cx: gx, cy: gy, r: 4.2, class: "hole game-hole" }, track);
    el("title", {}, track).textContent = `${side.name}: ${side.score}`;
    for (const [kind, hole] of [["back", side.back], ["front", side.score]]) {
      const [x, y] = holePosition(Math.min(hole, target), i, target, shape);
      el("circle", {
        cx: x, cy: y, r: 4.6, fill: colour, class: `peg ${kind}`,
        "data-hole": Math.min(hole, target), "data-side": side.name,
      }, track);
    }
  });
}

// ---- the rest of the state ---------------------------------------------------------------

function listItem(text, className) {
  const li = document.createElement("li");
  li.textContent = text;
  if (className) li.className = className;
  return li;
}

function nextText(next) {
  if (next.step === "over") return "The game is over.";
  if (next.step === "deal") return `${next.player} deals: type the starter (or tick a jack).`;
  if (next.step === "play") return `The play: ${next.player} leads. Type the turns, or peg as it happens; then ${next.player}'s hand.`;
  return `${next.player}'s ${next.crib ? "crib" : "hand"}: type the cards, the number claimed, or both.`;
}

function describeRules(state) {
  const setup = state.setup;
  const extras = [setup.muggins && "muggins", setup.skunk && "skunk"].filter(Boolean);
  return `${setup.variant}, to ${setup.target}${extras.length ? `, ${extras.join(", ")}` : ""}. Deal: ${state.dealing}.`;
}

// The players whose initial is theirs alone (the server takes B:K for Bob:K then).
function ownInitials(players) {
  const firsts = players.map((name) => name[0].toLowerCase());
  return players.filter((name, i) => firsts.indexOf(firsts[i]) === firsts.lastIndexOf(firsts[i]));
}

// The play box's example and hint, in this game's names: the leader first, then each to
// his left.
function playHints(state) {
  const players = state.setup.players;
  const lead = Math.max(0, players.indexOf(state.next.player));
  const seat = (k) => players[(lead + k) % players.length];
  $("turns").placeholder = `${seat(0)}:K ${seat(1)}:6 ${seat(2)}:K ${seat(3)}:go ...`;
  let hint = "One turn each, in turn: NAME:CARD, or NAME:go on your turn when no card fits under 31.";
  const own = ownInitials(players).filter((name) => name.length > 1);
  if (own.length === players.length) {
    hint += ` Initials do too: ${seat(0)[0]}:K for ${seat(0)}:K.`;
  } else if (own.length) {
    hint += ` Initials do for ${own.join(", ")}; the others share one, so write their names.`;
  }
  $("turns-hint").textContent = hint;
}

function fillPlayers(select, players) {
  if (select.options.length === players.length) return;
  select.replaceChildren(...players.map((name) => new Option(name, name)));
}

function render(state) {
  game = state;
  drawBoard(state);
  $("sides").replaceChildren(...state.sides.map((side, i) => {
    const li = listItem("", "side");
    li.style.setProperty("--side", COLOURS[i % COLOURS.length]);
    const name = document.createElement("span");
    name.textContent = side.name;
    const score = document.createElement("strong");
    score.className = "score";
    score.textContent = side.score;
    li.append(name, score);
    return li;
  }));
  $("rules").textContent = describeRules(state);
  const next = state.next;
  $("next").textContent = nextText(next);
  for (const form of document.querySelectorAll("[data-step]")) {
    form.hidden = !form.dataset.step.split(" ").includes(next.step);
  }
  $("show-label").textContent = next.step === "play"
    ? `Then ${next.player}'s hand (the play done)`
    : `${next.player}'s ${next.crib ? "crib" : "hand"}`;
  if (next.step === "play") playHints(state);
  fillPlayers($("peg-player"), state.setup.players);
  fillPlayers($("offender"), state.setup.players);
  $("irregularity").hidden = state.over; // nothing is scored after the end
  if (state.over) $("irregularity").open = false;
  $("log").replaceChildren(...state.log.map((line, i) => {
    const li = listItem(line.text);
    const undo = document.createElement("button");
    undo.type = "button";
    undo.className = "button quiet undo-entry";
    undo.dataset.entry = i + 1;
    undo.textContent = "Undo";
    undo.setAttribute("aria-label", `Undo entry ${i + 1}: ${line.text}`); // what it undoes, not its number alone
    li.append(undo);
    if (line.scored.length) li.append(listDetail(line.scored.map((c) => credited(c, "+")).join("; "), "scored"));
    for (const note of line.notes) li.append(listDetail(note, "note-line"));
    if (line.unscored.length) {
      li.append(listDetail(`Not scored, the game was over. ${line.unscored.map((c) => credited(c, "")).join("; ")}`, "unscored"));
    }
    return li;
  }));
  $("undo-button").disabled = state.log.length === 0;
  $("export-link").href = `/api/games/${state.id}/export`;
  showResult(state);
  $("match").textContent = state.match.games.length > 1 || state.over
    ? `Match (game ${state.match.games.indexOf(state.id) + 1}): ${state.match.tally.map((t) => `${t.side} ${t.games}`).join(", ")}`
    : "";
  for (const id of ["board-panel", "entry-panel", "log-panel"]) $(id).hidden = false;
  $("new-panel").hidden = true;
  $("games-panel").hidden = true;
}

// "Bob +2: his heels (a jack turned up)": the reason after a colon, not in brackets, as the
// game's reasons hold brackets of their own.
const credited = (credit, sign) => `${credit.side} ${sign}${credit.points}: ${credit.reason}`;

function listDetail(text, className) {
  const span = document.createElement("span");
  span.className = `detail ${className}`;
  span.textContent = text;
  return span;
}

function showResult(state) {
  const box = $("result");
  box.hidden = !state.over;
  $("next-game-button").hidden = !state.over;
  if (!state.over) return;
  box.replaceChildren(...[
    `${state.result.said}.`, // in the server's words, as `cribcam game` says it
    `${capitalise(state.ended)}.`,
  ].map((text) => {
    const p = document.createElement("p");
    p.textContent = text;
    return p;
  }));
}

// ---- talking to the server ---------------------------------------------------------------

function showError(id, message) {
  $(id).textContent = message ? capitalise(message) : "";
  $(id).hidden = !message;
}

async function load(id) {
  const { ok, data } = await send(`/api/games/${encodeURIComponent(id)}`);
  if (!ok) {
    showError("new-error", `${data.error}: start a new game, or open one of the games kept.`);
    await showNew();
    return;
  }
  render(data);
}

// What a screen reader is told after an entry or an undo: what the last entry scored and its
// notes (muggins), the score, then the end or what comes next.
function saidAfterEntry(state) {
  const last = state.log[state.log.length - 1];
  return [
    ...(last ? [last.text, ...last.notes] : []),
    `Score: ${state.sides.map((side) => `${side.name} ${side.score}`).join(", ")}.`,
    state.over ? `${state.result.said}.` : nextText(state.next),
  ].join(" ");
}

// After an entry the form it was made in may be gone (its step is over): the keyboard goes on
// in the next step's first field, or on Next game at the end, not at the page's top.
function focusNextStep(state) {
  const active = document.activeElement;
  if (active && active !== document.body && !active.closest("[hidden]")) return;
  const form = [...document.querySelectorAll("[data-step]")].find((f) => !f.hidden);
  (state.over || !form ? $("next-game-button") : form.querySelector("input, select, button")).focus();
}

// Sends an entry; the page changes only when the server took it.
async function enter(entry) {
  const { ok, data } = await postJSON(`/api/games/${game.id}/entries`, entry);
  showError("entry-error", ok ? "" : data.error);
  if (ok) {
    render(data);
    announce(saidAfterEntry(data));
    focusNextStep(data);
  }
  return ok;
}

// Reads the hand (or crib) from a photo with the photo page's reader (/api/read) and puts
// its cards in the show field, to check and then show.
async function readPhoto(input) {
  const file = input.files[0];
  input.value = "";
  if (!file) return;
  const form = new FormData();
  form.append("image", file);
  form.append("crib", String(game.next.crib));
  form.append("variant", game.setup.variant);
  if (game.deal && game.deal.starter) form.append("starter", game.deal.starter);
  $("photo-note").textContent = "Reading the photo…";
  const { ok, data } = await send("/api/read", { method: "POST", body: form });
  $("photo-note").textContent = "";
  showError("entry-error", ok ? "" : data.error);
  if (!ok) return;
  $("show-cards").value = data.cards.map((c) => c.card).filter((code) => code !== data.starter).join(" ");
  showSource = "photo";
  $("photo-note").textContent = data.problems.length
    ? data.problems.map(({ message }) => message).join(" ") : "Check the cards read, then Show.";
}

// Drops the last entry, or the one asked for if the entries after it still fit.
async function undo(which) {
  const { ok, data } = await postJSON(`/api/games/${game.id}/undo`, which);
  showError("entry-error", ok ? "" : data.error);
  if (ok) {
    render(data);
    announce(saidAfterEntry(data));
    focusNextStep(data);
  }
}

function showNew() {
  $("new-panel").hidden = false;
  for (const id of ["board-panel", "entry-panel", "log-panel"]) $(id).hidden = true;
  return loadGames(1);
}

// ---- the games kept ----------------------------------------------------------------------

let gamesPage = 1;

function when(iso) {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

function gameRow(summary) {
  const row = document.createElement("tr");
  const players = document.createElement("td");
  const link = document.createElement("a");
  link.href = `/game/${encodeURIComponent(summary.id)}`;
  link.textContent = summary.sides.map((side) => side.name).join(" v ");
  link.className = "game-link";
  players.append(link);
  const score = document.createElement("td");
  score.className = "game-score";
  // Six-card cribbage is the usual game; a five-card one is marked, as `cribcam game list` does.
  const fiveCard = summary.variant === "five-card" ? ", five-card" : "";
  score.textContent = `${summary.sides.map((side) => side.score).join("–")} (to ${summary.target}${fiveCard})`;
  const status = document.createElement("td");
  status.textContent = summary.status;
  if (summary.over) status.className = "over";
  const changed = document.createElement("td");
  const time = document.createElement("time");
  time.dateTime = summary.changed;
  time.textContent = when(summary.changed);
  changed.append(time);
  row.append(players, score, status, changed);
  return row;
}

// The list of games kept, the last changed first, a page at a time; each opens its game.
async function loadGames(page) {
  $("games-panel").hidden = false;
  const { ok, data } = await send(`/api/games?page=${page}&per_page=${GAMES_PER_PAGE}`);
  // A game whose log cannot be replayed is said, never takes the list down.
  const unreadable = ok ? (data.unreadable || []).map(
    (game) => `Game ${game.id} cannot be opened: ${game.error} (cribcam game delete ${game.id} removes it).`) : [];
  showError("games-error", ok ? unreadable.join(" ") : data.error);
  if (!ok) return;
  gamesPage = data.page;
  $("games").querySelector("tbody").replaceChildren(...data.games.map(gameRow));
  $("games").hidden = data.games.length === 0;
  $("games-empty").hidden = data.total > 0;
  $("games-pages").hidden = data.pages <= 1;
  $("games-newer").disabled = data.page <= 1;
  $("games-older").disabled = data.page >= data.pages;
  const first = (data.page - 1) * data.per_page + 1;
  $("games-where").textContent = data.games.length
    ? `${first}–${first + data.games.length - 1} of ${data.total}` : `page ${data.page} of ${data.pages}`;
}

function goTo(state) {
  history.pushState(null, "", `/game/${state.id}`);
  render(state);
  focusNextStep(state);
}

function newGamePayload(form) {
  const names = form.players.value.trim().split(/[\s,]+/).filter(Boolean);
  const count = names.length === 1 && /^\d+$/.test(names[0]) ? Number(names[0]) : null;
  return {
    players: count ?? (names.length ? names : 2), // an empty box: two players, A and B
    variant: form.variant.value,
    target: Number(form.target.value),
    muggins: form.muggins.checked,
    skunk: form.skunk.checked,
  };
}

function clearAfter(ok, ...inputs) {
  if (ok) for (const input of inputs) { input.value = ""; input.checked = false; }
}

function start() {
  $("new-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const { ok, data } = await postJSON("/api/games", newGamePayload(event.target));
    fieldError($("players"), $("new-error"), ok ? "" : capitalise(data.error));
    if (ok) goTo(data);
  });
  $("deal-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const ok = await enter({ type: "deal", starter: $("starter").value.trim() || null, heels: $("heels").checked });
    clearAfter(ok, $("starter"), $("heels"));
  });
  $("play-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const ok = await enter({ type: "play", turns: $("turns").value });
    clearAfter(ok, $("turns"));
  });
  const peg = async () => {
    const ok = await enter({ type: "peg", player: $("peg-player").value, points: $("peg-points").value.trim() });
    clearAfter(ok, $("peg-points"));
  };
  $("peg-button").addEventListener("click", peg);
  // Enter in the points box pegs them: it would submit the form around it, the play's turns.
  $("peg-points").addEventListener("keydown", (event) => {
    if (event.key !== "Enter") return;
    event.preventDefault();
    peg();
  });
  $("show-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const claim = $("show-claim").value.trim();
    const ok = await enter({
      type: "show", cards: $("show-cards").value, claim: claim === "" ? null : claim, source: showSource,
    });
    clearAfter(ok, $("show-cards"), $("show-claim"));
    if (ok) { showSource = "typed"; $("photo-note").textContent = ""; }
  });
  $("show-photo").addEventListener("change", (event) => readPhoto(event.target));
  $("show-cards").addEventListener("input", () => { showSource = "typed"; });
  $("irregularity-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    await enter({ type: "irregularity", player: $("offender").value, kind: $("irregularity-kind").value });
  });
  $("undo-button").addEventListener("click", () => undo({}));
  $("log").addEventListener("click", (event) => {
    const button = event.target.closest(".undo-entry");
    if (button) undo({ entry: Number(button.dataset.entry) });
  });
  $("next-game-button").addEventListener("click", async () => {
    const { ok, data } = await postJSON(`/api/games/${game.id}/next`);
    showError("entry-error", ok ? "" : data.error);
    if (ok) goTo(data);
  });
  $("games-newer").addEventListener("click", () => loadGames(gamesPage - 1));
  $("games-older").addEventListener("click", () => loadGames(gamesPage + 1));
  NARROW.addEventListener("change", () => { if (game) drawBoard(game); });
  window.addEventListener("popstate", () => window.location.reload());
}

async function init() {
  start();
  const id = document.body.dataset.game;
  if (id) await load(id);
  else await showNew();
  document.body.classList.add("ready");
}

init();
