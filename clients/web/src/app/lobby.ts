/**
 * The lobby (`#/`): the name, bot matches, a private room, ranked play and its leaderboard, live
 * matches, recent replays and the daily challenge.
 */

import { api, guest, rememberName, storedGuest } from "./api";
import { button, el } from "./dom";
import { rememberInvite } from "./invites";
import { errorText, show, withToken, wsUrl } from "./page";
import { rememberMatched } from "./precard";
import { RankedQueue, ranked } from "./ranked";
import { browserSettings } from "./settings";

// ---- the lobby ---------------------------------------------------------------------------------------

export function lobby(): void {
  const stored = storedGuest();
  const message = el("p", { id: "lobby-message", class: "message" });
  const name = el("input", { id: "name", maxlength: "24", placeholder: "your name", value: stored?.name ?? "" });
  name.addEventListener("input", () => rememberName(name.value));
  const share = el("div", { id: "share" });
  const settings = browserSettings();
  const sound = el("input", { id: "sound", type: "checkbox", ...(settings.get("sound") ? { checked: "" } : {}) });
  sound.addEventListener("change", () => settings.set("sound", sound.checked));
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
      rememberInvite(seated.match, link);
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
          rememberMatched(m);
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
      result.textContent = answer.ok ? `Verified: ${answer.score} points (your best today: ${answer.best?.score ?? answer.score} points)`
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
