/**
 * The match in words, for the text summary beside the canvas (an aria-live region, read by screen
 * readers, live and in replays): each seat's score and lives, the time left, the last event. Pure:
 * a model and names in, a line of text out. Any game whose stream summary names `score`, `lives` or
 * `status` (its `joined.tables.summary`) gets them; a field the ruleset lacks is left out.
 */

import type { Vocabulary } from "../net/vocabulary";
import { clockText } from "./replaycontrol";

/** What the summary reads of a model (Pengo's `MatchModel` has it; any game's model may). */
export interface SummaryModel {
  readonly vocabulary: Vocabulary;
  /** Frames left on the match clock. */
  timeLeft: number;
  seats: readonly { summary: readonly unknown[] }[];
}

/** One seat's line: "ann: 1200 points, 3 lives" (", out of lives" or ", forfeited" once out of the match). */
export function seatSummary(model: SummaryModel, seat: number, name: string): string {
  const values = model.seats[seat]?.summary ?? [];
  const index = model.vocabulary.summaryIndex;
  const parts: string[] = [];
  const score = index.score === undefined ? undefined : values[index.score];
  if (typeof score === "number") parts.push(`${score} points`);
  const lives = index.lives === undefined ? undefined : values[index.lives];
  if (typeof lives === "number") parts.push(`${lives} ${lives === 1 ? "life" : "lives"}`);
  // `out`: 0 in the match, 1 out of lives, 2 forfeited (protocol/README.md "Seat summary").
  const out = index.out === undefined ? undefined : values[index.out];
  if (out === 1) parts.push("out of lives");
  else if (out === 2) parts.push("forfeited");
  return parts.length ? `${name}: ${parts.join(", ")}` : name;
}

/** The whole summary: every seat, the time left, and the last event when there is one. */
export function matchSummary(
  model: SummaryModel,
  names: readonly string[],
  lastEvent: string | null,
  frameRate = 60,
): string {
  const seats = model.seats.map((_, seat) => seatSummary(model, seat, names[seat] ?? `seat ${seat}`));
  const lines = [`${seats.join("; ")}.`, `${clockText(model.timeLeft, frameRate)} left.`];
  if (lastEvent !== null) lines.push(`Last: ${lastEvent}.`);
  return lines.join(" ");
}
