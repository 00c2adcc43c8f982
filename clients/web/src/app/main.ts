/**
 * floe in the browser: the pages and their routes (the URL's hash).
 *
 *   #/                 the lobby: name, play a bot, a private room, live matches, recent replays
 *   #/join/{invite}    take the free seat of a room shared by link
 *   #/play/{match}     play your seat          #/watch/{match}   spectate
 *   #/replay/{id}      the replay viewer        #/rules           the rule compendium
 *
 * `window.__floe` exposes the page's decoded model to the browser tests (tests/web/).
 */

import { ApiError, api, dropToken, guest, rememberName, storedGuest } from "./api";
import { LiveView, ReplayPlayer, type TestHooks } from "./match";
import { RankedQueue, ranked } from "./ranked";
import { setSound, soundOn } from "../games/pengo/sound";
import type { MatchResult } from "../net/wire";

declare global {
  interface Window {
    __floe?: TestHooks & { page: string };
  }
}

const app = document.getElementById("app")!;
let cleanup: (() => void) | null = null;

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

function button(label: string, id: string, onClick: () => void): HTMLButtonElement {
  const node = el("button", { id, type: "button" }, label);
  node.addEventListener("click", onClick);
  return node;
}

function show(...nodes: Node[]): void {
  cleanup?.();
  cleanup = null;
  window.__floe = undefined;
  app.replaceChildren(...nodes);
}

function wsUrl(): string {
  return `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`;
}

function errorText(error: unknown): string {
  return error instanceof ApiError ? `${error.message} (${error.code})` : String(error);
}

/** Call the API with the guest's token, renewing it once if the server refused it. */
async function withToken<T>(call: (token: string) => Promise<T>): Promise<T> {
  const nameInput = document.getElementById("name") as HTMLInputElement | null;
  try {
    return await call((await guest(nameInput?.value)).token);
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) {
      dropToken();
      return call((await guest(nameInput?.value)).token);
    }
    throw error;
  }
}

// ---- the lobby ---------------------------------------------------------------------------------------

function lobby(): void {
  const stored = storedGuest();
  const message = el("p", { id: "lobby-message", class: "message" });
  const name = el("input", { id: "name", maxlength: "24", placeholder: "your name", value: stored?.name ?? "" });
  name.addEventListener("input", () => rememberName(name.value));
  const share = el("div", { id: "share" });
  const sound = el("input", { id: "sound", type: "checkbox", ...(soundOn() ? { checked: "" } : {}) });
  sound.addEventListener("change", () => setSound(sound.checked));
  const live = el("ul", { id: "live" }, el("li", {}, "…"));
  const replays = el("ul", { id: "replays" }, el("li", {}, "…"));
  const play = (bot: string) => async () => {
    try {
      const seated = await withToken((token) => api.botMatch(token, bot));
      location.hash = `#/play/${seated.match}?bot=${bot}`;
    } catch (error) {
      message.textContent = errorText(error);
    }
  };
  const room = async () => {
    try {
      const seated = await withToken((token) => api.room(token));
      const link = `${location.origin}${location.pathname}#/join/${seated.invite}`;
      share.replaceChildren(
        el("p", {}, "Share this link; the match starts when your friend opens it:"),
        el("input", { id: "invite-link", readonly: "", value: link }),
        el("p", {}, el("a", { href: `#/play/${seated.match}`, id: "enter-room" }, "Enter the room")),
      );
    } catch (error) {
      message.textContent = errorText(error);
    }
  };
  show(
    el("h1", {}, "floe"),
    el("p", { class: "lead" }, "Pengo versus: two boards, one deal; what you achieve lands on your rival."),
    el("section", {},
      el("label", { for: "name" }, "Name "), name, " ", el("label", {}, sound, " Sound"),
      el("div", { class: "buttons" },
        button("Play the competent bot", "play-competent", play("competent")),
        button("Play the lazy bot", "play-lazy", play("lazy")),
        button("Create a private room", "create-room", room)),
      share, message),
    rankedSection(message),
    el("section", {}, el("h2", {}, "Live matches"), live),
    el("section", {}, el("h2", {}, "Recent replays"), replays),
    dailySection(),
    el("p", {}, el("a", { href: "#/rules" }, "The rules"), " · ", el("a", { href: "/docs" }, "API")),
  );
  api.matches().then(({ matches }) => {
    live.replaceChildren(...(matches.length ? matches.map((match) =>
      el("li", {}, el("a", { href: `#/watch/${match.id}`, class: "watch" },
        `${match.seats.map((seat) => seat ?? "—").join(" vs ")} (${match.state}, ${Math.floor(match.frame / 60)} s)`)))
      : [el("li", {}, "none right now")]));
  }).catch(() => live.replaceChildren(el("li", {}, "unavailable")));
  api.recent().then(({ replays: list }) => {
    replays.replaceChildren(...(list.length ? list.map((replay) =>
      el("li", {}, el("a", { href: `#/replay/${replay.id}`, class: "replay" },
        `${replay.seats.join(" vs ")}: ${replay.result ? replay.result.scores.join("–") : ""}`)))
      : [el("li", {}, "none yet")]));
  }).catch(() => replays.replaceChildren(el("li", {}, "unavailable")));
}

