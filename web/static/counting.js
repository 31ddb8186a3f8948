// cribcam counting controls, shared by the photo page (app.js) and the live page (live.js).
// Plain JavaScript, no libraries. The server does all reading and counting (/api/count);
// this module keeps the cards the player has settled on (chips, picker, starter, crib,
// variant, claim), shows what the server says, and asks again when the player changes
// something. Pages give it cards read from a photo or a camera with adoptReading().

const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K"];
const SUITS = { C: ["♣", "clubs"], D: ["♦", "diamonds"], H: ["♥", "hearts"], S: ["♠", "spades"] };
const RANK_NAMES = {
  A: "ace", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight",
  9: "nine", T: "ten", J: "jack", Q: "queen", K: "king",
};
const KIND_NAMES = { fifteen: "Fifteen", pair: "Pair", run: "Run", flush: "Flush", nobs: "His nobs" };
const VERDICT_TITLES = { correct: "Correct", muggins: "Muggins!", overclaim: "Over-claimed" };

export const $ = (id) => document.getElementById(id);

// Writes `text` into a live region only when it is new: the same words written again may be
// said again, and a camera's every frame would repeat them.
export function sayIn(element, text) {
  if (element.textContent !== text) element.textContent = text;
}

// Says a result to a screen reader through the page's live region (_base.html).
export const announce = (text) => sayIn($("announcer"), text);

// The value of the radio group `name` chosen now, and `changed` called with it on each change.
export const chosen = (name) => document.querySelector(`input[name="${name}"]:checked`).value;
export function onChoice(name, changed) {
  for (const radio of document.querySelectorAll(`input[name="${name}"]`)) {
    radio.addEventListener("change", () => changed(chosen(name)));
  }
}

// Shows what is wrong with a field in the box under it, tied to the field (its description,
// after its hint) and the field marked invalid; "" clears them.
export function fieldError(field, box, text) {
  box.textContent = text;
  box.hidden = !text;
  const described = (field.getAttribute("aria-describedby") || "").split(" ").filter((id) => id && id !== box.id);
  if (text) described.push(box.id);
  field.setAttribute("aria-describedby", described.join(" "));
  if (text) field.setAttribute("aria-invalid", "true");
  else field.removeAttribute("aria-invalid");
}

// Redraws a row of buttons with `draw`; when the keyboard's focus was on one of them, it goes
// to the button now in its place (the last, when the row is shorter), not to the page's top.
// Whether the focus was in the row.
export function redrawKeepingFocus(row, draw) {
  const at = [...row.children].indexOf(document.activeElement);
  draw();
  if (at >= 0 && row.children.length) row.children[Math.min(at, row.children.length - 1)].focus();
  return at >= 0;
}

// The codes of the reader's problems that the cards on screen can settle: keyed on, never a
// message's words (cribcam/vision/reading.py; tests/web/test_problem_codes.py checks each is
// one of its PROBLEM_CODES).
const PROBLEM = Object.freeze({
  starterUnknown: "starter_unknown",
  checkCards: "check_cards",
  guessed: "guessed",
  cannotCount: "cannot_count",
  cardsMissing: "cards_missing",
  moreInView: "more_in_view", // which of them make the hand is a guess
  handOnlyHint: "hand_only_hint", // one card short: said once
  readByFace: "read_by_face", // a card read from its pips: in doubt until the player checks it
});
const body = document.body;

export const state = {
  hand: [], // card codes, canonical ("5H", "TD")
  starter: null, // a code or null
  crib: false,
  variant: body.dataset.defaultVariant || "six-card",
  claim: null, // a number or null
  practice: false,
  unsure: new Set(), // codes the reader was not sure of (a reading's `"unsure": true`), not checked yet
  guesses: [], // cards the reader could only guess (a reading's "guesses"): asked, never counted until named
  // The cards of a reading that left cards read surely out (sorted, joined): which make the
  // hand is a guess, so those cards are not counted, whichever is the starter; null otherwise.
  leftOut: null,
};
let refreshSeq = 0;
let lastCount = null;
let claimEdits = 0; // edits of the claim box so far

