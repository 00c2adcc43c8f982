/**
 * The live match page, played or watched: the information strip (app/hud.ts), a ranked match's card
 * (app/precard.ts), a room creator's waiting panel with the invitation link to copy, the board, and
 * after the match the results (app/results.ts, app/stats.ts) with the rematch offers (app/rematch.ts).
 */

import type { AnyGameView } from "../games/registry";
import type { Joined } from "../net/wire";
import { api, storedGuest } from "./api";
import { button, el } from "./dom";
import { MatchHud } from "./hud";
import { rememberPlayed } from "./history";
import { inviteFor } from "./invites";
import { LiveView } from "./match";
import { MatchInfo } from "./matchinfo";
import { errorText, exposeForTests, onLeave, show, withToken, wsUrl } from "./page";
import { RankedCard, matchedFor } from "./precard";
import { RematchPanel } from "./rematch";
import { browserSettings } from "./settings";
import { ratingLine, resultText, statsTable } from "./results";
import { matchStats } from "./stats";

/** How often the strip's countdowns and frame time are redrawn, ms. */
const TICK_MS = 500;

/** The waiting room of a room's creator: "waiting for your friend", the link again, a copy button. */
function waitingPanel(match: string, opponent: string | null): HTMLElement {
  const link = inviteFor(match);
  const said = el("span", { id: "copy-state", role: "status" });
  const panel = el("section", { id: "waiting", class: "card" },
    el("h2", {}, opponent === null ? "Waiting for your friend" : `Waiting for ${opponent} to connect`));
  if (opponent === null && link !== null) {
    const field = el("input", { id: "waiting-link", readonly: "", value: link, "aria-label": "Invitation link" });
    const copy = button("Copy the link", "copy-invite", async () => {
      try {
        await navigator.clipboard.writeText(link);
        said.textContent = " Copied.";
      } catch {
        field.select();
        said.textContent = " Selected: copy it with Ctrl+C.";
      }
    });
    panel.append(el("p", {}, "The match starts when your friend opens the invitation link:"), field,
      el("p", {}, copy, said));
  } else if (opponent === null) {
    panel.append(el("p", {}, "The match starts when your friend opens the invitation link you shared."));
  }
  return panel;
}

