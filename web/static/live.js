// cribcam live page. Plain JavaScript, no libraries.
// The browser's camera is shown with the cards read drawn over it. Frames go to
// /api/live/frame one at a time: while one is read, the next is taken and encoded, and it is
// sent when the answer comes (a frame left waiting too long is dropped for a fresh one), so
// frames never queue and the rate is what the server keeps up with.
// The server's lock (the same as `cribcam live hands`) says when a hand lies still; its cards
// then go to the shared counting controls (counting.js), which count them, and the count
// is spoken if the player turned sound on.
import {
  $, adoptReading, canSpeak, capitalise, cardText, miniCards, plural, send, showWaiting, speak, startCounting, state,
  taughtDecks,
} from "./counting.js";
import { isPlaying, showPlay, startPlayControls } from "./play.js";

const FRAME_SIDE = 640; // a hand's frames are sent this long on their longer side
let frameSide = FRAME_SIDE; // the play's are longer: its start says how long ("frame_side")
const JPEG_QUALITY = 0.8;
const FPS_WINDOW_MS = 2000; // the frames per second shown are counted over this long
const FPS_EVERY_MS = 500; // and shown afresh this often
const RETRY_MS = 2000; // after the server could not be reached
const STALE_MS = 250; // a frame taken longer ago than this is not sent
const WAIT_MS = 250; // the longest wait for the camera's next frame before looking again
const HISTORY = 10; // hands listed

const video = $("video");
const overlay = $("overlay");
const grab = document.createElement("canvas");
const live = {
  stream: null,
  running: false,
  run: 0, // bumped on every start and stop: an old loop sees it and ends
  session: null, // the server's id for this camera
  adopted: 0, // the number of the locked hand the chips were filled from
  listed: null, // the entry of the list of hands that the chips hold (null: they hold none of it)
  shown: 0, // frames the video has shown (where the browser tells)
  sent: -1, // the value of `shown` when the last frame was sent
  answers: [], // when the last answers came, for the frames per second
  fpsShown: 0, // when the frames per second were last shown
  drawn: null, // what the overlay shows, to draw it again only when that changes
};

// ---- messages ------------------------------------------------------------------------------

function cameraMessage(err) {
  switch (err && err.name) {
    case "NotAllowedError":
    case "PermissionDeniedError":
    case "SecurityError":
      return "Camera permission was refused. Allow the camera for this site (the camera or lock icon in the address bar), then press Start camera.";
    case "NotFoundError":
    case "DevicesNotFoundError":
    case "OverconstrainedError":
      return "No camera was found. Connect one and press Start camera, or use the photo page.";
    case "NotReadableError":
    case "TrackStartError":
    case "AbortError":
      return "The camera is busy or could not start: close other programs using it, then press Start camera.";
    default:
      return `The camera could not start (${(err && err.name) || "unknown error"}).`;
  }
}

function noCameraApiMessage() {
  if (!window.isSecureContext) {
    return "The camera needs a secure page: open this page at an https:// address (start the server with cribcam serve --https) or on this computer at http://localhost.";
  }
  return "This browser cannot use a camera. Use the photo page instead.";
}

function showProblem(text) {
  $("camera-status").textContent = capitalise(text);
  $("camera-status").hidden = !text;
}

function setLock(kind, text) {
  const badge = $("lock-status");
  badge.dataset.lock = kind; // off, looking, check (a card in doubt holds the lock), locked, playing
  if (badge.textContent !== text) badge.textContent = text;
}

// ---- the camera ----------------------------------------------------------------------------

async function startCamera() {
  stopCamera();
  showProblem("");
  const run = live.run;
  if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) {
    cameraFailed(noCameraApiMessage());
    return;
  }
  setLock("off", "Starting the camera…");
  let stream;
  try {
    // Only a width is asked for. A width and a height (640 by 480) fix a shape, and Chromium
    // crops a camera of another shape to it: a phone held upright lost the top and bottom of
    // its frames, the cards there with them, and the reader said they were cut off.
    stream = await navigator.mediaDevices.getUserMedia({
      audio: false,
      video: { facingMode: { ideal: "environment" }, width: { ideal: frameSide } },
    });
  } catch (err) {
    if (run === live.run) cameraFailed(cameraMessage(err));
    return;
  }
  if (run !== live.run) { // stopped while the browser asked for permission
    for (const track of stream.getTracks()) track.stop();
    return;
  }
  live.stream = stream;
  video.srcObject = stream;
  try {
    await video.play();
  } catch (err) {
    // Muted inline video plays without a gesture; where it does not, frames still arrive.
  }
  live.running = true;
  $("camera-button").textContent = "Stop camera";
  setLock("looking", "Looking for a hand…");
  follow(run);
}