// How often the claim box has been edited: a page notes it when it sends off a hand, and a
// claim typed while that hand was on its way is the player's claim for it, so it stays.
export const claimsTyped = () => claimEdits;

// ---- cards: display only -----------------------------------------------------------------

export const capitalise = (text) => text.charAt(0).toUpperCase() + text.slice(1);
// "1 card", "5 cards": a count and its noun, plural but for one.
export const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
const rankLabel = (r) => (r === "T" ? "10" : r);
const isRed = (code) => code.endsWith("H") || code.endsWith("D");
export const cardName = (code) => `${RANK_NAMES[code[0]]} of ${SUITS[code[1]][1]}`;
// The cards of a reading the reader was not sure of: `"unsure": true` (absent: sure).
export const unsureCodes = (cards) => cards.filter((c) => c.unsure === true).map((c) => c.card);
export const cardText = (code) => `${rankLabel(code[0])}${SUITS[code[1]][0]}`;
// A control that shows a rank or a card is named by what it shows first, for someone who
// speaks to the page says what they see (WCAG 2.5.3), then in words; a number needs none:
// "5 of hearts", "Q, queen of hearts", and a chip marked to check "K check: king of clubs".
const rankSaid = (r) => (/\d/.test(rankLabel(r)) ? rankLabel(r) : `${rankLabel(r)}, ${RANK_NAMES[r]}`);
export const chipName = (code, marked) => (marked ? `${rankLabel(code[0])} check: ${cardName(code)}`
  : `${rankSaid(code[0])} of ${SUITS[code[1]][1]}`);

export function cardFace(code) {
  const span = document.createElement("span");
  span.className = "face " + (isRed(code) ? "red" : "black");
  const rank = document.createElement("span");
  rank.className = "rank";
  rank.textContent = rankLabel(code[0]);
  const suit = document.createElement("span");
  suit.className = "suit";
  suit.textContent = SUITS[code[1]][0];
  span.append(rank, suit);
  return span;
}

// The buttons that pick a card's rank (named as rankSaid says) and its suit: the picker's here,
// and the discard page's for the cards dealt. `chosen` is called with the rank or suit and the
// button.
export const rankButtons = (chosen) => RANKS.map((r) => {
  const b = document.createElement("button");
  b.type = "button";
  b.textContent = rankLabel(r);
  b.dataset.rank = r;
  b.setAttribute("aria-label", rankSaid(r));
  b.addEventListener("click", () => chosen(r, b));
  return b;
});

export const suitButtons = (chosen) => Object.entries(SUITS).map(([s, [symbol, name]]) => {
  const b = document.createElement("button");
  b.type = "button";
  b.textContent = symbol;
  b.className = isRed(s) ? "red" : "black";
  b.dataset.suit = s;
  b.setAttribute("aria-label", name);
  b.addEventListener("click", () => chosen(s, b));
  return b;
});

// A card as text ("5♣"), read out by its name, not as its symbols ("5, black club suit").
export function namedCard(code) {
  const c = document.createElement("span");
  c.textContent = cardText(code);
  c.setAttribute("role", "img");
  c.setAttribute("aria-label", cardName(code));
  return c;
}

export function miniCards(codes) {
  const span = document.createElement("span");
  span.className = "mini-cards";
  for (const code of codes) {
    const c = namedCard(code);
    c.className = "mini " + (isRed(code) ? "red" : "black");
    span.append(c);
  }
  return span;
}

// The mark under a card to check ("check", or "?" for a guess); the card's label says it in words.
export function checkMark(text) {
  const mark = document.createElement("span");
  mark.className = "check-mark";
  mark.setAttribute("aria-hidden", "true");
  mark.textContent = text;
  return mark;
}

