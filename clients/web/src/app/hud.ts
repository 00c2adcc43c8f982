/**
 * The match page's information strip: each seat's name (updated as players take their seats: a room's
 * creator first sees the free seat), its connection (signal bars and the round trip from `status.lag`;
 * your own is your ping), a dropped opponent's grace countdown (`status.grace`), the frame time, and
 * the banner of the player whose own connection dropped (its countdown from `welcome.reconnect_grace`
 * and the forfeit rule), in the page's flow above the board so that it covers nothing.
 */

import type { Joined, Status, Welcome } from "../net/wire";
import { barsText, forfeitRule, lagText, msPerDraw, secondsLeft, signalBars } from "./connection";
import { el } from "./dom";

/** The server's grace period until `welcome` says it (protocol/README.md's default). */
const GRACE_UNTIL_WELCOME = 30;

export class MatchHud {
  readonly element: HTMLElement;
  /** The banner shown while this page's own connection is down. */
  readonly banner: HTMLElement;
  private readonly seatsLine = el("span", { id: "seats" });
  private readonly away = el("p", { id: "opponent-away", class: "notice hidden", role: "status" });
  private readonly frameTime = el("span", { id: "frame-time" });
  private readonly watchers = el("span", { id: "spectators" });
  private readonly predicted = el("span", { id: "prediction" });
  private names: string[] = [];
  private bots: (string | null)[] = [];
  private seat: number | null = null;
  private grace = GRACE_UNTIL_WELCOME;
  private status: Status | null = null;
  private statusAt = 0;
  private droppedAt: number | null = null;
  private drawSample: { busy: number; draws: number } | null = null;

  constructor() {
    this.banner = el("p", { id: "reconnect", class: "notice alarm hidden", role: "alert" });
    this.element = el("div", { id: "hud", class: "hud" },
      el("p", { class: "hud-line" }, this.seatsLine, " ", this.watchers, " ", this.frameTime, " ", this.predicted),
      this.away);
  }

  welcome(welcome: Welcome | null): void {
    if (typeof welcome?.reconnect_grace === "number") this.grace = welcome.reconnect_grace;
  }

  joined(joined: Joined): void {
    this.names = [...joined.seats];
    this.bots = [...joined.bots];
    this.seat = joined.role === "player" ? joined.seat : null;
    this.render(0);
  }

  /** Seat names as the server gives them now (a free seat: null, keeping the name shown). */
  rename(names: (string | null)[]): void {
    names.forEach((name, index) => {
      if (name !== null) this.names[index] = name;
    });
  }

  get seatNames(): string[] {
    return this.names;
  }

  /** The names as the page says them (an untaken seat is "an open seat", not the server's "open"). */
  get shownNames(): string[] {
    return this.names.map((name, index) => (this.taken(index) ? name : "an open seat"));
  }

  onStatus(status: Status, now: number): void {
    this.status = status;
    this.statusAt = now;
    this.render(now);
  }

  onConnection(dropped: boolean, now: number): void {
    this.droppedAt = dropped ? now : null;
    this.render(now);
  }

  /** The prediction's line: whether the board is predicted, and its corrections (yours, then all). */
  prediction(state: { active: boolean; stopped: string | null; corrections: number[] } | null, seat: number | null): void {
    if (state === null) {
      this.predicted.textContent = "";
      return;
    }
    const own = seat === null ? 0 : (state.corrections[seat] ?? 0);
    const all = state.corrections.reduce((a, b) => a + b, 0);
    this.predicted.textContent = state.active
      ? `· predicted (corrections: yours ${own}, all ${all})`
      : state.stopped === null ? "· engine loading" : "· from the stream";
    this.predicted.title = state.stopped ?? "";
  }

  /** Once in a while: the countdowns and the frame time (busy ms and draws so far). */
  tick(now: number, busyMs: number, draws: number): void {
    const before = this.drawSample;
    if (before !== null) {
      const perDraw = msPerDraw(busyMs, draws, before.busy, before.draws);
      if (perDraw !== null) this.frameTime.textContent = `· draw ${perDraw.toFixed(2)} ms/frame`;
    }
    this.drawSample = { busy: busyMs, draws };
    this.render(now);
  }

  private taken(index: number): boolean {
    const status = this.status;
    if (this.bots[index] != null) return true;
    if (status === null) return this.names[index] !== "open";
    return status.connected[index] === true || status.state !== "waiting" || this.names[index] !== "open";
  }

  private render(now: number): void {
    const status = this.status;
    const rule = forfeitRule(this.grace);
    const seats = this.names.map((name, index) => {
      const mine = index === this.seat;
      const lag = status?.lag?.[index] ?? null;
      const left = status?.grace?.[index] ?? null;
      let connection: string;
      if (this.bots[index] != null) connection = "bot";
      else if (left !== null) connection = `reconnecting — ${secondsLeft(left, this.statusAt, now)} s left`;
      else if (status !== null && !status.connected[index]) connection = "not connected";
      else if (lag === null) connection = "measuring…";
      else connection = `${barsText(signalBars(lag))} ${lagText(lag)}`;
      let label = mine ? `${name} (you, ping ${connection})` : `${name} ${connection}`;
      if (!this.taken(index)) label = "(an open seat)";
      return el("span", { class: "seat", id: `seat-${index}`, "data-bars": String(signalBars(lag)) }, label);
    });
    this.seatsLine.replaceChildren(...seats.flatMap((seat, index) => (index === 0 ? [seat] : [" vs ", seat])));
    this.watchers.textContent = status?.spectators ? `· ${status.spectators} watching` : "";
    // The opponent who dropped: its countdown and the rule.
    const awayText: string[] = [];
    this.names.forEach((name, index) => {
      const left = status?.grace?.[index] ?? null;
      if (index !== this.seat && left !== null && status?.state === "running") {
        awayText.push(`${name} reconnecting — ${secondsLeft(left, this.statusAt, now)} s left (${rule}).`);
      }
    });
    this.away.textContent = awayText.join(" ");
    this.away.classList.toggle("hidden", awayText.length === 0);
    // This page's own drop: the countdown from the moment it dropped.
    if (this.droppedAt !== null) {
      const left = secondsLeft(this.grace, this.droppedAt, now);
      this.banner.textContent = this.seat === null ? "Connection lost — reconnecting…"
        : `Connection lost — reconnecting… ${left} s left (${rule}).`;
    }
    this.banner.classList.toggle("hidden", this.droppedAt === null);
  }
}