// ---- ranked play and the daily challenge -------------------------------------------------------------

function rankedSection(message: HTMLElement): HTMLElement {
  const state = el("p", { id: "queue-state" });
  const mine = el("p", { id: "my-rating" });
  const board = el("ol", { id: "leaderboard" }, el("li", {}, "…"));
  let queue: RankedQueue | null = null;
  const find = button("Find a ranked match", "queue", async () => {
    if (queue !== null) {
      queue.stop();
      queue = null;
      find.textContent = "Find a ranked match";
      state.textContent = "";
      return;
    }
    try {
      const { token } = await guest((document.getElementById("name") as HTMLInputElement | null)?.value);
      queue = new RankedQueue(wsUrl(), token, {
        onQueued: (q) => {
          state.textContent = `Waiting for an opponent near ${Math.round(q.rating)} (±${Math.round(q.window)})…`;
        },
        onMatched: (m) => {
          state.textContent = `Matched with ${m.opponent} (${Math.round(m.opponent_rating)})`;
          location.hash = `#/play/${m.match}?ranked=1`;
        },
        onGone: (why) => {
          queue = null;
          find.textContent = "Find a ranked match";
          state.textContent = why;
        },
      });
      queue.start();
      find.textContent = "Leave the queue";
    } catch (error) {
      message.textContent = errorText(error);
    }
  });
  const stored = storedGuest();
  if (stored) {
    ranked.player(stored.guest).then((p) => {
      mine.textContent = `Your rating: ${Math.round(p.rating)}${p.provisional ? "?" : ""} after ${p.games} games`;
    }).catch(() => {
      mine.textContent = "No rated games yet.";
    });
  }
  ranked.leaderboard(10).then(({ players }) => {
    board.replaceChildren(...(players.length ? players.map((p) =>
      el("li", {}, `${p.name} ${Math.round(p.rating)} (${p.games} games)`)) : [el("li", {}, "nobody rated yet")]));
  }).catch(() => board.replaceChildren(el("li", {}, "unavailable")));
  return el("section", { id: "ranked" }, el("h2", {}, "Ranked"), find, state, mine, el("h3", {}, "Leaderboard"), board);
}

function dailySection(): HTMLElement {
  const about = el("p", { id: "daily-about" }, "…");
  const board = el("ol", { id: "daily-board" });
  const result = el("p", { id: "daily-result", class: "message" });
  const file = el("input", { id: "daily-file", type: "file", accept: ".replay,application/msgpack" });
  file.addEventListener("change", async () => {
    const chosen = file.files?.[0];
    if (!chosen) return;
    try {
      const { token } = await guest();
      const answer = await ranked.submitDaily(token, chosen);
      result.textContent = answer.ok ? `Verified: ${answer.score} points (your best today: ${answer.best})`
        : `Refused: ${answer.message ?? "not a verified run"}`;
    } catch (error) {
      result.textContent = errorText(error);
    }
  });
  ranked.daily().then(async (daily) => {
    about.textContent = `Today (${daily.day}): one Pengo board from seed ${daily.seed}; up to ${daily.submissions} `
      + "runs each. Play it with `floe daily play` and submit the replay here.";
    const { entries } = await ranked.dailyBoard(daily.day, 10);
    board.replaceChildren(...(entries.length ? entries.map((entry) =>
      entry.replay === null ? el("li", {}, `${entry.name} ${entry.score}`)
        : el("li", {}, `${entry.name} ${entry.score}`, " ", el("a", { href: `#/replay/${entry.replay}` }, "replay")))
      : [el("li", {}, "no runs yet")]));
  }).catch(() => {
    about.textContent = "The daily challenge is not available.";
  });
  return el("section", { id: "daily" }, el("h2", {}, "Daily challenge"), about, el("label", {}, "Submit a run: ", file),
    result, board);
}