function chipButton(code, where, index) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "chip" + (where === "starter" ? " starter" : "");
  if (code) {
    b.dataset.card = code;
    b.append(cardFace(code));
    const role = where === "starter" ? ", the starter" : "";
    if (state.unsure.has(code)) {
      // Read with doubt: drawn apart (dashed amber, "check"), and said so.
      b.classList.add("unsure");
      b.append(checkMark("check"));
      b.title = "Check this card: the reader is not sure of it";
      b.setAttribute("aria-label",
        `${chipName(code, true)}${role}, not sure; tap to change it or confirm it`);
    } else {
      b.setAttribute("aria-label", `${chipName(code, false)}${role}: tap to change`);
    }
  } else {
    b.classList.add("empty");
    b.textContent = where === "starter" ? "?" : "+";
    b.setAttribute("aria-label", where === "starter" ? "Set the starter" : "Add a card");
    b.dataset.action = where === "starter" ? "set-starter" : "add-card";
  }
  b.addEventListener("click", () => openPicker(where, index));
  return b;
}

// A card the reader could only guess: a question ("J♠?"), not a card of the hand, until the
// player names it.
function guessButton(code, index) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "chip guess";
  b.dataset.guess = code;
  b.append(cardFace(code), checkMark("?"));
  b.title = "A card the reader could only guess: not counted until you name it";
  b.setAttribute("aria-label",
    `${rankLabel(code[0])}? A card the reader could only guess: the ${cardName(code)}? Not counted: tap to name it`);
  b.addEventListener("click", () => openPicker("guess", index));
  return b;
}

function renderChips() {
  $("hand-label").textContent = state.crib ? "Crib" : "Hand";
  const hand = $("hand-chips");
  // A chip changed in the picker is the one the picker gives the focus back to, redrawn here.
  redrawKeepingFocus(hand, () => {
    hand.replaceChildren(...state.hand.map((code, i) => chipButton(code, "hand", i)),
      ...state.guesses.map(guessButton));
    if (state.hand.length < 6) hand.append(chipButton(null, "hand", null));
  });
  redrawKeepingFocus($("starter-chips"), () => $("starter-chips").replaceChildren(chipButton(state.starter, "starter", null)));
}

// ---- the taught deck this browser reads with -----------------------------------------------

// A choice this browser keeps for a year, sent with every request to this server.
function keepCookie(name, value) {
  document.cookie = `${name}=${encodeURIComponent(value)}; path=/; SameSite=Strict; max-age=31536000`;
}

// The browser's deck is a cookie the server reads on every photo and frame (cribcam/web:
// DECK_COOKIE); "" for cribcam's own reader.
export const chooseDeck = (name) => keepCookie("cribcam-deck", name);

// The decks taught on this server and the one this browser reads with (null: cribcam's own).
// A deck removed since (the last one too) is forgotten: its photos would all be 404s.
export async function taughtDecks() {
  const { ok, data } = await send("/api/decks");
  if (!ok) return null;
  const known = data.decks.some((deck) => deck.name === data.chosen);
  if (data.chosen && !known) chooseDeck("");
  return { decks: data.decks, chosen: known ? data.chosen : null };
}

// ---- talking to the server ---------------------------------------------------------------

// A server open to its network asks for its key before a change ("code": "door_key"): the
// player is asked for it once, it is kept in a cookie, and the request is sent again.
export async function send(url, options) {
  const answer = await sendOnce(url, options);
  if (answer.status !== 403 || !answer.data || answer.data.code !== "door_key") return answer;
  const key = window.prompt(`${capitalise(answer.data.error)}.\nThe key:`);
  if (!key || !key.trim()) return answer;
  keepCookie("cribcam-key", key.trim()); // cribcam/web: KEY_COOKIE
  return sendOnce(url, options);
}

async function sendOnce(url, options) {
  let response;
  try {
    response = await fetch(url, options);
  } catch (err) {
    return { ok: false, status: 0, data: { error: "The server cannot be reached: check the connection and try again." } };
  }
  let data;
  try {
    data = await response.json();
  } catch (err) {
    data = { error: `The server answered ${response.status} without a readable message.` };
  }
  if (!response.ok && !(data && data.error)) data = { error: `The server answered ${response.status}.` };
  return { ok: response.ok, status: response.status, data };
}

const postJSON = (url, payload) => send(url, {
  method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(payload),
});

// ---- the count -----------------------------------------------------------------------------

function countRequest() {
  const payload = { hand: state.hand, starter: state.starter, crib: state.crib, variant: state.variant };
  if (state.claim !== null) payload.claim = state.claim;
  return payload;
}

