/**
 * The player's own replays: the ids of the matches this browser played (kept in local storage, the
 * newest first, at most `PLAYED_KEPT`), and the lobby's list of them with the date, the opponent and
 * the result, each read from the match's record (`GET /api/matches/{id}`: a finished match's record,
 * or the live summary of one still running or just over, with its result).
 */

import { api } from "./api";
import { el } from "./dom";

const PLAYED_KEY = "floe.played";
/** Matches remembered; the oldest is forgotten past this. */
export const PLAYED_KEPT = 50;
/** Matches the lobby lists (each one is a request for its record). */
export const PLAYED_SHOWN = 10;

/** A match this browser played: its id, the seat it played and when it joined (ms since the epoch). */
export interface Played {
  match: string;
  seat: number;
  joined: number;
}

/** `played` added to the front of `list` (once: a rejoin moves it up), at most `kept` long. Pure. */
export function withPlayed(list: readonly Played[], played: Played, kept = PLAYED_KEPT): Played[] {
  return [played, ...list.filter((entry) => entry.match !== played.match)].slice(0, kept);
}

/** The stored list as written (anything malformed is dropped, never thrown). Pure. */
export function parsePlayed(raw: string | null): Played[] {
  if (raw === null) return [];
  try {
    const value: unknown = JSON.parse(raw);
    if (!Array.isArray(value)) return [];
    return value.filter((entry): entry is Played =>
      typeof entry === "object" && entry !== null && typeof entry.match === "string"
      && typeof entry.seat === "number" && typeof entry.joined === "number");
  } catch {
    return [];
  }
}

export function playedMatches(storage: Storage = localStorage): Played[] {
  return parsePlayed(storage.getItem(PLAYED_KEY));
}

/** Remember that this browser plays `match` in `seat`. */
export function rememberPlayed(match: string, seat: number, storage: Storage = localStorage, now = Date.now()): void {
  storage.setItem(PLAYED_KEY, JSON.stringify(withPlayed(playedMatches(storage), { match, seat, joined: now })));
}

/** The part of a match's record the list shows (`GET /api/matches/{id}`). */
export interface PlayedRecord {
  live?: boolean;
  seats?: (string | null)[];
  result?: { winner: number | null; outcomes?: string[]; reason: string; scores: number[] } | null;
  ended?: number;
  replay?: string | null;
}

/** A date as the list shows it: "2026-12-03 12:40" in the browser's time zone. Pure. */
export function dateText(when: Date): string {
  const two = (value: number) => String(value).padStart(2, "0");
  return `${when.getFullYear()}-${two(when.getMonth() + 1)}-${two(when.getDate())} ${two(when.getHours())}:${two(when.getMinutes())}`;
}

/** One played match in words: "2026-12-03 12:40 · vs competent-bot · lost: you left, 0–300". Pure. */
export function playedText(played: Played, record: PlayedRecord): string {
  const seats = record.seats ?? [];
  const opponents = seats.filter((_, seat) => seat !== played.seat).map((name) => name ?? "open");
  const when = dateText(new Date(record.ended !== undefined && !record.live ? record.ended * 1000 : played.joined));
  const against = `vs ${opponents.join(", ") || "nobody"}`;
  const result = record.result;
  let outcome: string;
  // A match just over stays live a while (late spectators see its end): its result says it is over.
  if (record.live && !result) outcome = "still playing";
  else if (result === null || result === undefined) outcome = "cancelled";
  else {
    const mine = result.outcomes?.[played.seat]
      ?? (result.winner === null ? "drawn" : result.winner === played.seat ? "won" : "lost");
    const scores = result.scores.join("–");
    outcome = `${mine === "forfeited" ? "lost: you left" : `${mine} by ${result.reason}`}${scores ? `, ${scores}` : ""}`;
  }
  return `${when} · ${against} · ${outcome}`;
}

/** The lobby's list of this browser's matches: each a link to its replay (when it has one). */
export function playedList(): HTMLElement {
  const list = el("ul", { id: "my-replays" });
  const played = playedMatches().slice(0, PLAYED_SHOWN);
  if (played.length === 0) {
    list.append(el("li", {}, "none yet: your matches appear here"));
    return list;
  }
  for (const entry of played) {
    const item = el("li", { class: "played", "data-match": entry.match }, "…");
    list.append(item);
    api.match(entry.match).then((record) => {
      const text = playedText(entry, record as PlayedRecord);
      // A match's replay has the match's id; a live record (just over) names none yet.
      const { live, result, replay: named } = record as PlayedRecord;
      const replay = named ?? (live && result ? entry.match : null);
      item.replaceChildren(replay ? el("a", { href: `#/replay/${replay}`, class: "replay" }, text) : text);
    }).catch(() => item.replaceChildren(`${dateText(new Date(entry.joined))} · no record of this match`));
  }
  return list;
}