// ---- joining by invitation ---------------------------------------------------------------------------

async function join(invite: string): Promise<void> {
  show(el("p", { id: "joining" }, "Joining the room…"));
  try {
    const seated = await withToken((token) => api.joinRoom(token, invite));
    location.replace(`#/play/${seated.match}`);
  } catch (error) {
    show(el("p", { class: "message", id: "join-error" }, `Could not join: ${errorText(error)}`),
      el("a", { href: "#/" }, "Back to the lobby"));
  }
}

// ---- the match ---------------------------------------------------------------------------------------

function resultText(result: MatchResult, seats: string[], seat: number | null): string {
  if (result.winner === null) return `A draw (${result.reason}).`;
  const who = seat === result.winner ? "You win" : `${seats[result.winner] ?? "?"} wins`;
  return `${who} by ${result.reason}: ${result.scores.join(" – ")}.`;
}

function match(id: string, role: "player" | "spectator", bot: string | null): void {
  const canvas = el("canvas", { id: "board" });
  const banner = el("div", { id: "reconnect", class: "banner hidden" }, "Connection lost — reconnecting…");
  const status = el("p", { id: "match-status", class: "message" }, "Connecting…");
  const result = el("div", { id: "result", class: "result hidden" });
  const help = role === "player" ? "Arrows or WASD move, space kicks (a gamepad works too)." : "Spectating.";
  show(banner, el("div", { class: "stage" }, canvas), status, el("p", { class: "help" }, help), result,
    el("p", {}, el("a", { href: "#/" }, "Lobby")));
  const token = role === "player" ? storedGuest()?.token ?? null : null;
  const view: LiveView = new LiveView(canvas, wsUrl(), token, id, role, {
    onJoined: (joined) => {
      status.textContent = `${joined.seats.join(" vs ")} — ${role === "player" ? `you are seat ${joined.seat}` : "watching"}`;
    },
    onConnection: (dropped) => banner.classList.toggle("hidden", !dropped),
    onRated: (rated) => {
      result.append(el("p", { id: "rating-change" },
        `Rating ${rated.change >= 0 ? "+" : ""}${rated.change.toFixed(1)}: now ${Math.round(rated.rating)}`));
    },
    onError: (code, message, fatal) => {
      if (fatal || ["not-seated", "no-such-match", "auth"].includes(code)) status.textContent = `${message} (${code})`;
    },
    onOver: (over) => {
      const seats = view.stream?.joined.seats ?? [];
      const seat = role === "player" ? view.stream?.joined.seat ?? null : null;
      const replay = over.replay;
      result.replaceChildren(
        el("h2", {}, over.result ? resultText(over.result, seats, seat) : "The match was cancelled."),
        ...(replay ? [
          el("p", {},
            el("a", { href: `#/replay/${replay}`, id: "watch-replay" }, "Watch the replay"), " · ",
            el("a", { href: `/api/replays/${replay}`, download: `${replay}.replay`, id: "download-replay" }, "Download it")),
        ] : []),
        ...(role === "player" ? [button("Rematch", "rematch", async () => {
          try {
            const seated = await withToken((t) => (bot ? api.botMatch(t, bot) : api.room(t)));
            location.hash = bot ? `#/play/${seated.match}?bot=${bot}` : `#/play/${seated.match}`;
          } catch (error) {
            status.textContent = errorText(error);
          }
        })] : []),
      );
      result.classList.remove("hidden");
    },
  });
  view.start();
  cleanup = () => view.stop();
  window.__floe = {
    page: role,
    stream: () => view.stream,
    drawnFrames: () => view.drawnFrames,
    busy: () => ({ drawMs: view.drawMs, applyMs: view.applyMs, records: view.records }),
    dropConnection: () => view.session.drop(),
    displayFrame: () => view.display,
    result: () => view.result,
  };
}