// Counts the chips as they stand. Resolves to the count shown (null when there is none),
// or undefined when a newer change has been sent since.
async function refresh() {
  const seq = ++refreshSeq;
  renderChips();
  if (!state.hand.length && !state.starter) {
    // A claim with no cards is said to wait for them, not dropped without a word.
    showCount(null, state.claim === null ? undefined
      : `The claim of ${state.claim} is checked once there are cards: type them, or read a photo.`, true);
    return null;
  }
  if (state.leftOut !== null && onScreen() === state.leftOut) {
    showCount(null, "Not counted: the photo shows more cards than the hand, and which of them make it is a guess. "
      + "Take the others away and read it again, or fix the cards here.", true);
    return null;
  }
  if (!state.starter) {
    showCount(null, "Which card is the starter? Tap it and tick “This card is the starter”, or tap ? to add it.", true);
    return null;
  }
  body.classList.add("counting");
  const { ok, data } = await postJSON("/api/count", countRequest());
  if (seq !== refreshSeq) return undefined;
  if (ok) showCount(data);
  else showCount(null, data.error);
  return ok ? data : null;
}

let waiting = []; // cards in doubt that keep a hand from being counted (the live page's lock)

// Says which cards the reader was not sure of: those on the chips, else those a hand waits on
// (none: the note hides).
function showUnsure() {
  const note = $("unsure-note");
  const onChips = [...state.hand, state.starter].filter((c) => c && state.unsure.has(c));
  const codes = onChips.length ? onChips : waiting;
  note.hidden = !codes.length;
  if (!codes.length) {
    note.replaceChildren();
    return;
  }
  const names = codes.map(cardName);
  const list = names.length === 1 ? `the ${names[0]}` : `the ${names.slice(0, -1).join(", the ")} and the ${names[names.length - 1]}`;
  const one = codes.length === 1;
  const what = onChips.length
    ? ` The reader is not sure of ${list}: tap ${one ? "it" : "each"} among the cards to fix it, or OK it as it is.`
    : ` The reader is not sure of ${list} yet: the hand is counted once it is. Give ${one ? "it" : "them"} more light, or type the cards.`;
  note.replaceChildren(`Check ${one ? "this card" : "these cards"}: `, miniCards(codes), what);
}

// The cards in doubt a hand waits on before it is counted (the live page: [] once it locks).
export function showWaiting(codes) {
  if (JSON.stringify(codes) === JSON.stringify(waiting)) return;
  waiting = [...codes];
  showUnsure();
}

let onCount = () => {};

// Shows a count, or why there is none: an error from the server, or a guide (what to do next).
// The starter buttons, each with the total its card would make, but while the player counts
// for himself first: the totals would give his answer away.
function labelStarterChoices() {
  const secret = state.practice && state.claim === null;
  for (const b of $("starter-choice-buttons").querySelectorAll("button")) {
    const total = Number(b.dataset.total);
    b.replaceChildren(miniCards([b.dataset.starter]), secret ? "" : ` ${plural(total, "point")}`);
  }
}

function showCount(data, error, guide) {
  body.classList.remove("counting");
  labelStarterChoices();
  showProblems();
  lastCount = data;
  showUnsure();
  $("count-error").hidden = !error;
  $("count-error").textContent = error ? capitalise(error) : "";
  $("count-error").classList.toggle("error", !guide);
  $("count-error").classList.toggle("guide", Boolean(guide));
  $("count-empty").hidden = Boolean(data || error);
  const hidden = !data || (state.practice && state.claim === null);
  $("practice-note").hidden = !(data && state.practice && state.claim === null);
  $("count").hidden = hidden;
  renderVerdict(data);
  onCount(hidden ? null : data);
  const what = data && data.crib ? "Crib" : "Hand";
  announce(hidden ? "" : `${[verdictTitle(data), `${what} total ${data.total}`, capitalise(data.spoken)]
    .filter(Boolean).join(". ")}.`);
  if (!data) return;
  $("total-label").textContent = `${what} total`;
  $("total").textContent = String(data.total);
  $("spoken").textContent = `“${capitalise(data.spoken)}”`;
  const rows = data.items.map((item) => {
    const tr = document.createElement("tr");
    const kind = document.createElement("td");
    kind.textContent = item.kind === "run" ? `Run of ${item.cards.length}` : (KIND_NAMES[item.kind] || item.kind);
    const cards = document.createElement("td");
    cards.append(miniCards(item.cards));
    const points = document.createElement("td");
    points.className = "points";
    points.textContent = String(item.points);
    tr.append(kind, cards, points);
    return tr;
  });
  if (!rows.length) {
    const tr = document.createElement("tr");
    const td = document.createElement("td");
    td.colSpan = 3;
    td.className = "nineteen";
    td.textContent = "Nothing scores (a “nineteen” hand).";
    tr.append(td);
    rows.push(tr);
  }
  $("items").replaceChildren(...rows);
  $("heels").hidden = !data.heels;
  $("heels").textContent = data.heels
    ? `His heels: the starter is a jack, ${data.heels} to the dealer (not part of the ${what.toLowerCase()}).`
    : "";
}

