/**
 * The games a page can show: the registry by `joined.ruleset`, and Pengo's check of its tables.
 */

import { describe, expect, it } from "vitest";
import { pengoVocabulary } from "../src/games/pengo/tables";
import { DEFAULT_RULESET, viewFor } from "../src/games/registry";

const GENERIC_TABLES = { words: ["up"], events: [], word_fields: [], summary: ["status"], notes: [] };

describe("the game registry", () => {
  it("gives Pengo's view for pengo-versus, the default ruleset", () => {
    expect(DEFAULT_RULESET).toBe("pengo-versus");
    expect(viewFor("pengo-versus").ruleset).toBe("pengo-versus");
  });

  it("refuses a ruleset it has no view for, naming those it has", () => {
    expect(() => viewFor("payload")).toThrow(/cannot show payload \(it knows pengo-versus, pengo-solo, payload-versus\)/);
    expect(viewFor("pengo-solo").ruleset).toBe("pengo-solo");
  });

  it("refuses tables without Pengo's record keys as Pengo's", () => {
    expect(() => pengoVocabulary(GENERIC_TABLES)).toThrow(/not pengo-versus's stream tables/);
    const tables = { ...GENERIC_TABLES, keys: { player: 0, enemy: 1, block: 16 } };
    expect(pengoVocabulary(tables).word(0)).toBe("up");
  });
});
