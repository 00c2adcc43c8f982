/**
 * Payload's data as the browser engine sends it (src/engine/payload_engine.py, built on
 * rules/payload's plain forms: plain.py `run_plain`, events.py `event_plain`, content.py `compendium`).
 * Types only: no rule of the game lives on this side.
 */

/** One row of the compendium: content.py `compendium()`, straight from PARTS. */
export interface PartRow {
  key: string;
  glyph: string;
  name: string;
  badge: string;
  rule: string;
  role: string;
}

export interface Named {
  key: string;
  name: string;
  rule: string;
}

export interface DifficultyRow {
  key: string;
  name: string;
  rounds: { quota: number; drops: number; jam: string | null }[];
}

/** The compendium's tables (payload_engine.content). */
export interface PayloadContent {
  cols: number;
  rows: number;
  parts: PartRow[];
  blueprints: Named[];
  jams: Named[];
  variants: Named[];
  difficulties: DifficultyRow[];
}

export type Phase =
  | { phase: "draft"; offers: string[]; selected: number | null; rerolls: number }
  | { phase: "blueprints"; choices: string[] }
  | { phase: "dropping"; drops_left: number }
  | { phase: "over"; won: boolean };

/** The run as the page shows it (payload_engine._view: run_plain and the helpers' values). */
export interface PayloadView {
  difficulty: string;
  variant: string;
  seed: number;
  round: number;
  board: (string | null)[];
  phase: Phase;
  round_score: number;
  total_score: number;
  rounds_cleared: number;
  blueprints: string[];
  daily: string | null;
  rounds: number;
  quota: number;
  drops: number;
  jams: Named[];
  can_reroll: boolean;
  /** Each column's total now (the column preview; null once the run is over). */
  columns: number[] | null;
  moves: number;
  /** A run of the server's daily: also played as the `payload` ruleset's match (its replay file). */
  server: boolean;
  /** The server's daily: the match's frame (a move is its input byte on a frame of its own). */
  frame: number | null;
}

/** One event of a drop's log (events.py `drop_event_plain`). */
export type DropEvent =
  | { kind: "enter"; marble: number; cell: number; value: number; label: string }
  | { kind: "trigger"; marble: number; cell: number; part: string; before: number; after: number; label: string }
  | { kind: "spawn"; marble: number; parent: number; cell: number; column: number; value: number; label: string }
  | { kind: "capped"; marble: number; cell: number; label: string }
  | { kind: "bank"; marble: number; cell: number; value: number };

/** A run event (events.py `event_plain`); a drop's carries its log. */
export type RunEvent =
  | { kind: "drop"; round: number; column: number; total: number; log: DropEvent[] }
  | { kind: "round-cleared" | "round-missed"; round: number; score: number; quota: number }
  | { kind: "run-end"; won: boolean; score: number; rounds_cleared: number }
  | { kind: string; [field: string]: unknown };

/** A move (payload_engine._move). */
export type PayloadMove =
  | { kind: "select"; index: number }
  | { kind: "place"; cell: number }
  | { kind: "skip" }
  | { kind: "reroll" }
  | { kind: "blueprint"; index: number }
  | { kind: "drop"; column: number };

export interface Streak {
  current: number;
  best: number;
  last_date: string | null;
}

/** The run's record and share text (payload_engine.share, rules/payload/daily.py). */
export interface Shared {
  record: { date_key: string; difficulty: string; variant: string; won: boolean; rounds_cleared: number; score: number; log_hash: string };
  streak: Streak;
  text: string;
  moves: PayloadMove[];
}