// The verdict on a claim in a few words ("Muggins! 2 points overlooked"); "" without a claim.
export function verdictTitle(data) {
  if (!data || !data.verdict) return "";
  return data.verdict === "muggins" ? `Muggins! ${plural(data.difference, "point")} overlooked`
    : VERDICT_TITLES[data.verdict] || data.verdict;
}

function renderVerdict(data) {
  const box = $("verdict");
  if (!data || !data.verdict) {
    box.hidden = true;
    box.replaceChildren();
    delete box.dataset.verdict;
    return;
  }
  box.hidden = false;
  box.dataset.verdict = data.verdict;
  const what = data.crib ? "crib" : "hand";
  const title = document.createElement("p");
  title.className = "verdict-title";
  title.textContent = verdictTitle(data);
  const message = document.createElement("p");
  message.className = "verdict-message";
  message.textContent = data.verdict === "muggins"
    ? `The ${what} is ${data.total}, not ${data.claimed}: the opponent may peg ${data.difference}.`
    : data.message; // the server's sentence, as `cribcam count` says it
  box.replaceChildren(title, message);
  if (data.verdict === "muggins" && data.overlooked.length) {
    const intro = document.createElement("p");
    intro.textContent = "Overlooked:";
    const list = document.createElement("ul");
    list.className = "overlooked";
    for (const item of data.overlooked) {
      const li = document.createElement("li");
      const name = item.kind === "run" ? `run of ${item.cards.length}` : (KIND_NAMES[item.kind] || item.kind).toLowerCase();
      li.append(`${name} `, miniCards(item.cards), ` for ${item.points}`);
      list.append(li);
    }
    box.append(intro, list);
  }
  if (data.impossible && data.verdict === "muggins") {
    const note = document.createElement("p");
    note.textContent = `(${data.claimed} is not a possible ${what} count.)`;
    box.append(note);
  }
}

// ---- the claim -----------------------------------------------------------------------------

// The claim typed: none when the box is empty, else a whole number of points from 0 to the
// server's bound (MAX_CLAIM in cribcam/scoring/muggins.py, given to the page as data-max-claim),
// or what is wrong with it.
function readClaim() {
  const text = $("claim").value.trim();
  if (!text) return { claim: null };
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  const max = Number($("claim").dataset.maxClaim);
  if (!(n <= max)) {
    return { error: `“${text}” is not a claim: enter the points claimed, a whole number from 0 to ${max}, like 12.` };
  }
  return { claim: n };
}

function clearClaim() {
  state.claim = null;
  $("claim").value = "";
}

// A new or changed hand: in practice mode the player counts it afresh.
function handChanged() {
  if (state.practice) clearClaim();
  return refresh();
}

// The cards on screen, hand and starter, as one sorted string (to compare with state.leftOut).
const onScreen = () => [...state.hand, state.starter].filter(Boolean).sort().join(" ");

// ---- speaking ------------------------------------------------------------------------------

export const canSpeak = () => "speechSynthesis" in window;

export function speak(text) {
  if (!text || !canSpeak()) return;
  window.speechSynthesis.cancel();
  const utterance = new SpeechSynthesisUtterance(text);
  utterance.lang = "en";
  utterance.rate = 0.95;
  window.speechSynthesis.speak(utterance);
}

