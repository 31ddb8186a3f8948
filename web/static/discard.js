// cribcam discard advisor page. Plain JavaScript, no libraries.
// The server works out every way to lay away (/api/discard) and reads photos (/api/read);
// this page keeps the cards dealt (typed, tapped or read from a photo), whose crib it is and
// the game, and shows the options as the server ranks them.
import {
  $, announce, capitalise, cardFace, cardName, cardText, fieldError, miniCards, onChoice, plural, rankButtons,
  redrawKeepingFocus, send, suitButtons,
} from "./counting.js";

const MOST_DEALT = 6;
const FEWEST_DEALT = 5; // three or four players, or five-card cribbage

const body = document.body;
const maxUpload = Number(body.dataset.maxUpload) || 12 * 1024 * 1024;

const deal = {
  cards: [], // canonical codes ("5H", "TD"), in the order dealt
  dealer: true,
  variant: body.dataset.defaultVariant || "six-card",
  suit: "H", // the suit the rank buttons add
};
let adviceSeq = 0;
let photoSeq = 0;

// ---- the cards dealt -----------------------------------------------------------------------

function chip(code) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "chip";
  b.dataset.card = code;
  b.append(cardFace(code));
  b.setAttribute("aria-label", `${cardText(code)}: tap to take it back`);
  b.addEventListener("click", () => {
    deal.cards = deal.cards.filter((c) => c !== code);
    cardsChanged();
  });
  return b;
}

function renderCards() {
  const row = $("dealt-chips");
  // A card taken back: the focus goes to the card now in its place, or to the ranks.
  if (redrawKeepingFocus(row, () => row.replaceChildren(...deal.cards.map(chip))) && !row.children.length) {
    $("rank-buttons").firstChild.focus();
  }
  for (const b of $("suit-buttons").children) b.setAttribute("aria-pressed", String(b.dataset.suit === deal.suit));
  const full = deal.cards.length >= MOST_DEALT;
  for (const b of $("rank-buttons").children) b.disabled = full || deal.cards.includes(b.dataset.rank + deal.suit);
}

function buildTapButtons() {
  $("suit-buttons").replaceChildren(...suitButtons((s) => { deal.suit = s; renderCards(); }));
  $("rank-buttons").replaceChildren(...rankButtons((r, b) => {
    deal.cards.push(r + deal.suit);
    cardsChanged();
    if (b.disabled) focusAfter(b);
  }));
}

// A rank button disabled by the card it added: the focus goes on to the next rank that can
// be added, or to the cards when none can (six dealt).
function focusAfter(button) {
  const ranks = [...$("rank-buttons").children];
  const from = ranks.indexOf(button);
  const next = [...ranks.slice(from + 1), ...ranks.slice(0, from)].find((b) => !b.disabled);
  (next || $("dealt-chips").lastChild).focus();
}

function showDealError(text) {
  fieldError($("typed-cards"), $("deal-error"), text ? capitalise(text) : "");
}

// The cards, whose crib or the game changed: ask the server again once a deal is complete.
function cardsChanged() {
  showDealError("");
  renderCards();
  const missing = FEWEST_DEALT - deal.cards.length;
  if (missing > 0) {
    adviceSeq++;
    showAdvice(null);
    $("advice-empty").textContent = deal.cards.length
      ? `Add ${plural(missing, "more card")} (six are dealt; five with three or four players or in five-card cribbage).`
      : "Enter the cards dealt to see every way to lay away, best first.";
    return;
  }
  requestAdvice(deal.cards);
}

// ---- the advice ----------------------------------------------------------------------------

// Asks the server to rank the ways to lay away `cards`. Resolves to the advice shown, or
// null when the server refused the cards (its message is shown instead).
async function requestAdvice(cards) {
  const seq = ++adviceSeq;
  const { ok, data } = await send("/api/discard", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ cards, dealer: deal.dealer, variant: deal.variant }),
  });
  if (seq !== adviceSeq) return undefined;
  showDealError(ok ? "" : data.error); // a mistake said before goes once a deal is advised
  if (!ok) {
    showAdvice(null);
    return null;
  }
  showAdvice(data);
  return data;
}

// Points as the server rounded them (cribcam/scoring/discard_report.py, two places, as
// `cribcam discard` prints them): toFixed only writes the zeros ("9.2" as "9.20"), it never
// rounds a second time.
const points = (value) => value.toFixed(2);

