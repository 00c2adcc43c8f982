/**
 * The card before a ranked match: the opponent's name, rating (with the provisional mark) and
 * connection, and the rules as the server defines them: a rated result needs both players to move and
 * `matched.min_play` seconds of play, else the match is aborted and whoever caused it pays the queue
 * cooldown (`matched.abort_cooldown`); a dropped player forfeits after `welcome.reconnect_grace`.
 *
 * The lobby's queue hands the `matched` message over through the tab's session storage (the match
 * page is another route and may be reloaded).
 */

import type { Status } from "../net/wire";
import { barsText, forfeitRule, lagText, signalBars } from "./connection";
import { el } from "./dom";
import type { Matched } from "./ranked";

const STORAGE_KEY = "floe.matched";

/** Keep a `matched` for the match page. */
export function rememberMatched(matched: Matched): void {
  try {
    sessionStorage.setItem(STORAGE_KEY, JSON.stringify(matched));
  } catch {
    // Storage refused (private mode): the match page goes without its card.
  }
}

/** The `matched` of this match, if the queue found it in this tab. */
export function matchedFor(match: string): Matched | null {
  try {
    const kept = JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? "null") as Matched | null;
    return kept !== null && kept.match === match ? kept : null;
  } catch {
    return null;
  }
}

/** A rating as shown: whole points, "?" when provisional. */
export function ratingText(rating: number, provisional: boolean): string {
  return `${Math.round(rating)}${provisional ? "?" : ""}`;
}

/** The opponent's rating on the card: hidden (the `hideRatings` setting) while a match is played. */
export function cardRating(rating: number, provisional: boolean, hidden: boolean): string {
  return hidden ? "hidden (settings)" : `${ratingText(rating, provisional)}${provisional ? " (provisional)" : ""}`;
}

/** The abort rule in words, with the server's numbers. */
export function abortRule(minPlaySeconds: number, cooldownSeconds: number): string {
  if (minPlaySeconds <= 0) return "Every ranked match that ends is rated.";
  const cost = cooldownSeconds > 0
    ? `whoever left (or never moved) cannot queue for ${Math.round(cooldownSeconds)} s, doubling for each further one within a day`
    : "nobody pays for it";
  return `Rated only if both players move and ${Math.round(minPlaySeconds)} s of play run; `
    + `a match that ends sooner is aborted, not rated, and ${cost}.`;
}

export class RankedCard {
  readonly element: HTMLElement;
  private readonly connection = el("span", { id: "card-lag" }, "—");
  private readonly forfeit = el("li", { id: "card-forfeit" });

  /** `hideRatings`: the player asked not to see ratings during play (app/settings.ts). */
  constructor(private readonly matched: Matched, grace: number, hideRatings = false) {
    const provisional = matched.opponent_provisional === true;
    this.element = el("section", { id: "ranked-card", class: "card", "aria-label": "Ranked match" },
      el("h2", {}, "Ranked match"),
      el("p", { class: "card-opponent" },
        "Opponent: ", el("strong", { id: "card-opponent" }, matched.opponent), " · rating ",
        el("span", { id: "card-rating" }, hideRatings ? cardRating(matched.opponent_rating, provisional, true)
          : ratingText(matched.opponent_rating, provisional)),
        provisional && !hideRatings ? el("span", { id: "card-provisional" }, " (provisional)") : "",
        " · connection ", this.connection),
      el("ul", {},
        el("li", { id: "card-abort" }, abortRule(matched.min_play ?? 0, matched.abort_cooldown ?? 0)),
        this.forfeit),
    );
    this.setGrace(grace);
  }

  setGrace(grace: number): void {
    this.forfeit.textContent = `If your connection drops, you have ${Math.round(grace)} s to come back: `
      + `${forfeitRule(grace)}, and a forfeit counts as a loss.`;
  }

  onStatus(status: Status): void {
    const lag = status.lag?.[1 - this.matched.seat] ?? null;
    this.connection.textContent = `${barsText(signalBars(lag))} ${lagText(lag)}`;
  }
}
