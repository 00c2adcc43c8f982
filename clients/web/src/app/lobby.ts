/**
 * The lobby (`#/`): the name, bot matches, a private room of 2 to 4 seats and its time limit, ranked
 * play and its leaderboards, live matches (polled while shown), recent replays, the daily challenge, the
 * guest's identity on another device (a recovery code); and the page an invitation link opens, which
 * asks for a name first.
 */

import { api, guest, knownName, type LiveMatch, recover, rememberName, revokeRecovery, storedGuest } from "./api";
import { button, el } from "./dom";
import { playedList } from "./history";
import { rememberInvite } from "./invites";
import { leaderLine, liveLine, liveSeconds, ratingText } from "./lobby-text";
import { originOk, originRefusal } from "./origin";
import { errorText, onLeave, show, withToken, wsUrl } from "./page";
import { rememberMatched } from "./precard";
import { RankedQueue, type LeaderRow, ranked } from "./ranked";
import { browserSettings } from "./settings";
import { canShow, PLAYABLE, PRACTICE } from "../games/registry";

/** How often the live list is asked again while the lobby is shown (ms); its ages tick every second. */
const LIVE_POLL_MS = 4000;

// ---- the lobby ---------------------------------------------------------------------------------------

export function lobby(): void {
  const stored = storedGuest();
  const message = el("p", { id: "lobby-message", class: "message" });
  const name = el("input", { id: "name", maxlength: "24", placeholder: "your name", autocomplete: "nickname",
    value: stored?.name ?? knownName() });
  name.addEventListener("input", () => rememberName(name.value));
  const share = el("div", { id: "share" });
  const settings = browserSettings();
  const sound = el("input", { id: "sound", type: "checkbox", ...(settings.get("sound") ? { checked: "" } : {}) });
  const seatsChoice = el("select", { id: "room-seats" },
    ...[2, 3, 4].map((n) => el("option", { value: String(n) }, `${n} players`)));
  const minutesChoice = el("select", { id: "room-minutes" }, el("option", { value: "" }, "the standard time"),
    ...Array.from({ length: 10 }, (_, i) => el("option", { value: String(i + 1) }, `${i + 1} min`)));
  sound.addEventListener("change", () => settings.set("sound", sound.checked));
  // The game a bot match or a room plays (games/registry.ts PLAYABLE; the first is the server's default).
  const gameChoice = el("select", { id: "game", "aria-label": "The game" },
    ...PLAYABLE.map((game) => el("option", { value: game.ruleset }, game.label)));
  const chosenRuleset = (): string | undefined =>
    gameChoice.value === PLAYABLE[0]!.ruleset ? undefined : gameChoice.value;
  // Payload versus has two seats (rules/payload/ruleset.py): the room's seat count follows the game.
  gameChoice.addEventListener("change", () => {
    const twoOnly = gameChoice.value.startsWith("payload");
    if (twoOnly) seatsChoice.value = "2";
    seatsChoice.disabled = twoOnly;
  });
  const live = el("ul", { id: "live" }, el("li", {}, "…"));
  const replays = el("ul", { id: "replays" }, el("li", {}, "…"));
  const play = (bot: string) => async () => {
    try {
      const seated = await withToken((token) => api.botMatch(token, bot, chosenRuleset()));
      location.hash = `#/play/${seated.match}?bot=${bot}`;
    } catch (error) {
      message.textContent = errorText(error);
    }
  };
  const room = async () => {
    try {
      const seats = Number(seatsChoice.value);
      const minutes = minutesChoice.value === "" ? undefined : Number(minutesChoice.value);
      const seated = await withToken((token) => api.room(token,
        { seats, ...(minutes ? { minutes } : {}), ...(chosenRuleset() ? { ruleset: chosenRuleset() } : {}) }));
      const link = `${location.origin}${location.pathname}#/join/${seated.invite}`;
      const friends = seats === 2 ? "your friend opens it" : `your ${seats - 1} friends have opened it (the same link for each)`;
      rememberInvite(seated.match, link);
      share.replaceChildren(
        el("p", {}, `Share this link; the match starts when ${friends}:`),
        el("input", { id: "invite-link", readonly: "", value: link, "aria-label": "The room's invitation link" }),
        el("p", {}, el("a", { href: `#/play/${seated.match}`, id: "enter-room" }, "Enter the room")),
      );
    } catch (error) {
      message.textContent = errorText(error);
    }
  };
  const originNote = el("div", { id: "origin-note" });
  show(
    el("h1", {}, "floe"),
    originNote,
    el("p", { class: "lead" }, "Pengo versus: two boards, one deal; what you achieve lands on your rival."),
    el("nav", { "aria-label": "Pages" }, el("a", { href: "#/settings", id: "settings-link" }, "Settings"), " · ",
      el("a", { href: "#/rules" }, "The rules"), " · ", el("a", { href: "/docs" }, "API")),
    el("section", { "aria-label": "Play" },
      el("label", { for: "name" }, "Name "), name, " ", el("label", {}, sound, " Sound"),
      el("div", { class: "buttons" }, el("label", { for: "game" }, "Game "), gameChoice),
      el("div", { class: "buttons" },
        button("Play the competent bot", "play-competent", play("competent")),
        button("Play the lazy bot", "play-lazy", play("lazy")),
        ...[...PRACTICE.values()].map((game) => button(game.label, `practice-${game.route}`, () => {
          location.hash = `#/${game.route}`;
        })),
        ...[...PRACTICE.values()].filter((game) => game.serverDaily !== undefined).map((game) =>
          button(game.dailyLabel ?? `${game.label}: daily`, `daily-${game.route}`, () => {
            location.hash = `#/${game.route}/daily`;
          }))),
      el("div", { class: "buttons", role: "group", "aria-label": "A private room" },
        el("label", { for: "room-seats" }, "Room for "), seatsChoice, " ",
        el("label", { for: "room-minutes" }, "lasting "), minutesChoice, " ",
        button("Create a private room", "create-room", room)),
      share, message),
    rankedSection(message),
    el("section", {}, el("h2", {}, "Live matches"), live),
    el("section", {}, el("h2", {}, "Recent replays"), replays),
    el("section", { id: "mine" }, el("h2", {}, "Your matches"), playedList()),
    dailySection(),
    identitySection(),
  );
  void originOk().then((ok) => {
    if (!ok) originNote.replaceChildren(originRefusal());
  });
  // The live list: asked again every few seconds while the lobby is shown, its ages ticking between.
  let listed: { matches: LiveMatch[]; at: number } | null = null;
  const drawLive = (): void => {
    if (listed === null) return;
    const { matches, at } = listed;
    const now = Date.now();
    live.replaceChildren(...(matches.length ? matches.map((match) =>
      el("li", {}, el("a", { href: `#/watch/${match.id}`, class: "watch", "data-match": match.id },
        liveLine(match, liveSeconds(match, at, now)))))
      : [el("li", {}, "none right now")]));
  };
  const poll = (): void => {
    if (document.hidden && listed !== null) return; // a tab in the background asks nothing
    api.matches().then(({ matches }) => {
      listed = { matches: matches.filter((match) => canShow(match.ruleset)), at: Date.now() };
      drawLive();
    }).catch(() => live.replaceChildren(el("li", {}, "unavailable")));
  };
  poll();
  const polling = window.setInterval(poll, LIVE_POLL_MS);
  const ticking = window.setInterval(drawLive, 1000);
  onLeave(() => {
    window.clearInterval(polling);
    window.clearInterval(ticking);
  });
  api.recent().then(({ replays: all }) => {
    const list = all.filter((replay) => canShow(replay.ruleset));
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
  // The game whose queue and rating this section shows (one queue and one rating per ruleset).
  const game = el("select", { id: "ranked-game", "aria-label": "The ranked game" },
    ...PLAYABLE.map((choice) => el("option", { value: choice.ruleset }, choice.label)));
  const chosen = (): string | undefined => (game.value === PLAYABLE[0]!.ruleset ? undefined : game.value);
  const find = button("Find a ranked match", "queue", async () => {
    if (queue !== null) {
      queue.stop();
      queue = null;
      find.textContent = "Find a ranked match";
      state.textContent = "";
      game.disabled = false;
      return;
    }
    try {
      const { token } = await guest((document.getElementById("name") as HTMLInputElement | null)?.value);
      queue = new RankedQueue(wsUrl(), token, {
        onQueued: (q) => {
          state.textContent = `Waiting for an opponent near ${Math.round(q.rating)} (±${Math.round(q.window)})…`;
        },
        onMatched: (m) => {
          const hidden = browserSettings().get("hideRatings");
          state.textContent = `Matched with ${m.opponent}${hidden ? "" : ` (${Math.round(m.opponent_rating)})`}`;
          rememberMatched(m);
          location.hash = `#/play/${m.match}?ranked=1`;
        },
        onGone: (why) => {
          queue = null;
          find.textContent = "Find a ranked match";
          state.textContent = why;
          game.disabled = false;
        },
      }, chosen());
      queue.start();
      find.textContent = "Leave the queue";
      game.disabled = true;
    } catch (error) {
      message.textContent = errorText(error);
    }
  });
  const provisional = el("ol", { id: "provisional-board" }, el("li", {}, "…"));
  const lines = (rows: LeaderRow[], none: string): HTMLElement[] =>
    rows.length ? rows.map((row) => el("li", {}, leaderLine(row))) : [el("li", {}, none)];
  const load = (): void => {
    const ruleset = chosen();
    board.dataset.ruleset = game.value;
    const stored = storedGuest();
    if (stored) {
      ranked.player(stored.guest, ruleset).then((p) => {
        mine.textContent = `Your rating: ${ratingText(p.rating, p.provisional)} after ${p.games} games`
          + (p.provisional ? " (provisional)" : "");
      }).catch(() => {
        mine.textContent = "No rated games yet.";
      });
    }
    ranked.leaderboard(10, false, ruleset).then(({ players }) => {
      board.replaceChildren(...lines(players, "nobody with a settled rating yet"));
    }).catch(() => board.replaceChildren(el("li", {}, "unavailable")));
    ranked.leaderboard(10, true, ruleset).then(({ players }) => {
      provisional.replaceChildren(...lines(players, "nobody yet"));
    }).catch(() => provisional.replaceChildren(el("li", {}, "unavailable")));
  };
  game.addEventListener("change", load);
  load();
  return el("section", { id: "ranked" }, el("h2", {}, "Ranked"),
    el("div", { class: "buttons" }, el("label", { for: "ranked-game" }, "Game "), game), find, state, mine,
    el("h3", {}, "Leaderboard"), board,
    el("h3", {}, "Provisional players (?)"),
    el("p", { id: "provisional-why", class: "help" },
      "A new player's rating is provisional (marked ?) until enough rated games make it reliable "
        + "(rating deviation under 110); provisional players are listed here, apart from the leaderboard, "
        + "which they join once their rating settles."),
    provisional);
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
      + "runs each. Play it here in your browser, or with `floe daily play` and submit the replay here.";
    const { entries } = await ranked.dailyBoard(daily.day, 10);
    board.replaceChildren(...(entries.length ? entries.map((entry) =>
      entry.replay === null ? el("li", {}, `${entry.name} ${entry.score}`)
        : el("li", {}, `${entry.name} ${entry.score}`, " ", el("a", { href: `#/replay/${entry.replay}` }, "replay")))
      : [el("li", {}, "no runs yet")]));
  }).catch(() => {
    about.textContent = "The daily challenge is not available.";
  });
  return el("section", { id: "daily" }, el("h2", {}, "Daily challenge"), about,
    el("p", {}, el("a", { href: "#/daily", id: "daily-here" }, "Play today's run in your browser")),
    el("label", {}, "Submit a run: ", file),
    result, board);
}