// ---- the replay viewer -------------------------------------------------------------------------------

async function replay(id: string): Promise<void> {
  const canvas = el("canvas", { id: "board" });
  const status = el("p", { id: "replay-status", class: "message" }, "Re-simulating the replay…");
  show(el("div", { class: "stage" }, canvas), status, el("p", {}, el("a", { href: "#/" }, "Lobby")));
  const response = await fetch(`/api/replays/${encodeURIComponent(id)}/stream`);
  if (!response.ok) {
    status.textContent = `The replay could not be played (${response.status}).`;
    return;
  }
  const player = new ReplayPlayer(canvas);
  player.load(new Uint8Array(await response.arrayBuffer()));
  const scrub = el("input", { id: "scrub", type: "range", min: "0", max: String(player.finalFrame), value: "0" });
  const playButton = button("Pause", "play-pause", () => {
    player.playing = !player.playing;
    if (player.playing && player.position >= player.finalFrame) player.seek(0);
  });
  const speed = el("select", { id: "speed" },
    ...["0.5", "1", "2", "4"].map((value) => el("option", value === "1" ? { value, selected: "" } : { value }, `${value}×`)));
  speed.addEventListener("change", () => {
    player.speed = Number(speed.value);
  });
  scrub.addEventListener("input", () => player.seek(Number(scrub.value)));
  const clock = el("span", { id: "replay-frame" });
  player.onTick = () => {
    playButton.textContent = player.playing ? "Pause" : "Play";
    if (document.activeElement !== scrub) scrub.value = String(Math.floor(player.position));
    clock.textContent = ` frame ${Math.floor(player.position)} / ${player.finalFrame}`;
  };
  const seats = player.joined?.seats ?? [];
  status.textContent = `${seats.join(" vs ")}${player.over?.result ? ` — ${resultText(player.over.result, seats, null)}` : ""}`;
  canvas.parentElement!.after(el("div", { class: "controls" }, playButton, speed, scrub, clock,
    el("a", { href: `/api/replays/${id}`, download: `${id}.replay` }, " download")));
  player.start();
  cleanup = () => player.stop();
  window.__floe = {
    page: "replay",
    stream: () => player.stream,
    drawnFrames: () => player.drawnFrames,
    displayFrame: () => player.position,
    result: () => player.over?.result ?? null,
    seek: (frame: number) => {
      player.playing = false;
      player.seek(frame);
    },
  };
}

// ---- the rules ---------------------------------------------------------------------------------------

async function rules(): Promise<void> {
  show(el("h1", {}, "The rules"), el("p", { id: "rules-loading" }, "…"));
  const book = await api.rules();
  show(
    el("h1", {}, "The rules"),
    el("p", { id: "rules-heading" }, book.heading),
    ...book.sections.map((section) => el("section", {},
      el("h2", {}, section.title),
      el("table", { class: "rules" }, ...section.rows.map(([name, value, note]) =>
        el("tr", {}, el("td", { class: "name" }, name), el("td", {}, value), el("td", { class: "note" }, note)))))),
    el("p", {}, el("a", { href: "#/" }, "Lobby")),
  );
}

// ---- routing -----------------------------------------------------------------------------------------

function route(): void {
  const [path = "", query = ""] = location.hash.replace(/^#/, "").split("?");
  const parts = path.split("/").filter(Boolean);
  const params = new URLSearchParams(query);
  const [page, id] = parts;
  if (page === "play" && id) match(id, "player", params.get("bot"));
  else if (page === "watch" && id) match(id, "spectator", null);
  else if (page === "replay" && id) void replay(id);
  else if (page === "join" && id) void join(id);
  else if (page === "rules") void rules();
  else lobby();
}

window.addEventListener("hashchange", route);
route();