// Frames of ``side`` pixels from now on (null: a hand's), the camera asked to film them so.
function setFrameSide(side) {
  frameSide = side || FRAME_SIDE;
  const track = live.stream && live.stream.getVideoTracks()[0];
  if (track) track.applyConstraints({ width: { ideal: frameSide } }).catch(() => {}); // kept as it films
}

function stopCamera() {
  live.run++;
  live.running = false;
  if (live.stream) for (const track of live.stream.getTracks()) track.stop();
  live.stream = null;
  video.srcObject = null;
  live.answers = [];
  $("fps").textContent = "";
  showWaiting([]);
  clearOverlay();
  setLock("off", "Camera stopped.");
  $("camera-button").textContent = "Start camera";
}

function cameraFailed(message) {
  stopCamera();
  setLock("off", "No camera.");
  showProblem(message);
}

$("camera-button").addEventListener("click", () => {
  if (live.running) stopCamera();
  else startCamera();
});

// ---- frames to the server ------------------------------------------------------------------

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Counts the frames the video shows, so that a frame is not sent twice when the server is
// quicker than the camera. Browsers without requestVideoFrameCallback send what they show.
function watchFrames() {
  if (!video.requestVideoFrameCallback) return;
  video.requestVideoFrameCallback((now, metadata) => {
    live.shown = metadata.presentedFrames;
    watchFrames();
  });
}

const freshFrame = () => video.readyState >= 2 && video.videoWidth > 0
  && (!video.requestVideoFrameCallback || live.shown !== live.sent);

// Waits for the video's next frame (and for the page to be in view), or a little while:
// a stopped camera shows no more frames, and the loop waiting here must see that.
function nextVideoFrame() {
  return new Promise((resolve) => {
    setTimeout(resolve, WAIT_MS);
    if (document.visibilityState === "hidden") {
      document.addEventListener("visibilitychange", () => resolve(), { once: true });
    } else if (video.requestVideoFrameCallback) {
      video.requestVideoFrameCallback(() => resolve());
    } else {
      requestAnimationFrame(() => resolve());
    }
  });
}

// Takes the video's next frame not sent yet, as a JPEG blob with the time it was taken.
async function takeFrame(run) {
  while (!freshFrame() || document.visibilityState === "hidden") {
    await nextVideoFrame();
    if (run !== live.run) return null;
  }
  const scale = Math.min(1, frameSide / Math.max(video.videoWidth, video.videoHeight));
  grab.width = Math.round(video.videoWidth * scale);
  grab.height = Math.round(video.videoHeight * scale);
  grab.getContext("2d").drawImage(video, 0, 0, grab.width, grab.height);
  live.sent = live.shown;
  const taken = performance.now();
  const blob = await new Promise((resolve) => grab.toBlob(resolve, "image/jpeg", JPEG_QUALITY));
  return blob && { blob, taken };
}