// ---- your identity on another device ---------------------------------------------------------------

function identitySection(): HTMLElement {
  const message = el("p", { id: "identity-message", class: "message", role: "status" });
  const shown = el("div", { id: "recovery-shown" });
  const make = button("Make a recovery code", "make-code", async () => {
    try {
      const { code } = await withToken((token) => api.recoveryCode(token));
      shown.replaceChildren(
        el("label", { for: "recovery-code" }, "Your recovery code (shown once: copy it now) "),
        el("input", { id: "recovery-code", readonly: "", value: code, size: "40" }),
        el("p", { class: "help" }, "Enter it in another browser's lobby to play there as "
          + `${storedGuest()?.name ?? "you"}, with your rating. A new code replaces this one.`));
      message.textContent = "";
    } catch (error) {
      message.textContent = errorText(error);
    }
  });
  const revoke = button("Revoke codes and other devices", "revoke-code", async () => {
    try {
      await withToken((token) => revokeRecovery(token));
      shown.replaceChildren();
      message.textContent = "Every recovery code, and every other browser playing as you, no longer works.";
    } catch (error) {
      message.textContent = errorText(error);
    }
  });
  const codeInput = el("input", { id: "recover-input", size: "40", autocomplete: "off", spellcheck: "false" });
  const form = el("form", { id: "recover-form" },
    el("label", { for: "recover-input" }, "A recovery code from another browser "), codeInput, " ",
    el("button", { type: "submit", id: "use-code" }, "Play as that guest"));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (!codeInput.value.trim()) return;
    try {
      const who = await recover(codeInput.value);
      const nameInput = document.getElementById("name") as HTMLInputElement | null;
      if (nameInput) nameInput.value = who.name;
      codeInput.value = "";
      message.textContent = `You are ${who.name} here now.`;
    } catch (error) {
      message.textContent = errorText(error);
    }
  });
  return el("section", { id: "identity" }, el("h2", {}, "Your identity on another device"),
    el("p", { class: "help" }, "Your name and rating belong to this browser's guest. A recovery code, shown once, "
      + "lets another browser become the same guest; revoking stops every code and every other browser."),
    el("div", { class: "buttons" }, make, revoke), shown, form, message);
}

// ---- joining by invitation ---------------------------------------------------------------------------

/** The page an invitation link opens (`#/join/{invite}`): the name first (the one this browser knows,
 * if any, filled in), then the room's free seat. */
export function joinPage(invite: string): void {
  const message = el("p", { class: "message", id: "join-error", role: "alert" });
  const name = el("input", { id: "name", maxlength: "24", placeholder: "your name", autocomplete: "nickname",
    required: "", value: knownName() });
  const form = el("form", { id: "join-form" },
    el("label", { for: "name" }, "Your name "), name, " ",
    el("button", { type: "submit", id: "join-room" }, "Join the room"));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (!name.value.trim()) {
      message.textContent = "Type the name the others will see.";
      name.focus();
      return;
    }
    rememberName(name.value);
    message.textContent = "Joining the room…";
    try {
      const seated = await withToken((token) => api.joinRoom(token, invite));
      location.replace(`#/play/${seated.match}`);
    } catch (error) {
      message.textContent = `Could not join: ${errorText(error)}`;
    }
  });
  show(el("h1", {}, "floe"), el("p", { class: "lead" }, "You are invited to a private room."), form, message,
    el("p", {}, el("a", { href: "#/" }, "Back to the lobby")));
  name.focus();
}
