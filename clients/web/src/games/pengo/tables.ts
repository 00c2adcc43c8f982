/**
 * Pengo versus's stream tables: the fields `joined.tables` carries for pengo-versus beyond every
 * ruleset's (protocol/README.md "Stream tables (pengo-versus …)"; rules/versus/view.py `TABLES`).
 */

import { type StreamTables, Vocabulary } from "../../net/vocabulary";

export interface PengoTables extends StreamTables {
  enemy_fields: string[];
  records: Record<string, string[]>;
  /** The first record key of each kind: Pengo's, the Sno-Bees' and the sliding blocks' (block id + `block`). */
  keys: { player: number; enemy: number; block: number };
  block_fields: string[];
  out: string[];
  pending: string[];
  gems: string[];
  cell_px: number;
}

export type PengoVocabulary = Vocabulary<PengoTables>;

/** The tables of a `joined` as Pengo's (an error when they are not: another ruleset's stream). */
export function pengoVocabulary(tables: StreamTables): PengoVocabulary {
  const keys = (tables as Partial<PengoTables>).keys;
  if (keys === undefined || typeof keys.player !== "number" || typeof keys.enemy !== "number"
    || typeof keys.block !== "number") {
    throw new Error("not pengo-versus's stream tables (no record keys)");
  }
  return new Vocabulary(tables as PengoTables);
}
