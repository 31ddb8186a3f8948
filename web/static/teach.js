// cribcam teach page. Plain JavaScript, no libraries.
// The server finds the cards of each layout photo and proposes their names
// (/api/teach/photos); this page draws them, lets the player fix any name, says which cards
// are still missing, then has the server teach the deck (/api/teach/train) and follows it
// (/api/teach/status). Once taught, a hand can be read with the deck right here.
import {
  $, adoptReading, capitalise, cardText, checkMark, chipName, chooseDeck, chosen, hideStarterChoices, namedCard, onChoice,
  plural, send, startCounting, state,
} from "./counting.js";

const SUIT_ORDER = ["C", "D", "H", "S"];
const ALL_CARDS = SUIT_ORDER.flatMap((s) => ["A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K"].map((r) => r + s));
const SVG = "http://www.w3.org/2000/svg";
const MAX_PHOTOS = Number($("teach-input").dataset.maxPhotos); // the server's limit (cribcam/web/teach.py)

let session = null;
const photos = []; // {id, name, url, width, height, cards: [{boxes, name}], problems}
let teaching = false;
// What the deck prints for the ranks teaching was unsure of, as the player answered ({"Q": "V"}):
// null until asked for the names as they stand (/api/teach/letters).
let letters = null;

// Said as given, never capitalised: a status may begin with a file name, whose case is its own.
function setStatus(text, isError) {
  $("teach-status").textContent = text;
  $("teach-status").classList.toggle("error", Boolean(isError));
}

// A typed card: "8c", "10h", "Q♠" -> "8C", "TH", "QS"; "" -> null (not taught); else undefined.
function parseCard(text) {
  const t = text.trim().toUpperCase().replace("♣", "C").replace("♦", "D").replace("♥", "H").replace("♠", "S");
  if (!t) return null;
  const m = /^(10|[A2-9TJQK])([CDHS])$/.exec(t);
  return m ? (m[1] === "10" ? "T" : m[1]) + m[2] : undefined;
}

const naming = () => chosen("naming");

// ---- photos in ---------------------------------------------------------------------------

// The photos chosen are sent in turn, as many as the server takes (the first of them); the
// rest are left out, and the status says which.
async function addPhotos(chosen) {
  const room = Math.max(0, MAX_PHOTOS - photos.length);
  const files = chosen.slice(0, room);
  const leftOut = chosen.slice(room).map((file) => file.name);
  let suitMissed = null; // {photo, suit}: the last photo whose suit was not made out, its suit's name
  let refused = null; // what the server said of a photo it refused: the photos after it wait
  for (const file of files) {
    const suit = naming() === "layout" ? $("next-suit").value : "";
    setStatus(`Finding the cards in ${file.name}…`);
    const form = new FormData();
    form.append("image", file, file.name || "layout.jpg");
    form.append("suit", suit);
    // One card a photo: every index found is that card, named as the reader proposes until fixed.
    form.append("one_card", String(naming() === "one"));
    if (session) form.append("session", session);
    const { ok, data } = await send("/api/teach/photos", { method: "POST", body: form });
    if (!ok) {
      refused = `${file.name}: ${data.error}`;
      break;
    }
    session = data.session;
    photos.push({ ...data.photo, url: URL.createObjectURL(file) });
    if (!suit) continue;
    // The server names a suit's cards only when it makes out the whole layout; a photo with
    // none named did not show the suit (or not as laid out): the next photo is to hold it still.
    if (data.photo.cards.some((c) => c.name)) {
      $("next-suit").value = SUIT_ORDER[(SUIT_ORDER.indexOf(suit) + 1) % SUIT_ORDER.length];
      suitMissed = null;
    } else {
      suitMissed = { photo: data.photo.name, suit: $("next-suit").selectedOptions[0].textContent };
    }
  }
  forgetLetters();
  render();
  if (refused) {
    setStatus(refused, true);
    return;
  }
  const missed = suitMissed
    ? ` The ${suitMissed.suit} were not made out in ${suitMissed.photo}: photograph them again, or tap each card to name it.`
    : "";
  const left = leftOut.length
    ? ` Left out: ${leftOut.join(", ")}: a deck is taught from ${plural(MAX_PHOTOS, "photo")} at most; remove one to add another.`
    : "";
  setStatus(`${photosFound()}${missed}${left}`, Boolean(leftOut.length));
}

// The photos and cards so far ("" before the first photo).
function photosFound() {
  if (!photos.length) return "";
  const found = photos.reduce((n, p) => n + p.cards.length, 0);
  return `${plural(photos.length, "photo")}, ${plural(found, "card")} found. Tap a card to fix its name.`;
}

