/**
 * A ruleset's stream tables (`joined.tables`, protocol/README.md "Stream tables") and the reading of
 * a stream's numbers with them: words back to words, event arrays to named fields. What every
 * ruleset's tables carry is here; a game's view adds its own tables' fields (games/pengo/tables.ts).
 */

/** The tables every ruleset sends: words, event kinds and their fields, the summary, the note kinds. */
export interface StreamTables {
  words: string[];
  events: [string, string[]][];
  word_fields: string[];
  summary: string[];
  notes: [string, string[]][];
}

/** A decoded event: its kind and its fields by name (words resolved, enemy numbers as numbers). */
export interface GameEvent {
  kind: string;
  seat?: number;
  [field: string]: unknown;
}

/** Reads a stream's numbers with its ruleset's tables. */
export class Vocabulary<T extends StreamTables = StreamTables> {
  readonly tables: T;
  private readonly wordFields: Set<string>;
  readonly summaryIndex: Record<string, number>;

  constructor(tables: T) {
    this.tables = tables;
    this.wordFields = new Set(tables.word_fields);
    this.summaryIndex = Object.fromEntries(tables.summary.map((name, index) => [name, index]));
  }

  /** The word a code stands for (a string that is not a word stays itself). */
  word(value: unknown): string {
    if (typeof value === "number") return this.tables.words[value] ?? `#${value}`;
    return String(value);
  }

  /** A word's code. */
  code(word: string): number {
    const index = this.tables.words.indexOf(word);
    if (index < 0) throw new Error(`no word ${word}`);
    return index;
  }

  /** An event array as a GameEvent (a ruleset whose stream sends its events as plain maps, as Payload
   * does, has them passed through as they are). */
  event(values: unknown[] | GameEvent): GameEvent {
    if (!Array.isArray(values)) return values;
    const [kindCode, ...rest] = values as [number, ...unknown[]];
    const [kind, fields] = this.tables.events[kindCode] ?? [`#${kindCode}`, []];
    const event: GameEvent = { kind };
    fields.forEach((name, index) => {
      const value = rest[index];
      if (this.wordFields.has(name)) {
        event[name] = Array.isArray(value) ? value.map((item) => this.word(item)) : value === null ? null : this.word(value);
      } else {
        event[name] = value;
      }
    });
    return event;
  }
}
