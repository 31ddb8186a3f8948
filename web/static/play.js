// cribcam live page: the play (pegging). Plain JavaScript, no libraries.
// The player names the players and the dealer and starts the play (/api/live/play); from then
// on the live page's frames watch it: the server lays each card new to the table that lies
// still, as the card of the player whose turn it is, and answers where the play stands. This
// module shows it large (the count, the cards of this count, whose turn, the scores, each peg),
// speaks each announcement when sound is on, and sends a go (the Go button, or the G key).
import { $, capitalise, cardText, sayIn, send, speak } from "./counting.js";

let session = () => null; // the live page's session id, and how to set it
let setSession = () => {};
let variant = () => "six-card";
let setFrameSide = () => {}; // the live page's frames: the play's longer than a hand's
let playing = false;
let editing = false; // a card of this count is being named: its row is not drawn again meanwhile
let going = false; // a go is on its way: a double tap is one go, not the next player's too

export const isPlaying = () => playing;

const postJSON = (url, payload) => send(url, {
  method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(payload),
});

// Where the play stands (an answer's "play"), and its new events said and listed.
export function showPlay(play) {
  if (!playing || !play) return;
  $("play-count").textContent = String(play.count);
  sayIn($("play-turn"), play.over ? "The play is over." : `${play.turn} to play`);
  const unsure = new Set(play.events.filter((e) => e.unsure).map((e) => e.card));
  // Drawn anew only when it changed: a card redrawn with every frame's answer slips from
  // under the finger that taps it.
  const series = JSON.stringify(play.series.map((laid) => [laid.card, laid.player, unsure.has(laid.card)]));
  if (!editing && series !== $("play-series").dataset.shown) {
    $("play-series").dataset.shown = series;
    $("play-series").replaceChildren(...play.series.map((laid) => {
      const li = document.createElement("li");
      li.append(cardButton(laid, unsure.has(laid.card)));
      return li;
    }));
  }
  $("play-totals").replaceChildren(...Object.entries(play.totals).map(([player, points]) => {
    const li = document.createElement("li");
    li.dataset.player = player;
    li.textContent = `${player} ${points}`;
    return li;
  }));
  showGameNote(play.game);
  $("go-button").disabled = play.over;
  $("go-button").textContent = play.over ? "Go" : `Go (${play.turn})`;
  showEvents(play.events);
  for (const event of play.new) announce(event);
}

// The play so far, newest first, drawn from all its events: a card named otherwise is pegged
// anew from where it was laid, and the turns after it with it.
function showEvents(events) {
  const shown = JSON.stringify(events.map(eventWords));
  if (shown === $("play-events").dataset.shown) return;
  $("play-events").dataset.shown = shown;
  $("play-events").replaceChildren(...events.map((event) => {
    const li = document.createElement("li");
    li.textContent = eventWords(event);
    if (event.points) li.dataset.points = String(event.points);
    return li;
  }).reverse());
}

// A card of this count: tapped, it can be named otherwise (the reader misread it), and the
// play is pegged anew; a card the reader was not sure of is marked "check".
function cardButton(laid, unsure) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "play-card" + (unsure ? " unsure" : "");
  button.dataset.card = laid.card;
  button.textContent = `${cardText(laid.card)} ${laid.player}${unsure ? " check" : ""}`;
  button.setAttribute("aria-label", `${cardText(laid.card)}, ${laid.player}'s${unsure ? ", not sure: check it" : ""}; tap to name it otherwise`);
  button.addEventListener("click", () => rename(button, laid.card));
  return button;
}

function rename(button, card) {
  const input = document.createElement("input");
  input.type = "text";
  input.className = "chip-edit";
  input.value = card;
  input.setAttribute("aria-label", `The card read as ${cardText(card)} is, like 9H`);
  const done = () => { editing = false; if (input.isConnected) input.replaceWith(button); };
  input.addEventListener("blur", done);
  input.addEventListener("keydown", async (event) => {
    if (event.key === "Escape") { done(); return; }
    if (event.key !== "Enter") return;
    event.preventDefault();
    const { ok, data } = await postJSON("/api/live/play/fix", { session: session(), card, named: input.value });
    editing = false;
    if (!ok) {
      sayError(data.error);
      input.replaceWith(button);
      return;
    }
    showPlay({ ...data.play, new: [] });
    $("play-said").textContent = `${cardText(card)} named ${input.value.toUpperCase()}: the play is pegged anew.`;
    $("play-said").classList.remove("error");
  });
  editing = true;
  button.replaceWith(input);
  input.focus();
  input.select();
}