// One frame at the server at a time. While it is read, the next is taken and encoded, so
// the page's work and the server's overlap; a frame kept waiting longer than STALE_MS (a
// slow answer) is dropped for a fresh one.
async function follow(run) {
  let next = null;
  while (run === live.run) {
    let frame = await (next || takeFrame(run));
    next = null;
    if (frame && performance.now() - frame.taken > STALE_MS) frame = await takeFrame(run);
    if (run !== live.run) return;
    if (!frame) continue;
    const form = new FormData();
    form.append("image", frame.blob, "frame.jpg");
    if (live.session) form.append("session", live.session);
    form.append("crib", String(state.crib));
    form.append("variant", state.variant);
    const sentTo = { session: live.session, playing: isPlaying() };
    const answer = send("/api/live/frame", { method: "POST", body: form });
    next = takeFrame(run);
    const { ok, status, data } = await answer;
    if (run !== live.run) return;
    // The play started or stopped while this frame was read: its answer is of the session or
    // the mode before (a first frame's new session would replace the play's, which then never
    // sees a card), so it is dropped and the next frame goes to the session as it is now.
    if (live.session !== sentTo.session || isPlaying() !== sentTo.playing) continue;
    if (status === 0) { // the server cannot be reached: say so and try again
      showProblem(data.error);
      await sleep(RETRY_MS); // the frame taken meanwhile is stale by then: a fresh one goes
      continue;
    }
    if (!ok) { // no model, or a frame the server refuses: stop until the player starts again
      stopCamera();
      showProblem(data.error);
      return;
    }
    showProblem("");
    live.session = data.session;
    countFrame();
    if (data.play) { // the session watches the play: no hand is locked
      if (data.reading) drawOverlay(data);
      setLock("playing", data.play.over ? "The play is over" : `Watching the play: ${data.play.turn} to play`);
      showPlay(data.play);
    } else {
      drawOverlay(data);
      followLock(data);
    }
  }
}

function countFrame() {
  const now = performance.now();
  live.answers.push(now);
  while (live.answers.length > 2 && now - live.answers[0] > FPS_WINDOW_MS) live.answers.shift();
  const n = live.answers.length - 1;
  if (n < 1) return;
  if (now - live.fpsShown < FPS_EVERY_MS) return;
  live.fpsShown = now;
  const fps = (1000 * n) / (now - live.answers[0]);
  $("fps").textContent = `${fps.toFixed(1)} frames/s`;
  $("fps").dataset.fps = fps.toFixed(2);
}

// ---- the overlay ---------------------------------------------------------------------------

function clearOverlay() {
  overlay.getContext("2d").clearRect(0, 0, overlay.width, overlay.height);
  overlay.dataset.cards = "0";
  overlay.dataset.unsure = "0";
  live.drawn = null;
}

// Draws each card's corners and name over the video, green when part of the locked hand;
// dashed, its name marked "?", when the reader is not sure of it (`"unsure": true`) or could
// only guess it (a reading's "guesses": not counted).
// A still hand is read with the same boxes frame after frame: they are drawn again only
// when what is drawn changes (redrawing costs the browser more than the rest of a frame).
function drawOverlay(data) {
  const { reading, report } = data;
  const locked = new Set(report ? report.cards.map((c) => c.card) : []);
  const scale = reading.width ? video.videoWidth / reading.width : 0;
  const shown = [...reading.cards, ...(reading.guesses || []).map((seen) => ({ ...seen, unsure: true }))];
  const drawn = JSON.stringify([video.videoWidth, video.videoHeight, shown.map((seen) => [
    seen.card, locked.has(seen.card), seen.unsure === true,
    seen.boxes.map((box) => box.map((v) => Math.round(v * scale)))])]);
  if (drawn === live.drawn) return;
  live.drawn = drawn;
  if (overlay.width !== video.videoWidth || overlay.height !== video.videoHeight) {
    overlay.width = video.videoWidth;
    overlay.height = video.videoHeight;
  }
  const ctx = overlay.getContext("2d");
  ctx.clearRect(0, 0, overlay.width, overlay.height);
  overlay.dataset.cards = String(reading.cards.length);
  if (!scale) return;
  const line = Math.max(2, overlay.width / 320);
  const fontPx = Math.round(Math.max(14, overlay.width / 36));
  ctx.font = `600 ${fontPx}px system-ui, sans-serif`;
  ctx.textBaseline = "bottom";
  overlay.dataset.unsure = String(reading.cards.filter((seen) => seen.unsure === true).length);
  for (const seen of shown) {
    const colour = locked.has(seen.card) ? "#2fbf5b" : "#f0b400";
    ctx.setLineDash(seen.unsure === true ? [3 * line, 2 * line] : []);
    for (const [x1, y1, x2, y2] of seen.boxes) {
      // A dark edge under the colour: the box shows on a light table and on a dark one.
      for (const [style, width] of [["#10151a", 2.5 * line], [colour, line]]) {
        ctx.strokeStyle = style;
        ctx.lineWidth = width;
        ctx.strokeRect(x1 * scale, y1 * scale, (x2 - x1) * scale, (y2 - y1) * scale);
      }
    }
    ctx.setLineDash([]);
    const [x, y] = seen.boxes[0];
    const label = cardText(seen.card) + (seen.unsure === true ? " ?" : "");
    const width = ctx.measureText(label).width + 2 * line;
    const height = fontPx + line;
    const top = Math.max(height, y * scale);
    ctx.fillStyle = colour;
    ctx.fillRect(x * scale, top - height, width, height);
    ctx.fillStyle = "#10151a";
    ctx.fillText(label, x * scale + line, top - line / 2);
  }
}

