/**
 * The results screen after a live match: who won, the rating change (a ranked match's `rated`), and
 * each seat's statistics from the stream's events (app/stats.ts), as a table a screen reader reads.
 */

import type { MatchResult, Rated } from "../net/wire";
import { el } from "./dom";
import type { SeatStats } from "./stats";

const ROWS: [keyof SeatStats, string][] = [
  ["sent", "Attack units sent"],
  ["received", "Attack units received"],
  ["cancelled", "Attack units cancelled"],
  ["crushes", "Sno-Bees crushed"],
  ["lines", "Diamond lines"],
  ["deaths", "Deaths"],
];

/** End reasons that do not read after "by" (Payload versus's, rules/payload/match.py), in words. */
const REASON_WORDS: Record<string, string> = {
  finished: "with both runs over",
  out: "once the other's run ended behind",
};

/** Who won, in words, seen from `seat` (null: a spectator's view). */
export function resultText(result: MatchResult, seats: string[], seat: number | null): string {
  if (result.winner === null) return `A draw (${result.reason}).`;
  const who = seat === result.winner ? "You win" : `${seats[result.winner] ?? "?"} wins`;
  return `${who} ${REASON_WORDS[result.reason] ?? `by ${result.reason}`}: ${result.scores.join(" – ")}.`;
}

/** The rating change in words: "+12.3: now 1512". */
export function ratingChangeText(rated: Pick<Rated, "change" | "rating" | "provisional">): string {
  const sign = rated.change >= 0 ? "+" : "";
  return `Rating ${sign}${rated.change.toFixed(1)}: now ${Math.round(rated.rating)}${rated.provisional ? "?" : ""}`;
}

/** The statistics table: a column per seat, a row per statistic. */
export function statsTable(names: string[], stats: SeatStats[], seat: number | null, partial: boolean): HTMLElement {
  const head = el("tr", {}, el("th", { scope: "col" }, ""),
    ...names.map((name, index) => el("th", { scope: "col" }, index === seat ? `${name} (you)` : name)));
  const rows = ROWS.map(([key, label]) => el("tr", { "data-stat": key }, el("th", { scope: "row" }, label),
    ...stats.map((seatStats) => el("td", {}, String(seatStats[key])))));
  return el("table", { id: "match-stats", class: "stats" },
    el("caption", {}, partial ? "This match (from when this page joined it)" : "This match"),
    el("thead", {}, head), el("tbody", {}, ...rows));
}

/** A `rated` added to the results. */
export function ratingLine(rated: Rated): HTMLElement {
  return el("p", { id: "rating-change", class: rated.change >= 0 ? "gain" : "loss" }, ratingChangeText(rated));
}