// ---- photos shown ------------------------------------------------------------------------

function render() {
  $("teach-photos").replaceChildren(...photos.map(photoView));
  const named = new Set(photos.flatMap((p) => p.cards.map((c) => c.name).filter(Boolean)));
  const missing = ALL_CARDS.filter((c) => !named.has(c));
  $("missing").replaceChildren(...(!photos.length ? [] : missing.length
    ? [`Still missing (${missing.length}):`, ...missing.flatMap((code) => [" ", namedCard(code)])]
    : ["All 52 cards are named."]));
  // A name the reader proposed unsurely waits for the player's word before anything is taught.
  const toCheck = photos.reduce((n, p) => n + p.cards.filter((c) => c.to_check && c.name).length, 0);
  $("train-button").disabled = teaching || !named.size || toCheck > 0;
  $("to-check").hidden = !toCheck;
  $("to-check").textContent = toCheck
    ? `${plural(toCheck, "name")} the reader is not sure of (marked "check"): tap each to confirm it or fix it, then teach.`
    : "";
}

function photoView(photo) {
  const section = document.createElement("section");
  section.className = "layout-photo";
  const header = document.createElement("header");
  const title = document.createElement("h3");
  title.textContent = photo.name;
  const remove = document.createElement("button");
  remove.type = "button";
  remove.className = "button quiet";
  remove.textContent = "Remove";
  remove.addEventListener("click", () => removePhoto(photo));
  header.append(title, remove);

  const view = document.createElement("div");
  view.className = "layout-view";
  const img = document.createElement("img");
  img.src = photo.url;
  img.alt = `${photo.name} with the indices found drawn on it`;
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", `0 0 ${photo.width} ${photo.height}`);
  svg.setAttribute("aria-hidden", "true");
  photo.cards.forEach((card, k) => {
    for (const [x1, y1, x2, y2] of card.boxes) {
      const rect = document.createElementNS(SVG, "rect");
      Object.entries({ x: x1, y: y1, width: x2 - x1, height: y2 - y1 }).forEach(([a, v]) => rect.setAttribute(a, v));
      if (!card.name) rect.classList.add("unnamed");
      const label = document.createElementNS(SVG, "text");
      label.setAttribute("x", x1);
      label.setAttribute("y", Math.max(14, y1 - 3));
      label.textContent = `${k + 1} ${card.name ? cardText(card.name) : "?"}`;
      svg.append(rect, label);
    }
  });
  view.append(img, svg);
  view.title = "Tap to see the photo larger (or smaller again)";
  // A button for the keyboard too (Enter, Space), pressed while the photo is large.
  view.tabIndex = 0;
  view.setAttribute("role", "button");
  view.setAttribute("aria-pressed", "false");
  const enlarge = () => view.setAttribute("aria-pressed", String(view.classList.toggle("big")));
  view.addEventListener("click", enlarge);
  view.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" && event.key !== " ") return;
    event.preventDefault();
    enlarge();
  });

  const chips = document.createElement("div");
  chips.className = "chips";
  chips.setAttribute("aria-label", `The cards of ${photo.name}`);
  photo.cards.forEach((card, k) => chips.append(chip(photo, card, k)));

  const problems = document.createElement("ul");
  problems.className = "problems";
  problems.replaceChildren(...photo.problems.map((text) => {
    const li = document.createElement("li");
    li.textContent = text; // not capitalised: each begins with the photo's name
    return li;
  }));
  problems.hidden = !photo.problems.length;
  section.append(header, view, chips, problems);
  return section;
}

function chip(photo, card, k) {
  const button = document.createElement("button");
  button.type = "button";
  const check = Boolean(card.to_check && card.name);
  button.className = "chip" + (card.name ? "" : " unnamed") + (check ? " unsure" : "");
  button.dataset.card = card.name || "";
  const sure = card.proposal ? ` (the reader is ${Math.round(card.confidence * 100)} % sure)` : "";
  button.title = check ? `Proposed by the reader${sure}: confirm or fix it` : "";
  button.setAttribute("aria-label", `Card ${k + 1}: ${card.name ? chipName(card.name, check) : "not named"}`
    + (check ? `, not sure${sure}: confirm or fix it` : "; change it"));
  const number = document.createElement("span");
  number.className = "number";
  number.textContent = k + 1;
  const face = document.createElement("span");
  face.className = "face" + (card.name && "HD".includes(card.name[1]) ? " red" : " black");
  face.textContent = card.name ? cardText(card.name) : "?";
  // A space between the two, or the chip's text reads "1A♣" to the tools that read it whole.
  button.append(number, " ", face);
  if (check) button.append(checkMark("check"));
  button.addEventListener("click", () => editName(button, photo, card));
  return button;
}