// ---- cards read from a photo or a camera ---------------------------------------------------

let readingProblems = []; // the problems of the reading on screen: [{code, message}]
let readingExpected = null; // how many cards its photo should hold

// The reading's problems that still hold for the cards on screen: not "could not tell which
// card is the starter" once one is chosen, nor "check the JS" (the note on the unsure cards
// says that, of the cards still there and still in doubt), nor "cannot count" (the count says
// why of the cards on the chips), nor the guesses once each is named or removed, nor "4 cards
// read but 5 expected" once the chips hold as many as expected, nor "read from its pips alone"
// once no card is in doubt.
function showProblems() {
  const onChips = state.hand.length + (state.starter ? 1 : 0);
  const holding = readingProblems.filter(({ code }) =>
    !(state.starter && code === PROBLEM.starterUnknown) && code !== PROBLEM.checkCards
    && code !== PROBLEM.cannotCount && !(!state.guesses.length && code === PROBLEM.guessed)
    && !(onChips === readingExpected && code === PROBLEM.cardsMissing)
    && !((state.starter || onChips >= readingExpected) && code === PROBLEM.handOnlyHint)
    && !(!state.unsure.size && code === PROBLEM.readByFace));
  $("problems").replaceChildren(...holding.map(({ message }) => {
    const li = document.createElement("li");
    li.textContent = capitalise(message);
    return li;
  }));
  $("problems").hidden = !holding.length;
}

export function forgetReading() {
  readingProblems = [];
  readingExpected = null;
  state.guesses = [];
  state.leftOut = null;
  showProblems();
}

export function hideStarterChoices() {
  $("starter-choices").hidden = true;
  $("starter-choice-buttons").replaceChildren();
}

// Takes the cards of a reading (the JSON of /api/read) as the hand: its problems are listed,
// and when the layout does not say which card is the starter, the total for each choice is
// offered. The claim goes with the hand before, unless it was typed after `claimsTypedAtSend`
// (claimsTyped() when the photo was sent). Resolves as refresh() does.
export function adoptReading(data, claimsTypedAtSend = claimEdits) {
  readingProblems = data.problems;
  readingExpected = data.expected ?? null;
  hideStarterChoices();
  const codes = data.cards.map((c) => c.card);
  state.unsure = new Set(unsureCodes(data.cards));
  state.guesses = (data.guesses || []).map((c) => c.card);
  state.leftOut = data.problems.some(({ code }) => code === PROBLEM.moreInView) ? [...codes].sort().join(" ") : null;
  state.starter = data.starter && codes.includes(data.starter) ? data.starter : null;
  state.hand = codes.filter((c) => c !== state.starter);
  if (!state.starter && data.totals_by_starter) {
    $("starter-choice-buttons").replaceChildren(...data.totals_by_starter.map((t) => {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "button";
      b.dataset.starter = t.starter;
      b.dataset.total = t.total;
      b.addEventListener("click", () => {
        state.hand = codes.filter((c) => c !== t.starter);
        state.starter = t.starter;
        hideStarterChoices();
        handChanged();
        $("starter-chips").firstChild.focus(); // the choice is gone: the starter chosen, drawn
      });
      return b;
    }));
    labelStarterChoices();
    $("starter-choices").hidden = false;
  }
  $("typed-cards").value = "";
  if (claimEdits === claimsTypedAtSend) clearClaim();
  return refresh();
}

// ---- the picker ----------------------------------------------------------------------------

const pick = { where: "hand", index: null, code: null, rank: null, suit: null };

function buildPicker() {
  $("picker-ranks").replaceChildren(...rankButtons((r) => { pick.rank = r; updatePicker(); }));
  $("picker-suits").replaceChildren(...suitButtons((s) => { pick.suit = s; updatePicker(); }));
  for (const grid of [$("picker-ranks"), $("picker-suits")]) grid.addEventListener("keydown", moveInGrid);
}

// The picker's ranks and suits are a Tab stop each, not 17: the arrow keys (and Home, End)
// move among the buttons of one; Enter or Space chooses, as a click.
const GRID_STEPS = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };

