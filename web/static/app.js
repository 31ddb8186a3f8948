// cribcam photo page. Plain JavaScript, no libraries.
// The server does all reading and counting (/api/read, /api/count); this page sends the
// photo, shows it with the cards read drawn on it, and hands the cards to the shared
// counting controls (counting.js).
import {
  $, adoptReading, capitalise, cardText, chooseDeck, claimsTyped, forgetReading, hideStarterChoices, plural, send,
  startCounting, state, taughtDecks, verdictTitle,
} from "./counting.js";

const body = document.body;
const maxUpload = Number(body.dataset.maxUpload) || 12 * 1024 * 1024;
const maxSide = 1920; // the reader scales larger photos down to this anyway

let readSeq = 0;
let localPhotoUrl = null;
let photoCards = []; // the cards the reader read in the photo shown, as its labels show them

function setPhotoStatus(text, isError) {
  const status = $("photo-status");
  status.textContent = capitalise(text);
  status.classList.toggle("error", Boolean(isError));
}

function clearPhoto() {
  readSeq++; // a reading still on its way is dropped: its answer is for a hand forgotten,
  body.classList.remove("reading"); // and its spinner goes with it
  setPhotoStatus("");
  $("photo-figure").hidden = true;
  $("photo-count").hidden = true;
  $("photo").removeAttribute("src");
  if (localPhotoUrl) URL.revokeObjectURL(localPhotoUrl);
  localPhotoUrl = null;
  photoCards = [];
}

// Phone photos are scaled down here before they are sent (faster on a slow connection);
// the browser turns them upright by their EXIF orientation as it draws them. Any photo larger
// than the reader reads is, whatever its file's size: a PNG of 60 megapixels may take 1 MB,
// and the server refuses images over its limit of pixels.
async function shrink(file) {
  if (!window.createImageBitmap) return file;
  try {
    const bitmap = await createImageBitmap(file, { imageOrientation: "from-image" });
    const scale = Math.min(1, maxSide / Math.max(bitmap.width, bitmap.height));
    if (scale === 1 && file.size <= maxUpload) { bitmap.close(); return file; }
    const canvas = document.createElement("canvas");
    canvas.width = Math.round(bitmap.width * scale);
    canvas.height = Math.round(bitmap.height * scale);
    canvas.getContext("2d").drawImage(bitmap, 0, 0, canvas.width, canvas.height);
    bitmap.close();
    const blob = await new Promise((resolve) => canvas.toBlob(resolve, "image/jpeg", 0.92));
    return blob || file;
  } catch (err) {
    return file; // not something this browser can draw: let the server say what it is
  }
}

async function readPhoto(file) {
  if (!file) return;
  const seq = ++readSeq;
  hideStarterChoices();
  forgetReading();
  setPhotoStatus("Reading the cards…");
  body.classList.add("reading");
  if (localPhotoUrl) URL.revokeObjectURL(localPhotoUrl);
  localPhotoUrl = URL.createObjectURL(file);
  const upload = await shrink(file);
  if (upload.size > maxUpload) {
    body.classList.remove("reading");
    setPhotoStatus(`The photo is over ${Math.floor(maxUpload / 1048576)} MB: send a smaller one.`, true);
    return;
  }
  const form = new FormData();
  form.append("image", upload, file.name || "photo.jpg");
  form.append("variant", state.variant);
  form.append("crib", String(state.crib));
  form.append("hand_only", String($("hand-only").checked)); // four cards, the starter to come
  form.append("annotate", "true");
  const claimsTypedAtSend = claimsTyped();
  const { ok, data } = await send("/api/read", { method: "POST", body: form });
  if (seq !== readSeq) return;
  body.classList.remove("reading");
  if (!ok) {
    $("photo-figure").hidden = true;
    $("photo-count").hidden = true;
    setPhotoStatus(data.error, true);
    return;
  }
  showReading(data, claimsTypedAtSend);
}

function showReading(data, claimsTypedAtSend) {
  $("photo").src = data.annotated || localPhotoUrl;
  $("photo-figure").hidden = false;
  $("photo-caption").hidden = !(data.annotated && data.unreadable); // what its "not read" boxes mean
  setPhotoStatus("");
  photoCards = data.cards.map((c) => c.card);
  adoptReading(data, claimsTypedAtSend); // the cards on screen, from which the status is said
  showPhotoStatus();
}