function numberCell(value) {
  const td = document.createElement("td");
  td.className = "points";
  td.textContent = points(value);
  return td;
}

function showAdvice(data) {
  $("advice").hidden = !data;
  $("advice-empty").hidden = Boolean(data);
  if (!data) {
    announce("");
    return;
  }
  const best = data.options[0];
  announce(`Best: lay away the ${best.discard.map(cardName).join(" and the ")}, ${points(best.net)} expected.`);
  const worst = data.options[data.options.length - 1];
  const strong = document.createElement("strong");
  strong.textContent = points(best.net);
  $("best").replaceChildren("Best: lay away ", miniCards(best.discard), " ", strong, " expected");
  $("spread").replaceChildren(
    `The worst choice, laying away `, miniCards(worst.discard),
    `, expects ${points(worst.net)}: ${points(data.spread)} points less.`);
  $("options").replaceChildren(...data.options.map((option, i) => {
    const tr = document.createElement("tr");
    if (i === 0) tr.dataset.best = "true";
    const discard = document.createElement("td");
    discard.append(miniCards(option.discard));
    const keep = document.createElement("td");
    keep.append(miniCards(option.keep));
    tr.append(discard, keep, numberCell(option.hand), numberCell(option.crib), numberCell(option.net));
    return tr;
  }));
  const net = data.dealer ? "hand + crib: the crib is yours" : "hand − crib: the crib is the dealer's";
  $("advice-note").textContent = `Expected points of the hand kept, over every starter, and of `
    + `the crib, its other cards drawn from those you have not seen. Net = ${net}.`;
}

// ---- typing --------------------------------------------------------------------------------

async function typedDeal(event) {
  event.preventDefault();
  const tokens = $("typed-cards").value.split(/[\s,]+/).filter(Boolean);
  // The server parses and checks the cards; a mistyped deal replaces the one before it, and
  // so does an empty box: advice left on screen would be for cards no longer asked about.
  deal.cards = [];
  if (!tokens.length) {
    cardsChanged(); // no cards: the advice goes
    showDealError("Type the cards dealt, like 5H 5C 6D JD QS KS.");
    return;
  }
  renderCards();
  const data = await requestAdvice(tokens);
  if (!data) return;
  deal.cards = data.cards;
  renderCards();
}

// ---- a photo of the cards dealt ------------------------------------------------------------

function setPhotoStatus(text, isError) {
  $("photo-status").textContent = capitalise(text);
  $("photo-status").classList.toggle("error", Boolean(isError));
}

async function readPhoto(file) {
  if (!file) return;
  const seq = ++photoSeq;
  if (file.size > maxUpload) {
    setPhotoStatus(`The photo is over ${Math.floor(maxUpload / 1048576)} MB: send a smaller one.`, true);
    return;
  }
  setPhotoStatus("Reading the cards…");
  const form = new FormData();
  form.append("image", file, file.name || "photo.jpg");
  form.append("deal", "true"); // every card in view is a card dealt: no starter, pairs kept apart
  form.append("variant", deal.variant);
  const { ok, data } = await send("/api/read", { method: "POST", body: form });
  if (seq !== photoSeq) return;
  if (!ok) {
    setPhotoStatus(data.error, true);
    return;
  }
  deal.cards = data.cards.map((c) => c.card);
  const read = `${plural(deal.cards.length, "card")} read: check them, and tap one to take it back.`;
  setPhotoStatus([read, ...data.problems.map(({ message }) => capitalise(message))].join(" "));
  $("typed-cards").value = "";
  cardsChanged();
}

// ---- start ---------------------------------------------------------------------------------

function start() {
  buildTapButtons();
  $("type-form").addEventListener("submit", typedDeal);
  onChoice("whose", (whose) => { deal.dealer = whose === "dealer"; cardsChanged(); });
  onChoice("variant", (variant) => { deal.variant = variant; cardsChanged(); });
  $("clear-button").addEventListener("click", () => {
    deal.cards = [];
    $("typed-cards").value = "";
    setPhotoStatus("");
    cardsChanged();
  });
  $("photo-input").addEventListener("change", (event) => {
    readPhoto(event.target.files && event.target.files[0]);
    event.target.value = ""; // the same photo can be chosen again
  });
  cardsChanged();
  body.classList.add("ready");
}

start();