function moveInGrid(event) {
  const buttons = [...event.currentTarget.children];
  const from = buttons.indexOf(document.activeElement);
  const to = event.key === "Home" ? 0 : event.key === "End" ? buttons.length - 1
    : event.key in GRID_STEPS ? (from + GRID_STEPS[event.key] + buttons.length) % buttons.length : null;
  if (to === null || from < 0) return;
  event.preventDefault();
  tabStopAt(buttons, buttons[to]);
  buttons[to].focus();
}

// Makes `stop` the one button of `buttons` that Tab reaches.
function tabStopAt(buttons, stop) {
  for (const b of buttons) b.tabIndex = b === stop ? 0 : -1;
}

function updatePicker() {
  for (const b of $("picker-ranks").children) b.setAttribute("aria-pressed", String(b.dataset.rank === pick.rank));
  for (const b of $("picker-suits").children) b.setAttribute("aria-pressed", String(b.dataset.suit === pick.suit));
  // Tab reaches each grid on its button chosen, or its first.
  for (const grid of [$("picker-ranks"), $("picker-suits")]) {
    const buttons = [...grid.children];
    tabStopAt(buttons, buttons.find((b) => b.getAttribute("aria-pressed") === "true") || buttons[0]);
  }
  const code = pick.rank && pick.suit ? pick.rank + pick.suit : null;
  const preview = $("picker-preview");
  preview.replaceChildren(code ? cardFace(code) : "?");
  $("picker-ok").disabled = !code;
  $("picker-error").hidden = true;
}

function openPicker(where, index) {
  const code = where === "starter" ? state.starter
    : where === "guess" ? state.guesses[index] : (index === null ? null : state.hand[index]);
  Object.assign(pick, { where, index, code, rank: code ? code[0] : null, suit: code ? code[1] : null });
  $("picker-title").textContent = where === "guess" ? `Is it the ${cardName(code)}? Name the card`
    : code ? `Change the ${cardName(code)}` : (where === "starter" ? "Set the starter" : "Add a card");
  $("picker-starter").checked = where === "starter";
  $("picker-remove").hidden = !code;
  updatePicker();
  $("picker").showModal();
  // On the card's own rank, not on the ace: the rank is what is most often changed.
  const rank = $("picker-ranks").querySelector('[aria-pressed="true"]');
  if (rank) rank.focus();
}

function pickerChosen(event) {
  event.preventDefault();
  const code = pick.rank && pick.suit ? pick.rank + pick.suit : null;
  if (!code) return;
  const asStarter = $("picker-starter").checked;
  const guess = pick.where === "guess";
  const old = pick.where === "starter" ? state.starter : (guess || pick.index === null ? null : state.hand[pick.index]);
  const others = state.hand.filter((c, i) => !(pick.where === "hand" && i === pick.index));
  if (pick.where !== "starter" && state.starter) others.push(state.starter);
  if (code !== old && others.includes(code)) {
    $("picker-error").textContent = `${cardText(code)} is already in play: a deck has one ${cardName(code)}.`;
    $("picker-error").hidden = false;
    return;
  }
  if (guess) state.guesses.splice(pick.index, 1); // named: a card of the hand now, like one added
  if (pick.where === "starter") {
    if (asStarter) state.starter = code;
    else { state.hand.push(code); state.starter = null; }
  } else if (asStarter) {
    // This card becomes the starter; the old starter, if any, takes its place in the hand.
    if (guess || pick.index === null) { if (state.starter) state.hand.push(state.starter); }
    else if (state.starter) state.hand[pick.index] = state.starter;
    else state.hand.splice(pick.index, 1);
    state.starter = code;
  } else if (guess || pick.index === null) state.hand.push(code);
  else state.hand[pick.index] = code;
  // The player has looked at this card: changed, or confirmed as it is, it is no longer in doubt.
  state.unsure.delete(old);
  state.unsure.delete(code);
  $("picker").close();
  hideStarterChoices();
  $("typed-cards").value = ""; // the chips, not the typed line, are the hand now
  handChanged();
}

// ---- start ---------------------------------------------------------------------------------