// ---- the lock ------------------------------------------------------------------------------

function followLock(data) {
  if (!data.locked) {
    // The server does not lock a hand on a guess: a card it is not sure of in most frames
    // holds the lock (`"unsure"`: those cards), and the player is told which to check.
    const doubts = data.unsure || [];
    showWaiting(doubts);
    if (doubts.length) {
      const one = doubts.length === 1;
      setLock("check", `Check ${doubts.map(cardText).join(" ")}: not sure of ${one ? "it" : "them"} yet`);
    } else {
      setLock("looking", "Looking for a hand… hold the cards still.");
    }
    return;
  }
  showWaiting([]);
  const n = data.report.cards.length;
  setLock("locked", `Locked: ${plural(n, "card")}`);
  if (data.hand !== live.adopted) { // a new hand: its cards replace the chips
    live.adopted = data.hand;
    newHand(data.hand, data.report);
  }
}

async function newHand(number, report) {
  live.listed = handEntry(number);
  const count = await adoptReading(report);
  if (number !== live.adopted) return; // another hand has locked since
  if (count && $("sound").checked && !state.practice) speak(count.spoken);
}

// The list's entry for the hand locked as ``number``: filled from the chips, and listed first,
// once their count (or why there is none) is shown (showListed).
function handEntry(number) {
  const item = document.createElement("li");
  item.dataset.hand = String(number);
  return item;
}

// The entry of the hand on the chips shows them as they stand, with their count (null: none
// shown), so that a card fixed or a starter chosen after the lock shows in the list too.
function showListed(count) {
  const item = live.listed;
  if (!item) return;
  if (!item.isConnected) {
    const list = $("history");
    list.prepend(item);
    while (list.children.length > HISTORY) list.lastElementChild.remove();
    $("history-empty").hidden = true;
  }
  const codes = state.starter ? [...state.hand, state.starter] : state.hand;
  item.dataset.cards = codes.join(" ");
  const label = document.createElement("span");
  label.className = "hand-number";
  label.textContent = `${item.dataset.hand}.`;
  const what = document.createElement("span");
  if (count) {
    item.dataset.total = String(count.total);
    what.textContent = ` ${count.crib ? "crib" : "hand"} ${count.total}`;
  } else {
    delete item.dataset.total;
    what.textContent = !state.starter ? " which is the starter?"
      : state.practice ? " counted when you check" : " not counted"; // the count panel says why
  }
  item.replaceChildren(label, miniCards(codes), what);
}

// ---- start ---------------------------------------------------------------------------------

if (!canSpeak()) $("sound").closest("label").hidden = true;
startCounting({
  // The camera keeps following, and the next hand that locks fills the chips; till then they
  // hold no hand of the list.
  onClear: () => { live.listed = null; },
  onCount: showListed,
  noModelNote: "Camera frames cannot be read on this server yet: no card-reading model is installed. Type the cards instead.",
});
startPlayControls({
  getSession: () => live.session, putSession: (id) => { live.session = id; }, getVariant: () => state.variant,
  putFrameSide: setFrameSide,
});
watchFrames();
// Which reader the frames are read with: a taught deck is said, as the photo page shows it.
async function sayDeck() {
  const taught = await taughtDecks();
  const chosen = taught && taught.chosen;
  $("deck-note").hidden = !chosen;
  $("deck-note").textContent = chosen ? `Reading with your taught deck ${chosen} (choose another on the photo page).` : "";
}

sayDeck();
document.body.classList.add("ready");
startCamera();
