/**
 * The lobby's words for what the server lists: a live match and its age, a leaderboard line, a rating
 * (or nothing, when ratings are hidden). Pure, so a test reads them.
 */

import type { LiveMatch } from "./api";
import type { LeaderRow } from "./ranked";

/** Frames a second of the game (the live list's `frame` counts them). */
const FRAME_HZ = 60;

/** A live match's age in whole seconds at `now` (ms): its frame when listed at `listedAt` (ms), plus the
 * time since then while it runs, so the age ticks between two polls of the list. */
export function liveSeconds(match: Pick<LiveMatch, "frame" | "state">, listedAt: number, now: number): number {
  const since = match.state === "running" ? Math.max(0, now - listedAt) / 1000 : 0;
  return Math.floor(match.frame / FRAME_HZ + since);
}

/** `m:ss`. */
export function clock(seconds: number): string {
  const whole = Math.max(0, Math.floor(seconds));
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
}

/** A live list line: the seats, the state, the age, the spectators. */
export function liveLine(match: LiveMatch, seconds: number): string {
  const watching = match.spectators ? `, ${match.spectators} watching` : "";
  return `${match.seats.map((seat) => seat ?? "—").join(" vs ")} (${match.state}, ${clock(seconds)}${watching})`;
}

/** A rating as shown: rounded, with "?" when provisional. */
export function ratingText(rating: number, provisional: boolean): string {
  return `${Math.round(rating)}${provisional ? "?" : ""}`;
}

/** A leaderboard line. */
export function leaderLine(row: LeaderRow): string {
  return `${row.name} ${ratingText(row.rating, row.provisional)} (${row.games} ${row.games === 1 ? "game" : "games"})`;
}