// Wires the shared controls. `onClear` runs when the hand on screen is forgotten ("New
// hand", or typed cards that make no hand): the page forgets its photo or its locked hand.
// When the server has no card-reading model, `noModelNote` is shown and `onNoModel` runs.
// `onCount` is given each count as it is shown (null when none is), for a page that shows it
// a second time (the photo page, beside the photo on a phone).
export function startCounting({ onClear, noModelNote, onNoModel = () => {}, onCount: countShown = () => {} }) {
  onCount = countShown;
  const claimEntered = ({ claim, error }) => {
    if (error) { // said, and the verdict on the claim before goes with it
      state.claim = null;
      showCount(lastCount && { ...lastCount, verdict: null }, error);
      return;
    }
    state.claim = claim;
    refresh();
  };
  $("claim-form").addEventListener("submit", (event) => {
    event.preventDefault();
    claimEntered(readClaim());
  });
  $("claim").addEventListener("input", () => { claimEdits += 1; });
  $("claim").addEventListener("change", () => {
    if (state.practice) return; // in practice the count waits for Check
    const typed = readClaim();
    if (typed.error || typed.claim !== state.claim) claimEntered(typed);
  });
  $("practice").addEventListener("change", (event) => {
    state.practice = event.target.checked;
    if (state.practice) clearClaim();
    refresh();
  });

  if (!canSpeak()) $("speak-button").hidden = true;
  $("speak-button").addEventListener("click", () => { if (lastCount) speak(lastCount.spoken); });

  onChoice("what", (what) => { state.crib = what === "crib"; handChanged(); });
  onChoice("variant", (variant) => { state.variant = variant; handChanged(); });

  // Forgets the hand on screen: its chips, count, claim and reading notes, and the page's
  // photo or locked hand.
  const clearHand = () => {
    state.hand = [];
    state.starter = null;
    state.unsure.clear();
    clearClaim();
    forgetReading();
    hideStarterChoices();
    onClear();
    return refresh();
  };

  $("clear-button").addEventListener("click", () => {
    $("typed-cards").value = "";
    fieldError($("typed-cards"), $("type-error"), "");
    clearHand();
  });

  $("type-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const tokens = $("typed-cards").value.split(/[\s,]+/).filter(Boolean);
    const typeError = (text) => fieldError($("typed-cards"), $("type-error"), text);
    if (!tokens.length) {
      typeError("Type the hand's cards and then the starter, like 5H 5C 5S JD 5D.");
      return;
    }
    // The server parses and checks the cards; the last one typed is the starter.
    const payload = {
      hand: tokens.slice(0, -1), starter: tokens[tokens.length - 1], crib: state.crib, variant: state.variant,
    };
    const claimsTypedAtSend = claimEdits;
    const { ok, data } = await postJSON("/api/count", payload);
    if (!ok) {
      typeError(capitalise(data.error));
      // The hand on screen is not what was typed: it goes, the typed line stays to be fixed.
      clearHand();
      return;
    }
    typeError("");
    forgetReading();
    hideStarterChoices();
    onClear();
    state.hand = data.hand;
    state.starter = data.starter;
    state.unsure.clear(); // typed: the player's own cards
    if (claimEdits === claimsTypedAtSend) handChanged();
    else refresh(); // a claim typed while the hand was checked is for this hand

  });

  $("picker-form").addEventListener("submit", pickerChosen);
  $("picker-remove").addEventListener("click", () => {
    if (pick.where === "starter") state.starter = null;
    else if (pick.where === "guess") state.guesses.splice(pick.index, 1);
    else state.hand.splice(pick.index, 1);
    if (![...state.hand, state.starter].includes(pick.code)) state.unsure.delete(pick.code);
    $("picker").close();
    $("typed-cards").value = "";
    handChanged();
  });
  $("picker-cancel").addEventListener("click", () => $("picker").close());

  buildPicker();
  renderChips();
  checkServer(noModelNote, onNoModel);
}

async function checkServer(noModelNote, onNoModel) {
  const { ok, data } = await send("/api/status");
  if (ok && !data.model) {
    const note = $("model-note");
    note.textContent = noModelNote;
    note.hidden = false;
    onNoModel();
  }
}