// A chip turns into a box to type the card in: Enter keeps it, Escape gives up, empty means
// the card is not taught.
function editName(button, photo, card) {
  const input = document.createElement("input");
  input.type = "text";
  input.className = "chip-edit";
  input.value = card.name || "";
  input.setAttribute("aria-label", `The name of card ${photo.cards.indexOf(card) + 1}, like 8C or QH`);
  let done = false;
  const finish = (keep) => {
    if (done) return;
    done = true;
    if (keep) {
      const code = parseCard(input.value);
      if (code === undefined) {
        setStatus(`"${input.value}" is not a card: type a rank and a suit, like 8C, 10H or QS.`, true);
      } else {
        if (card.name !== code) forgetLetters();
        card.name = code;
        card.to_check = false; // the player's word: confirmed as it is, or fixed
        setStatus("");
      }
    }
    render();
  };
  // Done with the keyboard, the focus goes back to the card's chip, drawn anew, not to the top.
  const finishHere = (keep) => {
    finish(keep);
    const view = $("teach-photos").children[photos.indexOf(photo)];
    if (view) view.querySelectorAll(".chip")[photo.cards.indexOf(card)].focus();
  };
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter") { event.preventDefault(); finishHere(true); }
    if (event.key === "Escape") finishHere(false);
  });
  input.addEventListener("blur", () => finish(true));
  button.replaceWith(input);
  input.focus();
  input.select();
}

async function removePhoto(photo) {
  await send(`/api/teach/photos/${encodeURIComponent(photo.id)}?session=${encodeURIComponent(session)}`, { method: "DELETE" });
  photos.splice(photos.indexOf(photo), 1);
  URL.revokeObjectURL(photo.url);
  forgetLetters();
  render();
  setStatus(photosFound());
}

// ---- teaching ----------------------------------------------------------------------------