// An event in words. A refusal says whose turn it is and who may not do what ("Ann cannot say
// go on 0"), so it goes without the player's name before it; a card refused goes with the
// card, which it may not name ("that makes 35: Ann says go").
function eventWords(event) {
  return capitalise(event.refused ? `${event.card ? cardText(event.card) + ": " : ""}${event.refused}`
    : `${event.player}${event.card ? " " + cardText(event.card) : ""}: ${event.said}`);
}

// A request of the board refused or lost (a card named otherwise, a go): said where the play's
// announcements are, so the button pressed does not seem to do nothing.
function sayError(text) {
  $("play-said").textContent = capitalise(text);
  $("play-said").classList.add("error");
}

function announce(event) {
  $("play-said").textContent = eventWords(event);
  $("play-said").classList.toggle("error", Boolean(event.refused));
  if ($("sound").checked) speak(event.refused || event.said);
}

// A game of the board's play goes into the game on the server once it is over (its play
// entry, as the command line's does): the game's answer is said here.
function showGameNote(game) {
  const note = $("play-game-note");
  const answered = Boolean(game && (game.sides || game.error));
  if (!answered || note.dataset.shown === game.id) return;
  note.dataset.shown = game.id;
  note.hidden = false;
  note.classList.toggle("error", Boolean(game.error));
  note.textContent = game.sides
    ? `Pegged in the game: ${game.sides.map((side) => `${side.name} ${side.score}`).join(", ")}.`
    : `The game did not take the play: ${game.error}`;
}

function showPlayError(text) {
  $("play-error").textContent = text ? capitalise(text) : "";
  $("play-error").hidden = !text;
}

async function start(event) {
  event.preventDefault();
  const game = $("play-game").value.trim();
  $("play-game-note").hidden = true;
  delete $("play-game-note").dataset.shown;
  const players = $("play-players").value.trim();
  const dealer = $("play-dealer").value.trim();
  if (!players && !game) {
    showPlayError("Name the players, in seating order, like Ann Bob (or name a game of the board).");
    return;
  }
  // A game of the board names its players, the deal's dealer and its variant itself.
  const asked = game ? { game } : { players, dealer, variant: variant() };
  const { ok, data } = await postJSON("/api/live/play", { ...asked, session: session() });
  showPlayError(ok ? "" : data.error);
  if (!ok) return;
  $("play-players").value = data.play.players.join(" ");
  $("play-dealer").value = data.play.dealer;
  setSession(data.session);
  setFrameSide(data.frame_side);
  playing = true;
  document.body.classList.add("playing");
  $("play-board").hidden = false;
  $("play-form").hidden = true;
  $("play-said").textContent = "";
  showPlay(data.play);
  $("go-button").focus(); // the form is gone; Go is what the play asks of the keyboard
}

async function go() {
  if (!playing || going || $("go-button").disabled) return;
  going = true;
  const { ok, data } = await postJSON("/api/live/play/go", { session: session() });
  going = false;
  if (ok) showPlay({ ...data.play, new: [data.event] });
  else sayError(data.error); // the session lost, the server gone: not a button that does nothing
}

async function stop() {
  await send(`/api/live/play?session=${encodeURIComponent(session())}`, { method: "DELETE" });
  playing = false;
  setFrameSide(null);
  document.body.classList.remove("playing");
  $("play-board").hidden = true;
  $("play-form").hidden = false;
  $("play-form").querySelector("button[type=submit]").focus(); // Stop is gone: Start again
}

// Wires the play's controls to the live page's session (``getSession``/``putSession``), its
// frames' size (``putFrameSide``) and game.
export function startPlayControls({ getSession, putSession, getVariant, putFrameSide }) {
  setFrameSide = putFrameSide;
  session = getSession;
  setSession = putSession;
  variant = getVariant;
  $("play-form").addEventListener("submit", start);
  $("go-button").addEventListener("click", go);
  $("play-stop").addEventListener("click", stop);
  document.addEventListener("keydown", goKey);
}

// G says go; not with Ctrl, Cmd or Alt (Ctrl+G and Cmd+G are the browser's find-next), not
// the repeats of a G held down (each would be the next player's go), not while typing, not once
// the player has turned the key off.
function goKey(event) {
  if ((event.key !== "g" && event.key !== "G") || !$("go-key").checked) return;
  if (event.ctrlKey || event.metaKey || event.altKey || event.repeat) return;
  const target = event.target;
  const typing = target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement
    || target instanceof HTMLSelectElement || (target instanceof HTMLElement && target.isContentEditable);
  if (!typing) go();
}