export function match(id: string, role: "player" | "spectator", bot: string | null): void {
  const canvas = el("canvas", { id: "board" });
  const hud = new MatchHud();
  const status = el("p", { id: "match-status", class: "message" }, "Connecting…");
  const before = el("div", { id: "before-match" });
  const result = el("div", { id: "result", class: "result hidden" });
  const rating = el("div", { id: "rating-slot" });
  // A player's controls are the game's: named once `joined` says which game it is.
  const help = el("p", { class: "help", id: "controls-help" }, role === "player" ? "" : "Spectating.");
  show(hud.banner, hud.element, before, el("div", { class: "stage fill" }, canvas), status, help, result,
    el("p", {}, el("a", { href: "#/" }, "Lobby"), " · ",
      el("a", { href: "#/settings", target: "_blank", rel: "noopener", id: "match-settings" }, "Settings (a new tab)")));
  // Who watches, and the match in words beside the board (app/matchinfo.ts).
  const info = new MatchInfo(role);
  const token = role === "player" ? storedGuest()?.token ?? null : null;
  const matched = role === "player" ? matchedFor(id) : null;
  let card: RankedCard | null = null;
  let rematch: RematchPanel | null = null;
  let joinedMessage: Joined | null = null;
  let seenSeats = "";

  const describe = (): void => {
    const names = hud.shownNames;
    status.textContent = `${names.join(" vs ")} — ${role === "player" ? `you are seat ${joinedMessage?.seat}` : "watching"}`;
  };
  // `status` carries no names: when a seat's connection changes, ask for the names the seats have now.
  const refreshNames = async (): Promise<void> => {
    try {
      const summary = await api.match(id);
      const seats = summary.seats;
      if (!Array.isArray(seats)) return;
      hud.rename(seats.map((seat) => (typeof seat === "string" ? seat : null)));
      view.names = [...hud.seatNames];
      describe();
    } catch {
      // The match is gone (over and dropped): the names shown stay.
    }
  };

  const view: LiveView = new LiveView(canvas, wsUrl(), token, id, role, {
    onJoined: (joined: Joined, game: AnyGameView) => {
      joinedMessage = joined;
      info.joined(joined);
      if (role === "player" && joined.seat !== null) rememberPlayed(joined.match, joined.seat);
      hud.welcome(view.connection.welcome);
      hud.joined(joined);
      if (role === "player") help.textContent = game.controlsHelp();
      describe();
      const grace = view.connection.welcome?.reconnect_grace ?? 30;
      if (matched !== null) {
        card = new RankedCard(matched, grace, browserSettings().get("hideRatings"));
        before.append(card.element);
      }
      const room = joined.bots.every((name) => name === null);
      if (role === "player" && room && joined.state === "waiting") {
        before.append(waitingPanel(id, matched?.opponent ?? null));
      }
    },
    onStatus: (message) => {
      info.status(message);
      hud.onStatus(message, performance.now());
      describe();
      card?.onStatus(message);
      if (message.state !== "waiting") document.getElementById("waiting")?.remove();
      const seats = `${message.state} ${message.connected.join()}`;
      if (seats !== seenSeats) {
        seenSeats = seats;
        void refreshNames();
      }
    },
    onFrame: (events, frame) => info.frame(events, frame),
    onConnection: (dropped) => hud.onConnection(dropped, performance.now()),
    onRated: (rated) => rating.replaceChildren(ratingLine(rated)),
    onRematch: (message) => rematch?.onMessage(message),
    onError: (code, message, fatal) => {
      if (code === "rematch" && rematch !== null) rematch.refused(message);
      else if (fatal || ["not-seated", "no-such-match", "auth"].includes(code)) status.textContent = `${message} (${code})`;
    },
    onOver: (over) => {
      const seats = view.names;
      const seat = role === "player" ? view.stream?.joined.seat ?? null : null;
      const replay = over.replay;
      const log = view.log;
      // the statistics table counts Pengo's events; a game that says it has none shows no table
      const counted = view.game?.statistics !== false;
      const stats = log === null || !counted ? null : matchStats(log.events(), seats.length);
      before.replaceChildren();
      result.replaceChildren(
        el("h2", {}, over.result ? resultText(over.result, seats, seat) : "The match was cancelled."),
        rating,
        ...(role === "player" ? [rematchControl(seat)] : []),
        ...(stats !== null && over.result ? [statsTable(seats, stats, seat, (log?.firstFrame ?? 0) > 0)] : []),
        ...(replay ? [
          el("p", {},
            el("a", { href: `#/replay/${replay}`, id: "watch-replay" }, "Watch the replay"), " · ",
            el("a", { href: `/api/replays/${replay}`, download: `${replay}.replay`, id: "download-replay" }, "Download it")),
        ] : []),
      );
      result.classList.remove("hidden");
      // The results are the screen now: bring them into view (the boards stay above them).
      result.scrollIntoView({ block: "start" });
    },
  });

  /** A bot match's rematch is a new bot match; a room's or ranked match's is an offer to the other. */
  const rematchControl = (seat: number | null): HTMLElement => {
    if (bot !== null || seat === null || (joinedMessage?.bots.some((name) => name !== null) ?? false)) {
      return el("p", {}, button("Rematch", "rematch", async () => {
        try {
          const seated = await withToken((t) => (bot ? api.botMatch(t, bot) : api.room(t)));
          location.hash = bot ? `#/play/${seated.match}?bot=${bot}` : `#/play/${seated.match}`;
        } catch (error) {
          status.textContent = errorText(error);
        }
      }));
    }
    rematch = new RematchPanel(view.connection, seat, () => view.names, (next) => {
      location.hash = `#/play/${next}`;
    });
    return rematch.element;
  };

  info.attach(canvas, status, () => view.stream);
  view.start();
  const ticker = window.setInterval(() => {
    hud.tick(performance.now(), view.drawMs, view.drawnFrames);
    hud.prediction(view.predictionState(), view.stream?.joined.seat ?? null);
  }, TICK_MS);
  onLeave(() => {
    window.clearInterval(ticker);
    rematch?.stop();
    view.stop();
  });
  exposeForTests({
    page: role,
    stream: () => view.stream,
    drawnFrames: () => view.drawnFrames,
    busy: () => ({ drawMs: view.drawMs, applyMs: view.applyMs, records: view.records }),
    dropConnection: () => view.connection.drop(),
    leave: () => view.connection.leave(),
    displayFrame: () => view.display,
    result: () => view.result,
    board: () => view.board,
    prediction: () => view.predictionState(),
    predicted: () => (view.prediction?.active ? view.prediction.state : null),
    presses: () => [...view.presses],
    frames: () => view.frameLog(),
  });
}