async function train() {
  const name = $("deck-name").value.trim();
  const error = $("train-error");
  error.hidden = true;
  if (!name) {
    error.textContent = "Give the deck a name first.";
    error.hidden = false;
    $("deck-name").focus();
    return;
  }
  const names = Object.fromEntries(photos.map((p) => [p.id, p.cards.map((c) => c.name || null)]));
  const json = (body) => ({ method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  if (letters === null) { // first the letters teaching cannot settle alone: the player's word on each
    $("train-left").textContent = "Reading the letters…";
    const asked = await send("/api/teach/letters", json({ session, names }));
    $("train-left").textContent = "";
    if (!asked.ok) {
      error.textContent = capitalise(asked.data.error);
      error.hidden = false;
      return;
    }
    if (asked.data.questions.length) {
      askLetters(asked.data.questions);
      return;
    }
    letters = {};
  }
  const { ok, data } = await send("/api/teach/train", json({ session, name, names, letters }));
  if (!ok) {
    error.textContent = capitalise(data.error);
    error.hidden = false;
    return;
  }
  teaching = true;
  render();
  $("train-progress").hidden = false;
  follow();
}

// "The queen's letter looks like V: does your deck print V for the queen, not Q?" Yes, no, or
// the letter the deck prints, typed; the last answer teaches. A letter that reads as none
// (q.text null: a Russian queen's Д) is the standard one (yes) or the one typed; one read most
// like another letter (q.closest) offers that letter and the standard one.
function askLetters(questions) {
  const answers = {};
  const answered = (q, answer, chosen, choices) => {
    answers[q.rank] = answer;
    choices.forEach((b) => b.setAttribute("aria-pressed", String(b === chosen)));
    if (Object.keys(answers).length === questions.length) {
      letters = answers;
      train();
    }
  };
  $("letters").replaceChildren(...questions.map((q) => {
    const row = document.createElement("p");
    row.className = "letter-question";
    const text = document.createElement("span");
    text.textContent = capitalise(q.said);
    const button = (label) => {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "button";
      b.textContent = label;
      return b;
    };
    // A letter read unclearly but most like another (a Dutch queen's V) is offered first.
    const plain = q.text !== null ? [[`Yes, ${q.text}`, q.text], [`No, ${q.standard}`, q.standard]]
      : q.closest ? [[q.closest, q.closest], [q.standard, q.standard]]
        : [[`Yes, ${q.standard}`, q.standard]];
    const choices = [...plain.map(([label]) => button(label)), button("Another letter")];
    plain.forEach(([, answer], k) => choices[k].addEventListener("click", () => answered(q, answer, choices[k], choices)));
    const other = choices[choices.length - 1];
    other.addEventListener("click", () => { // the player types what it prints
      const input = document.createElement("input");
      input.type = "text";
      input.maxLength = 2;
      input.className = "letter-edit";
      input.setAttribute("aria-label", `The letter your deck prints for the ${q.name}`);
      input.addEventListener("keydown", (event) => {
        if (event.key !== "Enter" || !input.value.trim()) return;
        event.preventDefault();
        answered(q, input.value.trim(), other, choices);
      });
      other.after(input);
      input.focus();
    });
    row.append(text, ...choices);
    return row;
  }));
  $("letters").hidden = false;
}

function forgetLetters() {
  letters = null;
  $("letters").hidden = true;
}

async function follow() {
  const { ok, data } = await send(`/api/teach/status?session=${encodeURIComponent(session)}`);
  if (!ok || data.stage === "failed") {
    teaching = false;
    $("train-progress").hidden = true;
    $("train-left").textContent = "";
    $("train-error").textContent = capitalise(data.error);
    $("train-error").hidden = false;
    render();
    return;
  }
  if (data.stage !== "done") {
    const left = data.left;
    $("train-progress").value = data.total ? data.done / data.total : 0;
    $("train-left").textContent = data.stage === "training"
      ? `Teaching… ${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")} left`
      : { preparing: "Cutting the crops…", checking: "Checking the taught deck…" }[data.stage] || "";
    setTimeout(follow, 1000);
    return;
  }
  taught(data);
}

function taught(data) {
  teaching = false; // another deck may be taught from these photos, under another name
  render();
  $("train-progress").value = 1;
  $("train-left").textContent = `Taught the deck ${data.name} in ${Math.round(data.seconds)} s.`;
  $("train-checks").replaceChildren(...data.checks.map((text) => {
    const li = document.createElement("li");
    li.textContent = capitalise(text);
    return li;
  }));
  $("train-checks").hidden = false;
  // Only a lesson measured better than untaught becomes this browser's deck (here and on the
  // photo and live pages); one that is not stays to be chosen, and is said so.
  if (data.reads_better) {
    chooseDeck(data.name);
  }
  $("train-default").textContent = data.reads_better
    ? `This browser now reads with ${data.name}, here and on the photo and live pages.`
    : `This browser keeps reading as it did: ${data.name} did not read the cards held back better than cribcam untaught. `
      + "Choose it on the photo page to read with it anyway.";
  $("train-default").hidden = false;
  $("try-deck").textContent = data.name;
  $("try").hidden = false;
}

// ---- reading a hand with the deck ------------------------------------------------------

async function readWithDeck(file) {
  if (!file) return;
  hideStarterChoices();
  $("photo-status").textContent = "Reading the cards…";
  const form = new FormData();
  form.append("image", file, file.name || "hand.jpg");
  form.append("deck", $("try-deck").textContent); // the deck just taught, default or not
  form.append("variant", state.variant);
  form.append("crib", String(state.crib));
  const { ok, data } = await send("/api/read", { method: "POST", body: form });
  if (!ok) {
    $("photo-status").textContent = capitalise(data.error);
    return;
  }
  const n = data.cards.length;
  $("photo-status").textContent = n ? `${plural(n, "card")} read with ${$("try-deck").textContent}.` : "No cards read.";
  adoptReading(data);
  // The cards read and their count show in the panels beside (above, on a phone), far from
  // this button below the photos taught from: brought into view.
  $("cards-panel").scrollIntoView({ block: "start" });
}

$("teach-input").addEventListener("change", async (event) => {
  const files = [...(event.target.files || [])];
  event.target.value = "";
  await addPhotos(files);
});
$("try-input").addEventListener("change", (event) => {
  const file = event.target.files && event.target.files[0];
  event.target.value = "";
  readWithDeck(file);
});
// The photo button says what the mode chosen takes.
const ADD_PHOTOS = { layout: "Add layout photos", any: "Add photos of the cards", one: "Add photos of one card each" };
onChoice("naming", (mode) => {
  $("next-suit").hidden = mode !== "layout";
  $("next-suit-label").hidden = mode !== "layout";
  $("add-photos").textContent = ADD_PHOTOS[mode];
});
$("train-button").addEventListener("click", train);

startCounting({
  onClear: () => { $("photo-status").textContent = ""; },
  noModelNote: "Decks cannot be taught on this server: no card-reading model is installed.",
  onNoModel: () => { $("teach-input").disabled = true; },
});
document.body.classList.add("ready");