// The count of the photo shown, above the photo: on a phone the counting panels lie below
// it, and the player should not have to scroll past the photo to see the total.
// The line under the photo says what the reader read in it ("4 cards read"): that stays true
// whatever the player does to the chips, as the labels drawn on the photo do (they are the
// reader's, drawn once by the server). Once the chips are not the cards read (a card added,
// removed or named otherwise; a guess named), it says so: the count is of the chips.
// "1 to check" and the guesses are of the chips: OK-ing, fixing or naming one changes them.
function showPhotoStatus() {
  if ($("photo-figure").hidden || $("photo-status").classList.contains("error")) return;
  const onChips = [...state.hand, state.starter].filter(Boolean);
  const unsure = onChips.filter((c) => state.unsure.has(c)).length;
  const check = unsure ? `, ${unsure} to check` : "";
  const guessed = state.guesses.length ? `, ${state.guesses.length} more guessed, not counted` : "";
  const changed = onChips.length !== photoCards.length || onChips.some((c) => !photoCards.includes(c));
  const now = onChips.length === photoCards.length ? "" : ` (${plural(onChips.length, "card")} now)`;
  const edits = changed ? `; the hand's cards are as you changed them${now}, the labels on the photo as read` : "";
  const what = state.guesses.length ? "Tap a card of the hand to fix it, or a guess to name it." : "Tap a card of the hand to fix it.";
  setPhotoStatus(photoCards.length || guessed || changed
    ? `${plural(photoCards.length, "card")} read${check}${guessed}${edits}. ${what}` : "No cards read.");
}

function showPhotoCount(count) {
  showPhotoStatus();
  const line = $("photo-count");
  line.hidden = !count || $("photo-figure").hidden;
  if (line.hidden) return;
  $("photo-count-label").textContent = `${count.crib ? "Crib" : "Hand"} total`;
  $("photo-count-total").textContent = String(count.total);
  const doubt = [...state.hand, state.starter].filter((c) => c && state.unsure.has(c));
  $("photo-count-check").hidden = !doubt.length;
  $("photo-count-check").textContent = doubt.length ? `Check ${doubt.map(cardText).join(" ")}` : "";
  // The verdict on a claim beside the total: on a phone the count's panel lies far below.
  $("photo-count-verdict").textContent = verdictTitle(count);
  $("photo-count-verdict").hidden = !count.verdict;
  if (count.verdict) $("photo-count-verdict").dataset.verdict = count.verdict;
}

for (const id of ["camera-input", "file-input"]) {
  $(id).addEventListener("change", (event) => {
    const file = event.target.files && event.target.files[0];
    readPhoto(file);
    event.target.value = ""; // the same photo can be chosen again
  });
}

// Without a model the photo buttons would only lead to an error: they are switched off.
function offerNoPhotos() {
  for (const id of ["camera-input", "file-input"]) {
    $(id).disabled = true;
    document.querySelector(`label[for="${id}"]`).setAttribute("aria-disabled", "true");
  }
  $("photo-hint").hidden = true;
  $("hand-only-box").hidden = true;
  $("count-empty").textContent = "Type the cards to see the count.";
}

// The taught decks (cribcam teach) to read with; the choice is kept in a cookie, so the live
// page reads with it too.
async function offerDecks() {
  const taught = await taughtDecks();
  if (!taught || !taught.decks.length) return;
  const select = $("deck-choice");
  select.append(...taught.decks.map((deck) => new Option(`${deck.name} (taught)`, deck.name)));
  select.value = taught.chosen || "";
  select.addEventListener("change", () => chooseDeck(select.value));
  $("deck-choice-box").hidden = false;
}

offerDecks();
startCounting({
  onClear: clearPhoto,
  noModelNote: "Photos cannot be read on this server yet: no card-reading model is installed. Type the cards instead.",
  onNoModel: offerNoPhotos,
  onCount: showPhotoCount,
});
body.classList.add("ready");
